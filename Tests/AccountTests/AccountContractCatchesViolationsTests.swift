import Foundation
import Testing
import TrainAccount
import TrainAuth
import TrainTesting

/// An account service that deletes and exports whoever is named, reports no progress
/// and takes any policy version: what a naive "delete users/{id}" backend does.
final class CarelessAccountService: AccountService {
    private let inner = FakeServices().account
    private let userID = FakeAuthService.sampleUser.id

    func deletionProgress() -> AsyncStream<AccountDeletionProgress> { AsyncStream { $0.finish() } }
    func pendingDeletion(of userID: String) throws -> AccountDeletionJournal? { nil }
    func deleteAccount(of userID: String) async throws -> ScheduledAccountDeletion {
        ScheduledAccountDeletion(userID: userID, scheduledAt: Date(), purgeAt: Date(), appleTokenRevocation: .notApplicable)
    }
    func deletionCompletion(of userID: String) async throws -> AccountDeletionReport {
        AccountDeletionReport(userID: userID, startedAt: Date(), appleTokenRevocation: .notApplicable)
    }
    func exportData(of userID: String) async throws -> AccountExport { try await inner.exportData(of: userID) }
    func consentHistory() throws -> [ConsentRecord] { try inner.consentHistory() }
    func documentsNeedingConsent() throws -> [ConsentDocument] { try inner.documentsNeedingConsent() }
    func accept(_ document: ConsentDocument, version: Int) async throws -> ConsentRecord {
        ConsentRecord(document: document, version: version, action: .accepted, date: Date())
    }
    func withdrawConsent(to document: ConsentDocument) async throws -> ConsentRecord { try await inner.withdrawConsent(to: document) }
    func scheduleDeletion(of userID: String) async throws -> ScheduledAccountDeletion { try await inner.scheduleDeletion(of: userID) }
    func scheduledDeletion() throws -> ScheduledAccountDeletion? { try inner.scheduledDeletion() }
    func restoreAccount() async throws { try await inner.restoreAccount() }
    func purgeDueDeletions() async throws -> [AccountDeletionReport] { try await inner.purgeDueDeletions() }
}

struct CarelessAccountEnvironment: AccountServiceContractEnvironment {
    func makeSignedInService() async throws -> (service: any AccountService, userID: String) {
        (CarelessAccountService(), FakeAuthService.sampleUser.id)
    }
}

@Suite struct AccountContractCatchesViolationsTests {
    @Test("a service that deletes whoever is named, reports no progress and takes any version breaks the other-user, deletion and consent checks")
    func careless() async throws {
        // Its export and its administration are its inner service's, and keep the contract.
        let kept = AccountServiceContract.checks.filter { $0.name.hasPrefix("a copy of the user's data") || $0.covers(AccountAdministration.self) }
        let broken = AccountServiceContract.checks.filter { check in !kept.contains { $0.name == check.name } }
        #expect(kept.count == 2 && broken.count == AccountServiceContract.checks.count - 2)
        for check in broken {
            await #expect(throws: ContractViolation.self, "\(check.name)") { try await check.run(in: CarelessAccountEnvironment()) }
        }
        for check in kept { try await check.run(in: CarelessAccountEnvironment()) }
    }
}
