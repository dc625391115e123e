import Foundation

/// What a notification tells of.
public enum NotificationKind: String, Hashable, Sendable, Codable, CaseIterable {
    /// Users liked a post of the recipient's.
    case like
    /// Users commented on a post of the recipient's.
    case comment
    /// Users started following the recipient.
    case follow
    /// Users mentioned the recipient in a post or in comments on it.
    case mention
}

/// A user a notification names.
public struct NotificationActor: Codable, Hashable, Sendable {
    /// Their ID.
    public let id: String
    /// Their name now.
    public let displayName: String

    /// Creates an actor.
    /// - Parameters:
    ///   - id: Their ID.
    ///   - displayName: Their name.
    public init(id: String, displayName: String) {
        self.id = id
        self.displayName = displayName
    }
}

/// A notification of the signed-in user's: every like of one post is one
/// notification ("Bob and 3 others liked your post"), as is every comment on it, every
/// mention of the user in the post or its comments, and every follow. It counts only users the recipient may see: a user they block or
/// mute, who blocks them, or who is hidden from them, is left out, and a like, comment
/// or follow that goes — unliked, deleted, ended — leaves it too.
public struct SocialNotification: Codable, Hashable, Sendable, Identifiable {
    /// The notification's identifier: its kind and post.
    public let id: String
    /// What it tells of.
    public let kind: NotificationKind
    /// The post it is about — for a mention, the post it or its comment is in; nil for follows.
    public let postID: UUID?
    /// The users who acted last, newest first: at most two.
    public let latestActors: [NotificationActor]
    /// How many users it counts.
    public let actorCount: Int
    /// When its last like, comment or follow came, to the millisecond; never before the
    /// recipient's change before it, even with the clock set back.
    public let updatedAt: Date
    /// Whether the recipient has seen it in their list since it last changed.
    public let isSeen: Bool
    /// Whether the recipient opened it since it last changed.
    public let isRead: Bool

    /// Creates a notification.
    /// - Parameters:
    ///   - id: The identifier.
    ///   - kind: What it tells of.
    ///   - postID: The post.
    ///   - latestActors: The users who acted last.
    ///   - actorCount: How many users it counts.
    ///   - updatedAt: When it last changed.
    ///   - isSeen: Whether it was seen since.
    ///   - isRead: Whether it was opened since.
    public init(
        id: String, kind: NotificationKind, postID: UUID?, latestActors: [NotificationActor], actorCount: Int, updatedAt: Date, isSeen: Bool,
        isRead: Bool
    ) {
        self.id = id
        self.kind = kind
        self.postID = postID
        self.latestActors = latestActors
        self.actorCount = actorCount
        self.updatedAt = updatedAt
        self.isSeen = isSeen
        self.isRead = isRead
    }

    /// The notification in English, such as "Bob and 3 others liked your post".
    public var summary: String {
        let first = latestActors.first?.displayName ?? "Someone"
        let who =
            switch actorCount {
            case ...1: first
            case 2: "\(first) and \(latestActors.dropFirst().first?.displayName ?? "1 other")"
            default: "\(first) and \(actorCount - 1) others"
            }
        return switch kind {
        case .like: "\(who) liked your post"
        case .comment: "\(who) commented on your post"
        case .follow: "\(who) started following you"
        case .mention: "\(who) mentioned you"
        }
    }
}

/// A page of notifications, newest first, and where the next one starts.
public struct NotificationPage: Hashable, Sendable {
    /// The notifications.
    public let notifications: [SocialNotification]
    /// The cursor of the next page; nil on the last.
    public let nextCursor: String?

    /// Creates a page.
    /// - Parameters:
    ///   - notifications: The notifications.
    ///   - nextCursor: The next page's cursor.
    public init(notifications: [SocialNotification], nextCursor: String?) {
        self.notifications = notifications
        self.nextCursor = nextCursor
    }

    /// Whether another page follows.
    public var hasMore: Bool { nextCursor != nil }
}

/// What a notification stream tells: whose notifications, their badge and first page,
/// and whether the pages the reader walked before are to be walked again.
public struct NotificationUpdate: Hashable, Sendable {
    /// How many notifications the stream's first page holds.
    public static let pageSize = 20

    /// The signed-in user; nil when nobody is.
    public let userID: String?
    /// Their badge: the notifications changed since they last saw the list.
    public let unseenCount: Int
    /// Their first page of notifications.
    public let page: NotificationPage
    /// Whether the reader drops the pages it walked before this update and walks the
    /// list again from ``page``'s `nextCursor`.
    ///
    /// True for the first update about a user; when more notifications were made or
    /// moved to the top while the reader was away than the page shows; when a
    /// notification the previous update's page showed is off this page and went or
    /// changed (one pushed below it as it was does not count); and when the list was
    /// seen, on this device or another. When false, every notification made or moved to
    /// the top since the previous update — a new like, comment, mention or follow — is on
    /// ``page``, and each notification the previous page showed is on it or below it as
    /// it was: the reader puts the page above the notifications it holds, leaving out of
    /// those the ones the page holds again, and its walk goes on from the cursor it had.
    /// A notification below the previous page that loses a user, or goes, is shown as it
    /// is when the list is next walked.
    public let requiresReload: Bool

    /// Creates an update.
    /// - Parameters:
    ///   - userID: The signed-in user.
    ///   - unseenCount: Their badge.
    ///   - page: Their first page.
    ///   - requiresReload: Whether the pages walked before are walked again.
    public init(userID: String?, unseenCount: Int, page: NotificationPage, requiresReload: Bool = false) {
        self.userID = userID
        self.unseenCount = unseenCount
        self.page = page
        self.requiresReload = requiresReload
    }

    /// Whether `other` tells the same user, badge and page, whatever it asks of the reader.
    func sameState(as other: NotificationUpdate) -> Bool {
        userID == other.userID && unseenCount == other.unseenCount && page == other.page
    }

    /// This update as a reader is given it after `previous`, when the newest change of
    /// `previous`'s user was dated `newest`, and `changedBelow` when a notification the
    /// reader holds off this page went or changed, or the list was seen:
    /// ``requiresReload`` set as it documents.
    func given(after previous: NotificationUpdate?, newest: Date, changedBelow: Bool) -> NotificationUpdate {
        let reload: Bool
        if let previous, previous.userID == userID {
            reload = userID != nil && (changedBelow || Self.reloads(from: previous.page, newest: newest, to: page))
        } else {
            reload = userID != nil || previous?.userID != nil
        }
        return NotificationUpdate(userID: userID, unseenCount: unseenCount, page: page, requiresReload: reload)
    }

    /// Whether a reader who holds `previous` — read when the newest change was dated
    /// `newest` — and its walk below it walks again to show `page`.
    static func reloads(from previous: NotificationPage, newest: Date, to page: NotificationPage) -> Bool {
        // Newest first: the notifications made or moved since lead the page.
        let moved = page.notifications.prefix { $0.updatedAt > newest }
        // A whole page of them may have more below.
        if page.hasMore, moved.count == page.notifications.count { return true }
        let movedIDs = Set(moved.map(\.id))
        let kept = previous.notifications.map(\.id).filter { !movedIDs.contains($0) }
        let rest = page.notifications.dropFirst(moved.count).map(\.id)
        // The rest is the previous page in order, less what the moved pushed below it.
        guard rest.count <= kept.count, Array(kept.prefix(rest.count)) == rest else { return true }
        return rest.count < kept.count && !page.hasMore
    }
}
