import Foundation
import Testing
import TrainCore
import TrainSubscription
import TrainTesting

/// The subscription fake records, scripts, fails, delays and holds; what nobody
/// scripted is the real service's answer, or a test failure.
@Suite(.timeLimit(.minutes(1))) struct FakeSubscriptionServiceTests {
    static func transaction(_ id: UInt64, of productID: String) -> StoreVerificationResult<AppStoreTransaction> {
        .verified(AppStoreTransaction(id: id, productID: productID, purchaseDate: ManualClock.defaultStart, expirationDate: nil))
    }

    @Test("a scripted purchase that succeeds raises the tier to the product's, looked up in the scripted products, and the tier stream follows")
    func scriptedPurchaseRaisesTier() async throws {
        let gold = AppStoreProduct(id: "com.example.gold", displayName: "Gold", tier: .premium, period: .year, price: 59)
        let fake = FakeSubscriptionService()
        fake.script(.products, .returning([gold]))
        fake.script(.purchase, .returning(.success(Self.transaction(5, of: gold.id))))
        let tiers = fake.tierChanges()
        _ = try await fake.products()
        _ = try await fake.purchase(gold.id)
        #expect(fake.currentTier == .premium)
        #expect(await tiers.collect(2) == [.free, .premium])
        #expect(fake.calls == [.tierChanges(), .products(), .purchase(gold.id)])
    }

    @Test("a standard product bought by script raises the tier with no products scripted; a pending one leaves it")
    func standardCatalog() async throws {
        let fake = FakeSubscriptionService()
        fake.script(.purchase, .sequence([.success(.pending), .success(.success(Self.transaction(1, of: "com.train.premium.monthly")))]))
        #expect(try await fake.purchase("com.train.premium.monthly") == .pending)
        #expect(fake.currentTier == .free)
        _ = try await fake.purchase("com.train.premium.monthly")
        #expect(fake.currentTier == .premium)
    }

    @Test("the streams are driven by the test, which can wait until the view model listens")
    func streams() async throws {
        let fake = FakeSubscriptionService()
        let tiers = fake.tierChanges()
        fake.setTier(.premium)
        #expect(await tiers.collect(2) == [.free, .premium])
        let listener = Task { await fake.transactionUpdates().collect(1) }
        await fake.waitForTransactionListeners(1)
        fake.sendTransactionUpdate(Self.transaction(9, of: "com.train.pro.monthly"))
        #expect(await listener.value == [Self.transaction(9, of: "com.train.pro.monthly")])
    }

    @Test("a fake records a test failure for every unscripted call")
    func strict() async throws {
        let fake = FakeSubscriptionService()
        await withKnownIssue {
            await #expect(throws: FakeError.unimplemented("FakeSubscriptionService.purchase(_:offer:)")) {
                _ = try await fake.purchase("com.train.pro.monthly")
            }
            await #expect(throws: FakeError.unimplemented("FakeSubscriptionService.finish(_:)")) { try await fake.finish(1) }
        } matching: {
            FakeIssue.isUnscriptedCall($0)
        }
        fake.script(.finish, .succeeding)
        try await fake.finish(1)
        #expect(fake.finish().isEmpty)
    }

    @Test("over a LocalSubscriptionService, purchases, offers and queries are the simulated App Store's, and the tier is the service's")
    func backedByService() async throws {
        let clock = ManualClock()
        let store = SimulatedAppStore(context: TrainContext(clock: clock))
        let service = LocalSubscriptionService(store: store, context: store.context)
        let fake = FakeSubscriptionService(backedBy: service)
        #expect(try await fake.isEligibleForIntroOffer(groupID: "train.subscriptions"))
        guard case .success(let trial) = try await fake.purchase("com.train.pro.monthly") else { throw SubscriptionError(.systemError) }
        #expect(trial.unsafePayloadValue.offer?.paymentMode == .freeTrial && fake.currentTier == .pro)
        #expect(try await fake.latestTransaction(for: "com.train.pro.monthly") == trial)
        await #expect(throws: SubscriptionError(.productNotFound)) { _ = try await fake.purchase("nope") }
        withKnownIssue {
            fake.setTier(.premium)
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("FakeSubscriptionService.setTier(_:) changes nothing") }
        }
        #expect(fake.currentTier == .pro)
    }

    @Test("the next or n-th call fails; latency runs on the test clock; a held purchase is in progress")
    func controls() async throws {
        let clock = ManualClock()
        let fake = FakeSubscriptionService(clock: clock)
        fake.script(.products, .returning(AppStoreProduct.standard))
        fake.script(.restorePurchases, .returning(.free))
        fake.script(.purchase, .returning(.userCancelled))
        fake.controls.failNextCall(with: SubscriptionError(.networkError))
        await #expect(throws: SubscriptionError(.networkError)) { _ = try await fake.products() }
        fake.controls.failCall(number: 3, with: SubscriptionError(.systemError))
        _ = fake.tierChanges()
        _ = try await fake.products()
        await #expect(throws: SubscriptionError(.systemError)) { _ = try await fake.restorePurchases() }

        fake.controls.latency = .seconds(1)
        let restore = Task { try await fake.restorePurchases() }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        #expect(try await restore.value == .free)

        fake.controls.latency = nil
        fake.controls.holdCalls()
        let purchase = Task { try await fake.purchase("com.train.pro.monthly") }
        await fake.controls.waitForHeldCalls(1)
        #expect(fake.isPurchaseInProgress)
        fake.controls.releaseHeldCalls()
        _ = try await purchase.value
        #expect(!fake.isPurchaseInProgress)
    }
}
