import Foundation
import TrainCore
import TrainSocial

/// A scriptable `SocialFeedService` for unit tests of view models.
///
/// Calls are recorded; scripted results are returned; unscripted calls of a strict
/// fake record a test failure and throw ``FakeError/unimplemented(_:)``. Unscripted
/// calls of a lenient fake work on a small state of one user's view: whether the feed
/// is unlocked (``setFeedUnlocked(_:)``), the posts both feeds page through, newest
/// first (``setPosts(_:)``), the users followed and blocked, and the likes and
/// comments made on the fake. They check the lock, limits, cursors, text and media
/// URLs as the real service does, except that a cursor must be a post the fake still
/// holds. They know no other user: any non-empty user ID can be followed, nobody
/// follows back, and search looks only among the users followed.
///
/// ```swift
/// let social = FakeSocialFeedService(feedUnlocked: true, posts: [post])
/// social.script(.friendsFeed, .once(.failure(SocialError(.feedLocked))))
/// let model = FeedModel(social: social)
/// await model.load()
/// #expect(model.isLocked)
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
        /// ``unlockFeed(workoutType:)``.
        case unlockFeed(WorkoutType)
        /// ``createPost(content:workoutType:mediaURL:)``.
        case createPost(content: String, workoutType: WorkoutType, mediaURL: URL?)
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
        /// ``deleteAccountData()``.
        case deleteAccountData
        /// ``purgeAccountData(of:)``.
        case purgeAccountData(String)
        /// ``recount()``.
        case recount
        /// ``exportAccountData()``.
        case exportAccountData
    }

    /// What the lenient fake answers from.
    private struct State {
        var isUnlocked: Bool
        var posts: [PostEntity]
        var following: [String] = []
        var blocked: [String] = []
        var likes: [UUID: Set<String>] = [:]
        var comments: [PostComment] = []
    }

    /// Failure injection, latency, holding, scripts and left-overs.
    public let controls: FakeControls<Call>
    /// The user the fake acts as: the author of the posts it creates.
    public let userID: String
    private let state: Locked<State>
    /// The unlock ``feedUnlockUpdates()`` shows.
    private let unlocks = Broadcast<FeedUnlock?>(initial: nil)

    /// Creates a fake.
    /// - Parameters:
    ///   - userID: The signed-in user the fake acts as.
    ///   - feedUnlocked: Whether the feed starts unlocked.
    ///   - posts: The posts both feeds page through.
    ///   - following: The IDs of the users the user follows.
    ///   - strict: Whether a call nobody scripted fails the test (and throws) instead of using the state.
    ///   - clock: The clock that dates posts and unlocks and that ``FakeControls/latency``
    ///     sleeps on; without one, 2026-01-01.
    public init(
        userID: String = "user", feedUnlocked: Bool = false, posts: [PostEntity] = [], following: [String] = [], strict: Bool = false,
        clock: (any DateClock)? = nil
    ) {
        self.userID = userID
        state = Locked(State(isUnlocked: feedUnlocked, posts: Self.sorted(posts), following: following))
        controls = FakeControls(fakeName: "FakeSocialFeedService", strict: strict, clock: clock)
        if feedUnlocked { unlocks.send(unlock(.run)) }
    }

    /// Whether unscripted calls fail the test.
    public var isStrict: Bool { controls.isStrict }

    /// The posts both feeds page through, newest first.
    public var posts: [PostEntity] { state.withLock { $0.posts } }

    /// Locks or unlocks the feed.
    /// - Parameter unlocked: Whether it is unlocked.
    public func setFeedUnlocked(_ unlocked: Bool) {
        state.withLock { $0.isUnlocked = unlocked }
        unlocks.send(unlocked ? unlock(.run) : nil)
    }

    /// An unlock made now, until the next midnight UTC.
    private func unlock(_ workoutType: WorkoutType) -> FeedUnlock {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let end = calendar.dateInterval(of: .day, for: now)?.end ?? now.addingTimeInterval(86_400)
        return FeedUnlock(id: UUID(), userID: userID, workoutType: workoutType, unlockDate: now, timeZoneIdentifier: "UTC", expiresAt: end)
    }

    /// Recorded as a subscription; yields the unlock now, then each unlock and lock.
    public func feedUnlockUpdates() -> AsyncStream<FeedUnlock?> {
        controls.recordSubscription(.feedUnlockUpdates)
        return unlocks.subscribe()
    }

    /// Replaces the posts both feeds page through.
    /// - Parameter posts: The posts, in any order.
    public func setPosts(_ posts: [PostEntity]) {
        state.withLock { $0.posts = Self.sorted(posts) }
    }

    private var now: Date { controls.clock?.now ?? ManualClock.defaultStart }

    private static func sorted(_ posts: [PostEntity]) -> [PostEntity] {
        posts.sorted { ($0.createdAt, $0.id.uuidString) > ($1.createdAt, $1.id.uuidString) }
    }

    private func perform<Output>(_ call: Call, _ method: FakeMethod<FakeSocialFeedService, Output>, fallback: () throws -> Output) async throws
        -> Output
    {
        try await controls.perform(call, method: method.name, fallback: fallback)
    }

    /// A page of the state's posts: locked, limit and cursor checked as the real service does.
    private func page(limit: Int, after lastPostID: UUID?) throws -> [PostEntity] {
        try state.withLock { state in
            guard state.isUnlocked else { throw SocialError(.feedLocked) }
            guard (1...100).contains(limit) else { throw SocialError(.invalidLimit) }
            var visible = state.posts.filter { $0.isVisible(at: now) }
            if let lastPostID {
                guard let index = state.posts.firstIndex(where: { $0.id == lastPostID }) else { throw SocialError(.invalidCursor) }
                let cursor = state.posts[index]
                visible = visible.filter { ($0.createdAt, $0.id.uuidString) < (cursor.createdAt, cursor.id.uuidString) }
            }
            return Array(visible.prefix(limit))
        }
    }

    /// Returns the scripted page, or a page of ``posts``.
    public func friendsFeed(limit: Int, after lastPostID: UUID?) async throws -> [PostEntity] {
        try await perform(.friendsFeed(limit: limit, after: lastPostID), .friendsFeed) { try page(limit: limit, after: lastPostID) }
    }

    /// Returns the scripted page, or a page of ``posts``.
    public func discoverFeed(limit: Int, after lastPostID: UUID?) async throws -> [PostEntity] {
        try await perform(.discoverFeed(limit: limit, after: lastPostID), .discoverFeed) { try page(limit: limit, after: lastPostID) }
    }

    /// Recorded; whether the feed is unlocked.
    public func hasFeedUnlocked() -> Bool {
        controls.record(.hasFeedUnlocked)
        return state.withLock { $0.isUnlocked }
    }

    /// Returns the scripted unlock, or unlocks until the next midnight UTC.
    public func unlockFeed(workoutType: WorkoutType) async throws -> FeedUnlock {
        let unlock = try await perform(.unlockFeed(workoutType), .unlockFeed) { self.unlock(workoutType) }
        state.withLock { $0.isUnlocked = true }
        unlocks.send(unlock)
        return unlock
    }

    /// Returns the scripted post, or adds one to ``posts`` after checking the lock, the
    /// text (1 to 500 characters) and the media URL (`https` or `file`).
    public func createPost(content: String, workoutType: WorkoutType, mediaURL: URL?) async throws -> PostEntity {
        try await perform(.createPost(content: content, workoutType: workoutType, mediaURL: mediaURL), .createPost) {
            let text = content.trimmingCharacters(in: .whitespacesAndNewlines)
            guard (1...500).contains(text.count) else { throw SocialError(.invalidContent) }
            if let scheme = mediaURL?.scheme?.lowercased(), scheme != "https" && scheme != "file" { throw SocialError(.invalidMediaURL) }
            let post = PostEntity(
                id: UUID(), userID: userID, userName: userID, workoutType: workoutType, content: text, createdAt: now,
                expiresAt: now.addingTimeInterval(86_400), mediaURL: mediaURL)
            try state.withLock { state in
                guard state.isUnlocked else { throw SocialError(.feedLocked) }
                state.posts = Self.sorted(state.posts + [post])
            }
            return post
        }
    }

    /// Succeeds unless scripted to fail: removes one of the user's posts; another's is
    /// `notAuthorized`, an unknown one `postNotFound`.
    public func deletePost(_ postID: UUID) async throws {
        try await perform(.deletePost(postID), .deletePost) {
            try state.withLock { state in
                guard let post = state.posts.first(where: { $0.id == postID }) else { throw SocialError(.postNotFound) }
                guard post.userID == userID else { throw SocialError(.notAuthorized) }
                state.posts.removeAll { $0.id == postID }
            }
        }
    }

    /// Succeeds unless scripted to fail: follows once; yourself is `cannotTargetSelf`,
    /// an empty ID `userNotFound`, a blocked user `blocked`.
    public func follow(_ userID: String) async throws {
        try await perform(.follow(userID), .follow) {
            guard userID != self.userID else { throw SocialError(.cannotTargetSelf) }
            guard !userID.isEmpty else { throw SocialError(.userNotFound) }
            try state.withLock { state in
                guard !state.blocked.contains(userID) else { throw SocialError(.blocked) }
                if !state.following.contains(userID) { state.following.append(userID) }
            }
        }
    }

    /// Succeeds unless scripted to fail: stops following.
    public func unfollow(_ userID: String) async throws {
        try await perform(.unfollow(userID), .unfollow) { state.withLock { $0.following.removeAll { $0 == userID } } }
    }

    /// Returns the scripted profiles, or those of the users followed.
    public func following() async throws -> [SocialProfile] {
        try await perform(.following, .following) { state.withLock { $0.following.map { SocialProfile(id: $0, displayName: $0) } } }
    }

    /// Returns the scripted profiles, or none.
    public func followers() async throws -> [SocialProfile] {
        try await perform(.followers, .followers) { [] }
    }

    /// Returns the scripted profile, or one named after the ID; the user's own counts
    /// how many they follow.
    public func profile(_ userID: String) async throws -> SocialProfile {
        try await perform(.profile(userID), .profile) {
            guard !userID.isEmpty else { throw SocialError(.userNotFound) }
            let following = userID == self.userID ? state.withLock { $0.following.count } : 0
            return SocialProfile(id: userID, displayName: userID, followingCount: following)
        }
    }

    /// Returns the scripted profiles, or the followed users whose ID starts with the
    /// query; a query under two characters is `queryTooShort`.
    public func searchUsers(_ query: String, limit: Int) async throws -> [SocialProfile] {
        try await perform(.searchUsers(query, limit: limit), .searchUsers) {
            guard query.trimmingCharacters(in: .whitespaces).count >= 2 else { throw SocialError(.queryTooShort) }
            guard (1...100).contains(limit) else { throw SocialError(.invalidLimit) }
            return state.withLock { $0.following }.filter { $0.lowercased().hasPrefix(query.lowercased()) }.prefix(limit)
                .map { SocialProfile(id: $0, displayName: $0) }
        }
    }

    /// Succeeds unless scripted to fail: likes a post of ``posts`` once.
    public func like(_ postID: UUID) async throws {
        try await perform(.like(postID), .like) { try changeLike(postID, liked: true) }
    }

    /// Succeeds unless scripted to fail: removes the like.
    public func unlike(_ postID: UUID) async throws {
        try await perform(.unlike(postID), .unlike) { try changeLike(postID, liked: false) }
    }

    private func changeLike(_ postID: UUID, liked: Bool) throws {
        try state.withLock { state in
            guard let index = state.posts.firstIndex(where: { $0.id == postID }) else { throw SocialError(.postNotFound) }
            if liked { guard state.posts[index].isVisible(at: now) else { throw SocialError(.postExpired) } }
            var likers = state.likes[postID, default: []]
            let changed = liked ? likers.insert(userID).inserted : likers.remove(userID) != nil
            state.likes[postID] = likers
            if changed { state.posts[index].likeCount += liked ? 1 : -1 }
        }
    }

    /// Returns the scripted profiles, or the user's own if they like it.
    public func likes(on postID: UUID) async throws -> [SocialProfile] {
        try await perform(.likes(postID), .likes) {
            state.withLock { $0.likes[postID, default: []] }.map { SocialProfile(id: $0, displayName: $0) }
        }
    }

    /// Returns the scripted comment, or adds one after checking the text (1 to 300 characters).
    public func comment(on postID: UUID, text: String) async throws -> PostComment {
        try await perform(.comment(postID, text: text), .comment) {
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard (1...300).contains(trimmed.count) else { throw SocialError(.invalidComment) }
            return try state.withLock { state in
                guard let index = state.posts.firstIndex(where: { $0.id == postID }) else { throw SocialError(.postNotFound) }
                let comment = PostComment(id: UUID(), postID: postID, userID: userID, userName: userID, text: trimmed, createdAt: now)
                state.comments.append(comment)
                state.posts[index].commentCount += 1
                return comment
            }
        }
    }

    /// Returns the scripted comments, or those made on the fake.
    public func comments(on postID: UUID) async throws -> [PostComment] {
        try await perform(.comments(postID), .comments) { state.withLock { $0.comments.filter { $0.postID == postID } } }
    }

    /// Succeeds unless scripted to fail: removes a comment made on the fake.
    public func deleteComment(_ commentID: UUID) async throws {
        try await perform(.deleteComment(commentID), .deleteComment) {
            try state.withLock { state in
                guard let comment = state.comments.first(where: { $0.id == commentID }) else { throw SocialError(.commentNotFound) }
                state.comments.removeAll { $0.id == commentID }
                if let index = state.posts.firstIndex(where: { $0.id == comment.postID }) { state.posts[index].commentCount -= 1 }
            }
        }
    }

    /// Succeeds unless scripted to fail: blocks, unfollows and removes the user's posts
    /// from ``posts``; yourself is `cannotTargetSelf`.
    public func block(_ userID: String) async throws {
        try await perform(.block(userID), .block) {
            guard userID != self.userID else { throw SocialError(.cannotTargetSelf) }
            state.withLock { state in
                if !state.blocked.contains(userID) { state.blocked.append(userID) }
                state.following.removeAll { $0 == userID }
                state.posts.removeAll { $0.userID == userID }
            }
        }
    }

    /// Succeeds unless scripted to fail: unblocks; the posts a block removed stay removed.
    public func unblock(_ userID: String) async throws {
        try await perform(.unblock(userID), .unblock) { state.withLock { $0.blocked.removeAll { $0 == userID } } }
    }

    /// Returns the scripted profiles, or those of the users blocked.
    public func blockedUsers() async throws -> [SocialProfile] {
        try await perform(.blockedUsers, .blockedUsers) { state.withLock { $0.blocked.map { SocialProfile(id: $0, displayName: $0) } } }
    }

    /// Returns the scripted report, or removes `userID`'s posts and reports them. It
    /// does not check a schedule: script a failure to test a refusal.
    public func purgeAccountData(of userID: String) async throws -> SocialDeletionReport {
        try await perform(.purgeAccountData(userID), .purgeAccountData) {
            state.withLock { state in
                let report = SocialDeletionReport(posts: state.posts.filter { $0.userID == userID }.count)
                state.posts.removeAll { $0.userID == userID }
                return report
            }
        }
    }

    /// Returns the scripted report, or removes the user's posts, follows and blocks,
    /// locks the feed and reports what it removed.
    public func deleteAccountData() async throws -> SocialDeletionReport {
        try await perform(.deleteAccountData, .deleteAccountData) {
            state.withLock { state in
                let report = SocialDeletionReport(
                    posts: state.posts.filter { $0.userID == userID }.count, follows: state.following.count, blocks: state.blocked.count)
                state.posts.removeAll { $0.userID == userID }
                state.following = []
                state.blocked = []
                state.isUnlocked = false
                return report
            }
        }
    }

    /// Returns the scripted export, or the user's posts, comments, likes, follows and blocks.
    public func exportAccountData() async throws -> SocialExport {
        try await perform(.exportAccountData, .exportAccountData) {
            state.withLock { state in
                SocialExport(
                    posts: state.posts.filter { $0.userID == userID }, comments: state.comments.filter { $0.userID == userID },
                    likedPostIDs: state.likes.filter { $0.value.contains(userID) }.keys.sorted { $0.uuidString < $1.uuidString },
                    following: state.following, blocked: state.blocked)
            }
        }
    }

    /// Returns the scripted count, or 0.
    public func recount() async throws -> Int {
        try await perform(.recount, .recount) { 0 }
    }
}

extension FakeMethod where Fake == FakeSocialFeedService, Output == [PostEntity] {
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
}

extension FakeMethod where Fake == FakeSocialFeedService, Output == SocialProfile {
    /// ``FakeSocialFeedService/profile(_:)``: the profile.
    public static var profile: Self { Self("profile(_:)") }
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
}
