import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainSubscription

/// Two stores on one ledger file (an app and its extension, or two processes) never
/// reuse a transaction ID or write over each other.
@Suite(.timeLimit(.minutes(1))) struct SharedLedgerTests {
    typealias H = SubscriptionHarness

    @Test("two stores on one file hand out distinct transaction IDs, and after a relaunch both Apple IDs keep their tier")
    func distinctIDs() async throws {
        let harness = try H(.file)
        let widgetStore = try harness.makeStore()
        let widget = LocalSubscriptionService(
            store: widgetStore, context: widgetStore.context, configuration: SubscriptionConfiguration(appAccountToken: H.grace))
        let pro = try await harness.buy(H.proMonthly)
        try widgetStore.switchAppleID(to: AppleIDTests.child)
        guard case .success(let premium) = try await widget.purchase(H.premiumMonthly) else {
            Issue.record("the widget's purchase should succeed")
            return
        }
        #expect(premium.unsafePayloadValue.id != pro.id)
        try harness.relaunch()
        #expect(harness.service.currentTier == .premium, "the child's Apple ID is signed in")
        try harness.store.switchAppleID(to: .standard)
        #expect(harness.service.currentTier == .pro, "Ada's Pro survived the widget's purchase")
        #expect(Set(harness.store.allTransactions.map(\.unsafePayloadValue.id)).count == 2)
    }

    @Test("a service sees a purchase made through another store on the file at its next read")
    func seesOtherStore() async throws {
        let harness = try H(.file)
        let widgetStore = try harness.makeStore()
        #expect(harness.service.currentTier == .free)
        try widgetStore.buyOutsideApp(productID: H.premiumMonthly, appAccountToken: H.ada)
        #expect(harness.service.currentTier == .premium)
        try widgetStore.refund(transactionID: try #require(widgetStore.allTransactions.last?.unsafePayloadValue.id))
        #expect(harness.service.currentTier == .free)
    }

    @Test("a refund or a purchase recorded through another store on the file reaches this service's update listeners")
    func updatesFromOtherStore() async throws {
        let harness = try H(.file)
        let bought = try await harness.buy()
        try await harness.service.finish(bought.id)
        let updates = harness.service.transactionUpdates()
        let widgetStore = try harness.makeStore()
        try widgetStore.refund(transactionID: bought.id, reason: .other)
        try widgetStore.buyOutsideApp(productID: H.premiumMonthly, appAccountToken: H.ada)
        harness.store.settle() // the app's store notices the other store's commits
        let delivered = await updates.collect(2).map(\.unsafePayloadValue)
        #expect(delivered.first?.id == bought.id)
        #expect(delivered.first?.revocationDate != nil, "the refund arrived")
        #expect(delivered.last?.productID == H.premiumMonthly, "the other store's purchase arrived")
        #expect(harness.service.currentTier == .premium)
    }

    @Test("writes of another service's schema on the shared file do not make the store read its ledger again")
    func otherSchemaWrites() async throws {
        let harness = try H(.file)
        try await harness.buy()
        _ = harness.service.currentTier
        let rebuilds = harness.service.rebuildCount
        let settings = try RecordStore(
            .file(harness.file), schema: StoreSchema(name: "settings", migrations: [.createCollections(version: 1, ["prefs"])]))
        for index in 0..<5 {
            try settings.write { try $0.put(index, forKey: "k\(index)", in: RecordCollection<Int>("prefs")) }
            #expect(harness.service.currentTier == .pro)
        }
        #expect(harness.service.rebuildCount == rebuilds)
        let widgetStore = try harness.makeStore()
        try widgetStore.refund(transactionID: try #require(widgetStore.allTransactions.last?.unsafePayloadValue.id))
        #expect(harness.service.currentTier == .free, "a write to the ledger is still seen")
        #expect(harness.service.rebuildCount == rebuilds + 1)
    }

    @Test("a ledger missing its next-ID record never reuses an ID over an existing transaction")
    func missingNextID() async throws {
        let harness = try H(.file)
        let first = try await harness.buy(H.proMonthly)
        try harness.store.ledger.write { try $0.removeValue(forKey: "nextID", in: StoreLedger.meta) }
        try harness.relaunch(user: H.grace)
        try harness.store.switchAppleID(to: AppleIDTests.child)
        let second = try await harness.buy(H.premiumMonthly)
        #expect(second.id > first.id)
        try harness.store.switchAppleID(to: .standard)
        #expect(harness.service.currentTier == .pro, "Ada's transaction was not overwritten")
    }
}
