import Foundation
import Testing
@testable import TrainAuth
import TrainCore
import TrainTesting

@Suite(.timeLimit(.minutes(1))) struct DeletionTests {
    @Test("deleting an Apple account revokes its token, frees its identities, and signs out", arguments: AuthVariant.allCases)
    func deleteApple(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let user = try await harness.signInWithApple()
        let receipt = try await harness.service.deleteAccount()
        #expect(receipt == AccountDeletionReceipt(userID: user.id, providers: [.apple], tokenRevocation: .revoked))
        #expect(harness.apple.revocationsRecorded.map(\.userID) == [AuthHarness.ada.subject])
        #expect(harness.service.currentUser == nil)
        let again = try await harness.signInWithApple()
        #expect(again.id != user.id, "the same Apple ID now makes a new account")
        #expect(again.displayName == "Ada Lovelace", "after revocation Apple shares the name again")
    }

    @Test("a failed token revocation is reported and the account is deleted all the same")
    func revocationFailure() async throws {
        let harness = try AuthHarness(policy: AuthPolicy(recentLoginWindow: .seconds(600), passwordIterations: 1_000))
        let user = try await harness.signInWithApple()
        harness.clock.advance(by: .seconds(400))   // Apple's authorization code lives 5 minutes
        let receipt = try await harness.service.deleteAccount()
        guard case .failed(let error) = receipt.tokenRevocation else {
            Issue.record("expected a failed revocation, got \(receipt.tokenRevocation)")
            return
        }
        #expect(error.code == .invalidCredential)
        #expect(harness.service.currentUser == nil)
        let again = try await harness.signInWithApple()
        #expect(again.id != user.id, "the account is gone")
    }

    @Test("after a relaunch there is no authorization code to revoke with, and the receipt says so")
    func noCodeAfterRelaunch() async throws {
        let harness = try AuthHarness(.file)
        try await harness.signInWithApple()
        let receipt = try await harness.relaunch().deleteAccount()
        guard case .failed(let error) = receipt.tokenRevocation else {
            Issue.record("expected a failed revocation")
            return
        }
        #expect(error.detail.contains("re-authenticate with Apple"))
        #expect(harness.apple.revocationsRecorded.isEmpty)
    }

    @Test("an email account's deletion has no token to revoke")
    func deleteEmail() async throws {
        let harness = try AuthHarness()
        let user = try await harness.service.createUser(email: "ada@example.com", password: "correct horse 1")
        #expect(try await harness.service.deleteAccount().tokenRevocation == .notApplicable)
        await #expect(throws: AuthError(.userNotFound)) { _ = try await harness.service.signIn(with: .emailPassword(email: "ada@example.com", password: "correct horse 1")) }
        #expect(!user.id.isEmpty)
    }
}
