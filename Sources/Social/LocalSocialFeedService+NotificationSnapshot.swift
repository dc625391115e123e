import Foundation
import TrainCore

/// The notifications, as a world's snapshot reads and writes them: each recipient's
/// notifications with the likes, comments, mentions and follows they count.
package struct NotificationRecords: Hashable, Sendable {
    /// One notification of a recipient's.
    package struct Group: Hashable, Sendable {
        package var recipient: String
        package var kind: NotificationKind
        package var postID: UUID?
        /// Oldest first.
        package var causes: [Cause]
        package var updatedAt: Date
        package var readAt: Date?

        package init(recipient: String, kind: NotificationKind, postID: UUID?, causes: [Cause], updatedAt: Date, readAt: Date?) {
            self.recipient = recipient
            self.kind = kind
            self.postID = postID
            self.causes = causes
            self.updatedAt = updatedAt
            self.readAt = readAt
        }
    }

    /// A like, comment, mention or follow a notification counts: its actor, the comment
    /// that is its cause if any, and when it came.
    package struct Cause: Hashable, Sendable {
        package var actor: String
        package var commentID: UUID?
        package var date: Date

        package init(actor: String, commentID: UUID?, date: Date) {
            self.actor = actor
            self.commentID = commentID
            self.date = date
        }
    }

    /// How far a recipient has seen their notifications.
    package struct Seen: Hashable, Sendable {
        package var user: String
        package var upTo: Date

        package init(user: String, upTo: Date) {
            self.user = user
            self.upTo = upTo
        }
    }

    package var groups: [Group] = []
    package var seen: [Seen] = []

    package init() {}

    /// Whether `lhs` comes before `rhs` among a notification's causes: by date, then by
    /// the actor's and the comment's bytes, so the order is the same on every export.
    package static func isOrdered(_ lhs: Cause, _ rhs: Cause) -> Bool {
        if lhs.date != rhs.date { return lhs.date < rhs.date }
        if !lhs.actor.utf8.elementsEqual(rhs.actor.utf8) { return lhs.actor.utf8.lexicographicallyPrecedes(rhs.actor.utf8) }
        return (lhs.commentID?.uuidString ?? "") < (rhs.commentID?.uuidString ?? "")
    }

    /// A date as a notification keeps it: to the millisecond, rounded down.
    package static func stored(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
    }
}

extension LocalSocialFeedService {
    /// Every recipient's notifications, in key order, each with its causes oldest first.
    func exportNotifications(in records: RecordReader) throws -> NotificationRecords {
        var exported = NotificationRecords()
        for entry in try records.entries(in: SocialRecords.notifications) {
            guard let components = try? RecordKey(encoded: entry.key).components, components.count == 2, case .string(let recipient) = components[0],
                case .string(let group) = components[1]
            else { throw SocialError(.storage, detail: "A notification's key has another layout.") }
            var causes: [NotificationRecords.Cause] = []
            let range = try SocialRecords.range([.string(recipient), .string(group)])
            for cause in try records.records(in: SocialRecords.notificationCauses, range: range) {
                guard let parts = try? RecordKey(encoded: cause.key).components, parts.count == 4, case .string(let actor) = parts[2],
                    case .string(let made) = parts[3], let date = SocialRecords.causeDate(cause.data)
                else { throw SocialError(.storage, detail: "A notification's cause has another layout.") }
                let commentID = UUID(uuidString: made)
                guard made.isEmpty || commentID != nil else { throw SocialError(.storage, detail: "A notification's cause is not a comment.") }
                causes.append(.init(actor: actor, commentID: commentID, date: date))
            }
            exported.groups.append(
                .init(
                    recipient: recipient, kind: entry.value.kind, postID: entry.value.postID,
                    causes: causes.sorted(by: NotificationRecords.isOrdered),
                    updatedAt: entry.value.updatedAt, readAt: entry.value.readAt))
        }
        exported.seen = try records.entries(in: SocialRecords.notificationsSeen).compactMap { entry in
            entry.value.seenUpTo > .distantPast ? .init(user: entry.key, upTo: entry.value.seenUpTo) : nil
        }
        return exported
    }

    /// Writes checked notifications with the indexes the service reads: each cause by
    /// actor and newest first, each notification in its recipient's list, and each
    /// recipient's marks, the newest at their newest notification.
    func importNotifications(_ imported: NotificationRecords, in records: RecordWriter) throws {
        // By the IDs' bytes, as the feed tells users apart.
        var marks: [[UInt8]: (user: String, marks: SocialRecords.NotificationMarks)] = [:]
        for seen in imported.seen { marks[Array(seen.user.utf8), default: (seen.user, .init())].marks.seenUpTo = seen.upTo }
        for notification in imported.groups {
            let group = Self.group(notification.kind, notification.postID)
            var actors: Set<[UInt8]> = []
            for cause in notification.causes {
                let components: [RecordKey.Component] = [
                    .string(notification.recipient), .string(group), .string(cause.actor), .string(cause.commentID.map(SocialRecords.key) ?? ""),
                ]
                try records.setData(SocialRecords.causeDate(cause.date), forKey: SocialRecords.key(components), in: SocialRecords.notificationCauses)
                try records.setData(Data(), forKey: SocialRecords.causeOrderKey(components, at: cause.date), in: SocialRecords.notificationCauseOrder)
                actors.insert(Array(cause.actor.utf8))
            }
            var stored = SocialRecords.StoredNotification(kind: notification.kind, postID: notification.postID)
            stored.count = actors.count
            stored.latest = try self.actors(in: group, of: notification.recipient, leavingOut: UserIDSet(), limit: 2, in: records)
            stored.updatedAt = notification.updatedAt
            stored.readAt = notification.readAt
            try records.put(stored, forKey: SocialRecords.key([.string(notification.recipient), .string(group)]), in: SocialRecords.notifications)
            try records.setData(
                Data(group.utf8), forKey: Self.orderKey(notification.recipient, notification.updatedAt, group), in: SocialRecords.notificationOrder)
            let recipient = Array(notification.recipient.utf8)
            var mark = marks[recipient]?.marks ?? .init()
            mark.newest = max(mark.newest, notification.updatedAt)
            marks[recipient] = (notification.recipient, mark)
        }
        for (user, mark) in marks.values {
            var mark = mark
            mark.newest = max(mark.newest, mark.seenUpTo)
            try records.put(mark, forKey: user, in: SocialRecords.notificationsSeen)
        }
    }
}
