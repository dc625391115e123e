import Foundation
import TrainCore

/// The stored form of TrainSocial's data: one `RecordStore` schema, the same for the
/// in-memory and the file-backed service.
///
/// Posts are kept by ID; three indexes hold a post's ID under its position, newest
/// first: everyone's (`feed`), each author's (`authored`) and each reader's friends
/// feed (`timelines`, written when a followed user posts and when a user follows
/// someone). A page is a walk of one index from the cursor, so it costs what it
/// returns, not what the store holds. Each relation is kept both ways, keyed by the
/// user it is looked up from, with the other user's ID as the value.
enum SocialRecords {
    static let schema = StoreSchema(
        name: "social",
        migrations: [
            .createCollections(
                version: 1,
                [
                    "profiles", "names", "posts", "removedPosts", "feed", "authored", "timelines", "follows", "followers",
                    "blocks", "blockedBy", "likes", "liked", "comments", "commentIndex", "unlocks", "meta",
                ]),
            StoreMigration(version: 2, summary: "Index comments by author and stored photos by post; names in NFKC") { migration in
                try migration.createCollection("userComments")
                try migration.createCollection("mediaUses")
                try migration.records.removeAll(in: names)
                for profile in try migration.records.values(in: profiles) {
                    for word in Set(words(profile.displayName)) {
                        try migration.records.setData(Data(), forKey: LocalSocialFeedService.nameKey(word, profile.id), in: names)
                    }
                }
                for entry in try migration.records.entries(in: comments) {
                    guard let userID = entry.value.userID else { continue }
                    try migration.records.setData(
                        Data(entry.key.utf8), forKey: key([.string(userID), .uuid(entry.value.id)]), in: userComments)
                }
            },
            // A version that stored these as JSON reads neither layout: it refuses the
            // newer store by its version instead of failing on the first profile.
            StoreMigration(version: 3, summary: "Profiles and deleted posts' positions in a binary layout") { migration in
                for entry in try migration.records.entries(in: profiles) {
                    try migration.records.put(entry.value, forKey: entry.key, in: profiles)
                }
                for entry in try migration.records.entries(in: removedPosts) {
                    try migration.records.put(entry.value, forKey: entry.key, in: removedPosts)
                }
            },
            StoreMigration(version: 4, summary: "Index comments by post and author, so a viewer's counts leave out users hidden from them") {
                migration in
                try migration.createCollection("postCommenters")
                for comment in try migration.records.values(in: comments) {
                    guard let author = comment.userID else { continue }
                    try migration.records.setData(Data(), forKey: commenterKey(comment.postID, author, comment.id), in: postCommenters)
                }
            },
            // Nothing to rewrite: the version makes an earlier app refuse the store rather
            // than fail on the first post of layout 2.
            StoreMigration(version: 5, summary: "Posts may carry their workout's summary (layout 2)") { _ in },
            .createCollections(version: 6, ["mutes", "mutedBy"]),
            // Posts of layout 3 carry whether moderation hides them: an earlier app
            // refuses the store rather than fail on the first of them.
            .createCollections(version: 7, ["reports", "reportsOf", "cases", "queue", "suspensions", "moderationLog"]),
            .createCollections(version: 8, ["notifications", "notificationOrder", "notificationCauses", "notificationsSeen", "moderationLogUsers"]),
            // Nothing to rewrite: the version makes an earlier app refuse the store rather
            // than fail on the first notification of a mention.
            StoreMigration(version: 9, summary: "Notifications may tell of mentions") { _ in },
            // Nothing to rewrite: the version makes an earlier app refuse the store rather
            // than fail on the first profile of layout 2.
            StoreMigration(version: 10, summary: "Profiles may carry the account's photo (layout 2)") { _ in },
            .createCollections(version: 11, ["deletionTallies"]),
            // The log may name the role actions: an earlier app refuses the store rather
            // than fail on the first of them.
            .createCollections(version: 12, ["moderatorGrants"]),
            StoreMigration(version: 13, summary: "Index notifications' causes newest first, so a notification names its newest users") { migration in
                try migration.createCollection("notificationCauseOrder")
                // Earlier causes kept no date: each is indexed at its notification's date.
                for key in try migration.records.keys(in: notificationCauses) {
                    guard let components = try? RecordKey(encoded: key).components, components.count == 4,
                        let stored = try migration.records.value(forKey: try SocialRecords.key(Array(components.prefix(2))), in: notifications)
                    else { continue }
                    let date = stored.updatedAt
                    try migration.records.setData(causeDate(date), forKey: key, in: notificationCauses)
                    try migration.records.setData(Data(), forKey: try causeOrderKey(components, at: date), in: notificationCauseOrder)
                }
            },
        ])

    /// User → when an admin granted them the moderator role.
    static let moderatorGrants = RecordCollection<Date>("moderatorGrants")

    /// User → what the attempts of a deletion of their data that failed later removed,
    /// committed with what they removed: the attempt that finishes reports it with its
    /// own and removes it.
    static let deletionTallies = RecordCollection<SocialDeletionReport>("deletionTallies")

    /// Profiles in a binary layout: a follow or unfollow rewrites two of them, and an
    /// account deletion one for each of the user's followers. As JSON they took about
    /// 15% of a large deletion's time (`perf record` on train-bench's file deletion row).
    /// Migration 3 rewrites the JSON an earlier version stored; JSON still reads.
    /// Layout 2 adds the photo; layout 1 still reads.
    static let profiles = RecordCollection<SocialProfile>.binary(
        "profiles", format: 2, earlierFormats: [1],
        encode: { profile, writer in
            writer.write(profile.id)
            writer.write(profile.displayName)
            writer.write(profile.followerCount)
            writer.write(profile.followingCount)
            writer.write(profile.photoURL?.absoluteString)
        },
        decode: { reader throws(CoreError) in
            var profile = SocialProfile(
                id: try reader.read(), displayName: try reader.read(), followerCount: try reader.read(), followingCount: try reader.read())
            if reader.format >= 2, let photo = try reader.read() as String? {
                guard let url = URL(string: photo) else { throw CoreError(.undecodable, detail: "A profile's photo URL is not a URL.") }
                profile.photoURL = url
            }
            return profile
        })
    /// A word of a user's name, NUL, their ID: user search by word prefix.
    static let names = RecordCollection<Data>.bytes("names")
    /// Posts by ID, in a binary layout: every page reads twenty of them, and JSON would
    /// be most of its time. Layout 2 adds the workout's summary, layout 3 whether
    /// moderation hides the post; layouts 1 and 2 still read.
    static let posts = RecordCollection<PostEntity>.binary(
        "posts", format: 3, earlierFormats: [1, 2],
        encode: { post, writer in
            writer.write(post.id)
            writer.write(post.userID)
            writer.write(post.userName)
            writer.write(post.workoutType.rawValue)
            writer.write(post.content)
            writer.write(post.createdAt)
            writer.write(post.expiresAt)
            writer.write(post.mediaURL?.absoluteString)
            writer.write(post.likeCount)
            writer.write(post.commentCount)
            writer.write(post.workout != nil)
            if let workout = post.workout {
                writer.write(workout.type.rawValue)
                writer.write(workout.duration)
                writer.write(workout.distance != nil)
                writer.write(workout.distance ?? 0)
            }
            writer.write(post.isHiddenByModeration)
        },
        decode: { reader throws(CoreError) in
            let id: UUID = try reader.read()
            let userID: String = try reader.read()
            let userName: String = try reader.read()
            let workoutType = try reader.read(WorkoutType.self)
            let content: String = try reader.read()
            let createdAt: Date = try reader.read()
            let expiresAt: Date = try reader.read()
            let media: String? = try reader.read()
            let mediaURL = try media.map { text throws(CoreError) in
                guard let url = URL(string: text) else { throw CoreError(.undecodable, detail: "A post's media URL is not a URL.") }
                return url
            }
            let (likeCount, commentCount): (Int, Int) = (try reader.read(), try reader.read())
            var workout: WorkoutSummary?
            if reader.format >= 2, try reader.read() as Bool {
                let type = try reader.read(WorkoutType.self)
                let duration: Double = try reader.read()
                let hasDistance: Bool = try reader.read()
                let distance: Double = try reader.read()
                workout = WorkoutSummary(type: type, duration: duration, distance: hasDistance ? distance : nil)
            }
            var post = PostEntity(
                id: id, userID: userID, userName: userName, workoutType: workoutType, content: content, createdAt: createdAt,
                expiresAt: expiresAt, mediaURL: mediaURL, likeCount: likeCount, commentCount: commentCount, workout: workout)
            post.isHiddenByModeration = reader.format >= 3 ? try reader.read() : false
            return post
        })
    /// The position of each deleted post, so a cursor on it still continues: its
    /// creation date, in a binary layout (an account deletion writes one for each of
    /// the user's posts). Migration 3 rewrites the JSON an earlier version stored;
    /// JSON still reads.
    static let removedPosts = RecordCollection<Date>.binary(
        "removedPosts", format: 1, encode: { date, writer in writer.write(date) }, decode: { reader throws(CoreError) in try reader.read() })
    static let feed = RecordCollection<Data>.bytes("feed")
    static let authored = RecordCollection<Data>.bytes("authored")
    static let timelines = RecordCollection<Data>.bytes("timelines")
    /// (follower, followee) → followee.
    static let follows = RecordCollection<Data>.bytes("follows")
    /// (followee, follower) → follower.
    static let followers = RecordCollection<Data>.bytes("followers")
    /// (blocker, blocked) → blocked.
    static let blocks = RecordCollection<Data>.bytes("blocks")
    /// (blocked, blocker) → blocker.
    static let blockedBy = RecordCollection<Data>.bytes("blockedBy")
    /// (muter, muted) → muted.
    static let mutes = RecordCollection<Data>.bytes("mutes")
    /// (muted, muter) → muter: what account deletion reaches.
    static let mutedBy = RecordCollection<Data>.bytes("mutedBy")
    /// (post, user) → user.
    static let likes = RecordCollection<Data>.bytes("likes")
    /// (user, post) → post.
    static let liked = RecordCollection<Data>.bytes("liked")
    /// (post, date, comment) → the comment.
    static let comments = RecordCollection<PostComment>("comments")
    /// comment → its key in `comments`.
    static let commentIndex = RecordCollection<Data>.bytes("commentIndex")
    /// (author, comment) → the comment's key in `comments`: what account deletion reaches.
    static let userComments = RecordCollection<Data>.bytes("userComments")
    /// (post, author, comment) → nothing: how many comments on a post a user wrote.
    static let postCommenters = RecordCollection<Data>.bytes("postCommenters")
    /// (photo path, post) → post: the posts showing a photo of the media store.
    static let mediaUses = RecordCollection<Data>.bytes("mediaUses")
    /// (reporter, target) → the report: what a reporter no longer sees, and their export.
    static let reports = RecordCollection<ContentReport>("reports")
    /// (target, reporter) → the reason: how many distinct users report a target, and why.
    static let reportsOf = RecordCollection<Data>.bytes("reportsOf")
    /// target → its case: where a reported or moderated target stands.
    static let cases = RecordCollection<StoredCase>("cases")
    /// (opened, target) → nothing: the cases waiting for a moderator, oldest first.
    static let queue = RecordCollection<Data>.bytes("queue")
    /// user → when a moderator suspended them.
    static let suspensions = RecordCollection<Date>("suspensions")
    /// entry ID, newest first → the entry: the moderators' audit trail.
    static let moderationLog = RecordCollection<ModerationLogEntry>("moderationLog")
    /// (user, entry ID) → nothing: the entries that name a user, cleared of them when
    /// their account is deleted.
    static let moderationLogUsers = RecordCollection<Data>.bytes("moderationLogUsers")
    /// (recipient, notification) → its count, latest users, date and read state.
    static let notifications = RecordCollection<StoredNotification>("notifications")
    /// (recipient, date descending, notification) → the notification: the list, newest first.
    static let notificationOrder = RecordCollection<Data>.bytes("notificationOrder")
    /// (recipient, notification, actor, cause) → when it came (``causeDate(_:)``): each
    /// like, comment, mention or follow a notification counts, so that it leaves when
    /// its cause goes.
    static let notificationCauses = RecordCollection<Data>.bytes("notificationCauses")
    /// (recipient, notification, date descending, actor, cause) → nothing: the causes
    /// newest first, from which a notification names its newest users.
    static let notificationCauseOrder = RecordCollection<Data>.bytes("notificationCauseOrder")

    /// A cause's date as its record keeps it: milliseconds since 1970, 8 bytes big-endian.
    static func causeDate(_ date: Date) -> Data {
        withUnsafeBytes(of: Int64((date.timeIntervalSince1970 * 1000).rounded()).bigEndian) { Data($0) }
    }

    /// The date a cause's record keeps; nil for one that keeps none.
    static func causeDate(_ data: Data) -> Date? {
        guard data.count == 8 else { return nil }
        let milliseconds = data.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Date(timeIntervalSince1970: Double(Int64(bitPattern: milliseconds)) / 1000)
    }

    /// A cause's key in ``notificationCauseOrder``, from its key's four components.
    static func causeOrderKey(_ components: [RecordKey.Component], at date: Date) throws(SocialError) -> String {
        try key([components[0], components[1], .descending(.date(date)), components[2], components[3]])
    }
    /// recipient → how far they have seen their notifications, and the newest one's date.
    static let notificationsSeen = RecordCollection<NotificationMarks>("notificationsSeen")
    static let unlocks = RecordCollection<FeedUnlock>("unlocks")
    static let meta = RecordCollection<Meta>("meta")
    static let metaKey = "feed"

    /// What every page and post needs to know of the whole store.
    struct Meta: Codable, Hashable, Sendable {
        /// The creation date of the newest post: a new post is dated after it.
        var newestPost: Date?
        /// The longest lifetime any stored post was given: a walk newest first stops
        /// at a post older than this, as it and every later one have expired.
        var longestLifetime: TimeInterval = 0
    }

    /// A case as stored, and as a world's snapshot carries it.
    typealias StoredCase = ModerationRecords.Case

    /// A notification as stored: its count is of the users it names, left-out users included.
    struct StoredNotification: Codable, Hashable, Sendable {
        var kind: NotificationKind
        var postID: UUID?
        var count = 0
        /// The last two actors, newest first.
        var latest: [String] = []
        var updatedAt = Date.distantPast
        /// The date of the version the recipient opened.
        var readAt: Date?
    }

    /// A recipient's marks on their notifications' dates, which only go forward: each
    /// change is dated after the one before, even within a millisecond or with the clock
    /// set back, so "seen up to" means exactly what was listed.
    struct NotificationMarks: Codable, Hashable, Sendable {
        var seenUpTo = Date.distantPast
        var newest = Date.distantPast
    }

    /// A target's key components: its kind, then its ID.
    static func components(_ target: ReportTarget) -> [RecordKey.Component] {
        switch target {
        case .post(let id): [.string("post"), .uuid(id)]
        case .comment(let id): [.string("comment"), .uuid(id)]
        case .user(let id): [.string("user"), .string(id)]
        }
    }

    /// The key of a post, a comment or an unlock: its ID in lowercase, as
    /// `uuidString.lowercased()` spells it, written byte by byte.
    static func key(_ id: UUID) -> String {
        let hex: StaticString = "0123456789abcdef"
        return withUnsafeBytes(of: id.uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { buffer in
                var index = 0
                for (position, byte) in bytes.enumerated() {
                    if position == 4 || position == 6 || position == 8 || position == 10 {
                        buffer[index] = UInt8(ascii: "-")
                        index += 1
                    }
                    buffer[index] = hex.utf8Start[Int(byte >> 4)]
                    buffer[index + 1] = hex.utf8Start[Int(byte & 0x0f)]
                    index += 2
                }
                return index
            }
        }
    }

    /// The components of a post's position, newest first, the ID breaking ties.
    static func position(_ createdAt: Date, _ id: UUID) -> [RecordKey.Component] {
        [.descending(.date(createdAt)), .descending(.uuid(id))]
    }

    /// The creation date in an index key that ends with a position.
    static func positionDate(_ key: String) -> Date? {
        guard let components = try? RecordKey(encoded: key).components, components.count >= 2,
            case .descending(.date(let date)) = components[components.count - 2]
        else { return nil }
        return date
    }

    /// The key of `components`, or a storage error (only a key over the store's
    /// limit fails, and user IDs are checked first).
    static func key(_ components: [RecordKey.Component]) throws(SocialError) -> String {
        do {
            return try RecordKey(components).encoded
        } catch {
            throw SocialError(.storage, detail: "A key could not be made: \(error)")
        }
    }

    /// The range of keys that start with `components`.
    static func range(_ components: [RecordKey.Component]) throws(SocialError) -> KeyRange {
        do {
            return try RecordKey(components).range
        } catch {
            throw SocialError(.storage, detail: "A key could not be made: \(error)")
        }
    }

    /// The key of a comment in ``postCommenters``.
    static func commenterKey(_ postID: UUID, _ author: String, _ commentID: UUID) throws(SocialError) -> String {
        try key([.uuid(postID), .string(author), .uuid(commentID)])
    }

    /// A relation's value: the other user's ID.
    static func value(_ userID: String) -> Data { Data(userID.utf8) }

    /// The user ID a relation's value holds.
    static func userID(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

    /// A post ID as an index's value.
    static func value(_ postID: UUID) -> Data { Data(key(postID).utf8) }

    /// The words of a name as search matches them: lowercased, without accents.
    static func words(_ text: String) -> [String] {
        normalized(text).split { !$0.isLetter && !$0.isNumber }.map(String.init)
    }

    /// Text as search compares it.
    static func normalized(_ text: String) -> String {
        text.precomposedStringWithCompatibilityMapping.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
            .lowercased()
    }
}

/// User IDs compared byte for byte, as the store keys them: two canonically
/// equivalent spellings of an ID are two users, whereas a `Set<String>` would take
/// them for one.
struct UserIDSet {
    private var ids: Set<[UInt8]> = []

    init() {}

    init(_ ids: some Sequence<String>) {
        self.ids = Set(ids.map { Array($0.utf8) })
    }

    func contains(_ id: String) -> Bool { ids.contains(Array(id.utf8)) }
    /// The IDs, in no order.
    var members: [String] { ids.map { String(decoding: $0, as: UTF8.self) } }
    var isEmpty: Bool { ids.isEmpty }

    mutating func insert(_ id: String) { ids.insert(Array(id.utf8)) }

    mutating func remove(_ id: String) { ids.remove(Array(id.utf8)) }

    mutating func formUnion(_ other: UserIDSet) { ids.formUnion(other.ids) }
}
