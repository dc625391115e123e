import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainSubscription

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

    @Test("a ledger whose records an earlier version wrote as JSON is read, and grows in the binary layout")
    func earlierJSONLedger() async throws {
        let harness = try H(.file)
        let start = ManualClock.defaultStart
        let transaction = AppStoreTransaction(
            id: 7, productID: H.proMonthly, purchaseDate: start,
            expirationDate: start.addingTimeInterval(30 * 86_400), appAccountToken: H.ada)
        let subscription = StoreLedger.Subscription(
            originalID: 7, groupID: transaction.subscriptionGroupID ?? "", appAccountToken: H.ada,
            productID: H.proMonthly, latestTransactionID: 7,
            periodEnd: transaction.expirationDate ?? start, autoRenewPreference: H.proMonthly)
        /// The JSON of an earlier version: without the owning Apple ID.
        func earlierJSON(_ value: some Encodable) throws -> Data {
            var fields = try #require(try JSONSerialization.jsonObject(with: try JSONEncoder().encode(value)) as? [String: Any])
            fields["owner"] = nil
            return try JSONSerialization.data(withJSONObject: fields)
        }
        do {
            let raw = try RecordStore(.file(harness.directory.file("old.sqlite")), schema: StoreLedger.schema)
            try raw.write { records in
                try records.setData(
                    try earlierJSON(StoreLedger.Entry(transaction: transaction, verified: true)), forKey: StoreLedger.key(7), in: "transactions")
                try records.setData(try earlierJSON(subscription), forKey: StoreLedger.key(7), in: "subscriptions")
                try records.put(UInt64(8), forKey: "nextID", in: RecordCollection<UInt64>("meta"))
            }
        }
        let store = try SimulatedAppStore(storage: .file(harness.directory.file("old.sqlite")), context: TrainContext(clock: harness.clock))
        let service = LocalSubscriptionService(store: store, context: store.context, configuration: SubscriptionConfiguration(appAccountToken: H.ada))
        #expect(store.allTransactions.map(\.unsafePayloadValue) == [transaction])
        #expect(service.currentTier == .pro)
        try store.forceRenewal(productID: H.proMonthly)
        let reopened = try SimulatedAppStore(storage: .file(harness.directory.file("old.sqlite")), context: TrainContext(clock: harness.clock))
        #expect(reopened.allTransactions.map(\.unsafePayloadValue.id) == [7, 8])
    }

    @Test("an unreadable ledger is an error, never an empty history")
    func unreadable() async throws {
        let harness = try H(.file)
        try await harness.buy()
        // A record whose bytes no longer decode.
        let raw = try RecordStore(.file(harness.file), schema: StoreLedger.schema)
        try raw.write { try $0.setData(Data("garbage".utf8), forKey: StoreLedger.key(1), in: "transactions") }
        raw.close()
        let error = #expect(throws: SubscriptionError.self) {
            _ = try SimulatedAppStore(storage: .file(harness.file), context: TrainContext(clock: harness.clock))
        }
        #expect(error?.code == .ledgerUnreadable)
        #expect(error?.detail.contains(harness.file.lastPathComponent) == true)
        // A file that is not a database at all.
        let other = harness.directory.file("other.sqlite")
        try Data("not a ledger".utf8).write(to: other)
        #expect(throws: SubscriptionError(.ledgerUnreadable)) {
            _ = try SimulatedAppStore(storage: .file(other), context: TrainContext(clock: harness.clock))
        }
        #expect(try Data(contentsOf: other) == Data("not a ledger".utf8))
    }

    @Test("a transaction's price survives the ledger exactly, the largest included")
    func pricesSurvive() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.file("appstore.sqlite")
        let prices = [Decimal(0), Decimal(499) / 100, Decimal(1) / 1_000, Decimal(string: "123456789012345678901234567890.5") ?? 0]
        let products = prices.enumerated().map { index, price in
            AppStoreProduct.nonConsumable(id: "com.train.item\(index)", displayName: "Item \(index)", tier: .pro, price: price)
        }
        let clock = ManualClock()
        let store = try SimulatedAppStore(
            storage: .file(file), context: TrainContext(clock: clock), configuration: AppStoreConfiguration(products: products))
        for product in products { try store.buyOutsideApp(productID: product.id) }
        let reopened = try SimulatedAppStore(
            storage: .file(file), context: TrainContext(clock: clock), configuration: AppStoreConfiguration(products: products))
        #expect(reopened.allTransactions.map(\.unsafePayloadValue.price) == prices)
    }

    @Test("a notice takes the bytes of a transaction the same change wrote only while it holds the same values")
    func noticeCopiesOnlyTheSameTransaction() throws {
        let store = SimulatedAppStore(
            context: TrainContext(clock: ManualClock()), configuration: AppStoreConfiguration(products: AppStoreProduct.standard))
        try store.buyOutsideApp(productID: "com.train.pro.monthly")
        let transaction = try #require(store.allTransactions.first?.unsafePayloadValue)
        let told = StoreLedger.Entry(transaction: transaction, verified: true)
        var later = told
        later.transaction.revocationDate = transaction.purchaseDate.addingTimeInterval(60)
        later.revision += 1
        // The change wrote the transaction as it ends up; one notice was queued before
        // it changed, one after.
        var encoded = StoreLedger.Encoded()
        _ = encoded.entry(later)
        for entry in [told, later] {
            let notice = StoreLedger.Notice(
                id: StoreLedger.Notice.unnumbered, type: .refund, subtype: nil, date: transaction.purchaseDate, entry: entry,
                subscription: nil, refundReason: nil)
            let decoded = try BinaryReader.reading(
                encoded.notice(notice, entries: [transaction.id: later], subscriptions: [:]), formats: [StoreLedger.format]
            ) { reader throws(CoreError) in
                let decoded = try StoreLedger.Notice(from: &reader)
                try reader.finish()
                return decoded
            }
            #expect(decoded.entry == entry)
        }
    }

    @Test("a change that records many renewals tells each one's own transaction in its notification")
    func manyRenewalsInOneChangeKeepTheirTransactions() throws {
        let clock = ManualClock()
        let store = SimulatedAppStore(context: TrainContext(clock: clock), configuration: AppStoreConfiguration(products: AppStoreProduct.standard))
        try store.setTimeRate(.monthlyRenewal(every: .seconds(1)))
        try store.buyOutsideApp(productID: "com.train.pro.monthly")
        let before = store.serverNotifications.count
        // Past eight records in one change, the notices find the bytes written beside them by an index.
        clock.setDate(clock.now.addingTimeInterval(40))
        store.settle()
        let renewals = store.serverNotifications.dropFirst(before).filter { $0.type == .didRenew }
        let renewalIDs = store.allTransactions.map(\.unsafePayloadValue).filter { $0.reason == .renewal }.map(\.id)
        #expect(renewals.count > 8)
        #expect(renewals.compactMap(\.transaction?.id) == renewalIDs)
    }

    @Test(
        "a failed renewal in a ledger kept before the store told server notifications is read from the subscription's state for a world's export",
        arguments: [false, true])
    func failedRenewalWithoutNotifications(grace: Bool) async throws {
        let harness = try H(.file)
        let bought = try await harness.buy()
        harness.store.shouldEnterBillingRetryOnRenewal = true
        harness.store.billingGracePeriodIsEnabled = grace
        let failedAt = try #require(bought.expirationDate)
        harness.clock.advance(to: failedAt.addingTimeInterval(60))
        harness.store.settle()
        // The ledger as a version before the notifications left it: none of them.
        let raw = try RecordStore(.file(harness.file), schema: StoreLedger.schema)
        try raw.write { records in
            for key in try records.keys(in: StoreLedger.notifications) { try records.removeValue(forKey: key, in: StoreLedger.notifications) }
        }
        raw.close()
        try harness.relaunch()
        #expect(harness.store.serverNotifications.isEmpty)
        let purchase = try #require(try harness.store.purchases().first)
        #expect(purchase.billingFailedAt == failedAt && purchase.billingGracePeriod == grace && purchase.expiresAt == nil)
    }
}
