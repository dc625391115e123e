import Foundation
import TrainCore

/// The JSON of App Store Server Notifications V2, with Apple's field names and
/// encodings: IDs as strings, dates as milliseconds since 1970, prices in milliunits,
/// enumerations as Apple's numbers and names. What the simulated store signs, and what
/// ``StoreNotificationVerifier`` reads back.
enum NotificationJSON {
    /// `responseBodyV2DecodedPayload`.
    struct Payload: Codable {
        var notificationType: String
        var subtype: String?
        var notificationUUID: String
        var data: Body?
        var version = "2.0"
        var signedDate: Int64

        /// The notification this payload says, without its transaction and renewal info.
        func notification(signedPayload: String) throws(SubscriptionError) -> StoreServerNotification {
            guard let id = UUID(uuidString: notificationUUID), let data else {
                throw SubscriptionError(.failedVerification, detail: "The notification has no identifier or no data.")
            }
            return StoreServerNotification(
                id: id, type: StoreNotificationType(rawValue: notificationType), subtype: subtype.map(StoreNotificationSubtype.init(rawValue:)),
                signedDate: NotificationJSON.date(signedDate), bundleID: data.bundleId, bundleVersion: data.bundleVersion,
                environment: NotificationJSON.environment(data.environment), status: data.status.flatMap(NotificationJSON.state(status:)),
                consumptionRequestReason: data.consumptionRequestReason.map(RefundRequestReason.init(rawValue:)), signedPayload: signedPayload,
                appAppleID: data.appAppleId)
        }
    }

    /// The payload's `data`.
    struct Body: Codable {
        var appAppleId: Int64?
        var bundleId: String
        var bundleVersion: String
        var environment: String
        var signedTransactionInfo: String?
        var signedRenewalInfo: String?
        var status: Int?
        var consumptionRequestReason: String?
    }

    /// `JWSTransactionDecodedPayload`.
    struct Transaction: Codable {
        var transactionId: String
        var originalTransactionId: String
        var bundleId: String
        var productId: String
        var subscriptionGroupIdentifier: String?
        var purchaseDate: Int64
        var originalPurchaseDate: Int64
        var expiresDate: Int64?
        var quantity: Int
        var type: String
        var appAccountToken: String?
        var inAppOwnershipType: String
        var signedDate: Int64
        var revocationReason: Int?
        var revocationDate: Int64?
        var revocationType: String?
        var revocationPercentage: Int?
        var isUpgraded: Bool?
        var offerType: Int?
        var offerIdentifier: String?
        var offerDiscountType: String?
        var environment: String
        var transactionReason: String
        var storefront: String?
        var storefrontId: String?
        var price: Int64?
        var currency: String?
        var webOrderLineItemId: String?
        var appTransactionId: String
        var offerPeriod: String?

        /// `transaction` of `owner`, whose offer, if any, lasts `offerPeriod`.
        init(_ transaction: AppStoreTransaction, owner: AppleID, offerPeriod: BillingPeriod?, bundleID: String, signedDate: Date) {
            transactionId = String(transaction.id)
            originalTransactionId = String(transaction.originalID)
            bundleId = bundleID
            productId = transaction.productID
            subscriptionGroupIdentifier = transaction.subscriptionGroupID
            purchaseDate = NotificationJSON.milliseconds(transaction.purchaseDate)
            originalPurchaseDate = NotificationJSON.milliseconds(transaction.originalPurchaseDate)
            expiresDate = transaction.expirationDate.map(NotificationJSON.milliseconds)
            quantity = transaction.purchasedQuantity
            type = NotificationJSON.productTypes[transaction.productType] ?? ""
            appAccountToken = transaction.appAccountToken?.uuidString.lowercased()
            inAppOwnershipType = transaction.ownershipType == .familyShared ? "FAMILY_SHARED" : "PURCHASED"
            self.signedDate = NotificationJSON.milliseconds(signedDate)
            revocationReason = transaction.revocationReason.map { $0 == .developerIssue ? 1 : 0 }
            revocationDate = transaction.revocationDate.map(NotificationJSON.milliseconds)
            if transaction.revocationDate != nil {
                // A purchase is refunded whole; a family member's share is revoked with it.
                let shared = transaction.ownershipType == .familyShared
                (revocationType, revocationPercentage) = shared ? ("FAMILY_REVOKE", nil) : ("REFUND_FULL", 100_000)
            }
            isUpgraded = transaction.isUpgraded ? true : nil
            (offerType, offerIdentifier, offerDiscountType) = NotificationJSON.fields(of: transaction.offer)
            environment = NotificationJSON.environments[transaction.environment] ?? "LocalTesting"
            transactionReason = transaction.reason == .renewal ? "RENEWAL" : "PURCHASE"
            storefront = transaction.storefrontCountryCode
            storefrontId = transaction.storefrontCountryCode.flatMap(StoreStorefront.appStoreID(countryCode:))
            price = transaction.price.map(NotificationJSON.milliunits)
            currency = transaction.currency
            // One per purchase event of a subscription, renewals included: the transaction's own number.
            webOrderLineItemId = transaction.productType == .autoRenewable ? String(transaction.id) : nil
            appTransactionId = NotificationJSON.appTransactionID(bundleID: bundleID, owner: owner)
            self.offerPeriod = transaction.offer == nil ? nil : offerPeriod?.iso8601
        }

        /// The transaction this payload says.
        func transaction() throws(SubscriptionError) -> AppStoreTransaction {
            guard let id = UInt64(transactionId), let originalID = UInt64(originalTransactionId),
                let productType = NotificationJSON.productTypes.first(where: { $0.value == type })?.key, quantity >= 1
            else {
                throw SubscriptionError(.failedVerification, detail: "The signed transaction is not one the App Store writes.")
            }
            let offer = NotificationJSON.offer(type: offerType, id: offerIdentifier, discount: offerDiscountType)
            return AppStoreTransaction(
                id: id, originalID: originalID, productID: productId, productType: productType, subscriptionGroupID: subscriptionGroupIdentifier,
                purchaseDate: NotificationJSON.date(purchaseDate), expirationDate: expiresDate.map(NotificationJSON.date),
                revocationDate: revocationDate.map(NotificationJSON.date),
                revocationReason: revocationReason.map { $0 == 1 ? .developerIssue : .other }, isUpgraded: isUpgraded ?? false,
                ownershipType: inAppOwnershipType == "FAMILY_SHARED" ? .familyShared : .purchased,
                appAccountToken: appAccountToken.flatMap(UUID.init(uuidString:)), environment: NotificationJSON.environment(environment),
                purchasedQuantity: quantity, offer: offer, price: price.map { Decimal($0) / 1000 }, currency: currency,
                reason: transactionReason == "RENEWAL" ? .renewal : .purchase, originalPurchaseDate: NotificationJSON.date(originalPurchaseDate),
                storefrontCountryCode: storefront)
        }
    }

    /// `JWSRenewalInfoDecodedPayload`.
    struct Renewal: Codable {
        var originalTransactionId: String
        var productId: String
        var autoRenewProductId: String?
        var autoRenewStatus: Int
        var expirationIntent: Int?
        var gracePeriodExpiresDate: Int64?
        var isInBillingRetryPeriod: Bool?
        var priceIncreaseStatus: Int?
        var offerType: Int?
        var offerIdentifier: String?
        var offerDiscountType: String?
        var eligibleWinBackOfferIds: [String]?
        var renewalDate: Int64?
        var signedDate: Int64
        var environment: String
        var recentSubscriptionStartDate: Int64?
        var renewalPrice: Int64?
        var currency: String?
        var appAccountToken: String?
        var appTransactionId: String
        var offerPeriod: String?

        /// The renewal info of a subscription of `owner`, tagged `appAccountToken`, whose
        /// next renewal's offer, if any, lasts `offerPeriod`.
        init(
            _ info: RenewalInfo, owner: AppleID, appAccountToken: UUID?, offerPeriod: BillingPeriod?, bundleID: String, renewalDate: Date?,
            environment: StoreEnvironment, signedDate: Date
        ) {
            originalTransactionId = String(info.originalTransactionID)
            productId = info.currentProductID
            autoRenewProductId = info.autoRenewPreference
            autoRenewStatus = info.willAutoRenew ? 1 : 0
            expirationIntent = info.expirationReason.flatMap { NotificationJSON.intents[$0] }
            gracePeriodExpiresDate = info.gracePeriodExpirationDate.map(NotificationJSON.milliseconds)
            isInBillingRetryPeriod = info.isInBillingRetry
            priceIncreaseStatus =
                switch info.priceIncreaseStatus {
                case .noIncreasePending: nil
                case .pending: 0
                case .agreed: 1
                }
            (offerType, offerIdentifier, offerDiscountType) = NotificationJSON.fields(of: info.offer)
            eligibleWinBackOfferIds = info.eligibleWinBackOfferIDs.isEmpty ? nil : info.eligibleWinBackOfferIDs
            self.renewalDate = renewalDate.map(NotificationJSON.milliseconds)
            self.signedDate = NotificationJSON.milliseconds(signedDate)
            self.environment = NotificationJSON.environments[environment] ?? "LocalTesting"
            recentSubscriptionStartDate = info.recentSubscriptionStartDate.map(NotificationJSON.milliseconds)
            renewalPrice = info.renewalPrice.map(NotificationJSON.milliunits)
            currency = info.renewalPrice == nil ? nil : info.currency
            self.appAccountToken = appAccountToken?.uuidString.lowercased()
            appTransactionId = NotificationJSON.appTransactionID(bundleID: bundleID, owner: owner)
            self.offerPeriod = info.offer == nil ? nil : offerPeriod?.iso8601
        }

        /// The renewal info this payload says.
        func renewalInfo() throws(SubscriptionError) -> RenewalInfo {
            guard let original = UInt64(originalTransactionId) else {
                throw SubscriptionError(.failedVerification, detail: "The signed renewal info is not one the App Store writes.")
            }
            let offer = NotificationJSON.offer(type: offerType, id: offerIdentifier, discount: offerDiscountType)
            return RenewalInfo(
                originalTransactionID: original, currentProductID: productId, willAutoRenew: autoRenewStatus == 1,
                autoRenewPreference: autoRenewProductId,
                expirationReason: expirationIntent.flatMap { number in NotificationJSON.intents.first { $0.value == number }?.key },
                gracePeriodExpirationDate: gracePeriodExpiresDate.map(NotificationJSON.date), isInBillingRetry: isInBillingRetryPeriod ?? false,
                priceIncreaseStatus: priceIncreaseStatus.map { $0 == 1 ? .agreed : .pending } ?? .noIncreasePending, offer: offer,
                eligibleWinBackOfferIDs: eligibleWinBackOfferIds ?? [],
                recentSubscriptionStartDate: recentSubscriptionStartDate.map(NotificationJSON.date),
                renewalPrice: renewalPrice.map { Decimal($0) / 1000 }, currency: currency)
        }
    }

    static let productTypes: [StoreProductType: String] = [
        .autoRenewable: "Auto-Renewable Subscription", .nonRenewable: "Non-Renewing Subscription", .nonConsumable: "Non-Consumable",
        .consumable: "Consumable",
    ]
    static let offerTypes: [SubscriptionOffer.OfferType: Int] = [.introductory: 1, .promotional: 2, .code: 3, .winBack: 4]
    static let discountTypes: [SubscriptionOffer.PaymentMode: String] = [
        .freeTrial: "FREE_TRIAL", .payAsYouGo: "PAY_AS_YOU_GO", .payUpFront: "PAY_UP_FRONT",
    ]
    static let environments: [StoreEnvironment: String] = [
        .production: "Production", .sandbox: "Sandbox", .xcode: "Xcode", .simulated: "LocalTesting",
    ]
    /// `expirationIntent`: 1 the customer cancelled, 2 a billing error, 3 no consent to a
    /// price increase, 4 the product unavailable, 5 another reason.
    static let intents: [ExpirationReason: Int] = [
        .autoRenewDisabled: 1, .billingError: 2, .didNotConsentToPriceIncrease: 3, .productUnavailable: 4, .unknown: 5,
    ]

    /// An offer's `offerType`, `offerIdentifier` and `offerDiscountType`.
    static func fields(of offer: TransactionOffer?) -> (type: Int?, id: String?, discount: String?) {
        (offer.flatMap { offerTypes[$0.type] }, offer?.id, offer.flatMap { discountTypes[$0.paymentMode] })
    }

    /// The offer those fields name, if they name one.
    static func offer(type: Int?, id: String?, discount: String?) -> TransactionOffer? {
        guard let type = offerTypes.first(where: { $0.value == type })?.key,
            let mode = discountTypes.first(where: { $0.value == discount })?.key
        else { return nil }
        return TransactionOffer(type: type, id: id, paymentMode: mode)
    }

    /// `status`: 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked.
    static func status(_ state: RenewalState) -> Int {
        switch state {
        case .subscribed: 1
        case .expired: 2
        case .inBillingRetryPeriod: 3
        case .inGracePeriod: 4
        case .revoked: 5
        }
    }

    static func state(status: Int) -> RenewalState? {
        [RenewalState.subscribed, .expired, .inBillingRetryPeriod, .inGracePeriod, .revoked].first { Self.status($0) == status }
    }

    static func environment(_ name: String) -> StoreEnvironment {
        environments.first { $0.value == name }?.key ?? .simulated
    }

    /// The `appTransactionId` of the app on `owner`'s Apple ID: Apple gives each Apple ID
    /// that downloads the app one, the same in every transaction; the store derives it
    /// from the bundle ID and the Apple ID (their FNV-1a hash, as a positive decimal), so
    /// it is the same on every device and launch.
    static func appTransactionID(bundleID: String, owner: AppleID) -> String {
        String(stableHash("\(bundleID)\u{0}\(owner.email)") >> 1)
    }

    /// `date` in whole milliseconds since 1970, as Apple writes dates.
    static func milliseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        return value.isFinite ? Int64(max(min(value, 9.2e18), -9.2e18)) : 0
    }

    /// The date `milliseconds` since 1970 names.
    static func date(_ milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// `price` in thousandths, as Apple writes prices.
    static func milliunits(_ price: Decimal) -> Int64 {
        NSDecimalNumber(decimal: price * 1000).int64Value
    }
}
