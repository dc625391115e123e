import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainSubscription

/// SUB-11: the test controls of SKTestSession beyond the ones SUB-4 lists — an error
/// injected into each store call, and deleting a transaction.
@Suite(.timeLimit(.minutes(1))) struct StoreTestSurfaceTests {
    typealias H = SubscriptionHarness

    @Test("each store call fails with the error a test chose, changes nothing, and works again once the error is cleared")
    func simulatedErrors() async throws {
        let harness = try H()
        let service = harness.service
        try await harness.buy()
        let calls: [(SimulatedAppStore.StoreAPI, () async throws -> Void)] = [
            (.loadProducts, { _ = try await service.products() }),
            (.purchase, { _ = try await service.purchase(H.premiumMonthly) }),
            (.appStoreSync, { _ = try await service.restorePurchases() }),
            (.subscriptionStatus, { _ = try await service.subscriptionStatuses() }),
            (.appTransaction, { _ = try await service.appTransaction() }),
        ]
        for (api, call) in calls {
            let (before, tier) = (harness.store.allTransactions, service.currentTier)
            harness.store.setSimulatedError(.networkError, for: api)
            #expect(harness.store.simulatedError(for: api) == .networkError)
            await #expect(throws: SubscriptionError(.networkError), "\(api)") { try await call() }
            #expect(harness.store.allTransactions == before && service.currentTier == tier, "\(api) changed nothing")
            harness.store.setSimulatedError(nil, for: api)
            try await call()
        }
        harness.store.purchaseFailure = .paymentNotAllowed
        #expect(harness.store.simulatedError(for: .purchase) == .paymentNotAllowed, "purchaseFailure is the purchase call's error")
        harness.store.resetToDefaultState()
        #expect(SimulatedAppStore.StoreAPI.allCases.allSatisfy { harness.store.simulatedError(for: $0) == nil })
    }

    @Test(
        "deleting a subscription's latest transaction takes it back to the one before, lapsed; deleting its only one removes it",
        arguments: StoreVariant.allCases)
    func deleteTransaction(variant: StoreVariant) async throws {
        let harness = try H(variant)
        let first = try await harness.buy()
        harness.clock.advance(to: try #require(first.expirationDate).addingTimeInterval(1))
        let renewal = try #require(harness.store.allTransactions.last?.unsafePayloadValue)
        #expect(renewal.id != first.id && harness.service.currentTier == .pro)
        try harness.store.deleteTransaction(renewal.id)
        #expect(harness.store.allTransactions.map(\.unsafePayloadValue.id) == [first.id])
        #expect(harness.service.currentTier == .free, "the first period has ended and nothing renews it")
        let status = try #require(try await harness.service.subscriptionStatuses().first)
        #expect(status.state == .expired && status.transaction.unsafePayloadValue.id == first.id)
        harness.clock.advance(by: .seconds(60 * 86_400))
        #expect(harness.store.allTransactions.count == 1, "it does not renew again")
        try harness.store.deleteTransaction(first.id)
        #expect(try await harness.service.subscriptionStatuses().isEmpty && harness.store.allTransactions.isEmpty)
        #expect(throws: SubscriptionError(.transactionNotFound)) { try harness.store.deleteTransaction(first.id) }
        if variant == .file {
            try harness.relaunch()
            #expect(harness.store.allTransactions.isEmpty && harness.service.currentTier == .free)
        }
        #expect(try await harness.service.isEligibleForIntroOffer(groupID: "train.subscriptions"), "as if it had never been bought")
    }

    @Test("the app transaction tells when and in which version the app was first had; a test sets it, and bad input changes nothing")
    func appTransaction() async throws {
        let harness = try H()
        let first = try await harness.service.appTransaction().payloadValue
        #expect(first.originalAppVersion == "1.0" && first.originalPurchaseDate == ManualClock.defaultStart && first.environment == .simulated)
        let early = AppTransactionInfo(
            bundleID: "com.example.train", appVersion: "2.0", originalAppVersion: "1.2",
            originalPurchaseDate: ManualClock.defaultStart.addingTimeInterval(-365 * 86_400))
        try harness.store.setAppTransaction(early)
        #expect(try await harness.service.appTransaction() == .verified(early))
        var broken = early
        broken.originalPurchaseDate = Date(timeIntervalSinceReferenceDate: .nan)
        #expect(throws: SubscriptionError(.invalidArgument)) { try harness.store.setAppTransaction(broken) }
        broken = early
        broken.bundleID = ""
        #expect(throws: SubscriptionError(.invalidArgument)) { try harness.store.setAppTransaction(broken) }
        #expect(try await harness.service.appTransaction() == .verified(early))
        harness.store.producesUnverifiedTransactions = true
        #expect(try await !harness.service.appTransaction().isVerified)
    }

    @Test("one renewal every 2 seconds: every period, a trial and grace included, lasts 2 s")
    func oneRenewalEvery() async throws {
        let clock = ManualClock()
        let start = ManualClock.defaultStart
        let products = ProductTypeTests.catalog + [OfferTests.payUpFront]
        let store = SimulatedAppStore(context: TrainContext(clock: clock), configuration: AppStoreConfiguration(products: products))
        let service = LocalSubscriptionService(store: store, context: store.context)
        try store.setTimeRate(.oneRenewal(every: .seconds(2)))
        #expect(throws: SubscriptionError(.invalidTimeRate)) { try store.setTimeRate(.oneRenewal(every: .milliseconds(500))) }
        #expect(store.timeRate == .oneRenewal(every: .seconds(2)))
        for productID in [ProductTypeTests.weekly.id, OfferTests.payUpFront.id] {
            guard case .success(let result) = try await service.purchase(productID) else { throw SubscriptionError(.systemError) }
            #expect(result.unsafePayloadValue.expirationDate == clock.now.addingTimeInterval(2), "\(productID)")
        }
        store.shouldEnterBillingRetryOnRenewal = true
        store.billingGracePeriodIsEnabled = true
        clock.advance(to: start.addingTimeInterval(2.5))
        let grace = try await service.subscriptionStatuses().compactMap { try $0.renewalInfo.payloadValue.gracePeriodExpirationDate }
        #expect(grace == [start.addingTimeInterval(4), start.addingTimeInterval(4)])
    }

    @Test("one second is one day: a week lasts 7 s, a month 30 s, a year 365 s, and a month's grace 16 s")
    func oneSecondIsOneDay() async throws {
        let clock = ManualClock()
        let start = ManualClock.defaultStart
        let store = SimulatedAppStore(
            context: TrainContext(clock: clock),
            configuration: AppStoreConfiguration(
                products: ProductTypeTests.catalog + AppStoreProduct.standardWithoutTrial.filter { $0.tier == .premium }))
        let service = LocalSubscriptionService(store: store, context: store.context)
        try store.setTimeRate(.oneSecondIsOneDay)
        for (productID, seconds) in [(ProductTypeTests.weekly.id, 7.0), ("com.train.premium.monthly", 30), (ProductTypeTests.yearly.id, 365)] {
            try store.switchAppleID(to: AppleID("\(productID)@example.com"))
            guard case .success(let result) = try await service.purchase(productID) else { throw SubscriptionError(.systemError) }
            #expect(result.unsafePayloadValue.expirationDate == start.addingTimeInterval(seconds), "\(productID)")
        }
        store.shouldEnterBillingRetryOnRenewal = true
        store.billingGracePeriodIsEnabled = true
        clock.advance(to: start.addingTimeInterval(30.5))
        try store.switchAppleID(to: AppleID("com.train.premium.monthly@example.com"))
        let status = try #require(try await service.subscriptionStatuses().first)
        #expect(try status.renewalInfo.payloadValue.gracePeriodExpirationDate == start.addingTimeInterval(46))
    }

    @Test("forcing a renewal or expiring a subscription changes only the current period's transaction, never an earlier one's dates")
    func earlierTransactionsKeepTheirDates() async throws {
        let harness = try H()
        let first = try await harness.buy()
        harness.clock.advance(to: try #require(first.expirationDate).addingTimeInterval(1))
        let before = harness.store.allTransactions.map(\.unsafePayloadValue)
        #expect(before.count == 2)
        harness.clock.advance(by: .seconds(86_400))
        try harness.store.forceRenewal(productID: H.proMonthly)
        let afterRenewal = harness.store.allTransactions.map(\.unsafePayloadValue)
        #expect(afterRenewal[0] == before[0], "the first period is untouched")
        #expect(afterRenewal[1].expirationDate == harness.clock.now.addingTimeInterval(-0.001), "the current period ends a moment before the new one")
        #expect(afterRenewal[1].purchaseDate == before[1].purchaseDate)
        try harness.store.expireSubscription(productID: H.proMonthly)
        let afterExpiry = harness.store.allTransactions.map(\.unsafePayloadValue)
        #expect(Array(afterExpiry.prefix(2)) == Array(afterRenewal.prefix(2)), "only the current period's end moves")
        #expect(afterExpiry[2].expirationDate == harness.clock.now.addingTimeInterval(-0.001))
    }
}
