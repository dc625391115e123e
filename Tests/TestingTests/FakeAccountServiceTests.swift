import Foundation
import Testing
import TrainAccount
import TrainAuth
import TrainSync
import TrainTesting

@Suite(.timeLimit(.minutes(1))) struct FakeAccountServiceTests {
    static let report = AccountDeletionReport(
        userID: FakeAuthService.sampleUser.id, startedAt: ManualClock.defaultStart, appleTokenRevocation: .revoked)
    static let deletion = ScheduledAccountDeletion(
        userID: FakeAuthService.sampleUser.id, scheduledAt: ManualClock.defaultStart, purgeAt: ManualClock.defaultStart,
        appleTokenRevocation: .revoked)

    @Test("a scripted deletion signs out the auth fake it was given, and its scripted completion reports each step of the purge")
    func deletion() async throws {
        let auth = FakeAuthService(currentUser: FakeAuthService.sampleUser)
        let account = FakeAccountService(auth: auth)
        account.script(.deleteAccount, .returning(Self.deletion))
        account.script(.deletionCompletion, .returning(Self.report))
        let progress = account.deletionProgress()
        let deletion = try await account.deleteAccount(of: FakeAuthService.sampleUser.id)
        #expect(deletion == Self.deletion && deletion.isImmediate)
        #expect(auth.currentUser == nil, "the fake deletion signed the fake auth out")
        #expect(try await account.deletionCompletion(of: deletion.userID) == Self.report)
        #expect(await progress.collect(AccountDeletionStep.allCases.count * 2).last?.fractionCompleted == 1)
        #expect(
            account.calls == [
                .deletionProgress(), .deleteAccount(FakeAuthService.sampleUser.id), .deletionCompletion(FakeAuthService.sampleUser.id),
            ])
    }

    @Test("a scripted error is what a view model sees, leaves the user signed in, and a pending deletion can be set")
    func scripted() async throws {
        let auth = FakeAuthService(currentUser: FakeAuthService.sampleUser)
        let account = FakeAccountService(auth: auth)
        account.script(.deleteAccount, .throwing(AccountError(.requiresRecentLogin)))
        await #expect(throws: AccountError(.requiresRecentLogin)) { _ = try await account.deleteAccount(of: "ada") }
        #expect(auth.currentUser == FakeAuthService.sampleUser)
        let journal = AccountDeletionJournal(deletion: Self.deletion, finishedSteps: [.appleRevocation], report: Self.report)
        account.setPendingDeletion(journal)
        #expect(try account.pendingDeletion(of: FakeAuthService.sampleUser.id)?.nextStep == .socialData)
        #expect(try account.pendingDeletion(of: "grace") == nil)
    }

    @Test("scripted consents are kept and count against the versions given; an unscripted call fails the test")
    func consents() async throws {
        let account = FakeAccountService(policies: ConsentPolicies(privacyPolicy: 3, terms: 2))
        account.script(
            .accept, .once(.success(ConsentRecord(document: .privacyPolicy, version: 3, action: .accepted, date: ManualClock.defaultStart))))
        try await account.accept(.privacyPolicy, version: 3)
        #expect(try account.documentsNeedingConsent() == [.terms])
        await withKnownIssue {
            await #expect(throws: FakeError.self) { _ = try await account.deleteAccount(of: "ada") }
        } matching: {
            FakeIssue.isUnscriptedCall($0, "FakeAccountService.deleteAccount(of:)")
        }
    }

    @Test("wired together over one stack, the fakes agree: one user, and a deletion through the account fake signs the auth fake out")
    func wiredFakesAgree() async throws {
        let fakes = FakeServices()
        let user = try #require(fakes.auth.currentUser)
        #expect(user == FakeAuthService.sampleUser)
        _ = try await fakes.social.unlockFeed(workoutType: .run)
        let post = try await fakes.social.createPost(content: "Easy run", workoutType: .run)
        #expect(post.userID == user.id)
        _ = try await fakes.plans.createPlan(
            TrainingPlan(
                name: "10k", startDate: ManualClock.defaultStart, endDate: ManualClock.defaultStart.addingTimeInterval(86_400), daysPerWeek: 3))
        let export = try await fakes.account.exportData(of: user.id)
        #expect(export.user.id == user.id && export.social.posts.map(\.id) == [post.id] && export.plans.count == 1)
        fakes.services.appleID.signIn(as: .init(subject: "000001.fake", email: "ada@example.com"))
        _ = try await fakes.auth.reauthenticate(with: try await fakes.auth.requestCredential(from: .apple))
        try await fakes.account.deleteAccount(of: user.id)
        #expect(fakes.auth.currentUser == nil)
        let report = try await fakes.account.deletionCompletion(of: user.id)
        #expect(report.userID == user.id && report.social.posts == 1)
        #expect(fakes.finish().isEmpty)
    }
}
