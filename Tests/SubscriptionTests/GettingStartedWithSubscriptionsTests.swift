import Foundation
import Testing
import TrainCore
import TrainSubscription
import TrainTesting

// The code of TrainSubscription.docc/GettingStartedWithSubscriptions.md, kept compiling and correct here.
// When you change one, change the other.

private func unlockAnalytics(subscriptions: LocalSubscriptionService) async throws -> Bool {
    let access = subscriptions.featureAccess()
    guard !access.canAccess(.analytics) else { return true }
    guard access.minimumTier(for: .analytics) == .pro else { return false }
    switch try await subscriptions.purchase("com.train.pro.monthly") {
    case .success(let verification):
        let transaction = try verification.payloadValue // unverified transactions throw here
        try await subscriptions.finish(transaction.id)
        return subscriptions.featureAccess().canAccess(.analytics)
    case .pending, .userCancelled:
        return false
    }
}

private func renewThenRefund(
    store: SimulatedAppStore, subscriptions: LocalSubscriptionService,
    advance: (Duration) -> Void
) async throws -> [SubscriptionTier] {
    var tiers: [SubscriptionTier] = []
    advance(.seconds(32 * 86_400)) // the subscription renews on its own
    tiers.append(try await subscriptions.restorePurchases())
    if let latest = try await subscriptions.subscriptionStatuses().first?.transaction.unsafePayloadValue {
        try store.refund(transactionID: latest.id, reason: .other) // access ends at once
    }
    tiers.append(try await subscriptions.restorePurchases())
    return tiers
}

@Suite(.timeLimit(.minutes(1))) struct GettingStartedWithSubscriptionsTests {
    @Test("the article's purchase unlocks analytics, and the renewal and refund do what it says")
    func article() async throws {
        let clock = ManualClock()
        let store = try SimulatedAppStore(
            storage: .inMemory, context: TrainContext(clock: clock),
            configuration: AppStoreConfiguration(products: AppStoreProduct.standardWithoutTrial))
        let subscriptions = LocalSubscriptionService(
            store: store, context: store.context, configuration: SubscriptionConfiguration(appAccountToken: UUID()))
        #expect(try await unlockAnalytics(subscriptions: subscriptions))
        let tiers = try await renewThenRefund(store: store, subscriptions: subscriptions) { clock.advance(by: $0) }
        #expect(tiers == [.pro, .free])
        #expect(store.allTransactions.count == 2, "one purchase and one renewal")
    }
}
