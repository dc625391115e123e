import Foundation
import Synchronization
import Testing
@testable import TrainSubscription
import TrainCore
import TrainTesting

/// The service keeps entitlements one change at a time, and reading the tier writes nothing.
@Suite(.timeLimit(.minutes(1))) struct IncrementalEntitlementTests {
    typealias H = SubscriptionHarness

    @Test("renewals, grace, billing retry, refunds and expiry reach the tier without recomputing the history")
    func noRebuilds() async throws {
        let harness = try H()
        try await harness.buy(H.proMonthly)
        let rebuilds = harness.service.rebuildCount
        try harness.store.forceRenewal(productID: H.proMonthly, appAccountToken: H.ada)
        #expect(harness.service.currentTier == .pro)
        harness.store.shouldEnterBillingRetryOnRenewal = true
        harness.store.billingGracePeriodIsEnabled = true
        let renewal = try #require(try await harness.service.subscriptionStatuses().first?.transaction.unsafePayloadValue.expirationDate)
        harness.clock.advance(to: renewal.addingTimeInterval(1))
        harness.store.settle()
        #expect(try await harness.service.subscriptionStatuses().first?.state == .inGracePeriod)
        #expect(harness.service.currentTier == .pro, "grace keeps access")
        try harness.store.resolveBillingIssue(productID: H.proMonthly, appAccountToken: H.ada)
        #expect(harness.service.currentTier == .pro)
        let latest = try #require(harness.store.allTransactions.last?.unsafePayloadValue)
        try harness.store.refund(transactionID: latest.id)
        #expect(harness.service.currentTier == .free)
        #expect(harness.service.rebuildCount == rebuilds)
    }

    @Test("a renewal that is due shows in the tier at once, and reading the tier writes nothing to the file")
    func readingWritesNothing() async throws {
        let directory = try TemporaryDirectory()
        let clock = FrozenTimerClock(ManualClock.defaultStart)
        let file = directory.file("appstore.sqlite")
        let store = try SimulatedAppStore(storage: .file(file), clock: clock)
        let service = LocalSubscriptionService(store: store, appAccountToken: H.ada)
        let observer = try SimulatedAppStore(storage: .file(file), clock: clock)
        guard case .success(let first) = try await service.purchase(H.proMonthly) else {
            Issue.record("the purchase should succeed")
            return
        }
        let renewal = try #require(first.unsafePayloadValue.expirationDate)
        clock.set(renewal.addingTimeInterval(3600))
        let before = try observer.ledger.externalChangeCount()
        #expect(service.currentTier == .pro, "the renewal due an hour ago counts")
        #expect(service.currentTier == .pro)
        #expect(try observer.ledger.externalChangeCount() == before, "reading the tier wrote nothing")
        store.settle()
        #expect(try observer.ledger.externalChangeCount() == before + 1, "settling the store writes the renewal")
        #expect(service.currentTier == .pro)
    }
}

/// A clock a test sets by hand, on which no sleeper ever wakes: the store's renewal
/// timers never fire, so what the test reads is all that runs.
final class FrozenTimerClock: DateClock {
    private let date: Mutex<Date>

    init(_ start: Date) { date = Mutex(start) }

    var now: Date { date.withLock { $0 } }

    func set(_ newDate: Date) { date.withLock { $0 = newDate } }

    func sleep(until deadline: Date) async throws {
        try await Task.sleep(for: .seconds(3600))
    }
}
