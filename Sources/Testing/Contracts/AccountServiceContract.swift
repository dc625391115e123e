import Foundation
import TrainAccount

/// What the ``AccountServiceContract`` needs from the conformance under test.
public protocol AccountServiceContractEnvironment: Sendable {
    /// Makes a service whose user is signed in with a recent sign-in (and, for Sign in
    /// with Apple, a fresh authorization), with some data in each service.
    /// - Returns: The service and the signed-in user's ID.
    func makeSignedInService() async throws -> (service: any AccountService, userID: String)
}

/// A check of the ``AccountServiceContract``.
public typealias AccountServiceContractCheck = ContractCheck<any AccountServiceContractEnvironment>

extension Expectations {
    func expectAccountError(_ code: AccountError.Code, _ what: String, _ body: () async throws -> Void) async throws {
        try await expectError(code, what, codeOf: { (error: AccountError) in error.code }, body)
    }
}

/// The public behavioural contract of `AccountService`: deletion of one's own account
/// only, with its progress and nothing left pending; a copy of one's own data only;
/// consents by the versions in force. TrainKit runs it against `LocalAccountService`
/// in memory and on disk and against `FakeAccountService`; an app runs it against its
/// own conformance, such as one that deletes through Firebase:
///
/// ```swift
/// @Test(arguments: AccountServiceContract.checks)
/// func accountContract(_ check: AccountServiceContractCheck) async throws {
///     try await check.run(in: MyFirebaseAccountEnvironment())
/// }
/// ```
public enum AccountServiceContract {
    /// Every check of the contract.
    public static let checks: [AccountServiceContractCheck] = [
        AccountServiceContractCheck(
            "another user's account cannot be deleted or exported, and nothing is left pending for anyone", covers: AccountDeletion.self,
            AccountPrivacy.self
        ) {
            environment, check in
            let (service, userID) = try await environment.makeSignedInService()
            let other = userID + "-other"
            try await check.expectAccountError(.notAuthorized, "deleting another user's account") { _ = try await service.deleteAccount(of: other) }
            try await check.expectAccountError(.notAuthorized, "exporting another user's data") { _ = try await service.exportData(of: other) }
            try check.expect(try service.pendingDeletion(of: other) == nil, "no deletion of the other user is pending")
            try check.expect(try service.pendingDeletion(of: userID) == nil, "no deletion of the user is pending")
        },
        AccountServiceContractCheck(
            "a deletion returns with the user's data no longer exportable, reports every step starting and finishing, in order, and its completion ends with nothing pending",
            covers: AccountDeletion.self
        ) {
            environment, check in
            let (service, userID) = try await environment.makeSignedInService()
            let progress = service.deletionProgress()
            let deletion = try await service.deleteAccount(of: userID)
            try check.expect(deletion.userID == userID && deletion.isImmediate, "the deletion names the user and is due at once")
            do {
                _ = try await service.exportData(of: userID)
                try check.expect(false, "the deleted user's data can still be exported")
            } catch is AccountError {}
            let report = try await service.deletionCompletion(of: userID)
            try check.expect(report.userID == userID, "the report names the user")
            let steps = AccountDeletionStep.allCases
            let events = await progress.collect(steps.count * 2, within: Expectations.streamWait)
            try check.expect(events.map(\.step) == steps.flatMap { [$0, $0] }, "each step is reported twice, in order: got \(events.map(\.step))")
            try check.expect(events.last?.phase == .finished && events.last?.fractionCompleted == 1, "the last event finishes the last step")
            try check.expect(try service.pendingDeletion(of: userID) == nil, "nothing is pending afterwards")
        },
        AccountServiceContractCheck(
            "with no deletion begun or due, nothing is pending and a purge of due deletions purges nothing", covers: AccountAdministration.self
        ) { environment, check in
            let (service, userID) = try await environment.makeSignedInService()
            try check.expect(try service.pendingDeletions().isEmpty, "no deletion is pending")
            let purged = try await service.purgeDueDeletions()
            try check.expect(purged.isEmpty, "nothing is purged: \(purged.map(\.userID))")
            let copy = try await service.exportData(of: userID)
            try check.expect(copy.user.id == userID, "the user's data is still there")
        },
        AccountServiceContractCheck("a copy of the user's data is a versioned document naming the user, and reads back", covers: AccountPrivacy.self)
        { environment, check in
            let (service, userID) = try await environment.makeSignedInService()
            let export = try await service.exportData(of: userID)
            try check.expect(export.user.id == userID, "the export names the user")
            try check.expect(export.formatVersion == AccountExport.currentFormatVersion, "the export has the current format version")
            let back = try AccountExport.decode(try export.jsonData())
            try check.expect(back.user.id == userID && back.formatVersion == export.formatVersion, "the JSON document reads back")
        },
        AccountServiceContractCheck(
            "consent: a version not in force is refused, accepting every document asks for nothing more, a withdrawal asks again",
            covers: AccountPrivacy.self
        ) {
            environment, check in
            let (service, _) = try await environment.makeSignedInService()
            try await check.expectAccountError(.unknownPolicyVersion, "accepting a version not in force") {
                _ = try await service.accept(.terms, version: Int.max)
            }
            try await check.expectAccountError(.noConsent, "withdrawing what was never accepted") {
                _ = try await service.withdrawConsent(to: .terms)
            }
            let needed = try service.documentsNeedingConsent()
            try check.expect(!needed.isEmpty, "a new user has documents to accept")
            for document in needed {
                var accepted = false
                for version in 1...100 where !accepted {
                    accepted = (try? await service.accept(document, version: version)) != nil
                }
                try check.expect(accepted, "the version in force of \(document) is accepted")
            }
            try check.expect(try service.documentsNeedingConsent().isEmpty, "nothing more to accept")
            _ = try await service.withdrawConsent(to: .terms)
            try check.expect(try service.documentsNeedingConsent() == [.terms], "a withdrawal asks for the terms again")
            try check.expect(try service.consentHistory().last?.action == .withdrawn, "the withdrawal is in the history")
        },
    ]
}
