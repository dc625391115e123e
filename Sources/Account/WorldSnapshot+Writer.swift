import Foundation
import TrainAuth
import TrainSocial

/// The document's bytes, written field by field: two-space indents, `"key" : value`,
/// keys in alphabetical order, a field that is nil left out, an empty list as `[]`.
/// Strings are UTF-8 with `"`, `\` and control characters escaped; UUIDs in upper
/// case. A world of 100k posts is 32 MB, and writing it so takes a fraction of what a
/// generic encoder that sorts each object's keys takes (`train-bench --row WORLD-EXPORT`).
extension WorldSnapshot {
    /// Writes the whole document.
    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.list("blocks", blocks) { writer, block in
            writer.beginObject()
            writer.field("blocked", block.blocked)
            writer.field("blocker", block.blocker)
            writer.endObject()
        }
        writer.list("comments", comments) { writer, comment in
            writer.beginObject()
            writer.field("author", comment.author)
            writer.field("createdAt", comment.createdAt)
            writer.field("id", comment.id)
            writer.field("isHiddenByModeration", comment.isHiddenByModeration)
            writer.field("post", comment.post)
            writer.field("text", comment.text)
            writer.endObject()
        }
        writer.list("consents", consents) { writer, consent in
            writer.beginObject()
            writer.field("action", consent.action?.rawValue)
            writer.field("date", consent.date)
            writer.field("document", consent.document.rawValue)
            writer.field("user", consent.user)
            writer.field("version", consent.version)
            writer.endObject()
        }
        writer.list("deletions", deletions) { writer, deletion in
            writer.beginObject()
            writer.field("purgeAt", deletion.purgeAt)
            writer.field("user", deletion.user)
            writer.endObject()
        }
        writer.list("deviceConflicts", deviceConflicts) { writer, conflict in
            writer.beginObject()
            writer.field("field", conflict.field)
            writer.field("losingValue", conflict.losingValue)
            writer.field("plan", conflict.plan)
            writer.field("resolvedAt", conflict.resolvedAt)
            writer.field("user", conflict.user)
            writer.field("winningValue", conflict.winningValue)
            writer.endObject()
        }
        writer.list("devicePlanDeletions", devicePlanDeletions) { writer, deletion in
            writer.beginObject()
            writer.field("deletedAt", deletion.deletedAt)
            writer.field("id", deletion.id)
            writer.field("user", deletion.user)
            writer.endObject()
        }
        writer.list("devicePlans", devicePlans) { writer, plan in writer.write(plan) }
        writer.list("families", families) { writer, family in
            writer.beginObject()
            writer.list("members", family.members) { writer, member in writer.value(member) }
            writer.field("organizer", family.organizer)
            writer.endObject()
        }
        writer.list("follows", follows) { writer, follow in
            writer.beginObject()
            writer.field("followee", follow.followee)
            writer.field("follower", follow.follower)
            writer.endObject()
        }
        writer.list("likes", likes) { writer, like in
            writer.beginObject()
            writer.field("post", like.post)
            writer.field("user", like.user)
            writer.endObject()
        }
        writer.list("moderationCases", moderationCases) { writer, found in
            writer.beginObject()
            writer.field("comment", found.comment)
            writer.field("openedAt", found.openedAt)
            writer.field("post", found.post)
            writer.field("removedContent", found.removedContent)
            writer.field("removedOwner", found.removedOwner)
            writer.field("reviewedAt", found.reviewedAt)
            writer.field("status", found.status?.rawValue)
            writer.field("user", found.user)
            writer.endObject()
        }
        writer.list("moderationLog", moderationLog) { writer, entry in
            writer.beginObject()
            writer.field("action", entry.action.rawValue)
            writer.field("comment", entry.comment)
            writer.field("date", entry.date)
            writer.field("id", entry.id)
            writer.field("moderator", entry.moderator)
            writer.field("note", entry.note)
            writer.field("owner", entry.owner)
            writer.field("post", entry.post)
            writer.field("user", entry.user)
            writer.endObject()
        }
        writer.list("moderators", moderators) { writer, grant in
            writer.beginObject()
            writer.field("grantedAt", grant.grantedAt)
            writer.field("user", grant.user)
            writer.endObject()
        }
        writer.list("mutes", mutes) { writer, mute in
            writer.beginObject()
            writer.field("muted", mute.muted)
            writer.field("muter", mute.muter)
            writer.endObject()
        }
        writer.list("notifications", notifications) { writer, notification in
            writer.beginObject()
            writer.list("causes", notification.causes) { writer, cause in
                writer.beginObject()
                writer.field("actor", cause.actor)
                writer.field("comment", cause.comment)
                writer.field("date", cause.date)
                writer.endObject()
            }
            writer.field("kind", notification.kind.rawValue)
            writer.field("post", notification.post)
            writer.field("readAt", notification.readAt)
            writer.field("recipient", notification.recipient)
            writer.field("updatedAt", notification.updatedAt)
            writer.endObject()
        }
        writer.list("notificationsSeen", notificationsSeen) { writer, mark in
            writer.beginObject()
            writer.field("upTo", mark.upTo)
            writer.field("user", mark.user)
            writer.endObject()
        }
        writer.list("pendingPurchases", pendingPurchases) { writer, pending in
            writer.beginObject()
            writer.field("appleID", pending.appleID)
            writer.field("kind", pending.kind?.rawValue)
            writer.field("product", pending.product)
            writer.field("requestedAt", pending.requestedAt)
            writer.field("user", pending.user)
            writer.endObject()
        }
        writer.list("photos", photos) { writer, photo in
            writer.beginObject()
            writer.field("data", photo.data.base64EncodedString())
            writer.field("id", photo.id)
            writer.field("kind", photo.kind?.rawValue)
            writer.field("user", photo.user)
            writer.endObject()
        }
        writer.list("plans", plans) { writer, plan in writer.write(plan) }
        writer.list(halving: "posts", posts) { writer, post in
            writer.beginObject()
            writer.field("author", post.author)
            writer.field("commentCount", post.commentCount)
            writer.field("content", post.content)
            writer.field("createdAt", post.createdAt)
            writer.field("expiresAt", post.expiresAt)
            writer.field("id", post.id)
            writer.field("isHiddenByModeration", post.isHiddenByModeration)
            writer.field("likeCount", post.likeCount)
            writer.field("mediaURL", post.mediaURL?.absoluteString)
            writer.field("photo", post.photo)
            if let workout = post.workout { writer.object("workout") { writer in writer.write(workout) } }
            writer.field("workoutType", post.workoutType?.rawValue)
            writer.endObject()
        }
        writer.list("purchases", purchases) { writer, purchase in
            writer.beginObject()
            writer.field("appleID", purchase.appleID)
            writer.field("autoRenewOffAt", purchase.autoRenewOffAt)
            writer.field("billingFailedAt", purchase.billingFailedAt)
            writer.field("billingGracePeriod", purchase.billingGracePeriod)
            writer.field("expiresAt", purchase.expiresAt)
            writer.field("offer", purchase.offer)
            writer.field("offerType", purchase.offerType?.rawValue)
            writer.field("product", purchase.product)
            writer.field("purchasedAt", purchase.purchasedAt)
            writer.field("refundReason", purchase.refundReason?.rawValue)
            writer.field("refundedAt", purchase.refundedAt)
            writer.field("renewsAs", purchase.renewsAs)
            writer.field("renewsAsSince", purchase.renewsAsSince)
            writer.field("user", purchase.user)
            writer.endObject()
        }
        writer.list("reports", reports) { writer, report in
            writer.beginObject()
            writer.field("comment", report.comment)
            writer.field("createdAt", report.createdAt)
            writer.field("details", report.details)
            writer.field("post", report.post)
            writer.field("reason", report.reason.rawValue)
            writer.field("reporter", report.reporter)
            writer.field("user", report.user)
            writer.endObject()
        }
        writer.list("suspensions", suspensions) { writer, suspension in
            writer.beginObject()
            writer.field("date", suspension.date)
            writer.field("user", suspension.user)
            writer.endObject()
        }
        writer.field("tokenSigningKey", tokenSigningKey?.base64EncodedString())
        writer.list("unlocks", unlocks) { writer, unlock in
            writer.beginObject()
            writer.field("expiresAt", unlock.expiresAt)
            writer.field("id", unlock.id)
            writer.field("timeZone", unlock.timeZone)
            writer.field("unlockDate", unlock.unlockDate)
            writer.field("user", unlock.user)
            if let workout = unlock.workout { writer.object("workout") { writer in writer.write(workout) } }
            writer.field("workoutType", unlock.workoutType.rawValue)
            writer.endObject()
        }
        writer.list("users", users) { writer, user in
            writer.beginObject()
            writer.field("createdAt", user.createdAt)
            writer.field("displayName", user.displayName)
            writer.field("email", user.email)
            writer.field("id", user.id)
            writer.field("isAnonymous", user.isAnonymous)
            writer.field("isEmailVerified", user.isEmailVerified)
            writer.field("isPrivateEmail", user.isPrivateEmail)
            writer.field("lastSignInAt", user.lastSignInAt)
            writer.field("password", user.password)
            if let stored = user.passwordHash {
                writer.object("passwordHash") { writer in
                    writer.field("algorithm", stored.algorithm)
                    writer.field("hash", stored.hash.base64EncodedString())
                    writer.field("iterations", stored.iterations)
                    writer.field("salt", stored.salt.base64EncodedString())
                }
            }
            writer.field("phoneNumber", user.phoneNumber)
            writer.field("photo", user.photo)
            writer.field("photoURL", user.photoURL?.absoluteString)
            if let providers = user.providers {
                writer.list("providers", providers) { writer, provider in
                    writer.beginObject()
                    writer.field("email", provider.email)
                    writer.field("linkedAt", provider.linkedAt)
                    writer.field("provider", provider.provider.rawValue)
                    writer.field("subject", provider.subject)
                    writer.endObject()
                }
            }
            writer.endObject()
        }
        writer.field("version", version)
        writer.endObject()
    }
}

extension JSONWriter {
    /// A plan, on the remote or on the device.
    mutating func write(_ plan: WorldSnapshot.Plan) {
        beginObject()
        field("daysPerWeek", plan.daysPerWeek)
        field("endDate", plan.endDate)
        field("id", plan.id)
        field("isCompleted", plan.isCompleted)
        field("lastModified", plan.lastModified)
        field("name", plan.name)
        field("notes", plan.notes)
        field("startDate", plan.startDate)
        field("user", plan.user)
        if let workouts = plan.weeklyWorkouts {
            list("weeklyWorkouts", workouts) { writer, workout in
                writer.beginObject()
                writer.field("id", workout.id)
                writer.field("minutes", workout.minutes)
                writer.field("title", workout.title)
                writer.endObject()
            }
        }
        endObject()
    }

    /// A workout's fields.
    mutating func write(_ workout: WorldSnapshot.Workout) {
        field("distance", workout.distance)
        field("duration", workout.duration)
    }
}

/// A JSON writer for one document's layout: objects whose fields the caller gives in
/// order, lists of objects, and strings, numbers, booleans and dates as values.
struct JSONWriter {
    /// The document's bytes so far.
    let bytes: DocumentBytes
    /// How many objects and lists are open.
    private var depth = 0
    /// Whether the object or list open at each level has an element yet, a bit a level:
    /// a document nests a few levels deep.
    private var hasElement: UInt64 = 0
    /// What could not be written — a date ISO 8601 does not write, a number JSON does
    /// not — if anything: the document is refused.
    private(set) var invalid: String?

    init(capacity: Int) { bytes = DocumentBytes(capacity: capacity) }

    mutating func beginObject() {
        bytes.append(UInt8(ascii: "{"))
        open()
    }

    mutating func endObject() { close(UInt8(ascii: "}")) }

    /// `key` and an object whose fields `body` writes.
    mutating func object(_ key: StaticString, _ body: (inout JSONWriter) -> Void) {
        self.key(key)
        beginObject()
        body(&self)
        endObject()
    }

    /// `key` and a list of `elements`, each written by `body`.
    mutating func list<Element>(_ key: StaticString, _ elements: [Element], _ body: (inout JSONWriter, Element) -> Void) {
        self.key(key)
        guard !elements.isEmpty else {
            append("[]")
            return
        }
        bytes.append(UInt8(ascii: "["))
        open()
        for element in elements {
            separate()
            body(&self, element)
        }
        close(UInt8(ascii: "]"))
    }

    /// `key` and a list of `elements`, as ``list(_:_:_:)`` writes it, a long list in two
    /// halves written at once, the second into bytes of its own appended after: the
    /// 100k posts of the WORLD-EXPORT world take two cores' time instead of one's
    /// (`train-bench --row WORLD-EXPORT`). `body` writes one element and touches
    /// nothing else, as it runs on two threads.
    mutating func list<Element>(halving key: StaticString, _ elements: [Element], _ body: (inout JSONWriter, Element) -> Void) {
        guard elements.count >= 4_096 else { return list(key, elements, body) }
        self.key(key)
        bytes.append(UInt8(ascii: "["))
        open()
        let (middle, count) = (elements.count / 2, elements.count)
        let (first, second) = withoutActuallyEscaping(body) { body in
            let halves = Halves(
                first: self, second: JSONWriter(continuing: self, capacity: (elements.count - middle) * 320),
                write: { writer, range in
                    for element in elements[range] {
                        writer.separate()
                        body(&writer, element)
                    }
                })
            // The second half runs on a thread of its own, not on Dispatch's pool: waiting
            // here for work a busy pool has not started could wait for ever, while this
            // waits only for a thread that is already running.
            let secondDone = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                halves.write?(&halves.second, middle..<count)
                secondDone.signal()
            }
            halves.write?(&halves.first, 0..<middle)
            secondDone.wait()
            // `body` may not outlive this block.
            halves.write = nil
            return (halves.first, halves.second)
        }
        self = first
        bytes.append(contentsOf: second.bytes)
        invalid = invalid ?? second.invalid
        close(UInt8(ascii: "]"))
    }

    /// The two writers of a halved list and what writes a range of its elements: each
    /// thread touches one writer only.
    private final class Halves: @unchecked Sendable {
        var first: JSONWriter
        var second: JSONWriter
        var write: ((inout JSONWriter, Range<Int>) -> Void)?

        init(first: JSONWriter, second: JSONWriter, write: @escaping (inout JSONWriter, Range<Int>) -> Void) {
            self.first = first
            self.second = second
            self.write = write
        }
    }

    /// A writer at `writer`'s level after an element, into new bytes.
    private init(continuing writer: JSONWriter, capacity: Int) {
        bytes = DocumentBytes(capacity: capacity)
        depth = writer.depth
        hasElement = writer.hasElement | 1 << UInt64(writer.depth & 63)
    }

    /// A string as an element of a list.
    mutating func value(_ value: String) { string(value) }

    mutating func field(_ key: StaticString, _ value: String?) {
        guard let value else { return }
        self.key(key)
        string(value)
    }

    /// A finite number, in the shortest form that reads back to the same value.
    mutating func field(_ key: StaticString, _ value: Double?) {
        guard let value else { return }
        guard value.isFinite else {
            invalid = invalid ?? "The number \(value) is not one JSON writes."
            return
        }
        self.key(key)
        var text = value.description
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    mutating func field(_ key: StaticString, _ value: Int?) {
        guard let value else { return }
        self.key(key)
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        let magnitude = value.magnitude
        var divisor: UInt = 1
        while magnitude / divisor >= 10 { divisor *= 10 }
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude / divisor % 10))
            divisor /= 10
        }
    }

    mutating func field(_ key: StaticString, _ value: Bool?) {
        guard let value else { return }
        self.key(key)
        append(value ? "true" : "false")
    }

    mutating func field(_ key: StaticString, _ value: UUID?) {
        guard let value else { return }
        self.key(key)
        // The 38 bytes made on the stack, then appended at once.
        let hex: StaticString = "0123456789ABCDEF"
        var text: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &text) { out in
            out[0] = UInt8(ascii: "\"")
            var position = 1
            withUnsafeBytes(of: value.uuid) { raw in
                for index in 0..<16 {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        out[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    out[position] = hex.utf8Start[Int(raw[index] >> 4)]
                    out[position + 1] = hex.utf8Start[Int(raw[index] & 0x0f)]
                    position += 2
                }
            }
            out[position] = UInt8(ascii: "\"")
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: out[0...position]))
        }
    }

    mutating func field(_ key: StaticString, _ value: Date?) {
        guard let value else { return }
        self.key(key)
        bytes.append(UInt8(ascii: "\""))
        if !WorldSnapshot.append(value, to: bytes) {
            invalid = invalid ?? "The date \(value.timeIntervalSince1970) s from 1970 is not one ISO 8601 writes."
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// A comma unless first, a new line and the indent of the level.
    private mutating func separate() {
        let bit: UInt64 = 1 << UInt64(depth & 63)
        if hasElement & bit != 0 { bytes.append(UInt8(ascii: ",")) }
        hasElement |= bit
        newline(depth: depth)
    }

    /// A field's key: the format's keys need no escaping.
    private mutating func key(_ key: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        append("\" : ")
    }

    /// A new level, with no element yet.
    private mutating func open() {
        depth += 1
        hasElement &= ~(1 << UInt64(depth & 63))
    }

    /// Text that needs no escaping.
    private mutating func append(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private mutating func close(_ bracket: UInt8) {
        let had = hasElement & (1 << UInt64(depth & 63)) != 0
        depth -= 1
        if had { newline(depth: depth) }
        bytes.append(bracket)
    }

    private mutating func newline(depth: Int) {
        bytes.append(UInt8(ascii: "\n"))
        let indent: StaticString = "                "
        bytes.append(contentsOf: UnsafeBufferPointer(start: indent.utf8Start, count: min(depth * 2, indent.utf8CodeUnitCount)))
    }

    /// A JSON string: `"` and `\` escaped, control characters as `\n`, `\t` or `\u00XX`.
    private mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            // Runs that need no escape are copied whole.
            var start = 0
            for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                escape(byte)
                start = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// The escape of one byte of a string.
    private mutating func escape(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): append("\\\"")
        case UInt8(ascii: "\\"): append("\\\\")
        case UInt8(ascii: "\n"): append("\\n")
        case UInt8(ascii: "\t"): append("\\t")
        case UInt8(ascii: "\r"): append("\\r")
        case 0..<0x20:
            let hex: StaticString = "0123456789abcdef"
            append("\\u00")
            bytes.append(hex.utf8Start[Int(byte >> 4)])
            bytes.append(hex.utf8Start[Int(byte & 0x0f)])
        default: bytes.append(byte)
        }
    }
}
