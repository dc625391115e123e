import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainSubscription

/// SUB-1 and SUB-2.
@Suite(.timeLimit(.minutes(1))) struct PurchaseTests {
    @Test("a purchase grants its tier and returns its transaction, tied to the buyer", arguments: StoreVariant.allCases)
    func purchase(variant: StoreVariant) async throws {
        let harness = try SubscriptionHarness(variant)
        #expect(harness.service.currentTier == .free)
        let transaction = try await harness.buy()
        #expect(transaction.productID == SubscriptionHarness.proMonthly)
        #expect(transaction.appAccountToken == SubscriptionHarness.ada)
        #expect(transaction.purchaseDate == harness.clock.now)
        #expect(transaction.expirationDate == harness.months(1))
        #expect(transaction.environment == .simulated && transaction.ownershipType == .purchased)
        #expect(harness.service.currentTier == .pro)
        #expect(try await harness.service.currentEntitlements().map(\.unsafePayloadValue.id) == [transaction.id])
    }

    @Test("the products are seed 004's four, in one group")
    func products() async throws {
        let harness = try SubscriptionHarness()
        let products = try await harness.service.products()
        #expect(products.map(\.id) == ["com.train.pro.monthly", "com.train.pro.yearly", "com.train.premium.monthly", "com.train.premium.yearly"])
        #expect(Set(products.map(\.subscriptionGroupID)).count == 1)
    }

    @Test("a second purchase while the sheet is up is purchaseInProgress; the first completes")
    func inProgress() async throws {
        let harness = try SubscriptionHarness()
        harness.store.purchaseSheetDelay = .seconds(5)
        let service = harness.service
        let first = Task { try await service.purchase(SubscriptionHarness.proMonthly) }
        await harness.clock.waitForSleepers(1)
        #expect(harness.service.isPurchaseInProgress)
        await #expect(throws: SubscriptionError(.purchaseInProgress)) { _ = try await harness.service.purchase(SubscriptionHarness.premiumMonthly) }
        harness.clock.advance(by: .seconds(5))
        guard case .success = try await first.value else {
            Issue.record("the first purchase should succeed")
            return
        }
        #expect(!harness.service.isPurchaseInProgress)
        #expect(harness.service.currentTier == .pro)
    }

    @Test("cancelling the purchase's task while the sheet is up ends it as userCancelled, never CancellationError")
    func cancelledTask() async throws {
        let harness = try SubscriptionHarness()
        harness.store.purchaseSheetDelay = .seconds(5)
        let service = harness.service
        let purchase = Task { try await service.purchase(SubscriptionHarness.proMonthly) }
        await harness.clock.waitForSleepers(1)
        purchase.cancel()
        #expect(try await purchase.value == .userCancelled)
        #expect(!harness.service.isPurchaseInProgress)
        #expect(harness.store.allTransactions.isEmpty)
        #expect(harness.service.currentTier == .free)
    }

    @Test("a purchase whose app user changes while the sheet is up buys nothing for either user")
    func userChangesDuringSheet() async throws {
        let harness = try SubscriptionHarness()
        harness.store.purchaseSheetDelay = .seconds(5)
        let service = harness.service
        let purchase = Task { try await service.purchase(SubscriptionHarness.proMonthly) }
        await harness.clock.waitForSleepers(1)
        await service.setAppAccountToken(SubscriptionHarness.grace)
        harness.clock.advance(by: .seconds(5))
        await #expect(throws: SubscriptionError(.notYourTransaction)) { _ = try await purchase.value }
        #expect(harness.store.allTransactions.isEmpty)
    }

    @Test("a dismissed sheet is userCancelled and buys nothing")
    func cancelled() async throws {
        let harness = try SubscriptionHarness()
        harness.store.userCancelsPurchases = true
        #expect(try await harness.service.purchase(SubscriptionHarness.proMonthly) == .userCancelled)
        #expect(harness.store.allTransactions.isEmpty)
        #expect(harness.service.currentTier == .free)
    }

    @Test("bad input is a typed error that changes nothing", arguments: ["", "com.train.gold.monthly", "COM.TRAIN.PRO.MONTHLY"])
    func unknownProduct(productID: String) async throws {
        let harness = try SubscriptionHarness()
        await #expect(throws: SubscriptionError(.productNotFound)) { _ = try await harness.service.purchase(productID) }
        #expect(harness.store.allTransactions.isEmpty)
        await #expect(throws: SubscriptionError(.transactionNotFound)) { try await harness.service.finish(42) }
        #expect(throws: SubscriptionError(.invalidTimeRate)) { try harness.store.setTimeRate(.monthlyRenewal(every: .zero)) }
        #expect(harness.store.timeRate == .realTime)
        #expect(throws: SubscriptionError(.notSubscribed)) {
            try harness.store.expireSubscription(productID: SubscriptionHarness.proMonthly)
        }
    }

    @Test(
        "a failing store fails the purchase with the chosen error and changes nothing",
        arguments: [
            SubscriptionError.Code.networkError, .paymentNotAllowed, .systemError,
        ])
    func chosenFailure(code: SubscriptionError.Code) async throws {
        let harness = try SubscriptionHarness()
        harness.store.purchaseFailure = code
        let error = await #expect(throws: SubscriptionError.self) { _ = try await harness.service.purchase(SubscriptionHarness.proMonthly) }
        #expect(error?.code == code)
        #expect(error?.errorDescription?.isEmpty == false)
        #expect(harness.store.allTransactions.isEmpty)
        harness.store.resetToDefaultState()
        #expect(try await harness.buy().productID == SubscriptionHarness.proMonthly)
    }

    @Test("without an app user, a purchase goes through untagged by default and is refused when access is per app user")
    func noAppAccount() async throws {
        let storeKit = try SubscriptionHarness(user: nil)
        let bought = try await storeKit.buy()
        #expect(bought.appAccountToken == nil)
        #expect(storeKit.service.currentTier == .pro)
        let perUser = try SubscriptionHarness(user: nil, policy: .appAccountToken)
        await #expect(throws: SubscriptionError(.noAppAccount)) { _ = try await perUser.service.purchase(SubscriptionHarness.proMonthly) }
        #expect(perUser.store.allTransactions.isEmpty)
    }
}
