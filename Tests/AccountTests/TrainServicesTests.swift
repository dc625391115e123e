import Foundation
import Testing
import TrainAccount
import TrainAuth
import TrainCore
import TrainSocial
import TrainSubscription
import TrainSync
import TrainTesting

@MainActor
@Suite(.timeLimit(.minutes(1))) struct TrainServicesTests {

    @Test("one call builds a stack in memory whose services work together through the session manager")
    func inMemoryStack() async throws {
        let clock = ManualClock()
        let services = TrainServices.inMemory(configuration: TrainServicesConfiguration(context: TrainContext(clock: clock)))
        let session = services.makeSessionManager()
        await session.start()
        services.appleID.signIn(as: .ada)
        let user = try await session.signInWithApple()
        _ = try await session.purchase("com.train.pro.monthly")
        #expect(session.tier == .pro)
        _ = try await services.social.unlockFeed(workoutType: .run)
        #expect(await waitUntil { session.isFeedUnlocked }, "the session follows the unlock with no refresh")
        _ = try await services.plans.createPlan(TrainingPlan(name: "10k", startDate: clock.now, endDate: clock.now, daysPerWeek: 3))
        _ = try await services.plans.sync()
        let deletion = try await session.deleteAccount()
        #expect(deletion.userID == user.id)
        let report = try await services.account.deletionCompletion(of: user.id)
        #expect(report.plans.remoteRecords == 1)
        #expect(report.activeSubscriptions == 1, "the stack's own subscription service was asked")
        #expect(session.authState == .unauthenticated && session.tier == .free)
        #expect(services.subscriptions.currentTier == .pro, "the App Store subscription stays with the device's Apple ID")
        session.stop()
    }

    @Test("a stack in a directory keeps the session, plans, purchases and consents across a relaunch, in owner-only files")
    func fileStack() async throws {
        let directory = try TemporaryDirectory()
        let folder = directory.file("Train")
        let clock = ManualClock()
        let configuration = TrainServicesConfiguration(context: TrainContext(clock: clock))
        do {
            let services = try TrainServices.files(in: folder, configuration: configuration)
            let session = services.makeSessionManager()
            await session.start()
            services.appleID.signIn(as: .ada)
            try await session.signInWithApple()
            _ = try await session.purchase("com.train.pro.monthly")
            _ = try await services.plans.createPlan(TrainingPlan(name: "10k", startDate: clock.now, endDate: clock.now, daysPerWeek: 3))
            try await services.account.accept(.terms, version: 1)
            session.stop()
        }
        let relaunched = try TrainServices.files(in: folder, configuration: configuration)
        let session = relaunched.makeSessionManager()
        await session.start()
        #expect(session.authState == .authenticated)
        #expect(session.tier == .pro)
        #expect(try relaunched.plans.plans().map(\.name) == ["10k"])
        #expect(try relaunched.account.consentHistory().map(\.document) == [.terms])
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(files.contains("trainkit.sqlite") && files.contains("appstore.sqlite") && files.contains("remote.sqlite"))
        let permissions = try FileManager.default.attributesOfItem(atPath: folder.path)[.posixPermissions] as? Int
        #expect(permissions == 0o700)
        session.stop()
    }

    @Test("a preview stack cannot fail, starts signed in at once, and then holds its sample data: friends, and a feed waiting for a workout")
    func previewStack() async throws {
        let services = TrainServices.preview()
        #expect(services.auth.currentUser == TrainServices.previewUser)
        await services.sampleDataLoaded?.value
        #expect(try services.plans.plans().count == 2)
        #expect(try await services.social.following().map(\.displayName).sorted() == ["Grace", "Linus"])
        #expect(!services.social.hasFeedUnlocked(), "the feed waits for a workout")
        await #expect(throws: SocialError(.feedLocked)) { try await services.social.friendsFeed(limit: 20) }
        #expect(try await services.social.unlockFeed(workoutType: .run).workout?.distance == 10_000, "a sample run ended just now")
        #expect(try await services.social.friendsFeed(limit: 20).map(\.userName).sorted() == ["Grace", "Linus"])
        #expect(try services.account.documentsNeedingConsent().isEmpty)
        let signedOut = TrainServices.preview(signedIn: nil)
        #expect(signedOut.auth.currentUser == nil)
        await signedOut.sampleDataLoaded?.value
        #expect(try signedOut.account.pendingDeletions().isEmpty)
    }

    @Test("the session's feed follows a workout and local midnight in the stack's time zone, with no refresh")
    func feedFollowsWorkoutAndMidnight() async throws {
        let clock = ManualClock(start: ManualClock.defaultStart.addingTimeInterval(20 * 3_600)) // 21:00 in Paris
        let paris = TimeZone(identifier: "Europe/Paris") ?? .current
        let services = TrainServices.inMemory(configuration: TrainServicesConfiguration(context: TrainContext(clock: clock, timeZone: { paris })))
        let session = services.makeSessionManager()
        await session.start()
        services.appleID.signIn(as: .ada)
        try await session.signInWithApple()
        #expect(!session.isFeedUnlocked && session.feedUnlockedUntil == nil)
        _ = try await services.social.unlockFeed(workoutType: .run)
        let midnight = ManualClock.defaultStart.addingTimeInterval(23 * 3_600) // 2026-01-02 00:00 in Paris
        #expect(await waitUntil { session.feedUnlockedUntil == midnight })
        #expect(session.isFeedUnlocked)
        await clock.waitForSleeper(wakingBy: midnight)
        clock.advance(by: .seconds(3 * 3_600 - 1))
        #expect(session.isFeedUnlocked, "a second before midnight it is open")
        clock.advance(by: .seconds(1))
        #expect(await waitUntil { !session.isFeedUnlocked }, "at midnight it locks, with no refresh")
        #expect(session.feedUnlockedUntil == nil)
        session.stop()
    }

    @Test(
        "the stack's paywalls gate by the session's tier, and the session manager tells them who is signed in, so a user's variant is the same on every device"
    )
    func paywalls() async throws {
        let services = TrainServices.inMemory(configuration: TrainServicesConfiguration(context: TrainContext(clock: ManualClock())))
        let session = services.makeSessionManager()
        await session.start()
        let offering = PaywallOffering(id: "pro", packages: [PaywallPackage(id: "monthly", productID: "com.train.pro.monthly")])
        var variants: [PaywallVariant] = []
        for index in 0..<10 { variants.append(PaywallVariant(id: "v\(index)", weight: 10, offering: "pro")) }
        let configuration = PaywallConfiguration(
            offerings: [offering], experiments: [PaywallExperiment(id: "tenths", variants: variants)],
            placements: [PaywallPlacement(id: "analytics", feature: .analytics, rules: [PaywallRule(.experiment("tenths"))])])
        try await services.paywalls.replaceConfiguration(configuration)
        services.appleID.signIn(as: .ada)
        let ada = try await session.signInWithApple()
        #expect(try await services.paywalls.gate(placement: "analytics").presentation?.offering == offering)
        let tablet = try services.makeDevice(for: ada.id)
        let tabletSession = tablet.makeSessionManager()
        await tabletSession.start()
        try await tablet.paywalls.replaceConfiguration(configuration)
        #expect(try await tablet.paywalls.assignment(in: "tenths") == services.paywalls.assignment(in: "tenths"), "one user, one variant of ten")
        #expect(try await services.paywalls.exposures().map(\.user) == [ada.id])
        try await session.signOut()
        _ = try await services.paywalls.gate(placement: "analytics")
        #expect(try await services.paywalls.exposures().last?.user.hasPrefix("install:") == true, "signed out: the installation")
        services.appleID.signIn(as: .ada)
        try await session.signInWithApple()
        _ = try await session.purchase("com.train.pro.monthly")
        #expect(try await services.paywalls.gate(placement: "analytics") == .granted, "pro unlocks the placement's feature")
        #expect(try await services.paywalls.exposures().count == 2)
        session.stop()
        tabletSession.stop()
    }

    @Test("deleting an account removes the exposures the stack's paywalls logged for it, and no one else's")
    func deletionRemovesExposures() async throws {
        let services = TrainServices.inMemory(configuration: TrainServicesConfiguration(context: TrainContext(clock: ManualClock())))
        let session = services.makeSessionManager()
        await session.start()
        let offering = PaywallOffering(id: "pro", packages: [PaywallPackage(id: "monthly", productID: "com.train.pro.monthly")])
        try await services.paywalls.replaceConfiguration(
            PaywallConfiguration(
                offerings: [offering],
                experiments: [PaywallExperiment(id: "one", variants: [PaywallVariant(id: "all", weight: 100, offering: "pro")])],
                placements: [PaywallPlacement(id: "analytics", feature: .analytics, rules: [PaywallRule(.experiment("one"))])]))
        _ = try await services.paywalls.gate(placement: "analytics")
        services.appleID.signIn(as: .ada)
        let ada = try await session.signInWithApple()
        _ = try await services.paywalls.gate(placement: "analytics")
        _ = try await services.paywalls.gate(placement: "analytics")
        #expect(try await services.paywalls.exposures().filter { $0.user == ada.id }.count == 2)
        _ = try await session.deleteAccount()
        let report = try await services.account.deletionCompletion(of: ada.id)
        let left = try await services.paywalls.exposures()
        #expect(left.count == 1 && left.allSatisfy { $0.user.hasPrefix("install:") }, "the installation's exposure stays")
        #expect(report.localRecords >= 2, "the report counts them")
        session.stop()
    }
}
