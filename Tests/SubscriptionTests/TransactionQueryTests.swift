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

    @Test("all, unfinished and latest: the user's history, but finished consumables; what the app has not finished; a product's latest")
    func queries() async throws {
        let clock = ManualClock()
        let store = SimulatedAppStore(products: P.catalog, clock: clock)
        let service = LocalSubscriptionService(store: store, appAccountToken: H.ada, accessPolicy: .appAccountToken)
        guard case .success(let weekly) = try await service.purchase(P.weekly.id),
            case .success(let coaching) = try await service.purchase(P.coaching.id),
            case .success(let lifetime) = try await service.purchase(P.lifetime.id)
        else { throw SubscriptionError(.systemError) }
        clock.advance(by: .seconds(8 * 86_400))
        let renewal = try #require(store.allTransactions.last?.unsafePayloadValue)
        #expect(renewal.productID == P.weekly.id)
        let ids = [weekly, coaching, lifetime].map(\.unsafePayloadValue.id)
        #expect(try await service.allTransactions().map(\.unsafePayloadValue.id) == ids + [renewal.id])
        #expect(try await service.unfinishedTransactions().map(\.unsafePayloadValue.id) == ids + [renewal.id])
        try await service.finish(coaching.unsafePayloadValue.id)
        try await service.finish(lifetime.unsafePayloadValue.id)
        #expect(
            try await service.allTransactions().map(\.unsafePayloadValue.id) == [ids[0], ids[2], renewal.id],
            "a finished consumable leaves the history")
        #expect(try await service.unfinishedTransactions().map(\.unsafePayloadValue.id) == [ids[0], renewal.id])
        #expect(try await service.latestTransaction(for: P.weekly.id)?.unsafePayloadValue.id == renewal.id)
        #expect(try await service.latestTransaction(for: P.coaching.id)?.unsafePayloadValue.id == ids[1], "latest still finds a finished consumable")
        #expect(try await service.latestTransaction(for: P.pass.id) == nil)
        await service.setAppAccountToken(H.grace)
        #expect(try await service.allTransactions().isEmpty, "with access per app user, another app user sees none of it")
        #expect(try await service.latestTransaction(for: P.weekly.id) == nil)
    }

    @Test("the fake answers the queries from what was bought through it")
    func fakeQueries() async throws {
        let fake = FakeSubscriptionService()
        fake.script(.products, .returning(P.catalog))
        _ = try await fake.products()
        guard case .success(let coaching) = try await fake.purchase(P.coaching.id), case .success(let weekly) = try await fake.purchase(P.weekly.id)
        else { throw SubscriptionError(.systemError) }
        try await fake.finish(coaching.unsafePayloadValue.id)
        #expect(try await fake.allTransactions() == [weekly])
        #expect(try await fake.unfinishedTransactions() == [weekly])
        #expect(try await fake.latestTransaction(for: P.coaching.id) == coaching)
        #expect(fake.calls.contains(.latestTransaction(P.coaching.id)))
    }
}
