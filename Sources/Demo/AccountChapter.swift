import Foundation
import TrainAccount
import TrainAuth
import TrainCore
import TrainSocial
import TrainSubscription
import TrainSync
import TrainTesting

/// Ada takes a copy of her data, then deletes her account through the session: she
/// signs in again first, watches each step, and reads what was deleted. Her tablet is
/// signed out and told why. Everything of hers is gone from every service; Bob's posts
/// and plans of other users are untouched.
@MainActor
struct AccountChapter {
    let services: TrainServices
    let session: UserSessionManager
    /// Bob's phone, from the feed's chapter.
    let bob: TrainServices?
    let clock: DemoClock
    let narrator: Narrator

    func run() async {
        guard let ada = session.currentUser else {
            await narrator.step("The account needs a signed-in user") { "nobody is signed in" }
            return
        }
        let auth = services.auth
        let account = services.account
        let media = services.media
        let remote = services.remote

        await narrator.step("Accept the privacy policy and the terms; each acceptance is kept with its date") {
            for document in try account.documentsNeedingConsent() { try await account.accept(document, version: 1) }
            let history = try account.consentHistory()
            narrator.say(history.map { "\($0.document.rawValue) v\($0.version) \($0.action.rawValue)" }.joined(separator: ", "))
            return try account.documentsNeedingConsent().isEmpty ? nil : "a document still needs consent"
        }

        await narrator.step("Take a copy of all of Ada's data: one JSON document") {
            let export = try await account.exportData(of: ada.id)
            let json = try export.jsonData()
            narrator.say(
                "\(json.count) bytes, format \(export.formatVersion): \(export.social.posts.count) posts, \(export.social.comments.count) comments, "
                    + "\(export.plans.count) plans, \(export.entitlements.count) entitlements, \(export.consents.count) consents.")
            return export.user.id == ada.id && !export.social.posts.isEmpty && export.consents.count >= 2 ? nil : "the copy misses Ada's data"
        }

        await narrator.step("Ten minutes later, deleting the account asks Ada to sign in again, and deletes nothing") {
            try clock.advance(by: .seconds(600))
            do {
                _ = try await account.deleteAccount(of: ada.id)
                return "the account was deleted without a recent sign-in"
            } catch let error as AccountError where error.code == .requiresRecentLogin {
                narrator.say("The app shows: \"\(error.localizedDescription)\"")
                return try account.pendingDeletion(of: ada.id) == nil ? nil : "a deletion was started"
            }
        }

        // Ada's tablet, signed in as her, in the same world as the phone.
        let tablet = try? services.makeDevice(for: ada.id)
        var report: AccountDeletionReport?
        var printer: Task<Void, Never>?
        await narrator.step("Sign in again with Apple, then delete the account through the session: Ada is signed out and hidden at once") {
            _ = try await auth.reauthenticate(with: try await auth.requestCredential(from: .apple))
            let progress = account.deletionProgress()
            printer = Task {
                for await event in progress where event.phase != .started {
                    print("   \(event.phase == .finished ? "done" : "FAILED"): \(event.step) (\(event.finishedSteps)/\(event.totalSteps))")
                    if event.finishedSteps == event.totalSteps || event.phase == .failed { return }
                }
            }
            let deletion = try await session.deleteAccount()
            let seenByBob = try? await bob?.social.profile(ada.id)
            narrator.say(
                "The call returned: signed in: \(auth.currentUser?.id ?? "nobody"); the app shows \"Deleting your account\" "
                    + "(\(session.accountDeletion != nil)); Bob sees Ada's profile: \(seenByBob == nil ? "no" : "yes").")
            for warning in deletion.warnings { narrator.say("Warning for Ada: \(warning)") }
            return deletion.userID == ada.id && deletion.isImmediate && deletion.appleTokenRevocation == .revoked && seenByBob == nil
                && auth.currentUser == nil ? nil : "Ada is still signed in or visible"
        }
        await narrator.step("Ada's tablet is signed out at its next read, and can tell her why") {
            guard let tablet else { return "the tablet could not be made" }
            // Its next read finds the session ended, and why.
            let signedIn = tablet.auth.currentUser
            let end = tablet.auth.lastSessionEnd
            let refused = (try? await tablet.social.friendsFeed(limit: 20, after: nil)) == nil
            narrator.say(
                "Signed in on the tablet: \(signedIn?.id ?? "nobody"); why: \(end?.reason.rawValue ?? "not told"); "
                    + "its feed answers: \(refused ? "nothing" : "Ada's posts").")
            return signedIn == nil && end?.userID == ada.id && end?.reason == .accountDeleted && refused
                ? nil : "the tablet still acts as Ada"
        }
        await narrator.step("The purge of Ada's data finishes in the background, step by step") {
            let deleted = try await account.deletionCompletion(of: ada.id)
            await printer?.value
            report = deleted
            narrator.say(
                "Deleted: \(deleted.social.posts) posts, \(deleted.social.likes) likes, \(deleted.social.follows) follows, "
                    + "\(deleted.social.anonymizedComments) comments left as \"[Deleted User]\", \(deleted.social.media) photos, "
                    + "\(deleted.plans.localRecords + deleted.plans.remoteRecords) plan records, \(deleted.localRecords) consents; "
                    + "Apple tokens: \(deleted.appleTokenRevocation == .revoked ? "revoked" : "\(deleted.appleTokenRevocation)").")
            return deleted.userID == ada.id && deleted.finishedAt != nil ? nil : "the report does not match"
        }
        guard report != nil else { return }

        await narrator.step("Everything of Ada's is gone from every service; Bob's posts and profile are untouched") {
            guard let bob = bob?.social else { return "Bob's phone is missing" }
            let remotePlans = try await remote.snapshot(in: RemoteScope(userID: ada.id, collection: "plans"), after: nil, limit: 100).records
            let bobsPosts = try await bob.exportAccountData().posts
            let adaProfile = try? await bob.profile(ada.id)
            let photos = try await media.list(for: ada.id)
            narrator.say(
                "Signed in: \(auth.currentUser?.id ?? "nobody"). Ada's plans on the remote: \(remotePlans.filter { !$0.isDeleted }.count). "
                    + "Ada's profile: \(adaProfile == nil ? "gone" : "still there"). Ada's photos: \(photos.count). Bob's posts: \(bobsPosts.count).")
            let gone =
                auth.currentUser == nil && session.authState == .unauthenticated && remotePlans.allSatisfy(\.isDeleted) && adaProfile == nil
                && photos.isEmpty
            return gone && !bobsPosts.isEmpty ? nil : "something of Ada's is left, or Bob lost his posts"
        }
        await ScheduledDeletionScenes(services: services, session: session, clock: clock, narrator: narrator).run()
    }
}
