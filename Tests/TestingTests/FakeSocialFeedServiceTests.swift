import Foundation
import Testing
import TrainAuth
import TrainCore
import TrainSocial
import TrainTesting

/// The social fake records, scripts, fails, delays and holds; what nobody scripted is
/// the real service's answer, or a test failure.
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
        fake.script(.unlockFeed, .returning(FeedUnlock.sample))
        fake.script(.friendsFeed, .returning([]))
        fake.script(.follow, .succeeding)
        _ = fake.hasFeedUnlocked()
        _ = try await fake.unlockFeed(workoutType: .yoga)
        _ = try await fake.friendsFeed(limit: 5, after: nil)
        try await fake.follow("bob")
        #expect(fake.calls == [.hasFeedUnlocked(), .unlockFeed(.yoga), .friendsFeed(5, nil), .follow("bob")])
    }

    @Test("a strict fake holds a week of sample workouts, and its unlock carries today's run")
    func sampleWorkouts() async throws {
        let fake = FakeSocialFeedService(feedUnlocked: true, timeZone: TimeZone(identifier: "UTC") ?? .gmt)
        #expect(fake.workouts.recordedWorkouts.count == 8)
        let unlocks = fake.feedUnlockUpdates()
        var iterator = unlocks.makeAsyncIterator()
        #expect(await iterator.next()??.workout == WorkoutSummary(type: .run, duration: 2_700, distance: 10_000))
    }

    @Test("scripts are returned: sticky, once, and a sequence")
    func scripts() async throws {
        let fake = FakeSocialFeedService(feedUnlocked: true)
        let page: FeedPage = [Self.post(9)]
        fake.script(.friendsFeed, .returning(page))
        #expect(try await fake.friendsFeed(limit: 20, after: nil) == page)
        #expect(try await fake.friendsFeed(limit: 20, after: nil) == page)
        fake.script(.recount, .once(.success(3)))
        #expect(try await fake.recount() == 3)
        fake.script(.follow, .sequence([.failure(SocialError(.blocked)), .success(())]))
        await #expect(throws: SocialError(.blocked)) { try await fake.follow("bob") }
        try await fake.follow("bob")
        #expect(fake.finish().isEmpty)
    }

    @Test("a fake fails the test and throws unimplemented for each unscripted call, and returns what is scripted")
    func strict() async throws {
        let fake = FakeSocialFeedService(feedUnlocked: true)
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
        #expect(fake.calls == [.friendsFeed(20, nil), .follow("bob")])
        fake.script(.deleteAccountData, .returning(SocialDeletionReport(posts: 2)))
        #expect(try await fake.deleteAccountData().posts == 2)
        #expect(!fake.hasFeedUnlocked(), "a scripted deletion locks the fake's feed")
    }

    @Test("a strict fake's unlock ends at the next midnight in its time zone, on its clock")
    func unlockEndsAtLocalMidnight() throws {
        let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
        let clock = ManualClock() // 2026-01-01 00:00 UTC is 09:00 in Tokyo
        let fake = FakeSocialFeedService(feedUnlocked: true, timeZone: tokyo, clock: clock)
        clock.advance(by: .seconds(15 * 3_600 - 1))
        #expect(fake.hasFeedUnlocked(), "23:59:59 in Tokyo")
        clock.advance(by: .seconds(1))
        #expect(!fake.hasFeedUnlocked(), "midnight in Tokyo")
    }

    @Test("over a LocalSocialFeedService the feed's rules are the service's own: a locked feed, bad text, following yourself")
    func backedByService() async throws {
        let auth = FakeAuthService(currentUser: FakeAuthService.sampleUser)
        let fake = FakeSocialFeedService(backedBy: LocalSocialFeedService(auth: auth))
        await #expect(throws: SocialError(.feedLocked)) { _ = try await fake.friendsFeed(limit: 2, after: nil) }
        let unlock = try await fake.unlockFeed(workoutType: .run)
        #expect(fake.hasFeedUnlocked() && unlock.userID == FakeAuthService.sampleUser.id)
        await #expect(throws: SocialError(.invalidContent)) { _ = try await fake.createPost(content: " ", workoutType: .run) }
        await #expect(throws: SocialError(.cannotTargetSelf)) { try await fake.follow(FakeAuthService.sampleUser.id) }
        let mine = try await fake.createPost(content: " mine ", workoutType: .run)
        #expect(try await fake.friendsFeed(limit: 20, after: nil).map(\.id) == [mine.id])
        fake.script(.friendsFeed, .once(.failure(SocialError(.storage))))
        await #expect(throws: SocialError(.storage)) { _ = try await fake.friendsFeed(limit: 20, after: nil) }
        #expect(fake.finish().isEmpty)
    }

    @Test("the next or n-th call fails, latency runs on the test clock, a held call waits for release, and left-overs are reported")
    func controls() async throws {
        let clock = ManualClock()
        let fake = FakeSocialFeedService(feedUnlocked: true, clock: clock)
        fake.script(.following, .returning([]))
        fake.script(.followers, .returning([]))
        fake.script(.blockedUsers, .returning([]))
        fake.script(.discoverFeed, .returning([]))
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
        fake.script(.createPost, .returning(Self.post(1, by: FakeAuthService.sampleUser.id)))
        let post = Task { try await fake.createPost(content: "held", workoutType: .run) }
        await fake.controls.waitForHeldCalls(1)
        fake.controls.releaseHeldCalls()
        #expect(try await post.value.content == "post 1")

        fake.script(.comments, .returning([]))
        withKnownIssue {
            // The scripts of the calls an injected failure answered never answered either.
            #expect(
                fake.finish() == ["blockedUsers()", "comments(on:)", "following()"].map { FakeLeftover.unusedScript(method: $0, results: nil) })
        } matching: {
            FakeIssue.isLeftover($0, of: "FakeSocialFeedService")
        }
    }
}

extension FeedUnlock {
    /// An unlock for a script.
    static let sample = FeedUnlock(
        id: UUID(), userID: FakeAuthService.sampleUser.id, workoutType: .yoga, unlockDate: ManualClock.defaultStart, timeZoneIdentifier: "UTC",
        expiresAt: ManualClock.defaultStart.addingTimeInterval(86_400))
}
