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
/// #expect(social.calls == [.friendsFeed(limit: 20, after: nil)])
/// ```
public final class FakeSocialFeedService: SocialFeedService, ScriptableFake {
    /// A recorded call.
    public enum Call: Hashable, Sendable {
        /// ``friendsFeed(limit:after:)``.
        case friendsFeed(limit: Int, after: UUID?)
        /// ``discoverFeed(limit:after:)``.
        case discoverFeed(limit: Int, after: UUID?)
        /// ``hasFeedUnlocked()``, recorded but not numbered.
        case hasFeedUnlocked
        /// ``feedUnlockUpdates()``.
        case feedUnlockUpdates
        /// ``notificationUpdates()``.
        case notificationUpdates
        /// ``newPosts()``.
        case newPosts
        /// ``unlockFeed(workoutType:)``.
        case unlockFeed(WorkoutType)
        /// ``createPost(content:workoutType:mediaURL:)``.
        case createPost(content: String, workoutType: WorkoutType, mediaURL: URL?)
        /// ``createPost(content:workoutType:photo:)``, with the photo's size in bytes.
        case createPostWithPhoto(content: String, workoutType: WorkoutType, photoBytes: Int)
        /// ``deletePost(_:)``.
        case deletePost(UUID)
        /// ``follow(_:)``.
        case follow(String)
        /// ``unfollow(_:)``.
        case unfollow(String)
        /// ``following()``.
        case following
        /// ``followers()``.
        case followers
        /// ``profile(_:)``.
        case profile(String)
        /// ``refreshProfile()``.
        case refreshProfile
        /// ``searchUsers(_:limit:)``.
        case searchUsers(String, limit: Int)
        /// ``like(_:)``.
        case like(UUID)
        /// ``unlike(_:)``.
        case unlike(UUID)
        /// ``likes(on:)``.
        case likes(UUID)
        /// ``comment(on:text:)``.
        case comment(UUID, text: String)
        /// ``comments(on:)``.
        case comments(UUID)
        /// ``deleteComment(_:)``.
        case deleteComment(UUID)
        /// ``block(_:)``.
        case block(String)
        /// ``unblock(_:)``.
        case unblock(String)
        /// ``blockedUsers()``.
        case blockedUsers
        /// ``mute(_:)``.
        case mute(String)
        /// ``unmute(_:)``.
        case unmute(String)
        /// ``mutedUsers()``.
        case mutedUsers
        /// ``report(_:reason:details:)``.
        case report(ReportTarget, reason: ReportReason, details: String?)
        /// ``moderationQueue(limit:after:)``.
        case moderationQueue(limit: Int, after: ModerationCase?)
        /// ``moderate(_:action:note:)``.
        case moderate(ReportTarget, action: ModerationAction, note: String?)
        /// ``moderationLog(limit:after:)``.
        case moderationLog(limit: Int, after: UUID?)
        /// ``notifications(limit:after:)``.
        case notifications(limit: Int, after: String?)
        /// ``unseenNotificationCount()``.
        case unseenNotificationCount
        /// ``markNotificationsSeen()``.
        case markNotificationsSeen
        /// ``markNotificationRead(_:)``.
        case markNotificationRead(String)
        /// ``deleteAccountData()``.
        case deleteAccountData
        /// ``purgeAccountData(of:)``.
        case purgeAccountData(String)
        /// ``recount()``.
        case recount
        /// ``exportAccountData()``.
        case exportAccountData
    }

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

    private func perform<Output>(
        _ call: Call, _ method: FakeMethod<FakeSocialFeedService, Output>,
        _ forward: @escaping @Sendable (any SocialFeedService) async throws -> Output
    ) async throws -> Output {
        try await controls.perform(call, method: method.name, service: service.map { service in { try await forward(service) } })
    }

    /// Recorded as a subscription; the service's unlocks, or a strict fake's: the unlock
    /// now, then each one set or scripted.
    public func feedUnlockUpdates() -> AsyncStream<FeedUnlock?> {
        controls.recordSubscription(.feedUnlockUpdates)
        return service?.feedUnlockUpdates() ?? unlocks.subscribe()
    }

    /// Recorded as a subscription; the service's updates, or a strict fake's: the
    /// update now, then each one a test shows with ``showNotifications(_:)``.
    public func notificationUpdates() -> AsyncStream<NotificationUpdate> {
        controls.recordSubscription(.notificationUpdates)
        return service?.notificationUpdates() ?? notificationState.subscribe()
    }

    /// Recorded as a subscription; the service's new posts, or a strict fake's: each
    /// post a test shows with ``showNewPost(_:)`` from now on.
    public func newPosts() -> AsyncStream<PostEntity> {
        controls.recordSubscription(.newPosts)
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
        controls.record(.hasFeedUnlocked)
        if let service { return service.hasFeedUnlocked() }
        return unlocks.value.map { now < $0.expiresAt } ?? false
    }

    /// Returns the scripted page, or the service's.
    public func friendsFeed(limit: Int, after lastPostID: UUID?) async throws -> FeedPage {
        try await perform(.friendsFeed(limit: limit, after: lastPostID), .friendsFeed) { try await $0.friendsFeed(limit: limit, after: lastPostID) }
    }

    /// Returns the scripted page, or the service's.
    public func discoverFeed(limit: Int, after lastPostID: UUID?) async throws -> FeedPage {
        try await perform(.discoverFeed(limit: limit, after: lastPostID), .discoverFeed) {
            try await $0.discoverFeed(limit: limit, after: lastPostID)
        }
    }

    /// Returns the scripted unlock, or the service's; a strict fake's feed is unlocked after it.
    public func unlockFeed(workoutType: WorkoutType) async throws -> FeedUnlock {
        let unlock = try await perform(.unlockFeed(workoutType), .unlockFeed) { try await $0.unlockFeed(workoutType: workoutType) }
        if service == nil { unlocks.send(unlock) }
        return unlock
    }

    /// Returns the scripted post, or the service's.
    /// Returns the scripted post, or the service's.
    public func createPost(content: String, workoutType: WorkoutType, photo: Data) async throws -> PostEntity {
        try await perform(.createPostWithPhoto(content: content, workoutType: workoutType, photoBytes: photo.count), .createPostWithPhoto) {
            try await $0.createPost(content: content, workoutType: workoutType, photo: photo)
        }
    }

    public func createPost(content: String, workoutType: WorkoutType, mediaURL: URL?) async throws -> PostEntity {
        try await perform(.createPost(content: content, workoutType: workoutType, mediaURL: mediaURL), .createPost) {
            try await $0.createPost(content: content, workoutType: workoutType, mediaURL: mediaURL)
        }
    }

    /// Succeeds as scripted, or as the service does.
    public func deletePost(_ postID: UUID) async throws {
        try await perform(.deletePost(postID), .deletePost) { try await $0.deletePost(postID) }
    }

    /// Succeeds as scripted, or as the service does.
    public func follow(_ userID: String) async throws {
        try await perform(.follow(userID), .follow) { try await $0.follow(userID) }
    }

    /// Succeeds as scripted, or as the service does.
    public func unfollow(_ userID: String) async throws {
        try await perform(.unfollow(userID), .unfollow) { try await $0.unfollow(userID) }
    }

    /// Returns the scripted profiles, or the service's.
    public func following() async throws -> [SocialProfile] {
        try await perform(.following, .following) { try await $0.following() }
    }

    /// Returns the scripted profiles, or the service's.
    public func followers() async throws -> [SocialProfile] {
        try await perform(.followers, .followers) { try await $0.followers() }
    }

    /// Returns the scripted profile, or the service's.
    public func profile(_ userID: String) async throws -> SocialProfile {
        try await perform(.profile(userID), .profile) { try await $0.profile(userID) }
    }

    /// Returns the scripted profile, or the service's.
    public func refreshProfile() async throws -> SocialProfile {
        try await perform(.refreshProfile, .refreshProfile) { try await $0.refreshProfile() }
    }

    /// Returns the scripted profiles, or the service's.
    public func searchUsers(_ query: String, limit: Int) async throws -> [SocialProfile] {
        try await perform(.searchUsers(query, limit: limit), .searchUsers) { try await $0.searchUsers(query, limit: limit) }
    }

    /// Succeeds as scripted, or as the service does.
    public func like(_ postID: UUID) async throws {
        try await perform(.like(postID), .like) { try await $0.like(postID) }
    }

    /// Succeeds as scripted, or as the service does.
    public func unlike(_ postID: UUID) async throws {
        try await perform(.unlike(postID), .unlike) { try await $0.unlike(postID) }
    }

    /// Returns the scripted profiles, or the service's.
    public func likes(on postID: UUID) async throws -> [SocialProfile] {
        try await perform(.likes(postID), .likes) { try await $0.likes(on: postID) }
    }

    /// Returns the scripted comment, or the service's.
    public func comment(on postID: UUID, text: String) async throws -> PostComment {
        try await perform(.comment(postID, text: text), .comment) { try await $0.comment(on: postID, text: text) }
    }

    /// Returns the scripted comments, or the service's.
    public func comments(on postID: UUID) async throws -> [PostComment] {
        try await perform(.comments(postID), .comments) { try await $0.comments(on: postID) }
    }

    /// Succeeds as scripted, or as the service does.
    public func deleteComment(_ commentID: UUID) async throws {
        try await perform(.deleteComment(commentID), .deleteComment) { try await $0.deleteComment(commentID) }
    }

    /// Succeeds as scripted, or as the service does.
    public func block(_ userID: String) async throws {
        try await perform(.block(userID), .block) { try await $0.block(userID) }
    }

    /// Succeeds as scripted, or as the service does.
    public func unblock(_ userID: String) async throws {
        try await perform(.unblock(userID), .unblock) { try await $0.unblock(userID) }
    }

    /// Returns the scripted profiles, or the service's.
    public func blockedUsers() async throws -> [SocialProfile] {
        try await perform(.blockedUsers, .blockedUsers) { try await $0.blockedUsers() }
    }

    /// Succeeds as scripted, or as the service does.
    public func mute(_ userID: String) async throws {
        try await perform(.mute(userID), .mute) { try await $0.mute(userID) }
    }

    /// Succeeds as scripted, or as the service does.
    public func unmute(_ userID: String) async throws {
        try await perform(.unmute(userID), .unmute) { try await $0.unmute(userID) }
    }

    /// Returns the scripted profiles, or the service's.
    public func mutedUsers() async throws -> [SocialProfile] {
        try await perform(.mutedUsers, .mutedUsers) { try await $0.mutedUsers() }
    }

    /// Returns the scripted report, or the service's.
    @discardableResult
    public func report(_ target: ReportTarget, reason: ReportReason, details: String?) async throws -> ContentReport {
        try await perform(.report(target, reason: reason, details: details), .report) {
            try await $0.report(target, reason: reason, details: details)
        }
    }

    /// Returns the scripted cases, or the service's.
    public func moderationQueue(limit: Int, after: ModerationCase?) async throws -> [ModerationCase] {
        try await perform(.moderationQueue(limit: limit, after: after), .moderationQueue) { try await $0.moderationQueue(limit: limit, after: after) }
    }

    /// Returns the scripted entry, or the service's.
    @discardableResult
    public func moderate(_ target: ReportTarget, action: ModerationAction, note: String?) async throws -> ModerationLogEntry {
        try await perform(.moderate(target, action: action, note: note), .moderate) { try await $0.moderate(target, action: action, note: note) }
    }

    /// Returns the scripted entries, or the service's.
    public func moderationLog(limit: Int, after: UUID?) async throws -> [ModerationLogEntry] {
        try await perform(.moderationLog(limit: limit, after: after), .moderationLog) { try await $0.moderationLog(limit: limit, after: after) }
    }

    /// Returns the scripted page, or the service's.
    public func notifications(limit: Int, after cursor: String?) async throws -> NotificationPage {
        try await perform(.notifications(limit: limit, after: cursor), .notifications) { try await $0.notifications(limit: limit, after: cursor) }
    }

    /// Returns the scripted count, or the service's.
    public func unseenNotificationCount() async throws -> Int {
        try await perform(.unseenNotificationCount, .unseenNotificationCount) { try await $0.unseenNotificationCount() }
    }

    /// Succeeds as scripted, or as the service does.
    public func markNotificationsSeen() async throws {
        try await perform(.markNotificationsSeen, .markNotificationsSeen) { try await $0.markNotificationsSeen() }
    }

    /// Succeeds as scripted, or as the service does.
    public func markNotificationRead(_ id: String) async throws {
        try await perform(.markNotificationRead(id), .markNotificationRead) { try await $0.markNotificationRead(id) }
    }

    /// Returns the scripted report, or the service's.
    public func purgeAccountData(of userID: String) async throws -> SocialDeletionReport {
        try await perform(.purgeAccountData(userID), .purgeAccountData) { try await $0.purgeAccountData(of: userID) }
    }

    /// Returns the scripted report, or the service's; a strict fake's feed is locked after it.
    public func deleteAccountData() async throws -> SocialDeletionReport {
        let report = try await perform(.deleteAccountData, .deleteAccountData) { try await $0.deleteAccountData() }
        if service == nil { unlocks.send(nil) }
        return report
    }

    /// Returns the scripted export, or the service's.
    public func exportAccountData() async throws -> SocialExport {
        try await perform(.exportAccountData, .exportAccountData) { try await $0.exportAccountData() }
    }

    /// Returns the scripted count, or the service's.
    public func recount() async throws -> Int {
        try await perform(.recount, .recount) { try await $0.recount() }
    }
}

extension FakeMethod where Fake == FakeSocialFeedService, Output == FeedPage {
    /// ``FakeSocialFeedService/friendsFeed(limit:after:)``: the page.
    public static var friendsFeed: Self { Self("friendsFeed(limit:after:)") }
    /// ``FakeSocialFeedService/discoverFeed(limit:after:)``: the page.
    public static var discoverFeed: Self { Self("discoverFeed(limit:after:)") }
}

extension FakeMethod where Fake == FakeSocialFeedService, Output == FeedUnlock {
    /// ``FakeSocialFeedService/unlockFeed(workoutType:)``: the unlock; the feed is unlocked after it.
    public static var unlockFeed: Self { Self("unlockFeed(workoutType:)") }
}

extension FakeMethod where Fake == FakeSocialFeedService, Output == PostEntity {
    /// ``FakeSocialFeedService/createPost(content:workoutType:mediaURL:)``: the post.
    public static var createPost: Self { Self("createPost(content:workoutType:mediaURL:)") }
    /// ``FakeSocialFeedService/createPost(content:workoutType:photo:)``: the post.
    public static var createPostWithPhoto: Self { Self("createPost(content:workoutType:photo:)") }
}

extension FakeMethod where Fake == FakeSocialFeedService, Output == Void {
    /// ``FakeSocialFeedService/deletePost(_:)``.
    public static var deletePost: Self { Self("deletePost(_:)") }
    /// ``FakeSocialFeedService/follow(_:)``.
    public static var follow: Self { Self("follow(_:)") }
    /// ``FakeSocialFeedService/unfollow(_:)``.
    public static var unfollow: Self { Self("unfollow(_:)") }
    /// ``FakeSocialFeedService/like(_:)``.
    public static var like: Self { Self("like(_:)") }
    /// ``FakeSocialFeedService/unlike(_:)``.
    public static var unlike: Self { Self("unlike(_:)") }
    /// ``FakeSocialFeedService/deleteComment(_:)``.
    public static var deleteComment: Self { Self("deleteComment(_:)") }
    /// ``FakeSocialFeedService/block(_:)``.
    public static var block: Self { Self("block(_:)") }
    /// ``FakeSocialFeedService/unblock(_:)``.
    public static var unblock: Self { Self("unblock(_:)") }
    /// ``FakeSocialFeedService/mute(_:)``.
    public static var mute: Self { Self("mute(_:)") }
    /// ``FakeSocialFeedService/unmute(_:)``.
    public static var unmute: Self { Self("unmute(_:)") }
    /// ``FakeSocialFeedService/markNotificationsSeen()``.
    public static var markNotificationsSeen: Self { Self("markNotificationsSeen()") }
    /// ``FakeSocialFeedService/markNotificationRead(_:)``.
    public static var markNotificationRead: Self { Self("markNotificationRead(_:)") }
}

extension FakeMethod where Fake == FakeSocialFeedService, Output == [SocialProfile] {
    /// ``FakeSocialFeedService/following()``: the profiles.
    public static var following: Self { Self("following()") }
    /// ``FakeSocialFeedService/followers()``: the profiles.
    public static var followers: Self { Self("followers()") }
    /// ``FakeSocialFeedService/searchUsers(_:limit:)``: the matches.
    public static var searchUsers: Self { Self("searchUsers(_:limit:)") }
    /// ``FakeSocialFeedService/likes(on:)``: the likers.
    public static var likes: Self { Self("likes(on:)") }
    /// ``FakeSocialFeedService/blockedUsers()``: the profiles.
    public static var blockedUsers: Self { Self("blockedUsers()") }
    /// ``FakeSocialFeedService/mutedUsers()``: the profiles.
    public static var mutedUsers: Self { Self("mutedUsers()") }
}

extension FakeMethod where Fake == FakeSocialFeedService, Output == NotificationPage {
    /// ``FakeSocialFeedService/notifications(limit:after:)``: the page.
    public static var notifications: Self { Self("notifications(limit:after:)") }
}

extension FakeMethod where Fake == FakeSocialFeedService, Output == ContentReport {
    /// ``FakeSocialFeedService/report(_:reason:details:)``: the report.
    public static var report: Self { Self("report(_:reason:details:)") }
}

extension FakeMethod where Fake == FakeSocialFeedService, Output == [ModerationCase] {
    /// ``FakeSocialFeedService/moderationQueue(limit:after:)``: the cases.
    public static var moderationQueue: Self { Self("moderationQueue(limit:after:)") }
}

extension FakeMethod where Fake == FakeSocialFeedService, Output == ModerationLogEntry {
    /// ``FakeSocialFeedService/moderate(_:action:note:)``: the audit trail's entry.
    public static var moderate: Self { Self("moderate(_:action:note:)") }
}

extension FakeMethod where Fake == FakeSocialFeedService, Output == [ModerationLogEntry] {
    /// ``FakeSocialFeedService/moderationLog(limit:after:)``: the entries.
    public static var moderationLog: Self { Self("moderationLog(limit:after:)") }
}

extension FakeMethod where Fake == FakeSocialFeedService, Output == SocialProfile {
    /// ``FakeSocialFeedService/profile(_:)``: the profile.
    public static var profile: Self { Self("profile(_:)") }
    /// ``FakeSocialFeedService/refreshProfile()``: the profile.
    public static var refreshProfile: Self { Self("refreshProfile()") }
}

extension FakeMethod where Fake == FakeSocialFeedService, Output == PostComment {
    /// ``FakeSocialFeedService/comment(on:text:)``: the comment.
    public static var comment: Self { Self("comment(on:text:)") }
}

extension FakeMethod where Fake == FakeSocialFeedService, Output == [PostComment] {
    /// ``FakeSocialFeedService/comments(on:)``: the comments.
    public static var comments: Self { Self("comments(on:)") }
}

extension FakeMethod where Fake == FakeSocialFeedService, Output == SocialDeletionReport {
    /// ``FakeSocialFeedService/deleteAccountData()``: the report.
    public static var deleteAccountData: Self { Self("deleteAccountData()") }
    /// ``FakeSocialFeedService/purgeAccountData(of:)``: the report.
    public static var purgeAccountData: Self { Self("purgeAccountData(of:)") }
}

extension FakeMethod where Fake == FakeSocialFeedService, Output == SocialExport {
    /// ``FakeSocialFeedService/exportAccountData()``: the export.
    public static var exportAccountData: Self { Self("exportAccountData()") }
}

extension FakeMethod where Fake == FakeSocialFeedService, Output == Int {
    /// ``FakeSocialFeedService/recount()``: how many counts were wrong.
    public static var recount: Self { Self("recount()") }
    /// ``FakeSocialFeedService/unseenNotificationCount()``: the badge.
    public static var unseenNotificationCount: Self { Self("unseenNotificationCount()") }
}
