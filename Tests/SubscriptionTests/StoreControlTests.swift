import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainSubscription

/// SUB-4: the simulated App Store's controls, driven by the injected clock.
@Suite(.timeLimit(.minutes(1))) struct StoreControlTests {
    typealias H = SubscriptionHarness

    @Test("a subscription renews at the end of its period and the renewal arrives on the stream", arguments: StoreVariant.allCases)
    func autoRenew(variant: StoreVariant) async throws {
        let harness = try H(variant)
        let first = try await harness.buy()
        try await harness.service.finish(first.id)
        let updates = harness.service.transactionUpdates()
        harness.clock.advance(to: harness.months(1).addingTimeInterval(1))
        let renewal = try #require(await updates.collect(1).first).unsafePayloadValue
        #expect(renewal.originalID == first.id && renewal.id != first.id)
        #expect(renewal.purchaseDate == harness.months(1))
        #expect(renewal.expirationDate == harness.months(2))
        #expect(harness.service.currentTier == .pro)
    }

    @Test("expire now ends access at once; force renewal starts a new period now")
    func expireAndForceRenew() async throws {
        let harness = try H()
        try await harness.buy()
        try harness.store.forceRenewal(productID: H.proMonthly)
        let statuses = try await harness.service.subscriptionStatuses()
        #expect(statuses.first?.transaction.unsafePayloadValue.purchaseDate == harness.clock.now)
        #expect(harness.store.allTransactions.count == 2)
        try harness.store.expireSubscription(productID: H.proMonthly)
        #expect(try await harness.service.restorePurchases() == .free)
        #expect(try await harness.service.subscriptionStatuses().first?.state == .expired)
    }

    @Test("with auto-renew off, access lasts to the expiration instant and not a moment longer")
    func autoRenewOff() async throws {
        let harness = try H()
        try await harness.buy()
        try harness.store.setAutoRenew(false, productID: H.proMonthly)
        let info = try #require(try await harness.service.subscriptionStatuses().first?.renewalInfo.unsafePayloadValue)
        #expect(info.willAutoRenew == false)
        harness.clock.advance(to: harness.months(1))
        #expect(try await harness.service.restorePurchases() == .pro, "active while now <= expiration")
        harness.clock.advance(by: .milliseconds(1))
        #expect(try await harness.service.restorePurchases() == .free)
        let lapsed = try #require(try await harness.service.subscriptionStatuses().first)
        #expect(lapsed.state == .expired)
        #expect(lapsed.renewalInfo.unsafePayloadValue.expirationReason == .autoRenewDisabled)
    }

    @Test("an upgrade is immediate and marks the old transaction upgraded")
    func upgrade() async throws {
        let harness = try H()
        let pro = try await harness.buy()
        harness.clock.advance(by: .seconds(86_400))
        let premium = try await harness.buy(H.premiumMonthly)
        #expect(premium.originalID == pro.originalID)
        #expect(harness.service.currentTier == .premium)
        let old = harness.store.allTransactions.first { $0.unsafePayloadValue.id == pro.id }?.unsafePayloadValue
        #expect(old?.isUpgraded == true)
    }

    @Test("a downgrade waits for the next renewal and shows in autoRenewPreference")
    func downgrade() async throws {
        let harness = try H()
        try await harness.buy(H.premiumMonthly)
        _ = try await harness.service.purchase(H.proMonthly)
        let info = try #require(try await harness.service.subscriptionStatuses().first?.renewalInfo.unsafePayloadValue)
        #expect(info.currentProductID == H.premiumMonthly)
        #expect(info.autoRenewPreference == H.proMonthly)
        #expect(harness.service.currentTier == .premium)
        harness.clock.advance(to: harness.months(1).addingTimeInterval(1))
        #expect(try await harness.service.restorePurchases() == .pro)
    }

    @Test("buying the product you already have cancels a pending downgrade and turns auto-renew back on")
    func rebuyCancelsDowngrade() async throws {
        let harness = try H()
        let premium = try await harness.buy(H.premiumMonthly)
        _ = try await harness.service.purchase(H.proMonthly)
        try harness.store.setAutoRenew(false, productID: H.premiumMonthly)
        guard case .success(let again) = try await harness.service.purchase(H.premiumMonthly) else {
            Issue.record("buying the current product returns its transaction")
            return
        }
        #expect(again.unsafePayloadValue.id == premium.id, "nothing new was bought")
        let info = try #require(try await harness.service.subscriptionStatuses().first?.renewalInfo.unsafePayloadValue)
        #expect(info.autoRenewPreference == H.premiumMonthly)
        #expect(info.willAutoRenew)
        harness.clock.advance(to: harness.months(1).addingTimeInterval(1))
        #expect(try await harness.service.restorePurchases() == .premium, "it renews as Premium")
    }

    @Test("a crossgrade to another period of the same tier takes effect at renewal")
    func crossgrade() async throws {
        let harness = try H()
        try await harness.buy(H.proMonthly)
        _ = try await harness.service.purchase(H.proYearly)
        #expect(try await harness.service.subscriptionStatuses().first?.renewalInfo.unsafePayloadValue.autoRenewPreference == H.proYearly)
        harness.clock.advance(to: harness.months(1).addingTimeInterval(1))
        _ = try await harness.service.restorePurchases()
        let renewed = try #require(try await harness.service.subscriptionStatuses().first?.transaction.unsafePayloadValue)
        #expect(renewed.productID == H.proYearly)
        #expect(renewed.expirationDate == harness.months(13))
    }

    @Test("a crossgrade to a product of the same tier and the same period starts at once, as StoreKit does; the old transaction is superseded")
    func sameDurationCrossgrade() async throws {
        let clock = ManualClock()
        let other = AppStoreProduct(
            id: "com.train.pro.monthly.family", displayName: "Train Pro for families (monthly)", tier: .pro, period: .month, price: 6.99)
        let store = try SimulatedAppStore(
            storage: .inMemory, context: TrainContext(clock: clock),
            configuration: AppStoreConfiguration(products: AppStoreProduct.standardWithoutTrial + [other]))
        let service = LocalSubscriptionService(store: store, context: store.context, configuration: SubscriptionConfiguration(appAccountToken: H.ada))
        guard case .success(let first) = try await service.purchase(H.proMonthly) else {
            Issue.record("the first purchase succeeds")
            return
        }
        clock.advance(by: .seconds(86_400))
        guard case .success(let second) = try await service.purchase(other.id) else {
            Issue.record("the crossgrade is bought, not deferred")
            return
        }
        let crossgraded = second.unsafePayloadValue
        #expect(crossgraded.id != first.unsafePayloadValue.id, "a new transaction")
        #expect(crossgraded.productID == other.id)
        #expect(crossgraded.originalID == first.unsafePayloadValue.originalID, "the same subscription")
        #expect(crossgraded.purchaseDate == clock.now)
        let status = try #require(try await service.subscriptionStatuses().first)
        #expect(status.transaction.unsafePayloadValue.productID == other.id)
        #expect(status.renewalInfo.unsafePayloadValue.autoRenewPreference == other.id)
        let old = store.allTransactions.first { $0.unsafePayloadValue.id == first.unsafePayloadValue.id }?.unsafePayloadValue
        #expect(old?.isUpgraded == true)
        #expect(service.currentTier == .pro)
    }

    @Test("a failed renewal without grace enters billing retry with no access; resolving renews from now")
    func billingRetry() async throws {
        let harness = try H()
        try await harness.buy()
        harness.store.shouldEnterBillingRetryOnRenewal = true
        harness.clock.advance(to: harness.months(1).addingTimeInterval(60))
        #expect(try await harness.service.restorePurchases() == .free)
        #expect(try await harness.service.subscriptionStatuses().first?.state == .inBillingRetryPeriod)
        harness.store.shouldEnterBillingRetryOnRenewal = false
        try harness.store.resolveBillingIssue(productID: H.proMonthly)
        #expect(try await harness.service.restorePurchases() == .pro)
        #expect(try await harness.service.subscriptionStatuses().first?.transaction.unsafePayloadValue.purchaseDate == harness.clock.now)
    }

    @Test("in the grace period access continues until gracePeriodExpirationDate, inclusive")
    func gracePeriod() async throws {
        let harness = try H()
        try await harness.buy()
        harness.store.shouldEnterBillingRetryOnRenewal = true
        harness.store.billingGracePeriodIsEnabled = true
        harness.clock.advance(to: harness.months(1).addingTimeInterval(1))
        let status = try #require(try await harness.service.subscriptionStatuses().first)
        #expect(status.state == .inGracePeriod)
        let graceEnd = try #require(status.renewalInfo.unsafePayloadValue.gracePeriodExpirationDate)
        #expect(graceEnd == harness.months(1).addingTimeInterval(16 * 86_400))
        #expect(try await harness.service.restorePurchases() == .pro)
        harness.clock.advance(to: graceEnd)
        #expect(try await harness.service.restorePurchases() == .pro)
        harness.clock.advance(by: .milliseconds(1))
        #expect(try await harness.service.restorePurchases() == .free)
        #expect(try await harness.service.subscriptionStatuses().first?.state == .inBillingRetryPeriod)
        harness.clock.advance(by: .seconds(61 * 86_400))
        let lapsed = try #require(try await harness.service.subscriptionStatuses().first)
        #expect(lapsed.state == .expired && lapsed.renewalInfo.unsafePayloadValue.expirationReason == .billingError)
    }

    @Test("a refund revokes at once, with its reason, and arrives on the stream")
    func refund() async throws {
        let harness = try H()
        let transaction = try await harness.buy()
        let updates = harness.service.transactionUpdates()
        _ = await updates.collect(1).first // the unfinished purchase, redelivered to the new listener
        try harness.store.refund(transactionID: transaction.id, reason: .developerIssue)
        let refunded = try #require(await updates.collect(1).first).unsafePayloadValue
        #expect(refunded.id == transaction.id)
        #expect(refunded.revocationDate == harness.clock.now && refunded.revocationReason == .developerIssue)
        #expect(try await harness.service.restorePurchases() == .free)
        #expect(try await harness.service.subscriptionStatuses().first?.state == .revoked)
    }

    @Test(
        "Ask to Buy: the request is a pending transaction in the store's list, approved by its identifier onto the stream under that identifier",
        arguments: StoreVariant.allCases)
    func askToBuy(variant: StoreVariant) async throws {
        let harness = try H(variant)
        harness.store.askToBuyEnabled = true
        #expect(try await harness.service.purchase(H.proMonthly) == .pending)
        let listed = try #require(harness.store.testTransactions.first)
        #expect(listed.pendingAskToBuyConfirmation && !listed.hasPurchaseIssue && listed.transaction == nil)
        #expect(listed.productID == H.proMonthly && listed.appAccountToken == H.ada)
        let request = try #require(harness.store.pendingPurchases.first)
        #expect(request.kind == .askToBuy && request.transactionID == listed.id)
        #expect(harness.store.allTransactions.isEmpty, "nothing is bought yet")

        let updates = harness.service.transactionUpdates()
        try harness.store.approveAskToBuy(transactionID: listed.id)
        let approved = try #require(await updates.collect(1).first).unsafePayloadValue
        #expect(approved.id == listed.id && approved.productID == H.proMonthly)
        let after = try #require(harness.store.testTransactions.first)
        #expect(harness.store.testTransactions.count == 1)
        #expect(after.id == listed.id && !after.pendingAskToBuyConfirmation && after.transaction?.unsafePayloadValue == approved)
        #expect(throws: SubscriptionError(.requestNotFound)) { try harness.store.approveAskToBuy(transactionID: listed.id) }
        #expect(harness.store.allTransactions.count == 1, "approving twice bought nothing more")
    }

    @Test("Ask to Buy: declined by its identifier, nothing is bought; lapsed after 24 hours, it leaves the list and cannot be approved")
    func askToBuyDeclinedOrLapsed() async throws {
        let declining = try H()
        declining.store.askToBuyEnabled = true
        _ = try await declining.service.purchase(H.proMonthly)
        try declining.store.declineAskToBuy(transactionID: try #require(declining.store.testTransactions.first).id)
        #expect(declining.store.testTransactions.isEmpty)
        #expect(declining.store.allTransactions.isEmpty)

        let lapsing = try H()
        lapsing.store.askToBuyEnabled = true
        _ = try await lapsing.service.purchase(H.proMonthly)
        let lapsed = try #require(lapsing.store.testTransactions.first)
        lapsing.clock.advance(by: .seconds(24 * 3600))
        #expect(lapsing.store.testTransactions.count == 1, "still pending at exactly 24 hours")
        lapsing.clock.advance(by: .seconds(1))
        #expect(lapsing.store.testTransactions.isEmpty)
        #expect(throws: SubscriptionError(.requestNotFound)) { try lapsing.store.approveAskToBuy(transactionID: lapsed.id) }
    }

    @Test("a request's identifier is its own: a bought transaction's, or an interrupted purchase's, is not an Ask to Buy request")
    func askToBuyIdentifierIsChecked() async throws {
        let harness = try H()
        let bought = try await harness.buy(H.premiumMonthly)
        harness.store.interruptedPurchasesEnabled = true
        _ = try await harness.service.purchase(H.proYearly)
        let interrupted = try #require(harness.store.testTransactions.first { $0.hasPurchaseIssue })
        #expect(interrupted.id != bought.id)
        #expect(throws: SubscriptionError(.requestNotFound)) { try harness.store.approveAskToBuy(transactionID: bought.id) }
        #expect(throws: SubscriptionError(.requestNotFound)) { try harness.store.approveAskToBuy(transactionID: interrupted.id) }
        #expect(throws: SubscriptionError(.requestNotFound)) { try harness.store.declineAskToBuy(transactionID: .max) }
        #expect(harness.store.testTransactions.map(\.id) == [bought.id, interrupted.id], "nothing changed")
    }

    @Test("an Ask to Buy upgrade approved after a later purchase becomes the subscription's latest transaction under its own, lower identifier")
    func askToBuyApprovedAfterALaterPurchase() async throws {
        let harness = try H()
        harness.store.askToBuyEnabled = true
        _ = try await harness.service.purchase(H.premiumMonthly)
        let request = try #require(harness.store.testTransactions.first).id
        harness.store.askToBuyEnabled = false
        let pro = try await harness.buy(H.proMonthly)
        #expect(pro.id > request)
        try harness.store.approveAskToBuy(transactionID: request)
        let status = try #require(try await harness.service.subscriptionStatuses().first)
        #expect(status.transaction.unsafePayloadValue.id == request)
        #expect(status.transaction.unsafePayloadValue.productID == H.premiumMonthly)
        #expect(try await harness.service.restorePurchases() == .premium)
        #expect(harness.store.allTransactions.first { $0.unsafePayloadValue.id == pro.id }?.unsafePayloadValue.isUpgraded == true)
    }

    @Test("a waiting purchase keeps its identifier across a relaunch, and no later transaction takes it")
    func pendingIdentifierSurvivesRelaunch() async throws {
        let harness = try H(.file)
        harness.store.askToBuyEnabled = true
        _ = try await harness.service.purchase(H.proMonthly)
        let id = try #require(harness.store.testTransactions.first).id
        try harness.relaunch()
        #expect(harness.store.testTransactions.map(\.id) == [id])
        #expect(harness.store.testTransactions.first?.pendingAskToBuyConfirmation == true)
        harness.store.askToBuyEnabled = false
        let bought = try await harness.buy(H.premiumMonthly)
        #expect(bought.id > id)
    }

    /// Rewrites a stored request as a ledger written before requests had identifiers.
    static func makeEarlier(_ request: PendingPurchase, in harness: H) throws {
        let ledger = try RecordStore(.file(harness.file), schema: StoreLedger.schema)
        let raw = RecordCollection<Data>.bytes("pending")
        let stored = try #require(try ledger.read { try $0.data(forKey: request.id, in: raw) })
        var fields = try #require(try JSONSerialization.jsonObject(with: stored) as? [String: Any])
        #expect(fields.removeValue(forKey: "transactionID") != nil)
        let legacy = try JSONSerialization.data(withJSONObject: fields)
        try ledger.write { try $0.setData(legacy, forKey: request.id, in: raw) }
        ledger.close()
    }

    @Test("a request saved before requests had identifiers gets one past every transaction when the store opens, and can be approved")
    func legacyRequestGetsAnIdentifier() async throws {
        let harness = try H(.file)
        let bought = try await harness.buy(H.proMonthly)
        harness.store.askToBuyEnabled = true
        _ = try await harness.service.purchase("com.train.premium.yearly") // an upgrade: approved, it is a new transaction
        try Self.makeEarlier(try #require(harness.store.pendingPurchases.first), in: harness)

        try harness.relaunch()
        let listed = try #require(harness.store.testTransactions.first { $0.pendingAskToBuyConfirmation })
        #expect(listed.id > bought.id)
        harness.store.askToBuyEnabled = false
        try harness.store.approveAskToBuy(transactionID: listed.id)
        #expect(harness.store.allTransactions.contains { $0.unsafePayloadValue.id == listed.id })
    }

    @Test("a request saved before requests had identifiers keeps the one it was given across relaunches and beside another store on the file")
    func legacyIdentifierIsKept() async throws {
        let harness = try H(.file)
        harness.store.askToBuyEnabled = true
        _ = try await harness.service.purchase(H.proMonthly)
        try Self.makeEarlier(try #require(harness.store.pendingPurchases.first), in: harness)
        try harness.relaunch()
        let listed = try #require(harness.store.testTransactions.first { $0.pendingAskToBuyConfirmation }).id
        let widget = try harness.makeStore()
        #expect(widget.testTransactions.first { $0.pendingAskToBuyConfirmation }?.id == listed, "another store on the file lists it alike")
        try widget.buyOutsideApp(productID: H.premiumMonthly, appAccountToken: H.grace)
        #expect(harness.store.testTransactions.first { $0.pendingAskToBuyConfirmation }?.id == listed)
        try harness.relaunch()
        #expect(harness.store.testTransactions.first { $0.pendingAskToBuyConfirmation }?.id == listed, "and the next launch too")
        try harness.store.approveAskToBuy(transactionID: listed)
    }

    @Test(
        "an approved Ask to Buy downgrade changes what renews, as a purchase in the app would; the request leaves the list and its identifier is not used"
    )
    func approvedDowngradeChangesTheRenewal() async throws {
        let harness = try H()
        try await harness.service.finish(try await harness.buy(H.premiumMonthly).id)
        harness.store.askToBuyEnabled = true
        _ = try await harness.service.purchase(H.proMonthly)
        let request = try #require(harness.store.testTransactions.first { $0.pendingAskToBuyConfirmation }).id
        try harness.store.approveAskToBuy(transactionID: request)
        #expect(!harness.store.testTransactions.contains { $0.id == request })
        let info = try #require(try await harness.service.subscriptionStatuses().first?.renewalInfo.unsafePayloadValue)
        #expect(info.autoRenewPreference == H.proMonthly && info.currentProductID == H.premiumMonthly)
        harness.clock.advance(to: harness.months(1).addingTimeInterval(1))
        #expect(try await harness.service.restorePurchases() == .pro)
        #expect(!harness.store.allTransactions.contains { $0.unsafePayloadValue.id == request })
    }

    @Test("an interrupted purchase is listed with a purchase issue until resolved by its identifier, then arrives on the stream under it")
    func interrupted() async throws {
        let harness = try H()
        harness.store.interruptedPurchasesEnabled = true
        #expect(try await harness.service.purchase(H.proMonthly) == .pending)
        let listed = try #require(harness.store.testTransactions.first)
        #expect(listed.hasPurchaseIssue && !listed.pendingAskToBuyConfirmation)
        #expect(harness.store.pendingPurchases.first?.kind == .interrupted)
        let updates = harness.service.transactionUpdates()
        try harness.store.resolveInterruptedPurchase(transactionID: listed.id)
        let resolved = try #require(await updates.collect(1).first).unsafePayloadValue
        #expect(resolved.appAccountToken == H.ada && resolved.id == listed.id)
    }

    @Test("a price increase without consent lapses the subscription at renewal; with consent it renews")
    func priceIncrease() async throws {
        let declined = try H()
        try await declined.buy()
        try declined.store.requestPriceIncreaseConsent(productID: H.proMonthly)
        #expect(try await declined.service.subscriptionStatuses().first?.renewalInfo.unsafePayloadValue.priceIncreaseStatus == .pending)
        declined.clock.advance(to: declined.months(1).addingTimeInterval(1))
        let lapsed = try #require(try await declined.service.subscriptionStatuses().first)
        #expect(lapsed.state == .expired && lapsed.renewalInfo.unsafePayloadValue.expirationReason == .didNotConsentToPriceIncrease)

        let agreed = try H()
        try await agreed.buy()
        try agreed.store.requestPriceIncreaseConsent(productID: H.proMonthly)
        try agreed.store.respondToPriceIncrease(agreed: true, productID: H.proMonthly)
        agreed.clock.advance(to: agreed.months(1).addingTimeInterval(1))
        #expect(try await agreed.service.restorePurchases() == .pro)
    }

    @Test("unverified transactions never grant access")
    func unverified() async throws {
        let harness = try H()
        harness.store.producesUnverifiedTransactions = true
        guard case .success(let result) = try await harness.service.purchase(H.premiumMonthly) else {
            Issue.record("expected a success")
            return
        }
        #expect(!result.isVerified)
        #expect(throws: SubscriptionError.self) { try result.payloadValue }
        #expect(harness.service.currentTier == .free)
        #expect(try await harness.service.currentEntitlements().allSatisfy { !$0.isVerified }, "handed over as unverified, as StoreKit does")
    }

    @Test("accelerated time: a month every 30 seconds renews three times in 95 seconds")
    func acceleratedTime() async throws {
        let harness = try H()
        try harness.store.setTimeRate(.monthlyRenewal(every: .seconds(30)))
        let first = try await harness.buy()
        #expect(first.expirationDate == harness.clock.now.addingTimeInterval(30))
        harness.clock.advance(by: .seconds(95))
        _ = try await harness.service.restorePurchases()
        #expect(harness.store.allTransactions.count == 4)
        #expect(harness.service.currentTier == .pro)
    }

    @Test("a backdated outside purchase renews up to now and arrives on the stream")
    func backdated() async throws {
        let harness = try H()
        harness.clock.advance(to: harness.months(3).addingTimeInterval(3600))
        let updates = harness.service.transactionUpdates()
        try harness.store.buyOutsideApp(productID: H.proMonthly, appAccountToken: H.ada, purchaseDate: ManualClock.defaultStart)
        let delivered = await updates.collect(4).map(\.unsafePayloadValue)
        #expect(delivered.map(\.purchaseDate) == (0...3).map { harness.months($0) })
        #expect(try await harness.service.restorePurchases() == .pro)
    }

    @Test("clearing removes every transaction; reset restores the default settings")
    func clearAndReset() async throws {
        let harness = try H()
        try await harness.buy()
        harness.store.askToBuyEnabled = true
        harness.store.clearTransactions()
        #expect(harness.store.allTransactions.isEmpty)
        #expect(try await harness.service.restorePurchases() == .free)
        harness.store.resetToDefaultState()
        #expect(!harness.store.askToBuyEnabled)
        #expect(try await harness.buy().productID == H.proMonthly)
    }

    @Test("reset settles what was due under the settings it was due under, as the setters do")
    func resetSettlesFirst() async throws {
        let harness = try H()
        let transaction = try await harness.buy()
        harness.store.shouldEnterBillingRetryOnRenewal = true
        try harness.makeRenewalDue(transaction)
        harness.store.resetToDefaultState()
        #expect(try await harness.service.subscriptionStatuses().first?.state == .inBillingRetryPeriod)
        #expect(harness.store.allTransactions.count == 1, "no renewal under the default settings")
    }

    @Test("a store whose ledger cannot be written for a while backs its timer off instead of waking again at once")
    func timerBacksOff() async throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock()
        let file = directory.file("appstore.sqlite")
        let store = try SimulatedAppStore(storage: .file(file, options: .init(busyTimeout: .milliseconds(20))), context: TrainContext(clock: clock))
        try store.buyOutsideApp(productID: H.proMonthly, appAccountToken: H.ada)
        let renewal = try #require(store.allTransactions.last?.unsafePayloadValue.expirationDate)
        // Another connection holds the file's write lock, so settling fails with busy.
        let other = try RecordStore(.file(file), schema: StoreSchema(name: "other", migrations: [.createCollections(version: 1, ["x"])]))
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            try? other.write { _ in
                holding.signal()
                release.wait()
            }
            released.signal()
        }
        holding.wait()
        clock.advance(to: renewal.addingTimeInterval(60))
        // The timer woke, could not settle, and sleeps again: until a later date, not the boundary it missed.
        await clock.waitForSleepers(1)
        let first = try #require(clock.pendingDeadlines.first)
        #expect(first >= clock.now.addingTimeInterval(1))
        clock.advance(to: first)
        await clock.waitForSleepers(1)
        let second = try #require(clock.pendingDeadlines.first)
        #expect(second >= clock.now.addingTimeInterval(2), "the wait doubles")
        release.signal()
        released.wait()
        clock.advance(to: second)
        await clock.waitForSleepers(1)
        #expect(store.allTransactions.count == 2, "once the file can be written, the renewal is recorded")
        #expect(try #require(clock.pendingDeadlines.first) > renewal.addingTimeInterval(60), "and the timer waits for the next period")
    }
}
