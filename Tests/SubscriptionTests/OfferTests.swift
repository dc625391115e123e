import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainSubscription

/// SUB-10: introductory offers with StoreKit's per-group eligibility, promotional,
/// offer-code and win-back offers; transactions carry the offer, period type and price.
@Suite(.timeLimit(.minutes(1))) struct OfferTests {
    static let trialMonthly: AppStoreProduct = {
        var product = AppStoreProduct(id: "com.train.pro.monthly", displayName: "Pro", tier: .pro, period: .month, price: 4.99)
        product.introductoryOffer = .freeTrial(.week)
        product.offers = [
            SubscriptionOffer(id: "comeback", type: .promotional, paymentMode: .payUpFront, period: .threeMonths, price: 9.99),
            SubscriptionOffer(id: "miss-you", type: .winBack, paymentMode: .freeTrial, period: .month),
            SubscriptionOffer(id: "coach-2026", type: .code, paymentMode: .payAsYouGo, period: .month, periodCount: 2, price: 0.99),
        ]
        return product
    }()
    static let payAsYouGoYearly: AppStoreProduct = {
        var product = AppStoreProduct(id: "com.train.premium.monthly", displayName: "Premium", tier: .premium, period: .month, price: 9.99)
        product.introductoryOffer = SubscriptionOffer(type: .introductory, paymentMode: .payAsYouGo, period: .month, periodCount: 3, price: 1.99)
        return product
    }()
    static let payUpFront: AppStoreProduct = {
        var product = AppStoreProduct(
            id: "com.train.coach.monthly", displayName: "Coach", tier: .pro, period: .month, price: 14.99, subscriptionGroupID: "train.coach")
        product.introductoryOffer = SubscriptionOffer(type: .introductory, paymentMode: .payUpFront, period: .threeMonths, price: 19.99)
        return product
    }()

    let clock = ManualClock()
    let start = ManualClock.defaultStart

    func make(_ storage: StorageLocation = .inMemory) throws -> (SimulatedAppStore, LocalSubscriptionService) {
        let store = try SimulatedAppStore(
            storage: storage, context: TrainContext(clock: clock),
            configuration: AppStoreConfiguration(products: [Self.trialMonthly, Self.payAsYouGoYearly, Self.payUpFront]))
        return (
            store,
            LocalSubscriptionService(
                store: store, context: store.context, configuration: SubscriptionConfiguration(appAccountToken: SubscriptionHarness.ada))
        )
    }

    func bought(_ service: LocalSubscriptionService, _ productID: String, offer: PurchaseOffer? = nil) async throws -> AppStoreTransaction {
        guard case .success(let result) = try await service.purchase(productID, offer: offer) else { throw SubscriptionError(.systemError) }
        return result.unsafePayloadValue
    }

    func days(_ count: Double) -> TimeInterval { count * 86_400 }

    @Test(
        "a new Apple ID gets the free trial by itself, then renews at the regular price; the trial is had once per group", arguments: [false, true])
    func freeTrial(onFile: Bool) async throws {
        let directory = try TemporaryDirectory()
        let storage: StorageLocation = onFile ? .file(directory.file("appstore.sqlite")) : .inMemory
        var (store, service) = try make(storage)
        #expect(try await service.isEligibleForIntroOffer(groupID: "train.subscriptions"))
        let trial = try await bought(service, Self.trialMonthly.id)
        #expect(trial.offer == TransactionOffer(type: .introductory, id: nil, paymentMode: .freeTrial))
        #expect(trial.periodType == .trial && trial.price == 0 && trial.currency == "USD")
        #expect(trial.expirationDate == start.addingTimeInterval(days(7)))
        #expect(service.currentTier == .pro, "a trial grants the tier")
        #expect(try await !service.isEligibleForIntroOffer(groupID: "train.subscriptions"))
        if onFile { (store, service) = try make(storage) }
        clock.advance(to: start.addingTimeInterval(days(7) + 1))
        let renewal = try #require(store.allTransactions.last?.unsafePayloadValue)
        #expect(renewal.offer == nil && renewal.periodType == .normal && renewal.price == 4.99)
        #expect(renewal.expirationDate == Self.trialMonthly.period?.end(after: start.addingTimeInterval(days(7))))
        // Lapsed, then back: no second trial, in this product or another of the group.
        try store.setAutoRenew(false, productID: Self.trialMonthly.id)
        clock.advance(to: try #require(renewal.expirationDate).addingTimeInterval(1))
        let again = try await bought(service, Self.payAsYouGoYearly.id)
        #expect(again.offer == nil && again.price == 9.99)
        // Another Apple ID is new to the group.
        try store.switchAppleID(to: AppleIDTests.child)
        #expect(try await service.isEligibleForIntroOffer(groupID: "train.subscriptions"))
        #expect(try await bought(service, Self.trialMonthly.id).periodType == .trial)
        #expect(try await service.isEligibleForIntroOffer(groupID: "train.coach"), "eligibility is per group")
    }

    @Test("a refunded trial still counts: the Apple ID is not eligible again")
    func refundedTrialCounts() async throws {
        let (store, service) = try make()
        let trial = try await bought(service, Self.trialMonthly.id)
        try store.refund(transactionID: trial.id)
        #expect(try await !service.isEligibleForIntroOffer(groupID: "train.subscriptions"))
        #expect(try await bought(service, Self.trialMonthly.id).periodType == .normal)
    }

    @Test(
        "pay as you go: each of the offer's periods at its price, then the regular price; the renewal info shows the offer meanwhile",
        arguments: [false, true])
    func payAsYouGo(onFile: Bool) async throws {
        let directory = try TemporaryDirectory()
        let storage: StorageLocation = onFile ? .file(directory.file("appstore.sqlite")) : .inMemory
        var (store, service) = try make(storage)
        let first = try await bought(service, Self.payAsYouGoYearly.id)
        #expect(first.periodType == .intro && first.price == 1.99 && first.expirationDate == start.addingTimeInterval(days(31)))
        #expect(try await service.subscriptionStatuses().first?.renewalInfo.payloadValue.offer?.paymentMode == .payAsYouGo)
        if onFile { (store, service) = try make(storage) }
        clock.advance(to: BillingPeriod.month.end(after: start, count: 3).addingTimeInterval(1))
        let prices = store.allTransactions.map { ($0.unsafePayloadValue.price, $0.unsafePayloadValue.periodType) }
        #expect(prices.map(\.0) == [1.99, 1.99, 1.99, 9.99])
        #expect(prices.map(\.1) == [.intro, .intro, .intro, .normal])
        #expect(try await service.subscriptionStatuses().first?.renewalInfo.payloadValue.offer == nil)
    }

    @Test("pay up front: one transaction for the offer's whole period, then the regular period")
    func payUpFront() async throws {
        let (store, service) = try make()
        let first = try await bought(service, Self.payUpFront.id)
        let end = BillingPeriod.threeMonths.end(after: start)
        #expect(first.periodType == .intro && first.price == 19.99 && first.expirationDate == end)
        clock.advance(to: end.addingTimeInterval(1))
        let renewal = try #require(store.allTransactions.last?.unsafePayloadValue)
        #expect(renewal.price == 14.99 && renewal.expirationDate == BillingPeriod.month.end(after: end))
    }

    @Test("a promotional offer is for a current or past subscriber of the group")
    func promotional() async throws {
        let (store, service) = try make()
        let comeback = PurchaseOffer.promotional(id: "comeback")
        await #expect(throws: SubscriptionError(.ineligibleForOffer)) { _ = try await service.purchase(Self.trialMonthly.id, offer: comeback) }
        await #expect(throws: SubscriptionError(.invalidOfferIdentifier)) {
            _ = try await service.purchase(Self.trialMonthly.id, offer: .promotional(id: "nope"))
        }
        #expect(store.allTransactions.isEmpty, "a refused offer buys nothing")
        let trial = try await bought(service, Self.trialMonthly.id)
        try store.expireSubscription(productID: Self.trialMonthly.id)
        let promoted = try await bought(service, Self.trialMonthly.id, offer: comeback)
        #expect(promoted.offer == TransactionOffer(type: .promotional, id: "comeback", paymentMode: .payUpFront))
        #expect(promoted.periodType == .normal && promoted.price == 9.99 && promoted.originalID == trial.originalID)
        #expect(promoted.expirationDate == BillingPeriod.threeMonths.end(after: start))
    }

    @Test("a win-back offer is listed and sold only once the subscription has lapsed")
    func winBack() async throws {
        let (store, service) = try make()
        let missYou = PurchaseOffer.winBack(id: "miss-you")
        await #expect(throws: SubscriptionError(.ineligibleForOffer)) { _ = try await service.purchase(Self.trialMonthly.id, offer: missYou) }
        _ = try await bought(service, Self.trialMonthly.id)
        #expect(try await service.subscriptionStatuses().first?.renewalInfo.payloadValue.eligibleWinBackOfferIDs == [])
        await #expect(throws: SubscriptionError(.ineligibleForOffer)) { _ = try await service.purchase(Self.trialMonthly.id, offer: missYou) }
        try store.setAutoRenew(false, productID: Self.trialMonthly.id)
        clock.advance(by: .seconds(8 * 86_400))
        #expect(try await service.subscriptionStatuses().first?.renewalInfo.payloadValue.eligibleWinBackOfferIDs == ["miss-you"])
        let back = try await bought(service, Self.trialMonthly.id, offer: missYou)
        #expect(back.offer?.type == .winBack && back.price == 0 && back.expirationDate == BillingPeriod.month.end(after: clock.now))
        #expect(service.currentTier == .pro)
    }

    @Test("an offer code is redeemed once, outside the app, and the subscription reaches the updates stream")
    func offerCodes() async throws {
        let (store, service) = try make()
        let updates = service.transactionUpdates()
        try store.addOfferCodes(["COACH26", "spare1"], productID: Self.trialMonthly.id, offerID: "coach-2026")
        #expect(throws: SubscriptionError(.invalidArgument)) {
            try store.addOfferCodes(["BAD CODE"], productID: Self.trialMonthly.id, offerID: "coach-2026")
        }
        #expect(throws: SubscriptionError(.invalidOfferIdentifier)) {
            try store.addOfferCodes(["X"], productID: Self.trialMonthly.id, offerID: "comeback")
        }
        #expect(throws: SubscriptionError(.invalidOfferCode)) { try store.redeemOfferCode("UNKNOWN") }
        let redeemed = try store.redeemOfferCode("coach26", appAccountToken: SubscriptionHarness.ada).unsafePayloadValue
        #expect(redeemed.offer == TransactionOffer(type: .code, id: "coach-2026", paymentMode: .payAsYouGo) && redeemed.price == 0.99)
        #expect(await updates.collect(1).first?.unsafePayloadValue.id == redeemed.id)
        #expect(throws: SubscriptionError(.invalidOfferCode), "used up") { try store.redeemOfferCode("COACH26") }
        try store.expireSubscription(productID: Self.trialMonthly.id)
        #expect(try store.redeemOfferCode("SPARE1").unsafePayloadValue.offer?.type == .code, "a lapsed subscriber redeems one too")
        #expect(service.currentTier == .pro)
    }

    @Test("an Ask to Buy request keeps the offer it asked for, checked again when approved")
    func askToBuyWithAnOffer() async throws {
        let (store, service) = try make()
        _ = try await bought(service, Self.trialMonthly.id)
        try store.expireSubscription(productID: Self.trialMonthly.id)
        store.askToBuyEnabled = true
        #expect(try await service.purchase(Self.trialMonthly.id, offer: .promotional(id: "comeback")) == .pending)
        let request = try #require(store.pendingPurchases.first)
        try store.approveAskToBuy(transactionID: request.transactionID)
        #expect(store.allTransactions.last?.unsafePayloadValue.offer?.id == "comeback")
    }

    @Test("at an accelerated rate an offer's period shrinks as the subscription's does")
    func acceleratedTrial() async throws {
        let (store, service) = try make()
        try store.setTimeRate(.monthlyRenewal(every: .seconds(30)))
        #expect(try await bought(service, Self.trialMonthly.id).expirationDate == start.addingTimeInterval(7))
    }

    @Test("an offer that is not whole makes its product invalidArgument, and nothing is bought")
    func invalidOffers() async throws {
        var pricedTrial = Self.trialMonthly
        pricedTrial.introductoryOffer?.price = 1
        var mismatched = Self.payAsYouGoYearly
        mismatched.introductoryOffer?.period = .week
        var namedIntro = Self.trialMonthly
        namedIntro.introductoryOffer?.id = "intro"
        var twice = Self.trialMonthly
        twice.offers.append(twice.offers[0])
        var onLifetime = AppStoreProduct.nonConsumable(id: "com.train.lifetime", displayName: "Lifetime", tier: .premium, price: 99)
        onLifetime.introductoryOffer = .freeTrial(.week)
        for product in [pricedTrial, mismatched, namedIntro, twice, onLifetime] {
            #expect(throws: SubscriptionError(.invalidArgument), "\(product)") { try product.validate() }
            let store = SimulatedAppStore(context: TrainContext(clock: clock), configuration: AppStoreConfiguration(products: [product]))
            await #expect(throws: SubscriptionError(.invalidArgument)) {
                _ = try await LocalSubscriptionService(store: store, context: store.context).purchase(product.id)
            }
            #expect(store.allTransactions.isEmpty)
        }
    }

    @Test("the standard Pro monthly starts with a one-week free trial for an Apple ID that never subscribed, then renews at its price")
    func standardTrial() async throws {
        let clock = ManualClock()
        let store = SimulatedAppStore(context: TrainContext(clock: clock), configuration: AppStoreConfiguration(products: AppStoreProduct.standard))
        let service = LocalSubscriptionService(
            store: store, context: store.context, configuration: SubscriptionConfiguration(appAccountToken: SubscriptionHarness.ada))
        #expect(try await service.isEligibleForIntroOffer(groupID: "train.subscriptions"))
        guard case .success(let result) = try await service.purchase(SubscriptionHarness.proMonthly) else {
            Issue.record("the purchase did not succeed")
            return
        }
        let trial = try result.payloadValue
        #expect(trial.periodType == .trial && trial.price == 0)
        #expect(trial.expirationDate == clock.now.addingTimeInterval(7 * 86_400))
        clock.advance(by: .seconds(7 * 86_400 + 1))
        store.settle()
        #expect(service.currentTier == .pro)
        let renewal = try #require(try await service.allTransactions().last?.unsafePayloadValue)
        #expect(renewal.periodType == .normal && renewal.price == AppStoreProduct.standard[0].price, "the renewal is at the regular price")
    }
}
