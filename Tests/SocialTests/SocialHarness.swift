import Foundation
import Testing
import TrainAuth
import TrainCore
import TrainSocial
import TrainTesting

enum SocialVariant: String, CaseIterable, CustomStringConvertible {
    case inMemory, file
    var description: String { rawValue }
}

/// A social service on a manual clock, acting as whichever user the test names.
final class SocialHarness: Sendable {
    let clock: ManualClock
    let auth = FakeAuthService()
    let directory: TemporaryDirectory
    let zone = Locked(TimeZone(identifier: "UTC") ?? .current)
    let variant: SocialVariant
    let policy: SocialPolicy
    let media: LocalMediaStore
    /// The workouts the service reads: none recorded until a test records them.
    let workouts: SimulatedWorkoutSource
    let social: LocalSocialFeedService

    init(
        _ variant: SocialVariant = .inMemory, policy: SocialPolicy = SocialPolicy(), workouts: SimulatedWorkoutSource = SimulatedWorkoutSource(),
        start: Date = ManualClock.defaultStart
    ) throws {
        self.variant = variant
        self.policy = policy
        self.workouts = workouts
        clock = ManualClock(start: start)
        directory = try TemporaryDirectory()
        media = variant == .file ? try LocalMediaStore(storage: .file(directory.file("media"))) : LocalMediaStore()
        social = try Self.service(
            variant, auth: auth, clock: clock, zone: zone, policy: policy, media: media, workouts: workouts, file: directory.file("social.sqlite"))
    }

    static func service(
        _ variant: SocialVariant, auth: FakeAuthService, clock: ManualClock, zone: Locked<TimeZone>, policy: SocialPolicy, media: LocalMediaStore,
        workouts: SimulatedWorkoutSource, file: URL
    ) throws -> LocalSocialFeedService {
        let context = TrainContext(clock: clock, ids: SequentialIDGenerator(prefix: "social-"), timeZone: { zone.withLock { $0 } })
        let configuration = SocialConfiguration(policy: policy, workouts: workouts)
        switch variant {
        case .inMemory: return LocalSocialFeedService(auth: auth, media: media, context: context, configuration: configuration)
        case .file: return try LocalSocialFeedService(auth: auth, media: media, storage: .file(file), context: context, configuration: configuration)
        }
    }

    /// A second service on the same file and media, as after a relaunch or in an app extension.
    func reopened() throws -> LocalSocialFeedService {
        try Self.service(
            .file, auth: auth, clock: clock, zone: zone, policy: policy, media: media, workouts: workouts, file: directory.file("social.sqlite"))
    }

    /// The first bytes of a JPEG, then `size - 4` more.
    static func jpeg(size: Int = 64) -> Data {
        Data([0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 7, count: max(0, size - 4)))
    }

    func setTimeZone(_ identifier: String) {
        zone.withLock { $0 = TimeZone(identifier: identifier) ?? $0 }
    }

    /// Signs `id` in on the fake auth service.
    func act(as id: String) {
        auth.setCurrentUser(UserEntity(id: id, displayName: id.capitalized, createdAt: clock.now, lastSignInAt: clock.now))
    }

    /// Makes each user known to the service with an unlocked feed, and leaves the last one signed in.
    func join(_ ids: String...) async throws {
        for id in ids {
            act(as: id)
            _ = try await social.unlockFeed(workoutType: .run)
        }
    }

    /// `id` posts `content`.
    @discardableResult
    func post(_ content: String, by id: String) async throws -> PostEntity {
        act(as: id)
        if !social.hasFeedUnlocked() { _ = try await social.unlockFeed(workoutType: .run) }
        return try await social.createPost(content: content, workoutType: .run)
    }

    /// Every page of a feed of `limit`, following each page's next cursor; checks that
    /// a page with more after it is full, and that nothing follows the last one.
    func allPages(of feed: (Int, UUID?) async throws -> FeedPage, limit: Int) async throws -> [PostEntity] {
        var posts: [PostEntity] = []
        var page = try await feed(limit, nil)
        while true {
            posts += page
            guard let next = page.nextCursor else { break }
            #expect(page.count == limit && next == page.last?.id, "a page with more after it is full, and its cursor is its last post")
            page = try await feed(limit, next)
        }
        if let last = posts.last { #expect(try await feed(limit, last.id).isEmpty, "nothing follows the page that says it is the last") }
        return posts
    }
}
