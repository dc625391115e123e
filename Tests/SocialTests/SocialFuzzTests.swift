import Foundation
import Testing
import TrainAuth
import TrainCore
import TrainSocial
import TrainTesting

@Suite struct SocialFuzzTests {
    static let users = ["ada", "bob", "cy", "dee"]
    static let texts = [
        "", " \n ", "\u{0}", "a\u{0}b", "e\u{301}", "ok", "🏃‍♀️ 5 km", "\u{7}bell", String(repeating: "x", count: 501),
        String(repeating: "é", count: 301), "javascript:alert(1)",
    ]
    static let targets = users + ["", "nobody", "\u{0}", "ada\u{0}", "A\u{301}da", String(repeating: "z", count: 600)]
    static let limits = [Int.min, -1, 0, 1, 3, 100, 101, Int.max]
    static let urls = [
        "https://cdn.example.com/a.jpg", "http://cdn.example.com/a.jpg", "javascript:alert(1)", "file:///tmp/a.jpg", "ftp://x/y", "https:///nohost",
    ].compactMap(URL.init(string:))

    /// What every user sees of the service: their profile, relations, feed and the
    /// comments and likes on every post known to the test.
    static func fingerprint(_ harness: SocialHarness, posts: [UUID]) async -> [String] {
        var seen: [String] = []
        let acting = harness.auth.currentUser
        for user in users {
            harness.act(as: user)
            let social = harness.social
            seen.append("\(user) unlocked \(social.hasFeedUnlocked())")
            seen.append("\(user) profile \(String(describing: try? await social.profile(user)))")
            seen.append("\(user) following \(String(describing: try? await social.following().map(\.id)))")
            seen.append("\(user) followers \(String(describing: try? await social.followers().map(\.id)))")
            seen.append("\(user) blocks \(String(describing: try? await social.blockedUsers().map(\.id)))")
            seen.append("\(user) friends \(String(describing: try? await harness.allPages(of: social.friendsFeed, limit: 7)))")
            seen.append("\(user) discover \(String(describing: try? await harness.allPages(of: social.discoverFeed, limit: 7)))")
            for post in posts {
                seen.append("\(user) \(post) comments \(String(describing: try? await social.comments(on: post).map(\.id)))")
                seen.append("\(user) \(post) likes \(String(describing: try? await social.likes(on: post).map(\.id)))")
            }
        }
        harness.auth.setCurrentUser(acting)
        return seen
    }

    /// Follows are kept both ways, never across a block, and every count is right.
    static func checkInvariants(_ harness: SocialHarness, seed: UInt64) async throws {
        var following: [String: Set<String>] = [:]
        var followers: [String: Set<String>] = [:]
        var blocks: [String: Set<String>] = [:]
        for user in users {
            harness.act(as: user)
            following[user] = Set(try await harness.social.following().map(\.id))
            followers[user] = Set(try await harness.social.followers().map(\.id))
            blocks[user] = Set(try await harness.social.blockedUsers().map(\.id))
        }
        for user in users {
            for other in following[user] ?? [] {
                #expect(followers[other]?.contains(user) == true, "seed \(seed): \(user) follows \(other) one way only")
                #expect(blocks[user]?.contains(other) != true && blocks[other]?.contains(user) != true, "seed \(seed): a follow across a block")
            }
        }
        #expect(try await harness.social.recount() == 0, "seed \(seed): counts differ from relations; replay with TRAINKIT_SEED=\(seed)")
    }

    @Test(
        "random sequences of valid and invalid calls never crash; a refused call is a SocialError and changes nothing",
        arguments: SocialVariant.allCases)
    func fuzz(variant: SocialVariant) async throws {
        var refusals: Set<String> = []
        for seed in SeededRandomNumberGenerator.seeds(default: variant == .inMemory ? 4 : 2) {
            var random = SeededRandomNumberGenerator(seed: seed)
            let harness = try SocialHarness(variant, policy: SocialPolicy(restUnlocksFeed: false))
            try await harness.join("ada", "bob", "cy", "dee")
            var posts: [UUID] = [UUID()]
            var comments: [UUID] = [UUID()]
            for step in 0..<80 {
                let user = Self.users.randomElement(using: &random) ?? "ada"
                harness.act(as: user)
                let before = await Self.fingerprint(harness, posts: posts)
                let operation = Int.random(in: 0..<16, using: &random)
                do {
                    try await Self.perform(operation, on: harness, posts: &posts, comments: &comments, random: &random)
                } catch let error as SocialError {
                    refusals.insert(error.code.name)
                    let after = await Self.fingerprint(harness, posts: posts)
                    let changed = zip(before, after).filter { $0 != $1 }.map { "\($0.0) → \($0.1)" }
                    #expect(
                        before == after, "seed \(seed) step \(step): refused operation \(operation) (\(error.code)) changed \(changed.prefix(3))")
                } catch {
                    Issue.record("seed \(seed) step \(step): operation \(operation) threw \(type(of: error)), not SocialError: \(error)")
                }
                if step % 20 == 19 { try await Self.checkInvariants(harness, seed: seed) }
            }
            try await Self.checkInvariants(harness, seed: seed)
        }
        // The sequences reached the refusals they are meant to try.
        #expect(refusals.count >= 8, "only \(refusals.sorted()) were refused")
    }

    /// One random call, with random and often invalid arguments.
    static func perform(
        _ operation: Int, on harness: SocialHarness, posts: inout [UUID], comments: inout [UUID], random: inout SeededRandomNumberGenerator
    ) async throws {
        let social = harness.social
        let text = texts.randomElement(using: &random) ?? ""
        let target = targets.randomElement(using: &random) ?? ""
        let post = posts.randomElement(using: &random) ?? UUID()
        let limit = limits.randomElement(using: &random) ?? 0
        switch operation {
        case 0: _ = try await social.unlockFeed(workoutType: WorkoutType.standard.randomElement(using: &random) ?? .rest)
        case 1:
            let media = Bool.random(using: &random) ? urls.randomElement(using: &random) : nil
            posts.append(try await social.createPost(content: text, workoutType: .run, mediaURL: media).id)
        case 2: try await social.deletePost(post)
        case 3: try await social.follow(target)
        case 4: try await social.unfollow(target)
        case 5: try await social.block(target)
        case 6: try await social.unblock(target)
        case 7: try await social.like(post)
        case 8: try await social.unlike(post)
        case 9: comments.append(try await social.comment(on: post, text: text).id)
        case 10: try await social.deleteComment(comments.randomElement(using: &random) ?? UUID())
        case 11: _ = try await social.friendsFeed(limit: limit, after: Bool.random(using: &random) ? post : nil)
        case 12: _ = try await social.discoverFeed(limit: limit, after: Bool.random(using: &random) ? post : nil)
        case 13: _ = try await social.searchUsers(text, limit: limit)
        case 14:
            // Time passes, or the clock is set back.
            harness.clock.setDate(harness.clock.now.addingTimeInterval(Double(Int.random(in: -7_200...100_000, using: &random))))
        default:
            if Int.random(in: 0..<6, using: &random) == 0 { _ = try await social.deleteAccountData() }
        }
    }

    @Test("1,000 concurrent calls from four users on one file leave follows symmetric and every count right")
    func concurrentCallsOnOneFile() async throws {
        let harness = try SocialHarness(.file)
        try await harness.join("ada", "bob", "cy", "dee")
        let seeded = try await harness.post("seed post", by: "ada")
        // One service per user, each with its own signed-in user, all on the same file.
        var services: [LocalSocialFeedService] = []
        for user in Self.users {
            let auth = FakeAuthService(
                currentUser: UserEntity(id: user, displayName: user, createdAt: harness.clock.now, lastSignInAt: harness.clock.now))
            services.append(
                try LocalSocialFeedService(
                    auth: auth, storage: .file(harness.directory.file("social.sqlite")), context: TrainContext(clock: harness.clock)))
        }
        let posts = Locked([seeded.id])
        let succeeded = Locked(0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<1_000 {
                let service = services[index % services.count]
                let other = Self.users[(index / 4 + index) % Self.users.count]
                group.addTask {
                    let post = posts.withLock { $0[index % $0.count] }
                    do {
                        switch index % 10 {
                        case 0: try await service.follow(other)
                        case 1: try await service.unfollow(other)
                        case 2: try await service.like(post)
                        case 3: try await service.unlike(post)
                        case 4: _ = try await service.comment(on: post, text: "go")
                        case 5:
                            let made = try await service.createPost(content: "concurrent \(index)", workoutType: .run)
                            posts.withLock { $0.append(made.id) }
                        case 6: _ = try await service.friendsFeed(limit: 20, after: nil)
                        case 7: if index % 70 == 7 { try await service.block(other) } else { try await service.unblock(other) }
                        case 8: if index % 40 == 8 { try await service.deletePost(post) } else { _ = try await service.likes(on: post) }
                        default: _ = try await service.following()
                        }
                        succeeded.withLock { $0 += 1 }
                    } catch let error as SocialError where error.code != .storage {
                        // Refusals are expected (yourself, blocked, another user's post, a deleted post);
                        // a storage error is not: it would mean a write was lost to contention.
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(succeeded.withLock { $0 } > 500, "most of the 1,000 calls went through")
        try await Self.checkInvariants(harness, seed: 0)
        let relaunched = try harness.reopened()
        #expect(try await relaunched.recount() == 0)
    }
}
