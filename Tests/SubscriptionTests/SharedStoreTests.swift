import Foundation
import Testing
import TrainCore
import TrainSubscription
import TrainTesting

/// What one service on a store does reaches the others on it.
@Suite(.timeLimit(.minutes(1))) struct SharedStoreTests {
    @Test("a purchase through one service on a store comes on another's transaction updates, as one made on another device")
    func purchaseReachesTheOtherService() async throws {
        let store = SimulatedAppStore(context: TrainContext(clock: ManualClock()))
        let phone = LocalSubscriptionService(store: store, context: store.context)
        let tablet = LocalSubscriptionService(store: store, context: store.context)
        let updates = tablet.transactionUpdates()
        guard case .success(let bought) = try await phone.purchase(SubscriptionHarness.proMonthly) else {
            Issue.record("the purchase did not go through")
            return
        }
        let delivered = await updates.firstValue { $0.unsafePayloadValue.id == bought.unsafePayloadValue.id }
        #expect(delivered != nil)
        #expect(tablet.currentTier == .pro)
    }

    @Test("a store call that fails tells its services what another store on the file changed just before")
    func failedCallReloads() async throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock()
        let app = try SimulatedAppStore(storage: .file(directory.file("store.sqlite")), context: TrainContext(clock: clock))
        let subscriptions = LocalSubscriptionService(store: app, context: app.context)
        guard case .success(let bought) = try await subscriptions.purchase(SubscriptionHarness.proMonthly) else {
            Issue.record("the purchase did not go through")
            return
        }
        let tiers = subscriptions.tierChanges()
        let widget = try SimulatedAppStore(storage: .file(directory.file("store.sqlite")), context: TrainContext(clock: clock))
        try widget.refund(transactionID: bought.unsafePayloadValue.id)
        #expect(throws: SubscriptionError.self) { try app.refund(transactionID: 999_999) }
        #expect(await tiers.firstValue { $0 == .free } == .free, "the refund reached the tier with no read")
    }
}
