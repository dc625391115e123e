import Foundation
import Testing
import TrainCore
import TrainSocial
import TrainTesting

@Suite struct FeedPaginationTests {
    @Test("a page is newest first, then by ID, and a limit outside 1...100 is invalidLimit")
    func orderAndLimits() async throws {
        let harness = try SocialHarness()
        var posted: [PostEntity] = []
        for index in 0..<5 { posted.append(try await harness.post("post \(index)", by: "bob")) }
        harness.act(as: "ada")
        _ = try await harness.social.unlockFeed(workoutType: .run)
        let page = try await harness.social.discoverFeed(limit: 100)
        #expect(page.map(\.id) == posted.reversed().map(\.id))
        #expect(zip(page, page.dropFirst()).allSatisfy { $0.createdAt > $1.createdAt })
        for limit in [0, -1, 101] {
            await #expect(throws: SocialError(.invalidLimit)) { try await harness.social.discoverFeed(limit: limit) }
        }
    }

    @Test("posts made while the clock is set back still come before every earlier post")
    func clockSetBack() async throws {
        let harness = try SocialHarness()
        let first = try await harness.post("first", by: "bob")
        harness.clock.setDate(harness.clock.now.addingTimeInterval(-3600))
        let second = try await harness.post("second", by: "bob")
        #expect(second.createdAt > first.createdAt)
        harness.act(as: "ada")
        _ = try await harness.social.unlockFeed(workoutType: .run)
        let page = try await harness.social.discoverFeed(limit: 1)
        #expect(page.map(\.id) == [second.id])
        #expect(try await harness.social.discoverFeed(limit: 1, after: second.id).map(\.id) == [first.id])
    }

    @Test("a cursor whose post was deleted continues from its position; one that never existed is invalidCursor")
    func deletedCursor() async throws {
        let harness = try SocialHarness()
        var posted: [PostEntity] = []
        for index in 0..<6 { posted.append(try await harness.post("post \(index)", by: "bob")) }
        harness.act(as: "ada")
        _ = try await harness.social.unlockFeed(workoutType: .run)
        let firstPage = try await harness.social.discoverFeed(limit: 3)
        let cursor = try #require(firstPage.last)
        harness.act(as: "bob")
        try await harness.social.deletePost(cursor.id)
        harness.act(as: "ada")
        let next = try await harness.social.discoverFeed(limit: 3, after: cursor.id)
        #expect(next.map(\.id) == posted.prefix(3).reversed().map(\.id))
        await #expect(throws: SocialError(.invalidCursor)) { try await harness.social.discoverFeed(limit: 3, after: UUID()) }
    }

    @Test("expiry is decided at read time, and an expired cursor still continues")
    func expiryAtReadTime() async throws {
        let harness = try SocialHarness()
        let old = try await harness.post("old", by: "bob")
        harness.clock.advance(by: .seconds(3600))
        let newer = try await harness.post("newer", by: "bob")
        harness.act(as: "ada")
        _ = try await harness.social.unlockFeed(workoutType: .run)
        #expect(try await harness.social.discoverFeed().map(\.id) == [newer.id, old.id])
        harness.clock.advance(to: old.expiresAt.addingTimeInterval(-0.001))
        _ = try await harness.social.unlockFeed(workoutType: .run)
        #expect(try await harness.social.discoverFeed().count == 2)
        harness.clock.advance(to: old.expiresAt)
        _ = try await harness.social.unlockFeed(workoutType: .run)
        #expect(try await harness.social.discoverFeed().map(\.id) == [newer.id])
        harness.clock.advance(to: newer.expiresAt)
        _ = try await harness.social.unlockFeed(workoutType: .run)
        #expect(try await harness.social.discoverFeed().isEmpty)
        #expect(try await harness.social.discoverFeed(limit: 5, after: newer.id).isEmpty)
        await #expect(throws: SocialError(.postExpired)) { try await harness.social.like(old.id) }
        await #expect(throws: SocialError(.postExpired)) { try await harness.social.comment(on: old.id, text: "nice") }
    }

    @Test("blocked, deleted and expired posts are skipped before the limit, so a page is only short at the end")
    func filterBeforeLimit() async throws {
        let harness = try SocialHarness()
        try await harness.join("ada", "bob", "eve")
        var kept: [PostEntity] = []
        for index in 0..<4 {
            kept.append(try await harness.post("bob \(index)", by: "bob"))
            try await harness.post("eve \(index)", by: "eve")
            try await harness.post("eve again \(index)", by: "eve")
        }
        harness.act(as: "ada")
        try await harness.social.block("eve")
        let page = try await harness.social.discoverFeed(limit: 3)
        #expect(page.map(\.id) == kept.reversed().prefix(3).map(\.id))
        let rest = try await harness.social.discoverFeed(limit: 3, after: page.last?.id)
        #expect(rest.map(\.id) == [kept[0].id])
    }

    @Test("the pages put together equal the first call's feed while posts come, go and expire", arguments: SocialVariant.allCases)
    func stableCursors(variant: SocialVariant) async throws {
        for seed in SeededRandomNumberGenerator.seeds(default: variant == .inMemory ? 12 : 4) {
            var random = SeededRandomNumberGenerator(seed: seed)
            try await Self.checkPagination(variant: variant, random: &random, seed: seed)
        }
    }

    /// One seeded run: a feed read page by page, with random posts, deletions and time
    /// passing between the pages, against a reference list.
    static func checkPagination(variant: SocialVariant, random: inout SeededRandomNumberGenerator, seed: UInt64) async throws {
        let harness = try SocialHarness(variant, policy: SocialPolicy(postLifetime: .seconds(6 * 3600)))
        let authors = ["bob", "cy", "dee"]
        try await harness.join("ada", "bob", "cy", "dee")
        harness.act(as: "ada")
        for author in authors { try await harness.social.follow(author) }
        var posts: [PostEntity] = []
        var deleted: Set<UUID> = []
        for _ in 0..<Int.random(in: 10...40, using: &random) {
            posts.append(try await harness.post("p", by: authors.randomElement(using: &random) ?? "bob"))
            harness.clock.advance(by: .milliseconds(Int.random(in: 0...600_000, using: &random)))
        }
        let friends = Bool.random(using: &random)
        let limit = Int.random(in: 1...7, using: &random)
        harness.act(as: "ada")
        _ = try await harness.social.unlockFeed(workoutType: .run)
        let now = harness.clock.now
        let snapshot = posts.filter { $0.isVisible(at: now) }.sorted { ($0.createdAt, $0.id.uuidString) > ($1.createdAt, $1.id.uuidString) }
        var cursor: UUID?
        var position = 0
        var pages = 0
        while true {
            harness.act(as: "ada")
            _ = try await harness.social.unlockFeed(workoutType: .run)
            let page =
                friends
                ? try await harness.social.friendsFeed(limit: limit, after: cursor)
                : try await harness.social.discoverFeed(limit: limit, after: cursor)
            let readAt = harness.clock.now
            var expected: [UUID] = []
            var next = position
            while expected.count < limit, next < snapshot.count {
                let candidate = snapshot[next]
                if !deleted.contains(candidate.id), candidate.isVisible(at: readAt) { expected.append(candidate.id) }
                next += 1
            }
            #expect(page.map(\.id) == expected, "seed \(seed) (\(variant)): replay with TRAINKIT_SEED=\(seed)")
            guard page.map(\.id) == expected, let last = page.last else { break }
            position = (snapshot.firstIndex { $0.id == last.id } ?? snapshot.count) + 1
            cursor = last.id
            pages += 1
            // Between pages: new posts, deletions (the cursor's own post among them), time passing.
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                switch Int.random(in: 0..<3, using: &random) {
                case 0:
                    posts.append(try await harness.post("late", by: authors.randomElement(using: &random) ?? "bob"))
                case 1:
                    guard let victim = posts.filter({ !deleted.contains($0.id) }).randomElement(using: &random) else { continue }
                    harness.act(as: victim.userID)
                    try await harness.social.deletePost(victim.id)
                    deleted.insert(victim.id)
                default:
                    harness.clock.advance(by: .milliseconds(Int.random(in: 0...1_800_000, using: &random)))
                }
            }
        }
    }

    @Test(
        "a page carries the next cursor while visible posts follow, and none when the posts after it are blocked, deleted or expired",
        arguments: SocialVariant.allCases)
    func nextCursorAndHasMore(variant: SocialVariant) async throws {
        let harness = try SocialHarness(variant)
        try await harness.join("ada", "bob", "eve")
        let old = try await harness.post("bob old", by: "bob")
        harness.clock.advance(by: .seconds(3_600))
        let kept = [try await harness.post("bob 1", by: "bob"), try await harness.post("bob 2", by: "bob")]
        let gone = try await harness.post("bob gone", by: "bob")
        try await harness.post("eve", by: "eve")
        harness.act(as: "bob")
        try await harness.social.deletePost(gone.id)
        harness.act(as: "ada")
        try await harness.social.block("eve")

        let first = try await harness.social.discoverFeed(limit: 2)
        #expect(first.posts.map(\.id) == [kept[1].id, kept[0].id])
        #expect(first.hasMore && first.nextCursor == kept[0].id, "bob's old post follows")
        let last = try await harness.social.discoverFeed(limit: 2, after: first.nextCursor)
        #expect(last.posts.map(\.id) == [old.id] && !last.hasMore && last.nextCursor == nil)

        // Once the old post expires, the two newer ones are the whole feed: no next page.
        harness.clock.advance(to: old.expiresAt)
        _ = try await harness.social.unlockFeed(workoutType: .run)
        let whole = try await harness.social.discoverFeed(limit: 2)
        #expect(whole.posts.map(\.id) == [kept[1].id, kept[0].id] && !whole.hasMore)
        #expect(try await harness.social.discoverFeed(limit: 1).nextCursor == kept[1].id)
    }

    @Test("each post on a page says whether the viewer likes it, and only the viewer's own like counts", arguments: SocialVariant.allCases)
    func likeStateOnEachPost(variant: SocialVariant) async throws {
        let harness = try SocialHarness(variant)
        try await harness.join("ada", "bob")
        let liked = try await harness.post("liked", by: "bob")
        let other = try await harness.post("other", by: "bob")
        harness.act(as: "bob")
        try await harness.social.like(other.id)
        harness.act(as: "ada")
        try await harness.social.follow("bob")
        try await harness.social.like(liked.id)
        for page in [try await harness.social.friendsFeed(limit: 20), try await harness.social.discoverFeed(limit: 20)] {
            #expect(page.map(\.content) == ["other", "liked"])
            #expect(page.map(\.isLikedByViewer) == [false, true])
            #expect(page.map(\.likeCount) == [1, 1])
        }
        try await harness.social.unlike(liked.id)
        #expect(try await harness.social.friendsFeed(limit: 20).map(\.isLikedByViewer) == [false, false])
    }
}
