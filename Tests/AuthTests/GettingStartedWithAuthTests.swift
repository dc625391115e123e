import Foundation
import Testing
import TrainAuth
import TrainCore
import TrainTesting

// The code of TrainAuth.docc/GettingStartedWithAuth.md, kept compiling and correct here.
// When you change one, change the other.

private func makeAuth(in directory: URL, clock: any DateClock) throws -> (LocalAuthService, SimulatedIdentityProvider) {
    let apple = SimulatedIdentityProvider(provider: .apple, audience: "com.example.train", clock: clock)
    apple.signIn(
        as: .init(
            subject: "001.ada", email: "ada@example.com",
            fullName: FullName(givenName: "Ada", familyName: "Lovelace")))
    let configuration = AuthConfiguration(apple: IdentityProviderConfiguration(authorizer: apple, audience: "com.example.train"))
    let auth = try LocalAuthService(
        storage: .file(directory.appendingPathComponent("auth.sqlite")), context: TrainContext(clock: clock), configuration: configuration)
    return (auth, apple)
}

private func signInThenDelete(auth: LocalAuthService) async throws -> AccountDeletionReceipt {
    let user = try await auth.signInWithApple()
    print("Signed in as \(user.displayName ?? user.id)")
    do {
        return try await auth.deleteAccount()
    } catch AuthenticationError.requiresRecentLogin {
        let credential = try await auth.requestCredential(from: .apple)
        _ = try await auth.reauthenticate(with: credential)
        return try await auth.deleteAccount()
    }
}

private func watchSession(auth: any AuthService) async {
    for await user in auth.authStateChanges() {
        print(user.map { "signed in: \($0.id)" } ?? "signed out")
    }
}

@Suite(.timeLimit(.minutes(1))) struct GettingStartedWithAuthTests {
    @Test("the article's sign-in and deletion run, revoking the Apple token")
    func article() async throws {
        let directory = try TemporaryDirectory()
        let (auth, apple) = try makeAuth(in: directory.url, clock: ManualClock())
        let receipt = try await signInThenDelete(auth: auth)
        #expect(receipt.tokenRevocation == .revoked)
        #expect(apple.revocationsRecorded.count == 1)
        #expect(auth.currentUser == nil)
        let watcher = Task { await watchSession(auth: auth) }
        watcher.cancel()
        await watcher.value
    }
}
