import Foundation
import Testing
@testable import TrainSubscription
import TrainCore
import TrainTesting

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
