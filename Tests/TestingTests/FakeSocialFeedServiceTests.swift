import Foundation
import Testing
import TrainCore
import TrainSocial
import TrainTesting

/// TEST-1: the social fake records, scripts, fails, delays and holds, and its lenient
/// defaults keep the feed's rules.
@Suite(.timeLimit(.minutes(1))) struct FakeSocialFeedServiceTests {
    static func post(_ number: Int, by userID: String = "bob") -> PostEntity {
        let date = ManualClock.defaultStart.addingTimeInterval(Double(number))
        return PostEntity(
            id: UUID(), userID: userID, userName: userID, workoutType: .run, content: "post \(number)", createdAt: date,
            expiresAt: date.addingTimeInterval(86_400))
    }

    @Test("calls are recorded in order, hasFeedUnlocked too")
    func recording() async throws {
        let fake = FakeSocialFeedService()
        _ = fake.hasFeedUnlocked()
        _ = try await fake.unlockFeed(workoutType: .yoga)
        _ = try await fake.friendsFeed(limit: 5, after: nil)
        try await fake.follow("bob")
        #expect(fake.calls == [.hasFeedUnlocked, .unlockFeed(.yoga), .friendsFeed(limit: 5, after: nil), .follow("bob")])
    }

    @Test("unscripted, a locked feed is feedLocked; unlocked, the seeded posts page newest first with cursors and limits checked")
    func lenientFeed() async throws {
        let posts = (0..<5).map { Self.post($0) }
        let fake = FakeSocialFeedService(posts: posts)
        await #expect(throws: SocialError(.feedLocked)) { _ = try await fake.friendsFeed(limit: 2, after: nil) }
        await #expect(throws: SocialError(.feedLocked)) { _ = try await fake.createPost(content: "hi", workoutType: .run) }
        _ = try await fake.unlockFeed(workoutType: .run)
        #expect(fake.hasFeedUnlocked())
        let first = try await fake.friendsFeed(limit: 2, after: nil)
        #expect(first.map(\.content) == ["post 4", "post 3"])
        #expect(try await fake.discoverFeed(limit: 2, after: first.last?.id).map(\.content) == ["post 2", "post 1"])
        await #expect(throws: SocialError(.invalidLimit)) { _ = try await fake.friendsFeed(limit: 0, after: nil) }
        await #expect(throws: SocialError(.invalidCursor)) { _ = try await fake.friendsFeed(limit: 2, after: UUID()) }
    }

    @Test("unscripted writes keep the rules: text, media URL, yourself, sets and authorship")
    func lenientWrites() async throws {
        let bobs = Self.post(1)
        let fake = FakeSocialFeedService(userID: "ada", feedUnlocked: true, posts: [bobs])
        await #expect(throws: SocialError(.invalidContent)) { _ = try await fake.createPost(content: " ", workoutType: .run) }
        await #expect(throws: SocialError(.invalidMediaURL)) {
            _ = try await fake.createPost(content: "x", workoutType: .run, mediaURL: URL(string: "http://example.com/a.jpg"))
        }
        let mine = try await fake.createPost(content: " mine ", workoutType: .run)
        #expect(mine.content == "mine" && mine.userID == "ada" && fake.posts.contains { $0.id == mine.id })
        await #expect(throws: SocialError(.cannotTargetSelf)) { try await fake.follow("ada") }
        await #expect(throws: SocialError(.notAuthorized)) { try await fake.deletePost(bobs.id) }
        try await fake.like(bobs.id)
        try await fake.like(bobs.id)
        #expect(fake.posts.first { $0.id == bobs.id }?.likeCount == 1)
        await #expect(throws: SocialError(.queryTooShort)) { _ = try await fake.searchUsers("b", limit: 5) }
    }

    @Test("scripts are returned: sticky, once, and a sequence")
    func scripts() async throws {
        let fake = FakeSocialFeedService(feedUnlocked: true)
        let page = [Self.post(9)]
        fake.script(.friendsFeed, .returning(page))
        #expect(try await fake.friendsFeed(limit: 20, after: nil) == page)
        #expect(try await fake.friendsFeed(limit: 20, after: nil) == page)
        fake.script(.recount, .once(.success(3)))
        #expect(try await fake.recount() == 3)
        #expect(try await fake.recount() == 0)
        fake.script(.follow, .sequence([.failure(SocialError(.blocked)), .success(())]))
        await #expect(throws: SocialError(.blocked)) { try await fake.follow("bob") }
        try await fake.follow("bob")
        #expect(fake.finish().isEmpty)
    }

    @Test("a strict fake fails the test and throws unimplemented for each unscripted call, and returns what is scripted")
    func strict() async throws {
        let fake = FakeSocialFeedService(feedUnlocked: true, strict: true)
        await withKnownIssue {
            await #expect(throws: FakeError.unimplemented("FakeSocialFeedService.friendsFeed(limit:after:)")) {
                _ = try await fake.friendsFeed(limit: 20, after: nil)
            }
        } matching: {
            FakeIssue.isUnscriptedCall($0, "FakeSocialFeedService.friendsFeed(limit:after:)")
        }
        await withKnownIssue {
            await #expect(throws: FakeError.unimplemented("FakeSocialFeedService.follow(_:)")) { try await fake.follow("bob") }
        } matching: {
            FakeIssue.isUnscriptedCall($0, "FakeSocialFeedService.follow(_:)")
        }
        await withKnownIssue {
            await #expect(throws: FakeError.unimplemented("FakeSocialFeedService.deleteAccountData()")) { _ = try await fake.deleteAccountData() }
        } matching: {
            FakeIssue.isUnscriptedCall($0, "FakeSocialFeedService.deleteAccountData()")
        }
        #expect(fake.calls == [.friendsFeed(limit: 20, after: nil), .follow("bob"), .deleteAccountData])
        fake.script(.deleteAccountData, .returning(SocialDeletionReport(posts: 2)))
        #expect(try await fake.deleteAccountData().posts == 2)
    }

    @Test("unscripted relations keep a small state: seeded follows, a block unfollows and hides posts, deletion reports and clears")
    func lenientRelations() async throws {
        let bobs = Self.post(1, by: "bob")
        let fake = FakeSocialFeedService(userID: "ada", feedUnlocked: true, posts: [bobs], following: ["bob", "cy"])
        #expect(try await fake.following().map(\.id) == ["bob", "cy"])
        #expect(try await fake.profile("ada").followingCount == 2)
        #expect(try await fake.searchUsers("CY", limit: 5).map(\.id) == ["cy"])
        try await fake.block("bob")
        #expect(try await fake.following().map(\.id) == ["cy"])
        #expect(try await fake.blockedUsers().map(\.id) == ["bob"])
        #expect(try await fake.friendsFeed(limit: 20, after: nil).isEmpty)
        await #expect(throws: SocialError(.blocked)) { try await fake.follow("bob") }
        try await fake.unfollow("cy")
        try await fake.unfollow("cy")
        #expect(try await fake.following().isEmpty)

        _ = try await fake.createPost(content: "mine", workoutType: .run)
        try await fake.follow("dee")
        let report = try await fake.deleteAccountData()
        #expect(report == SocialDeletionReport(posts: 1, follows: 1, blocks: 1))
        #expect(fake.posts.isEmpty && !fake.hasFeedUnlocked())
        #expect(try await fake.following().isEmpty)
        #expect(try await fake.blockedUsers().isEmpty)
    }

    @Test("the next or n-th call fails, latency runs on the test clock, a held call waits for release, and left-overs are reported")
    func controls() async throws {
        let clock = ManualClock()
        let fake = FakeSocialFeedService(feedUnlocked: true, clock: clock)
        fake.controls.failNextCall(with: SocialError(.storage))
        await #expect(throws: SocialError(.storage)) { _ = try await fake.following() }
        fake.controls.failCall(number: 3, with: SocialError(.postNotFound))
        _ = try await fake.followers()
        await #expect(throws: SocialError(.postNotFound)) { _ = try await fake.blockedUsers() }

        fake.controls.latency = .seconds(2)
        let page = Task { try await fake.discoverFeed(limit: 20, after: nil) }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(2))
        #expect(try await page.value.isEmpty)

        fake.controls.latency = nil
        fake.controls.holdCalls()
        let post = Task { try await fake.createPost(content: "held", workoutType: .run) }
        await fake.controls.waitForHeldCalls(1)
        #expect(fake.posts.isEmpty)
        fake.controls.releaseHeldCalls()
        #expect(try await post.value.content == "held")

        fake.script(.comments, .returning([]))
        withKnownIssue {
            #expect(fake.finish().count == 1)
        } matching: {
            FakeIssue.isLeftover($0, of: "FakeSocialFeedService")
        }
    }
}
