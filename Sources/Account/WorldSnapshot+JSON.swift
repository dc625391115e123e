import Foundation
import TrainCore

/// The document's bytes: UTF-8 JSON, keys sorted, two-space indents, every date an
/// ISO 8601 string in UTC with the fraction of a second to the microsecond when it has
/// one (`2026-01-01T08:30:00Z`, `2026-01-01T08:30:00.25Z`), in the proleptic Gregorian
/// calendar as ISO 8601 has it, years 1 to 9999. Reading accepts the same,
/// and refuses a key the format does not have, so a misspelt field in a hand-written
/// fixture is an error rather than a default, and a key an object gives twice.
extension WorldSnapshot {
    /// Reads a document.
    /// - Parameter json: The document's bytes, at most ``maximumSize``.
    /// - Throws: ``WorldSnapshotError`` — `tooLarge`, `unreadable` or `unsupportedVersion`,
    ///   naming the path of what is wrong.
    public init(json: Data) throws(WorldSnapshotError) {
        guard json.count <= Self.maximumSize else {
            throw WorldSnapshotError(.tooLarge, path: "", detail: "The document has \(json.count) bytes; at most \(Self.maximumSize) are read.")
        }
        let tree: Any
        do {
            tree = try JSONSerialization.jsonObject(with: json)
        } catch {
            throw WorldSnapshotError(.unreadable, path: "", detail: "The document is not JSON.")
        }
        try Self.checkKeys(of: tree, against: Self.fields, at: "")
        try Self.checkNoKeyTwice(in: json)
        // The tree checked is the tree decoded.
        let checked: Data
        do {
            checked = try JSONSerialization.data(withJSONObject: tree, options: [.fragmentsAllowed])
        } catch {
            throw WorldSnapshotError(.unreadable, path: "", detail: "The document is not JSON.")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = Self.date(from: text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(text.debugDescription) is not an ISO 8601 date in UTC.")
            }
            return date
        }
        do {
            self = try decoder.decode(WorldSnapshot.self, from: checked)
        } catch let error as WorldSnapshotError {
            throw error
        } catch let error as DecodingError {
            throw Self.unreadable(error)
        } catch {
            throw WorldSnapshotError(.unreadable, path: "", detail: "\(error)")
        }
    }

    /// The document's bytes: the same snapshot always gives the same bytes.
    /// - Returns: UTF-8 JSON.
    /// - Throws: ``WorldSnapshotError`` `invalidValue` for a date that is not finite or
    ///   outside years 1 to 9999; `tooLarge` when the memory for the bytes cannot be had.
    public func encoded() throws(WorldSnapshotError) -> Data {
        var writer = JSONWriter(capacity: 512 + posts.count * 320 + users.count * 256)
        write(to: &writer)
        if let invalid = writer.invalid { throw WorldSnapshotError(.invalidValue, detail: invalid) }
        guard !writer.bytes.isIncomplete else {
            throw WorldSnapshotError(
                .tooLarge, path: "", detail: "The memory for the document's \(writer.bytes.count) bytes and more could not be had.")
        }
        return writer.bytes.data()
    }

    // MARK: - Dates

    /// Appends `date` as ISO 8601 in UTC, to the microsecond; false, and nothing
    /// appended, for a date that is not finite or outside years 1 to 9999.
    static func append(_ date: Date, to bytes: DocumentBytes) -> Bool {
        let interval = date.timeIntervalSince1970
        guard interval.isFinite, interval >= -62_135_596_800, interval < 253_402_300_800 else { return false }
        var seconds = Int(interval.rounded(.down))
        var micros = Int(((interval - interval.rounded(.down)) * 1_000_000).rounded())
        if micros == 1_000_000 {
            seconds += 1
            micros = 0
        }
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let (year, month, day) = civil(fromDays: days)
        let time = seconds - days * 86_400
        func digits(_ value: Int, _ count: Int) {
            if count == 2 {
                bytes.append(UInt8(ascii: "0") + UInt8(value / 10 % 10))
                bytes.append(UInt8(ascii: "0") + UInt8(value % 10))
                return
            }
            var divisor = 1
            for _ in 1..<count { divisor *= 10 }
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
        }
        digits(year, 4)
        bytes.append(UInt8(ascii: "-"))
        digits(month, 2)
        bytes.append(UInt8(ascii: "-"))
        digits(day, 2)
        bytes.append(UInt8(ascii: "T"))
        digits(time / 3_600, 2)
        bytes.append(UInt8(ascii: ":"))
        digits(time / 60 % 60, 2)
        bytes.append(UInt8(ascii: ":"))
        digits(time % 60, 2)
        if micros > 0 {
            bytes.append(UInt8(ascii: "."))
            digits(micros, 6)
            while bytes.last == UInt8(ascii: "0") { bytes.removeLast() }
        }
        bytes.append(UInt8(ascii: "Z"))
        return true
    }

    /// The date an ISO 8601 string in UTC names: `YYYY-MM-DDThh:mm:ss`, a fraction of 1
    /// to 9 digits or none, and `Z`.
    static func date(from text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) else { return nil }
                value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
            }
            return value
        }
        let separators: [(Int, UInt8)] = [
            (4, UInt8(ascii: "-")), (7, UInt8(ascii: "-")), (10, UInt8(ascii: "T")), (13, UInt8(ascii: ":")), (16, UInt8(ascii: ":")),
        ]
        guard separators.allSatisfy({ bytes[$0.0] == $0.1 }), let year = number(0..<4), let month = number(5..<7),
            let day = number(8..<10), let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60, year >= 1
        else { return nil }
        var fraction = 0.0
        if bytes.count > 20 {
            let digits = 20..<(bytes.count - 1)
            guard bytes[19] == UInt8(ascii: "."), (1...9).contains(digits.count), let value = number(digits) else { return nil }
            fraction = Double(value) / pow(10, Double(digits.count))
        } else if bytes[19] != UInt8(ascii: "Z") {
            return nil
        }
        let days = Self.days(fromCivil: year, month, day)
        // A day the month does not have (February 30) is refused, not rolled over.
        guard civil(fromDays: days) == (year, month, day) else { return nil }
        let date = Double(days * 86_400 + hour * 3_600 + minute * 60 + second) + fraction
        // A fraction that rounds into the year 10000 is not a date the document writes.
        return date < 253_402_300_800 ? Date(timeIntervalSince1970: date) : nil
    }

    /// Days since 1970-01-01 of a date of the proleptic Gregorian calendar (Howard
    /// Hinnant's `days_from_civil`).
    private static func days(fromCivil year: Int, _ month: Int, _ day: Int) -> Int {
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The year, month and day `days` after 1970-01-01 (`civil_from_days`).
    private static func civil(fromDays days: Int) -> (Int, Int, Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    // MARK: - Keys and errors

    /// The keys the format has: at each level, a key's own keys when its value is an
    /// object or a list of objects.
    private indirect enum Fields {
        case object([String: Fields])
        case leaf

        /// Every key path below, as `posts.workout.duration`.
        func paths(under prefix: String) -> Set<String> {
            guard case .object(let known) = self else { return [] }
            var paths: Set<String> = []
            for (key, child) in known {
                let path = prefix.isEmpty ? key : "\(prefix).\(key)"
                paths.insert(path)
                paths.formUnion(child.paths(under: path))
            }
            return paths
        }
    }

    /// Every key path the format has, lists' elements not indexed (`posts.workout.duration`):
    /// what a test holds the reader and the writer to.
    package static var formatKeyPaths: Set<String> { fields.paths(under: "") }

    /// A plan's keys, on the remote or on the device.
    private static let planFields = Fields.object([
        "id": .leaf, "user": .leaf, "name": .leaf, "notes": .leaf, "startDate": .leaf, "endDate": .leaf, "daysPerWeek": .leaf,
        "isCompleted": .leaf, "lastModified": .leaf, "weeklyWorkouts": .object(["id": .leaf, "title": .leaf, "minutes": .leaf]),
    ])

    private static let fields = Fields.object([
        "version": .leaf,
        "tokenSigningKey": .leaf,
        "users": .object([
            "id": .leaf, "displayName": .leaf, "email": .leaf, "isPrivateEmail": .leaf, "isEmailVerified": .leaf, "isAnonymous": .leaf,
            "phoneNumber": .leaf,
            "photoURL": .leaf, "photo": .leaf, "createdAt": .leaf, "lastSignInAt": .leaf, "password": .leaf,
            "passwordHash": .object(["algorithm": .leaf, "iterations": .leaf, "salt": .leaf, "hash": .leaf]),
            "providers": .object(["provider": .leaf, "subject": .leaf, "email": .leaf, "linkedAt": .leaf]),
        ]),
        "follows": .object(["follower": .leaf, "followee": .leaf]),
        "blocks": .object(["blocker": .leaf, "blocked": .leaf]),
        "mutes": .object(["muter": .leaf, "muted": .leaf]),
        "posts": .object([
            "id": .leaf, "author": .leaf, "content": .leaf, "workoutType": .leaf, "createdAt": .leaf, "expiresAt": .leaf, "likeCount": .leaf,
            "commentCount": .leaf, "isHiddenByModeration": .leaf, "workout": .object(["duration": .leaf, "distance": .leaf]), "mediaURL": .leaf,
            "photo": .leaf,
        ]),
        "photos": .object(["user": .leaf, "id": .leaf, "kind": .leaf, "data": .leaf]),
        "likes": .object(["user": .leaf, "post": .leaf]),
        "comments": .object(["id": .leaf, "post": .leaf, "author": .leaf, "text": .leaf, "createdAt": .leaf, "isHiddenByModeration": .leaf]),
        "reports": .object([
            "reporter": .leaf, "post": .leaf, "comment": .leaf, "user": .leaf, "reason": .leaf, "details": .leaf, "createdAt": .leaf,
        ]),
        "moderationCases": .object([
            "post": .leaf, "comment": .leaf, "user": .leaf, "status": .leaf, "openedAt": .leaf, "reviewedAt": .leaf, "removedOwner": .leaf,
            "removedContent": .leaf,
        ]),
        "suspensions": .object(["user": .leaf, "date": .leaf]),
        "notifications": .object([
            "recipient": .leaf, "kind": .leaf, "post": .leaf, "updatedAt": .leaf, "readAt": .leaf,
            "causes": .object(["actor": .leaf, "comment": .leaf, "date": .leaf]),
        ]),
        "notificationsSeen": .object(["user": .leaf, "upTo": .leaf]),
        "unlocks": .object([
            "user": .leaf, "id": .leaf, "workoutType": .leaf, "unlockDate": .leaf, "timeZone": .leaf, "expiresAt": .leaf,
            "workout": .object(["duration": .leaf, "distance": .leaf]),
        ]),
        "moderators": .object(["user": .leaf, "grantedAt": .leaf]),
        "deletions": .object(["user": .leaf, "purgeAt": .leaf]),
        "moderationLog": .object([
            "id": .leaf, "moderator": .leaf, "action": .leaf, "post": .leaf, "comment": .leaf, "user": .leaf, "owner": .leaf, "note": .leaf,
            "date": .leaf,
        ]),
        "purchases": .object([
            "user": .leaf, "appleID": .leaf, "product": .leaf, "purchasedAt": .leaf, "expiresAt": .leaf, "autoRenewOffAt": .leaf, "refundedAt": .leaf,
            "refundReason": .leaf, "renewsAs": .leaf, "renewsAsSince": .leaf, "billingFailedAt": .leaf, "billingGracePeriod": .leaf,
            "offer": .leaf, "offerType": .leaf,
        ]),
        "pendingPurchases": .object(["user": .leaf, "appleID": .leaf, "product": .leaf, "kind": .leaf, "requestedAt": .leaf]),
        "families": .object(["organizer": .leaf, "members": .leaf]),
        "consents": .object(["user": .leaf, "document": .leaf, "version": .leaf, "action": .leaf, "date": .leaf]),
        "plans": planFields,
        "devicePlans": planFields,
        "devicePlanDeletions": .object(["user": .leaf, "id": .leaf, "deletedAt": .leaf]),
        "deviceConflicts": .object([
            "user": .leaf, "plan": .leaf, "field": .leaf, "losingValue": .leaf, "winningValue": .leaf, "resolvedAt": .leaf,
        ]),
    ])

    /// Throws `unreadable` at the first key the format does not have; types are left
    /// to the decoder.
    private static func checkKeys(of value: Any, against fields: Fields, at path: String) throws(WorldSnapshotError) {
        guard case .object(let known) = fields else { return }
        if let list = value as? [Any] {
            for (index, element) in list.enumerated() { try checkKeys(of: element, against: fields, at: "\(path)[\(index)]") }
            return
        }
        guard let object = value as? [String: Any] else { return }
        for key in object.keys.sorted() {
            let inner = path.isEmpty ? key : "\(path).\(key)"
            guard let child = known[key] else {
                throw WorldSnapshotError(.unreadable, path: inner, detail: "The format has no field \(key.debugDescription) here.")
            }
            if let element = object[key] { try checkKeys(of: element, against: child, at: inner) }
        }
    }

    /// Throws `unreadable` at the first object that gives a key twice: the parser keeps
    /// one of the two values, and which one is not promised. `json` is JSON already.
    private static func checkNoKeyTwice(in json: Data) throws(WorldSnapshotError) {
        /// An open object, with its keys so far and whether a key comes next, or an open
        /// list with its element's index.
        struct Level {
            var isObject: Bool
            var keys: [[UInt8]] = []
            var awaitsKey = false
            var index = 0
        }
        var levels: [Level] = []
        var duplicate: (levels: [Level], key: [UInt8])?
        json.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            let bytes = raw.bindMemory(to: UInt8.self)
            var position = 0
            while position < bytes.count, duplicate == nil {
                let byte = bytes[position]
                switch byte {
                case UInt8(ascii: "{"):
                    levels.append(Level(isObject: true, awaitsKey: true))
                case UInt8(ascii: "["):
                    levels.append(Level(isObject: false))
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    _ = levels.popLast()
                case UInt8(ascii: ","):
                    if let last = levels.indices.last {
                        if levels[last].isObject { levels[last].awaitsKey = true } else { levels[last].index += 1 }
                    }
                case UInt8(ascii: "\""):
                    let start = position + 1
                    var escaped = false
                    position += 1
                    while position < bytes.count, bytes[position] != UInt8(ascii: "\"") {
                        if bytes[position] == UInt8(ascii: "\\") {
                            escaped = true
                            position += 1
                        }
                        position += 1
                    }
                    if let last = levels.indices.last, levels[last].isObject, levels[last].awaitsKey {
                        levels[last].awaitsKey = false
                        var key = Array(bytes[start..<min(position, bytes.count)])
                        if escaped, let text = try? JSONSerialization.jsonObject(with: Data([34] + key + [34]), options: .fragmentsAllowed) as? String
                        {
                            key = Array(text.utf8)
                        }
                        if levels[last].keys.contains(key) {
                            duplicate = (levels, key)
                        } else {
                            levels[last].keys.append(key)
                        }
                    }
                default:
                    break
                }
                position += 1
            }
        }
        guard let (open, key) = duplicate else { return }
        var path = ""
        for (depth, level) in open.enumerated() {
            let isLast = depth == open.count - 1
            if level.isObject {
                let name = String(decoding: isLast ? key : level.keys.last ?? [], as: UTF8.self)
                path += path.isEmpty ? name : ".\(name)"
            } else {
                path += "[\(level.index)]"
            }
        }
        throw WorldSnapshotError(.unreadable, path: path, detail: "The object gives the key twice.")
    }

    /// A decoding error as `unreadable`, with its path in the document's notation.
    private static func unreadable(_ error: DecodingError) -> WorldSnapshotError {
        let (path, reason): ([any CodingKey], String) =
            switch error {
            case .typeMismatch(let type, let context): (context.codingPath, "expected \(type)")
            case .valueNotFound(let type, let context): (context.codingPath, "expected \(type), found null")
            case .keyNotFound(let key, let context): (context.codingPath + [key], "the field is required")
            case .dataCorrupted(let context): (context.codingPath, context.debugDescription)
            @unknown default: ([], "\(error)")
            }
        return WorldSnapshotError(.unreadable, path: text(of: path), detail: reason)
    }

    /// A coding path as `users[1].id`.
    static func text(of path: [any CodingKey]) -> String {
        var text = ""
        for key in path {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text
    }
}
