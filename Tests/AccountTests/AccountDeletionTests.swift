import Foundation
import Testing
import TrainAuth
import TrainCore
import TrainSocial
import TrainSubscription
import TrainSync
import TrainTesting

@testable import TrainAccount

@Suite(.timeLimit(.minutes(1))) struct AccountDeletionTests {
    @Test(
        "deleting returns with the user signed out; the purge then removes their data from every service, counts each kind, warns of the live subscription, and leaves another user's data alone",
        arguments: AccountVariant.allCases)
    func deletesEverything(variant: AccountVariant) async throws {
        let world = try AccountWorld(variant)
        let grace = try await world.signIn(AccountWorld.grace)
        let gracePost = try await world.social.createPost(content: "Grace's ride", workoutType: .cycle)
        _ = try await world.plans.createPlan(
            TrainingPlan(name: "Grace's plan", startDate: world.clock.now, endDate: world.clock.now, daysPerWeek: 2))
        _ = try await world.plans.sync()
        try await world.account.accept(.terms, version: 1)
        try await world.auth.signOut()

        let ada = try await world.signIn()
        try await world.makeBusy()
        try await world.social.follow(grace.id)
        try await world.social.like(gracePost.id)
        let deletion = try await world.account.deleteAccount(of: ada.id)
        #expect(deletion.userID == ada.id && deletion.isImmediate && deletion.scheduledAt == world.clock.now)
        #expect(deletion.appleTokenRevocation == .revoked)
        #expect(deletion.warnings == [AccountDeletionReport.subscriptionWarning])
        #expect(world.auth.currentUser == nil)

        let report = try await world.account.deletionCompletion(of: ada.id)
        #expect(report.userID == ada.id)
        #expect(report.appleTokenRevocation == .revoked)
        #expect(report.social.posts == 1 && report.social.likes == 1 && report.social.follows == 1)
        #expect(report.plans == SyncDeletionReport(localRecords: 1, remoteRecords: 1))
        #expect(report.activeSubscriptions == 1)
        #expect(report.warnings == [AccountDeletionReport.subscriptionWarning])
        #expect(report.providers == [.apple])
        #expect(report.localRecords == 1, "Ada's consent")
        #expect(report.finishedAt == world.clock.now)
        #expect(try world.account.pendingDeletion(of: ada.id) == nil)
        #expect(try await world.account.deletionCompletion(of: ada.id) == report, "asked again, the same report")

        try await world.signIn(AccountWorld.grace)
        #expect(try await world.social.profile(grace.id).followerCount == 0)
        #expect(try await world.social.exportAccountData().posts.map(\.likeCount) == [0])
        #expect(try world.plans.plans().map(\.name) == ["Grace's plan"])
        #expect(try world.account.consentHistory().map(\.document) == [.terms])
        let again = try await world.signIn(AccountWorld.ada)
        #expect(again.id != ada.id, "Ada's Apple ID makes a new account")
        #expect(try world.plans.plans().isEmpty)
        #expect(try await world.social.exportAccountData().posts.isEmpty)
    }

    @Test(
        "while the purge waits, the user is hidden from every reader and their Apple ID cannot sign in; once it finishes the Apple ID makes a new account"
    )
    func hiddenDuringThePurge() async throws {
        let remote = FakeRemotePlanStore.inMemory()
        let world = try AccountWorld(remote: remote)
        let grace = try await world.signIn(AccountWorld.grace)
        let gracePost = try await world.social.createPost(content: "Grace's ride", workoutType: .cycle)
        try await world.auth.signOut()
        let ada = try await world.signIn()
        try await world.makeBusy()
        let adaPost = try #require(try await world.social.exportAccountData().posts.first)
        try await world.social.follow(grace.id)
        try await world.social.like(gracePost.id)
        let progress = world.account.deletionProgress()
        remote.partition()

        try await world.account.deleteAccount(of: ada.id)
        let failed = await progress.firstValue(where: { $0.phase == .failed })
        #expect(failed?.step == .plans, "the remote is down: the purge stops at the plans")
        #expect(try world.account.pendingDeletion(of: ada.id)?.nextStep == .plans)
        await #expect(throws: AuthenticationError(.userDisabled)) { try await world.signIn() }

        try await world.signIn(AccountWorld.grace)
        await #expect(throws: SocialError(.userNotFound)) { _ = try await world.social.profile(ada.id) }
        #expect(try await world.social.followers().isEmpty)
        #expect(try await world.social.likes(on: gracePost.id).isEmpty)
        #expect(try await world.social.discoverFeed(limit: 20, after: nil).map(\.id) == [gracePost.id])
        await #expect(throws: SocialError.self) { _ = try await world.social.comments(on: adaPost.id) }

        remote.heal()
        world.clock.advance(by: .seconds(30))
        let report = try await world.account.deletionCompletion(of: ada.id)
        #expect(report.plans.remoteRecords == 1)
        try await world.auth.signOut()
        #expect(try await world.signIn().id != ada.id)
    }

    @Test("without a recent sign-in nothing is hidden, deleted or journaled")
    func needsRecentLogin() async throws {
        let world = try AccountWorld()
        let ada = try await world.signIn()
        try await world.makeBusy()
        world.clock.advance(by: .seconds(3_600))
        let error = await #expect(throws: AccountError(.requiresRecentLogin)) { try await world.account.deleteAccount(of: ada.id) }
        #expect(error?.step == .appleRevocation)
        #expect(error?.errorDescription?.contains("verify your identity") == true)
        #expect(try world.account.pendingDeletion(of: ada.id) == nil)
        #expect(try world.auth.scheduledDeletions().isEmpty)
        #expect(try await world.social.exportAccountData().posts.count == 1)
        #expect(try world.plans.plans().count == 1)
        #expect(world.auth.currentUser?.id == ada.id)
    }

    @Test("without a fresh Apple authorization the deletion asks for one and changes nothing")
    func needsAppleReauthentication() async throws {
        let stack = try FakeStack()
        stack.auth.script(.revokeAppleToken, .throwing(AuthenticationError(.requiresAppleReauthentication)))
        await #expect(throws: AccountError(.requiresAppleReauthentication)) { try await stack.account.deleteAccount(of: stack.userID) }
        #expect(try stack.account.pendingDeletion(of: stack.userID) == nil)
        #expect(!stack.auth.calls.contains(.scheduleAccountDeletion(stack.userID, stack.clock.now)))
        #expect(stack.auth.currentUser != nil)
    }

    @Test(
        "a purge step that fails is tried again 30 seconds later on the clock, and continues from that step",
        arguments: [AccountDeletionStep.socialData, .plans, .subscription, .authAccount])
    func backoff(step: AccountDeletionStep) async throws {
        let stack = try FakeStack()
        stack.failFirstCall(of: step)
        let failures = stack.account.deletionProgress()
        try await stack.account.deleteAccount(of: stack.userID)
        #expect(await failures.firstValue(where: { $0.phase == .failed })?.step == step)
        await stack.clock.waitForSleeper(wakingBy: stack.clock.now.addingTimeInterval(30))
        #expect(try stack.account.pendingDeletion(of: stack.userID)?.nextStep == step, "the steps before it stay done")
        let before = stack.callCounts()
        stack.clock.advance(by: .seconds(30))
        let report = try await stack.account.deletionCompletion(of: stack.userID)
        #expect(report.userID == stack.userID && report.finishedAt != nil)
        let after = stack.callCounts()
        for earlier in AccountDeletionStep.allCases where earlier < step && earlier != .appleRevocation && earlier != .subscription {
            #expect(after[earlier] == before[earlier], "\(earlier) did not run again")
        }
        #expect((after[step] ?? 0) > (before[step] ?? 0))
    }

    @Test("a purge that stopped goes on by itself in the next launch, from the journal in the file")
    func resumesAfterARelaunch() async throws {
        let remote = FakeRemotePlanStore.inMemory()
        let world = try AccountWorld(.file, remote: remote)
        let (ada, failedAt) = try await world.deleteAdaWithTheRemoteDown(remote)
        #expect(failedAt == .plans)
        remote.heal()
        let relaunched = try world.relaunchedAccount()
        let report = try await relaunched.deletionCompletion(of: ada.id)
        #expect(report.social.posts == 1, "the posts went in the first launch's run, counted once")
        #expect(report.plans.remoteRecords == 1 && report.providers == [.apple] && report.localRecords == 1)
        #expect(try relaunched.pendingDeletions().isEmpty)
    }

    @Test("deleting twice, restoring during the purge or after it, a clock set back and another user's account are typed errors or no-ops")
    func refusals() async throws {
        let remote = FakeRemotePlanStore.inMemory()
        let world = try AccountWorld(remote: remote)
        let ada = try await world.signIn()
        await #expect(throws: AccountError(.notAuthorized)) { try await world.account.deleteAccount(of: "someone-else") }
        let progress = world.account.deletionProgress()
        try await world.makeBusy()
        remote.partition()
        try await world.account.deleteAccount(of: ada.id)
        _ = await progress.firstValue(where: { $0.phase == .failed })
        // The device's clock set back two days: the account stays due, its Apple ID refused.
        world.clock.setDate(world.clock.now.addingTimeInterval(-2 * 86_400))
        await #expect(throws: AuthenticationError(.userDisabled)) { try await world.signIn() }
        await #expect(throws: AccountError(.notSignedIn)) { try await world.account.deleteAccount(of: ada.id) }
        await #expect(throws: AccountError(.notSignedIn)) { try await world.account.restoreAccount() }
        await #expect(throws: AccountError(.notSignedIn)) { try await world.account.scheduleDeletion(of: ada.id) }
        remote.heal()
        world.clock.advance(by: .seconds(30))
        _ = try await world.account.deletionCompletion(of: ada.id)
        try await world.signIn()
        await #expect(throws: AccountError(.noScheduledDeletion)) { try await world.account.restoreAccount() }
        await #expect(throws: AccountError(.noScheduledDeletion)) { _ = try await world.account.deletionCompletion(of: "nobody") }
    }

    @Test("a second request while one is asked is refused, and one user's request waits for nobody else's")
    func oneAtATime() async throws {
        let stack = try FakeStack()
        stack.auth.controls.holdCalls()
        let account = stack.account
        let userID = stack.userID
        let first = Task { try await account.deleteAccount(of: userID) }
        await stack.auth.controls.waitForHeldCalls()
        await #expect(throws: AccountError(.deletionInProgress)) { try await stack.account.deleteAccount(of: stack.userID) }
        stack.auth.controls.releaseHeldCalls()
        #expect(try await first.value.userID == userID)
        #expect(try await stack.account.deletionCompletion(of: userID).userID == userID)
    }

    @Test("another user signing in while the Apple tokens are revoked stops the request: nothing is hidden or journaled")
    func userSwitchStopsTheRequest() async throws {
        let stack = try FakeStack()
        stack.auth.controls.holdCalls()
        let account = stack.account
        let userID = stack.userID
        let running = Task { try await account.deleteAccount(of: userID) }
        await stack.auth.controls.waitForHeldCalls()
        stack.auth.setCurrentUser(UserEntity(id: "grace", displayName: "Grace", createdAt: Date(), lastSignInAt: Date()))
        stack.auth.controls.releaseHeldCalls()
        let result = await running.result
        #expect(throws: AccountError(.notSignedIn)) { try result.get() }
        #expect(try stack.account.pendingDeletion(of: userID) == nil)
        #expect(!stack.auth.calls.contains { $0.isCall(of: .scheduleAccountDeletion) })
    }

    @Test("progress reports each step starting and finishing, in order, up to all steps finished")
    func progress() async throws {
        let stack = try FakeStack()
        let events = stack.account.deletionProgress()
        try await stack.account.deleteAccount(of: stack.userID)
        let steps = AccountDeletionStep.allCases
        let received = await events.collect(steps.count * 2)
        #expect(received.map(\.step) == steps.flatMap { [$0, $0] })
        #expect(received.map(\.phase) == steps.flatMap { _ in [AccountDeletionProgress.Phase.started, .finished] })
        #expect(received.last?.fractionCompleted == 1)
    }

    @Test("a canonically equivalent spelling of the user's ID is another user: refused, nothing deleted or exported")
    func equivalentIDIsAnotherUser() async throws {
        let user = UserEntity(id: "jos\u{E9}", displayName: "José", createdAt: Date(), lastSignInAt: Date())
        let auth = FakeAuthService(currentUser: user)
        let account = LocalAccountService(
            auth: auth, social: FakeSocialFeedService(), plans: FakePlanSyncService(), subscriptions: FakeSubscriptionService())
        try await account.accept(.privacyPolicy, version: 1)
        let decomposed = "jose\u{301}"
        #expect(decomposed == user.id, "Swift's == calls them equal")
        await #expect(throws: AccountError(.notAuthorized)) { _ = try await account.exportData(of: decomposed) }
        await #expect(throws: AccountError(.notAuthorized)) { _ = try await account.deleteAccount(of: decomposed) }
        #expect(try account.consentHistory().count == 1)
        #expect(auth.calls == [.authStateChanges()], "the service only follows the auth state")
    }

    @Test("a revocation Apple's end failed is reported as a warning, and the deletion goes on")
    func revocationFailureWarns() async throws {
        let stack = try FakeStack()
        stack.auth.script(.revokeAppleToken, .returning(.failed(AuthenticationError(.networkError))))
        let deletion = try await stack.account.deleteAccount(of: stack.userID)
        #expect(deletion.warnings == [AccountDeletionReport.revocationWarning])
        let report = try await stack.account.deletionCompletion(of: stack.userID)
        #expect(report.warnings == [AccountDeletionReport.revocationWarning])
        guard case .failed = report.appleTokenRevocation else {
            Issue.record("the failure is in the report")
            return
        }
    }

    @Test("the session shows the deletion from the call until its purge ends, then the report")
    @MainActor
    func sessionShowsDeletingUntilThePurgeEnds() async throws {
        let remote = FakeRemotePlanStore.inMemory()
        let world = try AccountWorld(remote: remote)
        let session = UserSessionManager(auth: world.auth, subscriptions: world.subscriptions, social: world.social, account: world.account)
        await session.start()
        try await world.signIn()
        try await world.makeBusy()
        #expect(await waitUntil { session.currentUser != nil })
        let progress = world.account.deletionProgress()
        remote.partition()
        let deletion = try await session.deleteAccount()
        #expect(session.authState == .unauthenticated && session.accountDeletion == deletion)
        _ = await progress.firstValue(where: { $0.phase == .failed })
        #expect(session.accountDeletion != nil, "still deleting")
        remote.heal()
        world.clock.advance(by: .seconds(30))
        #expect(await waitUntil { session.accountDeletion == nil && session.deletionReport?.userID == deletion.userID })
        #expect(session.deletionProgress?.fractionCompleted == 1)
        session.stop()
    }
}
