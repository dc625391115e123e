import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainAuth

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

    @Test("a revocation that fails at Apple's end is reported, and the account is deleted all the same")
    func revocationFailure() async throws {
        let harness = try AuthHarness()
        let user = try await harness.signInWithApple()
        harness.apple.failNextRevocation(with: AuthenticationError(.networkError))
        let receipt = try await harness.service.deleteAccount()
        #expect(receipt.tokenRevocation == .failed(AuthenticationError(.networkError)))
        #expect(harness.service.currentUser == nil)
        let again = try await harness.signInWithApple()
        #expect(again.id != user.id, "the account is gone")
    }

    @Test("without a usable Apple authorization code (after a relaunch), deletion asks for re-authentication with Apple and keeps the account")
    func noCodeAfterRelaunch() async throws {
        let harness = try AuthHarness(.file)
        let user = try await harness.signInWithApple()
        let relaunched = try harness.relaunch()
        let error = await #expect(throws: AuthenticationError(.requiresAppleReauthentication)) { _ = try await relaunched.deleteAccount() }
        #expect(error?.errorDescription?.contains("Sign in with Apple") == true)
        #expect(harness.apple.revocationsRecorded.isEmpty)
        #expect(relaunched.currentUser?.id == user.id, "nothing was deleted")
        _ = try await relaunched.reauthenticate(with: try await harness.appleCredential())
        let receipt = try await relaunched.deleteAccount()
        #expect(receipt.tokenRevocation == .revoked)
        #expect(harness.apple.revocationsRecorded.map(\.userID) == [AuthHarness.ada.subject])
    }

    @Test("an authorization code older than Apple's five minutes is not used: deletion asks for re-authentication with Apple")
    func expiredCode() async throws {
        let harness = try AuthHarness(policy: AuthPolicy(recentLoginWindow: .seconds(600), passwordIterations: 1_000))
        try await harness.signInWithApple()
        harness.clock.advance(by: .seconds(301))
        await #expect(throws: AuthenticationError(.requiresAppleReauthentication)) { _ = try await harness.service.deleteAccount() }
        #expect(harness.apple.calls.contains(.revokeToken) == false, "Apple was not asked with a stale code")
        _ = try await harness.service.reauthenticate(with: try await harness.appleCredential())
        #expect(try await harness.service.deleteAccount().tokenRevocation == .revoked)
    }

    @Test("an email account's deletion has no token to revoke")
    func deleteEmail() async throws {
        let harness = try AuthHarness()
        let user = try await harness.service.createUser(email: "ada@example.com", password: "correct horse 1")
        #expect(try await harness.service.deleteAccount().tokenRevocation == .notApplicable)
        await #expect(throws: AuthenticationError(.invalidCredential)) {
            _ = try await harness.service.signIn(with: .emailPassword(email: "ada@example.com", password: "correct horse 1"))
        }
        #expect(!user.id.isEmpty)
    }

    @Test(
        "revoking ahead of deletion is kept: after a relaunch the deletion does not ask Apple again, and needs no new code",
        arguments: AuthVariant.allCases)
    func revocationKept(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let user = try await harness.signInWithApple()
        #expect(try await harness.service.revokeAppleToken() == .revoked)
        #expect(try await harness.service.revokeAppleToken() == .revoked, "a second call is answered from what was kept")
        let service = variant == .file ? try harness.relaunch() : harness.service
        let receipt = try await service.deleteAccount()
        #expect(receipt == AccountDeletionReceipt(userID: user.id, providers: [.apple], tokenRevocation: .revoked))
        #expect(harness.apple.revocationsRecorded.count == 1, "Apple was asked once")
    }

    @Test("an Apple sign-in after the revocation makes new tokens, which the deletion revokes again")
    func newAuthorizationRevokedAgain() async throws {
        let harness = try AuthHarness()
        try await harness.signInWithApple()
        harness.apple.failNextRevocation(with: AuthenticationError(.networkError))
        #expect(try await harness.service.revokeAppleToken() == .failed(AuthenticationError(.networkError)))
        harness.clock.advance(by: .seconds(1))
        _ = try await harness.service.reauthenticate(with: try await harness.appleCredential())
        #expect(try await harness.service.deleteAccount().tokenRevocation == .revoked)
        #expect(harness.apple.revocationsRecorded.count == 1, "the failed attempt recorded nothing; the second revoked")
    }

    @Test("revoking needs a recent login for every account, and without an Apple code asks for re-authentication, changing nothing")
    func revocationNeedsRecentLogin() async throws {
        let harness = try AuthHarness()
        _ = try await harness.service.createUser(email: "ada@example.com", password: "correct horse 1")
        #expect(try await harness.service.revokeAppleToken() == .notApplicable)
        harness.clock.advance(by: .seconds(3_600))
        await #expect(throws: AuthenticationError(.requiresRecentLogin)) { _ = try await harness.service.revokeAppleToken() }

        let apple = try AuthHarness(.file)
        try await apple.signInWithApple()
        let relaunched = try apple.relaunch()
        await #expect(throws: AuthenticationError(.requiresAppleReauthentication)) { _ = try await relaunched.revokeAppleToken() }
        #expect(apple.apple.revocationsRecorded.isEmpty)
    }
}
