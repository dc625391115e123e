import Foundation
import Testing
import TrainAccount
import TrainAuth
import TrainCore
import TrainSocial
import TrainSubscription
import TrainSync
import TrainTesting

/// The stack's options and its simulated world: biometrics, time zone, network, the
/// app's own parts, friends and second devices.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct TrainServicesWorldTests {

    let clock = ManualClock()

    func signedInStack(_ configure: (inout TrainServicesConfiguration) -> Void = { _ in }) async throws -> (TrainServices, UserEntity) {
        var configuration = TrainServicesConfiguration(context: TrainContext(clock: clock))
        configure(&configuration)
        let services = TrainServices.inMemory(configuration: configuration)
        services.appleID.signIn(as: .ada)
        return (services, try await services.auth.signInWithApple())
    }

    func plan(_ name: String) -> TrainingPlan {
        TrainingPlan(name: name, startDate: clock.now, endDate: clock.now.addingTimeInterval(86_400), daysPerWeek: 3)
    }

    @Test("the settings toggle works on the stack's simulated Face ID, and says why when the user cancels or there is no sensor")
    func biometrics() async throws {
        let sensor = SimulatedBiometricAuthenticator()
        let (services, _) = try await signedInStack { $0.biometrics = sensor }
        try await services.auth.setBiometricLock(enabled: true, reason: "Unlock Train with Face ID")
        #expect(try await services.auth.isBiometricLockEnabled())
        #expect(sensor.prompts == ["Unlock Train with Face ID"])

        try await services.auth.setBiometricLock(enabled: false, reason: "")
        sensor.answerNextPrompts(with: [.cancelled])
        await #expect(throws: AuthenticationError(.cancelled)) { try await services.auth.setBiometricLock(enabled: true, reason: "Again") }
        #expect(try await services.auth.isBiometricLockEnabled() == false, "a cancelled prompt leaves the lock off")

        let (bare, _) = try await signedInStack { $0.biometrics = SimulatedBiometricAuthenticator(availability: BiometricAvailability(type: .none)) }
        await #expect(throws: AuthenticationError(.biometryNotAvailable)) { try await bare.auth.setBiometricLock(enabled: true, reason: "Unlock") }
    }

    @Test("a time zone is set by its identifier; an unknown one, an empty one or one with a NUL byte is a typed error that leaves it as it was")
    func timeZone() throws {
        var configuration = TrainServicesConfiguration(context: TrainContext(clock: clock))
        try configuration.setTimeZone(identifier: "Asia/Tokyo")
        #expect(configuration.context.timeZone().identifier == "Asia/Tokyo")
        for bad in ["Europe/Pariss", "", "Europe/Paris\u{0}x", "../../etc/passwd"] {
            #expect(throws: AccountError(.invalidArgument), "\(bad.debugDescription)") { try configuration.setTimeZone(identifier: bad) }
        }
        #expect(configuration.context.timeZone().identifier == "Asia/Tokyo")
    }

    @Test("a device taken offline keeps its edits and syncs them once it is online again; a failing remote fails the sync with a typed error")
    func network() async throws {
        let (services, _) = try await signedInStack { $0.network = .offline }
        #expect(services.network.conditions == .offline)
        let plan = try await services.plans.createPlan(plan("10k"))
        await #expect(throws: SyncError(.remoteUnavailable)) { try await services.plans.sync() }
        services.network.conditions = .online
        try await services.plans.sync()
        #expect(try services.plans.status(ofPlan: plan.id) == .synced)
        services.network.conditions = .failing
        await #expect(throws: SyncError(.remoteUnavailable)) { try await services.plans.sync() }
    }

    @Test("the app's own remote and feature catalog are the stack's: plans sync through the remote, and the session shows the catalog's access")
    func appsOwnParts() async throws {
        let remote = FakeRemotePlanStore.inMemory(clock: clock)
        let coaching = Feature("coaching")
        let catalog = FeatureCatalog(features: [.free: [.basicPlans], .pro: [.basicPlans, coaching]])
        let (services, _) = try await signedInStack {
            $0.remote = remote
            $0.features = catalog
        }
        _ = try await services.plans.createPlan(plan("10k"))
        try await services.plans.sync()
        #expect(remote.calls.contains { $0.isCall(of: .write) })

        let session = services.makeSessionManager()
        await session.start()
        #expect(!session.featureAccess.canAccess(coaching) && session.featureAccess.minimumTier(for: coaching) == .pro)
        _ = try await session.purchase("com.train.pro.monthly")
        #expect(await waitUntil { session.featureAccess.canAccess(coaching) }, "the access follows the tier")
        session.stop()
    }

    @Test("the app's own auth service is the one every service acts through; such a stack cannot add users or make devices")
    func appsOwnAuth() async throws {
        let user = UserEntity(id: "firebase-uid-1", displayName: "Ada", createdAt: clock.now, lastSignInAt: clock.now)
        let auth = FakeAuthService(currentUser: user)
        let services = TrainServices.inMemory(configuration: TrainServicesConfiguration(context: TrainContext(clock: clock), auth: auth))
        _ = try await services.social.unlockFeed(workoutType: .run)
        #expect(try await services.social.createPost(content: "Hello", workoutType: .run).userID == user.id)
        await #expect(throws: AccountError(.notSupported)) { try await services.addUser(named: "Grace") }
        #expect(throws: AccountError(.notSupported)) { try services.makeDevice(for: user.id) }
    }

    @Test("a friend added to the world posts from a device of their own, and the post reaches the feed of the user who follows them")
    func friends() async throws {
        let (services, ada) = try await signedInStack()
        let grace = try await services.addUser(named: "Grace Hopper", email: "grace@example.com")
        #expect(grace.displayName == "Grace Hopper" && grace.id != ada.id)
        #expect(services.auth.currentUser?.id == ada.id, "adding a user signs nobody in or out")
        let gracePhone = try services.makeDevice(for: grace.id)
        #expect(gracePhone.auth.currentUser?.id == grace.id)
        _ = try await gracePhone.social.unlockFeed(workoutType: .run)
        let post = try await gracePhone.social.createPost(content: "6 × 800 m", workoutType: .run)

        try await services.social.follow(grace.id)
        _ = try await services.social.unlockFeed(workoutType: .strength)
        #expect(try await services.social.friendsFeed(limit: 20).map(\.id) == [post.id])
        #expect(try await gracePhone.social.followers().map(\.id) == [ada.id], "both devices see one world")
        _ = try await services.subscriptions.purchase("com.train.pro.monthly")
        #expect(services.subscriptions.currentTier == .pro && gracePhone.subscriptions.currentTier == .free, "Grace has an Apple ID of her own")
    }

    @Test("a user's second device syncs their plans through the one remote and has what their Apple ID bought; each device has its own network")
    func secondDevice() async throws {
        let (services, ada) = try await signedInStack()
        let tablet = try services.makeDevice(for: ada.id)
        let plan = try await services.plans.createPlan(plan("Spring 10k"))
        try await services.plans.sync()
        try await tablet.plans.sync()
        #expect(try tablet.plans.plan(id: plan.id)?.name == "Spring 10k")
        _ = try await services.subscriptions.purchase("com.train.pro.monthly")
        #expect(tablet.subscriptions.currentTier == .pro)
        tablet.network.conditions = .offline
        await #expect(throws: SyncError(.remoteUnavailable)) { try await tablet.plans.sync() }
        try await services.plans.sync()
    }

    @Test("a device for a user who does not exist, and a friend with no name or a control character in it, are typed errors")
    func badInput() async throws {
        let (services, _) = try await signedInStack()
        #expect(throws: AccountError(.userNotFound)) { try services.makeDevice(for: "nobody") }
        #expect(throws: AccountError(.userNotFound)) { try services.makeDevice(for: "") }
        for name in ["", "   ", "Grace\u{0}", String(repeating: "a", count: 101)] {
            await #expect(throws: AccountError(.invalidArgument)) { try await services.addUser(named: name) }
        }
    }

    @Test("in files, a second device keeps its data under devices/, owner-only, and finds it again after a relaunch")
    func devicesInFiles() async throws {
        let directory = try TemporaryDirectory()
        let folder = directory.file("Train")
        let configuration = TrainServicesConfiguration(context: TrainContext(clock: clock))
        var planID: UUID?
        do {
            let services = try TrainServices.files(in: folder, configuration: configuration)
            services.appleID.signIn(as: .ada)
            let ada = try await services.auth.signInWithApple()
            let tablet = try services.makeDevice(for: ada.id)
            planID = try await tablet.plans.createPlan(plan("Made on the tablet")).id
        }
        let relaunched = try TrainServices.files(in: folder, configuration: configuration)
        let ada = try #require(relaunched.auth.currentUser)
        let tablet = try relaunched.makeDevice(for: ada.id)
        #expect(try tablet.plans.plans().map(\.id) == [try #require(planID)])
        let devices = folder.appendingPathComponent("devices")
        for path in [devices.path, devices.appendingPathComponent("1").path] {
            #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o700)
        }
    }
}
