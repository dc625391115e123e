import Foundation
import Testing
import TrainAccount
import TrainAuth
import TrainCore
import TrainSocial
import TrainSubscription
import TrainSync
import TrainTesting

/// What a session shows and what others see of a user, on the stack with more than one
/// device: the badge after a relaunch, an unlock logged on another device, profiles
/// that exist from sign-up and follow the account, and address changes (AUTH-18) that
/// show the moment each call returns.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct SessionAcrossDevicesTests {

    let clock = ManualClock()
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    func stack(_ variant: AccountVariant) throws -> TrainServices {
        let configuration = TrainServicesConfiguration(context: TrainContext(clock: clock), authPolicy: AuthPolicy(passwordIterations: 1_000))
        switch variant {
        case .inMemory: return TrainServices.inMemory(configuration: configuration)
        case .file: return try TrainServices.files(in: directory.file("Train"), configuration: configuration)
        }
    }

    @Test("after a relaunch the badge shows the unseen notifications of the user remembered")
    func badgeAfterRelaunch() async throws {
        var phone: TrainServices? = try stack(.file)
        phone?.appleID.signIn(as: .ada)
        let ada = try #require(try await phone?.auth.signInWithApple())
        _ = try await phone?.social.unlockFeed(workoutType: .run)
        let post = try #require(try await phone?.social.createPost(content: "Intervals", workoutType: .run, mediaURL: nil))
        let grace = try #require(try await phone?.addUser(named: "Grace Hopper"))
        let gracePhone = try #require(try phone?.makeDevice(for: grace.id))
        _ = try await gracePhone.social.unlockFeed(workoutType: .run)
        try await gracePhone.social.like(post.id)
        phone = nil

        let relaunched = try stack(.file)
        let session = relaunched.makeSessionManager()
        await session.start()
        #expect(session.currentUser?.id == ada.id)
        #expect(await waitUntil { session.unseenNotificationCount == 1 }, "the badge is read once the user is known, and not zeroed after")
        session.stop()
    }

    @Test(
        "a workout logged on the user's tablet shows on the phone's session after refresh(), with the unlock's end",
        arguments: AccountVariant.allCases)
    func refreshReadsTheUnlock(variant: AccountVariant) async throws {
        let phone = try stack(variant)
        phone.appleID.signIn(as: .ada)
        let ada = try await phone.auth.signInWithApple()
        let session = phone.makeSessionManager()
        await session.start()
        #expect(!session.isFeedUnlocked)

        let tablet = try phone.makeDevice(for: ada.id)
        let unlock = try await tablet.social.unlockFeed(workoutType: .run)
        session.refresh()
        #expect(session.isFeedUnlocked, "the lock is read before refresh() returns")
        await session.refresh().value
        #expect(session.feedUnlockedUntil == unlock.expiresAt, "and the unlock's end once its task finished")
        session.stop()
    }

    @Test("a user who just signed up is found and followed by others before any write of their own", arguments: AccountVariant.allCases)
    func profileAtSignUp(variant: AccountVariant) async throws {
        let phone = try stack(variant)
        let grace = try await phone.addUser(named: "Grace Hopper")
        let gracePhone = try phone.makeDevice(for: grace.id)

        phone.appleID.signIn(as: .ada)
        let ada = try await phone.auth.signInWithApple()
        #expect(try await gracePhone.social.searchUsers("Ada", limit: 10).map(\.id) == [ada.id])
        try await gracePhone.social.follow(ada.id)
        #expect(try await gracePhone.social.following().map(\.displayName) == ["Ada Lovelace"])
        #expect(try await phone.social.searchUsers("Grace", limit: 10).map(\.id) == [grace.id], "an added friend is findable at once")
    }

    @Test(
        "a guest's upgrade and a new name reach the profile others see without a call of the app's; posts keep the name they were made with",
        arguments: AccountVariant.allCases)
    func profileFollowsTheAccount(variant: AccountVariant) async throws {
        let phone = try stack(variant)
        let grace = try await phone.addUser(named: "Grace Hopper")
        let gracePhone = try phone.makeDevice(for: grace.id)
        let guest = try await phone.auth.signInAnonymously()
        #expect(try await gracePhone.social.profile(guest.id).displayName == "Athlete")
        _ = try await phone.social.unlockFeed(workoutType: .run)
        let post = try await phone.social.createPost(content: "First run", workoutType: .run, mediaURL: nil)

        phone.appleID.signIn(as: .ada)
        let linked = try await phone.auth.link(try await phone.auth.requestCredential(from: .apple))
        #expect(linked.id == guest.id)
        #expect(try await gracePhone.social.profile(guest.id).displayName == "Ada Lovelace")

        _ = try await phone.auth.updateProfile(displayName: "Ada L.", photoURL: URL(string: "https://example.com/ada.jpg"))
        let profile = try await gracePhone.social.profile(guest.id)
        #expect(profile.displayName == "Ada L." && profile.photoURL == URL(string: "https://example.com/ada.jpg"))
        _ = try await gracePhone.social.unlockFeed(workoutType: .run)
        #expect(try await gracePhone.social.discoverFeed(limit: 20, after: nil).posts.first { $0.id == post.id }?.userName == "Athlete")
    }

    @Test(
        "a change shows at once; the old address's notice, applied on another device, brings the address back and ends the tablet's session",
        arguments: AccountVariant.allCases)
    func recoveryAcrossDevices(variant: AccountVariant) async throws {
        let phone = try stack(variant)
        let ada = try await phone.auth.createUser(email: "ada@example.com", password: "correct horse 1")
        let session = phone.makeSessionManager()
        await session.start()
        let tablet = try phone.makeDevice(for: ada.id)
        let tabletSession = tablet.makeSessionManager()
        await tabletSession.start()
        #expect(tabletSession.currentUser?.id == ada.id)

        try await tabletSession.updateEmail(to: "someone@example.com")
        #expect(tabletSession.currentUser?.email == "someone@example.com")
        let notice = try #require(phone.mailbox.lastEmail(to: "ada@example.com", .recoverEmail))
        let info = try await session.checkActionCode(notice.code)
        #expect(info.state == .valid && info.change?.to == "someone@example.com")

        let applied = try await session.applyActionCode(notice.code)
        #expect(applied.suggestsPasswordReset)
        #expect(session.currentUser?.email == "ada@example.com" && session.currentUser?.isEmailVerified == true)
        _ = try? tablet.plans.plans()
        #expect(tablet.auth.currentUser == nil, "the tablet's session ended with the recovery")
    }

    @Test("verify-before-change shows nothing new until the code is applied, then the new address, verified", arguments: AccountVariant.allCases)
    func verifyBeforeChange(variant: AccountVariant) async throws {
        let services = try stack(variant)
        _ = try await services.auth.createUser(email: "ada@example.com", password: "correct horse 1")
        let session = services.makeSessionManager()
        await session.start()
        try await session.verifyBeforeUpdateEmail(to: "ada@lovelace.example")
        #expect(session.currentUser?.email == "ada@example.com")
        let code = try #require(services.mailbox.lastCode(for: "ada@lovelace.example", .verifyAndChangeEmail))
        try await session.applyActionCode(code)
        #expect(session.currentUser?.email == "ada@lovelace.example" && session.currentUser?.isEmailVerified == true)
    }
}
