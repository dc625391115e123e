import Foundation
import Testing
import TrainAccount
import TrainAuth
import TrainSubscription
import TrainTesting

/// A subscription whose renewal failed to bill, in a world's snapshot: a subscriber in
/// billing retry or in the billing grace period is a fixture too, and an export keeps
/// them so.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct WorldSnapshotBillingTests {

    let clock = ManualClock()
    var configuration: TrainServicesConfiguration { WorldSnapshotPurchaseTests.configuration(on: clock) }
    static let monthly = WorldSnapshotPurchaseTests.monthly

    /// A stack in memory where Ada bought the monthly subscription and, with the store
    /// failing renewals then (into the grace period with `grace`), its first renewal
    /// failed to bill; the store bills again after, as an importing stack's does.
    func failedRenewal(grace: Bool) async throws -> (TrainServices, UserEntity, failedAt: Date) {
        let services = TrainServices.inMemory(configuration: configuration)
        services.appleID.signIn(as: .ada)
        let ada = try await services.auth.signInWithApple()
        _ = try await services.subscriptions.purchase(Self.monthly)
        let failedAt = try #require(try await services.subscriptions.latestTransaction(for: Self.monthly)?.unsafePayloadValue.expirationDate)
        services.appStore.shouldEnterBillingRetryOnRenewal = true
        services.appStore.billingGracePeriodIsEnabled = grace
        clock.advance(by: .seconds(failedAt.timeIntervalSince(clock.now) + 3_600))
        services.appStore.settle()
        services.appStore.shouldEnterBillingRetryOnRenewal = false
        services.appStore.billingGracePeriodIsEnabled = false
        return (services, ada, failedAt)
    }

    /// The renewal state of the signed-in user's subscription.
    static func state(_ services: TrainServices) async throws -> RenewalState? {
        try await services.subscriptions.subscriptionStatuses().first?.state
    }

    @Test(
        "a renewal that failed to bill exports its date and whether grace followed; the imported world is in billing retry or grace as the original, to the same bytes and notifications, and both expire alike",
        arguments: [false, true])
    func failedRenewalRoundTrip(grace: Bool) async throws {
        let (original, ada, failedAt) = try await failedRenewal(grace: grace)
        #expect(try await Self.state(original) == (grace ? .inGracePeriod : .inBillingRetryPeriod))
        let snapshot = try original.exportWorld()
        let purchase = try #require(snapshot.purchases.first)
        #expect(purchase.billingFailedAt == failedAt && purchase.billingGracePeriod == (grace ? true : nil))
        #expect(purchase.expiresAt == nil, "it is not ending: the store still tries to bill it")
        let imported = try TrainServices.inMemory(from: try WorldSnapshot(json: snapshot.encoded()), signedIn: ada.id, configuration: configuration)
        #expect(try imported.exportWorld().encoded() == snapshot.encoded())
        #expect(try await Self.state(imported) == Self.state(original))
        #expect(imported.subscriptions.currentTier == (grace ? .pro : .free))
        #expect(imported.subscriptions.currentTier == original.subscriptions.currentTier)
        #expect(WorldSnapshotPurchaseTests.told(imported.appStore) == WorldSnapshotPurchaseTests.told(original.appStore))
        // Past the grace period, then past billing retry: the same notifications, in both.
        for days in [20.0, 70] {
            clock.advance(by: .seconds(failedAt.addingTimeInterval(days * 86_400).timeIntervalSince(clock.now)))
            for services in [original, imported] { services.appStore.settle() }
            #expect(try await Self.state(imported) == Self.state(original))
            #expect(WorldSnapshotPurchaseTests.told(imported.appStore) == WorldSnapshotPurchaseTests.told(original.appStore))
        }
        #expect(try await Self.state(original) == .expired)
        #expect(WorldSnapshotPurchaseTests.told(original.appStore).contains { $0.contains("GRACE_PERIOD_EXPIRED") } == grace)
    }

    @Test("a subscription that expired in billing retry before a new one exports its failed renewal, and imports with the same notifications")
    func lapsedInBillingRetryBeforeResubscribing() async throws {
        let (original, ada, failedAt) = try await failedRenewal(grace: false)
        clock.advance(by: .seconds(70 * 86_400))
        _ = try await original.subscriptions.currentEntitlements()
        _ = try await original.subscriptions.purchase(Self.monthly)
        clock.advance(by: .seconds(86_400))
        let snapshot = try original.exportWorld()
        #expect(snapshot.purchases.map(\.billingFailedAt) == [failedAt, nil])
        #expect(snapshot.purchases.map(\.expiresAt) == [nil, nil])
        let imported = try TrainServices.inMemory(from: snapshot, signedIn: ada.id, configuration: configuration)
        #expect(try imported.exportWorld().encoded() == snapshot.encoded())
        #expect(WorldSnapshotPurchaseTests.told(imported.appStore) == WorldSnapshotPurchaseTests.told(original.appStore))
        #expect(imported.subscriptions.currentTier == .pro)
    }

    @Test("a billing issue resolved by a renewal is no longer a failed renewal: the export gives none, and the import renews")
    func resolved() async throws {
        let (original, ada, _) = try await failedRenewal(grace: false)
        try original.appStore.resolveBillingIssue(productID: Self.monthly)
        #expect(original.subscriptions.currentTier == .pro)
        let snapshot = try original.exportWorld()
        #expect(snapshot.purchases.first?.billingFailedAt == nil && snapshot.purchases.first?.expiresAt == nil)
        let imported = try TrainServices.inMemory(from: snapshot, signedIn: ada.id, configuration: configuration)
        #expect(imported.subscriptions.currentTier == .pro)
    }

    @Test(
        "a failed renewal on a purchase that does not renew, before the purchase, with an end or after its refund, after now, or grace without one is refused at its field",
        arguments: [
            ("com.train.lifetime", -40.0, -10.0, "", "billingFailedAt"),
            ("com.train.pro.monthly", -40, -50, "", "billingFailedAt"),
            ("com.train.pro.monthly", -40, -10, "expiresAt", "billingFailedAt"),
            ("com.train.pro.monthly", -40, -10, "refundedAt", "billingFailedAt"),
            ("com.train.pro.monthly", -40, 10, "", "billingFailedAt"),
            ("com.train.pro.monthly", -40, 0, "grace", "billingGracePeriod"),
        ])
    func refused(product: String, purchasedAt: Double, failedAt: Double, with other: String, field: String) throws {
        let now = clock.now
        var purchase = WorldSnapshot.Purchase(user: "ada", product: product, purchasedAt: now.addingTimeInterval(purchasedAt * 86_400))
        purchase.billingFailedAt = failedAt == 0 ? nil : now.addingTimeInterval(failedAt * 86_400)
        switch other {
        case "expiresAt": purchase.expiresAt = now.addingTimeInterval(5 * 86_400)
        case "refundedAt": purchase.refundedAt = now.addingTimeInterval(-15 * 86_400)
        case "grace": purchase.billingGracePeriod = true
        default: break
        }
        var world = WorldSnapshot(users: [WorldSnapshot.User(id: "ada")])
        world.purchases = [purchase]
        let error = #expect(throws: WorldSnapshotError.self) { try TrainServices.inMemory(from: world, configuration: configuration) }
        #expect(error?.code == .invalidValue && error?.path == "purchases[0].\(field)", "\(error?.detail ?? "")")
    }

    @Test("a failed renewal dated in a period that has not ended by now, or by the next purchase of its group, is refused at its purchase")
    func renewalNotDue() throws {
        let now = clock.now
        var failing = WorldSnapshot.Purchase(user: "ada", product: Self.monthly, purchasedAt: now.addingTimeInterval(-40 * 86_400))
        failing.billingFailedAt = now.addingTimeInterval(-86_400)
        var world = WorldSnapshot(users: [WorldSnapshot.User(id: "ada")])
        world.purchases = [failing]
        var error = #expect(throws: WorldSnapshotError.self) { try TrainServices.inMemory(from: world, configuration: configuration) }
        #expect(error?.code == .invalidValue && error?.path == "purchases[0]", "\(error?.detail ?? "")")
        // In a period an upgrade took over before it ended: that renewal was never due.
        failing.billingFailedAt = now.addingTimeInterval(-25 * 86_400)
        world.purchases = [
            failing, WorldSnapshot.Purchase(user: "ada", product: "com.train.premium.monthly", purchasedAt: now.addingTimeInterval(-20 * 86_400)),
        ]
        error = #expect(throws: WorldSnapshotError.self) { try TrainServices.inMemory(from: world, configuration: configuration) }
        #expect(error?.code == .invalidValue && error?.path == "purchases[0]", "\(error?.detail ?? "")")
    }

    @Test("a fixture's subscriber in billing retry is on the free tier, one in its grace period on Pro, until the grace period ends")
    func fixture() throws {
        let now = clock.now
        // Its introductory week, then a month that ended 12 to 15 days ago, whatever its
        // length: that month's renewal failed.
        var purchase = WorldSnapshot.Purchase(user: "ada", product: Self.monthly, purchasedAt: now.addingTimeInterval(-50 * 86_400))
        purchase.billingFailedAt = now.addingTimeInterval(-16 * 86_400)
        var world = WorldSnapshot(users: [WorldSnapshot.User(id: "ada")])
        world.purchases = [purchase]
        #expect(try TrainServices.inMemory(from: world, signedIn: "ada", configuration: configuration).subscriptions.currentTier == .free)
        world.purchases[0].billingGracePeriod = true
        let inGrace = try TrainServices.inMemory(from: world, signedIn: "ada", configuration: configuration)
        #expect(inGrace.subscriptions.currentTier == .pro)
        clock.advance(by: .seconds(5 * 86_400))
        inGrace.appStore.settle()
        #expect(inGrace.subscriptions.currentTier == .free, "16 days of grace from the failed renewal have passed")
    }

    /// `original` exported, imported with Ada signed in, exported again: the same bytes
    /// and server notifications, and the same renewal state, now and past billing retry.
    func expectSameWorld(_ original: TrainServices, _ ada: UserEntity, _ snapshot: WorldSnapshot) async throws {
        let imported = try TrainServices.inMemory(from: try WorldSnapshot(json: snapshot.encoded()), signedIn: ada.id, configuration: configuration)
        #expect(try imported.exportWorld().encoded() == snapshot.encoded())
        #expect(WorldSnapshotPurchaseTests.told(imported.appStore) == WorldSnapshotPurchaseTests.told(original.appStore))
        let before = try await original.subscriptions.subscriptionStatuses().map(\.renewalInfo.unsafePayloadValue)
        #expect(try await imported.subscriptions.subscriptionStatuses().map(\.renewalInfo.unsafePayloadValue) == before)
        clock.advance(by: .seconds(70 * 86_400))
        for services in [original, imported] { services.appStore.settle() }
        #expect(WorldSnapshotPurchaseTests.told(imported.appStore) == WorldSnapshotPurchaseTests.told(original.appStore))
    }

    @Test(
        "a crossgrade asked for in the grace period after a failed renewal exports both, and imports with the failure first, to the same bytes and notifications"
    )
    func crossgradeInGrace() async throws {
        let (original, ada, failedAt) = try await failedRenewal(grace: true)
        clock.advance(by: .seconds(86_400))
        _ = try await original.subscriptions.purchase("com.train.pro.yearly")
        let snapshot = try original.exportWorld()
        let purchase = try #require(snapshot.purchases.first)
        #expect(purchase.billingFailedAt == failedAt && purchase.renewsAs == "com.train.pro.yearly" && purchase.renewsAsSince == clock.now)
        try await expectSameWorld(original, ada, snapshot)
    }

    @Test("auto-renew turned off in billing retry exports its date beside the failed renewal and imports off, with its notification")
    func autoRenewOffInBillingRetry() async throws {
        let (original, ada, failedAt) = try await failedRenewal(grace: false)
        clock.advance(by: .seconds(86_400))
        try original.appStore.setAutoRenew(false, productID: Self.monthly)
        let snapshot = try original.exportWorld()
        #expect(snapshot.purchases.first?.billingFailedAt == failedAt && snapshot.purchases.first?.autoRenewOffAt == clock.now)
        #expect(try await original.subscriptions.subscriptionStatuses().first?.renewalInfo.unsafePayloadValue.willAutoRenew == false)
        try await expectSameWorld(original, ada, snapshot)
    }

    @Test(
        "a refund in the grace period exports beside the failed renewal, and the import refunds the last paid period without a renewal the original never had"
    )
    func refundInGrace() async throws {
        let (original, ada, failedAt) = try await failedRenewal(grace: true)
        clock.advance(by: .seconds(86_400))
        let latest = try #require(try await original.subscriptions.latestTransaction(for: Self.monthly)?.unsafePayloadValue)
        try original.appStore.refund(transactionID: latest.id, reason: .developerIssue)
        let snapshot = try original.exportWorld()
        #expect(snapshot.purchases.first?.billingFailedAt == failedAt && snapshot.purchases.first?.refundedAt == clock.now)
        let renewals = { (services: TrainServices) in services.appStore.allTransactions.filter { $0.unsafePayloadValue.reason == .renewal }.count }
        let imported = try TrainServices.inMemory(from: snapshot, signedIn: ada.id, configuration: configuration)
        #expect(renewals(imported) == renewals(original))
        try await expectSameWorld(original, ada, snapshot)
    }

    @Test(
        "billing retry resolved and then failing again starts the periods anew, which a replay from the purchase cannot place: the export ends it in the period its last paid one began in, and the import takes it without access"
    )
    func resolvedThenFailedAgain() async throws {
        let (original, ada, _) = try await failedRenewal(grace: false)
        clock.advance(by: .seconds(3_600))
        try original.appStore.resolveBillingIssue(productID: Self.monthly)
        original.appStore.shouldEnterBillingRetryOnRenewal = true
        clock.advance(by: .seconds(32 * 86_400))
        original.appStore.settle()
        original.appStore.shouldEnterBillingRetryOnRenewal = false
        #expect(try await Self.state(original) == .inBillingRetryPeriod)
        let snapshot = try original.exportWorld()
        let resolvedAt = try #require(try await original.subscriptions.latestTransaction(for: Self.monthly)?.unsafePayloadValue.purchaseDate)
        #expect(snapshot.purchases.first?.billingFailedAt == nil && snapshot.purchases.first?.expiresAt == resolvedAt)
        let imported = try TrainServices.inMemory(from: snapshot, signedIn: ada.id, configuration: configuration)
        #expect(original.subscriptions.currentTier == .free && imported.subscriptions.currentTier == .free)
        // From then on the imported world is one a replay makes: it exports what it imports.
        let again = try imported.exportWorld()
        #expect(try TrainServices.inMemory(from: again, signedIn: ada.id, configuration: configuration).exportWorld().encoded() == again.encoded())
    }

    @Test(
        "a renewal forced early starts the periods anew: a later failed renewal exports without its date, and the import takes the world without access"
    )
    func forcedRenewalThenFailed() async throws {
        let services = TrainServices.inMemory(configuration: configuration)
        services.appleID.signIn(as: .ada)
        let ada = try await services.auth.signInWithApple()
        _ = try await services.subscriptions.purchase(Self.monthly)
        clock.advance(by: .seconds(3 * 86_400))
        try services.appStore.forceRenewal(productID: Self.monthly)
        let forced = try #require(try await services.subscriptions.latestTransaction(for: Self.monthly)?.unsafePayloadValue)
        services.appStore.shouldEnterBillingRetryOnRenewal = true
        clock.advance(by: .seconds(try #require(forced.expirationDate).timeIntervalSince(clock.now) + 5 * 86_400))
        services.appStore.settle()
        services.appStore.shouldEnterBillingRetryOnRenewal = false
        #expect(try await Self.state(services) == .inBillingRetryPeriod)
        let snapshot = try services.exportWorld()
        #expect(snapshot.purchases.first?.billingFailedAt == nil && snapshot.purchases.first?.expiresAt == forced.purchaseDate)
        let imported = try TrainServices.inMemory(from: snapshot, signedIn: ada.id, configuration: configuration)
        #expect(services.subscriptions.currentTier == .free && imported.subscriptions.currentTier == .free)
    }
}
