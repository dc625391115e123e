import Foundation
import TrainAccount
import TrainAuth
import TrainSocial

/// Grace asks for her account to be deleted in 30 days: she is signed out and hidden
/// from Lin; she comes back on day 10 and restores it; she asks again, and when the
/// 30 days are over the purge deletes everything of hers with nobody signed in.
@MainActor
struct ScheduledDeletionScenes {
    static let grace = SimulatedIdentityProvider.Account(
        subject: "002.grace", email: "grace@example.com", fullName: FullName(givenName: "Grace", familyName: "Hopper"))
    static let lin = SimulatedIdentityProvider.Account(subject: "003.lin", email: "lin@example.com", fullName: FullName(givenName: "Lin"))

    let services: TrainServices
    let session: UserSessionManager
    let clock: DemoClock
    let narrator: Narrator

    func run() async {
        var graceID: String?
        await narrator.step("Grace signs in, runs and posts, then asks for her account to be deleted in 30 days: she is signed out") {
            let grace = try await signIn(Self.grace)
            _ = try await services.social.unlockFeed(workoutType: .run)
            _ = try await services.social.createPost(content: "Last 5k before a break", workoutType: .run)
            let scheduled = try await session.scheduleAccountDeletion()
            graceID = grace.id
            narrator.say(
                "Deletion on \(scheduled.purgeAt.formatted(date: .abbreviated, time: .omitted)); signed in: \(session.currentUser?.id ?? "nobody").")
            return session.authState == .unauthenticated ? nil : "Grace is still signed in"
        }
        guard let graceID else { return }

        await narrator.step("Lin signs in: Grace's post and profile are hidden from her") {
            try await signIn(Self.lin)
            _ = try await services.social.unlockFeed(workoutType: .cycle)
            let seen = try await services.social.discoverFeed(limit: 50).contains { $0.userID == graceID }
            let profile = try? await services.social.profile(graceID)
            try await session.signOut()
            return !seen && profile == nil ? nil : "Lin still sees Grace"
        }

        await narrator.step("Ten days later Grace signs in: the app offers to restore the account, and she does") {
            try clock.advance(by: .seconds(10 * 86_400))
            try await signIn(Self.grace)
            guard let offered = session.scheduledDeletion else { return "no restore was offered" }
            narrator.say("\"Your account will be deleted on \(offered.purgeAt.formatted(date: .abbreviated, time: .omitted)). Restore it?\"")
            try await session.restoreAccount()
            return session.scheduledDeletion == nil && services.auth.currentUser?.id == graceID ? nil : "the account was not restored"
        }

        await narrator.step("She asks again; 30 days pass and the purge deletes everything of hers, with nobody signed in") {
            try await services.auth.reauthenticate(with: try await services.auth.requestCredential(from: .apple))
            try await session.scheduleAccountDeletion()
            try clock.advance(by: .seconds(30 * 86_400))
            let reports = try await services.account.purgeDueDeletions()
            guard let report = reports.first(where: { $0.userID == graceID }) else { return "nothing was purged" }
            narrator.say(
                "Purged: \(report.social.posts) post(s), \(report.providers.map(\.rawValue).joined(separator: ", ")) sign-in; "
                    + "Apple tokens \(report.appleTokenRevocation == .revoked ? "revoked when she asked" : "\(report.appleTokenRevocation)").")
            let again = try await signIn(Self.grace)
            try await session.signOut()
            return report.social.posts == 1 && again.id != graceID ? nil : "Grace's account or post outlived the purge"
        }
    }

    @discardableResult
    private func signIn(_ person: SimulatedIdentityProvider.Account) async throws -> UserEntity {
        services.appleID.signIn(as: person)
        return try await session.signInWithApple()
    }
}
