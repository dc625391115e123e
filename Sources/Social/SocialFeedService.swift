import Foundation

/// The feeds and their unlock: what a feed screen reads, and the workout that opens it.
///
/// A capability of ``SocialFeedService``; a view model that shows a feed can depend on
/// this protocol alone, and an app's own backend can conform to it first.
public protocol SocialFeed: Sendable {
    /// Posts by the users the signed-in user follows, and their own, newest first.
    /// - Parameters:
    ///   - limit: The page size, 1...100.
    ///   - lastPostID: The last post of the previous page; nil for the first page.
    /// - Returns: Up to `limit` visible posts after the cursor, each with the viewer's
    ///   like, and the next page's cursor if more posts follow.
    /// - Throws: ``SocialError`` — `notSignedIn`, `feedLocked`, `invalidLimit`, `invalidCursor`.
    func friendsFeed(limit: Int, after lastPostID: UUID?) async throws -> FeedPage

    /// Posts by everyone, newest first, except users blocked either way.
    /// - Parameters:
    ///   - limit: The page size, 1...100.
    ///   - lastPostID: The last post of the previous page; nil for the first page.
    /// - Returns: Up to `limit` visible posts after the cursor, each with the viewer's
    ///   like, and the next page's cursor if more posts follow.
    /// - Throws: ``SocialError`` — `notSignedIn`, `feedLocked` (unless the policy
    ///   leaves discover open), `invalidLimit`, `invalidCursor`.
    func discoverFeed(limit: Int, after lastPostID: UUID?) async throws -> FeedPage

    /// Whether the signed-in user's feed is unlocked now; false when signed out.
    func hasFeedUnlocked() -> Bool

    /// The signed-in user's unlock of the feed now, then again at each change: a
    /// workout unlocking it, the unlock ending at local midnight on the service's
    /// clock, the account's data deleted, another user signing in. Nil while the feed
    /// is locked or nobody is signed in. What a view shows, current without a refresh.
    /// - Returns: A stream that ends when the consumer stops.
    func feedUnlockUpdates() -> AsyncStream<FeedUnlock?>

    /// Records a completed workout: the feed is unlocked until the start of the next
    /// calendar day where the user is.
    /// - Parameter workoutType: The workout completed.
    /// - Returns: The unlock and when it ends.
    /// - Throws: ``SocialError`` — `notSignedIn`, or `feedLocked` for a rest day when
    ///   rest does not unlock.
    func unlockFeed(workoutType: WorkoutType) async throws -> FeedUnlock

    /// The posts that join the signed-in user's discover feed after this call, oldest
    /// first, as they are made: those the user may see, while their feed is unlocked.
    /// An app puts them on top of the pages it shows. None is dropped however slowly the
    /// consumer reads: a conformance reads the next posts when it is asked for them,
    /// not ahead into a buffer that fills. Which posts the user may see, and whether
    /// their feed is unlocked, is as it is when the consumer reads.
    /// - Returns: The new posts, until the consumer stops.
    func newPosts() -> AsyncStream<PostEntity>
}

/// Posts, likes and comments: what a user writes on the feed.
///
/// A capability of ``SocialFeedService``.
public protocol SocialPosting: Sendable {
    /// Posts to the feed; the feed must be unlocked. Each user the text mentions (see
    /// ``Mention``) is notified.
    /// - Parameters:
    ///   - content: The text; trimmed, then 1 to 500 characters.
    ///   - workoutType: The workout it is about.
    ///   - mediaURL: A photo or video, `https` or `file`.
    /// - Returns: The post.
    /// - Throws: ``SocialError`` — `notSignedIn`, `feedLocked`, `invalidContent` (also
    ///   for more than ``Mention/maximumPerText`` mentions), `objectionableContent`,
    ///   `invalidMediaURL`, `blocked` (a mention of a user blocked either way),
    ///   `userNotFound` (a mention of an unknown or hidden user), `unverifiedEmail` (the
    ///   auth policy's `verifiedEmailRequired` holds `posting` and the user's email
    ///   address is not verified).
    func createPost(content: String, workoutType: WorkoutType, mediaURL: URL?) async throws -> PostEntity

    /// Uploads a photo and posts it in one call: if either part fails, neither is left
    /// — no post, and no photo in the media store.
    /// - Parameters:
    ///   - content: The text; trimmed, then 1 to 500 characters.
    ///   - workoutType: The workout it is about.
    ///   - photo: The image's bytes: JPEG, PNG, GIF, HEIC or WebP, within the store's size limit.
    /// - Returns: The post, showing the photo's URL.
    /// - Throws: ``SocialError`` — `notSignedIn`, `feedLocked`, `invalidContent`,
    ///   `objectionableContent`, `blocked`, `userNotFound` (as the post without a photo;
    ///   `unverifiedEmail`, all before the upload), `mediaTooLarge`, `unsupportedMediaType`.
    func createPost(content: String, workoutType: WorkoutType, photo: Data) async throws -> PostEntity

    /// Deletes one of the signed-in user's posts, with its likes and comments, and the
    /// photo it showed from the media store when no other post shows it; a profile
    /// photo a post shows stays the profile's.
    /// - Parameter postID: The post.
    /// - Throws: ``SocialError`` — `postNotFound`, `notAuthorized`.
    func deletePost(_ postID: UUID) async throws

    /// Likes a visible post; liking twice leaves one like.
    /// - Parameter postID: The post.
    /// - Throws: ``SocialError`` — `postNotFound`, `postExpired`, `blocked`.
    func like(_ postID: UUID) async throws

    /// Removes the signed-in user's like; removing none does nothing.
    /// - Parameter postID: The post.
    /// - Throws: ``SocialError`` — `postNotFound`.
    func unlike(_ postID: UUID) async throws

    /// The users who like a post, without users blocked either way.
    /// - Parameter postID: The post.
    /// - Returns: Their profiles.
    /// - Throws: ``SocialError`` — `postNotFound`.
    func likes(on postID: UUID) async throws -> [SocialProfile]

    /// Comments on a visible post; the post's author and each user the text mentions
    /// are notified.
    /// - Parameters:
    ///   - postID: The post.
    ///   - text: The text; trimmed, then 1 to 300 characters.
    /// - Returns: The comment.
    /// - Throws: ``SocialError`` — `postNotFound`, `postExpired`, `blocked` (the post's
    ///   author or a mentioned user, blocked either way), `userNotFound` (a mention of an
    ///   unknown or hidden user), `invalidComment` (also for more than
    ///   ``Mention/maximumPerText`` mentions), `objectionableContent`, `unverifiedEmail`
    ///   (as for a post).
    func comment(on postID: UUID, text: String) async throws -> PostComment

    /// The comments on a post, oldest first, without those of users blocked either way.
    /// - Parameter postID: The post.
    /// - Returns: The comments.
    /// - Throws: ``SocialError`` — `postNotFound`.
    func comments(on postID: UUID) async throws -> [PostComment]

    /// Deletes a comment: its author or the post's owner may.
    /// - Parameter commentID: The comment.
    /// - Throws: ``SocialError`` — `commentNotFound`, `notAuthorized`.
    func deleteComment(_ commentID: UUID) async throws
}

/// Follows, blocks, mutes and reports: how the signed-in user stands to other users.
///
/// A capability of ``SocialFeedService``.
public protocol SocialRelations: Sendable {
    /// Follows a user; following twice leaves one follow.
    /// - Parameter userID: The user to follow.
    /// - Throws: ``SocialError`` — `userNotFound`, `cannotTargetSelf`, `blocked`.
    func follow(_ userID: String) async throws

    /// Stops following a user; unfollowing someone not followed does nothing.
    /// - Parameter userID: The user.
    func unfollow(_ userID: String) async throws

    /// The users the signed-in user follows.
    /// - Returns: Their profiles.
    func following() async throws -> [SocialProfile]

    /// The users who follow the signed-in user.
    /// - Returns: Their profiles.
    func followers() async throws -> [SocialProfile]

    /// Blocks a user: each disappears from the other's feeds, search, likes,
    /// comments and follow lists; follows between them end, and each one's likes and
    /// comments on the other's posts are removed with their counts.
    /// - Parameter userID: The user.
    /// - Throws: ``SocialError`` — `userNotFound`, `cannotTargetSelf`.
    func block(_ userID: String) async throws

    /// Unblocks a user; the follows, likes and comments the block removed are not restored.
    /// - Parameter userID: The user.
    func unblock(_ userID: String) async throws

    /// The users the signed-in user blocks.
    /// - Returns: Their profiles.
    func blockedUsers() async throws -> [SocialProfile]

    /// Mutes a user: their posts leave the signed-in user's feeds; they are not told,
    /// and follows, likes and comments stay. Muting twice changes nothing.
    /// - Parameter userID: The user.
    /// - Throws: ``SocialError`` — `userNotFound`, `cannotTargetSelf`.
    func mute(_ userID: String) async throws

    /// Unmutes a user: their posts come back to the feeds.
    /// - Parameter userID: The user.
    func unmute(_ userID: String) async throws

    /// The users the signed-in user mutes.
    /// - Returns: Their profiles.
    func mutedUsers() async throws -> [SocialProfile]

    /// Reports a post, a comment or a user. From then on the reporter no longer sees
    /// it — a reported user is hidden from them as a blocked one is — and nobody else
    /// learns who reported it. A post or comment reported by
    /// ``SocialPolicy/hideAfterReports`` distinct users is hidden from everyone until a
    /// moderator looks.
    /// - Parameters:
    ///   - target: What is reported.
    ///   - reason: Why.
    ///   - details: What the reporter adds, at most 500 characters; nil for nothing.
    /// - Returns: The report.
    /// - Throws: ``SocialError`` — `postNotFound`, `commentNotFound`, `userNotFound`
    ///   (nothing the reporter can see), `cannotTargetSelf` (their own),
    ///   `alreadyReported`, `invalidReport` (details too long or hostile),
    ///   `objectionableContent` (details that say a word of ``SocialPolicy/wordFilter``),
    ///   `accountSuspended`. Nothing is stored.
    @discardableResult
    func report(_ target: ReportTarget, reason: ReportReason, details: String?) async throws -> ContentReport
}

/// Users' profiles and the search for them.
///
/// A capability of ``SocialFeedService``.
public protocol SocialProfiles: Sendable {
    /// A user's profile, with its counts.
    /// - Parameter userID: The user.
    /// - Returns: The profile.
    /// - Throws: ``SocialError`` — `userNotFound`, also for a user blocked either way.
    func profile(_ userID: String) async throws -> SocialProfile

    /// Rewrites the signed-in user's profile from their account's name and photo, as
    /// every write as them does first: call it after the account's profile changed,
    /// so others see the change before the user's next post. A name the word filter
    /// matches is kept out; a suspended user may call it.
    /// - Returns: The profile as stored, with its counts.
    /// - Throws: ``SocialError`` — `notSignedIn`.
    func refreshProfile() async throws -> SocialProfile

    /// Users whose name has, for each word of `query`, a word starting with it,
    /// ignoring case, accents and Unicode spelling.
    /// - Parameters:
    ///   - query: Two letters or digits or more.
    ///   - limit: The most results, 1...100.
    /// - Returns: Matching profiles, without users blocked either way.
    /// - Throws: ``SocialError`` — `queryTooShort`, `invalidLimit`.
    func searchUsers(_ query: String, limit: Int) async throws -> [SocialProfile]
}

/// The signed-in user's notifications and their badge, current without a refresh.
///
/// A capability of ``SocialFeedService``.
public protocol SocialNotifications: Sendable {
    /// The signed-in user's notifications, newest first: one per post and kind for
    /// likes and comments, one for follows, each counting only users they may see.
    ///
    /// A walk of the pages never skips one: a notification that changes while the walk
    /// goes on — a like on an older post moves it to the top — or a new one comes first
    /// on a later page of the walk, oldest change first. Pages may overlap: one shown
    /// before it changed is shown again.
    /// - Parameters:
    ///   - limit: The page size, 1...100.
    ///   - cursor: The previous page's ``NotificationPage/nextCursor``; nil for the first page.
    /// - Returns: The page.
    /// - Throws: ``SocialError`` — `notSignedIn`, `invalidLimit`, `invalidCursor`.
    func notifications(limit: Int, after cursor: String?) async throws -> NotificationPage

    /// How many of the signed-in user's notifications changed since they last saw
    /// their list: the badge.
    /// - Returns: The count.
    func unseenNotificationCount() async throws -> Int

    /// Marks every notification listed now as seen: the badge goes to zero until one changes.
    func markNotificationsSeen() async throws

    /// Marks a notification as read, as it is now; it is unread again when it changes.
    /// - Parameter id: The notification's identifier.
    /// - Throws: ``SocialError`` — `notificationNotFound`.
    func markNotificationRead(_ id: String) async throws

    /// The signed-in user's badge and first page of notifications, now and whenever
    /// they change — a like, comment or follow, one taken back, the list seen, another
    /// user signed in — until the consumer stops. An update equal to the last is not
    /// repeated. Each update is the whole state when the consumer reads it, so a slow
    /// consumer gets the newest state at its next read, never an older one, and nothing
    /// waits in a buffer for a consumer that never reads. When more changed while it was
    /// away than the update's page shows, the update's
    /// ``NotificationUpdate/requiresReload`` tells it to walk the list again with
    /// ``notifications(limit:after:)`` from the page's `nextCursor`: a notification made
    /// or moved to the top is on the update's page or behind that signal, never dropped.
    /// - Returns: The updates; the first comes at once.
    func notificationUpdates() -> AsyncStream<NotificationUpdate>
}

/// The moderators' calls: the queue of reported content, their actions and the audit trail.
///
/// A capability of ``SocialFeedService`` that only a moderator's screens use; every call
/// checks that the signed-in user moderates: one of ``SocialPolicy/moderators`` or
/// ``SocialPolicy/admins``, or granted the role by an admin.
public protocol SocialModeration: Sendable {
    /// The cases waiting for a moderator — reported and not yet acted on — oldest first.
    /// - Parameters:
    ///   - limit: The most cases, 1...100.
    ///   - after: The last case of the previous page, even if a moderator has acted on
    ///     it since; nil for the first page.
    /// - Returns: The cases, each with its report count, reasons and content.
    /// - Throws: ``SocialError`` — `notAuthorized` (the signed-in user does not
    ///   moderate), `accountSuspended`, `invalidLimit`, `invalidCursor`.
    func moderationQueue(limit: Int, after: ModerationCase?) async throws -> [ModerationCase]

    /// A moderator acts on a post, a comment or a user, and the audit trail records it.
    /// ``ModerationAction/takeDown`` and ``ModerationAction/restore`` apply to posts and
    /// comments, ``ModerationAction/suspend`` and ``ModerationAction/unsuspend`` to users,
    /// ``ModerationAction/dismiss`` to any reported target.
    ///
    /// An action needs a role above its target's owner's: a moderator acts on users and
    /// their content, an admin on moderators too, and nobody on an admin. Suspending a
    /// user resolves every open case about their posts and comments with the suspension,
    /// in the one entry of the trail. An admin grants and revokes the moderator role with
    /// ``ModerationAction/grantModerator`` and ``ModerationAction/revokeModerator`` on a user.
    /// - Parameters:
    ///   - target: What the action is on.
    ///   - action: What the moderator does.
    ///   - note: Why, for the audit trail; at most 500 characters.
    /// - Returns: The audit trail's entry.
    /// - Throws: ``SocialError`` — `notAuthorized` (not a moderator, a target owned by a
    ///   moderator or an admin, or a role change by someone who is not an admin),
    ///   `invalidModerationAction` (the action does not apply to the target, a role the
    ///   user already has or does not have through a grant, or a hostile note),
    ///   `cannotTargetSelf` (the moderator's own), `accountSuspended`, `postNotFound`,
    ///   `commentNotFound`, `userNotFound`. Nothing changes.
    @discardableResult
    func moderate(_ target: ReportTarget, action: ModerationAction, note: String?) async throws -> ModerationLogEntry

    /// The moderators' audit trail, newest first.
    /// - Parameters:
    ///   - limit: The most entries, 1...100.
    ///   - after: The last entry of the previous page; nil for the first page.
    /// - Returns: The entries.
    /// - Throws: ``SocialError`` — `notAuthorized` (not a moderator), `invalidLimit`.
    func moderationLog(limit: Int, after: UUID?) async throws -> [ModerationLogEntry]
}

/// The signed-in user's own social data, as a whole: its copy and its deletion, which the
/// account service runs as steps of an export and of an account deletion.
///
/// A capability of ``SocialFeedService``.
public protocol SocialAccountData: Sendable {
    /// Deletes the signed-in user's social data, as part of deleting their account:
    /// their posts (with the likes and comments on them), likes, follows both ways,
    /// blocks and mutes both ways, reports, unlock, profile and photos, every count fixed. Their comments on
    /// other users' posts are anonymized or removed, as the policy says. Cursors on
    /// removed posts keep working. Calling it again finishes what a failure left.
    ///
    /// Ask the user to sign in again before calling it, as for deleting the account.
    /// - Returns: What was removed.
    /// - Throws: ``SocialError`` — `notSignedIn`, `storage`.
    func deleteAccountData() async throws -> SocialDeletionReport

    /// The signed-in user's social data, for a copy of their data on request: their
    /// profile, posts, comments, likes, follows both ways, blocks and feed unlock.
    /// - Returns: The data.
    /// - Throws: ``SocialError`` — `notSignedIn`, `storage`.
    func exportAccountData() async throws -> SocialExport
}

/// Calls a backend runs, not a user: the purge of a deleted user's data and the
/// recount of every counter.
///
/// A capability of ``SocialFeedService`` that no view model needs.
public protocol SocialAdministration: Sendable {
    /// Deletes a user's social data as ``SocialAccountData/deleteAccountData()`` does, whoever is signed
    /// in, once the auth service's scheduled deletion of that user is due: the purge a
    /// backend runs when the grace period ends. Until then the user is hidden: their
    /// posts, profile, likes and comments are not shown to others.
    /// - Parameter userID: The user.
    /// - Returns: What was removed; nothing the second time.
    /// - Throws: ``SocialError`` — `notAuthorized` (no scheduled deletion of the user
    ///   is due; nothing is deleted), `storage`.
    func purgeAccountData(of userID: String) async throws -> SocialDeletionReport

    /// Recomputes every follow, like and comment count from the relations.
    /// - Returns: How many counts were wrong; zero on a healthy store.
    func recount() async throws -> Int
}

/// The social feature: a feed unlocked by a workout, posts that expire, follows,
/// likes, comments and blocks. Every call acts as the signed-in user.
///
/// The service is the composition of its capabilities, each a small protocol an app
/// can conform to, test and depend on one at a time: ``SocialFeed``,
/// ``SocialPosting``, ``SocialRelations``, ``SocialProfiles``,
/// ``SocialNotifications``, ``SocialModeration``, ``SocialAccountData`` and
/// ``SocialAdministration``. A view model asks for the ones it uses — a feed screen for
/// `any SocialFeed & SocialPosting` — and never sees the moderators' or the backend's calls.
///
/// TrainKit's conformance is ``LocalSocialFeedService``, in memory or in a file;
/// `FakeSocialFeedService` in TrainTesting is a scriptable double; an app can add a
/// Firebase-backed conformance behind the same protocols, and check each piece with
/// the matching checks of `SocialFeedServiceContract`.
///
/// A feed page is newest first. Pass the last post of a page as the cursor of the
/// next: the pages put together hold every post that was visible at the first call
/// and still is, each once, whatever is posted, deleted or expires in between.
///
/// ```swift
/// func workoutFinished(_ type: WorkoutType, social: any SocialFeed) async throws {
///     let unlock = try await social.unlockFeed(workoutType: type)
///     print("Feed open until", unlock.expiresAt)
///     var page = try await social.friendsFeed(limit: 20, after: nil)
///     while let last = page.last {
///         page = try await social.friendsFeed(limit: 20, after: last.id)
///     }
/// }
/// ```
public protocol SocialFeedService: SocialFeed, SocialPosting, SocialRelations, SocialProfiles, SocialNotifications, SocialModeration,
    SocialAccountData, SocialAdministration
{}

extension SocialFeed {
    /// The first page of the friends feed.
    /// - Parameter limit: The page size, 1...100; 20 by default.
    /// - Returns: Up to `limit` visible posts, and the next page's cursor.
    public func friendsFeed(limit: Int = 20) async throws -> FeedPage {
        try await friendsFeed(limit: limit, after: nil)
    }

    /// The first page of the discover feed.
    /// - Parameter limit: The page size, 1...100; 20 by default.
    /// - Returns: Up to `limit` visible posts, and the next page's cursor.
    public func discoverFeed(limit: Int = 20) async throws -> FeedPage {
        try await discoverFeed(limit: limit, after: nil)
    }
}

extension SocialPosting {
    /// Posts without media.
    /// - Parameters:
    ///   - content: The text.
    ///   - workoutType: The workout it is about.
    /// - Returns: The post.
    public func createPost(content: String, workoutType: WorkoutType) async throws -> PostEntity {
        try await createPost(content: content, workoutType: workoutType, mediaURL: nil)
    }
}

extension SocialRelations {
    /// Reports a post, a comment or a user with no details.
    /// - Parameters:
    ///   - target: What is reported.
    ///   - reason: Why.
    /// - Returns: The report.
    @discardableResult
    public func report(_ target: ReportTarget, reason: ReportReason) async throws -> ContentReport {
        try await report(target, reason: reason, details: nil)
    }
}

extension SocialNotifications {
    /// The first page of the signed-in user's notifications.
    /// - Parameter limit: The page size, 1...100; 20 by default.
    /// - Returns: The page.
    public func notifications(limit: Int = 20) async throws -> NotificationPage {
        try await notifications(limit: limit, after: nil)
    }
}
