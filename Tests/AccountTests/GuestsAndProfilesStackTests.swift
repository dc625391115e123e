import Foundation
import Testing
import TrainAccount
import TrainAuth
import TrainCore
import TrainSocial
import TrainSubscription
import TrainSync
import TrainTesting

/// A media store that runs `afterPut` once, after a photo is stored: another user signs in meanwhile.
final class HookedMediaStore: MediaStore, @unchecked Sendable {
    let base: LocalMediaStore
    var afterPut: (() async throws -> Void)?
    init(base: LocalMediaStore) { self.base = base }
    var maximumSize: Int { base.maximumSize }
    func put(_ data: Data, kind: MediaKind, for userID: String) async throws -> MediaReference {
        let reference = try await base.put(data, kind: kind, for: userID)
        if let hook = afterPut {
            afterPut = nil
            try await hook()
        }
        return reference
    }
    func data(for reference: MediaReference) async throws -> Data { try await base.data(for: reference) }
    func contains(_ reference: MediaReference) async throws -> Bool { try await base.contains(reference) }
    func list(for userID: String) async throws -> [MediaReference] { try await base.list(for: userID) }
    func delete(_ reference: MediaReference) async throws { try await base.delete(reference) }
    func deleteAll(for userID: String) async throws -> Int { try await base.deleteAll(for: userID) }
    func url(for reference: MediaReference) -> URL { base.url(for: reference) }
    func reference(for url: URL) throws(SocialError) -> MediaReference? { try base.reference(for: url) }
}

/// AUTH-13, AUTH-16 and AUTH-12 across the stack: a guest's data stays when it links a
/// sign-in method, a profile change reaches the feed and the export, and the policy's
/// verified email guards posting and purchasing.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct GuestsAndProfilesStackTests {
    static let ada = SimulatedIdentityProvider.Account(subject: "001.ada", email: "ada@example.com", fullName: FullName(givenName: "Ada"))

    /// A JPEG's first bytes, then `size - 4` more.
    static func jpeg(_ fill: UInt8, size: Int = 64) -> Data {
        Data([0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: fill, count: size - 4))
    }

    /// A stack whose session manager keeps photos in a hooked media store, with Ada signed in with Apple.
    static func adaWithHookedMedia() async throws -> (TrainServices, HookedMediaStore, UserSessionManager, UserEntity) {
        let services = TrainServices.inMemory(configuration: TrainServicesConfiguration(context: TrainContext(clock: ManualClock())))
        let media = HookedMediaStore(base: services.media)
        let session = UserSessionManager(
            auth: services.auth, subscriptions: services.subscriptions, social: services.social, account: services.account, media: media)
        await session.start()
        services.appleID.signIn(as: Self.ada)
        return (services, media, session, try await session.signInWithApple())
    }

    @Test("a guest's posts, plans and consents stay when it links Apple: same user ID, and the session shows the guest state until then")
    func guestKeepsDataWhenLinking() async throws {
        let clock = ManualClock()
        let services = TrainServices.inMemory(configuration: TrainServicesConfiguration(context: TrainContext(clock: clock)))
        let session = services.makeSessionManager()
        await session.start()
        let guest = try await session.signInAsGuest()
        #expect(session.isGuest && session.authState == .authenticated)
        _ = try await services.social.unlockFeed(workoutType: .run)
        let post = try await services.social.createPost(content: "first run", workoutType: .run)
        _ = try await services.plans.createPlan(TrainingPlan(name: "5k", startDate: clock.now, endDate: clock.now, daysPerWeek: 3))
        _ = try await services.account.accept(.terms, version: 1)
        guard case .success(let bought) = try await session.purchase("com.train.pro.monthly") else {
            Issue.record("the guest's purchase should succeed")
            return
        }
        #expect(bought.unsafePayloadValue.appAccountToken == (try AppAccountToken.forUser(guest.id)))

        services.appleID.signIn(as: Self.ada)
        let linked = try await services.auth.link(try await services.auth.requestCredential(from: .apple))
        #expect(linked.id == guest.id && !linked.isAnonymous)
        #expect(await waitUntil { !session.isGuest }, "the session follows the link with no refresh")
        #expect(session.tier == .pro, "the app account token is the same user's: the subscription stays")
        let entitlements = try await services.subscriptions.currentEntitlements()
        #expect(entitlements.map(\.unsafePayloadValue.appAccountToken) == [try AppAccountToken.forUser(linked.id)])
        let export = try await services.account.exportData(of: guest.id)
        #expect(export.social.posts.map(\.id) == [post.id])
        #expect(export.plans.map(\.name) == ["5k"])
        #expect(try services.account.consentHistory().map(\.document) == [.terms])
        session.stop()
    }

    @Test("a guest whose Apple ID has an account can be discarded: deleted, then the credential signs in to that account")
    func guestDiscardedForExistingAccount() async throws {
        let services = TrainServices.inMemory(configuration: TrainServicesConfiguration(context: TrainContext(clock: ManualClock())))
        let session = services.makeSessionManager()
        await session.start()
        services.appleID.signIn(as: Self.ada)
        let ada = try await session.signInWithApple()
        try await session.signOut()

        let guest = try await session.signInAsGuest()
        _ = try await services.social.unlockFeed(workoutType: .run)
        _ = try await services.social.createPost(content: "guest run", workoutType: .run)
        services.appleID.signIn(as: Self.ada)
        let credential = try await services.auth.requestCredential(from: .apple)
        let error = try await #require(throws: AuthenticationError.self) { _ = try await services.auth.link(credential) }
        #expect(error.code == .credentialAlreadyInUse)
        let switchTo = try #require(error.updatedCredential)

        _ = try await session.deleteAccount()
        _ = try await services.account.deletionCompletion(of: guest.id)
        let user = try await services.auth.signIn(with: switchTo)
        #expect(user.id == ada.id)
        #expect(await waitUntil { session.currentUser?.id == ada.id && !session.isGuest })
        #expect(try await services.social.exportAccountData().posts.isEmpty, "the guest's post went with the guest")
        session.stop()
    }

    @Test(
        "a profile change through the session keeps the photo in the media store, shows on the feed's profile and in the export, and deletes the photo it replaces"
    )
    func profileChangeReachesFeedAndExport() async throws {
        let services = TrainServices.inMemory(configuration: TrainServicesConfiguration(context: TrainContext(clock: ManualClock())))
        let session = services.makeSessionManager()
        await session.start()
        services.appleID.signIn(as: Self.ada)
        let ada = try await session.signInWithApple()
        _ = try await services.social.unlockFeed(workoutType: .run)

        let first = try await session.updateProfile(displayName: "Countess Ada", photo: .set(Self.jpeg(1)))
        let firstPhoto = try #require(first.photoURL)
        #expect(session.currentUser?.displayName == "Countess Ada")
        #expect(try await services.social.profile(ada.id).photoURL == firstPhoto)
        #expect(try await services.social.profile(ada.id).displayName == "Countess Ada")

        let second = try await session.updateProfile(displayName: "Ada", photo: .set(Self.jpeg(2)))
        #expect(try await services.media.list(for: ada.id).map { services.media.url(for: $0) } == [second.photoURL].compactMap { $0 })
        #expect(try await services.account.exportData(of: ada.id).user.photoURL == second.photoURL)

        let refused = try await #require(throws: SocialError.self) {
            _ = try await session.updateProfile(displayName: "Ada", photo: .set(Data("not an image".utf8)))
        }
        #expect(refused.code == .unsupportedMediaType)
        #expect(session.currentUser?.photoURL == second.photoURL, "a refused photo changes nothing")
        _ = try await session.updateProfile(displayName: nil, photo: .remove)
        #expect(try await services.media.list(for: ada.id).isEmpty && services.auth.currentUser?.photoURL == nil)
        session.stop()
    }

    @Test("a policy that needs a verified email refuses posts, comments and purchases until the address is verified")
    func verifiedEmailGuardsPostingAndPurchasing() async throws {
        var configuration = TrainServicesConfiguration(context: TrainContext(clock: ManualClock()))
        configuration.authPolicy.verifiedEmailRequired = [.posting, .purchasing]
        configuration.authPolicy.passwordIterations = 1_000
        let services = TrainServices.inMemory(configuration: configuration)
        let session = services.makeSessionManager()
        await session.start()
        _ = try await services.auth.createUser(email: "grace@example.com", password: "correct horse 1")
        _ = try await services.social.unlockFeed(workoutType: .run)

        let post = try await #require(throws: SocialError.self) { _ = try await services.social.createPost(content: "hi", workoutType: .run) }
        #expect(post.code == .unverifiedEmail)
        let purchase = try await #require(throws: AuthenticationError.self) { _ = try await session.purchase("com.train.pro.monthly") }
        #expect(purchase.code == .unverifiedEmail && session.tier == .free)

        try await services.auth.sendEmailVerification()
        try await services.auth.verifyEmail(code: try #require(services.mailbox.lastCode(for: "grace@example.com", .emailVerification)))
        let made = try await services.social.createPost(content: "hi", workoutType: .run)
        _ = try await services.social.comment(on: made.id, text: "verified")
        _ = try await session.purchase("com.train.pro.monthly")
        #expect(session.tier == .pro)
        _ = try await services.auth.updateEmail(to: "grace@example.org")
        let comment = try await #require(throws: SocialError.self) { _ = try await services.social.comment(on: made.id, text: "new address") }
        #expect(comment.code == .unverifiedEmail, "a new address is unverified until its code comes back")
        session.stop()
    }

    @Test("a profile change whose user signs out and another signs in during the upload changes nobody")
    func userChangesDuringUpload() async throws {
        let (services, media, session, ada) = try await Self.adaWithHookedMedia()
        media.afterPut = {
            try await services.auth.signOut()
            services.appleID.signIn(as: .init(subject: "002.bob", email: "bob@example.com", fullName: FullName(givenName: "Bob")))
            _ = try await services.auth.signInWithApple()
        }
        let refused = try await #require(throws: AccountError.self) {
            _ = try await session.updateProfile(displayName: "Countess Ada", photo: .set(Self.jpeg(1)))
        }
        #expect(refused.code == .notSignedIn)
        let bob = try #require(services.auth.currentUser)
        #expect(bob.id != ada.id && bob.displayName == "Bob" && bob.photoURL == nil)
        #expect(try await services.social.refreshProfile().displayName == "Bob", "Bob's profile is Bob's")
        session.stop()
    }

    @Test("a profile change on its way to the auth service when another user signs in changes nobody: the call names its user")
    func userChangesDuringProfileCall() async throws {
        let services = TrainServices.inMemory(configuration: TrainServicesConfiguration(context: TrainContext(clock: ManualClock())))
        let auth = FakeAuthService(backedBy: services.auth)
        let session = UserSessionManager(
            auth: auth, subscriptions: services.subscriptions, social: services.social, account: services.account, media: services.media)
        await session.start()
        services.appleID.signIn(as: Self.ada)
        let ada = try await session.signInWithApple()
        auth.controls.holdCalls()
        let change = Task { try await session.updateProfile(displayName: "Countess Ada", photo: .set(Self.jpeg(1))) }
        await auth.controls.waitForHeldCalls(1)
        try await services.auth.signOut()
        services.appleID.signIn(as: .init(subject: "002.bob", email: "bob@example.com", fullName: FullName(givenName: "Bob")))
        let bob = try await services.auth.signInWithApple()
        auth.controls.releaseHeldCalls()
        await #expect(throws: AuthenticationError(.userMismatch)) { _ = try await change.value }
        let now = try #require(services.auth.currentUser)
        #expect(now.id == bob.id && now.displayName == "Bob" && now.photoURL == nil)
        #expect(try await services.media.list(for: ada.id).isEmpty, "the uploaded photo was discarded")
        session.stop()
    }

    @Test("an idle guest is purged by the account service with its posts and plans, as a deleted account is")
    func idleGuestPurgedAcrossServices() async throws {
        let clock = ManualClock()
        let services = TrainServices.inMemory(configuration: TrainServicesConfiguration(context: TrainContext(clock: clock)))
        let guest = try await services.auth.signInAnonymously()
        _ = try await services.social.unlockFeed(workoutType: .run)
        _ = try await services.social.createPost(content: "guest run", workoutType: .run)
        _ = try await services.plans.createPlan(TrainingPlan(name: "5k", startDate: clock.now, endDate: clock.now, daysPerWeek: 3))
        try await services.auth.signOut()
        clock.advance(by: .seconds(31 * 86_400))
        let reports = try await services.account.purgeDueDeletions()
        #expect(reports.map(\.userID) == [guest.id])
        #expect(reports.first?.social.posts == 1 && reports.first?.plans.localRecords == 1, "its post and its plan went")
        services.appleID.signIn(as: Self.ada)
        _ = try await services.auth.signInWithApple()
        await #expect(throws: SocialError(.userNotFound)) { _ = try await services.social.profile(guest.id) }
        #expect(try services.auth.scheduledDeletions().isEmpty)
    }

    @Test("two photo changes at once run one after the other: the account's photo is the later one's and the only one kept")
    func overlappingPhotoChanges() async throws {
        let (services, media, session, ada) = try await Self.adaWithHookedMedia()
        let (reached, reachedGate) = AsyncStream<Void>.makeStream()
        let (gate, opener) = AsyncStream<Void>.makeStream()
        media.afterPut = { // the first change's photo is stored, then its network stalls
            reachedGate.yield()
            for await _ in gate { break }
        }
        let first = Task { try await session.updateProfile(displayName: "Ada B", photo: .set(Self.jpeg(2))) }
        for await _ in reached { break }
        let second = Task { try await session.updateProfile(displayName: "Ada A", photo: .set(Self.jpeg(1))) }
        opener.yield()
        _ = try await first.value
        let last = try await second.value
        let photo = try #require(services.auth.currentUser?.photoURL)
        #expect(last.photoURL == photo && last.displayName == "Ada A", "the change asked last is the one that stays")
        #expect(try await services.media.list(for: ada.id).map { services.media.url(for: $0) } == [photo])
        session.stop()
    }

    @Test("a profile photo a post shows stays when the profile changes it, and goes with that post; a post's deletion keeps the profile's photo")
    func profilePhotoInAPost() async throws {
        let (services, _, session, ada) = try await Self.adaWithHookedMedia()
        let first = try #require(try await session.updateProfile(displayName: "Ada", photo: .set(Self.jpeg(1))).photoURL)
        _ = try await services.social.unlockFeed(workoutType: .run)
        let shown = try await services.social.createPost(content: "New photo", workoutType: .run, mediaURL: first)
        let kept = try await services.social.createPost(content: "Again", workoutType: .run, mediaURL: first)
        try await services.social.deletePost(kept.id)
        #expect(try await services.media.list(for: ada.id).map { services.media.url(for: $0) } == [first], "the profile and a post show it")
        let second = try #require(try await session.updateProfile(displayName: "Ada", photo: .set(Self.jpeg(2))).photoURL)
        #expect(Set(try await services.media.list(for: ada.id).map { services.media.url(for: $0) }) == [first, second], "a post shows the first")
        try await services.social.deletePost(shown.id)
        #expect(try await services.media.list(for: ada.id).map { services.media.url(for: $0) } == [second], "nothing shows the first now")
        session.stop()
    }
}
