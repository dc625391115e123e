import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainSubscription

/// SUB-11: storefronts and their prices, and the fields StoreKit's transactions carry —
/// reason, original purchase date, storefront, price and currency.
@Suite(.timeLimit(.minutes(1))) struct StorefrontTests {
    typealias H = SubscriptionHarness
    static let germany = (try? StoreStorefront(countryCode: "DEU", currencyCode: "EUR")) ?? .unitedStates
    static let everywhere: AppStoreProduct = {
        var product = AppStoreProduct(id: "com.train.pro.monthly", displayName: "Pro", tier: .pro, period: .month, price: Decimal(499) / 100)
        product.prices = ["USA": Decimal(499) / 100, "DEU": Decimal(549) / 100]
        return product
    }()
    static let americanOnly: AppStoreProduct = {
        var product = AppStoreProduct(
            id: "com.train.coach.monthly", displayName: "Coach", tier: .pro, period: .month, price: 10, subscriptionGroupID: "coach")
        product.prices = ["USA": 10]
        return product
    }()

    @Test(
        "a purchase and its renewal carry their reason, the first purchase's date, the storefront, price and currency",
        arguments: StoreVariant.allCases)
    func transactionFields(variant: StoreVariant) async throws {
        let harness = try H(variant)
        let first = try await harness.buy(H.proMonthly)
        #expect(first.reason == .purchase && first.originalPurchaseDate == first.purchaseDate)
        #expect(first.storefrontCountryCode == "USA" && first.currency == "USD" && first.price == Decimal(499) / 100)
        harness.clock.advance(to: try #require(first.expirationDate).addingTimeInterval(1))
        if variant == .file { try harness.relaunch() }
        let renewal = try #require(harness.store.allTransactions.last?.unsafePayloadValue)
        #expect(renewal.reason == .renewal && renewal.originalPurchaseDate == first.purchaseDate && renewal.id != first.id)
        let upgrade = try await harness.buy(H.premiumMonthly)
        #expect(
            upgrade.reason == .purchase && upgrade.originalPurchaseDate == first.purchaseDate, "an upgrade is a purchase of the same subscription")
    }

    @Test("another storefront sells what it lists at its prices, in its currency; a product it does not sell is productUnavailable")
    func storefronts() async throws {
        let clock = ManualClock()
        let store = SimulatedAppStore(
            context: TrainContext(clock: clock), configuration: AppStoreConfiguration(products: [Self.everywhere, Self.americanOnly]))
        let service = LocalSubscriptionService(store: store, context: store.context)
        #expect(try await service.storefront() == .unitedStates)
        #expect(try await service.products().map(\.id) == [Self.everywhere.id, Self.americanOnly.id])
        store.storefront = Self.germany
        #expect(try await service.storefront() == Self.germany)
        let products = try await service.products()
        #expect(products.map(\.id) == [Self.everywhere.id] && products.first?.price == Decimal(549) / 100)
        #expect(Self.everywhere.displayPrice(in: Self.germany, locale: Locale(identifier: "de_DE")) == "5,49\u{A0}€")
        #expect(Self.americanOnly.displayPrice(in: Self.germany, locale: Locale(identifier: "de_DE")) == nil)
        await #expect(throws: SubscriptionError(.productUnavailable)) { _ = try await service.purchase(Self.americanOnly.id) }
        #expect(throws: SubscriptionError(.productUnavailable)) { try store.buyOutsideApp(productID: Self.americanOnly.id) }
        store.askToBuyEnabled = true
        await #expect(throws: SubscriptionError(.productUnavailable)) { _ = try await service.purchase(Self.americanOnly.id) }
        store.askToBuyEnabled = false
        #expect(store.allTransactions.isEmpty && store.pendingPurchases.isEmpty)
        guard case .success(let bought) = try await service.purchase(Self.everywhere.id) else { throw SubscriptionError(.systemError) }
        let transaction = bought.unsafePayloadValue
        #expect(transaction.price == Decimal(549) / 100 && transaction.currency == "EUR" && transaction.storefrontCountryCode == "DEU")
    }

    @Test("a subscription whose product is no longer sold in the storefront lapses at renewal as unavailable")
    func renewalOutsideTheStorefront() async throws {
        let clock = ManualClock()
        let store = SimulatedAppStore(context: TrainContext(clock: clock), configuration: AppStoreConfiguration(products: [Self.americanOnly]))
        let service = LocalSubscriptionService(store: store, context: store.context)
        guard case .success(let bought) = try await service.purchase(Self.americanOnly.id) else { throw SubscriptionError(.systemError) }
        store.storefront = Self.germany
        clock.advance(to: try #require(bought.unsafePayloadValue.expirationDate).addingTimeInterval(1))
        let status = try #require(try await service.subscriptionStatuses().first)
        #expect(status.state == .expired)
        #expect(try status.renewalInfo.payloadValue.expirationReason == .productUnavailable)
        #expect(store.allTransactions.count == 1)
    }

    @Test("a storefront has three-letter country and currency codes; anything else is invalidArgument")
    func storefrontCodes() throws {
        for (country, currency) in [("US", "USD"), ("usa", "USD"), ("USA", "US$"), ("ÜSA", "EUR"), ("DE\u{0}", "EUR"), ("", "")] {
            #expect(throws: SubscriptionError(.invalidArgument), "\(country) \(currency)") {
                _ = try StoreStorefront(countryCode: country, currencyCode: currency)
            }
        }
        #expect(throws: DecodingError.self) {
            _ = try JSONDecoder().decode(StoreStorefront.self, from: Data(#"{"countryCode":"de","currencyCode":"EUR"}"#.utf8))
        }
        var product = Self.everywhere
        product.prices["Germany"] = 5
        #expect(throws: SubscriptionError(.invalidArgument)) { try product.validate() }
    }

    @Test("a renewal stored before transactions had a reason reads as a renewal of its first purchase's date")
    func earlierLayout() async throws {
        let harness = try H(.file)
        let first = try await harness.buy(H.proMonthly)
        harness.clock.advance(to: try #require(first.expirationDate).addingTimeInterval(1))
        let renewal = try #require(harness.store.allTransactions.last?.unsafePayloadValue)
        // Layout 5 added the reason, the original purchase date and the storefront.
        try H.relabel([first.id, renewal.id], asLayout: 4, file: harness.file)
        try harness.relaunch()
        let read = harness.store.allTransactions.map(\.unsafePayloadValue)
        #expect(read.map(\.reason) == [.purchase, .renewal])
        #expect(read.map(\.originalPurchaseDate) == [first.purchaseDate, first.purchaseDate])
        #expect(read.allSatisfy { $0.storefrontCountryCode == nil })
    }

    @Test("product names follow the store's locale: its own, else its language's, else the product's name")
    func localizedNames() async throws {
        var product = Self.everywhere
        product.localizedNames = ["de_DE": "Pro (monatlich)", "fr_FR": "Pro (mensuel)"]
        let store = SimulatedAppStore(context: TrainContext(clock: ManualClock()), configuration: AppStoreConfiguration(products: [product]))
        let service = LocalSubscriptionService(store: store, context: store.context)
        #expect(try await service.products().first?.displayName == "Pro")
        for (locale, name) in [("de_DE", "Pro (monatlich)"), ("de_AT", "Pro (monatlich)"), ("fr_CA", "Pro (mensuel)"), ("ja_JP", "Pro")] {
            store.locale = Locale(identifier: locale)
            #expect(try await service.products().first?.displayName == name, "\(locale)")
        }
        let catalog = try StoreCatalog(
            storeKitConfiguration: StoreCatalogTests.storeKitFile, tiers: StoreCatalogTests.tiers,
            nonRenewingDurations: ["com.train.summer.pass": .week])
        let coaching = try #require(catalog.products.first { $0.id == "com.train.coaching" })
        #expect(coaching.localizedNames == ["de_DE": "Coaching-Sitzung", "en_US": "Coaching session"])
        product.localizedNames["de_DE"] = "Pro\u{0}"
        #expect(throws: SubscriptionError(.invalidArgument)) { try product.validate() }
    }
}
