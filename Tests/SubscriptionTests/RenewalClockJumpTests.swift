import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainSubscription

/// Renewals across clock jumps: grace extends only the latest period, the service follows
/// the store at once, and the store refuses inputs that would make it run away.
@Suite(.timeLimit(.minutes(1))) struct RenewalClockJumpTests {
    typealias H = SubscriptionHarness

    @Test("grace after a downgrade extends the latest (Pro) period, never the earlier Premium ones")
    func graceAfterDowngrade() async throws {
        let harness = try H()
        try await harness.buy(H.premiumMonthly)
        _ = try await harness.service.purchase(H.proMonthly) // downgrade at the next renewal
        harness.clock.advance(to: harness.months(1).addingTimeInterval(1))
        #expect(harness.service.currentTier == .pro)
        harness.store.shouldEnterBillingRetryOnRenewal = true
        harness.store.billingGracePeriodIsEnabled = true
        harness.clock.advance(to: harness.months(2).addingTimeInterval(1))
        #expect(try await harness.service.subscriptionStatuses().first?.state == .inGracePeriod)
        #expect(harness.service.currentTier == .pro)
        #expect(try await harness.service.currentEntitlements().map(\.unsafePayloadValue.productID) == [H.proMonthly])
    }

    @Test("the service follows the store at once: a refund, an expiry and a clear need no restore")
    func followsAtOnce() async throws {
        let harness = try H()
        let transaction = try await harness.buy()
        try harness.store.refund(transactionID: transaction.id)
        #expect(harness.service.currentTier == .free)

        try harness.store.buyOutsideApp(productID: H.premiumMonthly, appAccountToken: H.ada)
        #expect(harness.service.currentTier == .premium)
        try harness.store.expireSubscription(productID: H.premiumMonthly)
        #expect(harness.service.currentTier == .free)

        try harness.store.buyOutsideApp(productID: H.proMonthly, appAccountToken: H.ada)
        #expect(harness.service.currentTier == .pro)
        harness.store.clearTransactions()
        #expect(harness.service.currentTier == .free)
    }

    @Test("a ten-day clock jump at one month per second settles with a bounded number of renewals and the right state")
    func boundedJump() async throws {
        let harness = try H()
        try harness.store.setTimeRate(.monthlyRenewal(every: .seconds(1)))
        try await harness.buy()
        harness.clock.advance(by: .seconds(10 * 86_400))
        harness.store.settle()
        let transactions = harness.store.allTransactions.map(\.unsafePayloadValue)
        #expect(transactions.count <= SimulatedAppStore.maximumRenewalsPerSettle + 1)
        #expect(transactions.count > SimulatedAppStore.maximumRenewalsPerSettle, "the latest renewals are all there")
        let latest = try #require(transactions.last)
        #expect(
            latest.purchaseDate <= harness.clock.now && harness.clock.now <= (latest.expirationDate ?? .distantPast),
            "the latest renewal covers now")
        #expect(harness.service.currentTier == .pro)
        let status = try #require(try await harness.service.subscriptionStatuses().first)
        #expect(status.state == .subscribed && status.transaction.unsafePayloadValue.id == latest.id)
    }

    @Test("a one-day jump with a downgrade pending applies it at the first renewal and still records a bounded number")
    func boundedJumpWithPendingDowngrade() async throws {
        let harness = try H()
        try harness.store.setTimeRate(.monthlyRenewal(every: .seconds(1)))
        try await harness.buy(H.premiumMonthly)
        _ = try await harness.service.purchase(H.proMonthly) // a downgrade: waits for the renewal
        harness.clock.setDate(harness.clock.now.addingTimeInterval(86_400))
        harness.store.settle()
        let transactions = harness.store.allTransactions.map(\.unsafePayloadValue)
        #expect(transactions.count <= SimulatedAppStore.maximumRenewalsPerSettle + 2)
        let latest = try #require(transactions.last)
        #expect(latest.productID == H.proMonthly, "the downgrade applied")
        #expect(latest.purchaseDate <= harness.clock.now && harness.clock.now <= (latest.expirationDate ?? .distantPast))
        #expect(harness.service.currentTier == .pro)
    }

    @Test("a real-time monthly subscription over a jump of 2,000 years never renews past now")
    func longJumpStaysInThePast() async throws {
        let harness = try H()
        try await harness.buy() // on 1 January: the first period measured is February's 28 days
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let later = try #require(calendar.date(byAdding: .year, value: 2_000, to: harness.clock.now))
        harness.clock.setDate(later)
        harness.store.settle()
        let transactions = harness.store.allTransactions.map(\.unsafePayloadValue)
        let latest = try #require(transactions.last)
        #expect(latest.purchaseDate <= later, "a renewal is never dated after now")
        #expect(later <= (latest.expirationDate ?? .distantPast), "the latest renewal covers now")
        #expect(transactions.count > SimulatedAppStore.maximumRenewalsPerSettle, "the latest renewals are all recorded")
        #expect(transactions.count <= SimulatedAppStore.maximumRenewalsPerSettle + 1)
    }

    @Test("reading the tier while a renewal is due changes nothing the store or the service keeps")
    func previewKeepsNothing() async throws {
        let harness = try H()
        let first = try await harness.buy()
        harness.store.billingGracePeriodIsEnabled = true
        try harness.makeRenewalDue(first)
        let rebuilds = harness.service.rebuildCount
        #expect(harness.store.isDue(at: harness.clock.now))
        #expect(harness.service.currentTier == .pro)
        #expect(harness.service.currentTier == .pro)
        #expect(harness.store.isDue(at: harness.clock.now), "reading recorded nothing: the renewal is still due")
        #expect(harness.service.rebuildCount == rebuilds)
        harness.store.settle()
        #expect(!harness.store.isDue(at: harness.clock.now))
        #expect(harness.store.allTransactions.count == 2)
        #expect(harness.service.currentTier == .pro)
    }

    @Test("a time rate under a second per month, and a backdate beyond the limit, are refused and change nothing")
    func runawayInputs() async throws {
        let harness = try H()
        for rate in [Duration.nanoseconds(10), .milliseconds(999), .seconds(-1)] {
            #expect(throws: SubscriptionError(.invalidTimeRate)) { try harness.store.setTimeRate(.monthlyRenewal(every: rate)) }
        }
        #expect(harness.store.timeRate == .realTime)
        let tooEarly = #expect(throws: SubscriptionError.self) {
            try harness.store.buyOutsideApp(productID: H.proMonthly, appAccountToken: H.ada, purchaseDate: .distantPast)
        }
        #expect(tooEarly?.code == .invalidArgument)
        #expect(harness.store.allTransactions.isEmpty)
    }
}
