import Foundation
import TrainAuth
import TrainCore

/// A guest tries the app and upgrades to Sign in with Apple keeping their account; a
/// forgotten password is reset through the simulated mailbox; a backend checks the
/// ID token, which the reset revokes; an address changed from a borrowed phone is
/// changed back by the old address's notice. On an auth service of its own, in memory.
@MainActor
struct GuestAndEmailScenes {
    let clock: DemoClock
    let narrator: Narrator

    func run() async {
        let mailbox = SimulatedMailbox()
        let apple = SimulatedIdentityProvider(provider: .apple, audience: "com.example.train", clock: clock)
        let auth = LocalAuthService(
            context: TrainContext(clock: clock),
            configuration: AuthConfiguration(
                apple: IdentityProviderConfiguration(authorizer: apple, audience: "com.example.train"), emailSender: mailbox))

        await narrator.step("Lin opens the app as a guest, then signs in with Apple: the same account, now with Apple linked") {
            let guest = try await auth.signInAnonymously()
            apple.signIn(as: .init(subject: "004.lin", email: "lin@example.com", fullName: FullName(givenName: "Lin")))
            let user = try await auth.link(try await auth.requestCredential(from: .apple))
            narrator.say("Guest \(guest.id) is now \(user.displayName ?? "?") <\(user.email ?? "?")>, same ID.")
            return user.id == guest.id && !user.isAnonymous ? nil : "the guest did not keep its account"
        }

        await narrator.step("Lin adds a password, forgets it, and resets it with the code from the mailbox") {
            try await auth.updatePassword(to: "lin's first pass 1")
            let token = try await auth.idToken()
            let verifier = try auth.tokenVerifier()
            narrator.say("A backend reads the ID token: user \(try verifier.verify(token).userID).")
            try await auth.signOut()
            try await auth.sendPasswordReset(email: "lin@example.com")
            guard let code = mailbox.lastCode(for: "lin@example.com", .passwordReset) else { return "no reset email arrived" }
            try await auth.confirmPasswordReset(code: code, newPassword: "lin's new pass 2")
            let user = try await auth.signIn(with: .emailPassword(email: "lin@example.com", password: "lin's new pass 2"))
            do {
                _ = try verifier.verify(token)
                return "the token from before the reset is still accepted"
            } catch let error as AuthenticationError where error.code == .userTokenRevoked {
                narrator.say("Signed in with the new password; the old token is refused: \"\(error.localizedDescription)\"")
            }
            return user.isEmailVerified ? nil : "the reset did not verify the address"
        }

        await narrator.step("Someone on Lin's unlocked phone changes her address; the notice to her old address changes it back") {
            _ = try await auth.updateEmail(to: "someone@example.com")
            guard let notice = mailbox.lastEmail(to: "lin@example.com", .recoverEmail) else { return "the old address was told nothing" }
            let info = try await auth.checkActionCode(notice.code)
            narrator.say("lin@example.com is told: changed to \(info.change?.to ?? "?"), code \(info.state.rawValue).")
            let undone = try await auth.applyActionCode(notice.code)
            let user = try await auth.signIn(with: .emailPassword(email: "lin@example.com", password: "lin's new pass 2"))
            narrator.say("The address is \(user.email ?? "?") again, verified; the app offers a reset: \(undone.suggestsPasswordReset).")
            return user.email == "lin@example.com" && user.isEmailVerified ? nil : "the address did not come back"
        }
    }
}
