import Foundation
import TrainAuth
import TrainCore

/// Sign in with Apple on the simulated provider; the session survives a relaunch;
/// a sensitive change after time has passed demands re-authentication.
struct AuthChapter {
    static let audience = "com.example.train"
    static let ada = SimulatedIdentityProvider.Account(
        subject: "001.ada", email: "ada@example.com",
        fullName: FullName(givenName: "Ada", familyName: "Lovelace"))

    let file: URL
    let clock: DemoClock
    let narrator: Narrator

    /// Runs the chapter and returns the account service, its user signed in.
    func run() async -> LocalAuthService? {
        let apple = SimulatedIdentityProvider(provider: .apple, audience: Self.audience, clock: clock)
        apple.signIn(as: Self.ada)
        let configuration = AuthConfiguration(clock: clock, apple: IdentityProviderConfiguration(authorizer: apple, audience: Self.audience))
        var auth: LocalAuthService?

        await narrator.step("Open the account service (file-backed, in the same store file)") {
            auth = try LocalAuthService(storage: .file(file), configuration: configuration)
            return nil
        }
        guard let auth else { return nil }

        if let remembered = auth.currentUser {
            await narrator.step("Find the session remembered from the last run") {
                narrator.say(
                    "Signed in as \(remembered.displayName ?? remembered.id) <\(remembered.email ?? "no email")>, "
                        + "last sign-in \(remembered.lastSignInAt.formatted(date: .abbreviated, time: .standard)).")
                return remembered.providers.contains { $0.provider == .apple } ? nil : "the remembered user has no Apple ID linked"
            }
        } else {
            await narrator.step("Sign in with Apple (nonce, identity token, first-time name and email)") {
                let user = try await auth.signInWithApple()
                narrator.say("Welcome, \(user.displayName ?? "?") <\(user.email ?? "?")>; account \(user.id).")
                return user.displayName == "Ada Lovelace" && user.email == "ada@example.com" ? nil : "the first sign-in lost the name or email"
            }
        }

        let newEmail = auth.currentUser?.email == "ada@train.example" ? "ada@example.com" : "ada@train.example"
        await narrator.step("Ten minutes pass; changing the contact email now demands re-authentication") {
            try clock.advance(by: .seconds(600))
            do {
                _ = try await auth.updateEmail(to: newEmail)
                return "the stale session changed the email without re-authentication"
            } catch let error as AuthError where error.code == .requiresRecentLogin {
                narrator.say("The app shows: \"\(error.localizedDescription)\"")
                return nil
            }
        }

        await narrator.step("Re-authenticate with Apple, then change the email") {
            let credential = try await auth.requestCredential(from: .apple)
            _ = try await auth.reauthenticate(with: credential)
            let user = try await auth.updateEmail(to: newEmail)
            narrator.say("Contact email is now \(user.email ?? "?").")
            return user.email == newEmail ? nil : "the email did not change"
        }
        return auth
    }
}
