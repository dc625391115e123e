import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainSubscription

/// SUB-9 at its edges: non-consumables under access per app user, the end of a
/// non-renewing subscription on the tier stream, purchase dates that are not dates, a
/// catalog that changed under a subscription, and records that do not add up.
@Suite(.timeLimit(.minutes(1))) struct ProductRecordTests {
    typealias P = ProductTypeTests
    let clock = ManualClock()
    let start = ManualClock.defaultStart

    @Test("with access per app user, a non-consumable another app user owns, or one bought outside the app, is not bought again")
    func nonConsumablePerAppUser() async throws {
        let store = SimulatedAppStore(context: TrainContext(clock: clock), configuration: AppStoreConfiguration(products: P.catalog))
        let service = LocalSubscriptionService(
            store: store, context: store.context,
            configuration: SubscriptionConfiguration(appAccountToken: SubscriptionHarness.ada, accessPolicy: .appAccountToken))
        _ = try await service.purchase(P.lifetime.id)
        await service.setAppAccountToken(SubscriptionHarness.grace)
        await #expect(throws: SubscriptionError(.subscribedWithAnotherAccount)) { _ = try await service.purchase(P.lifetime.id) }
        #expect(store.allTransactions.count == 1 && service.currentTier == .free)
        try store.switchAppleID(to: AppleIDTests.child)
        try store.buyOutsideApp(productID: P.lifetime.id)
        await #expect(throws: SubscriptionError(.subscribedWithAnotherAccount)) { _ = try await service.purchase(P.lifetime.id) }
        #expect(store.allTransactions.count == 2)
    }

    @Test("the tier stream reports the end of a non-renewing subscription, on the clock, though nothing is written")
    func passEndOnTheStream() async throws {
        let store = SimulatedAppStore(context: TrainContext(clock: clock), configuration: AppStoreConfiguration(products: P.catalog))
        let service = LocalSubscriptionService(store: store, context: store.context)
        _ = try await service.purchase(P.pass.id)
        let tiers = service.tierChanges()
        #expect(await tiers.collect(1) == [.pro])
        clock.advance(to: (P.pass.period?.end(after: start) ?? start).addingTimeInterval(60))
        #expect(await tiers.collect(1) == [.free])
        #expect(await service.tierChanges().collect(1) == [.free])
    }

    @Test("a purchase date that is not a real date, or more than a century ago, is invalidArgument for every product type")
    func unrealPurchaseDates() throws {
        let store = SimulatedAppStore(context: TrainContext(clock: clock), configuration: AppStoreConfiguration(products: P.catalog))
        let dates = [
            Date(timeIntervalSinceReferenceDate: .nan), Date(timeIntervalSinceReferenceDate: -.infinity),
            Date(timeIntervalSinceReferenceDate: -1e15), start.addingTimeInterval(-101 * 365 * 86_400),
        ]
        for product in [P.weekly, P.pass, P.lifetime, P.coaching] {
            for date in dates {
                #expect(throws: SubscriptionError(.invalidArgument), "\(product.id) at \(date.timeIntervalSinceReferenceDate)") {
                    try store.buyOutsideApp(productID: product.id, purchaseDate: date)
                }
            }
        }
        #expect(store.allTransactions.isEmpty)
    }

    @Test("a subscription whose product is no longer an auto-renewable subscription after a relaunch lapses as unavailable")
    func productChangedType() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.file("appstore.sqlite")
        let first = try SimulatedAppStore(storage: .file(file), context: TrainContext(clock: clock))
        _ = try await LocalSubscriptionService(store: first, context: first.context).purchase("com.train.pro.monthly")
        clock.advance(by: .seconds(40 * 86_400))
        var withoutPeriod = AppStoreProduct.standardWithoutTrial[0]
        withoutPeriod.period = nil
        for changed in [
            AppStoreProduct.nonRenewing(id: "com.train.pro.monthly", displayName: "Pro pass", tier: .pro, duration: .month, price: 4.99),
            withoutPeriod,
        ] {
            let store = try SimulatedAppStore(
                storage: .file(file), context: TrainContext(clock: clock), configuration: AppStoreConfiguration(products: [changed]))
            let status = try #require(try await LocalSubscriptionService(store: store, context: store.context).subscriptionStatuses().first)
            #expect(status.state == .expired)
            #expect(try status.renewalInfo.payloadValue.expirationReason == .productUnavailable)
            #expect(store.allTransactions.count == 1, "no renewal into it")
        }
    }

    @Test("a StoreKit file whose localized name is empty takes the reference name")
    func emptyLocalizedName() throws {
        let text = String(decoding: StoreCatalogTests.storeKitFile, as: UTF8.self)
            .replacingOccurrences(of: #""displayName" : "Summer Pass""#, with: #""displayName" : """#)
        let catalog = try StoreCatalog(
            storeKitConfiguration: Data(text.utf8), tiers: StoreCatalogTests.tiers, nonRenewingDurations: ["com.train.summer.pass": .week])
        #expect(catalog.products.first { $0.id == "com.train.summer.pass" }?.displayName == "summer-pass")
    }

}
