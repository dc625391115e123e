import Foundation
import Testing
import TrainAccount
import TrainAuth
import TrainCore
import TrainSocial
import TrainSync
import TrainTesting

/// ACC-4: a deletion scheduled with a grace period hides and signs out the user, a
/// sign-in during the grace period can restore the account, and the purge runs when
/// the grace period ends, on the injected clock.
@Suite(.timeLimit(.minutes(1))) struct AccountScheduledDeletionTests {
    static let day: TimeInterval = 86_400

    /// Grace with a post that Ada likes and comments on; Ada busy, then signed in.
    static func world(_ variant: AccountVariant = .inMemory) async throws -> (
        world: AccountWorld, ada: UserEntity, grace: UserEntity, post: PostEntity
    ) {
        let world = try AccountWorld(variant)
        let grace = try await world.signIn(AccountWorld.grace)
        let post = try await world.social.createPost(content: "Grace's intervals", workoutType: .run)
        try await world.auth.signOut()
        let ada = try await world.signIn()
        try await world.makeBusy()
        try await world.social.like(post.id)
        _ = try await world.social.comment(on: post.id, text: "Strong finish")
        try await world.social.follow(grace.id)
        return (world, ada, grace, post)
    }

    @Test("scheduling signs the user out, hides them from everyone, and keeps their data for 30 days", arguments: AccountVariant.allCases)
    func scheduleHidesAndSignsOut(variant: AccountVariant) async throws {
        let (world, ada, grace, post) = try await Self.world(variant)
        let scheduled = try await world.account.scheduleDeletion(of: ada.id)
        #expect(scheduled.purgeAt == world.clock.now.addingTimeInterval(30 * Self.day))
        #expect(scheduled.appleTokenRevocation == .revoked)
        #expect(scheduled.warnings == [AccountDeletionReport.subscriptionWarning])
        #expect(world.auth.currentUser == nil)
        #expect(world.apple.revocationsRecorded.count == 1, "Apple's tokens go now: the purge runs without the user")

        try await world.signIn(AccountWorld.grace)
        #expect(try await world.social.discoverFeed(limit: 20).allSatisfy { $0.userID != ada.id })
        await #expect(throws: SocialError(.userNotFound)) { try await world.social.profile(ada.id) }
        #expect(try await world.social.searchUsers("Ada", limit: 10).isEmpty)
        #expect(try await world.social.likes(on: post.id).isEmpty)
        #expect(try await world.social.comments(on: post.id).isEmpty)
        #expect(try await world.social.profile(grace.id).followerCount == 0, "Ada is out of every count while hidden")
    }

    @Test("signing in during the grace period offers the restore; restoring keeps the account and shows the user again")
    func restoreDuringGrace() async throws {
        let (world, ada, grace, post) = try await Self.world()
        try await world.account.scheduleDeletion(of: ada.id)
        world.clock.advance(by: .seconds(29 * Self.day))
        #expect(try await world.signIn().id == ada.id)
        let offered = try world.account.scheduledDeletion()
        #expect(offered?.purgeAt == ManualClock.defaultStart.addingTimeInterval(30 * Self.day))
        try await world.account.restoreAccount()
        #expect(try world.account.scheduledDeletion() == nil)
        await #expect(throws: AccountError(.noScheduledDeletion)) { try await world.account.restoreAccount() }

        world.clock.advance(by: .seconds(2 * Self.day))
        #expect(try await world.account.purgeDueDeletions().isEmpty)
        #expect(try world.plans.plans().count == 1, "Ada's plan is still here")
        try await world.signIn(AccountWorld.grace)
        #expect(try await world.social.likes(on: post.id).map(\.id) == [ada.id], "Ada is shown again")
        #expect(try await world.social.profile(grace.id).followerCount == 1, "and counted again: nothing was deleted")
    }

    @Test(
        "when the grace period ends the purge deletes everything of the user, with nobody signed in, and nothing of anyone else",
        arguments: AccountVariant.allCases)
    func purgeWhenTheGracePeriodEnds(variant: AccountVariant) async throws {
        let (world, ada, grace, post) = try await Self.world(variant)
        try await world.account.scheduleDeletion(of: ada.id)
        world.clock.advance(by: .seconds(30 * Self.day - 1))
        #expect(try await world.account.purgeDueDeletions().isEmpty, "not due a second before the end")
        world.clock.advance(by: .seconds(1))
        let reports = try await world.account.purgeDueDeletions()
        let report = try #require(reports.first)
        #expect(reports.count == 1 && report.userID == ada.id)
        #expect(report.social.posts == 1 && report.social.likes == 1 && report.social.follows == 1)
        #expect(report.plans == SyncDeletionReport(localRecords: 1, remoteRecords: 1))
        #expect(report.providers == [.apple])
        #expect(report.appleTokenRevocation == .revoked)
        #expect(report.localRecords == 1, "Ada's consent")
        #expect(try await world.account.purgeDueDeletions().isEmpty, "a second purge finds nothing")

        try await world.signIn(AccountWorld.grace)
        #expect(try await world.social.profile(grace.id).followerCount == 0)
        #expect(try await world.social.comments(on: post.id).map(\.userID) == [nil], "Ada's comment stays as [Deleted User]")
        #expect(try await world.social.exportAccountData().posts.map(\.likeCount) == [0])
        #expect(try await world.signIn(AccountWorld.ada).id != ada.id, "Ada's Apple ID makes a new account")
        #expect(try world.plans.plans().isEmpty)
        #expect(try world.account.consentHistory().isEmpty)
    }

    @Test("the purge runs by itself when the clock reaches the end of the grace period")
    func purgeIsClockDriven() async throws {
        let (world, ada, _, _) = try await Self.world()
        let scheduled = try await world.account.scheduleDeletion(of: ada.id)
        // The background purge sleeps until the grace period ends.
        await world.clock.waitForSleeper(wakingBy: scheduled.purgeAt)
        world.clock.advance(by: .seconds(30 * Self.day))
        let report = try await world.account.deletionCompletion(of: ada.id)
        #expect(report.finishedAt == scheduled.purgeAt)
        #expect(try world.auth.scheduledDeletions().isEmpty, "purged when the grace period ended")
        try await world.signIn(AccountWorld.grace)
        await #expect(throws: SocialError(.userNotFound)) { try await world.social.profile(ada.id) }
    }

    @Test("refusals change nothing: another user, no recent sign-in, already scheduled, a deletion under way")
    func refusals() async throws {
        let (world, ada, _, _) = try await Self.world()
        await #expect(throws: AccountError(.notAuthorized)) { try await world.account.scheduleDeletion(of: "someone-else") }
        world.clock.advance(by: .seconds(3_600))
        await #expect(throws: AccountError(.requiresRecentLogin)) { try await world.account.scheduleDeletion(of: ada.id) }
        #expect(try world.auth.scheduledDeletions().isEmpty)
        #expect(world.auth.currentUser?.id == ada.id)

        try await world.signIn()
        let first = try await world.account.scheduleDeletion(of: ada.id)
        try await world.signIn()
        await #expect(throws: AccountError(.deletionAlreadyScheduled)) { try await world.account.scheduleDeletion(of: ada.id) }
        #expect(try world.account.scheduledDeletion() == first, "the first date stands")
        #expect(try world.auth.scheduledDeletions() == [AccountDeletionSchedule(userID: ada.id, purgeAt: first.purgeAt)])
    }

    @Test("a purge that fails at a step stops there, tries the other users, and runs again next time")
    func purgeResumes() async throws {
        let stack = try FakeStack()
        stack.auth.setCurrentUser(nil)
        stack.scheduleDuePurge(of: stack.userID)
        stack.scheduleDuePurge(of: "fake-user-2")
        stack.plans.failCall(1, of: .purgeAccountData, with: SyncError(.remoteUnavailable))
        let error = await #expect(throws: AccountError(.deletionIncomplete)) { try await stack.account.purgeDueDeletions() }
        #expect(error?.step == .plans)
        #expect(stack.auth.calls.contains(.purgeScheduledAccount(stack.userID)) == false, "the sign-in account goes last")
        #expect(stack.auth.calls.contains(.purgeScheduledAccount("fake-user-2")), "the other user's purge went on")

        let reports = try await stack.account.purgeDueDeletions()
        #expect(reports.map(\.userID) == [stack.userID])
        #expect(stack.social.calls.count { $0 == .purgeAccountData(stack.userID) } == 1, "the purge resumed at the plans")
        #expect(try stack.auth.scheduledDeletions().isEmpty)
    }
}
