import Foundation
import Testing
@testable import TrainSubscription
import TrainCore
import TrainTesting

/// SUB-5: what comes back through purchase(), and what through the stream.
@Suite(.timeLimit(.minutes(1))) struct DeliveryTests {
    typealias H = SubscriptionHarness

    @Test("purchase() returns its transaction and the stream does not repeat it")
    func purchaseNotRepeated() async throws {
        let harness = try H()
        let updates = harness.service.transactionUpdates()
        var iterator = updates.makeAsyncIterator()
        let bought = try await harness.buy()
        try await harness.service.finish(bought.id)
        // The next thing on the stream is the outside purchase, not the in-app one.
        try harness.store.buyOutsideApp(productID: H.premiumMonthly, appAccountToken: H.ada)
        var seen = await next(1, from: &iterator).map(\.unsafePayloadValue)
        if seen.first?.id == bought.id {
            // The listener registered after the purchase and received it as unfinished; that was before finish().
            seen = await next(1, from: &iterator).map(\.unsafePayloadValue)
        }
        #expect(seen.map(\.productID).last == H.premiumMonthly || seen.last?.isUpgraded == true)
    }

    @Test("unfinished transactions are redelivered to every new listener until finished")
    func redelivery() async throws {
        let harness = try H()
        let transaction = try await harness.buy()
        var first = harness.service.transactionUpdates().makeAsyncIterator()
        #expect(await first.next()?.unsafePayloadValue.id == transaction.id)
        var second = harness.service.transactionUpdates().makeAsyncIterator()
        #expect(await second.next()?.unsafePayloadValue.id == transaction.id)
        try await harness.service.finish(transaction.id)
        try await harness.service.finish(transaction.id)   // idempotent
        var third = harness.service.transactionUpdates().makeAsyncIterator()
        try harness.store.buyOutsideApp(productID: H.premiumMonthly, appAccountToken: H.ada)
        let delivered = await next(2, from: &third).map(\.unsafePayloadValue)
        #expect(!delivered.contains { $0.id == transaction.id && !$0.isUpgraded }, "a finished transaction is not redelivered as it was")
    }

    @Test("a relaunched service redelivers what the last one did not finish", arguments: [true, false])
    func redeliveryAcrossLaunches(finishFirst: Bool) async throws {
        let harness = try H(.file)
        let transaction = try await harness.buy()
        if finishFirst { try await harness.service.finish(transaction.id) }
        try harness.relaunch()
        try harness.store.buyOutsideApp(productID: H.premiumMonthly, appAccountToken: H.grace)   // another user's, never delivered here
        var updates = harness.service.transactionUpdates().makeAsyncIterator()
        try harness.store.setAutoRenew(false, productID: H.proMonthly, appAccountToken: H.ada)
        try harness.store.refund(transactionID: transaction.id)
        let first = try #require(await updates.next()).unsafePayloadValue
        if finishFirst {
            #expect(first.revocationDate != nil, "only the refund arrives")
        } else {
            #expect(first.id == transaction.id && first.appAccountToken == H.ada)
        }
    }

    @Test("granting is idempotent: the same transaction applied twice changes nothing")
    func idempotentGrant() throws {
        var engine = EntitlementEngine(products: StoreProduct.standard)
        let transaction = StoreTransaction(id: 1, productID: H.proMonthly, purchaseDate: ManualClock.defaultStart,
                                      expirationDate: ManualClock.defaultStart.addingTimeInterval(100))
        engine.apply(.verified(transaction))
        engine.apply(.verified(transaction))
        #expect(engine.transactionCount == 1)
        #expect(engine.tier(at: ManualClock.defaultStart) == .pro)
    }
}

/// SUB-7: entitlements belong to the app user who bought them.
@Suite(.timeLimit(.minutes(1))) struct PerUserEntitlementTests {
    typealias H = SubscriptionHarness

    @Test("a second app user on the same device does not inherit the first one's subscription")
    func noLeak() async throws {
        let harness = try H()
        let adas = try await harness.buy(H.premiumMonthly)
        await harness.service.setAppAccountToken(H.grace)
        #expect(harness.service.currentTier == .free)
        #expect(try await harness.service.currentEntitlements().isEmpty)
        #expect(try await harness.service.subscriptionStatuses().isEmpty)
        await #expect(throws: SubscriptionError(.notYourTransaction)) { try await harness.service.finish(adas.id) }
        let graces = try await harness.buy(H.proMonthly)
        #expect(graces.appAccountToken == H.grace && graces.originalID != adas.originalID)
        #expect(harness.service.currentTier == .pro)
        await harness.service.setAppAccountToken(H.ada)
        #expect(harness.service.currentTier == .premium)
        await harness.service.setAppAccountToken(nil)
        #expect(harness.service.currentTier == .free)
    }

    @Test("the tier stream follows the app user")
    func tierStream() async throws {
        let harness = try H()
        var tiers = harness.service.tierChanges().makeAsyncIterator()
        #expect(await tiers.next() == .free)
        try await harness.buy()
        #expect(await tiers.next() == .pro)
        await harness.service.setAppAccountToken(H.grace)
        #expect(await tiers.next() == .free)
    }
}

/// SUB-6: the file-backed ledger survives relaunches; an unreadable one is an error.
@Suite(.timeLimit(.minutes(1))) struct LedgerTests {
    typealias H = SubscriptionHarness

    @Test("the ledger survives a relaunch, and so do the entitlements")
    func survives() async throws {
        let harness = try H(.file)
        let transaction = try await harness.buy(H.premiumMonthly)
        try harness.relaunch()
        #expect(harness.service.currentTier == .premium)
        #expect(harness.store.allTransactions.map(\.unsafePayloadValue) == [transaction])
        #expect(try await harness.buy(H.premiumMonthly).id == transaction.id, "already subscribed: no new transaction")
        harness.clock.advance(to: harness.months(1).addingTimeInterval(1))
        try harness.relaunch()
        #expect(harness.store.allTransactions.count == 2, "the renewal happened at launch, on the clock")
    }

    @Test("an unreadable ledger is an error, never an empty history")
    func unreadable() async throws {
        let harness = try H(.file)
        try await harness.buy()
        // A record whose bytes no longer decode.
        let raw = try RecordStore(.file(harness.file), schema: StoreLedger.schema)
        try raw.write { try $0.setData(Data("garbage".utf8), forKey: StoreLedger.key(1), in: "transactions") }
        raw.close()
        let error = #expect(throws: SubscriptionError.self) { _ = try SimulatedAppStore(storage: .file(harness.file), clock: harness.clock) }
        #expect(error?.code == .ledgerUnreadable)
        #expect(error?.detail.contains(harness.file.lastPathComponent) == true)
        // A file that is not a database at all.
        let other = harness.directory.file("other.sqlite")
        try Data("not a ledger".utf8).write(to: other)
        #expect(throws: SubscriptionError(.ledgerUnreadable)) { _ = try SimulatedAppStore(storage: .file(other), clock: harness.clock) }
        #expect(try Data(contentsOf: other) == Data("not a ledger".utf8))
    }
}
