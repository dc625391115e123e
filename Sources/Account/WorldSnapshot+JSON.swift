import Foundation
import TrainCore

/// The document's bytes: UTF-8 JSON, keys sorted, two-space indents, every date an
/// ISO 8601 string in UTC with the fraction of a second to the microsecond when it has
/// one (`2026-01-01T08:30:00Z`, `2026-01-01T08:30:00.25Z`). Reading accepts the same,
/// and refuses a key the format does not have, so a misspelt field in a hand-written
/// fixture is an error rather than a default.
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
            self = try decoder.decode(WorldSnapshot.self, from: json)
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
    /// - Throws: ``WorldSnapshotError`` `unreadable` for a date that is not finite.
    public func encoded() throws(WorldSnapshotError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            guard let text = Self.text(of: date) else {
                throw EncodingError.invalidValue(date, .init(codingPath: encoder.codingPath, debugDescription: "The date is not finite."))
            }
            try container.encode(text)
        }
        do {
            return try encoder.encode(self)
        } catch {
            throw WorldSnapshotError(.unreadable, path: "", detail: "\(error)")
        }
    }

    // MARK: - Dates

    /// `date` as ISO 8601 in UTC, to the microsecond; nil for a date that is not finite
    /// or outside years 1 to 9999.
    static func text(of date: Date) -> String? {
        let interval = date.timeIntervalSince1970
        guard interval.isFinite, interval > -62_135_596_800, interval < 253_402_300_800 else { return nil }
        var seconds = interval.rounded(.down)
        var micros = Int(((interval - seconds) * 1_000_000).rounded())
        if micros == 1_000_000 {
            seconds += 1
            micros = 0
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: seconds))
        guard let year = parts.year, let month = parts.month, let day = parts.day, let hour = parts.hour, let minute = parts.minute,
            let second = parts.second
        else { return nil }
        var text = pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T" + pad(hour, 2) + ":" + pad(minute, 2) + ":" + pad(second, 2)
        if micros > 0 {
            var fraction = pad(micros, 6)
            while fraction.hasSuffix("0") { fraction.removeLast() }
            text += "." + fraction
        }
        return text + "Z"
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
        let separators: [(Int, Character)] = [(4, "-"), (7, "-"), (10, "T"), (13, ":"), (16, ":")]
        guard separators.allSatisfy({ bytes[$0.0] == $0.1.asciiValue }), let year = number(0..<4), let month = number(5..<7),
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
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        let parts = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        // A day the month does not have (February 30) is refused, not rolled over.
        guard let whole = calendar.date(from: parts), calendar.component(.day, from: whole) == day else { return nil }
        return Date(timeIntervalSince1970: whole.timeIntervalSince1970 + fraction)
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    // MARK: - Keys and errors

    /// The keys the format has: at each level, a key's own keys when its value is an
    /// object or a list of objects.
    private indirect enum Fields {
        case object([String: Fields])
        case leaf
    }

    private static let fields = Fields.object([
        "version": .leaf,
        "users": .object([
            "id": .leaf, "displayName": .leaf, "email": .leaf, "isEmailVerified": .leaf, "isAnonymous": .leaf, "phoneNumber": .leaf,
            "photoURL": .leaf, "createdAt": .leaf, "lastSignInAt": .leaf,
            "providers": .object(["provider": .leaf, "subject": .leaf, "email": .leaf, "linkedAt": .leaf]),
        ]),
        "follows": .object(["follower": .leaf, "followee": .leaf]),
        "blocks": .object(["blocker": .leaf, "blocked": .leaf]),
        "posts": .object([
            "id": .leaf, "author": .leaf, "content": .leaf, "workoutType": .leaf, "createdAt": .leaf, "expiresAt": .leaf, "likeCount": .leaf,
            "commentCount": .leaf,
        ]),
        "likes": .object(["user": .leaf, "post": .leaf]),
        "comments": .object(["id": .leaf, "post": .leaf, "author": .leaf, "text": .leaf, "createdAt": .leaf]),
        "purchases": .object(["user": .leaf, "appleID": .leaf, "product": .leaf, "purchasedAt": .leaf]),
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
