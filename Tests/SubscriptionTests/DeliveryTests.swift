import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainSubscription

/// SUB-5: what comes back through purchase(), and what through the stream.
@Suite(.timeLimit(.minutes(1))) struct DeliveryTests {
    typealias H = SubscriptionHarness

    @Test("purchase() returns its transaction and the stream does not repeat it")
    func purchaseNotRepeated() async throws {
        let harness = try H()
        let updates = harness.service.transactionUpdates()
        let iterator = updates
        let bought = try await harness.buy()
        try await harness.service.finish(bought.id)
        // The next thing on the stream is the outside purchase, not the in-app one.
        try harness.store.buyOutsideApp(productID: H.premiumMonthly, appAccountToken: H.ada)
        var seen = await iterator.collect(1).map(\.unsafePayloadValue)
        if seen.first?.id == bought.id {
            // The listener registered after the purchase and received it as unfinished; that was before finish().
            seen = await iterator.collect(1).map(\.unsafePayloadValue)
        }
        #expect(seen.map(\.productID).last == H.premiumMonthly || seen.last?.isUpgraded == true)
    }

    @Test("unfinished transactions are redelivered to every new listener until finished")
    func redelivery() async throws {
        let harness = try H()
        let transaction = try await harness.buy()
        let first = harness.service.transactionUpdates()
        #expect(await first.collect(1).first?.unsafePayloadValue.id == transaction.id)
        let second = harness.service.transactionUpdates()
        #expect(await second.collect(1).first?.unsafePayloadValue.id == transaction.id)
        try await harness.service.finish(transaction.id)
        try await harness.service.finish(transaction.id) // idempotent
        let third = harness.service.transactionUpdates()
        try harness.store.buyOutsideApp(productID: H.premiumMonthly, appAccountToken: H.ada)
        let delivered = await third.collect(2).map(\.unsafePayloadValue)
        #expect(!delivered.contains { $0.id == transaction.id && !$0.isUpgraded }, "a finished transaction is not redelivered as it was")
    }

    @Test("with access per app user, after a switch of app user a running listener receives the new user's unfinished transactions")
    func switchRedelivers() async throws {
        let harness = try H(policy: .appAccountToken)
        let graces = try harness.store.buyOutsideApp(productID: H.premiumMonthly, appAccountToken: H.grace).unsafePayloadValue
        let updates = harness.service.transactionUpdates()
        await harness.service.setAppAccountToken(H.grace)
        #expect(await updates.collect(1).first?.unsafePayloadValue.id == graces.id)
    }

    @Test("a relaunched service redelivers what the last one did not finish", arguments: [true, false])
    func redeliveryAcrossLaunches(finishFirst: Bool) async throws {
        let harness = try H(.file, policy: .appAccountToken)
        let transaction = try await harness.buy()
        if finishFirst { try await harness.service.finish(transaction.id) }
        try harness.relaunch()
        // Another Apple ID's purchase, never delivered here.
        try harness.store.switchAppleID(to: AppleIDTests.child)
        try harness.store.buyOutsideApp(productID: H.premiumMonthly, appAccountToken: H.grace)
        try harness.store.switchAppleID(to: .standard)
        let updates = harness.service.transactionUpdates()
        try harness.store.setAutoRenew(false, productID: H.proMonthly)
        try harness.store.refund(transactionID: transaction.id)
        let first = try #require(await updates.collect(1).first).unsafePayloadValue
        if finishFirst {
            #expect(first.revocationDate != nil, "only the refund arrives")
        } else {
            #expect(first.id == transaction.id && first.appAccountToken == H.ada)
        }
    }

    @Test("granting is idempotent: the same transaction applied twice changes nothing")
    func idempotentGrant() throws {
        var engine = EntitlementEngine(products: AppStoreProduct.standardWithoutTrial)
        let transaction = AppStoreTransaction(
            id: 1, productID: H.proMonthly, purchaseDate: ManualClock.defaultStart,
            expirationDate: ManualClock.defaultStart.addingTimeInterval(100))
        engine.apply(.verified(transaction))
        engine.apply(.verified(transaction))
        #expect(engine.transactionCount == 1)
        #expect(engine.tier(at: ManualClock.defaultStart) == .pro)
    }
}
