import Foundation
import Testing
import TrainAuth
import TrainCore
import TrainTesting

// The code of TrainAuth.docc/EmailGuestsAndTokens.md, kept compiling and passing here.
// When you change one, change the other.

@Suite(.timeLimit(.minutes(1))) struct EmailGuestsAndTokensArticleTests {
    @Test("the article's password reset runs as written")
    func reset() async throws {
        let clock = ManualClock()
        let mailbox = SimulatedMailbox()
        let auth = LocalAuthService(context: TrainContext(clock: clock), configuration: AuthConfiguration(emailSender: mailbox))
        _ = try await auth.createUser(email: "ada@example.com", password: "correct horse 1")
        try await auth.signOut()

        try await auth.sendPasswordReset(email: "ada@example.com")
        let code = try #require(mailbox.lastCode(for: "ada@example.com", .passwordReset))
        try await auth.confirmPasswordReset(code: code, newPassword: "a new horse 2")

        #expect(try await auth.signIn(with: .emailPassword(email: "ada@example.com", password: "a new horse 2")).isEmailVerified)
    }

    @Test("the article's look at a code before using it runs as written")
    func inspection() async throws {
        let mailbox = SimulatedMailbox()
        let auth = LocalAuthService(
            context: TrainContext(clock: ManualClock()),
            configuration: AuthConfiguration(emailSender: mailbox, policy: AuthPolicy(passwordIterations: 1_000)))
        _ = try await auth.createUser(email: "ada@example.com", password: "correct horse 1")
        try await auth.sendPasswordReset(email: "ada@example.com")
        let code = try #require(mailbox.lastCode(for: "ada@example.com", .passwordReset))
        var shown = ""
        func showNewPasswordForm(for email: String) { shown = "a new password for \(email)" }
        func showSendAgain() { shown = "send again" }
        func showAlreadyUsed() { shown = "already used" }

        let info = try await auth.checkActionCode(code)
        switch info.state {
        case .valid: showNewPasswordForm(for: info.email)
        case .expired: showSendAgain()
        case .used, .revoked: showAlreadyUsed()
        }

        #expect(shown == "a new password for ada@example.com")
    }

    @Test("the article's undoing of an address change runs as written")
    func recovery() async throws {
        let mailbox = SimulatedMailbox()
        let auth = LocalAuthService(
            context: TrainContext(clock: ManualClock()),
            configuration: AuthConfiguration(emailSender: mailbox, policy: AuthPolicy(passwordIterations: 1_000)))
        _ = try await auth.createUser(email: "ada@example.com", password: "correct horse 1")

        _ = try await auth.updateEmail(to: "someone@example.com") // a stolen session
        let notice = try #require(mailbox.lastEmail(to: "ada@example.com", .recoverEmail))
        let undone = try await auth.applyActionCode(notice.code) // the owner
        if undone.suggestsPasswordReset { try await auth.sendPasswordReset(email: "ada@example.com") }

        #expect(auth.currentUser?.email == "ada@example.com" && auth.currentUser?.isEmailVerified == true)
        #expect(mailbox.lastCode(for: "ada@example.com", .passwordReset) != nil)
    }

    @Test("the article's switch from a guest to the account a credential belongs to runs as written")
    func switching() async throws {
        let clock = ManualClock()
        let apple = SimulatedIdentityProvider(provider: .apple, audience: "com.example.train", clock: clock)
        let auth = LocalAuthService(
            context: TrainContext(clock: clock),
            configuration: AuthConfiguration(
                apple: IdentityProviderConfiguration(authorizer: apple, audience: "com.example.train"), policy: AuthPolicy(passwordIterations: 1_000))
        )
        apple.signIn(as: .init(subject: "001.ada", email: "ada@example.com"))
        let ada = try await auth.signInWithApple()
        try await auth.signOut()
        _ = try await auth.signInAnonymously()
        let credential = try await auth.requestCredential(from: .apple)

        do {
            _ = try await auth.link(credential)
        } catch let error as AuthenticationError where error.code == .credentialAlreadyInUse {
            if let existing = error.updatedCredential {
                // The guest's data stays under its ID: merge it, or delete the guest first.
                _ = try await auth.signIn(with: existing)
            }
        }

        #expect(auth.currentUser?.id == ada.id)
    }
}
