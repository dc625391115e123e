import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainAuth

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
        await #expect(throws: AuthenticationError(.providerAlreadyLinked)) {
            _ = try await harness.service.link(try await harness.appleCredential(for: AuthHarness.grace))
        }
    }

    @Test("linking a credential of another account is credentialAlreadyInUse and changes nothing")
    func alreadyInUse() async throws {
        let harness = try AuthHarness()
        harness.google.signIn(as: AuthHarness.grace)
        let grace = try await harness.service.signInWithGoogle()
        try await harness.service.signOut()
        let ada = try await harness.signInWithApple()
        await #expect(throws: AuthenticationError(.credentialAlreadyInUse)) {
            _ = try await harness.service.link(try await harness.service.requestCredential(from: .google))
        }
        #expect(harness.service.currentUser?.providers.map(\.provider) == [.apple])
        try await harness.service.signOut()
        #expect(try await harness.service.signInWithGoogle().id == grace.id)
        #expect(grace.id != ada.id)
    }

    @Test("the last provider cannot be unlinked, and one that is not linked is noSuchProvider")
    func unlinkRules() async throws {
        let harness = try AuthHarness()
        try await harness.signInWithApple()
        await #expect(throws: AuthenticationError(.lastProvider)) { _ = try await harness.service.unlink(.apple) }
        await #expect(throws: AuthenticationError(.noSuchProvider)) { _ = try await harness.service.unlink(.google) }
        _ = try await harness.service.link(.emailPassword(email: "ada@example.com", password: "correct horse 1"))
        let user = try await harness.service.unlink(.password)
        #expect(user.providers.map(\.provider) == [.apple])
        try await harness.service.signOut()
        await #expect(throws: AuthenticationError(.invalidCredential)) {
            _ = try await harness.service.signIn(with: .emailPassword(email: "ada@example.com", password: "correct horse 1"))
        }
    }

    @Test("changing the email moves the password sign-in to the new address")
    func updateEmail() async throws {
        let harness = try AuthHarness()
        _ = try await harness.service.createUser(email: "ada@example.com", password: "correct horse 1")
        await #expect(throws: AuthenticationError(.invalidEmail)) { _ = try await harness.service.updateEmail(to: "not an email") }
        let user = try await harness.service.updateEmail(to: "ada@new.example")
        #expect(user.email == "ada@new.example")
        try await harness.service.signOut()
        #expect(try await harness.service.signIn(with: .emailPassword(email: "ada@new.example", password: "correct horse 1")).id == user.id)
    }
}
