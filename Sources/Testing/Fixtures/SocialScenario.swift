import Foundation
import TrainAuth
import TrainCore
import TrainSocial

/// A social world for tests and previews, built through the real service one
/// expression at a time: users with posts, followers, likes and comments, or a seeded
/// random graph. Everything goes through `LocalSocialFeedService`'s public calls, so
/// every count and index is what the app would see.
///
/// ```swift
/// let scenario = try SocialScenario()
/// let ada = try await scenario.user("ada", posts: 10, followers: 5, likes: 20)
/// #expect(ada.profile.followerCount == 5)
/// #expect(ada.posts.map(\.likeCount).reduce(0, +) == 20)
/// ```
public final class SocialScenario: Sendable {
    /// The auth fake whose signed-in user the service acts as; ``act(as:)`` switches it.
    public let auth: FakeAuthService
    /// The clock of the service: advance it to expire posts and unlocks.
    public let clock: ManualClock
    /// The photos of the service.
    public let media: LocalMediaStore
    /// The service the scenario is built in.
    public let social: LocalSocialFeedService

    /// A user the scenario made, as it was right after.
    public struct User: Sendable {
        /// The user's ID, also their display name.
        public let id: String
        /// Their profile, with its counts.
        public let profile: SocialProfile
        /// Their posts, newest first, with their counts.
        public let posts: [PostEntity]
        /// The users who follow them, made for the purpose.
        public let followers: [String]
    }

    /// Creates an empty world, its feed time in UTC.
    /// - Parameters:
    ///   - storage: In memory (the default) or a file.
    ///   - start: The clock's first date.
    ///   - policy: The feed's rules.
    /// - Throws: `CoreError` if the file cannot be opened.
    public init(storage: StorageLocation = .inMemory, start: Date = ManualClock.defaultStart, policy: SocialPolicy = SocialPolicy()) throws {
        let clock = ManualClock(start: start)
        let auth = FakeAuthService(clock: clock)
        let media = LocalMediaStore()
        let context = TrainContext(
            clock: clock, ids: SequentialIDGenerator(prefix: "scenario-"), timeZone: { TimeZone(identifier: "UTC") ?? .current })
        var configuration = SocialConfiguration()
        configuration.policy = policy
        self.clock = clock
        self.auth = auth
        self.media = media
        social = try LocalSocialFeedService(auth: auth, media: media, storage: storage, context: context, configuration: configuration)
    }

    /// Signs `userID` in on the auth fake, named after their ID; the next calls act as them.
    /// - Parameter userID: The user.
    public func act(as userID: String) {
        auth.setCurrentUser(UserEntity(id: userID, displayName: userID, createdAt: clock.now, lastSignInAt: clock.now))
    }

    /// Makes a user with posts, followers, likes on their posts and comments on them,
    /// and leaves them signed in with their feed unlocked.
    ///
    /// Followers are new users named `<id>-follower-<n>`. Likes and comments go round
    /// the posts, given by the followers first, then by new users `<id>-fan-<n>` once
    /// each follower has liked every post.
    /// - Parameters:
    ///   - id: The user's ID.
    ///   - posts: How many posts they make.
    ///   - followers: How many users follow them.
    ///   - likes: How many likes their posts get in all.
    ///   - comments: How many comments their posts get in all.
    /// - Returns: The user as they are then.
    /// - Throws: `SocialError` `postNotFound` for likes or comments without posts, or
    ///   any error of the service.
    @discardableResult
    public func user(_ id: String, posts: Int = 0, followers: Int = 0, likes: Int = 0, comments: Int = 0) async throws -> User {
        guard posts > 0 || (likes == 0 && comments == 0) else {
            throw SocialError(.postNotFound, detail: "Likes and comments need at least one post.")
        }
        try await join(id)
        var made: [PostEntity] = []
        for number in 1...max(posts, 1) where posts > 0 {
            made.append(try await social.createPost(content: "\(id)'s workout \(number)", workoutType: .run))
        }
        let followerIDs = (0..<followers).map { "\(id)-follower-\($0 + 1)" }
        for follower in followerIDs {
            try await join(follower)
            try await social.follow(id)
        }
        try await spread(likes, over: made, fansOf: id, followers: followerIDs) { try await self.social.like($0.id) }
        try await spread(comments, over: made, fansOf: id, followers: followerIDs) { post in
            _ = try await self.social.comment(on: post.id, text: "Nice one!")
        }
        act(as: id)
        let profile = try await social.profile(id)
        var current: [PostEntity] = []
        var page = try await social.discoverFeed(limit: 100)
        while let last = page.last {
            current += page.filter { $0.userID == id }
            page = try await social.discoverFeed(limit: 100, after: last.id)
        }
        return User(id: id, profile: profile, posts: current, followers: followerIDs)
    }

    /// Makes a seeded random graph of `users` users (`user-0`, `user-1`…), each of whom
    /// posts, follows and likes a random number of times within the ranges.
    /// - Parameters:
    ///   - users: How many users.
    ///   - seed: The seed: the same seed makes the same graph.
    ///   - posts: Posts per user.
    ///   - follows: Follows per user, of other users.
    ///   - likes: Likes per user, on other users' posts.
    /// - Returns: The users' IDs.
    /// - Throws: Any error of the service.
    @discardableResult
    public func randomGraph(
        users: Int, seed: UInt64, posts: ClosedRange<Int> = 0...3, follows: ClosedRange<Int> = 0...5, likes: ClosedRange<Int> = 0...5
    )
        async throws -> [String]
    {
        var random = SeededRandomNumberGenerator(seed: seed)
        let ids = (0..<users).map { "user-\($0)" }
        var allPosts: [PostEntity] = []
        for id in ids {
            try await join(id)
            for number in 0..<Int.random(in: posts, using: &random) {
                allPosts.append(try await social.createPost(content: "\(id) #\(number)", workoutType: WorkoutType.standard[number % 7]))
            }
        }
        for id in ids {
            act(as: id)
            let others = ids.filter { $0 != id }
            for _ in 0..<Int.random(in: follows, using: &random) {
                guard let other = others.randomElement(using: &random) else { break }
                try await social.follow(other)
            }
            let theirs = allPosts.filter { $0.userID != id }
            for _ in 0..<Int.random(in: likes, using: &random) {
                guard let post = theirs.randomElement(using: &random) else { break }
                try await social.like(post.id)
            }
        }
        return ids
    }

    /// Signs `id` in and unlocks their feed.
    private func join(_ id: String) async throws {
        act(as: id)
        if !social.hasFeedUnlocked() { _ = try await social.unlockFeed(workoutType: .run) }
    }

    /// Runs `action` `count` times round `posts`, as followers and then fans of `id`.
    private func spread(
        _ count: Int, over posts: [PostEntity], fansOf id: String, followers: [String], _ action: (PostEntity) async throws -> Void
    ) async throws {
        guard count > 0, !posts.isEmpty else { return }
        for index in 0..<count {
            let round = index / posts.count
            let actor = round < followers.count ? followers[round] : "\(id)-fan-\(round - followers.count + 1)"
            try await join(actor)
            try await action(posts[index % posts.count])
        }
    }
}
