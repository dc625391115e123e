import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainSubscription

/// SUB-14: App Store Server Notifications V2 for every change the simulated store makes,
/// signed, verifiable, in a log and on a stream.
@Suite(.timeLimit(.minutes(1))) struct ServerNotificationTests {
    typealias H = SubscriptionHarness

    /// The type and subtype of each notification the store sent after `count` earlier ones.
    static func sent(_ store: SimulatedAppStore, after count: Int) -> [String] {
        store.serverNotifications.dropFirst(count).map { [$0.type.rawValue, $0.subtype?.rawValue].compactMap { $0 }.joined(separator: "/") }
    }

    /// Runs `change` and returns the notifications it sent.
    static func notifications(of store: SimulatedAppStore, _ change: () async throws -> Void) async throws -> [String] {
        let before = store.serverNotifications.count
        try await change()
        return sent(store, after: before)
    }

    @Test("a backdated purchase's notification is dated at its purchase, before its renewals'", arguments: StoreVariant.allCases)
    func backdatedPurchaseDated(variant: StoreVariant) throws {
        let harness = try H(variant)
        let store = harness.store
        let bought = harness.clock.now
        harness.clock.advance(to: harness.months(2).addingTimeInterval(60))
        _ = try store.buyOutsideApp(productID: H.proMonthly, purchaseDate: bought)
        let told = store.serverNotifications.map { ($0.type, $0.signedDate) }
        #expect(told.map(\.0) == [.subscribed, .didRenew, .didRenew])
        #expect(told.first?.1 == bought, "told at the purchase, not when the store heard of it")
        #expect(told.map(\.1) == told.map(\.1).sorted(), "oldest first")
    }

    @Test("a subscription's life sends Apple's type and subtype for each change", arguments: StoreVariant.allCases)
    func subscriptionLife(variant: StoreVariant) async throws {
        let harness = try H(variant)
        let store = harness.store
        #expect(try await Self.notifications(of: store) { try await harness.buy() } == ["SUBSCRIBED/INITIAL_BUY"])
        #expect(try await Self.notifications(of: store) { harness.clock.advance(to: harness.months(1).addingTimeInterval(1)) } == ["DID_RENEW"])
        #expect(try await Self.notifications(of: store) { try store.forceRenewal(productID: H.proMonthly) } == ["DID_RENEW"])
        #expect(
            try await Self.notifications(of: store) { try store.setAutoRenew(false, productID: H.proMonthly) }
                == ["DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED"])
        #expect(try await Self.notifications(of: store) { try store.setAutoRenew(false, productID: H.proMonthly) } == [], "no change, nothing sent")
        #expect(
            try await Self.notifications(of: store) { try store.setAutoRenew(true, productID: H.proMonthly) }
                == ["DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_ENABLED"])
        #expect(try await Self.notifications(of: store) { try await harness.buy(H.premiumMonthly) } == ["DID_CHANGE_RENEWAL_PREF/UPGRADE"])
        #expect(try await Self.notifications(of: store) { try await harness.buy(H.proMonthly) } == ["DID_CHANGE_RENEWAL_PREF/DOWNGRADE"])
        #expect(
            try await Self.notifications(of: store) { try await harness.buy(H.premiumMonthly) } == ["DID_CHANGE_RENEWAL_PREF"],
            "a downgrade cancelled")
        #expect(try await Self.notifications(of: store) { try await harness.buy(H.premiumMonthly) } == [], "nothing to change")
        #expect(
            try await Self.notifications(of: store) { try store.requestPriceIncreaseConsent(productID: H.premiumMonthly) } == [
                "PRICE_INCREASE/PENDING"
            ])
        #expect(
            try await Self.notifications(of: store) { try store.respondToPriceIncrease(agreed: true, productID: H.premiumMonthly) }
                == ["PRICE_INCREASE/ACCEPTED"])
        try store.requestPriceIncreaseConsent(productID: H.premiumMonthly)
        let statuses = try await harness.service.subscriptionStatuses()
        let periodEnd = try #require(statuses.first?.transaction.unsafePayloadValue.expirationDate)
        #expect(try await Self.notifications(of: store) { harness.clock.advance(to: periodEnd.addingTimeInterval(1)) } == ["EXPIRED/PRICE_INCREASE"])
        #expect(try await Self.notifications(of: store) { try await harness.buy() } == ["SUBSCRIBED/RESUBSCRIBE"])
        try store.setAutoRenew(false, productID: H.proMonthly)
        let end = try #require(try await harness.service.subscriptionStatuses().first?.transaction.unsafePayloadValue.expirationDate)
        #expect(try await Self.notifications(of: store) { harness.clock.advance(to: end.addingTimeInterval(1)) } == ["EXPIRED/VOLUNTARY"])
        try await harness.buy()
        #expect(try await Self.notifications(of: store) { try store.expireSubscription(productID: H.proMonthly) } == ["EXPIRED"])
    }

    @Test(
        "billing trouble sends DID_FAIL_TO_RENEW, GRACE_PERIOD_EXPIRED, EXPIRED/BILLING_RETRY and DID_RENEW/BILLING_RECOVERY",
        arguments: StoreVariant.allCases)
    func billing(variant: StoreVariant) async throws {
        let harness = try H(variant)
        let store = harness.store
        // A month lasts 30 s: grace 16 s, billing retry 60 s.
        try store.setTimeRate(.monthlyRenewal(every: .seconds(30)))
        try await harness.buy()
        store.shouldEnterBillingRetryOnRenewal = true
        store.billingGracePeriodIsEnabled = true
        #expect(try await Self.notifications(of: store) { harness.clock.advance(by: .seconds(31)) } == ["DID_FAIL_TO_RENEW/GRACE_PERIOD"])
        #expect(try await Self.notifications(of: store) { harness.clock.advance(by: .seconds(16)) } == ["GRACE_PERIOD_EXPIRED"])
        #expect(try await Self.notifications(of: store) { try store.resolveBillingIssue(productID: H.proMonthly) } == ["DID_RENEW/BILLING_RECOVERY"])
        store.billingGracePeriodIsEnabled = false
        #expect(try await Self.notifications(of: store) { harness.clock.advance(by: .seconds(31)) } == ["DID_FAIL_TO_RENEW"])
        #expect(try await Self.notifications(of: store) { harness.clock.advance(by: .seconds(60)) } == ["EXPIRED/BILLING_RETRY"])
    }

    @Test("refunds: a request asks for consumption information and stops auto-renew; the store refunds or declines", arguments: StoreVariant.allCases)
    func refunds(variant: StoreVariant) async throws {
        let harness = try H(variant)
        let store = harness.store
        let bought = try await harness.buy()
        #expect(
            try await Self.notifications(of: store) { try store.requestRefund(transactionID: bought.id, reason: .unintendedPurchase) }
                == ["CONSUMPTION_REQUEST", "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED"])
        #expect(store.serverNotifications.dropLast().last?.consumptionRequestReason == .unintendedPurchase)
        #expect(try await Self.notifications(of: store) { try store.declineRefund(transactionID: bought.id) } == ["REFUND_DECLINED"])
        #expect(harness.service.currentTier == .pro, "a declined refund changes nothing")
        let count = store.serverNotifications.count
        #expect(throws: SubscriptionError(.requestNotFound)) { try store.declineRefund(transactionID: bought.id) }
        #expect(throws: SubscriptionError(.transactionNotFound)) { try store.requestRefund(transactionID: 999) }
        #expect(store.serverNotifications.count == count, "refused calls send nothing")
        try store.requestRefund(transactionID: bought.id)
        #expect(try await Self.notifications(of: store) { try store.refund(transactionID: bought.id, reason: .developerIssue) } == ["REFUND"])
        #expect(throws: SubscriptionError(.requestNotFound), "a refunded request is decided") { try store.declineRefund(transactionID: bought.id) }
        let refund = try #require(store.serverNotifications.last)
        #expect(refund.status == .revoked && refund.transaction?.revocationReason == .developerIssue)
        #expect(throws: SubscriptionError(.invalidArgument)) { try store.requestRefund(transactionID: bought.id) }
    }

    @Test("one-time purchases, offers and test notifications", arguments: StoreVariant.allCases)
    func oneTimeAndOffers(variant: StoreVariant) async throws {
        let directory = try TemporaryDirectory()
        var pro = AppStoreProduct(id: H.proMonthly, displayName: "Pro", tier: .pro, period: .month, price: 4.99)
        pro.offers = [
            SubscriptionOffer(id: "comeback", type: .promotional, paymentMode: .payUpFront, period: .month, price: 1.99),
            SubscriptionOffer(id: "coach", type: .code, paymentMode: .freeTrial, period: .month),
        ]
        var premium = AppStoreProduct(id: H.premiumMonthly, displayName: "Premium", tier: .premium, period: .month, price: 9.99)
        premium.offers = [SubscriptionOffer(id: "step-up", type: .promotional, paymentMode: .payUpFront, period: .month, price: 4.99)]
        let lifetime = AppStoreProduct.nonConsumable(id: "com.train.lifetime", displayName: "Lifetime", tier: .premium, price: 99)
        let clock = ManualClock()
        let storage: StorageLocation = variant == .file ? .file(directory.file("appstore.sqlite")) : .inMemory
        let store = try SimulatedAppStore(
            storage: storage, context: TrainContext(clock: clock), configuration: AppStoreConfiguration(products: [pro, premium, lifetime]))
        let service = LocalSubscriptionService(store: store, context: store.context, configuration: SubscriptionConfiguration(appAccountToken: H.ada))
        #expect(try await Self.notifications(of: store) { _ = try await service.purchase("com.train.lifetime") } == ["ONE_TIME_CHARGE"])
        #expect(try await Self.notifications(of: store) { _ = try await service.purchase("com.train.lifetime") } == [], "owned: nothing bought")
        try store.addOfferCodes(["SPRING"], productID: H.proMonthly, offerID: "coach")
        #expect(try await Self.notifications(of: store) { try store.redeemOfferCode("spring") } == ["SUBSCRIBED/INITIAL_BUY"])
        #expect(
            try await Self.notifications(of: store) { _ = try await service.purchase(H.premiumMonthly, offer: .promotional(id: "step-up")) }
                == ["OFFER_REDEEMED/UPGRADE"])
        #expect(try await Self.notifications(of: store) { try store.requestTestNotification() } == ["TEST"])
        let test = try #require(store.serverNotifications.last)
        #expect(test.transaction == nil && test.status == nil && test.bundleID == "com.example.train")
    }

    @Test("a renewal into a product no longer for sale lapses with EXPIRED/PRODUCT_NOT_FOR_SALE")
    func productNotForSale() async throws {
        var product = AppStoreProduct(id: H.proMonthly, displayName: "Pro", tier: .pro, period: .month, price: 4.99)
        product.prices = ["USA": 4.99]
        let clock = ManualClock()
        let store = SimulatedAppStore(context: TrainContext(clock: clock), configuration: AppStoreConfiguration(products: [product]))
        try store.buyOutsideApp(productID: H.proMonthly)
        store.storefront = try StoreStorefront(countryCode: "FRA", currencyCode: "EUR")
        clock.advance(by: .seconds(32 * 86_400))
        #expect(Self.sent(store, after: 1) == ["EXPIRED/PRODUCT_NOT_FOR_SALE"])
    }

    @Test("each notification verifies with the store's verifier and carries Apple's field names and encodings", arguments: StoreVariant.allCases)
    func signedPayloads(variant: StoreVariant) async throws {
        let harness = try H(variant)
        let bought = try await harness.buy()
        let verifier = harness.store.notificationVerifier()
        let notification = try #require(harness.store.serverNotifications.last)
        #expect(try verifier.verify(notification.signedPayload) == notification)
        #expect(notification.transaction?.id == bought.id && notification.transaction?.appAccountToken == H.ada)
        #expect(notification.status == .subscribed && notification.renewalInfo?.willAutoRenew == true)

        let payload = try Self.json(of: notification.signedPayload)
        #expect(payload["notificationType"] as? String == "SUBSCRIBED" && payload["subtype"] as? String == "INITIAL_BUY")
        #expect(payload["version"] as? String == "2.0" && payload["signedDate"] is Int)
        #expect((payload["notificationUUID"] as? String).flatMap(UUID.init(uuidString:)) == notification.id)
        let data = try #require(payload["data"] as? [String: Any])
        #expect(data["bundleId"] as? String == "com.example.train" && data["status"] as? Int == 1 && data["environment"] as? String == "LocalTesting")
        let transaction = try Self.json(of: try #require(data["signedTransactionInfo"] as? String))
        #expect(transaction["transactionId"] as? String == String(bought.id) && transaction["originalTransactionId"] as? String == String(bought.id))
        #expect(transaction["type"] as? String == "Auto-Renewable Subscription" && transaction["inAppOwnershipType"] as? String == "PURCHASED")
        #expect(transaction["purchaseDate"] as? Int == Int(bought.purchaseDate.timeIntervalSince1970 * 1000))
        #expect(transaction["price"] as? Int == 4990 && transaction["currency"] as? String == "USD")
        #expect(
            transaction["transactionReason"] as? String == "PURCHASE" && transaction["appAccountToken"] as? String == H.ada.uuidString.lowercased())
        let renewal = try Self.json(of: try #require(data["signedRenewalInfo"] as? String))
        #expect(renewal["autoRenewStatus"] as? Int == 1 && renewal["autoRenewProductId"] as? String == H.proMonthly)
    }

    @Test("a tampered notification, transaction or renewal info, another key or another app is failedVerification")
    func tampering() async throws {
        let harness = try H()
        try await harness.buy()
        let verifier = harness.store.notificationVerifier()
        let key = try harness.store.notificationKeyForTests()
        let otherKey = Data(repeating: 7, count: 32)
        let signed = try #require(harness.store.serverNotifications.last?.signedPayload)
        let parts = signed.split(separator: ".").map(String.init)
        let payload = String(decoding: try #require(Base64URL.decode(parts[1])), as: UTF8.self)
        let inner = try #require(try Self.json(of: signed)["data"] as? [String: Any])
        let transaction = try #require(inner["signedTransactionInfo"] as? String)
        let renewal = try #require(inner["signedRenewalInfo"] as? String)
        /// `payload` with `old` replaced by `new`, signed with the store's own key.
        func swapped(_ old: String, _ new: String) throws -> String {
            try Self.sign(header: parts[0], payload: payload.replacingOccurrences(of: old, with: new), key: key)
        }
        /// `token` as it is, its signature made with another key.
        func resigned(_ token: String) throws -> String {
            let pieces = token.split(separator: ".").map(String.init)
            return try Self.sign(
                header: pieces[0], payload: String(decoding: try #require(Base64URL.decode(pieces[1])), as: UTF8.self), key: otherKey)
        }
        #expect(try verifier.verify(try swapped("", "")) == verifier.verify(signed), "re-signing the payload as it is with the key verifies")
        for bad in [
            // The type altered, the notification's signature kept.
            parts[0] + "." + Base64URL.encode(Data(payload.replacingOccurrences(of: "SUBSCRIBED", with: "REFUND").utf8)) + "." + parts[2],
            "\(parts[0]).\(parts[1]).", signed + "x", "", String(repeating: "a.", count: 40_000),
            try resigned(signed), try swapped(transaction, try resigned(transaction)), try swapped(renewal, try resigned(renewal)),
        ] {
            #expect(throws: SubscriptionError(.failedVerification), "\(bad.prefix(30))") { _ = try verifier.verify(bad) }
        }
        let otherApp = StoreNotificationVerifier(key: key, bundleID: "com.example.other")
        #expect(throws: SubscriptionError(.failedVerification)) { _ = try otherApp.verify(signed) }
    }

    @Test("the log keeps what was sent as it was then: a renewal's notification read after a refund shows no refund")
    func historyIsImmutable() async throws {
        let harness = try H()
        let bought = try await harness.buy()
        try harness.store.refund(transactionID: bought.id)
        let log = harness.store.serverNotifications
        #expect(log.map(\.type) == [.subscribed, .refund])
        #expect(log[0].transaction?.revocationDate == nil && log[0].status == .subscribed)
        #expect(log[1].transaction?.revocationDate != nil && log[1].status == .revoked)
        #expect(Set(log.map(\.id)).count == 2 && log[0].signedPayload == harness.store.serverNotifications[0].signedPayload, "read again alike")
    }

    @Test("the stream tells each notification as it is sent, the same as the log; a second store on the file tells the first's")
    func stream() async throws {
        let harness = try H(.file)
        let other = try SimulatedAppStore(
            storage: .file(harness.file), context: TrainContext(clock: harness.clock),
            configuration: AppStoreConfiguration(products: AppStoreProduct.standardWithoutTrial))
        // Listening from here on; what the streams tell waits in them until read.
        let here = harness.store.serverNotificationUpdates()
        let there = other.serverNotificationUpdates()
        try await harness.buy()
        try harness.store.forceRenewal(productID: H.proMonthly)
        let told = await here.collect(2)
        #expect(told == harness.store.serverNotifications)
        other.settle() // reads the file again
        #expect(await there.collect(2).map(\.id) == told.map(\.id))
        #expect(other.serverNotifications.map(\.id) == told.map(\.id))
        try other.requestTestNotification()
        #expect(harness.store.serverNotifications.map(\.type) == [.subscribed, .didRenew, .test], "one log, one numbering, on the file")
        try harness.relaunch()
        #expect(harness.store.serverNotifications.map(\.type) == [.subscribed, .didRenew, .test], "kept across a relaunch")
        #expect(try harness.store.notificationVerifier().verify(told[0].signedPayload) == told[0], "the key is kept with the ledger")
    }

    @Test("a notification an earlier version wrote in layout 5 is read after the upgrade, with those written after it")
    func earlierLayout() async throws {
        let harness = try H(.file)
        try await harness.buy()
        let raw = try RecordStore(.file(harness.file), schema: StoreLedger.schema)
        try raw.write { records in
            let notice = try #require(try records.value(forKey: StoreLedger.key(1), in: StoreLedger.notifications))
            var writer = BinaryWriter(format: 5)
            StoreLedger.Notice.write(notice, to: &writer)
            try records.setData(writer.data, forKey: StoreLedger.key(1), in: StoreLedger.notifications)
        }
        raw.close()
        try harness.relaunch()
        try harness.store.requestTestNotification()
        #expect(harness.store.serverNotifications.map(\.type) == [.subscribed, .test])
    }

    /// The JSON object a JWS carries, unchecked.
    static func json(of token: String) throws -> [String: Any] {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64URL.decode(String(parts[1])),
            let object = try JSONSerialization.jsonObject(with: payload) as? [String: Any]
        else { throw SubscriptionError(.failedVerification) }
        return object
    }

    /// A JWS of `payload` under the header part `header`, signed with `key`.
    static func sign(header: String, payload: String, key: Data) throws -> String {
        let input = header + "." + Base64URL.encode(Data(payload.utf8))
        return input + "." + Base64URL.encode(try PlatformCrypto.hmacSHA256(key: key, message: Data(input.utf8)))
    }
}

extension SimulatedAppStore {
    /// The key the store signs with, for a test that signs a notification itself.
    func notificationKeyForTests() throws -> Data { state.withLock { $0.notificationKey } }
}
