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
        #expect(try await fake.products() == AppStoreProduct.standard)
        guard case .success(let result) = try await fake.purchase("com.train.pro.monthly") else {
            Issue.record("expected a success")
            return
        }
        try await fake.finish(result.unsafePayloadValue.id)
        #expect(fake.currentTier == .pro)
        #expect(fake.calls == [.products, .purchase("com.train.pro.monthly"), .finish(1)])
        await #expect(throws: SubscriptionError(.productNotFound)) { _ = try await fake.purchase("nope") }
    }

    @Test("the tier after a purchase comes from the scripted products, and the tier stream follows")
    func tierFromScriptedProducts() async throws {
        let gold = AppStoreProduct(id: "com.example.gold", displayName: "Gold", tier: .premium, period: .year, price: 59)
        let fake = FakeSubscriptionService()
        fake.script(.products, .returning([gold]))
        let tiers = fake.tierChanges()
        _ = try await fake.purchase(gold.id)
        #expect(fake.currentTier == .premium)
        #expect(await tiers.collect(2) == [.free, .premium])
        await #expect(throws: SubscriptionError(.productNotFound), "a standard product is not in the scripted catalog") {
            _ = try await fake.purchase("com.train.pro.monthly")
        }
    }

    @Test("a scripted successful purchase raises the tier too")
    func scriptedSuccessRaisesTier() async throws {
        let fake = FakeSubscriptionService()
        let transaction = AppStoreTransaction(
            id: 5, productID: "com.train.premium.monthly", purchaseDate: ManualClock.defaultStart, expirationDate: nil)
        fake.script(.purchase, .once(.success(.success(.verified(transaction)))))
        _ = try await fake.purchase("com.train.premium.monthly")
        #expect(fake.currentTier == .premium)
    }

    @Test("a purchase is dated by the fake's clock")
    func purchaseDates() async throws {
        let clock = ManualClock()
        clock.advance(by: .seconds(86_400))
        let fake = FakeSubscriptionService(clock: clock)
        guard case .success(let result) = try await fake.purchase("com.train.pro.monthly") else {
            Issue.record("expected a success")
            return
        }
        #expect(result.unsafePayloadValue.purchaseDate == clock.now)
    }

    @Test("scripted results are returned, and the streams are driven by the test")
    func scriptedAndStreams() async throws {
        let fake = FakeSubscriptionService()
        fake.script(.purchase, .returning(.pending))
        #expect(try await fake.purchase("com.train.premium.monthly") == .pending)
        #expect(fake.currentTier == .free)
        let tiers = fake.tierChanges()
        fake.setTier(.premium)
        #expect(await tiers.collect(2) == [.free, .premium])
    }

    @Test("a test can wait until the view model listens for transaction updates")
    func waitForListener() async throws {
        let fake = FakeSubscriptionService()
        let listener = Task { await fake.transactionUpdates().collect(1) }
        await fake.waitForTransactionListeners(1)
        let renewal = AppStoreTransaction(id: 9, productID: "com.train.pro.monthly", purchaseDate: .distantPast, expirationDate: nil)
        fake.sendTransactionUpdate(.verified(renewal))
        #expect(await listener.value == [.verified(renewal)])
    }

    @Test("a strict fake records a test failure for every unscripted call")
    func strict() async throws {
        let fake = FakeSubscriptionService(strict: true)
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

    @Test("the next or n-th call fails; latency runs on the test clock; a held purchase is in progress")
    func controls() async throws {
        let clock = ManualClock()
        let fake = FakeSubscriptionService(clock: clock)
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

    @Test("unscripted, the fake gives the introductory offer on the first purchase in a group and records offers asked for")
    func offers() async throws {
        let fake = FakeSubscriptionService()
        var trial = AppStoreProduct.standard[0]
        trial.introductoryOffer = .freeTrial(.week)
        trial.offers = [SubscriptionOffer(id: "comeback", type: .promotional, paymentMode: .payUpFront, period: .threeMonths, price: 9)]
        fake.script(.products, .returning([trial]))
        _ = try await fake.products()
        #expect(try await fake.isEligibleForIntroOffer(groupID: "train.subscriptions"))
        guard case .success(let first) = try await fake.purchase(trial.id) else { throw SubscriptionError(.systemError) }
        #expect(first.unsafePayloadValue.periodType == .trial && first.unsafePayloadValue.price == 0)
        #expect(try await !fake.isEligibleForIntroOffer(groupID: "train.subscriptions"))
        guard case .success(let second) = try await fake.purchase(trial.id, offer: .promotional(id: "comeback")) else {
            throw SubscriptionError(.systemError)
        }
        #expect(second.unsafePayloadValue.offer?.id == "comeback" && second.unsafePayloadValue.price == 9)
        await #expect(throws: SubscriptionError(.invalidOfferIdentifier)) { _ = try await fake.purchase(trial.id, offer: .winBack(id: "nope")) }
        fake.script(.isEligibleForIntroOffer, .returning(true))
        #expect(try await fake.isEligibleForIntroOffer(groupID: "train.subscriptions"), "a script decides")
        #expect(
            fake.calls.contains(.purchaseWithOffer(trial.id, .promotional(id: "comeback")))
                && fake.calls.contains(.isEligibleForIntroOffer("train.subscriptions")))
    }
}
