import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainSubscription

/// The service keeps entitlements one change at a time, and reading the tier writes nothing.
@Suite(.timeLimit(.minutes(1))) struct IncrementalEntitlementTests {
    typealias H = SubscriptionHarness

    @Test("renewals, grace, billing retry, refunds and expiry reach the tier without recomputing the history")
    func noRebuilds() async throws {
        let harness = try H()
        try await harness.buy(H.proMonthly)
        let rebuilds = harness.service.rebuildCount
        try harness.store.forceRenewal(productID: H.proMonthly)
        #expect(harness.service.currentTier == .pro)
        harness.store.shouldEnterBillingRetryOnRenewal = true
        harness.store.billingGracePeriodIsEnabled = true
        let renewal = try #require(try await harness.service.subscriptionStatuses().first?.transaction.unsafePayloadValue.expirationDate)
        harness.clock.advance(to: renewal.addingTimeInterval(1))
        harness.store.settle()
        #expect(try await harness.service.subscriptionStatuses().first?.state == .inGracePeriod)
        #expect(harness.service.currentTier == .pro, "grace keeps access")
        try harness.store.resolveBillingIssue(productID: H.proMonthly)
        #expect(harness.service.currentTier == .pro)
        let latest = try #require(harness.store.allTransactions.last?.unsafePayloadValue)
        try harness.store.refund(transactionID: latest.id)
        #expect(harness.service.currentTier == .free)
        #expect(harness.service.rebuildCount == rebuilds)
    }

    @Test("a renewal that is due shows in the tier at once, and reading the tier writes nothing to the file")
    func readingWritesNothing() async throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock()
        let file = directory.file("appstore.sqlite")
        let store = try SimulatedAppStore(storage: .file(file), context: TrainContext(clock: clock))
        let service = LocalSubscriptionService(store: store, context: store.context, configuration: SubscriptionConfiguration(appAccountToken: H.ada))
        let observer = try SimulatedAppStore(storage: .file(file), context: TrainContext(clock: clock))
        guard case .success(let first) = try await service.purchase(H.proMonthly) else {
            Issue.record("the purchase should succeed")
            return
        }
        let renewal = try #require(first.unsafePayloadValue.expirationDate)
        clock.setDate(renewal.addingTimeInterval(3600)) // the store's renewal timer does not wake
        let before = try observer.ledger.externalChangeCount()
        #expect(service.currentTier == .pro, "the renewal due an hour ago counts")
        #expect(service.currentTier == .pro)
        #expect(try observer.ledger.externalChangeCount() == before, "reading the tier wrote nothing")
        store.settle()
        #expect(try observer.ledger.externalChangeCount() == before + 1, "settling the store writes the renewal")
        #expect(service.currentTier == .pro)
    }
}
