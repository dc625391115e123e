import Foundation
import Testing
@testable import TrainAuth
import TrainCore
import TrainTesting

/// AUTH-3 (linking), AUTH-4 (recent login), AUTH-7, AUTH-8 and deletion.
@Suite(.timeLimit(.minutes(1))) struct LinkingTests {
    @Test("linking Google and a password to an Apple account lets each sign in to it", arguments: AuthVariant.allCases)
    func linkAndSignIn(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let user = try await harness.signInWithApple()
        harness.google.signIn(as: AuthHarness.ada)
        _ = try await harness.service.link(try await harness.service.requestCredential(from: .google))
        let linked = try await harness.service.link(.emailPassword(email: "ada@work.example", password: "correct horse 1"))
        #expect(linked.providers.map(\.provider) == [.apple, .google, .password])
        try await harness.service.signOut()
        #expect(try await harness.service.signIn(with: .emailPassword(email: "ada@work.example", password: "correct horse 1")).id == user.id)
        try await harness.service.signOut()
        #expect(try await harness.service.signInWithGoogle().id == user.id)
    }

    @Test("linking a provider the account has is providerAlreadyLinked")
    func alreadyLinked() async throws {
        let harness = try AuthHarness()
        try await harness.signInWithApple()
        await #expect(throws: AuthError(.providerAlreadyLinked)) { _ = try await harness.service.link(try await harness.appleCredential(for: AuthHarness.grace)) }
    }

    @Test("linking a credential of another account is credentialAlreadyInUse and changes nothing")
    func alreadyInUse() async throws {
        let harness = try AuthHarness()
        harness.google.signIn(as: AuthHarness.grace)
        let grace = try await harness.service.signInWithGoogle()
        try await harness.service.signOut()
        let ada = try await harness.signInWithApple()
        await #expect(throws: AuthError(.credentialAlreadyInUse)) { _ = try await harness.service.link(try await harness.service.requestCredential(from: .google)) }
        #expect(harness.service.currentUser?.providers.map(\.provider) == [.apple])
        try await harness.service.signOut()
        #expect(try await harness.service.signInWithGoogle().id == grace.id)
        #expect(grace.id != ada.id)
    }

    @Test("the last provider cannot be unlinked, and one that is not linked is noSuchProvider")
    func unlinkRules() async throws {
        let harness = try AuthHarness()
        try await harness.signInWithApple()
        await #expect(throws: AuthError(.lastProvider)) { _ = try await harness.service.unlink(.apple) }
        await #expect(throws: AuthError(.noSuchProvider)) { _ = try await harness.service.unlink(.google) }
        _ = try await harness.service.link(.emailPassword(email: "ada@example.com", password: "correct horse 1"))
        let user = try await harness.service.unlink(.password)
        #expect(user.providers.map(\.provider) == [.apple])
        try await harness.service.signOut()
        await #expect(throws: AuthError(.userNotFound)) { _ = try await harness.service.signIn(with: .emailPassword(email: "ada@example.com", password: "correct horse 1")) }
    }

    @Test("changing the email moves the password sign-in to the new address")
    func updateEmail() async throws {
        let harness = try AuthHarness()
        _ = try await harness.service.createUser(email: "ada@example.com", password: "correct horse 1")
        await #expect(throws: AuthError(.invalidEmail)) { _ = try await harness.service.updateEmail(to: "not an email") }
        let user = try await harness.service.updateEmail(to: "ada@new.example")
        #expect(user.email == "ada@new.example")
        try await harness.service.signOut()
        #expect(try await harness.service.signIn(with: .emailPassword(email: "ada@new.example", password: "correct horse 1")).id == user.id)
    }
}

@Suite(.timeLimit(.minutes(1))) struct RecentLoginTests {
    /// The three gated operations, each run on a freshly signed-in account with two providers.
    enum Gated: String, CaseIterable, CustomStringConvertible {
        case deleteAccount, unlink, updateEmail
        var description: String { rawValue }

        func run(on service: LocalAuthService) async throws {
            switch self {
            case .deleteAccount: _ = try await service.deleteAccount()
            case .unlink: _ = try await service.unlink(.password)
            case .updateEmail: _ = try await service.updateEmail(to: "ada@new.example")
            }
        }
    }

    static func signedIn() async throws -> AuthHarness {
        let harness = try AuthHarness()
        try await harness.signInWithApple()
        _ = try await harness.service.link(.emailPassword(email: "ada@example.com", password: "correct horse 1"))
        return harness
    }

    @Test("299 and 300 seconds after sign-in are fresh; 301 is requiresRecentLogin", arguments: Gated.allCases)
    func boundary(operation: Gated) async throws {
        for (seconds, fresh) in [(299, true), (300, true), (301, false)] {
            let harness = try await Self.signedIn()
            harness.clock.advance(by: .seconds(seconds))
            if fresh {
                try await operation.run(on: harness.service)
            } else {
                await #expect(throws: AuthError(.requiresRecentLogin), "\(operation) at \(seconds) s") {
                    try await operation.run(on: harness.service)
                }
                #expect(harness.service.currentUser?.providers.count == 2, "nothing changed")
            }
        }
    }

    @Test("re-authenticating resets the window")
    func reauthenticationResets() async throws {
        let harness = try await Self.signedIn()
        harness.clock.advance(by: .seconds(3600))
        await #expect(throws: AuthError(.requiresRecentLogin)) { _ = try await harness.service.deleteAccount() }
        let user = try await harness.service.reauthenticate(with: try await harness.appleCredential())
        #expect(user.lastSignInAt == harness.clock.now)
        harness.clock.advance(by: .seconds(300))
        #expect(try await harness.service.deleteAccount().userID == user.id)
    }

    @Test("re-authenticating with another user's credential is userMismatch and keeps the current user signed in")
    func userMismatch() async throws {
        let harness = try await Self.signedIn()
        let ada = try #require(harness.service.currentUser)
        harness.clock.advance(by: .seconds(600))
        await #expect(throws: AuthError(.userMismatch)) { _ = try await harness.service.reauthenticate(with: try await harness.appleCredential(for: AuthHarness.grace)) }
        #expect(harness.service.currentUser == ada)
        await #expect(throws: AuthError(.requiresRecentLogin), "the window was not reset") { _ = try await harness.service.deleteAccount() }
    }

    @Test("the window is a policy value")
    func configurableWindow() async throws {
        let harness = try AuthHarness(policy: AuthPolicy(recentLoginWindow: .seconds(60), passwordIterations: 1_000))
        try await harness.signInWithApple()
        harness.clock.advance(by: .seconds(61))
        await #expect(throws: AuthError(.requiresRecentLogin)) { _ = try await harness.service.deleteAccount() }
    }
}

@Suite(.timeLimit(.minutes(1))) struct SessionTests {
    @Test("AUTH-8: the file-backed service remembers the session across launches")
    func remembered() async throws {
        let harness = try AuthHarness(.file)
        let user = try await harness.signInWithApple()
        let relaunched = try harness.relaunch()
        #expect(relaunched.currentUser == user)
        try await relaunched.signOut()
        #expect(try harness.relaunch().currentUser == nil)
    }

    @Test("AUTH-8: an account disabled or deleted by the time of launch is signed out")
    func staleSessionAtLaunch() async throws {
        let harness = try AuthHarness(.file)
        let user = try await harness.signInWithApple()
        // Another process (a second service on the same file) disables the account.
        let other = try harness.makeService()
        try await other.setAccountDisabled(true, userID: user.id)
        #expect(try harness.relaunch().currentUser == nil)

        try await other.setAccountDisabled(false, userID: user.id)
        let again = try await harness.signInWithApple()
        let third = try harness.makeService()
        _ = try await third.deleteAccount()
        #expect(again.id == user.id)
        #expect(try harness.relaunch().currentUser == nil)
    }

    @Test("AUTH-7: signing out uses no provider and works while the provider is unreachable")
    func signOutIsLocal() async throws {
        let harness = try AuthHarness()
        try await harness.signInWithApple()
        let before = harness.apple.calls
        harness.apple.failNextAuthorization(with: AuthError(.networkError))
        try await harness.service.signOut()
        #expect(harness.service.currentUser == nil)
        #expect(harness.apple.calls == before)
    }

    @Test("a signed-out session is refused everywhere", arguments: [true, false])
    func refusedAfterSignOut(deleted: Bool) async throws {
        let harness = try AuthHarness()
        try await harness.signInWithApple()
        if deleted { _ = try await harness.service.deleteAccount() } else { try await harness.service.signOut() }
        let service = harness.service
        let credential = try await harness.appleCredential()
        await #expect(throws: AuthError(.notSignedIn)) { _ = try await service.reauthenticate(with: credential) }
        await #expect(throws: AuthError(.notSignedIn)) { _ = try await service.link(.emailPassword(email: "a@b.co", password: "correct horse 1")) }
        await #expect(throws: AuthError(.notSignedIn)) { _ = try await service.unlink(.apple) }
        await #expect(throws: AuthError(.notSignedIn)) { _ = try await service.updateEmail(to: "a@b.co") }
        await #expect(throws: AuthError(.notSignedIn)) { _ = try await service.deleteAccount() }
        await #expect(throws: AuthError(.notSignedIn)) { _ = try await service.checkCredentialState() }
        await #expect(throws: AuthError(.notSignedIn)) { _ = try await service.isBiometricLockEnabled() }
        await #expect(throws: AuthError(.notSignedIn)) { try await service.setBiometricLock(enabled: true, reason: "r") }
    }
}

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
