import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainSubscription

/// SUB-17: a promotional offer or offer code redeemed on the current product applies
/// from the next renewal, with a downgrade at that renewal, with an upgrade at once —
/// each with Apple's notification and subtype — and the renewal info shows it pending.
@Suite(.timeLimit(.minutes(1))) struct OfferRedemptionTests {
    static let pro: AppStoreProduct = {
        var product = OfferTests.trialMonthly
        product.introductoryOffer = nil
        return product
    }()
    static let premium: AppStoreProduct = {
        var product = AppStoreProduct(id: "com.train.premium.monthly", displayName: "Premium", tier: .premium, period: .month, price: 9.99)
        product.offers = [SubscriptionOffer(id: "step-up", type: .promotional, paymentMode: .payUpFront, period: .month, price: 4.99)]
        return product
    }()
    static let comeback = TransactionOffer(type: .promotional, id: "comeback", paymentMode: .payUpFront)

    let clock = ManualClock()
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    func make(_ variant: StoreVariant) throws -> (SimulatedAppStore, LocalSubscriptionService) {
        let storage: StorageLocation = variant == .file ? .file(directory.file("appstore.sqlite")) : .inMemory
        let store = try SimulatedAppStore(
            storage: storage, context: TrainContext(clock: clock), configuration: AppStoreConfiguration(products: [Self.pro, Self.premium]))
        return (store, LocalSubscriptionService(store: store, context: store.context))
    }

    /// The renewal info of the device's subscription now.
    func renewalInfo(_ service: LocalSubscriptionService) async throws -> RenewalInfo? {
        try await service.subscriptionStatuses().first?.renewalInfo.unsafePayloadValue
    }

    @Test(
        "a promotional offer on the current product applies from the next renewal, with OFFER_REDEEMED; redeemed again it is ineligibleForOffer",
        arguments: StoreVariant.allCases)
    func currentProduct(variant: StoreVariant) async throws {
        let (store, service) = try make(variant)
        let first = try #require(try await service.purchase(Self.pro.id).transaction)
        let end = try #require(first.expirationDate)
        let returned = try await service.purchase(Self.pro.id, offer: .promotional(id: "comeback")).transaction
        #expect(returned?.id == first.id, "nothing is bought now")
        #expect(ServerNotificationTests.sent(store, after: 1) == ["OFFER_REDEEMED"])
        let pending = try #require(try await renewalInfo(service))
        #expect(pending.offer == Self.comeback && pending.renewalPrice == 9.99 && pending.currency == "USD")

        let count = store.serverNotifications.count
        await #expect(throws: SubscriptionError(.ineligibleForOffer)) {
            _ = try await service.purchase(Self.pro.id, offer: .promotional(id: "comeback"))
        }
        #expect(store.serverNotifications.count == count && store.allTransactions.count == 1, "nothing changed")

        clock.advance(to: end.addingTimeInterval(1))
        let renewal = try #require(store.allTransactions.last?.unsafePayloadValue)
        #expect(renewal.offer == Self.comeback && renewal.price == 9.99 && renewal.reason == .renewal)
        #expect(renewal.expirationDate == BillingPeriod.threeMonths.end(after: end))
        let after = try #require(try await renewalInfo(service))
        #expect(after.offer == nil && after.renewalPrice == 4.99, "the next renewal is at the regular price")
    }

    @Test(
        "an offer with a downgrade applies at the renewal into the lower product, with OFFER_REDEEMED/DOWNGRADE; with an upgrade, at once, with OFFER_REDEEMED/UPGRADE",
        arguments: StoreVariant.allCases)
    func otherProducts(variant: StoreVariant) async throws {
        let (store, service) = try make(variant)
        let premium = try #require(try await service.purchase(Self.premium.id).transaction)
        _ = try await service.purchase(Self.pro.id, offer: .promotional(id: "comeback"))
        #expect(ServerNotificationTests.sent(store, after: 1) == ["OFFER_REDEEMED/DOWNGRADE"])
        let pending = try #require(try await renewalInfo(service))
        #expect(pending.autoRenewPreference == Self.pro.id && pending.offer == Self.comeback && pending.renewalPrice == 9.99)
        #expect(service.currentTier == .premium, "premium until the renewal")

        clock.advance(to: try #require(premium.expirationDate).addingTimeInterval(1))
        let renewal = try #require(store.allTransactions.last?.unsafePayloadValue)
        #expect(renewal.productID == Self.pro.id && renewal.offer == Self.comeback && renewal.price == 9.99)

        let upgrade = try #require(try await service.purchase(Self.premium.id, offer: .promotional(id: "step-up")).transaction)
        #expect(upgrade.productID == Self.premium.id && upgrade.price == 4.99 && upgrade.offer?.id == "step-up")
        #expect(store.serverNotifications.last.map { "\($0.type)/\($0.subtype?.rawValue ?? "")" } == "OFFER_REDEEMED/UPGRADE")
        #expect(service.currentTier == .premium)
    }

    @Test("an offer code redeemed by a subscriber applies from the next renewal; an offer of another product's group is invalidOfferIdentifier")
    func codesAndOtherGroups() async throws {
        let (store, service) = try make(.inMemory)
        _ = try await service.purchase(Self.pro.id)
        try store.addOfferCodes(["COACH"], productID: Self.pro.id, offerID: "coach-2026")
        #expect(try store.redeemOfferCode("coach").unsafePayloadValue.offer == nil, "the current period stays as bought")
        #expect(try await renewalInfo(service)?.offer?.id == "coach-2026")
        #expect(throws: SubscriptionError(.invalidOfferCode), "used up") { try store.redeemOfferCode("COACH") }
        let count = store.serverNotifications.count
        await #expect(throws: SubscriptionError(.invalidOfferIdentifier)) {
            _ = try await service.purchase(Self.premium.id, offer: .promotional(id: "comeback"))
        }
        #expect(store.serverNotifications.count == count && service.currentTier == .pro)
    }
}
