import Foundation
import TrainCore
import TrainSocial

extension WorldSnapshot {
    /// One notification of a user's: the likes of one of their posts, the comments on
    /// it, the mentions of them in a post and its comments, or their follows, each a
    /// cause. A `like`, `comment` or `mention` names its `post`; a `follow` none. Left
    /// out: `updatedAt` is its newest cause's date, `readAt` none (unread). Dates are kept
    /// to the millisecond, and may be up to a second past the importing stack's now: the
    /// feed dates each change of a user's notifications a millisecond after the one
    /// before, even within one millisecond. Each cause is one the document holds: a like,
    /// a follow, a comment, or a post or comment that mentions the recipient.
    public struct Notification: Codable, Hashable, Sendable {
        /// The user notified.
        public var recipient: String
        /// What it tells of.
        public var kind: NotificationKind
        /// The post it is about.
        public var post: UUID?
        /// What it counts, oldest first: one a user for a like, a follow or a mention in
        /// the post, one a comment for a comment or a mention in a comment.
        public var causes: [Cause]
        /// When it last changed.
        public var updatedAt: Date?
        /// The date of the version the recipient opened; unread when it is before `updatedAt`.
        public var readAt: Date?

        /// Creates a notification; what is left nil takes its default.
        /// - Parameters:
        ///   - recipient: The user notified.
        ///   - kind: What it tells of.
        ///   - post: The post it is about.
        ///   - causes: What it counts.
        public init(recipient: String, kind: NotificationKind, post: UUID? = nil, causes: [Cause]) {
            self.recipient = recipient
            self.kind = kind
            self.post = post
            self.causes = causes
        }

        /// A like, comment, mention or follow a notification counts. Left out: `comment`
        /// none, `date` now.
        public struct Cause: Codable, Hashable, Sendable {
            /// The user who did it.
            public var actor: String
            /// The comment that is the cause of a `comment` notification, or of a mention in a comment.
            public var comment: UUID?
            /// When.
            public var date: Date?

            /// Creates a cause.
            /// - Parameters:
            ///   - actor: The user who did it.
            ///   - comment: The comment that is the cause.
            ///   - date: When.
            public init(actor: String, comment: UUID? = nil, date: Date? = nil) {
                self.actor = actor
                self.comment = comment
                self.date = date
            }
        }
    }

    /// How far a user has seen their notifications: the ones changed later count as unseen.
    public struct NotificationsSeen: Codable, Hashable, Sendable {
        /// The user.
        public var user: String
        /// Up to when.
        public var upTo: Date

        /// Creates a mark.
        /// - Parameters:
        ///   - user: The user.
        ///   - upTo: Up to when.
        public init(user: String, upTo: Date) {
            self.user = user
            self.upTo = upTo
        }
    }

    /// The notifications, each one the feed would have made: a cause of a user's for a
    /// post, comment or follow the document holds. The posts and comments are resolved first.
    func resolveNotifications(users: Set<UserKey>, now: Date, into resolved: inout Resolved) throws(WorldSnapshotError) {
        try resolveNotificationsSeen(users: users, now: now, into: &resolved)
        // The posts, comments and relations the causes refer to, made only for a document
        // with notifications.
        guard !notifications.isEmpty else { return }
        var authors: [UUID: UserKey] = [:]
        for post in resolved.social.posts { authors[post.id] = UserKey(post.userID) }
        var comments: [UUID: PostComment] = [:]
        for comment in resolved.social.comments { comments[comment.id] = comment }
        // The feed dates each change of a recipient's notifications — undone ones too — a
        // millisecond after the one before, even within one millisecond: up to a second
        // past now.
        let latest = now.addingTimeInterval(Self.notificationLeeway)
        var likes: Set<[UInt8]> = []
        for like in resolved.social.likes { likes.insert(Array(like.user.utf8) + [0] + withUnsafeBytes(of: like.post.uuid, Array.init)) }
        var follows: Set<[UInt8]> = []
        for follow in resolved.social.follows { follows.insert(Array(follow.from.utf8) + [0] + Array(follow.to.utf8)) }
        var texts: [UUID: String] = [:]
        for post in resolved.social.posts { texts[post.id] = post.content }
        var groups: Set<[UInt8]> = []
        for (index, notification) in notifications.enumerated() {
            var path: String { "notifications[\(index)]" }
            try Self.reference(notification.recipient, in: users, path: "\(path).recipient")
            let recipient = UserKey(notification.recipient)
            switch (notification.kind, notification.post) {
            case (.follow, nil): break
            case (.follow, _?):
                throw WorldSnapshotError(.invalidValue, path: "\(path).post", detail: "A follow's notification is about no post.")
            case (_, nil):
                throw WorldSnapshotError(
                    .invalidValue, path: "\(path).post", detail: "A \(notification.kind.rawValue)'s notification names its post.")
            case (let kind, let post?):
                guard let author = authors[post] else {
                    throw WorldSnapshotError(.danglingReference, path: "\(path).post", detail: "No post has the ID \(post.uuidString).")
                }
                guard kind == .mention || author == recipient else {
                    throw WorldSnapshotError(.invalidValue, path: "\(path).post", detail: "A like or comment notifies the post's author.")
                }
            }
            let group =
                Array(notification.recipient.utf8) + [0] + Array(notification.kind.rawValue.utf8) + [0]
                + Array((notification.post?.uuidString ?? "").utf8)
            guard groups.insert(group).inserted else {
                throw WorldSnapshotError(.duplicateID, path: path, detail: "The user has this notification already.")
            }
            guard !notification.causes.isEmpty else {
                throw WorldSnapshotError(.invalidValue, path: "\(path).causes", detail: "A notification counts one cause or more.")
            }
            var causes: [NotificationRecords.Cause] = []
            var seen: Set<[UInt8]> = []
            for (position, cause) in notification.causes.enumerated() {
                var field: String { "\(path).causes[\(position)]" }
                try Self.reference(cause.actor, in: users, path: "\(field).actor")
                guard UserKey(cause.actor) != recipient else {
                    throw WorldSnapshotError(.invalidValue, path: "\(field).actor", detail: "A user is not notified of what they did.")
                }
                try checkCause(cause, of: notification, comments: comments, authors: authors, path: field)
                let pair = Array(cause.actor.utf8) + [0]
                switch notification.kind {
                case .like:
                    guard let post = notification.post, likes.contains(pair + withUnsafeBytes(of: post.uuid, Array.init)) else {
                        throw WorldSnapshotError(
                            .danglingReference, path: "\(field).actor", detail: "The document has no like of the post by the user.")
                    }
                case .follow:
                    guard follows.contains(pair + Array(notification.recipient.utf8)) else {
                        throw WorldSnapshotError(
                            .danglingReference, path: "\(field).actor", detail: "The document has no follow of the recipient by the user.")
                    }
                case .mention:
                    let text = cause.comment.flatMap { comments[$0]?.text } ?? notification.post.flatMap { texts[$0] } ?? ""
                    guard Mention.userIDs(in: text).contains(where: { $0.utf8.elementsEqual(notification.recipient.utf8) }) else {
                        throw WorldSnapshotError(.invalidValue, path: field, detail: "The post or comment does not mention the recipient.")
                    }
                case .comment: break
                }
                guard seen.insert(Array(cause.actor.utf8) + [0] + Array((cause.comment?.uuidString ?? "").utf8)).inserted else {
                    throw WorldSnapshotError(.duplicateID, path: field, detail: "The notification counts this cause already.")
                }
                let date = NotificationRecords.stored(cause.date ?? now)
                try Self.check(date, notAfter: latest, path: "\(field).date")
                causes.append(.init(actor: cause.actor, commentID: cause.comment, date: date))
            }
            let newest = causes.map(\.date).max() ?? now
            let updatedAt = notification.updatedAt.map(NotificationRecords.stored) ?? newest
            guard updatedAt >= newest else {
                throw WorldSnapshotError(
                    .invalidValue, path: "\(path).updatedAt", detail: "A notification changed when its newest cause came, or later.")
            }
            try Self.check(updatedAt, notAfter: latest, path: "\(path).updatedAt")
            let readAt = notification.readAt.map(NotificationRecords.stored)
            if let readAt, readAt > updatedAt {
                throw WorldSnapshotError(.invalidValue, path: "\(path).readAt", detail: "A notification is read no later than it last changed.")
            }
            resolved.social.notifications.groups.append(
                .init(
                    recipient: notification.recipient, kind: notification.kind, postID: notification.post,
                    causes: causes.sorted(by: NotificationRecords.isOrdered),
                    updatedAt: updatedAt, readAt: readAt))
        }

    }

    /// How far each user has seen their notifications: users of the document, each once.
    private func resolveNotificationsSeen(users: Set<UserKey>, now: Date, into resolved: inout Resolved) throws(WorldSnapshotError) {
        let latest = now.addingTimeInterval(Self.notificationLeeway)
        var marked: Set<UserKey> = []
        for (index, mark) in notificationsSeen.enumerated() {
            try Self.reference(mark.user, in: users, path: "notificationsSeen[\(index)].user")
            guard marked.insert(UserKey(mark.user)).inserted else {
                throw WorldSnapshotError(.duplicateID, path: "notificationsSeen[\(index)].user", detail: "The user's mark is listed twice.")
            }
            let upTo = NotificationRecords.stored(mark.upTo)
            try Self.check(upTo, notAfter: latest, path: "notificationsSeen[\(index)].upTo")
            resolved.social.notifications.seen.append(.init(user: mark.user, upTo: upTo))
        }
    }

    /// How far past the importing stack's now a notification's date may be.
    static let notificationLeeway: TimeInterval = 1

    /// Throws unless the cause's comment is one the notification's kind counts: a visible
    /// comment of the actor's on the post for a comment, or for a mention in a comment;
    /// none for a like, a follow, or a mention in the actor's own post.
    private func checkCause(
        _ cause: Notification.Cause, of notification: Notification, comments: [UUID: PostComment], authors: [UUID: UserKey], path: String
    ) throws(WorldSnapshotError) {
        guard let commentID = cause.comment else {
            switch notification.kind {
            case .comment:
                throw WorldSnapshotError(.invalidValue, path: "\(path).comment", detail: "A comment's notification counts comments.")
            case .mention:
                guard let post = notification.post, authors[post] == UserKey(cause.actor) else {
                    throw WorldSnapshotError(.invalidValue, path: "\(path).actor", detail: "A mention without a comment is in the actor's own post.")
                }
            case .like, .follow: break
            }
            return
        }
        guard notification.kind == .comment || notification.kind == .mention else {
            throw WorldSnapshotError(.invalidValue, path: "\(path).comment", detail: "A like or a follow has no comment.")
        }
        guard let comment = comments[commentID] else {
            throw WorldSnapshotError(.danglingReference, path: "\(path).comment", detail: "No comment has the ID \(commentID.uuidString).")
        }
        guard comment.postID == notification.post, comment.userID.map(UserKey.init) == UserKey(cause.actor), !comment.isHiddenByModeration else {
            throw WorldSnapshotError(
                .invalidValue, path: "\(path).comment",
                detail: "The cause is a comment of the actor's on the notification's post that moderation does not hide.")
        }
    }
}
