import Foundation
import Testing
import TrainAccount
import TrainTesting

@Suite(.timeLimit(.minutes(1))) struct FakeAccountServiceTests {
    @Test("a deletion reports each step, returns the user's report, and afterwards the user is gone")
    func deletion() async throws {
        let account = FakeAccountService(userID: "ada")
        let progress = account.deletionProgress()
        let report = try await account.deleteAccount(of: "ada")
        #expect(report.userID == "ada")
        #expect(await progress.collect(AccountDeletionStep.allCases.count * 2).last?.fractionCompleted == 1)
        await #expect(throws: AccountError(.notSignedIn)) { _ = try await account.exportData(of: "ada") }
        #expect(account.calls == [.deletionProgress, .deleteAccount("ada"), .exportData("ada")])
    }

    @Test("a scripted error is what a view model sees, and a pending deletion can be set")
    func scripted() async throws {
        let account = FakeAccountService(userID: "ada")
        account.script(.deleteAccount, .throwing(AccountError(.requiresRecentLogin)))
        await #expect(throws: AccountError(.requiresRecentLogin)) { _ = try await account.deleteAccount(of: "ada") }
        let journal = AccountDeletionJournal(
            finishedSteps: [.appleRevocation],
            report: AccountDeletionReport(userID: "ada", startedAt: ManualClock.defaultStart, appleTokenRevocation: .revoked))
        account.setPendingDeletion(journal)
        #expect(try account.pendingDeletion(of: "ada")?.nextStep == .socialData)
        #expect(try account.pendingDeletion(of: "grace") == nil)
    }

    @Test("consents follow the versions given, and the strict fake fails an unscripted call")
    func consents() async throws {
        let account = FakeAccountService(userID: "ada", policies: ConsentPolicies(privacyPolicy: 3, terms: 2))
        await #expect(throws: AccountError(.unknownPolicyVersion)) { try await account.accept(.privacyPolicy, version: 1) }
        try await account.accept(.privacyPolicy, version: 3)
        #expect(try account.documentsNeedingConsent() == [.terms])
        let strict = FakeAccountService(userID: "ada", strict: true)
        await withKnownIssue {
            await #expect(throws: FakeError.self) { _ = try await strict.deleteAccount(of: "ada") }
        } matching: {
            FakeIssue.isUnscriptedCall($0, "FakeAccountService.deleteAccount(of:)")
        }
    }
}
