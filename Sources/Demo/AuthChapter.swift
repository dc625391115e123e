import Foundation
import TrainAccount
import TrainAuth
import TrainCore

/// The whole stack opens in the data directory with one call; Ada signs in with Apple
/// through the session manager, whose subscription service follows her by itself; the session
/// survives a relaunch; a sensitive change after time has passed demands
/// re-authentication.
@MainActor
struct AuthChapter {
    static let ada = SimulatedIdentityProvider.Account(
        subject: "001.ada", email: "ada@example.com",
        fullName: FullName(givenName: "Ada", familyName: "Lovelace"))

    let directory: URL
    let clock: DemoClock
    let narrator: Narrator

    /// Runs the chapter and returns the stack and its session, Ada signed in.
    func run() async -> (services: TrainServices, session: UserSessionManager)? {
        var opened: (services: TrainServices, session: UserSessionManager)?
        await narrator.step("Open the whole stack in the data directory with one call, and start its session manager") {
            let services = try TrainServices.files(
                in: directory, configuration: TrainServicesConfiguration(context: TrainContext(clock: clock)))
            try await services.account.purgeDueDeletions()
            let session = services.makeSessionManager()
            await session.start()
            opened = (services, session)
            narrator.say("Files: trainkit.sqlite and media/ for the device, appstore.sqlite and remote.sqlite for the simulations.")
            return session.authState == .unknown ? "the session manager did not read the auth state" : nil
        }
        guard let (services, session) = opened else { return nil }
        let auth = services.auth
        services.appleID.signIn(as: Self.ada)

        if let remembered = session.currentUser {
            await narrator.step("Find the session remembered from the last run") {
                narrator.say(
                    "Signed in as \(remembered.displayName ?? remembered.id) <\(remembered.email ?? "no email")>, "
                        + "last sign-in \(remembered.lastSignInAt.formatted(date: .abbreviated, time: .standard)).")
                return remembered.providers.contains { $0.provider == .apple } ? nil : "the remembered user has no Apple ID linked"
            }
        } else {
            await narrator.step(
                "Sign in with Apple (nonce, identity token, first-time name and email); the session shows her before it returns"
            ) {
                let user = try await session.signInWithApple()
                narrator.say("Welcome, \(user.displayName ?? "?") <\(user.email ?? "?")>; account \(user.id).")
                guard session.authState == .authenticated, session.currentUser?.id == user.id else { return "the session does not show Ada" }
                return user.displayName == "Ada Lovelace" && user.email == "ada@example.com" ? nil : "the first sign-in lost the name or email"
            }
        }

        let newEmail = auth.currentUser?.email == "ada@train.example" ? "ada@example.com" : "ada@train.example"
        await narrator.step("Ten minutes pass; changing the contact email now demands re-authentication") {
            try clock.advance(by: .seconds(600))
            do {
                _ = try await auth.updateEmail(to: newEmail)
                return "the stale session changed the email without re-authentication"
            } catch let error as AuthenticationError where error.code == .requiresRecentLogin {
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
        return (services, session)
    }
}
