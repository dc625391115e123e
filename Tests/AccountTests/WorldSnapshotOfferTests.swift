import Foundation
import Testing
import TrainAccount
import TrainAuth
import TrainCore
import TrainSubscription
import TrainTesting

/// A purchase made with a promotional, win-back or offer-code offer, in a world's
/// snapshot: the imported subscription runs the offer's periods at its price, as the
/// original did.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct WorldSnapshotOfferTests {

    let clock = ManualClock()
    static let monthly = "com.train.pro.monthly"

    /// The standard products, Pro monthly with three offers besides its free trial.
    var configuration: TrainServicesConfiguration {
        let products = AppStoreProduct.standard.map { product in
            guard product.id == Self.monthly else { return product }
            var monthly = product
            monthly.offers = [
                SubscriptionOffer(id: "comeback", type: .promotional, paymentMode: .payUpFront, period: .threeMonths, price: Self.cents(999)),
                SubscriptionOffer(id: "miss-you", type: .winBack, paymentMode: .freeTrial, period: .month),
                SubscriptionOffer(id: "coach", type: .code, paymentMode: .payAsYouGo, period: .month, periodCount: 2, price: Self.cents(99)),
            ]
            return monthly
        }
        return TrainServicesConfiguration(context: TrainContext(clock: clock), products: products)
    }

    /// An exact price: a `Decimal` literal such as `0.99` goes through a `Double`.
    static func cents(_ cents: Int) -> Decimal { Decimal(cents) / 100 }

    /// Ada subscribed with the free trial, turned auto-renew off and let it lapse.
    func lapsedSubscriber() async throws -> (TrainServices, UserEntity) {
        let services = TrainServices.inMemory(configuration: configuration)
        services.appleID.signIn(as: .ada)
        let ada = try await services.auth.signInWithApple()
        _ = try await services.subscriptions.purchase(Self.monthly)
        try services.appStore.setAutoRenew(false, productID: Self.monthly)
        clock.advance(by: .seconds(20 * 86_400))
        _ = try await services.subscriptions.currentEntitlements()
        return (services, ada)
    }

    @Test(
        "a resubscription with a promotional or win-back offer exports the offer; the imported one runs the offer's period at its price, to the same bytes and notifications",
        arguments: [PurchaseOffer.promotional(id: "comeback"), .winBack(id: "miss-you")])
    func offerRoundTrip(offer: PurchaseOffer) async throws {
        let (original, ada) = try await lapsedSubscriber()
        _ = try await original.subscriptions.purchase(Self.monthly, offer: offer)
        clock.advance(by: .seconds(86_400))
        let snapshot = try original.exportWorld()
        #expect(snapshot.purchases.map(\.offer) == [nil, offer.id] && snapshot.purchases.map(\.offerType) == [nil, offer.type])
        let imported = try TrainServices.inMemory(from: try WorldSnapshot(json: snapshot.encoded()), signedIn: ada.id, configuration: configuration)
        #expect(try imported.exportWorld().encoded() == snapshot.encoded())
        #expect(WorldSnapshotPurchaseTests.told(imported.appStore) == WorldSnapshotPurchaseTests.told(original.appStore))
        for services in [original, imported] {
            let latest = try #require(try await services.subscriptions.latestTransaction(for: Self.monthly)?.unsafePayloadValue)
            #expect(latest.offer?.type == offer.type && latest.offer?.id == offer.id)
        }
        let ends = [original, imported].map { services in
            services.appStore.allTransactions.map(\.unsafePayloadValue).filter { $0.reason == .purchase }.map(\.expirationDate)
        }
        #expect(ends[0] == ends[1], "the offer's period ends at the same date in both")
        // Past the offer's period, both renew at the regular price alike.
        clock.advance(by: .seconds(100 * 86_400))
        #expect(WorldSnapshotPurchaseTests.told(imported.appStore) == WorldSnapshotPurchaseTests.told(original.appStore))
        for services in [original, imported] {
            let latest = try #require(try await services.subscriptions.latestTransaction(for: Self.monthly)?.unsafePayloadValue)
            #expect(latest.reason == .renewal && latest.offer == nil && latest.price == Self.cents(499))
        }
    }

    @Test("a fixture's purchase with an offer code runs the code's two discounted months, then renews at the regular price")
    func offerCodeFixture() async throws {
        let now = clock.now
        var purchase = WorldSnapshot.Purchase(user: "ada", product: Self.monthly, purchasedAt: now.addingTimeInterval(-86_400))
        purchase.offer = "coach"
        purchase.offerType = .code
        var world = WorldSnapshot(users: [WorldSnapshot.User(id: "ada")])
        world.purchases = [purchase]
        let services = try TrainServices.inMemory(from: world, signedIn: "ada", configuration: configuration)
        let bought = try #require(services.appStore.allTransactions.first?.unsafePayloadValue)
        #expect(bought.offer?.type == .code && bought.offer?.id == "coach" && bought.price == Self.cents(99))
        #expect(try services.exportWorld().purchases.first?.offer == "coach")
        clock.advance(by: .seconds(70 * 86_400))
        _ = try await services.subscriptions.currentEntitlements()
        let prices = services.appStore.allTransactions.map(\.unsafePayloadValue).sorted { $0.purchaseDate < $1.purchaseDate }.map(\.price)
        #expect(prices == [Self.cents(99), Self.cents(99), Self.cents(499)], "two months of the code, then the regular price")
    }

    @Test(
        "an offer the product lacks, the introductory one, a kind without an identifier or an identifier without a kind is refused at its field",
        arguments: [
            (#""offer": "unknown", "offerType": "promotional""#, "purchases[0].offer"),
            (#""offer": "comeback", "offerType": "winBack""#, "purchases[0].offer"),
            (#""offer": "trial", "offerType": "introductory""#, "purchases[0].offerType"),
            (#""offer": "comeback""#, "purchases[0].offerType"),
            (#""offerType": "code""#, "purchases[0].offer"),
        ])
    func refused(fields: String, path: String) throws {
        let error = #expect(throws: WorldSnapshotError.self) {
            try WorldSnapshotPurchaseTests.importPurchase(with: fields, configuration: configuration)
        }
        #expect(error?.path == path, "\(error?.detail ?? "")")
    }

    @Test("an offer the Apple ID was not eligible for then — a promotional offer on its first subscription — is refused at the purchase")
    func ineligible() throws {
        var purchase = WorldSnapshot.Purchase(user: "ada", product: Self.monthly, purchasedAt: clock.now.addingTimeInterval(-86_400))
        purchase.offer = "comeback"
        purchase.offerType = .promotional
        var world = WorldSnapshot(users: [WorldSnapshot.User(id: "ada")])
        world.purchases = [purchase]
        let error = #expect(throws: WorldSnapshotError.self) { try TrainServices.inMemory(from: world, configuration: configuration) }
        #expect(error?.path == "purchases[0]", "\(error?.detail ?? "")")
    }
}
