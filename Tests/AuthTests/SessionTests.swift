import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainAuth

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

    @Test("a service made signed in, for previews, has the account, its identities and its email, and signs out like any other")
    func signedInForPreviews() async throws {
        let harness = try AuthHarness()
        let ada = UserEntity(
            id: "preview-ada", email: "ada@example.com", displayName: "Ada",
            providers: [LinkedProvider(provider: .apple, subject: AuthHarness.ada.subject, email: "ada@example.com", linkedAt: harness.clock.now)],
            createdAt: harness.clock.now, lastSignInAt: harness.clock.now)
        let service = LocalAuthService(signedIn: ada, context: harness.context, configuration: harness.configuration)
        #expect(service.currentUser == ada)
        #expect(try await service.isBiometricLockEnabled() == false, "the account exists")
        try await service.signOut()
        harness.apple.signIn(as: AuthHarness.ada)
        #expect(try await service.signInWithApple().id == "preview-ada", "the Apple identity leads to the same account")
        await #expect(throws: AuthenticationError(.emailAlreadyInUse)) {
            _ = try await service.createUser(email: "ada@example.com", password: "correct horse 1")
        }
        let refused = LocalAuthService(signedIn: UserEntity(id: "", createdAt: harness.clock.now, lastSignInAt: harness.clock.now))
        #expect(refused.currentUser == nil)
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
        _ = try await third.reauthenticate(with: try await third.requestCredential(from: .apple))
        _ = try await third.deleteAccount()
        #expect(again.id == user.id)
        #expect(try harness.relaunch().currentUser == nil)
    }

    @Test("AUTH-7: signing out uses no provider and works while the provider is unreachable")
    func signOutIsLocal() async throws {
        let harness = try AuthHarness()
        try await harness.signInWithApple()
        let before = harness.apple.calls
        harness.apple.failNextAuthorization(with: AuthenticationError(.networkError))
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
        await #expect(throws: AuthenticationError(.notSignedIn)) { _ = try await service.reauthenticate(with: credential) }
        await #expect(throws: AuthenticationError(.notSignedIn)) {
            _ = try await service.link(.emailPassword(email: "a@b.co", password: "correct horse 1"))
        }
        await #expect(throws: AuthenticationError(.notSignedIn)) { _ = try await service.unlink(.apple) }
        await #expect(throws: AuthenticationError(.notSignedIn)) { _ = try await service.updateEmail(to: "a@b.co") }
        await #expect(throws: AuthenticationError(.notSignedIn)) { _ = try await service.deleteAccount() }
        await #expect(throws: AuthenticationError(.notSignedIn)) { _ = try await service.checkCredentialState() }
        await #expect(throws: AuthenticationError(.notSignedIn)) { _ = try await service.isBiometricLockEnabled() }
        await #expect(throws: AuthenticationError(.notSignedIn)) { try await service.setBiometricLock(enabled: true, reason: "r") }
    }
}
