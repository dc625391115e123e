import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainSubscription

/// SUB-15: every store change reaches the tier at a cost that does not grow with the
/// history. The engine counts its work (`steps`: places compared in the tiers'
/// orderings); a recount of a tier would read every transaction of it.
@Suite(.timeLimit(.minutes(2))) struct StoreChangeCostTests {
    typealias H = SubscriptionHarness

    /// Most engine steps one change may take with a 10,000-transaction history: a few
    /// walks of a heap 14 levels deep.
    static let stepBudget = 120

    /// A subscriber with a 10,000-transaction history of Pro monthly, renewed every second.
    static func longHistory(_ variant: StoreVariant) async throws -> H {
        let harness = try H(variant)
        try harness.store.setTimeRate(.monthlyRenewal(every: .seconds(1)))
        try harness.store.buyOutsideApp(
            productID: H.proMonthly, appAccountToken: H.ada,
            purchaseDate: harness.clock.now.addingTimeInterval(-Double(SimulatedAppStore.maximumBackdatedPeriods)))
        while harness.store.allTransactions.count < 10_000 {
            harness.clock.setDate(harness.clock.now.addingTimeInterval(Double(min(10_000 - harness.store.allTransactions.count, 1_000))))
            harness.store.settle()
        }
        #expect(harness.store.allTransactions.count == 10_000 && harness.service.currentTier == .pro)
        return harness
    }

    /// Runs `change` and checks that the tier after it is `tier`, reached without a
    /// rebuild and within the step budget.
    static func expectCheap(_ harness: H, _ name: String, tier: SubscriptionTier, _ change: () throws -> Void) rethrows {
        let (steps, rebuilds) = (harness.service.engineSteps, harness.service.rebuildCount)
        try change()
        #expect(harness.service.currentTier == tier, "\(name)")
        #expect(harness.service.rebuildCount == rebuilds, "\(name) recomputed the history")
        #expect(harness.service.engineSteps - steps <= stepBudget, "\(name) took \(harness.service.engineSteps - steps) steps")
    }

    @Test("each store change with a 10,000-transaction history costs a few steps, never a recount", arguments: StoreVariant.allCases)
    func everyChangeIsIncremental(variant: StoreVariant) async throws {
        let harness = try await Self.longHistory(variant)
        let store = harness.store
        Self.expectCheap(harness, "a renewal", tier: .pro) {
            harness.clock.setDate(harness.clock.now.addingTimeInterval(1))
            store.settle()
        }
        try Self.expectCheap(harness, "a forced renewal", tier: .pro) { try store.forceRenewal(productID: H.proMonthly) }
        try Self.expectCheap(harness, "auto-renew off", tier: .pro) { try store.setAutoRenew(false, productID: H.proMonthly) }
        try Self.expectCheap(harness, "auto-renew on", tier: .pro) { try store.setAutoRenew(true, productID: H.proMonthly) }
        try Self.expectCheap(harness, "an upgrade", tier: .premium) { try store.buyOutsideApp(productID: H.premiumMonthly, appAccountToken: H.ada) }
        try Self.expectCheap(harness, "a downgrade", tier: .premium) { try store.buyOutsideApp(productID: H.proMonthly, appAccountToken: H.ada) }
        try Self.expectCheap(harness, "an expiry", tier: .free) { try store.expireSubscription(productID: H.proMonthly) }
        try Self.expectCheap(harness, "a resubscription", tier: .pro) { try store.buyOutsideApp(productID: H.proMonthly, appAccountToken: H.ada) }
        let latest = try #require(try await harness.service.subscriptionStatuses().first?.transaction.unsafePayloadValue.id)
        try Self.expectCheap(harness, "a refund", tier: .free) { try store.refund(transactionID: latest, reason: .developerIssue) }

        try store.buyOutsideApp(productID: H.proMonthly, appAccountToken: H.ada)
        store.shouldEnterBillingRetryOnRenewal = true
        store.billingGracePeriodIsEnabled = true
        Self.expectCheap(harness, "a failed renewal into grace", tier: .pro) {
            harness.clock.setDate(harness.clock.now.addingTimeInterval(1.01))
            store.settle()
        }
        Self.expectCheap(harness, "grace ending in billing retry", tier: .free) {
            harness.clock.setDate(harness.clock.now.addingTimeInterval(1))
            store.settle()
        }
        try Self.expectCheap(harness, "a billing issue resolved", tier: .pro) { try store.resolveBillingIssue(productID: H.proMonthly) }
        store.billingGracePeriodIsEnabled = false
        Self.expectCheap(harness, "a failed renewal into billing retry", tier: .free) {
            harness.clock.setDate(harness.clock.now.addingTimeInterval(1.01))
            store.settle()
        }
    }

    @Test("with 10,000 transactions, revoking, upgrading, shortening and ending grace each move one transaction")
    func engineChangesAreLogarithmic() {
        var engine = EntitlementEngine(products: AppStoreProduct.standardWithoutTrial)
        let start = ManualClock.defaultStart
        var transactions: [AppStoreTransaction] = []
        for index in 0..<10_000 {
            let transaction = AppStoreTransaction(
                id: UInt64(index + 1), originalID: 1, productID: H.proMonthly, purchaseDate: start.addingTimeInterval(Double(index)),
                expirationDate: start.addingTimeInterval(Double(index + 1)))
            transactions.append(transaction)
            engine.apply(.verified(transaction))
        }
        let now = start.addingTimeInterval(9_999.5)
        #expect(engine.tier(at: now) == .pro)
        var latest = transactions[9_999]
        func cheaply(_ change: (inout EntitlementEngine) -> Void) -> Int {
            let before = engine.steps
            change(&engine)
            _ = engine.tier(at: now)
            return engine.steps - before
        }
        engine.setGracePeriodEnd(now.addingTimeInterval(100), forTransaction: latest.id)
        #expect(cheaply { $0.setGracePeriodEnd(nil, forTransaction: latest.id) } <= Self.stepBudget)
        latest.expirationDate = now.addingTimeInterval(0.25)
        #expect(cheaply { $0.apply(.verified(latest)) } <= Self.stepBudget)
        #expect(engine.tier(at: now) == .pro)
        latest.isUpgraded = true
        #expect(cheaply { $0.apply(.verified(latest)) } <= Self.stepBudget)
        #expect(engine.tier(at: now) == .free, "the upgraded period no longer grants, and the one before has ended")
        var earlier = transactions[9_998]
        earlier.revocationDate = now
        #expect(cheaply { $0.apply(.verified(earlier)) } <= Self.stepBudget)
        #expect(engine.tier(at: start.addingTimeInterval(9_998.5)) == .free)
        #expect(engine.tier(at: start.addingTimeInterval(9_997.5)) == .pro)
    }

    @Test("a family member leaving, with 10,000 transactions shared with it, costs a few steps, never a recount", arguments: StoreVariant.allCases)
    func revocationIsIncremental(variant: StoreVariant) async throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock()
        var pro = AppStoreProduct(id: H.proMonthly, displayName: "Pro", tier: .pro, period: .month, price: 4.99)
        pro.isFamilyShareable = true
        let storage: StorageLocation = variant == .file ? .file(directory.file("appstore.sqlite")) : .inMemory
        let store = try SimulatedAppStore(
            storage: storage, context: TrainContext(clock: clock), configuration: AppStoreConfiguration(products: [pro]))
        try store.setTimeRate(.monthlyRenewal(every: .seconds(1)))
        let member = try AppleID("member@example.com")
        try store.createFamily(organizer: .standard)
        try store.addToFamily(member, organizer: .standard)
        try store.buyOutsideApp(productID: H.proMonthly, purchaseDate: clock.now.addingTimeInterval(-1_199))
        while store.allTransactions.count < 20_000 {
            clock.setDate(clock.now.addingTimeInterval(Double(min((20_000 - store.allTransactions.count) / 2, 1_000))))
            store.settle()
        }
        try store.switchAppleID(to: member)
        let service = LocalSubscriptionService(store: store, context: store.context)
        #expect(service.currentTier == .pro)
        let (steps, rebuilds) = (service.engineSteps, service.rebuildCount)
        try store.removeFromFamily(member)
        #expect(service.currentTier == .free)
        #expect(service.rebuildCount == rebuilds, "the revocation recomputed the history")
        #expect(service.engineSteps - steps <= Self.stepBudget)
    }
}
