import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainSubscription

/// SUB-8 at its edges: untagged subscriptions and waiting requests under access per app
/// user, ledgers from before Apple IDs, listeners across a switch, switches while the
/// purchase sheet is up, and addresses that only look alike.
@Suite(.timeLimit(.minutes(1))) struct AppleIDAccessTests {
    typealias H = SubscriptionHarness

    @Test("with access per app user, a subscription bought outside the app untagged is not taken over by a purchase in the app")
    func untaggedSubscription() async throws {
        let harness = try H(policy: .appAccountToken)
        try harness.store.buyOutsideApp(productID: H.premiumMonthly)
        let refused = await #expect(throws: SubscriptionError.self) { _ = try await harness.service.purchase(H.premiumMonthly) }
        #expect(refused?.code == .subscribedWithAnotherAccount)
        #expect(harness.store.allTransactions.count == 1)
        #expect(try await harness.service.subscriptionStatuses().isEmpty && harness.service.currentTier == .free)
    }

    @Test("a downgrade by another app user changes what renews and leaves the subscription's tag with its latest transaction")
    func downgradeKeepsTheTag() async throws {
        let harness = try H()
        let premium = try await harness.buy(H.premiumMonthly)
        await harness.service.setAppAccountToken(H.grace)
        let returned = try await harness.buy(H.proMonthly)
        #expect(returned.id == premium.id && returned.appAccountToken == H.ada)
        let status = try #require(try await harness.service.subscriptionStatuses().first)
        #expect(try status.renewalInfo.payloadValue.autoRenewPreference == H.proMonthly)
        #expect(status.transaction.unsafePayloadValue.appAccountToken == H.ada, "the status and the transaction agree")
    }

    @Test("with access per app user, approving a request is refused while another app user's subscription in the group is active")
    func approvalKeepsExclusivity() async throws {
        let harness = try H(policy: .appAccountToken)
        harness.store.askToBuyEnabled = true
        #expect(try await harness.service.purchase(H.premiumMonthly) == .pending)
        harness.store.askToBuyEnabled = false
        await harness.service.setAppAccountToken(H.grace)
        let graces = try await harness.buy(H.proMonthly)
        let request = try #require(harness.store.pendingPurchases.first)
        #expect(throws: SubscriptionError(.subscribedWithAnotherAccount)) { try harness.store.approveAskToBuy(transactionID: request.transactionID) }
        #expect(harness.service.currentTier == .pro)
        #expect(harness.store.pendingPurchases.map(\.id) == [request.id], "the request keeps waiting")
        #expect(harness.store.allTransactions.map(\.unsafePayloadValue.id) == [graces.id])
    }

    @Test(
        "a ledger from before Apple IDs with two app users' subscriptions in one group: the controls reach the active one with the latest transaction, then the other"
    )
    func earlierLedgerWithTwoSubscriptionsInAGroup() async throws {
        let harness = try H(.file)
        let start = harness.clock.now
        func earlierJSON(_ value: some Encodable) throws -> Data {
            var fields = try #require(try JSONSerialization.jsonObject(with: try JSONEncoder().encode(value)) as? [String: Any])
            fields["owner"] = nil
            return try JSONSerialization.data(withJSONObject: fields)
        }
        let raw = try RecordStore(.file(harness.file), schema: StoreLedger.schema)
        try raw.write { records in
            for (id, product, token) in [(UInt64(1), H.proMonthly, H.ada), (2, H.premiumMonthly, H.grace)] {
                let transaction = AppStoreTransaction(
                    id: id, productID: product, purchaseDate: start, expirationDate: start.addingTimeInterval(30 * 86_400), appAccountToken: token)
                let subscription = StoreLedger.Subscription(
                    originalID: id, groupID: "train.subscriptions", appAccountToken: token, productID: product, latestTransactionID: id,
                    periodEnd: transaction.expirationDate ?? start, autoRenewPreference: product)
                try records.setData(
                    try earlierJSON(StoreLedger.Entry(transaction: transaction, verified: true)), forKey: StoreLedger.key(id), in: "transactions")
                try records.setData(try earlierJSON(subscription), forKey: StoreLedger.key(id), in: "subscriptions")
            }
        }
        raw.close()
        try harness.relaunch()
        #expect(harness.service.currentTier == .premium)
        try harness.store.expireSubscription(productID: H.proMonthly)
        #expect(harness.service.currentTier == .pro, "Grace's, with the later transaction, went first")
        try harness.store.expireSubscription(productID: H.proMonthly)
        #expect(harness.service.currentTier == .free)
    }

    @Test("a running listener receives the unfinished transactions of the Apple ID the device switches to")
    func switchRedelivers() async throws {
        let harness = try H()
        let updates = harness.service.transactionUpdates()
        harness.store.askToBuyEnabled = true
        #expect(try await harness.service.purchase(H.proMonthly) == .pending)
        let request = try #require(harness.store.pendingPurchases.first)
        try harness.store.switchAppleID(to: AppleIDTests.child)
        try harness.store.approveAskToBuy(transactionID: request.transactionID)
        try harness.store.switchAppleID(to: .standard)
        #expect(harness.service.currentTier == .pro)
        #expect(await updates.collect(1).first?.unsafePayloadValue.id == request.transactionID)
    }

    @Test("a switch of Apple ID while the purchase sheet is up buys nothing", arguments: [SubscriptionAccessPolicy.appleID, .appAccountToken])
    func switchDuringTheSheet(policy: SubscriptionAccessPolicy) async throws {
        let harness = try H(policy: policy)
        harness.store.purchaseSheetDelay = .seconds(30)
        let service = harness.service
        let purchase = Task { try await service.purchase(H.proMonthly) }
        await harness.clock.waitForSleepers(1)
        try harness.store.switchAppleID(to: AppleIDTests.child)
        harness.clock.advance(by: .seconds(31))
        await #expect(throws: SubscriptionError(.notYourTransaction)) { _ = try await purchase.value }
        #expect(harness.store.allTransactions.isEmpty)
    }

    @Test("Apple IDs that only look alike stay apart, and one read back from a file or JSON is the same Apple ID")
    func lookAlikes() async throws {
        for spoof in ["ada\u{200B}@example.com", "ada\u{202E}@example.com", "\u{FEFF}ada@example.com"] {
            #expect(throws: SubscriptionError(.invalidArgument), "\(spoof.debugDescription)") { _ = try AppleID(spoof) }
        }
        #expect(try AppleID("\u{1042B}\u{308}@example.com") != AppleID("\u{4F9}@example.com"))
        #expect(try AppleID("STRASSE@example.de") == AppleID("strasse@example.de"))
        #expect(try AppleID("straße@example.de") != AppleID("strasse@example.de"), "lowercase mapping, not case folding")
        let deseret = try AppleID("\u{10403}\u{308}@example.com")
        #expect(try AppleID(deseret.email) == deseret)
        #expect(try JSONDecoder().decode(AppleID.self, from: JSONEncoder().encode(deseret)) == deseret)
        let harness = try H(.file)
        try harness.store.switchAppleID(to: deseret)
        try await harness.buy(H.proMonthly)
        try harness.relaunch()
        #expect(harness.store.appleID == deseret && harness.service.currentTier == .pro)
    }
}
