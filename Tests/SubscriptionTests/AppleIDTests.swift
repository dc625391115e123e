import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainSubscription

/// SUB-8 and SUB-7: purchases belong to the device's Apple ID, one subscription per
/// group; which app user has access is the service's policy.
@Suite(.timeLimit(.minutes(1))) struct AppleIDTests {
    typealias H = SubscriptionHarness
    static let child = (try? AppleID("child@example.com")) ?? .standard

    @Test("by default every app user on the device, and nobody signed in, has what the Apple ID bought", arguments: StoreVariant.allCases)
    func storeKitAccess(variant: StoreVariant) async throws {
        let harness = try H(variant)
        let adas = try await harness.buy(H.premiumMonthly)
        await harness.service.setAppAccountToken(H.grace)
        #expect(harness.service.currentTier == .premium)
        #expect(try await harness.service.currentEntitlements().map(\.unsafePayloadValue.id) == [adas.id])
        #expect(try await harness.service.subscriptionStatuses().count == 1)
        try await harness.service.finish(adas.id)
        await harness.service.setAppAccountToken(nil)
        #expect(try await harness.service.restorePurchases() == .premium, "signed out, a restore still sees the Apple ID's")
        if variant == .file {
            try harness.relaunch(user: nil)
            #expect(harness.service.currentTier == .premium)
        }
    }

    @Test("a second purchase in the group changes the Apple ID's one subscription, whoever buys it, and renewals carry the latest buyer's tag")
    func oneSubscriptionPerGroup() async throws {
        let harness = try H()
        let pro = try await harness.buy(H.proMonthly)
        await harness.service.setAppAccountToken(H.grace)
        let premium = try await harness.buy(H.premiumMonthly)
        #expect(premium.originalID == pro.originalID, "an upgrade of the same subscription, not a parallel one")
        #expect(premium.appAccountToken == H.grace)
        #expect(harness.store.allTransactions.first?.unsafePayloadValue.isUpgraded == true)
        #expect(try await harness.service.subscriptionStatuses().count == 1)
        harness.clock.advance(to: try #require(premium.expirationDate).addingTimeInterval(1))
        let renewal = try #require(harness.store.allTransactions.last?.unsafePayloadValue)
        #expect(renewal.id != premium.id && renewal.originalID == pro.originalID && renewal.appAccountToken == H.grace)
    }

    @Test(
        "with access per app user, a second one is told the Apple ID's subscription is another's and nothing is bought",
        arguments: StoreVariant.allCases)
    func perAppUserAccess(variant: StoreVariant) async throws {
        let harness = try H(variant, policy: .appAccountToken)
        let adas = try await harness.buy(H.premiumMonthly)
        await harness.service.setAppAccountToken(H.grace)
        #expect(harness.service.currentTier == .free)
        #expect(try await harness.service.currentEntitlements().isEmpty)
        #expect(try await harness.service.subscriptionStatuses().isEmpty)
        await #expect(throws: SubscriptionError(.notYourTransaction)) { try await harness.service.finish(adas.id) }
        let refused = await #expect(throws: SubscriptionError.self) { _ = try await harness.service.purchase(H.proMonthly) }
        #expect(refused?.code == .subscribedWithAnotherAccount)
        #expect(refused?.errorDescription?.contains("another account") == true)
        #expect(harness.store.allTransactions.count == 1, "nothing was bought")
        await harness.service.setAppAccountToken(H.ada)
        #expect(harness.service.currentTier == .premium)
        await harness.service.setAppAccountToken(nil)
        #expect(harness.service.currentTier == .free)
        // Once Ada's subscription has lapsed, Grace may subscribe on the same Apple ID.
        await harness.service.setAppAccountToken(H.ada)
        try harness.store.setAutoRenew(false, productID: H.premiumMonthly)
        harness.clock.advance(to: try #require(adas.expirationDate).addingTimeInterval(1))
        await harness.service.setAppAccountToken(H.grace)
        let graces = try await harness.buy(H.proMonthly)
        #expect(graces.originalID == adas.originalID && graces.appAccountToken == H.grace)
        #expect(harness.service.currentTier == .pro)
    }

    @Test("another Apple ID on the device has its own subscriptions; switching back brings the first one's back", arguments: StoreVariant.allCases)
    func switchingAppleIDs(variant: StoreVariant) async throws {
        let harness = try H(variant)
        let tiers = harness.service.tierChanges()
        let adas = try await harness.buy(H.premiumMonthly)
        try harness.store.switchAppleID(to: Self.child)
        #expect(harness.store.appleID == Self.child)
        #expect(harness.service.currentTier == .free)
        #expect(try await harness.service.currentEntitlements().isEmpty)
        #expect(throws: SubscriptionError(.notSubscribed)) { try harness.store.expireSubscription(productID: H.premiumMonthly) }
        await #expect(throws: SubscriptionError(.notYourTransaction)) { try await harness.service.finish(adas.id) }
        let childs = try await harness.buy(H.proMonthly)
        #expect(childs.originalID != adas.originalID, "a subscription of its own, beside the first Apple ID's")
        #expect(harness.service.currentTier == .pro)
        if variant == .file {
            try harness.relaunch()
            #expect(harness.store.appleID == Self.child, "a file keeps the device signed in")
        }
        try harness.store.switchAppleID(to: .standard)
        #expect(harness.service.currentTier == .premium)
        try harness.store.expireSubscription(productID: H.premiumMonthly)
        #expect(harness.service.currentTier == .free)
        try harness.store.switchAppleID(to: Self.child)
        #expect(harness.service.currentTier == .pro, "the controls acted on the signed-in Apple ID's subscription only")
        if variant == .inMemory { #expect(await tiers.collect(4) == [.free, .premium, .free, .pro]) }
    }

    @Test("a switch of Apple ID on one store reaches a service on another store of the same file")
    func switchSeenAcrossStores() async throws {
        let harness = try H(.file)
        try await harness.buy(H.proMonthly)
        let widgetStore = try harness.makeStore()
        let widget = LocalSubscriptionService(store: widgetStore, context: widgetStore.context)
        #expect(widget.currentTier == .pro)
        try harness.store.switchAppleID(to: Self.child)
        #expect(widget.currentTier == .free)
        #expect(widget.store.appleID == Self.child)
    }

    @Test("an Ask to Buy request approved after the device switched Apple ID is bought for the Apple ID that asked")
    func askToBuyKeepsItsAppleID() async throws {
        let harness = try H()
        harness.store.askToBuyEnabled = true
        #expect(try await harness.service.purchase(H.proMonthly) == .pending)
        let request = try #require(harness.store.pendingPurchases.first)
        #expect(request.appleID == .standard)
        try harness.store.switchAppleID(to: Self.child)
        try harness.store.approveAskToBuy(transactionID: request.transactionID)
        #expect(harness.service.currentTier == .free, "the child's Apple ID did not get it")
        try harness.store.switchAppleID(to: .standard)
        #expect(harness.service.currentTier == .pro)
    }

    @Test("an Apple ID is an email address compared without case or Unicode composition; anything else is invalidArgument")
    func appleIDs() throws {
        #expect(try AppleID("Ada@Example.COM") == AppleID("ada@example.com"))
        #expect(try AppleID("jos\u{E9}@example.com") == AppleID("jose\u{301}@example.com"))
        for bad in ["", "ada", "ada @example.com", "ada\u{0}@example.com", "ada\n@example.com", String(repeating: "a", count: 250) + "@x.com"] {
            #expect(throws: SubscriptionError(.invalidArgument), "\(bad.debugDescription)") { _ = try AppleID(bad) }
        }
        let decoded = try JSONDecoder().decode([AppleID].self, from: Data(#"["Ada@Example.com"]"#.utf8))
        #expect(decoded == [try AppleID("ada@example.com")])
        #expect(throws: DecodingError.self) { _ = try JSONDecoder().decode([AppleID].self, from: Data(#"["a\u0000@x"]"#.utf8)) }
    }

    @Test("a ledger written before purchases had an Apple ID belongs to the standard one")
    func earlierLedgerIsTheStandardAppleIDs() async throws {
        let harness = try H(.file)
        let bought = try await harness.buy(H.proMonthly)
        // Layout 1 is the one before Apple IDs: without the owner.
        try H.relabel([bought.id], in: ["transactions", "subscriptions"], asLayout: 1, file: harness.file)
        try harness.relaunch()
        #expect(harness.service.currentTier == .pro)
        try harness.store.switchAppleID(to: Self.child)
        #expect(harness.service.currentTier == .free)
    }
}
