import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainSubscription

/// A write returns what it changed to the one who made it, instead of calling it back.
@Suite(.timeLimit(.minutes(1))) struct PurchaseChangeTests {
    @Test("a purchase returns its events to the buyer, which the store does not call back, and tells every other observer once")
    func purchaseReturnsItsChange() async throws {
        let store = SimulatedAppStore(context: TrainContext(clock: ManualClock()))
        let told = Locked<[String: Int]>([:])
        let buyer = store.addObserver { _ in told.withLock { $0["buyer", default: 0] += 1 } }
        _ = store.addObserver { _ in told.withLock { $0["other", default: 0] += 1 } }
        let product = try #require(store.product(SubscriptionHarness.proMonthly))
        let (result, events) = try store.purchase(
            product, offer: nil, appleID: store.appleID, appAccountToken: nil, exclusive: false, requestID: "request-1", caller: buyer)
        guard case .success(let bought) = result else {
            Issue.record("the purchase did not go through")
            return
        }
        #expect(
            events.contains { event in
                if case .transaction(let transaction, _, _, let returnedByPurchase) = event {
                    transaction.unsafePayloadValue.id == bought.unsafePayloadValue.id && returnedByPurchase
                } else {
                    false
                }
            })
        #expect(told.withLock { $0 } == ["other": 1])
    }
}
