import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainSubscription

/// SUB-10 at its edges: offers on requests that wait, win-back outside a lapse, offers
/// that are not whole, a lapsed pay-as-you-go offer, clock jumps over its periods, and the fake.
@Suite(.timeLimit(.minutes(1))) struct OfferRefusalTests {
    typealias O = OfferTests
    let clock = ManualClock()
    let start = ManualClock.defaultStart

    func make() -> (SimulatedAppStore, LocalSubscriptionService) {
        let store = SimulatedAppStore(
            context: TrainContext(clock: clock), configuration: AppStoreConfiguration(products: [O.trialMonthly, O.payAsYouGoYearly, O.payUpFront]))
        return (
            store,
            LocalSubscriptionService(
                store: store, context: store.context, configuration: SubscriptionConfiguration(appAccountToken: SubscriptionHarness.ada))
        )
    }

    @Test("an offer that is unknown or not for this Apple ID is refused before an Ask to Buy request or interrupted purchase waits")
    func offersOnWaitingRequests() async throws {
        let (store, service) = make()
        for wait in [\SimulatedAppStore.askToBuyEnabled, \.interruptedPurchasesEnabled] {
            store[keyPath: wait] = true
            await #expect(throws: SubscriptionError(.invalidOfferIdentifier)) {
                _ = try await service.purchase(O.trialMonthly.id, offer: .promotional(id: "no-such-offer"))
            }
            await #expect(throws: SubscriptionError(.ineligibleForOffer)) {
                _ = try await service.purchase(O.trialMonthly.id, offer: .promotional(id: "comeback"))
            }
            store[keyPath: wait] = false
        }
        #expect(store.pendingPurchases.isEmpty && store.allTransactions.isEmpty)
    }

    @Test("a win-back offer is refused in billing retry and after a refund, where the renewal info lists none")
    func winBackOnlyWhenLapsed() async throws {
        let (store, service) = make()
        _ = try await service.purchase(O.trialMonthly.id)
        store.shouldEnterBillingRetryOnRenewal = true
        clock.advance(by: .seconds(8 * 86_400))
        #expect(try await service.subscriptionStatuses().first?.state == .inBillingRetryPeriod)
        await #expect(throws: SubscriptionError(.ineligibleForOffer)) {
            _ = try await service.purchase(O.trialMonthly.id, offer: .winBack(id: "miss-you"))
        }
        try store.switchAppleID(to: AppleIDTests.child)
        store.shouldEnterBillingRetryOnRenewal = false
        let childs = try #require(try await service.purchase(O.trialMonthly.id).transaction)
        try store.refund(transactionID: childs.id)
        #expect(try await service.subscriptionStatuses().first?.renewalInfo.payloadValue.eligibleWinBackOfferIDs == [])
        await #expect(throws: SubscriptionError(.ineligibleForOffer)) {
            _ = try await service.purchase(O.trialMonthly.id, offer: .winBack(id: "miss-you"))
        }
    }

    @Test("an offer code of a product that is not whole is refused when added and when redeemed")
    func codesOfIncompleteProducts() throws {
        var product = O.trialMonthly
        product.offers = [SubscriptionOffer(id: "broken", type: .code, paymentMode: .payAsYouGo, period: .month, periodCount: Int.min, price: -5)]
        let store = SimulatedAppStore(context: TrainContext(clock: clock), configuration: AppStoreConfiguration(products: [product]))
        #expect(throws: SubscriptionError(.invalidArgument)) { try store.addOfferCodes(["BROKEN"], productID: product.id, offerID: "broken") }
        #expect(throws: SubscriptionError(.invalidOfferCode)) { try store.redeemOfferCode("BROKEN") }
        #expect(store.allTransactions.isEmpty)
    }

    @Test("a lapsed subscription's renewal info shows no offer, though its pay-as-you-go offer had periods left")
    func lapsedOffer() async throws {
        let (store, service) = make()
        let first = try #require(try await service.purchase(O.payAsYouGoYearly.id).transaction)
        try store.setAutoRenew(false, productID: O.payAsYouGoYearly.id)
        clock.advance(to: try #require(first.expirationDate).addingTimeInterval(1))
        let status = try #require(try await service.subscriptionStatuses().first)
        #expect(status.state == .expired)
        #expect(try status.renewalInfo.payloadValue.offer == nil)
    }

}
