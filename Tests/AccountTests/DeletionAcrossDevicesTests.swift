import Foundation
import Testing
import TrainAccount
import TrainAuth
import TrainCore
import TrainSocial
import TrainSubscription
import TrainSync
import TrainTesting

/// An account deletion on the whole stack, with the user's second device in the world:
/// every device is signed out and told why, nothing written for the user after the
/// hide outlives the purge, a purge once begun runs to its end whatever the clocks say,
/// and its report counts what every attempt removed.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct DeletionAcrossDevicesTests {
    static let grace = SimulatedIdentityProvider.Account(
        subject: "002.grace", email: "grace@example.com", fullName: FullName(givenName: "Grace", familyName: "Hopper"))
    static let thirtyDays: TimeInterval = 30 * 86_400

    let clock = ManualClock()
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// A stack in memory or in files of this test's directory.
    func stack(_ variant: AccountVariant, network: NetworkConditions = .online) throws -> TrainServices {
        let configuration = TrainServicesConfiguration(
            context: TrainContext(clock: clock), network: network, authPolicy: AuthPolicy(passwordIterations: 1_000))
        switch variant {
        case .inMemory: return TrainServices.inMemory(configuration: configuration)
        case .file: return try TrainServices.files(in: directory.file("Train"), configuration: configuration)
        }
    }

    /// Ada signed in on her phone, with a plan synced.
    func adaOnPhone(_ variant: AccountVariant) async throws -> (phone: TrainServices, ada: UserEntity) {
        let phone = try stack(variant)
        phone.appleID.signIn(as: .ada)
        let ada = try await phone.auth.signInWithApple()
        _ = try await phone.plans.createPlan(plan("Spring 10k"))
        try await phone.plans.sync()
        return (phone, ada)
    }

    /// Ada signed in on her phone, with a plan synced, and on her tablet.
    func adaOnTwoDevices(_ variant: AccountVariant) async throws -> (phone: TrainServices, tablet: TrainServices, ada: UserEntity) {
        let (phone, ada) = try await adaOnPhone(variant)
        let tablet = try phone.makeDevice(for: ada.id)
        try await tablet.plans.sync()
        return (phone, tablet, ada)
    }

    func plan(_ name: String) -> TrainingPlan {
        TrainingPlan(name: name, startDate: clock.now, endDate: clock.now.addingTimeInterval(28 * 86_400), daysPerWeek: 3)
    }

    /// What the world's remote holds of `userID`'s plans, read as a fresh device would.
    func remotePlans(of userID: String, in services: TrainServices) async throws -> [RemoteRecord] {
        try await services.remote.snapshot(in: RemoteScope(userID: userID, collection: TrainingPlan.recordType), after: nil, limit: 100).records
    }

    /// The plans `userID` has on `device`'s own store, queued or synced, whoever is signed in there.
    func localPlans(of userID: String, on device: TrainServices) throws -> [TrainingPlan] {
        let auth = FakeAuthService(currentUser: UserEntity(id: userID, createdAt: clock.now, lastSignInAt: clock.now))
        let probe = LocalPlanSyncService(
            auth: auth, remote: LocalRemotePlanStore(), store: device.deviceStores[1], context: TrainContext(clock: clock),
            configuration: SyncConfiguration())
        return try probe.plans()
    }

    static let photo = Data([0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 7, count: 60))

    @Test(
        "a deletion on the phone signs the tablet out at its next read; no service there answers Ada's data, and its session shows why",
        arguments: AccountVariant.allCases)
    func otherDeviceIsSignedOut(variant: AccountVariant) async throws {
        let (phone, tablet, ada) = try await adaOnTwoDevices(variant)
        let tabletSession = tablet.makeSessionManager()
        await tabletSession.start()
        #expect(tabletSession.currentUser?.id == ada.id)

        try await phone.account.deleteAccount(of: ada.id)
        #expect(tablet.auth.currentUser == nil)
        await #expect(throws: SocialError(.notSignedIn)) { _ = try await tablet.social.friendsFeed(limit: 20, after: nil) }
        #expect(throws: SyncError(.notSignedIn)) { _ = try tablet.plans.plans() }
        await #expect(throws: AccountError(.notSignedIn)) { _ = try await tablet.account.exportData(of: ada.id) }
        await #expect(throws: AccountError(.notSignedIn), "a second deletion from the tablet is a typed refusal") {
            _ = try await tablet.account.deleteAccount(of: ada.id)
        }
        #expect(
            await waitUntil { tabletSession.authState == .unauthenticated && tabletSession.lastSessionEnd?.reason == .accountDeleted },
            "the tablet's session shows the sign-out and its reason without a call")
        #expect(tabletSession.lastSessionEnd?.userID == ada.id)
        _ = try await phone.account.deletionCompletion(of: ada.id)
        tabletSession.stop()
    }

    @Test(
        "a plan the tablet made offline never reaches the remote: the tablet drops it, and a fresh device and the remote hold nothing of Ada",
        arguments: AccountVariant.allCases)
    func offlineOutboxIsDropped(variant: AccountVariant) async throws {
        let (phone, tablet, ada) = try await adaOnTwoDevices(variant)
        tablet.network.conditions = .offline
        _ = try await tablet.plans.createPlan(plan("Made on the train"))
        #expect(try localPlans(of: ada.id, on: tablet).count == 2)

        try await phone.account.deleteAccount(of: ada.id)
        let report = try await phone.account.deletionCompletion(of: ada.id)
        #expect(report.plans.remoteRecords == 1)
        tablet.network.conditions = .online
        await #expect(throws: SyncError(.notSignedIn)) { _ = try await tablet.plans.sync() }

        // The tablet's own purge failed at the remote while it was offline: it runs again now.
        _ = try await tablet.account.purgeDueDeletions()
        let tabletReport = try await tablet.account.deletionCompletion(of: ada.id)
        #expect(tabletReport.plans.localRecords == 2, "the tablet purged its own copy, the queued plan included")
        #expect(try localPlans(of: ada.id, on: tablet).isEmpty)
        #expect(try await remotePlans(of: ada.id, in: phone).isEmpty)
        #expect(try tablet.account.pendingDeletion(of: ada.id) == nil)
        let grace = try await phone.addUser(named: "Grace Hopper")
        let freshDevice = try phone.makeDevice(for: grace.id)
        await #expect(throws: SocialError(.userNotFound)) { _ = try await freshDevice.social.profile(ada.id) }
        #expect(try localPlans(of: ada.id, on: freshDevice).isEmpty)
        #expect(try await freshDevice.media.list(for: ada.id).isEmpty)
    }

    @Test(
        "an upload already on its way when the account is deleted is refused by the remote after the purge erased it",
        arguments: AccountVariant.allCases)
    func uploadInFlightIsRefused(variant: AccountVariant) async throws {
        let (phone, tablet, ada) = try await adaOnTwoDevices(variant)
        let late = try await tablet.plans.createPlan(plan("Uploaded late"))
        tablet.network.conditions = try .slow(.seconds(5))
        let upload = Task { try await tablet.plans.uploadPlan(id: late.id) }
        await clock.waitForSleepers(1)

        try await phone.account.deleteAccount(of: ada.id)
        _ = try await phone.account.deletionCompletion(of: ada.id)
        #expect(try await remotePlans(of: ada.id, in: phone).isEmpty)
        clock.advance(by: .seconds(5))
        await #expect(throws: SyncError(.notAuthorized), "the remote refused the account's write") { _ = try await upload.value }
        #expect(try await remotePlans(of: ada.id, in: phone).isEmpty, "the upload did not bring a plan back")
    }

    @Test(
        "after the hide the tablet can neither upload a photo nor post for Ada, and her photos are gone once the purge reports",
        arguments: AccountVariant.allCases)
    func lateSocialWritesAreRefused(variant: AccountVariant) async throws {
        let (phone, tablet, ada) = try await adaOnTwoDevices(variant)
        _ = try await tablet.social.unlockFeed(workoutType: .run)
        _ = try await tablet.social.createPost(content: "Before", workoutType: .run, photo: Self.photo)
        #expect(try await phone.media.list(for: ada.id).count == 1)

        try await phone.account.deleteAccount(of: ada.id)
        await #expect(throws: SocialError(.notSignedIn)) { _ = try await tablet.media.put(Self.photo, kind: .postPhoto, for: ada.id) }
        await #expect(throws: SocialError(.notSignedIn)) {
            _ = try await tablet.social.createPost(content: "After", workoutType: .run, mediaURL: nil)
        }
        _ = try await phone.account.deletionCompletion(of: ada.id)
        #expect(try await phone.media.list(for: ada.id).isEmpty)
    }

    @Test(
        "a scheduled purge that began never turns back: with the clock set back into the grace period, Ada cannot sign in, and the purge ends",
        arguments: AccountVariant.allCases)
    func purgeNeverTurnsBack(variant: AccountVariant) async throws {
        let (phone, tablet, ada) = try await adaOnTwoDevices(variant)
        _ = try await phone.social.unlockFeed(workoutType: .run)
        _ = try await phone.social.createPost(content: "Long run", workoutType: .run, mediaURL: nil)
        let scheduled = try await phone.account.scheduleDeletion(of: ada.id)
        // The tablet takes part in the purge too, once it is due: its remote fails as well.
        tablet.network.conditions = .failing
        phone.network.conditions = .failing
        clock.setDate(scheduled.purgeAt.addingTimeInterval(1))
        await #expect(throws: AccountError(.deletionIncomplete)) { _ = try await phone.account.purgeDueDeletions() }
        #expect(try phone.account.pendingDeletion(of: ada.id)?.finishedSteps.contains(.socialData) == true)

        clock.setDate(scheduled.purgeAt.addingTimeInterval(-Self.thirtyDays / 2))
        for device in [phone, tablet] {
            device.appleID.signIn(as: .ada)
            await #expect(throws: AuthenticationError(.userDisabled)) { _ = try await device.auth.signInWithApple() }
            await #expect(throws: AccountError(.notSignedIn)) { try await device.account.restoreAccount() }
        }
        #expect(try phone.auth.scheduledDeletion(of: ada.id) == .distantPast)

        phone.network.conditions = .online
        let reports = try await phone.account.purgeDueDeletions()
        #expect(reports.map(\.userID) == [ada.id], "the purge ran with the clock inside the grace period")
        #expect(try !phone.auth.accountExists(ada.id))
        #expect(try await remotePlans(of: ada.id, in: phone).isEmpty)
    }

    @Test("a step that deleted some records and then failed is counted in the final report", arguments: AccountVariant.allCases)
    func failedAttemptsAreCounted(variant: AccountVariant) async throws {
        let (phone, ada) = try await adaOnPhone(variant)
        phone.network.conditions = .failing
        try await phone.account.deleteAccount(of: ada.id)
        await #expect(throws: AccountError(.deletionIncomplete)) { _ = try await phone.account.purgeDueDeletions() }
        let stopped = try phone.account.pendingDeletion(of: ada.id)
        #expect(stopped?.finishedSteps.contains(.socialData) == true && stopped?.finishedSteps.contains(.plans) == false)
        phone.network.conditions = .online
        _ = try await phone.account.purgeDueDeletions()
        let report = try await phone.account.deletionCompletion(of: ada.id)
        #expect(report.plans == SyncDeletionReport(localRecords: 1, remoteRecords: 1), "the failed attempt's local plan counts")
    }

    @Test("after a relaunch mid-purge the session shows Ada's deletion with its progress until the report; Grace signing in sees none")
    func relaunchShowsThePendingDeletion() async throws {
        var phone: TrainServices? = try stack(.file)
        phone?.appleID.signIn(as: .ada)
        let ada = try #require(try await phone?.auth.signInWithApple())
        _ = try await phone?.plans.createPlan(plan("Spring 10k"))
        try await phone?.plans.sync()
        phone?.network.conditions = .failing
        try await phone?.account.deleteAccount(of: ada.id)
        await #expect(throws: AccountError(.deletionIncomplete)) { _ = try await phone?.account.purgeDueDeletions() }
        phone = nil

        let relaunched = try stack(.file, network: .offline)
        let session = relaunched.makeSessionManager()
        await session.start()
        #expect(session.authState == .unauthenticated)
        #expect(session.accountDeletion?.userID == ada.id, "the deletion of the user who was signed in is shown")
        #expect(session.deletionProgress.map { $0.userID == ada.id && $0.finishedSteps >= 2 } == true)

        relaunched.network.conditions = .online
        _ = try await relaunched.account.purgeDueDeletions()
        #expect(await waitUntil { session.deletionReport?.userID == ada.id && session.accountDeletion == nil })

        relaunched.appleID.signIn(as: Self.grace)
        _ = try await session.signInWithApple()
        #expect(session.deletionReport == nil && session.deletionProgress == nil, "Grace is shown nothing of Ada's deletion")
        session.stop()
    }

    @Test(
        "another user signing in while Ada's purge runs is shown nothing of it, and her report never reaches them", arguments: AccountVariant.allCases
    )
    func anotherUserSeesNoDeletion(variant: AccountVariant) async throws {
        let (phone, ada) = try await adaOnPhone(variant)
        let session = phone.makeSessionManager()
        await session.start()
        phone.network.conditions = .failing
        try await session.deleteAccount()
        #expect(session.accountDeletion?.userID == ada.id)

        phone.appleID.signIn(as: Self.grace)
        let grace = try await session.signInWithApple()
        #expect(session.accountDeletion == nil && session.deletionProgress == nil && session.deletionReport == nil)
        phone.network.conditions = .online
        _ = try await phone.account.purgeDueDeletions()
        _ = try await phone.account.deletionCompletion(of: ada.id)
        #expect(session.currentUser?.id == grace.id)
        #expect(session.accountDeletion == nil && session.deletionReport == nil, "Ada's report is not Grace's to see")
        session.stop()
    }

    @Test(
        "a clock set back or forward mid-purge and a relaunch with another user signing in: the purge ends, nothing of Ada is left, Grace's data is untouched",
        arguments: [-40.0, -1, 1, 40])
    func clockAndRelaunchMidPurge(daysMoved: Double) async throws {
        var phone: TrainServices? = try stack(.file)
        phone?.appleID.signIn(as: Self.grace)
        let grace = try #require(try await phone?.auth.signInWithApple())
        _ = try await phone?.social.unlockFeed(workoutType: .run)
        let gracePost = try #require(try await phone?.social.createPost(content: "Grace's run", workoutType: .run, mediaURL: nil))
        try await phone?.auth.signOut()
        phone?.appleID.signIn(as: .ada)
        let ada = try #require(try await phone?.auth.signInWithApple())
        _ = try await phone?.plans.createPlan(plan("Spring 10k"))
        try await phone?.plans.sync()
        phone?.network.conditions = .failing
        try await phone?.account.deleteAccount(of: ada.id)
        await #expect(throws: AccountError(.deletionIncomplete)) { _ = try await phone?.account.purgeDueDeletions() }
        phone = nil

        clock.setDate(clock.now.addingTimeInterval(daysMoved * 86_400))
        let relaunched = try stack(.file, network: .offline)
        let session = relaunched.makeSessionManager()
        await session.start()
        #expect(session.accountDeletion?.userID == ada.id)
        relaunched.appleID.signIn(as: Self.grace)
        #expect(try await session.signInWithApple().id == grace.id)
        #expect(session.accountDeletion == nil && session.deletionProgress == nil, "Grace is shown nothing of Ada's deletion")
        await #expect(throws: AccountError(.notAuthorized), "Grace cannot ask for Ada's deletion") {
            _ = try await relaunched.account.deleteAccount(of: ada.id)
        }

        relaunched.network.conditions = .online
        let reports = try await relaunched.account.purgeDueDeletions()
        #expect(reports.map(\.userID) == [ada.id])
        #expect(try !relaunched.auth.accountExists(ada.id))
        #expect(try await remotePlans(of: ada.id, in: relaunched).isEmpty)
        await #expect(throws: SocialError(.userNotFound)) { _ = try await relaunched.social.profile(ada.id) }
        #expect(session.currentUser?.id == grace.id)
        #expect(try await relaunched.account.exportData(of: grace.id).social.posts.map(\.id) == [gracePost.id], "Grace's post is untouched")
        session.stop()
    }

    @Test("a phone that was not running while Ada deleted her account on the tablet shows why at launch and drops her queued plan")
    func deviceNotRunningJoinsAtLaunch() async throws {
        var phone: TrainServices? = try stack(.file)
        phone?.appleID.signIn(as: .ada)
        let ada = try #require(try await phone?.auth.signInWithApple())
        let tablet = try #require(try phone?.makeDevice(for: ada.id))
        phone?.network.conditions = .offline
        _ = try await phone?.plans.createPlan(plan("Queued on the phone"))
        phone = nil

        tablet.appleID.signIn(as: .ada)
        _ = try await tablet.auth.reauthenticate(with: try await tablet.auth.requestCredential(from: .apple))
        try await tablet.account.deleteAccount(of: ada.id)
        _ = try await tablet.account.deletionCompletion(of: ada.id)

        let relaunched = try stack(.file)
        let session = relaunched.makeSessionManager()
        await session.start()
        #expect(session.authState == .unauthenticated)
        #expect(session.lastSessionEnd?.userID == ada.id && session.lastSessionEnd?.reason == .accountDeleted)
        #expect(session.accountDeletion == nil, "the deletion was asked for on the tablet: the phone shows why it is signed out")
        let report = try await relaunched.account.deletionCompletion(of: ada.id)
        #expect(report.plans.localRecords == 1, "the phone purged the plan it had queued")
        #expect(try localPlans(of: ada.id, on: relaunched).isEmpty)
        #expect(try await remotePlans(of: ada.id, in: relaunched).isEmpty)
        session.stop()
    }

    @Test(
        "with Ada's tablet running too, the phone's report counts every post, plan and sign-in method, and the tablet's its own copy",
        arguments: AccountVariant.allCases)
    func reportsOfTwoDevices(variant: AccountVariant) async throws {
        let (phone, tablet, ada) = try await adaOnTwoDevices(variant)
        _ = try await phone.social.unlockFeed(workoutType: .run)
        _ = try await phone.social.createPost(content: "One", workoutType: .run, mediaURL: nil)
        _ = try await phone.social.createPost(content: "Two", workoutType: .run, mediaURL: nil)

        try await phone.account.deleteAccount(of: ada.id)
        let report = try await phone.account.deletionCompletion(of: ada.id)
        #expect(report.social.posts == 2 && report.plans == SyncDeletionReport(localRecords: 1, remoteRecords: 1))
        #expect(report.providers == [.apple])

        _ = try await tablet.account.purgeDueDeletions()
        let tabletReport = try await tablet.account.deletionCompletion(of: ada.id)
        #expect(tabletReport.social.posts == 0 && tabletReport.plans == SyncDeletionReport(localRecords: 1, remoteRecords: 0))
        #expect(try localPlans(of: ada.id, on: tablet).isEmpty)
    }
}
