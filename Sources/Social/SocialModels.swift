import Foundation

/// The kind of workout a user completed; completing one unlocks the feed. The set is
/// open: TrainKit declares the common kinds, and an app declares its own beside them.
///
/// ```swift
/// extension WorkoutType {
///     static let climbing = WorkoutType("climbing")
/// }
/// ```
public struct WorkoutType: RawRepresentable, Codable, Hashable, Sendable, Identifiable, CustomStringConvertible {
    /// The kind's stable name.
    public let rawValue: String

    /// Creates a kind of workout.
    /// - Parameter rawValue: Its stable name.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Creates a kind of workout.
    /// - Parameter name: Its stable name.
    public init(_ name: String) {
        self.init(rawValue: name)
    }

    /// Weights and resistance.
    public static let strength = WorkoutType("strength")
    /// General cardio.
    public static let cardio = WorkoutType("cardio")
    /// Running.
    public static let run = WorkoutType("run")
    /// Swimming.
    public static let swim = WorkoutType("swim")
    /// Cycling.
    public static let cycle = WorkoutType("cycle")
    /// Yoga.
    public static let yoga = WorkoutType("yoga")
    /// High-intensity interval training.
    public static let hiit = WorkoutType("hiit")
    /// A rest day; whether it unlocks the feed is a policy value.
    public static let rest = WorkoutType("rest")
    /// TrainKit's kinds of workout.
    public static let standard: [WorkoutType] = [.strength, .cardio, .run, .swim, .cycle, .yoga, .hiit, .rest]

    /// The name.
    public var id: String { rawValue }

    /// The name.
    public var description: String { rawValue }

    /// Whether the name is 1 to 64 ASCII letters, digits, `-`, `_` or `.`: what the
    /// social service stores.
    public var isValid: Bool {
        !rawValue.isEmpty && rawValue.utf8.count <= 64
            && rawValue.utf8.allSatisfy { $0.isASCIILetterOrDigit || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") }
    }
}

extension UInt8 {
    /// Whether the byte is an ASCII letter or digit.
    fileprivate var isASCIILetterOrDigit: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
    }
}

/// An unlock of the feed by a completed workout: it lasts until the start of the next
/// calendar day in the time zone the user was in when they completed it.
public struct FeedUnlock: Codable, Hashable, Sendable, Identifiable {
    /// The unlock's identifier.
    public let id: UUID
    /// The user who completed the workout.
    public let userID: String
    /// The workout completed.
    public let workoutType: WorkoutType
    /// When it was completed.
    public let unlockDate: Date
    /// The identifier of the user's time zone then, such as `"Europe/Paris"`.
    public let timeZoneIdentifier: String
    /// The start of the next local calendar day: the feed is unlocked before it.
    public let expiresAt: Date
    /// The recorded workout that unlocked the feed, when the policy asks for one.
    public let workout: WorkoutSummary?

    /// Creates an unlock.
    /// - Parameters:
    ///   - id: The identifier.
    ///   - userID: The user.
    ///   - workoutType: The workout completed.
    ///   - unlockDate: When.
    ///   - timeZoneIdentifier: The user's time zone then.
    ///   - expiresAt: The start of the next local day.
    ///   - workout: The recorded workout behind it, if any.
    public init(
        id: UUID, userID: String, workoutType: WorkoutType, unlockDate: Date, timeZoneIdentifier: String, expiresAt: Date,
        workout: WorkoutSummary? = nil
    ) {
        self.id = id
        self.userID = userID
        self.workoutType = workoutType
        self.unlockDate = unlockDate
        self.timeZoneIdentifier = timeZoneIdentifier
        self.expiresAt = expiresAt
        self.workout = workout
    }

    /// Whether the feed is unlocked at `date`: on the local day of the workout, in the
    /// time zone it was recorded in.
    /// - Parameter date: The moment to check.
    /// - Returns: True from the start of the workout's local day until the start of the
    ///   next, so a clock corrected back within that day keeps the feed open; false
    ///   before that day, so a clock that ran a day fast and was set back unlocks nothing.
    public func isActive(at date: Date) -> Bool {
        guard date < expiresAt else { return false }
        return unlockDate <= date || date >= dayStart
    }

    /// The start of the workout's local day in ``timeZoneIdentifier``; the unlock's own
    /// date if that time zone is unknown here.
    public var dayStart: Date {
        guard let timeZone = TimeZone(identifier: timeZoneIdentifier) else { return unlockDate }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar.startOfDay(for: unlockDate)
    }
}

/// A post in the feed: a short text about a workout, visible until it expires.
public struct PostEntity: Codable, Hashable, Sendable, Identifiable {
    /// The post's identifier. `LocalSocialFeedService` makes it a UUID version 7: its
    /// first 48 bits are `createdAt` in milliseconds, so IDs sort as the posts were made.
    public let id: UUID
    /// The author.
    public let userID: String
    /// The author's name when they posted.
    public let userName: String
    /// The workout the post is about.
    public let workoutType: WorkoutType
    /// The text, trimmed.
    public let content: String
    /// When it was posted. Never earlier than a post made before it on the same store.
    public let createdAt: Date
    /// When it stops being visible.
    public let expiresAt: Date
    /// A photo or video, `https` or `file`.
    public var mediaURL: URL?
    /// How many users like it, of those the viewer may see: as many as
    /// `likes(on:)` lists for them.
    public var likeCount: Int
    /// How many comments it has, of those the viewer may see: as many as
    /// `comments(on:)` lists for them.
    public var commentCount: Int
    /// The recorded workout the post is about — type, duration, distance — when the
    /// service has a workout source that recorded one of its type today.
    public var workout: WorkoutSummary?
    /// Whether the signed-in user likes it, as a feed page says, so an app draws the
    /// heart without asking per post. Not part of the post's stored or encoded form.
    public var isLikedByViewer: Bool = false
    /// Whether moderation hides it from everyone (``ModerationStatus/hidden`` or
    /// ``ModerationStatus/takenDown``): only a moderator's queue and its author's export
    /// show it. Not part of the post's encoded form.
    public package(set) var isHiddenByModeration: Bool = false

    private enum CodingKeys: String, CodingKey {
        case id, userID, userName, workoutType, content, createdAt, expiresAt, mediaURL, likeCount, commentCount, workout
    }

    /// Creates a post.
    /// - Parameters:
    ///   - id: The identifier.
    ///   - userID: The author.
    ///   - userName: The author's name.
    ///   - workoutType: The workout.
    ///   - content: The text.
    ///   - createdAt: When it was posted.
    ///   - expiresAt: When it stops being visible.
    ///   - mediaURL: A photo or video.
    ///   - likeCount: Its likes.
    ///   - commentCount: Its comments.
    ///   - workout: The recorded workout it is about, if any.
    ///   - isLikedByViewer: Whether the signed-in user likes it.
    public init(
        id: UUID, userID: String, userName: String, workoutType: WorkoutType, content: String, createdAt: Date, expiresAt: Date,
        mediaURL: URL? = nil, likeCount: Int = 0, commentCount: Int = 0, workout: WorkoutSummary? = nil, isLikedByViewer: Bool = false
    ) {
        self.id = id
        self.userID = userID
        self.userName = userName
        self.workoutType = workoutType
        self.content = content
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.mediaURL = mediaURL
        self.likeCount = likeCount
        self.commentCount = commentCount
        self.workout = workout
        self.isLikedByViewer = isLikedByViewer
    }

    /// Whether the post is visible at `date`.
    /// - Parameter date: The moment to check.
    /// - Returns: True before ``expiresAt``.
    public func isVisible(at date: Date) -> Bool {
        date < expiresAt
    }
}

/// A comment on a post.
public struct PostComment: Codable, Hashable, Sendable, Identifiable {
    /// The comment's identifier.
    public let id: UUID
    /// The post it is on.
    public let postID: UUID
    /// The author; nil once the author's account was deleted.
    public var userID: String?
    /// The author's name when they commented; nil once the account was deleted.
    public var userName: String?
    /// The text, trimmed.
    public let text: String
    /// When it was written.
    public let createdAt: Date
    /// Whether moderation hides it from everyone (``ModerationStatus/hidden`` or
    /// ``ModerationStatus/takenDown``): out of `comments(on:)` and its post's count.
    public package(set) var isHiddenByModeration: Bool = false

    private enum CodingKeys: String, CodingKey {
        case id, postID, userID, userName, text, createdAt, isHiddenByModeration
    }

    /// Decodes a comment; one encoded before moderation existed is not hidden.
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError` for a missing or malformed field.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(UUID.self, forKey: .id)
        postID = try container.decode(UUID.self, forKey: .postID)
        userID = try container.decodeIfPresent(String.self, forKey: .userID)
        userName = try container.decodeIfPresent(String.self, forKey: .userName)
        text = try container.decode(String.self, forKey: .text)
        createdAt = try container.decode(Date.self, forKey: .createdAt)
        isHiddenByModeration = try container.decodeIfPresent(Bool.self, forKey: .isHiddenByModeration) ?? false
    }

    /// Creates a comment.
    /// - Parameters:
    ///   - id: The identifier.
    ///   - postID: The post.
    ///   - userID: The author.
    ///   - userName: The author's name.
    ///   - text: The text.
    ///   - createdAt: When.
    public init(id: UUID, postID: UUID, userID: String?, userName: String?, text: String, createdAt: Date) {
        self.id = id
        self.postID = postID
        self.userID = userID
        self.userName = userName
        self.text = text
        self.createdAt = createdAt
    }

    /// The name to show: the author's, or "[Deleted User]" once the account is gone.
    public var displayName: String { userName ?? "[Deleted User]" }
}

/// A user as the social feature sees them: their name, photo and follow counts.
public struct SocialProfile: Codable, Hashable, Sendable, Identifiable {
    /// The user's identifier, the same as their account's.
    public let id: String
    /// The name shown on posts and in search.
    public var displayName: String
    /// The account's profile photo, if it has one.
    public var photoURL: URL?
    /// How many users follow them, leaving out the users hidden from the viewer.
    public var followerCount: Int
    /// How many users they follow, leaving out the users hidden from the viewer.
    public var followingCount: Int

    /// Creates a profile.
    /// - Parameters:
    ///   - id: The user's identifier.
    ///   - displayName: The name.
    ///   - photoURL: The profile photo.
    ///   - followerCount: Their followers.
    ///   - followingCount: The users they follow.
    public init(id: String, displayName: String, photoURL: URL? = nil, followerCount: Int = 0, followingCount: Int = 0) {
        self.id = id
        self.displayName = displayName
        self.photoURL = photoURL
        self.followerCount = followerCount
        self.followingCount = followingCount
    }
}

/// A user's social data, as a copy of it on request gives it: everything they made
/// and every relation they are part of, by user ID.
public struct SocialExport: Codable, Hashable, Sendable {
    /// Their profile, if they have one.
    public var profile: SocialProfile?
    /// Their posts, newest first.
    public var posts: [PostEntity]
    /// Their comments, on anyone's posts.
    public var comments: [PostComment]
    /// The posts they like.
    public var likedPostIDs: [UUID]
    /// The users they follow.
    public var following: [String]
    /// The users who follow them.
    public var followers: [String]
    /// The users they block.
    public var blocked: [String]
    /// Their feed unlock, if any.
    public var unlock: FeedUnlock?
    /// The users they mute.
    public var muted: [String]
    /// The reports they made.
    public var reports: [ContentReport]

    /// Creates an export.
    /// - Parameters:
    ///   - profile: Their profile.
    ///   - posts: Their posts.
    ///   - comments: Their comments.
    ///   - likedPostIDs: The posts they like.
    ///   - following: The users they follow.
    ///   - followers: The users who follow them.
    ///   - blocked: The users they block.
    ///   - unlock: Their feed unlock.
    ///   - muted: The users they mute.
    ///   - reports: The reports they made.
    public init(
        profile: SocialProfile? = nil, posts: [PostEntity] = [], comments: [PostComment] = [], likedPostIDs: [UUID] = [],
        following: [String] = [], followers: [String] = [], blocked: [String] = [], unlock: FeedUnlock? = nil, muted: [String] = [],
        reports: [ContentReport] = []
    ) {
        self.profile = profile
        self.posts = posts
        self.comments = comments
        self.likedPostIDs = likedPostIDs
        self.following = following
        self.followers = followers
        self.blocked = blocked
        self.unlock = unlock
        self.muted = muted
        self.reports = reports
    }
}

/// What deleting a user's social data removed.
public struct SocialDeletionReport: Codable, Hashable, Sendable {
    /// Their posts, with the likes and comments on them.
    public var posts: Int
    /// Their likes on other users' posts.
    public var likes: Int
    /// Follows from and to them.
    public var follows: Int
    /// Blocks by and of them.
    public var blocks: Int
    /// Their comments on other users' posts left as "[Deleted User]".
    public var anonymizedComments: Int
    /// Their comments on other users' posts removed.
    public var deletedComments: Int
    /// Their photos in the media store.
    public var media: Int

    /// Creates a report.
    /// - Parameters:
    ///   - posts: Posts removed.
    ///   - likes: Likes removed.
    ///   - follows: Follows removed.
    ///   - blocks: Blocks removed.
    ///   - anonymizedComments: Comments anonymized.
    ///   - deletedComments: Comments removed.
    ///   - media: Photos removed.
    public init(
        posts: Int = 0, likes: Int = 0, follows: Int = 0, blocks: Int = 0, anonymizedComments: Int = 0, deletedComments: Int = 0, media: Int = 0
    ) {
        self.posts = posts
        self.likes = likes
        self.follows = follows
        self.blocks = blocks
        self.anonymizedComments = anonymizedComments
        self.deletedComments = deletedComments
        self.media = media
    }
}

/// A page of a feed as an app draws it: its posts, newest first, each with the
/// viewer's like, and the cursor of the next page. It is a collection of its posts.
///
/// ```swift
/// var page = try await social.friendsFeed(limit: 20)
/// while let next = page.nextCursor {
///     page = try await social.friendsFeed(limit: 20, after: next)
/// }
/// ```
public struct FeedPage: RandomAccessCollection, ExpressibleByArrayLiteral, Hashable, Sendable {
    /// The posts.
    public var posts: [PostEntity]
    /// Where the next page starts — pass it as `after:` — or nil when this page is the
    /// last one for now.
    public var nextCursor: UUID?

    /// Creates a page.
    /// - Parameters:
    ///   - posts: The posts, newest first.
    ///   - nextCursor: The cursor of the next page; nil for the last page.
    public init(posts: [PostEntity], nextCursor: UUID?) {
        self.posts = posts
        self.nextCursor = nextCursor
    }

    /// A last page of `posts`, as a test scripts one.
    /// - Parameter posts: The posts, newest first.
    public init(arrayLiteral posts: PostEntity...) {
        self.init(posts: posts, nextCursor: nil)
    }

    /// Whether another page follows this one.
    public var hasMore: Bool { nextCursor != nil }
    /// The index of the first post.
    public var startIndex: Int { posts.startIndex }
    /// The index after the last post.
    public var endIndex: Int { posts.endIndex }
    /// The post at `position`.
    public subscript(position: Int) -> PostEntity { posts[position] }
}

extension SocialDeletionReport {
    /// Adds the counts of another attempt of the same deletion: one that resumed what
    /// an earlier one left.
    /// - Parameter other: The other attempt's counts.
    public mutating func add(_ other: SocialDeletionReport) {
        posts += other.posts
        likes += other.likes
        follows += other.follows
        blocks += other.blocks
        anonymizedComments += other.anonymizedComments
        deletedComments += other.deletedComments
        media += other.media
    }
}
