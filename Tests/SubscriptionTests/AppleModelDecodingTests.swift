import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainSubscription

/// SUB-16: every notification the simulated store sends decodes with Apple's models,
/// uses only their keys, carries what Apple's carry and the store can know, and says
/// one environment throughout.
@Suite(.timeLimit(.minutes(1))) struct AppleModelDecodingTests {
    typealias Apple = AppleServerModels
    static let appAppleID: Int64 = 1_234_567_890

    static let products: [AppStoreProduct] = {
        var lifetime = AppStoreProduct.nonConsumable(id: "com.acme.lifetime", displayName: "Lifetime", tier: .pro, price: 99)
        lifetime.isFamilyShareable = true
        return [OfferRedemptionTests.pro, OfferRedemptionTests.premium, lifetime]
    }()

    /// A store in the sandbox for `com.acme.run`, and the notifications of a life that
    /// makes it send every type it sends.
    static func life(_ variant: StoreVariant, in directory: TemporaryDirectory) async throws -> (SimulatedAppStore, [StoreServerNotification]) {
        let clock = ManualClock()
        let storage: StorageLocation = variant == .file ? .file(directory.file("appstore.sqlite")) : .inMemory
        let app = try StoreApp(bundleID: "com.acme.run", appAppleID: appAppleID)
        let store = try SimulatedAppStore(
            storage: storage, context: TrainContext(clock: clock), configuration: AppStoreConfiguration(products: products, app: app))
        try store.setAppTransaction(
            AppTransactionInfo(
                bundleID: "com.acme.run", appVersion: "2.0", originalAppVersion: "1.0", originalPurchaseDate: clock.now, environment: .sandbox))
        try store.setTimeRate(.monthlyRenewal(every: .seconds(30)))
        let service = LocalSubscriptionService(
            store: store, context: store.context, configuration: SubscriptionConfiguration(appAccountToken: SubscriptionHarness.ada))
        let pro = OfferRedemptionTests.pro.id
        let premium = OfferRedemptionTests.premium.id
        try store.createFamily(organizer: store.appleID)
        try store.addToFamily(AppleID.test("child@example.com"), organizer: store.appleID)

        _ = try await service.purchase(pro)
        _ = try await service.purchase(pro, offer: .promotional(id: "comeback"))
        try store.setAutoRenew(false, productID: pro)
        try store.setAutoRenew(true, productID: pro)
        _ = try await service.purchase(premium)
        _ = try await service.purchase(pro)
        try store.requestPriceIncreaseConsent(productID: premium)
        try store.respondToPriceIncrease(agreed: true, productID: premium)
        clock.advance(by: .seconds(31))
        store.shouldEnterBillingRetryOnRenewal = true
        store.billingGracePeriodIsEnabled = true
        clock.advance(by: .seconds(31)) // a failed renewal: 16 s of grace
        clock.advance(by: .seconds(15)) // grace over, billing retry goes on
        try store.resolveBillingIssue(productID: pro)
        store.shouldEnterBillingRetryOnRenewal = false
        let latest = try #require(store.allTransactions.last?.unsafePayloadValue)
        try store.requestRefund(transactionID: latest.id, reason: .unintendedPurchase)
        try store.declineRefund(transactionID: latest.id)
        guard case .success(let lifetime) = try await service.purchase("com.acme.lifetime") else { throw SubscriptionError(.systemError) }
        try store.refund(transactionID: lifetime.unsafePayloadValue.id)
        try store.expireSubscription(productID: pro)
        try store.requestTestNotification()
        return (store, store.serverNotifications)
    }

    @Test(
        "every notification the store sends decodes with structs written from Apple's models, with only their keys and one environment throughout",
        arguments: StoreVariant.allCases)
    func everyNotificationDecodes(variant: StoreVariant) async throws {
        let directory = try TemporaryDirectory()
        let (_, notifications) = try await Self.life(variant, in: directory)
        let types = Set(notifications.map(\.type.rawValue))
        #expect(
            types == [
                "SUBSCRIBED", "OFFER_REDEEMED", "DID_CHANGE_RENEWAL_STATUS", "DID_CHANGE_RENEWAL_PREF", "PRICE_INCREASE", "DID_RENEW",
                "DID_FAIL_TO_RENEW", "GRACE_PERIOD_EXPIRED", "CONSUMPTION_REQUEST", "REFUND_DECLINED", "ONE_TIME_CHARGE", "REFUND", "REVOKE",
                "EXPIRED", "TEST",
            ], "every type the store sends: \(types.sorted())")
        let payloadKeys = Set(Apple.ResponseBodyV2DecodedPayload.CodingKeys.allCases.map(\.rawValue))
        let dataKeys = Set(Apple.NotificationData.CodingKeys.allCases.map(\.rawValue))
        let transactionKeys = Set(Apple.JWSTransactionDecodedPayload.CodingKeys.allCases.map(\.rawValue))
        let renewalKeys = Set(Apple.JWSRenewalInfoDecodedPayload.CodingKeys.allCases.map(\.rawValue))
        for notification in notifications {
            let (payload, keys) = try Apple.decode(Apple.ResponseBodyV2DecodedPayload.self, from: notification.signedPayload)
            let name = notification.type.rawValue
            #expect(keys.isSubset(of: payloadKeys), "\(name): \(keys.subtracting(payloadKeys))")
            #expect(try Apple.keys(of: "data", in: notification.signedPayload).isSubset(of: dataKeys), "\(name)")
            #expect(payload.version == "2.0" && payload.notificationUUID == notification.id.uuidString && payload.signedDate != nil)
            let data = try #require(payload.data)
            #expect(
                data.environment == .sandbox && data.bundleId == "com.acme.run" && data.appAppleId == nil, "\(name): no App Apple ID in the sandbox")
            if let signed = data.signedTransactionInfo {
                let (transaction, keys) = try Apple.decode(Apple.JWSTransactionDecodedPayload.self, from: signed)
                #expect(keys.isSubset(of: transactionKeys), "\(name): \(keys.subtracting(transactionKeys))")
                #expect(transaction.environment == .sandbox, "\(name): one environment throughout")
                #expect(transaction.bundleId == "com.acme.run" && transaction.storefront == "USA" && transaction.storefrontId == "143441")
                #expect(transaction.appTransactionId?.isEmpty == false && transaction.purchaseDate != nil && transaction.signedDate != nil)
                #expect((transaction.type == .autoRenewable) == (transaction.webOrderLineItemId != nil), "\(name)")
                #expect((transaction.offerType == nil) == (transaction.offerPeriod == nil), "\(name): an offer has its period")
                if name == "REFUND" { #expect(transaction.revocationType == .refundFull && transaction.revocationPercentage == 100_000) }
                if name == "REVOKE" { #expect(transaction.revocationType == .familyRevoke && transaction.inAppOwnershipType == .familyShared) }
                #expect((transaction.revocationDate == nil) == (transaction.revocationType == nil), "\(name)")
            }
            if let signed = data.signedRenewalInfo {
                let (renewal, keys) = try Apple.decode(Apple.JWSRenewalInfoDecodedPayload.self, from: signed)
                #expect(keys.isSubset(of: renewalKeys), "\(name): \(keys.subtracting(renewalKeys))")
                #expect(renewal.environment == .sandbox, "\(name): one environment throughout")
                #expect(renewal.renewalPrice != nil && renewal.currency == "USD" && renewal.recentSubscriptionStartDate != nil, "\(name)")
                #expect(renewal.appTransactionId?.isEmpty == false && renewal.autoRenewStatus != nil)
                #expect(data.status != nil, "\(name): renewal info comes with the status")
            }
        }
    }

    @Test("in billing grace and billing retry the renewal info says expirationIntent 2 beside isInBillingRetryPeriod; a recovery clears it")
    func billingIntent() async throws {
        let directory = try TemporaryDirectory()
        let (_, notifications) = try await Self.life(.inMemory, in: directory)
        func renewal(_ type: String, _ subtype: String?) throws -> Apple.JWSRenewalInfoDecodedPayload? {
            let notification = notifications.first { $0.type.rawValue == type && $0.subtype?.rawValue == subtype }
            let signed = try #require(
                try notification.flatMap {
                    try Apple.decode(Apple.ResponseBodyV2DecodedPayload.self, from: $0.signedPayload).model.data?.signedRenewalInfo
                })
            return try Apple.decode(Apple.JWSRenewalInfoDecodedPayload.self, from: signed).model
        }
        let grace = try renewal("DID_FAIL_TO_RENEW", "GRACE_PERIOD")
        #expect(grace?.expirationIntent == .billingError && grace?.isInBillingRetryPeriod == true && grace?.gracePeriodExpiresDate != nil)
        #expect(try renewal("GRACE_PERIOD_EXPIRED", nil)?.expirationIntent == .billingError)
        let recovered = try renewal("DID_RENEW", "BILLING_RECOVERY")
        #expect(recovered?.expirationIntent == nil && recovered?.isInBillingRetryPeriod == false)
    }

    @Test("an OFFER_REDEEMED's renewal info names the offer pending, its period and the price of the renewal at it")
    func pendingOfferInRenewalInfo() async throws {
        let directory = try TemporaryDirectory()
        let (_, notifications) = try await Self.life(.inMemory, in: directory)
        let redeemed = try #require(notifications.first { $0.type == .offerRedeemed })
        let data = try #require(try Apple.decode(Apple.ResponseBodyV2DecodedPayload.self, from: redeemed.signedPayload).model.data)
        let renewal = try Apple.decode(Apple.JWSRenewalInfoDecodedPayload.self, from: try #require(data.signedRenewalInfo)).model
        #expect(renewal.offerType == .promotionalOffer && renewal.offerIdentifier == "comeback" && renewal.offerPeriod == "P3M")
        #expect(renewal.offerDiscountType == .payUpFront && renewal.renewalPrice == 9_990 && redeemed.subtype == nil)
    }

    @Test("a bundle ID or App Apple ID that is empty or malformed, or production without an App Apple ID, is invalidArgument and changes nothing")
    func badApps() throws {
        for bundleID in ["", "com..acme", ".acme", "com.acme.", "com.acme/run", "com.acme.rün", String(repeating: "a", count: 156)] {
            #expect(throws: SubscriptionError(.invalidArgument), "\(bundleID.debugDescription)") { _ = try StoreApp(bundleID: bundleID) }
        }
        for appleID: Int64 in [0, -1] {
            #expect(throws: SubscriptionError(.invalidArgument)) { _ = try StoreApp(bundleID: "com.acme.run", appAppleID: appleID) }
        }
        let store = SimulatedAppStore(context: TrainContext(clock: ManualClock()))
        let before = store.appTransaction
        var production = before.unsafePayloadValue
        production.environment = .production
        #expect(throws: SubscriptionError(.invalidArgument), "an app in production has an App Apple ID") { try store.setAppTransaction(production) }
        production.environment = .sandbox
        production.bundleID = "not a bundle id"
        #expect(throws: SubscriptionError(.invalidArgument)) { try store.setAppTransaction(production) }
        #expect(store.appTransaction == before, "nothing changed")
    }

    @Test("a verifier for production refuses a notification without the app's App Apple ID, or of another environment")
    func productionVerifier() async throws {
        let clock = ManualClock()
        let unnamed = SimulatedAppStore(context: TrainContext(clock: clock))
        try unnamed.requestTestNotification()
        let test = try #require(unnamed.serverNotifications.last)
        #expect(throws: SubscriptionError(.failedVerification)) {
            try unnamed.notificationVerifier(environment: .production).verify(test.signedPayload)
        }
        #expect(try unnamed.notificationVerifier().verify(test.signedPayload) == test)

        let app = try StoreApp(bundleID: "com.example.train", appAppleID: Self.appAppleID)
        let named = SimulatedAppStore(context: TrainContext(clock: clock), configuration: AppStoreConfiguration(app: app))
        var info = named.appTransaction.unsafePayloadValue
        info.environment = .production
        try named.setAppTransaction(info)
        try named.requestTestNotification()
        let production = try #require(named.serverNotifications.last)
        #expect(production.environment == .production && production.appAppleID == Self.appAppleID)
        #expect(try named.notificationVerifier(environment: .production).verify(production.signedPayload) == production)
        #expect(throws: SubscriptionError(.failedVerification)) {
            try named.notificationVerifier(environment: .sandbox).verify(production.signedPayload)
        }
        let other = StoreNotificationVerifier(key: try named.notificationKeyForTests(), bundleID: "com.example.train", appAppleID: 42)
        #expect(throws: SubscriptionError(.failedVerification), "another App Apple ID") { try other.verify(production.signedPayload) }
    }
}
