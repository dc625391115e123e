import Foundation
import Testing
import TrainAccount
import TrainAuth
import TrainCore
import TrainSubscription
import TrainTesting

/// A subscription whose auto-renew is off, and a refunded purchase, in a world's
/// snapshot: a lapsed, lapsing or refunded subscriber is a fixture too.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct WorldSnapshotPurchaseTests {

    let clock = ManualClock()
    var configuration: TrainServicesConfiguration { Self.configuration(on: clock) }
    static let monthly = "com.train.pro.monthly"

    /// A stack in memory where Ada, signed in with Apple, has bought the monthly subscription.
    func subscriber() async throws -> (TrainServices, UserEntity) {
        let services = TrainServices.inMemory(configuration: configuration)
        services.appleID.signIn(as: .ada)
        let ada = try await services.auth.signInWithApple()
        _ = try await services.subscriptions.purchase(Self.monthly)
        return (services, ada)
    }

    /// The standard products and a lifetime purchase, on `clock`.
    static func configuration(on clock: ManualClock) -> TrainServicesConfiguration {
        TrainServicesConfiguration(
            context: TrainContext(clock: clock),
            products: AppStoreProduct.standard + [.nonConsumable(id: "com.train.lifetime", displayName: "Lifetime", tier: .premium, price: 99)])
    }

    @Test("a subscription with auto-renew off exports the end of its period and imports to the same bytes; it lapses then in both worlds")
    func autoRenewOff() async throws {
        let (original, ada) = try await subscriber()
        clock.advance(by: .seconds(40 * 86_400))
        try original.appStore.setAutoRenew(false, productID: Self.monthly)
        let snapshot = try original.exportWorld()
        let expiresAt = try #require(snapshot.purchases.first?.expiresAt)
        #expect(expiresAt > clock.now, "renewed once, it runs to the end of its second month")
        let first = try snapshot.encoded()
        let imported = try TrainServices.inMemory(from: try WorldSnapshot(json: first), signedIn: ada.id, configuration: configuration)
        #expect(try imported.exportWorld().encoded() == first)
        #expect(imported.subscriptions.currentTier == .pro)
        clock.advance(by: .seconds(expiresAt.timeIntervalSince(clock.now) + 1))
        for services in [original, imported] {
            #expect(try await services.subscriptions.currentEntitlements().isEmpty)
        }
    }

    @Test("a fixture's subscription that expired is on the free tier; one left renewing is on Pro")
    func lapsedSubscriber() throws {
        let now = clock.now
        var lapsed = WorldSnapshot(users: [WorldSnapshot.User(id: "ada")])
        var purchase = WorldSnapshot.Purchase(user: "ada", product: Self.monthly, purchasedAt: now.addingTimeInterval(-90 * 86_400))
        purchase.expiresAt = now.addingTimeInterval(-60 * 86_400)
        lapsed.purchases = [purchase]
        #expect(try TrainServices.inMemory(from: lapsed, signedIn: "ada", configuration: configuration).subscriptions.currentTier == .free)
        lapsed.purchases[0].expiresAt = nil
        #expect(try TrainServices.inMemory(from: lapsed, signedIn: "ada", configuration: configuration).subscriptions.currentTier == .pro)
    }

    @Test("a refunded subscription exports its refund and imports to the same bytes, without access in either world")
    func refunded() async throws {
        let (original, ada) = try await subscriber()
        clock.advance(by: .seconds(40 * 86_400))
        let latest = try #require(try await original.subscriptions.latestTransaction(for: Self.monthly)?.unsafePayloadValue)
        try original.appStore.refund(transactionID: latest.id, reason: .developerIssue)
        let snapshot = try original.exportWorld()
        #expect(snapshot.purchases.first?.refundedAt == clock.now && snapshot.purchases.first?.refundReason == .developerIssue)
        #expect(snapshot.purchases.first?.expiresAt == nil)
        let first = try snapshot.encoded()
        let imported = try TrainServices.inMemory(from: try WorldSnapshot(json: first), signedIn: ada.id, configuration: configuration)
        #expect(try imported.exportWorld().encoded() == first)
        for services in [original, imported] {
            #expect(try await services.subscriptions.currentEntitlements().isEmpty)
            let renewed = try await services.subscriptions.latestTransaction(for: Self.monthly)?.unsafePayloadValue
            #expect(renewed?.revocationReason == .developerIssue, "the period it was in then is revoked")
        }
    }

    @Test("a fixture's refunded lifetime purchase grants nothing")
    func refundedLifetime() throws {
        let now = clock.now
        var world = WorldSnapshot(users: [WorldSnapshot.User(id: "ada")])
        var purchase = WorldSnapshot.Purchase(user: "ada", product: "com.train.lifetime", purchasedAt: now.addingTimeInterval(-86_400))
        world.purchases = [purchase]
        #expect(try TrainServices.inMemory(from: world, signedIn: "ada", configuration: configuration).subscriptions.currentTier == .premium)
        purchase.refundedAt = now
        world.purchases = [purchase]
        #expect(try TrainServices.inMemory(from: world, signedIn: "ada", configuration: configuration).subscriptions.currentTier == .free)
    }

    @Test(
        "an end given to a purchase that does not renew or before it was bought, a refund before it or with an end, is a typed error naming it",
        arguments: [
            (
                #"{"user": "ada", "product": "com.train.lifetime", "purchasedAt": "2020-01-01T00:00:00Z", "expiresAt": "2020-02-01T00:00:00Z"}"#,
                "purchases[0].expiresAt"
            ),
            (
                #"{"user": "ada", "product": "com.train.pro.monthly", "purchasedAt": "2020-01-01T00:00:00Z", "expiresAt": "2019-12-01T00:00:00Z"}"#,
                "purchases[0].expiresAt"
            ),
            (
                #"{"user": "ada", "product": "com.train.pro.monthly", "purchasedAt": "2020-01-01T00:00:00Z", "refundedAt": "2019-12-01T00:00:00Z"}"#,
                "purchases[0].refundedAt"
            ),
            (
                #"{"user": "ada", "product": "com.train.pro.monthly", "purchasedAt": "2020-01-01T00:00:00Z", "refundedAt": "2020-01-02T00:00:00Z", "expiresAt": "2020-03-01T00:00:00Z"}"#,
                "purchases[0].refundedAt"
            ),
            (#"{"user": "ada", "product": "com.train.pro.monthly", "refundReason": "other"}"#, "purchases[0].refundReason"),
        ])
    func refused(purchase: String, path: String) throws {
        let json = #"{"version": 1, "users": [{"id": "ada"}], "purchases": [\#(purchase)]}"#
        let error = #expect(throws: WorldSnapshotError.self) {
            _ = try TrainServices.inMemory(from: try WorldSnapshot(json: Data(json.utf8)), configuration: configuration)
        }
        #expect(error?.path == path, "\(error?.detail ?? "")")
    }

    @Test(
        "a lapse and a new subscription later, or an upgrade, export as purchases of their own and import to the same transactions, tier and bytes",
        arguments: [false, true])
    func laterPurchasesInTheGroup(upgrade: Bool) async throws {
        let (original, ada) = try await subscriber()
        clock.advance(by: .seconds(40 * 86_400))
        if upgrade {
            _ = try await original.subscriptions.purchase("com.train.premium.yearly")
        } else {
            try original.appStore.setAutoRenew(false, productID: Self.monthly)
            clock.advance(by: .seconds(60 * 86_400))
            _ = try await original.subscriptions.purchase(Self.monthly)
        }
        clock.advance(by: .seconds(86_400))
        let snapshot = try original.exportWorld()
        #expect(snapshot.purchases.count == 2)
        #expect((snapshot.purchases.first?.expiresAt != nil) == !upgrade, "a lapse ends the first purchase; an upgrade takes over from it")
        let imported = try TrainServices.inMemory(from: snapshot, signedIn: ada.id, configuration: configuration)
        func ledger(_ services: TrainServices) -> [String] {
            services.appStore.allTransactions.map(\.unsafePayloadValue).map { transaction in
                "\(transaction.productID) \(transaction.purchaseDate) \(transaction.reason) upgraded \(transaction.isUpgraded) "
                    + "until \(String(describing: transaction.expirationDate))"
            }
        }
        #expect(ledger(imported) == ledger(original))
        #expect(imported.subscriptions.currentTier == original.subscriptions.currentTier)
        #expect(imported.subscriptions.currentTier == (upgrade ? .premium : .pro))
        #expect(try imported.exportWorld().encoded() == snapshot.encoded())
    }

    @Test("in a fixture, a later purchase in the group takes over: the first renews up to it, and a refusal names the later one's path")
    func fixtureChain() throws {
        let json = #"""
            {"version": 1, "users": [{"id": "ada"}],
             "purchases": [{"user": "ada", "product": "com.train.premium.yearly", "purchasedAt": "2026-01-01T00:00:00Z"},
                           {"user": "ada", "product": "com.train.pro.monthly", "purchasedAt": "2025-06-01T00:00:00Z", "expiresAt": "2025-08-01T00:00:00Z"}]}
            """#
        let services = try TrainServices.inMemory(from: try WorldSnapshot(json: Data(json.utf8)), signedIn: "ada", configuration: configuration)
        #expect(services.subscriptions.currentTier == .premium)
        let products = services.appStore.allTransactions.map(\.unsafePayloadValue).filter { $0.reason == .purchase }.map(\.productID)
        #expect(products == [Self.monthly, "com.train.premium.yearly"], "replayed by date, whatever the document's order")
        let twice = #"""
            {"version": 1, "users": [{"id": "ada"}],
             "purchases": [{"user": "ada", "product": "com.train.lifetime"}, {"user": "ada", "product": "com.train.lifetime"}]}
            """#
        let error = #expect(throws: WorldSnapshotError(.invalidValue)) {
            try TrainServices.inMemory(from: try WorldSnapshot(json: Data(twice.utf8)), configuration: configuration)
        }
        #expect(error?.path == "purchases[1]", "a product the Apple ID holds is not sold to it again")
    }
}

extension WorldSnapshotPurchaseTests {
    /// A store's server notifications as type, subtype, date and product, by date.
    static func told(_ store: SimulatedAppStore) -> [String] {
        store.serverNotifications.map { notification in
            "\(notification.signedDate.timeIntervalSince1970) \(notification.type) \(notification.subtype.map { "\($0)" } ?? "-") "
                + (notification.transaction?.productID ?? "-")
        }.sorted()
    }

    @Test(
        "an imported world's App Store tells the original's server notifications: the purchase at its date, its renewals, auto-renew turned off, a refund, and the lapse after"
    )
    func serverNotificationsReplayed() async throws {
        let (original, ada) = try await subscriber()
        clock.advance(by: .seconds(40 * 86_400))
        try original.appStore.setAutoRenew(false, productID: Self.monthly)
        clock.advance(by: .seconds(60))
        _ = try await original.subscriptions.purchase("com.train.lifetime")
        let lifetime = try #require(original.appStore.serverNotifications.last?.transaction?.id)
        clock.advance(by: .seconds(60))
        try original.appStore.refund(transactionID: lifetime, reason: .developerIssue)
        clock.advance(by: .seconds(60))
        let snapshot = try original.exportWorld()
        #expect(snapshot.purchases.first?.autoRenewOffAt == clock.now.addingTimeInterval(-180))
        let imported = try TrainServices.inMemory(from: snapshot, signedIn: ada.id, configuration: configuration)
        #expect(try imported.exportWorld().encoded() == snapshot.encoded())
        let before = Self.told(original.appStore)
        #expect(before.count >= 6, "a purchase, renewals, auto-renew off, a purchase and its refund: \(before)")
        #expect(Self.told(imported.appStore) == before)
        clock.advance(by: .seconds(40 * 86_400))
        #expect(Self.told(imported.appStore) == Self.told(original.appStore), "the lapse is told in both")
        #expect(Self.told(original.appStore).count > before.count)
    }

    @Test("auto-renew turned off before the purchase, after its end, or without an end is refused at its path")
    func autoRenewOffRefused() throws {
        let now = clock.now
        for (purchasedAt, offAt, expiresAt) in [(-10.0, -20.0, -1.0), (-30.0, -1.0, -2.0), (-30.0, -2.0, nil)] {
            var world = WorldSnapshot(users: [WorldSnapshot.User(id: "ada")])
            var purchase = WorldSnapshot.Purchase(user: "ada", product: Self.monthly, purchasedAt: now.addingTimeInterval(purchasedAt * 86_400))
            purchase.autoRenewOffAt = now.addingTimeInterval(offAt * 86_400)
            purchase.expiresAt = expiresAt.map { now.addingTimeInterval($0 * 86_400) }
            world.purchases = [purchase]
            let error = #expect(throws: WorldSnapshotError.self) { try TrainServices.inMemory(from: world, configuration: configuration) }
            #expect(error?.code == .invalidValue && error?.path == "purchases[0].autoRenewOffAt", "\(error?.detail ?? "")")
        }
    }
}

extension WorldSnapshotPurchaseTests {
    @Test(
        "a downgrade waiting for the renewal, or one that took effect at it, exports what the subscription renews as and since when; the imported world renews as the original does",
        arguments: [false, true])
    func downgrade(tookEffect: Bool) async throws {
        let (original, ada) = try await subscriber()
        clock.advance(by: .seconds(60))
        _ = try await original.subscriptions.purchase("com.train.premium.monthly")
        clock.advance(by: .seconds(10 * 86_400))
        _ = try await original.subscriptions.purchase(Self.monthly)
        let asked = clock.now
        clock.advance(by: .seconds(tookEffect ? 30 * 86_400 : 60))
        let snapshot = try original.exportWorld()
        let premium = try #require(snapshot.purchases.last)
        #expect(premium.product == "com.train.premium.monthly" && premium.renewsAs == Self.monthly && premium.renewsAsSince == asked)
        let imported = try TrainServices.inMemory(from: snapshot, signedIn: ada.id, configuration: configuration)
        #expect(try imported.exportWorld().encoded() == snapshot.encoded())
        #expect(imported.subscriptions.currentTier == original.subscriptions.currentTier)
        #expect(original.subscriptions.currentTier == (tookEffect ? .pro : .premium))
        #expect(Self.told(imported.appStore) == Self.told(original.appStore))
        clock.advance(by: .seconds(40 * 86_400))
        for services in [original, imported] {
            _ = try await services.subscriptions.currentEntitlements()
            #expect(services.subscriptions.currentTier == .pro, "renewed as Pro")
        }
        #expect(Self.told(imported.appStore) == Self.told(original.appStore))
    }

    @Test(
        "a crossgrade to another period waits for the renewal: exported with what it renews as, the imported world tells and renews as the original does"
    )
    func crossgradeToAnotherPeriod() async throws {
        let (original, ada) = try await subscriber()
        clock.advance(by: .seconds(10 * 86_400))
        _ = try await original.subscriptions.purchase("com.train.pro.yearly")
        let asked = clock.now
        clock.advance(by: .seconds(8 * 86_400))
        let snapshot = try original.exportWorld()
        let monthly = try #require(snapshot.purchases.last)
        #expect(monthly.product == Self.monthly && monthly.renewsAs == "com.train.pro.yearly" && monthly.renewsAsSince == asked)
        let imported = try TrainServices.inMemory(from: snapshot, signedIn: ada.id, configuration: configuration)
        #expect(try imported.exportWorld().encoded() == snapshot.encoded())
        #expect(Self.told(imported.appStore) == Self.told(original.appStore))
        clock.advance(by: .seconds(40 * 86_400))
        for services in [original, imported] {
            let latest = try await services.subscriptions.latestTransaction(for: "com.train.pro.yearly")?.unsafePayloadValue
            #expect(latest?.reason == .renewal, "renewed as the yearly subscription")
        }
        #expect(Self.told(imported.appStore) == Self.told(original.appStore))
    }

    @Test(
        "what a purchase renews as, refused: a product not configured, an upgrade, another group's, a date before the purchase or without a product",
        arguments: [
            (#""renewsAs": "com.train.unknown""#, "purchases[0].renewsAs"),
            (#""renewsAs": "com.train.premium.yearly""#, "purchases[0].renewsAs"),
            (#""renewsAs": "com.train.lifetime""#, "purchases[0].renewsAs"),
            (#""renewsAs": "com.train.pro.yearly", "renewsAsSince": "2000-01-01T00:00:00Z""#, "purchases[0].renewsAsSince"),
            (#""renewsAsSince": "2026-01-01T00:00:00Z""#, "purchases[0].renewsAsSince"),
            (#""renewsAs": "com.train.pro.monthly""#, "purchases[0].renewsAs"),
        ])
    func renewsAsRefused(fields: String, path: String) throws {
        let error = #expect(throws: WorldSnapshotError.self) { try Self.importPurchase(with: fields, configuration: configuration) }
        #expect(error?.path == path, "\(error?.detail ?? "")")
    }

    /// Imports a world where Ada bought Pro monthly on 2025-12-01, with `fields` added to the purchase.
    static func importPurchase(with fields: String, configuration: TrainServicesConfiguration) throws {
        let json = #"""
            {"version": 1, "users": [{"id": "ada"}],
             "purchases": [{"user": "ada", "product": "com.train.pro.monthly", "purchasedAt": "2025-12-01T00:00:00Z", \#(fields)}]}
            """#
        _ = try TrainServices.inMemory(from: try WorldSnapshot(json: Data(json.utf8)), configuration: configuration)
    }

    @Test(
        "a change dated after the next purchase of its group, or auto-renew turned off before the last renewal, is refused at its purchase",
        arguments: [
            (
                #"{"user": "ada", "product": "com.train.pro.monthly", "purchasedAt": "2025-12-01T00:00:00Z", "renewsAs": "com.train.pro.yearly", "renewsAsSince": "2025-12-20T00:00:00Z"}"#,
                true
            ),
            (
                #"{"user": "ada", "product": "com.train.pro.monthly", "purchasedAt": "2025-12-01T00:00:00Z", "expiresAt": "2025-12-19T00:00:00Z", "autoRenewOffAt": "2025-12-18T00:00:00Z"}"#,
                true
            ),
            (
                #"{"user": "ada", "product": "com.train.pro.monthly", "purchasedAt": "2025-10-01T00:00:00Z", "expiresAt": "2025-12-01T00:00:00Z", "autoRenewOffAt": "2025-10-02T00:00:00Z"}"#,
                false
            ),
        ])
    func replayRefuses(purchase: String, followed: Bool) throws {
        let later = #"{"user": "ada", "product": "com.train.premium.monthly", "purchasedAt": "2025-12-10T00:00:00Z"}"#
        let json = #"{"version": 1, "users": [{"id": "ada"}], "purchases": [\#(purchase)\#(followed ? ", " + later : "")]}"#
        let error = #expect(throws: WorldSnapshotError.self) {
            _ = try TrainServices.inMemory(from: try WorldSnapshot(json: Data(json.utf8)), configuration: configuration)
        }
        #expect(error?.code == .invalidValue && error?.path == "purchases[0]", "\(error?.detail ?? "")")
    }
}

extension WorldSnapshotPurchaseTests {
    @Test(
        "auto-renew turned off before a lapse and a new subscription exports with the earlier purchase, and the world imports with the same notifications"
    )
    func autoRenewOffBeforeResubscribing() async throws {
        let (original, ada) = try await subscriber()
        clock.advance(by: .seconds(3 * 86_400))
        try original.appStore.setAutoRenew(false, productID: Self.monthly)
        let offAt = clock.now
        clock.advance(by: .seconds(60 * 86_400))
        _ = try await original.subscriptions.currentEntitlements()
        _ = try await original.subscriptions.purchase(Self.monthly)
        clock.advance(by: .seconds(86_400))
        let snapshot = try original.exportWorld()
        #expect(snapshot.purchases.map(\.autoRenewOffAt) == [offAt, nil])
        #expect(snapshot.purchases.first?.expiresAt != nil && snapshot.purchases.last?.expiresAt == nil)
        let imported = try TrainServices.inMemory(from: snapshot, signedIn: ada.id, configuration: configuration)
        #expect(try imported.exportWorld().encoded() == snapshot.encoded())
        #expect(Self.told(imported.appStore) == Self.told(original.appStore))
    }
}
