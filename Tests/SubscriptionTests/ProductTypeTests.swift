import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainSubscription

/// SUB-9: every product type — auto-renewable of any period, non-renewing,
/// non-consumable and consumable — with its tier.
@Suite(.timeLimit(.minutes(1))) struct ProductTypeTests {
    static let weekly = AppStoreProduct(id: "com.train.pro.weekly", displayName: "Pro weekly", tier: .pro, period: .week, price: 1.99)
    static let twoMonths = AppStoreProduct(id: "com.train.pro.2m", displayName: "Pro 2 months", tier: .pro, period: .twoMonths, price: 8.99)
    static let quarterly = AppStoreProduct(id: "com.train.pro.3m", displayName: "Pro 3 months", tier: .pro, period: .threeMonths, price: 12.99)
    static let halfYearly = AppStoreProduct(id: "com.train.pro.6m", displayName: "Pro 6 months", tier: .pro, period: .sixMonths, price: 24.99)
    static let yearly = AppStoreProduct(id: "com.train.pro.yearly", displayName: "Pro yearly", tier: .pro, period: .year, price: 39.99)
    static let pass = AppStoreProduct.nonRenewing(
        id: "com.train.pro.pass", displayName: "Pro for 3 months", tier: .pro, duration: .threeMonths, price: 14.99)
    static let lifetime = AppStoreProduct.nonConsumable(id: "com.train.premium.lifetime", displayName: "Premium for life", tier: .premium, price: 199)
    static let coaching = AppStoreProduct.consumable(id: "com.train.coaching", displayName: "A coaching session", price: 9.99)
    static let catalog = [weekly, twoMonths, quarterly, halfYearly, yearly, pass, lifetime, coaching]

    let clock = ManualClock()
    let start = ManualClock.defaultStart

    func make(_ storage: StorageLocation = .inMemory, user: UUID? = SubscriptionHarness.ada) throws -> (SimulatedAppStore, LocalSubscriptionService) {
        let store = try SimulatedAppStore(
            storage: storage, context: TrainContext(clock: clock), configuration: AppStoreConfiguration(products: Self.catalog))
        return (
            store, LocalSubscriptionService(store: store, context: store.context, configuration: SubscriptionConfiguration(appAccountToken: user))
        )
    }

    func bought(_ service: LocalSubscriptionService, _ productID: String) async throws -> AppStoreTransaction {
        guard case .success(let result) = try await service.purchase(productID) else { throw SubscriptionError(.systemError) }
        return result.unsafePayloadValue
    }

    @Test(
        "an auto-renewable subscription of each period ends and renews on the calendar",
        arguments: [(weekly, 7), (twoMonths, 59), (quarterly, 90), (halfYearly, 181), (yearly, 365)])
    func periods(product: AppStoreProduct, days: Int) async throws {
        let (store, service) = try make()
        let first = try await bought(service, product.id)
        // The clock starts on 1 January 2026, UTC.
        let end = start.addingTimeInterval(Double(days) * 86_400)
        #expect(first.expirationDate == end)
        #expect(first.productType == .autoRenewable && first.subscriptionGroupID == product.subscriptionGroupID)
        clock.advance(to: end.addingTimeInterval(1))
        let renewal = try #require(store.allTransactions.last?.unsafePayloadValue)
        #expect(renewal.id != first.id && renewal.purchaseDate == end)
        #expect(renewal.expirationDate == product.period?.end(after: end))
        #expect(service.currentTier == .pro)
    }

    @Test("at an accelerated rate a week lasts 7/30 of a simulated month and a year 12 months")
    func acceleratedPeriods() async throws {
        let (store, service) = try make()
        try store.setTimeRate(.monthlyRenewal(every: .seconds(30)))
        let week = try await bought(service, Self.weekly.id)
        #expect(week.expirationDate == start.addingTimeInterval(7))
        try store.switchAppleID(to: AppleIDTests.child)
        let year = try await bought(service, Self.yearly.id)
        #expect(year.expirationDate == start.addingTimeInterval(360))
    }

    @Test("a weekly subscription's billing grace period is 6 days, a longer one's 16")
    func weeklyGrace() async throws {
        let (store, service) = try make()
        store.shouldEnterBillingRetryOnRenewal = true
        store.billingGracePeriodIsEnabled = true
        let week = try await bought(service, Self.weekly.id)
        let end = try #require(week.expirationDate)
        clock.advance(to: end.addingTimeInterval(1))
        let status = try #require(try await service.subscriptionStatuses().first)
        #expect(status.state == .inGracePeriod)
        #expect(try status.renewalInfo.payloadValue.gracePeriodExpirationDate == end.addingTimeInterval(6 * 86_400))
        try store.switchAppleID(to: AppleIDTests.child)
        let month = try await bought(service, Self.quarterly.id)
        clock.advance(to: try #require(month.expirationDate).addingTimeInterval(1))
        let longer = try #require(try await service.subscriptionStatuses().first)
        #expect(try longer.renewalInfo.payloadValue.gracePeriodExpirationDate == month.expirationDate?.addingTimeInterval(16 * 86_400))
    }

    @Test("a non-renewing subscription grants its tier for its duration from each purchase, and has no expiration date")
    func nonRenewing() async throws {
        let (store, service) = try make()
        let first = try await bought(service, Self.pass.id)
        #expect(first.productType == .nonRenewable && first.expirationDate == nil && first.subscriptionGroupID == nil)
        #expect(service.currentTier == .pro)
        #expect(try await service.subscriptionStatuses().isEmpty, "it is not an auto-renewable subscription")
        let end = Self.pass.period?.end(after: start) ?? start
        clock.advance(to: end)
        #expect(service.currentTier == .pro, "active while now <= the end")
        #expect(try await service.currentEntitlements().map(\.unsafePayloadValue.id) == [first.id])
        clock.advance(to: end.addingTimeInterval(1))
        #expect(service.currentTier == .free)
        #expect(try await service.currentEntitlements().isEmpty)
        #expect(store.allTransactions.count == 1, "it does not renew")
        let second = try await bought(service, Self.pass.id)
        #expect(second.id != first.id && service.currentTier == .pro)
        clock.advance(by: .seconds(86_400))
        let third = try await bought(service, Self.pass.id)
        #expect(try await service.currentEntitlements().map(\.unsafePayloadValue.id) == [third.id], "the latest purchase of the product")
    }

    @Test("a non-consumable grants its tier for good; buying it again returns the same transaction; a refund ends it", arguments: [false, true])
    func lifetime(onFile: Bool) async throws {
        let directory = try TemporaryDirectory()
        let storage: StorageLocation = onFile ? .file(directory.file("appstore.sqlite")) : .inMemory
        var (store, service) = try make(storage)
        let unlock = try await bought(service, Self.lifetime.id)
        #expect(unlock.productType == .nonConsumable && unlock.expirationDate == nil)
        _ = try await bought(service, Self.quarterly.id)
        #expect(service.currentTier == .premium, "the lifetime Premium beats the Pro subscription")
        clock.advance(by: .seconds(10 * 365 * 86_400))
        #expect(service.currentTier == .premium)
        if onFile {
            (store, service) = try make(storage)
            #expect(store.allTransactions.first?.unsafePayloadValue.productType == .nonConsumable, "the type survives a relaunch")
        }
        let again = try await bought(service, Self.lifetime.id)
        #expect(again.id == unlock.id, "StoreKit 2 hands back the transaction of a non-consumable already owned")
        try store.refund(transactionID: unlock.id)
        #expect(service.currentTier == .pro, "the Pro subscription, renewing all along, is what is left")
        let rebought = try await bought(service, Self.lifetime.id)
        #expect(rebought.id != unlock.id && service.currentTier == .premium)
        #expect(try await service.currentEntitlements().map(\.unsafePayloadValue.id).contains(rebought.id))
    }

    @Test("a consumable grants nothing, is never an entitlement, can be bought again while unfinished, and is redelivered until finished")
    func consumable() async throws {
        let (store, service) = try make()
        let first = try await bought(service, Self.coaching.id)
        let second = try await bought(service, Self.coaching.id)
        #expect(first.productType == .consumable && first.purchasedQuantity == 1 && second.id != first.id)
        #expect(service.currentTier == .free)
        #expect(try await service.currentEntitlements().isEmpty)
        let delivered = await service.transactionUpdates().collect(2).map(\.unsafePayloadValue.id)
        #expect(delivered == [first.id, second.id])
        try await service.finish(first.id)
        #expect(await service.transactionUpdates().collect(1).map(\.unsafePayloadValue.id) == [second.id])
        #expect(throws: SubscriptionError(.notSubscribed)) { try store.expireSubscription(productID: Self.coaching.id) }
        #expect(throws: SubscriptionError(.notSubscribed)) { try store.forceRenewal(productID: Self.lifetime.id) }
    }

    @Test("an incomplete product is invalidArgument when bought, and nothing is bought")
    func incompleteProduct() async throws {
        var broken = Self.weekly
        broken.period = nil
        var freeCoaching = Self.coaching
        freeCoaching.tier = .pro
        let store = SimulatedAppStore(context: TrainContext(clock: clock), configuration: AppStoreConfiguration(products: [broken, freeCoaching]))
        let service = LocalSubscriptionService(store: store, context: store.context)
        for product in [broken, freeCoaching] {
            await #expect(throws: SubscriptionError(.invalidArgument)) { _ = try await service.purchase(product.id) }
            #expect(throws: SubscriptionError(.invalidArgument)) { try store.buyOutsideApp(productID: product.id) }
        }
        #expect(store.allTransactions.isEmpty)
    }

    @Test("a period reads and writes ISO 8601; anything else is invalidArgument")
    func periodsInISO8601() throws {
        for (text, period) in [("P3D", try BillingPeriod(value: 3, unit: .day)), ("P1W", .week), ("P2M", .twoMonths), ("P1Y", .year)] {
            #expect(try BillingPeriod(iso8601: text) == period)
            #expect(period.iso8601 == text)
        }
        for bad in ["", "P", "PM", "P0M", "P25M", "P-1M", "1M", "P1X", "P1m", "P\u{661}M", "P1M ", "P99999999999999999999M", "P1\u{0}M"] {
            #expect(throws: SubscriptionError(.invalidArgument), "\(bad.debugDescription)") { _ = try BillingPeriod(iso8601: bad) }
        }
        let decoded = try JSONDecoder().decode([BillingPeriod].self, from: Data(#"["month", "year", "P1W"]"#.utf8))
        #expect(decoded == [.month, .year, .week], "the names earlier versions wrote are read")
        #expect(throws: DecodingError.self) { _ = try JSONDecoder().decode([BillingPeriod].self, from: Data(#"["P0D"]"#.utf8)) }
    }

    @Test("a transaction stored before transactions had a type reads as an auto-renewable subscription's")
    func earlierLayout() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.file("appstore.sqlite")
        let (_, service) = try make(.file(file))
        let bought = try await bought(service, Self.weekly.id)
        // Layout 2 ends with the owner; layout 3 added the type and the quantity.
        try SubscriptionHarness.relabel([bought.id], asLayout: 2, file: file)
        let (store, reopened) = try make(.file(file))
        var earlier = bought
        (earlier.price, earlier.currency, earlier.storefrontCountryCode) = (nil, nil, nil)
        #expect(store.allTransactions.map(\.unsafePayloadValue) == [earlier])
        #expect(reopened.currentTier == .pro)
    }
}
