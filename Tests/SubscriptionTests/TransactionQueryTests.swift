import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainSubscription

/// SUB-11: StoreKit's queries — `currentEntitlements` with unverified transactions
/// handed to the caller, `Transaction.all`, `Transaction.unfinished` and `Transaction.latest(for:)`.
@Suite(.timeLimit(.minutes(1))) struct TransactionQueryTests {
    typealias H = SubscriptionHarness
    typealias P = ProductTypeTests

    @Test("an unverified transaction is handed over in the current entitlements and never counts toward the tier", arguments: StoreVariant.allCases)
    func unverifiedEntitlements(variant: StoreVariant) async throws {
        let harness = try H(variant)
        harness.store.producesUnverifiedTransactions = true
        let bought = try await harness.buy()
        let entitlements = try await harness.service.currentEntitlements()
        #expect(entitlements.map(\.unsafePayloadValue.id) == [bought.id])
        #expect(entitlements.allSatisfy { !$0.isVerified })
        #expect(harness.service.currentTier == .free)
        harness.store.producesUnverifiedTransactions = false
        harness.clock.advance(to: try #require(bought.expirationDate).addingTimeInterval(1))
        #expect(try await harness.service.currentEntitlements().map(\.isVerified) == [true], "the verified renewal replaces it")
        #expect(harness.service.currentTier == .pro)
    }

}
