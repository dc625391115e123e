import Foundation
import TrainCore
import TrainSocial

/// A scriptable `SocialFeedService` for unit tests of view models.
///
/// Calls are recorded; scripted results are returned. A fake made with
/// ``init(feedUnlocked:timeZone:clock:)`` is strict: a call nobody scripted records a
/// test failure and throws ``FakeError/unimplemented(_:)``, and whether the feed is
/// unlocked is what the test sets with ``setFeedUnlocked(_:)`` or a scripted
/// ``unlockFeed(workoutType:)`` makes — until the next local midnight in the fake's time
/// zone, on its clock. A fake made with ``init(backedBy:clock:)`` passes every call
/// nobody scripted to that service, such as a `LocalSocialFeedService` in memory, and
/// shows its state.
///
/// ```swift
/// let social = FakeSocialFeedService(feedUnlocked: true)
/// social.script(.friendsFeed, .returning([post]))
/// let model = FeedModel(social: social)
/// await model.load()
/// #expect(model.posts == [post])
/// #expect(social.calls == [.friendsFeed(20, nil)])
/// ```
public final class FakeSocialFeedService: SocialFeedService, ScriptableFake, BackedFake {
    /// A recorded call: the method, declared once below, applied to its arguments.
    public typealias Call = FakeCall<FakeSocialFeedService>

    /// Failure injection, latency, holding, scripts and left-overs.
    public let controls: FakeControls<Call>
    /// The service unscripted calls go to; nil for a strict fake.
    public let service: (any SocialFeedService)?
    /// The time zone whose midnight ends a strict fake's unlock.
    public let timeZone: TimeZone
    /// A strict fake's workouts: a week of samples before its clock's now. Its unlocks
    /// and a view model's "your workout today" read them; a test records more.
    public let workouts: SimulatedWorkoutSource
    /// A strict fake's unlock, as ``feedUnlockUpdates()`` shows it.
    private let unlocks = Broadcast<FeedUnlock?>(initial: nil)
    /// A strict fake's notifications, as ``notificationUpdates()`` shows them.
    private let notificationState = Broadcast(
        initial: NotificationUpdate(userID: nil, unseenCount: 0, page: NotificationPage(notifications: [], nextCursor: nil)))
    /// A strict fake's new posts, as ``newPosts()`` shows them.
    private let postsShown = Broadcast<PostEntity?>(initial: nil)

    /// Creates a strict fake: every call but the feed's state needs a script.
    /// - Parameters:
    ///   - feedUnlocked: Whether the feed starts unlocked, until the next local midnight.
    ///   - timeZone: Where the unlock's midnight is; the device's by default.
    ///   - clock: The clock that dates unlocks and that ``FakeControls/latency`` sleeps
    ///     on; without one, 2026-01-01.
    public init(feedUnlocked: Bool = false, timeZone: TimeZone = .current, clock: (any DateClock)? = nil) {
        service = nil
        self.timeZone = timeZone
        controls = FakeControls(fakeName: "FakeSocialFeedService", clock: clock)
        workouts = SimulatedWorkoutSource.samples(before: clock?.now ?? ManualClock.defaultStart, in: timeZone)
        if feedUnlocked { unlocks.send(unlock(.run)) }
    }

    /// Creates a fake in front of `service`: calls nobody scripted go to it, and the
    /// feed's state is its.
    /// - Parameters:
    ///   - service: The service, such as a `LocalSocialFeedService` in memory.
    ///   - clock: The clock ``FakeControls/latency`` sleeps on.
    public init(backedBy service: any SocialFeedService, clock: (any DateClock)? = nil) {
        self.service = service
        timeZone = .current
        controls = FakeControls(fakeName: "FakeSocialFeedService", strict: false, clock: clock)
        workouts = SimulatedWorkoutSource()
    }

    /// Whether unscripted calls fail the test.
    public var isStrict: Bool { controls.isStrict }

    /// Locks or unlocks a strict fake's feed; an unlock lasts until the next local midnight.
    /// - Parameter unlocked: Whether it is unlocked.
    public func setFeedUnlocked(_ unlocked: Bool) {
        guard controls.ownsState("setFeedUnlocked(_:)") else { return }
        unlocks.send(unlocked ? unlock(.run) : nil)
    }

    /// An unlock of ``FakeAuthService/sampleUser`` made now, until the next midnight in
    /// ``timeZone``, with the latest workout of its type recorded today in ``workouts``.
    private func unlock(_ workoutType: WorkoutType) -> FeedUnlock {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let day = calendar.dateInterval(of: .day, for: now)
        let workout = workouts.recordedWorkouts.filter { $0.type == workoutType && day?.contains($0.end) == true && $0.end <= now }
            .max { $0.end < $1.end }
        return FeedUnlock(
            id: UUID(), userID: FakeAuthService.sampleUser.id, workoutType: workoutType, unlockDate: now, timeZoneIdentifier: timeZone.identifier,
            expiresAt: day?.end ?? now.addingTimeInterval(86_400), workout: workout?.summary)
    }

    private var now: Date { controls.clock?.now ?? ManualClock.defaultStart }

    /// Recorded as a subscription; the service's unlocks, or a strict fake's: the unlock
    /// now, then each one set or scripted.
    public func feedUnlockUpdates() -> AsyncStream<FeedUnlock?> {
        controls.recordSubscription(.feedUnlockUpdates())
        return service?.feedUnlockUpdates() ?? unlocks.subscribe()
    }

    /// Recorded as a subscription; the service's updates, or a strict fake's: the
    /// update now, then each one a test shows with ``showNotifications(_:)``.
    public func notificationUpdates() -> AsyncStream<NotificationUpdate> {
        controls.recordSubscription(.notificationUpdates())
        return service?.notificationUpdates() ?? notificationState.subscribe()
    }

    /// Recorded as a subscription; the service's new posts, or a strict fake's: each
    /// post a test shows with ``showNewPost(_:)`` from now on.
    public func newPosts() -> AsyncStream<PostEntity> {
        controls.recordSubscription(.newPosts())
        if let service { return service.newPosts() }
        let shown = postsShown.subscribe(replayingCurrent: false)
        let (stream, continuation) = AsyncStream<PostEntity>.makeStream()
        let forwarding = Task {
            for await post in shown { if let post { continuation.yield(post) } }
            continuation.finish()
        }
        continuation.onTermination = { _ in forwarding.cancel() }
        return stream
    }

    /// Shows a strict fake's notifications to ``notificationUpdates()``'s subscribers, as
    /// a view model following the badge would see them.
    /// - Parameter update: The badge and first page.
    public func showNotifications(_ update: NotificationUpdate) {
        guard controls.ownsState("showNotifications(_:)") else { return }
        notificationState.send(update)
    }

    /// Shows a new post to a strict fake's ``newPosts()`` subscribers.
    /// - Parameter post: The post.
    public func showNewPost(_ post: PostEntity) {
        guard controls.ownsState("showNewPost(_:)") else { return }
        postsShown.send(post)
    }

    /// Recorded; the service's answer, or whether a strict fake's unlock has not reached its end.
    public func hasFeedUnlocked() -> Bool {
        controls.record(.hasFeedUnlocked())
        if let service { return service.hasFeedUnlocked() }
        return unlocks.value.map { now < $0.expiresAt } ?? false
    }

    /// Returns the scripted page, or the service's.
    public func friendsFeed(limit: Int, after lastPostID: UUID?) async throws -> FeedPage {
        try await perform(.friendsFeed, limit, lastPostID) { try await $0.friendsFeed(limit: limit, after: lastPostID) }
    }

    /// Returns the scripted page, or the service's.
    public func discoverFeed(limit: Int, after lastPostID: UUID?) async throws -> FeedPage {
        try await perform(.discoverFeed, limit, lastPostID) {
            try await $0.discoverFeed(limit: limit, after: lastPostID)
        }
    }

    /// Returns the scripted unlock, or the service's; a strict fake's feed is unlocked after it.
    public func unlockFeed(workoutType: WorkoutType) async throws -> FeedUnlock {
        let unlock = try await perform(.unlockFeed, workoutType) { try await $0.unlockFeed(workoutType: workoutType) }
        if service == nil { unlocks.send(unlock) }
        return unlock
    }

    /// Returns the scripted post, or the service's.
    /// Returns the scripted post, or the service's.
    public func createPost(content: String, workoutType: WorkoutType, photo: Data) async throws -> PostEntity {
        try await perform(.createPostWithPhoto, content, workoutType, photo.count) {
            try await $0.createPost(content: content, workoutType: workoutType, photo: photo)
        }
    }

    public func createPost(content: String, workoutType: WorkoutType, mediaURL: URL?) async throws -> PostEntity {
        try await perform(.createPost, content, workoutType, mediaURL) {
            try await $0.createPost(content: content, workoutType: workoutType, mediaURL: mediaURL)
        }
    }

    /// Succeeds as scripted, or as the service does.
    public func deletePost(_ postID: UUID) async throws {
        try await perform(.deletePost, postID) { try await $0.deletePost(postID) }
    }

    /// Succeeds as scripted, or as the service does.
    public func follow(_ userID: String) async throws {
        try await perform(.follow, userID) { try await $0.follow(userID) }
    }

    /// Succeeds as scripted, or as the service does.
    public func unfollow(_ userID: String) async throws {
        try await perform(.unfollow, userID) { try await $0.unfollow(userID) }
    }

    /// Returns the scripted profiles, or the service's.
    public func following() async throws -> [SocialProfile] {
        try await perform(.following) { try await $0.following() }
    }

    /// Returns the scripted profiles, or the service's.
    public func followers() async throws -> [SocialProfile] {
        try await perform(.followers) { try await $0.followers() }
    }

    /// Returns the scripted profile, or the service's.
    public func profile(_ userID: String) async throws -> SocialProfile {
        try await perform(.profile, userID) { try await $0.profile(userID) }
    }

    /// Returns the scripted profile, or the service's.
    public func refreshProfile() async throws -> SocialProfile {
        try await perform(.refreshProfile) { try await $0.refreshProfile() }
    }

    /// Returns the scripted profiles, or the service's.
    public func searchUsers(_ query: String, limit: Int) async throws -> [SocialProfile] {
        try await perform(.searchUsers, query, limit) { try await $0.searchUsers(query, limit: limit) }
    }

    /// Succeeds as scripted, or as the service does.
    public func like(_ postID: UUID) async throws {
        try await perform(.like, postID) { try await $0.like(postID) }
    }

    /// Succeeds as scripted, or as the service does.
    public func unlike(_ postID: UUID) async throws {
        try await perform(.unlike, postID) { try await $0.unlike(postID) }
    }

    /// Returns the scripted profiles, or the service's.
    public func likes(on postID: UUID) async throws -> [SocialProfile] {
        try await perform(.likes, postID) { try await $0.likes(on: postID) }
    }

    /// Returns the scripted comment, or the service's.
    public func comment(on postID: UUID, text: String) async throws -> PostComment {
        try await perform(.comment, postID, text) { try await $0.comment(on: postID, text: text) }
    }

    /// Returns the scripted comments, or the service's.
    public func comments(on postID: UUID) async throws -> [PostComment] {
        try await perform(.comments, postID) { try await $0.comments(on: postID) }
    }

    /// Succeeds as scripted, or as the service does.
    public func deleteComment(_ commentID: UUID) async throws {
        try await perform(.deleteComment, commentID) { try await $0.deleteComment(commentID) }
    }

    /// Succeeds as scripted, or as the service does.
    public func block(_ userID: String) async throws {
        try await perform(.block, userID) { try await $0.block(userID) }
    }

    /// Succeeds as scripted, or as the service does.
    public func unblock(_ userID: String) async throws {
        try await perform(.unblock, userID) { try await $0.unblock(userID) }
    }

    /// Returns the scripted profiles, or the service's.
    public func blockedUsers() async throws -> [SocialProfile] {
        try await perform(.blockedUsers) { try await $0.blockedUsers() }
    }

    /// Succeeds as scripted, or as the service does.
    public func mute(_ userID: String) async throws {
        try await perform(.mute, userID) { try await $0.mute(userID) }
    }

    /// Succeeds as scripted, or as the service does.
    public func unmute(_ userID: String) async throws {
        try await perform(.unmute, userID) { try await $0.unmute(userID) }
    }

    /// Returns the scripted profiles, or the service's.
    public func mutedUsers() async throws -> [SocialProfile] {
        try await perform(.mutedUsers) { try await $0.mutedUsers() }
    }

    /// Returns the scripted report, or the service's.
    @discardableResult
    public func report(_ target: ReportTarget, reason: ReportReason, details: String?) async throws -> ContentReport {
        try await perform(.report, target, reason, details) {
            try await $0.report(target, reason: reason, details: details)
        }
    }

    /// Returns the scripted cases, or the service's.
    public func moderationQueue(limit: Int, after: ModerationCase?) async throws -> [ModerationCase] {
        try await perform(.moderationQueue, limit, after) { try await $0.moderationQueue(limit: limit, after: after) }
    }

    /// Returns the scripted entry, or the service's.
    @discardableResult
    public func moderate(_ target: ReportTarget, action: ModerationAction, note: String?) async throws -> ModerationLogEntry {
        try await perform(.moderate, target, action, note) { try await $0.moderate(target, action: action, note: note) }
    }

    /// Returns the scripted entries, or the service's.
    public func moderationLog(limit: Int, after: UUID?) async throws -> [ModerationLogEntry] {
        try await perform(.moderationLog, limit, after) { try await $0.moderationLog(limit: limit, after: after) }
    }

    /// Returns the scripted page, or the service's.
    public func notifications(limit: Int, after cursor: String?) async throws -> NotificationPage {
        try await perform(.notifications, limit, cursor) { try await $0.notifications(limit: limit, after: cursor) }
    }

    /// Returns the scripted count, or the service's.
    public func unseenNotificationCount() async throws -> Int {
        try await perform(.unseenNotificationCount) { try await $0.unseenNotificationCount() }
    }

    /// Succeeds as scripted, or as the service does.
    public func markNotificationsSeen() async throws {
        try await perform(.markNotificationsSeen) { try await $0.markNotificationsSeen() }
    }

    /// Succeeds as scripted, or as the service does.
    public func markNotificationRead(_ id: String) async throws {
        try await perform(.markNotificationRead, id) { try await $0.markNotificationRead(id) }
    }

    /// Returns the scripted report, or the service's.
    public func purgeAccountData(of userID: String) async throws -> SocialDeletionReport {
        try await perform(.purgeAccountData, userID) { try await $0.purgeAccountData(of: userID) }
    }

    /// Returns the scripted report, or the service's; a strict fake's feed is locked after it.
    public func deleteAccountData() async throws -> SocialDeletionReport {
        let report = try await perform(.deleteAccountData) { try await $0.deleteAccountData() }
        if service == nil { unlocks.send(nil) }
        return report
    }

    /// Returns the scripted export, or the service's.
    public func exportAccountData() async throws -> SocialExport {
        try await perform(.exportAccountData) { try await $0.exportAccountData() }
    }

    /// Returns the scripted count, or the service's.
    public func recount() async throws -> Int {
        try await perform(.recount) { try await $0.recount() }
    }
}

extension FakeMethods where Fake == FakeSocialFeedService {
    /// ``FakeSocialFeedService/friendsFeed(limit:after:)``: the page.
    public static var friendsFeed: FakeMethod<FakeSocialFeedService, FeedPage, Int, UUID?> { .init("friendsFeed(limit:after:)") }

    /// ``FakeSocialFeedService/discoverFeed(limit:after:)``: the page.
    public static var discoverFeed: FakeMethod<FakeSocialFeedService, FeedPage, Int, UUID?> { .init("discoverFeed(limit:after:)") }

    /// ``FakeSocialFeedService/hasFeedUnlocked()``, recorded but not numbered.
    public static var hasFeedUnlocked: FakeMethod<FakeSocialFeedService, Bool> { .init("hasFeedUnlocked()") }

    /// ``FakeSocialFeedService/feedUnlockUpdates()``.
    public static var feedUnlockUpdates: FakeMethod<FakeSocialFeedService, AsyncStream<FeedUnlock?>> { .init("feedUnlockUpdates()") }

    /// ``FakeSocialFeedService/notificationUpdates()``.
    public static var notificationUpdates: FakeMethod<FakeSocialFeedService, AsyncStream<NotificationUpdate>> { .init("notificationUpdates()") }

    /// ``FakeSocialFeedService/newPosts()``.
    public static var newPosts: FakeMethod<FakeSocialFeedService, AsyncStream<PostEntity>> { .init("newPosts()") }

    /// ``FakeSocialFeedService/unlockFeed(workoutType:)``: the unlock; the feed is unlocked after it.
    public static var unlockFeed: FakeMethod<FakeSocialFeedService, FeedUnlock, WorkoutType> { .init("unlockFeed(workoutType:)") }

    /// ``FakeSocialFeedService/createPost(content:workoutType:mediaURL:)``: the post.
    public static var createPost: FakeMethod<FakeSocialFeedService, PostEntity, String, WorkoutType, URL?> {
        .init("createPost(content:workoutType:mediaURL:)")
    }

    /// ``FakeSocialFeedService/createPost(content:workoutType:photo:)``: the post.
    public static var createPostWithPhoto: FakeMethod<FakeSocialFeedService, PostEntity, String, WorkoutType, Int> {
        .init("createPost(content:workoutType:photo:)")
    }

    /// ``FakeSocialFeedService/deletePost(_:)``.
    public static var deletePost: FakeMethod<FakeSocialFeedService, Void, UUID> { .init("deletePost(_:)") }

    /// ``FakeSocialFeedService/follow(_:)``.
    public static var follow: FakeMethod<FakeSocialFeedService, Void, String> { .init("follow(_:)") }

    /// ``FakeSocialFeedService/unfollow(_:)``.
    public static var unfollow: FakeMethod<FakeSocialFeedService, Void, String> { .init("unfollow(_:)") }

    /// ``FakeSocialFeedService/following()``: the profiles.
    public static var following: FakeMethod<FakeSocialFeedService, [SocialProfile]> { .init("following()") }

    /// ``FakeSocialFeedService/followers()``: the profiles.
    public static var followers: FakeMethod<FakeSocialFeedService, [SocialProfile]> { .init("followers()") }

    /// ``FakeSocialFeedService/profile(_:)``: the profile.
    public static var profile: FakeMethod<FakeSocialFeedService, SocialProfile, String> { .init("profile(_:)") }

    /// ``FakeSocialFeedService/refreshProfile()``: the profile.
    public static var refreshProfile: FakeMethod<FakeSocialFeedService, SocialProfile> { .init("refreshProfile()") }

    /// ``FakeSocialFeedService/searchUsers(_:limit:)``: the matches.
    public static var searchUsers: FakeMethod<FakeSocialFeedService, [SocialProfile], String, Int> { .init("searchUsers(_:limit:)") }

    /// ``FakeSocialFeedService/like(_:)``.
    public static var like: FakeMethod<FakeSocialFeedService, Void, UUID> { .init("like(_:)") }

    /// ``FakeSocialFeedService/unlike(_:)``.
    public static var unlike: FakeMethod<FakeSocialFeedService, Void, UUID> { .init("unlike(_:)") }

    /// ``FakeSocialFeedService/likes(on:)``: the likers.
    public static var likes: FakeMethod<FakeSocialFeedService, [SocialProfile], UUID> { .init("likes(on:)") }

    /// ``FakeSocialFeedService/comment(on:text:)``: the comment.
    public static var comment: FakeMethod<FakeSocialFeedService, PostComment, UUID, String> { .init("comment(on:text:)") }

    /// ``FakeSocialFeedService/comments(on:)``: the comments.
    public static var comments: FakeMethod<FakeSocialFeedService, [PostComment], UUID> { .init("comments(on:)") }

    /// ``FakeSocialFeedService/deleteComment(_:)``.
    public static var deleteComment: FakeMethod<FakeSocialFeedService, Void, UUID> { .init("deleteComment(_:)") }

    /// ``FakeSocialFeedService/block(_:)``.
    public static var block: FakeMethod<FakeSocialFeedService, Void, String> { .init("block(_:)") }

    /// ``FakeSocialFeedService/unblock(_:)``.
    public static var unblock: FakeMethod<FakeSocialFeedService, Void, String> { .init("unblock(_:)") }

    /// ``FakeSocialFeedService/blockedUsers()``: the profiles.
    public static var blockedUsers: FakeMethod<FakeSocialFeedService, [SocialProfile]> { .init("blockedUsers()") }

    /// ``FakeSocialFeedService/mute(_:)``.
    public static var mute: FakeMethod<FakeSocialFeedService, Void, String> { .init("mute(_:)") }

    /// ``FakeSocialFeedService/unmute(_:)``.
    public static var unmute: FakeMethod<FakeSocialFeedService, Void, String> { .init("unmute(_:)") }

    /// ``FakeSocialFeedService/mutedUsers()``: the profiles.
    public static var mutedUsers: FakeMethod<FakeSocialFeedService, [SocialProfile]> { .init("mutedUsers()") }

    /// ``FakeSocialFeedService/report(_:reason:details:)``: the report.
    public static var report: FakeMethod<FakeSocialFeedService, ContentReport, ReportTarget, ReportReason, String?> {
        .init("report(_:reason:details:)")
    }

    /// ``FakeSocialFeedService/moderationQueue(limit:after:)``: the cases.
    public static var moderationQueue: FakeMethod<FakeSocialFeedService, [ModerationCase], Int, ModerationCase?> {
        .init("moderationQueue(limit:after:)")
    }

    /// ``FakeSocialFeedService/moderate(_:action:note:)``: the audit trail's entry.
    public static var moderate: FakeMethod<FakeSocialFeedService, ModerationLogEntry, ReportTarget, ModerationAction, String?> {
        .init("moderate(_:action:note:)")
    }

    /// ``FakeSocialFeedService/moderationLog(limit:after:)``: the entries.
    public static var moderationLog: FakeMethod<FakeSocialFeedService, [ModerationLogEntry], Int, UUID?> { .init("moderationLog(limit:after:)") }

    /// ``FakeSocialFeedService/notifications(limit:after:)``: the page.
    public static var notifications: FakeMethod<FakeSocialFeedService, NotificationPage, Int, String?> { .init("notifications(limit:after:)") }

    /// ``FakeSocialFeedService/unseenNotificationCount()``: the badge.
    public static var unseenNotificationCount: FakeMethod<FakeSocialFeedService, Int> { .init("unseenNotificationCount()") }

    /// ``FakeSocialFeedService/markNotificationsSeen()``.
    public static var markNotificationsSeen: FakeMethod<FakeSocialFeedService, Void> { .init("markNotificationsSeen()") }

    /// ``FakeSocialFeedService/markNotificationRead(_:)``.
    public static var markNotificationRead: FakeMethod<FakeSocialFeedService, Void, String> { .init("markNotificationRead(_:)") }

    /// ``FakeSocialFeedService/deleteAccountData()``: the report.
    public static var deleteAccountData: FakeMethod<FakeSocialFeedService, SocialDeletionReport> { .init("deleteAccountData()") }

    /// ``FakeSocialFeedService/purgeAccountData(of:)``: the report.
    public static var purgeAccountData: FakeMethod<FakeSocialFeedService, SocialDeletionReport, String> { .init("purgeAccountData(of:)") }

    /// ``FakeSocialFeedService/recount()``: how many counts were wrong.
    public static var recount: FakeMethod<FakeSocialFeedService, Int> { .init("recount()") }

    /// ``FakeSocialFeedService/exportAccountData()``: the export.
    public static var exportAccountData: FakeMethod<FakeSocialFeedService, SocialExport> { .init("exportAccountData()") }
}
