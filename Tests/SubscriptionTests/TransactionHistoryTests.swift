import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainSubscription

/// SUB-11 at its edges: unverified passes, deleting an upgrade or a first transaction,
/// the order of the history, locales by script, older layouts, hostile records and rates,
/// and what a reset puts back.
@Suite(.timeLimit(.minutes(1))) struct TransactionHistoryTests {
    typealias H = SubscriptionHarness
    typealias P = ProductTypeTests

    @Test("a later unverified pass does not hide the verified one that grants the tier from the current entitlements")
    func unverifiedPass() async throws {
        let store = SimulatedAppStore(context: TrainContext(clock: ManualClock()), configuration: AppStoreConfiguration(products: P.catalog))
        let service = LocalSubscriptionService(store: store, context: store.context, configuration: SubscriptionConfiguration(appAccountToken: H.ada))
        guard case .success(let good) = try await service.purchase(P.pass.id) else { throw SubscriptionError(.systemError) }
        store.producesUnverifiedTransactions = true
        _ = try await service.purchase(P.pass.id)
        #expect(service.currentTier == .pro, "the verified pass still counts")
        let verified = try await service.currentEntitlements().filter(\.isVerified).map(\.unsafePayloadValue.id)
        #expect(verified == [good.unsafePayloadValue.id], "the verified pass that grants .pro is an entitlement")
    }

    @Test("deleting an upgrade leaves the upgraded-from period current again")
    func deletingAnUpgrade() async throws {
        let harness = try H()
        let pro = try await harness.buy(H.proMonthly)
        harness.clock.advance(by: .seconds(86_400))
        let premium = try await harness.buy(H.premiumMonthly)
        try harness.store.deleteTransaction(premium.id)
        #expect(harness.clock.now < (pro.expirationDate ?? .distantPast))
        #expect(harness.service.currentTier == .pro, "the paid Pro month runs on")
        #expect(harness.store.allTransactions.map(\.unsafePayloadValue.isUpgraded) == [false])
        #expect(try await harness.service.subscriptionStatuses().first?.state == .subscribed)
    }

    @Test("after a subscription's first transaction is deleted, its renewals keep its original purchase date")
    func originalPurchaseDateAfterDeletingTheFirst() async throws {
        let harness = try H()
        let first = try await harness.buy()
        harness.clock.advance(to: try #require(first.expirationDate).addingTimeInterval(1))
        let second = try #require(harness.store.allTransactions.last?.unsafePayloadValue)
        try harness.store.deleteTransaction(first.id)
        harness.clock.advance(to: try #require(second.expirationDate).addingTimeInterval(1))
        let third = try #require(harness.store.allTransactions.last?.unsafePayloadValue)
        #expect(third.id != second.id)
        #expect(second.originalPurchaseDate == first.purchaseDate)
        #expect(third.originalPurchaseDate == second.originalPurchaseDate, "one subscription, one original purchase date")
    }

    @Test("the latest transaction and the history go by purchase date, where an approved Ask to Buy request keeps its earlier identifier")
    func latestAfterAskToBuy() async throws {
        let clock = ManualClock()
        let store = SimulatedAppStore(context: TrainContext(clock: clock), configuration: AppStoreConfiguration(products: P.catalog))
        let service = LocalSubscriptionService(store: store, context: store.context, configuration: SubscriptionConfiguration(appAccountToken: H.ada))
        store.askToBuyEnabled = true
        #expect(try await service.purchase(P.coaching.id) == .pending)
        let requestID = try #require(store.testTransactions.first?.id)
        store.askToBuyEnabled = false
        _ = try await service.purchase(P.coaching.id)
        clock.advance(by: .seconds(3600))
        try store.approveAskToBuy(transactionID: requestID)
        let latest = try #require(try await service.latestTransaction(for: P.coaching.id)?.unsafePayloadValue)
        #expect(latest.id == requestID, "the approved purchase, an hour later, is the latest")
        let dates = try await service.allTransactions().map(\.unsafePayloadValue.purchaseDate)
        #expect(dates == dates.sorted(), "allTransactions is documented oldest first")
    }

    @Test("a Traditional Chinese locale reads the Traditional Chinese name")
    func localeScript() async throws {
        var product = StorefrontTests.everywhere
        product.localizedNames = ["zh_Hans": "专业版", "zh_Hant": "專業版"]
        let store = SimulatedAppStore(context: TrainContext(clock: ManualClock()), configuration: AppStoreConfiguration(products: [product]))
        let service = LocalSubscriptionService(store: store, context: store.context)
        for identifier in ["zh_Hant_TW", "zh_TW", "zh_Hant"] {
            store.locale = Locale(identifier: identifier)
            #expect(try await service.products().first?.displayName == "專業版", "\(identifier)")
        }
    }

    @Test("an upgrade stored before transactions had a reason reads as a purchase")
    func earlierLayoutUpgradeReason() async throws {
        let harness = try H(.file)
        let first = try await harness.buy(H.proMonthly)
        harness.clock.advance(by: .seconds(86_400))
        let upgrade = try await harness.buy(H.premiumMonthly)
        #expect(upgrade.reason == .purchase)
        try H.relabel([first.id, upgrade.id], asLayout: 4, file: harness.file)
        try harness.relaunch()
        let read = try #require(harness.store.allTransactions.last?.unsafePayloadValue)
        #expect(read.id == upgrade.id)
        #expect(read.reason == .purchase, "an upgrade is a purchase, whatever the layout")
    }

    @Test("a subscription record with an impossible number of offer periods left is an unreadable ledger")
    func hostileOfferPeriodsLeft() async throws {
        let harness = try H(.file)
        let first = try await harness.buy()
        let raw = try RecordStore(.file(harness.file), schema: StoreLedger.schema)
        try raw.write { records in
            var subscription = try #require(try records.value(forKey: StoreLedger.key(first.originalID), in: StoreLedger.subscriptions))
            subscription.offerPeriodsLeft = Int.min
            try records.put(subscription, forKey: StoreLedger.key(first.originalID), in: StoreLedger.subscriptions)
        }
        raw.close()
        #expect(throws: SubscriptionError(.ledgerUnreadable)) { try harness.relaunch() }
    }

    @Test("a time rate longer than a century is invalidTimeRate and changes nothing")
    func hugeTimeRate() async throws {
        let harness = try H()
        for rate in [SimulatedAppStore.TimeRate.oneRenewal(every: .seconds(Int64.max) * 4), .monthlyRenewal(every: .seconds(36_526 * 86_400))] {
            #expect(throws: SubscriptionError(.invalidTimeRate)) { try harness.store.setTimeRate(rate) }
        }
        #expect(harness.store.timeRate == .realTime)
        _ = try await harness.buy()
    }

    @Test("a reset puts the app transaction back too")
    func resetPutsBackTheAppTransaction() async throws {
        let harness = try H()
        let original = try await harness.service.appTransaction()
        try harness.store.setAppTransaction(
            AppTransactionInfo(bundleID: "x", appVersion: "2.0", originalAppVersion: "0.9", originalPurchaseDate: .distantPast))
        harness.store.resetToDefaultState()
        #expect(try await harness.service.appTransaction() == original)
    }

    @Test("deleting another app user's upgrade gives the subscription back to the app user whose period is current again")
    func deletingAnotherUsersUpgrade() async throws {
        let store = SimulatedAppStore(context: TrainContext(clock: ManualClock()))
        let adas = LocalSubscriptionService(
            store: store, context: store.context, configuration: SubscriptionConfiguration(appAccountToken: H.ada, accessPolicy: .appAccountToken))
        let anyone = LocalSubscriptionService(
            store: store, context: store.context, configuration: SubscriptionConfiguration(appAccountToken: H.grace))
        _ = try await adas.purchase(H.proMonthly)
        guard case .success(let upgrade) = try await anyone.purchase(H.premiumMonthly) else { throw SubscriptionError(.systemError) }
        #expect(try await adas.subscriptionStatuses().isEmpty, "the subscription is Grace's while her upgrade is current")
        try store.deleteTransaction(upgrade.unsafePayloadValue.id)
        #expect(try await adas.subscriptionStatuses().map(\.state) == [.subscribed])
        #expect(adas.currentTier == .pro)
    }
}
