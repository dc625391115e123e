import Foundation
import Testing
import TrainCore
import TrainSubscription
import TrainTesting

/// TEST-1: the subscription fake records, scripts, fails, delays and holds.
@Suite(.timeLimit(.minutes(1))) struct FakeSubscriptionServiceTests {
    @Test("calls are recorded, and a default purchase grants the product's tier")
    func recordingAndDefaults() async throws {
        let fake = FakeSubscriptionService()
        #expect(try await fake.products() == StoreProduct.standard)
        guard case .success(let result) = try await fake.purchase("com.train.pro.monthly") else {
            Issue.record("expected a success")
            return
        }
        try await fake.finish(result.unsafePayloadValue.id)
        #expect(fake.currentTier == .pro)
        #expect(fake.calls == [.products, .purchase("com.train.pro.monthly"), .finish(1)])
        await #expect(throws: SubscriptionError(.productNotFound, detail: "No product 'nope'.")) { _ = try await fake.purchase("nope") }
    }

    @Test("scripted results are returned, and the streams are driven by the test")
    func scriptedAndStreams() async throws {
        let fake = FakeSubscriptionService()
        fake.scriptPurchase(.success(.pending))
        #expect(try await fake.purchase("com.train.premium.monthly") == .pending)
        #expect(fake.currentTier == .free)
        var tiers = fake.tierChanges().makeAsyncIterator()
        #expect(await tiers.next() == .free)
        fake.setTier(.premium)
        #expect(await tiers.next() == .premium)
        var updates = fake.transactionUpdates().makeAsyncIterator()
        let renewal = StoreTransaction(id: 9, productID: "com.train.pro.monthly", purchaseDate: .distantPast, expirationDate: nil)
        fake.sendTransactionUpdate(.verified(renewal))
        #expect(await updates.next() == .verified(renewal))
    }

    @Test("a strict fake throws unimplemented for every unscripted call")
    func strict() async throws {
        let fake = FakeSubscriptionService(strict: true)
        await #expect(throws: FakeError.unimplemented("purchase(_:)")) { _ = try await fake.purchase("com.train.pro.monthly") }
        await #expect(throws: FakeError.unimplemented("finish(_:)")) { try await fake.finish(1) }
        fake.scriptFinish(failingWith: nil)
        try await fake.finish(1)
    }

    @Test("the next or n-th call fails; latency runs on the test clock; a held purchase is in progress")
    func controls() async throws {
        let clock = ManualClock()
        let fake = FakeSubscriptionService(clock: clock)
        fake.controls.failNextCall(with: SubscriptionError(.networkError))
        await #expect(throws: SubscriptionError(.networkError)) { _ = try await fake.products() }
        fake.controls.failCall(number: 3, with: SubscriptionError(.systemError))
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
