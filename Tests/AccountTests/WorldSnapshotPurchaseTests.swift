import Foundation
import Testing
import TrainAccount
import TrainCore
import TrainSubscription
import TrainTesting

/// A subscription whose auto-renew is off in a world's snapshot: it keeps the end of
/// its last period, so a lapsed or lapsing subscriber is a fixture too.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct WorldSnapshotPurchaseTests {

    let clock = ManualClock()
    var configuration: TrainServicesConfiguration {
        TrainServicesConfiguration(
            context: TrainContext(clock: clock),
            products: AppStoreProduct.standard + [.nonConsumable(id: "com.train.lifetime", displayName: "Lifetime", tier: .premium, price: 99)])
    }
    static let monthly = "com.train.pro.monthly"

    @Test("a subscription with auto-renew off exports the end of its period and imports to the same bytes; it lapses then in both worlds")
    func autoRenewOff() async throws {
        let original = TrainServices.inMemory(configuration: configuration)
        original.appleID.signIn(as: .ada)
        let ada = try await original.auth.signInWithApple()
        _ = try await original.subscriptions.purchase(Self.monthly)
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

    @Test(
        "an end given to a purchase that does not renew, or before it was bought, is a typed error naming it",
        arguments: [
            (#"{"user": "ada", "product": "com.train.lifetime", "purchasedAt": "2020-01-01T00:00:00Z", "expiresAt": "2020-02-01T00:00:00Z"}"#),
            (#"{"user": "ada", "product": "com.train.pro.monthly", "purchasedAt": "2020-01-01T00:00:00Z", "expiresAt": "2019-12-01T00:00:00Z"}"#),
        ])
    func refused(purchase: String) throws {
        let json = #"{"version": 1, "users": [{"id": "ada"}], "purchases": [\#(purchase)]}"#
        let error = #expect(throws: WorldSnapshotError.self) {
            _ = try TrainServices.inMemory(from: try WorldSnapshot(json: Data(json.utf8)), configuration: configuration)
        }
        #expect(error?.path == "purchases[0].expiresAt", "\(error?.detail ?? "")")
    }
}
