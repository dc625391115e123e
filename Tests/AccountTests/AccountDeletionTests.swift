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
        "deleting an account removes the user's data from every service, counts each kind, warns of the live subscription, and leaves another user's data alone",
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
        let report = try await world.account.deleteAccount(of: ada.id)

        #expect(report.userID == ada.id)
        #expect(report.appleTokenRevocation == .revoked)
        #expect(report.social.posts == 1 && report.social.likes == 1 && report.social.follows == 1)
        #expect(report.plans == SyncDeletionReport(localRecords: 1, remoteRecords: 1))
        #expect(report.activeSubscriptions == 1)
        #expect(report.warnings == [AccountDeletionReport.subscriptionWarning])
        #expect(report.providers == [.apple])
        #expect(report.localRecords == 1, "Ada's consent")
        #expect(report.finishedAt == world.clock.now)
        #expect(world.auth.currentUser == nil)
        #expect(try world.account.pendingDeletion(of: ada.id) == nil)

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

    @Test("without a recent sign-in nothing is deleted and nothing is journaled")
    func needsRecentLogin() async throws {
        let world = try AccountWorld()
        let ada = try await world.signIn()
        try await world.makeBusy()
        world.clock.advance(by: .seconds(3_600))
        let error = await #expect(throws: AccountError(.requiresRecentLogin)) { try await world.account.deleteAccount(of: ada.id) }
        #expect(error?.step == .appleRevocation)
        #expect(error?.errorDescription?.contains("verify your identity") == true)
        #expect(try world.account.pendingDeletion(of: ada.id) == nil)
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
        #expect(stack.social.calls.contains(.deleteAccountData) == false)
    }

    @Test(
        "a failure at any step stops the deletion there; a retry continues from it, and the data steps run once more right before the sign-in account goes",
        arguments: AccountDeletionStep.allCases.filter { $0 != .localData })
    func resumesFromTheFailedStep(step: AccountDeletionStep) async throws {
        let stack = try FakeStack()
        stack.failFirstCall(of: step)
        let error = await #expect(throws: AccountError.self) { try await stack.account.deleteAccount(of: stack.userID) }
        #expect(error?.step == step)
        let pending = try stack.account.pendingDeletion(of: stack.userID)
        if step == .appleRevocation {
            #expect(pending == nil, "nothing is journaled before the revocation succeeds")
        } else {
            #expect(pending?.nextStep == step)
            #expect(pending?.runningStep == nil)
        }
        let report = try await stack.account.deleteAccount(of: stack.userID)
        #expect(report.userID == stack.userID)
        let counts = stack.callCounts()
        for other in counts.keys {
            // The retry asks again for a recent sign-in and the Apple revocation before it
            // goes on; each data step runs once more right before the sign-in account goes,
            // in every attempt that gets there.
            let expected: Int
            switch other {
            case .appleRevocation: expected = 2
            case .authAccount: expected = step == .authAccount ? 2 : 1
            default: expected = 2 + (other == step ? 1 : 0) + (step == .authAccount ? 1 : 0)
            }
            #expect(counts[other] == expected, "\(other) ran \(counts[other] ?? 0) times")
        }
        #expect(try stack.account.pendingDeletion(of: stack.userID) == nil)
    }

    @Test("a deletion that stopped continues after a relaunch, from the journal in the file")
    func resumesAfterRelaunch() async throws {
        let stack = try FakeStack(file: true)
        stack.failFirstCall(of: .plans)
        await #expect(throws: AccountError(.deletionIncomplete)) { try await stack.account.deleteAccount(of: stack.userID) }
        let relaunched = try stack.makeAccount(file: true)
        #expect(try relaunched.pendingDeletion(of: stack.userID)?.finishedSteps == [.appleRevocation, .socialData])
        _ = try await relaunched.deleteAccount(of: stack.userID)
        #expect(stack.callCounts()[.socialData] == 2, "run once more before the sign-in account goes")
        #expect(stack.callCounts()[.plans] == 3, "failed, retried, and once more before the sign-in account goes")
        #expect(stack.callCounts()[.subscription] == 2)
    }

    @Test("a deletion cut short while the sign-in account was deleted is finished on the next launch, with nobody signed in")
    func finishesAfterAnInterruptedAuthStep() async throws {
        let stack = try FakeStack(file: true)
        let userID = stack.userID
        let running = await stack.deletionHeldInTheAuthStep()
        #expect(stack.auth.calls.last == .deleteAccount, "the app is killed while the sign-in account is deleted")
        stack.auth.setCurrentUser(nil)

        let relaunched = try stack.makeAccount(file: true)
        #expect(try relaunched.pendingDeletion(of: userID)?.runningStep == .authAccount)
        let reports = try await relaunched.finishInterruptedDeletions()
        #expect(reports.map(\.userID) == [userID])
        #expect(try relaunched.pendingDeletion(of: userID) == nil)
        await stack.abandon(running)
    }

    @Test(
        "a deletion cut short inside the sign-in account step whose user's session came back on the next launch kept its account: it is not declared finished after a sign-out"
    )
    func interruptedAuthStepWithTheAccountKept() async throws {
        let stack = try FakeStack(file: true)
        let userID = stack.userID
        let running = await stack.deletionHeldInTheAuthStep()
        #expect(stack.auth.calls.last == .deleteAccount, "the app is killed while the sign-in account is deleted")

        let relaunched = try stack.makeAccount(file: true) // the session is restored, so the account is there
        stack.auth.setCurrentUser(nil) // and the user signs out
        #expect(try await relaunched.finishInterruptedDeletions().isEmpty)
        let pending = try relaunched.pendingDeletion(of: userID)
        #expect(pending?.nextStep == .authAccount, "the deletion waits for its user")
        #expect(pending?.runningStep == nil, "a later launch does not take the account for deleted either")
        #expect(try await stack.makeAccount(file: true).finishInterruptedDeletions().isEmpty)
        await stack.abandon(running)
    }

    @Test("a journal that cannot be read does not stop the other interrupted deletions from finishing")
    func oneBadJournalStopsNoOther() async throws {
        let stack = try FakeStack(file: true)
        let userID = stack.userID
        let running = await stack.deletionHeldInTheAuthStep()
        stack.auth.setCurrentUser(nil)
        let store = try RecordStore(.file(stack.directory.file("account.sqlite")), schema: AccountRecords.schema)
        try store.write { records in
            for key in ["\u{0}broken", "zz-broken"] {
                try records.setData(Data("not a journal".utf8), forKey: key, in: AccountRecords.deletions)
            }
        }

        let relaunched = try stack.makeAccount(file: true)
        await #expect(throws: AccountError(.storage)) { try await relaunched.finishInterruptedDeletions() }
        #expect(try relaunched.pendingDeletion(of: userID) == nil, "the readable deletion finished all the same")
        await stack.abandon(running)
    }

    @Test("data the user made after a failed attempt is deleted when the deletion resumes, and the report counts both attempts")
    func resumeDeletesDataMadeSince() async throws {
        let remote = FakeRemotePlanStore.inMemory()
        let world = try AccountWorld(remote: remote)
        let ada = try await world.signIn()
        try await world.makeBusy()
        remote.partition()
        await #expect(throws: AccountError(.deletionIncomplete)) { try await world.account.deleteAccount(of: ada.id) }
        _ = try await world.social.unlockFeed(workoutType: .run)
        _ = try await world.social.createPost(content: "Posted after the failed deletion", workoutType: .run)
        remote.heal()
        let report = try await world.account.deleteAccount(of: ada.id)
        #expect(report.social.posts == 2, "one post from each attempt")
        #expect(report.plans.remoteRecords == 1, "the local plan went in the failed attempt, whose count its failure does not carry")

        try await world.signIn(AccountWorld.grace)
        #expect(try await world.social.discoverFeed(limit: 50).filter { $0.userID == ada.id }.isEmpty)
    }

    @Test("a deletion that failed before the sign-in account is not finished by another launch while its user is signed out")
    func unfinishedNeedsItsUser() async throws {
        let stack = try FakeStack(file: true)
        stack.failFirstCall(of: .authAccount)
        await #expect(throws: AccountError(.deletionIncomplete)) { try await stack.account.deleteAccount(of: stack.userID) }
        stack.auth.setCurrentUser(nil)
        #expect(try await stack.account.finishInterruptedDeletions().isEmpty)
        #expect(try stack.account.pendingDeletion(of: stack.userID)?.nextStep == .authAccount)
        stack.auth.setCurrentUser(FakeAuthService.sampleUser)
        _ = try await stack.account.deleteAccount(of: stack.userID)
        #expect(stack.callCounts()[.authAccount] == 2)
    }

    @Test("a second deletion while one runs is refused, and deleting another user's account is not allowed")
    func oneAtATimeAndOnlyYourOwn() async throws {
        let stack = try FakeStack()
        await #expect(throws: AccountError(.notAuthorized)) { try await stack.account.deleteAccount(of: "someone-else") }
        #expect(stack.auth.calls.isEmpty, "nothing was asked of any service")
        stack.social.controls.holdCalls()
        let account = stack.account
        let userID = stack.userID
        let first = Task { try await account.deleteAccount(of: userID) }
        await stack.social.controls.waitForHeldCalls()
        await #expect(throws: AccountError(.deletionInProgress)) { try await stack.account.deleteAccount(of: stack.userID) }
        stack.social.controls.releaseHeldCalls()
        #expect(try await first.value.userID == userID)
    }

    @Test("another user signing in mid-deletion stops it after the running step: no later step runs for them")
    func userSwitchStopsTheDeletion() async throws {
        let stack = try FakeStack()
        stack.social.controls.holdCalls()
        let account = stack.account
        let userID = stack.userID
        let running = Task { try await account.deleteAccount(of: userID) }
        await stack.social.controls.waitForHeldCalls()
        stack.auth.setCurrentUser(UserEntity(id: "grace", displayName: "Grace", createdAt: Date(), lastSignInAt: Date()))
        stack.social.controls.releaseHeldCalls()
        let result = await running.result
        #expect(throws: AccountError(.notSignedIn)) { try result.get() }
        #expect(stack.plans.calls.contains(.deleteAccountData) == false)
        #expect(stack.auth.calls.contains(.deleteAccount) == false)
        #expect(try stack.account.pendingDeletion(of: userID)?.nextStep == .socialData, "Ada's deletion waits for Ada")
    }

    @Test("progress reports each step starting and finishing, in order, up to all steps finished")
    func progress() async throws {
        let stack = try FakeStack()
        let events = stack.account.deletionProgress()
        _ = try await stack.account.deleteAccount(of: stack.userID)
        let steps = AccountDeletionStep.allCases
        let received = await events.collect(steps.count * 2)
        #expect(received.map(\.step) == steps.flatMap { [$0, $0] })
        #expect(received.map(\.phase) == steps.flatMap { _ in [AccountDeletionProgress.Phase.started, .finished] })
        #expect(received.last?.fractionCompleted == 1)
    }

    @Test("a deletion resumed hours later asks for a recent sign-in again before deleting anything more")
    func resumeNeedsRecentLogin() async throws {
        let remote = FakeRemotePlanStore.inMemory()
        let world = try AccountWorld(remote: remote)
        let ada = try await world.signIn()
        _ = try await world.plans.createPlan(TrainingPlan(name: "10k", startDate: world.clock.now, endDate: world.clock.now, daysPerWeek: 3))
        _ = try await world.plans.sync()
        remote.partition()
        await #expect(throws: AccountError(.deletionIncomplete)) { try await world.account.deleteAccount(of: ada.id) }
        remote.heal()
        world.clock.advance(by: .seconds(6 * 3_600))
        let error = await #expect(throws: AccountError(.requiresRecentLogin)) { try await world.account.deleteAccount(of: ada.id) }
        #expect(error?.step == .appleRevocation)
        #expect(try world.account.pendingDeletion(of: ada.id)?.nextStep == .plans, "nothing more ran")
    }

    @Test("an Apple authorization given after the revocation, also before a relaunch, is revoked again when the deletion resumes")
    func newAppleAuthorizationRevokedOnResume() async throws {
        let remote = FakeRemotePlanStore.inMemory()
        let world = try AccountWorld(.file, remote: remote)
        let ada = try await world.signIn()
        _ = try await world.plans.createPlan(TrainingPlan(name: "10k", startDate: world.clock.now, endDate: world.clock.now, daysPerWeek: 3))
        _ = try await world.plans.sync()
        remote.partition()
        await #expect(throws: AccountError(.deletionIncomplete)) { try await world.account.deleteAccount(of: ada.id) }
        #expect(world.apple.revocationsRecorded.count == 1)
        world.clock.setDate(world.clock.now.addingTimeInterval(-3_600)) // the clock set back does not matter
        world.apple.signIn(as: AccountWorld.ada)
        _ = try await world.auth.reauthenticate(with: try await world.auth.requestCredential(from: .apple))
        remote.heal()
        _ = try await world.account.deleteAccount(of: ada.id)
        #expect(world.apple.revocationsRecorded.count == 2, "the newer authorization was revoked too")
        #expect(try await world.apple.credentialState(forUserID: AccountWorld.ada.subject) != .authorized)
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
        #expect(auth.calls.isEmpty)
    }

    @Test("a revocation Apple's end failed is reported as a warning, and the deletion goes on")
    func revocationFailureWarns() async throws {
        let stack = try FakeStack()
        stack.auth.script(.revokeAppleToken, .returning(.failed(AuthenticationError(.networkError))))
        let report = try await stack.account.deleteAccount(of: stack.userID)
        #expect(report.warnings == [AccountDeletionReport.revocationWarning])
        guard case .failed = report.appleTokenRevocation else {
            Issue.record("the failure is in the report")
            return
        }
    }
}
