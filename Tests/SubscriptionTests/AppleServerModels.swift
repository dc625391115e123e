import Foundation

/// App Store Server Notifications V2 as Apple's App Store Server Library
/// (apple/app-store-server-library-swift 6.0, `Sources/AppStoreServerLibrary/Models`)
/// declares them: the JSON keys of its `CodingKeys`, its types, and its enumerations'
/// raw values — written from Apple's models, not from TrainKit's encoder, so a test
/// decoding the simulated store's notifications with them checks what a server using
/// Apple's library would read. Dates are milliseconds since 1970, as Apple's decoder
/// reads them.
enum AppleServerModels {
    /// `ResponseBodyV2DecodedPayload`.
    struct ResponseBodyV2DecodedPayload: Decodable {
        var notificationType: NotificationTypeV2?
        var subtype: Subtype?
        var notificationUUID: String?
        var data: NotificationData?
        var version: String?
        var signedDate: Date?
        var summary: Summary?
        var externalPurchaseToken: ExternalPurchaseToken?
        var appData: AppData?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case notificationType, subtype, notificationUUID, data, version, signedDate, summary, externalPurchaseToken, appData
        }
    }

    /// `Data`: the notification's app, environment and signed payloads.
    struct NotificationData: Decodable {
        var environment: Environment?
        var appAppleId: Int64?
        var bundleId: String?
        var bundleVersion: String?
        var signedTransactionInfo: String?
        var signedRenewalInfo: String?
        var status: Status?
        var consumptionRequestReason: ConsumptionRequestReason?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case environment, appAppleId, bundleId, bundleVersion, signedTransactionInfo, signedRenewalInfo, status, consumptionRequestReason
        }
    }

    /// `Summary`, of a renewal-date extension for all subscribers; the simulated store sends none.
    struct Summary: Decodable {
        var requestIdentifier: String?
    }

    /// `AppData`, of a `RESCIND_CONSENT`; the simulated store sends none.
    struct AppData: Decodable {
        var appAppleId: Int64?
    }

    /// `ExternalPurchaseToken`, of the External Purchase API; the simulated store sends none.
    struct ExternalPurchaseToken: Decodable {
        var externalPurchaseId: String?
    }

    /// `JWSTransactionDecodedPayload`.
    struct JWSTransactionDecodedPayload: Decodable {
        var originalTransactionId: String?
        var transactionId: String?
        var webOrderLineItemId: String?
        var bundleId: String?
        var productId: String?
        var subscriptionGroupIdentifier: String?
        var purchaseDate: Date?
        var originalPurchaseDate: Date?
        var expiresDate: Date?
        var quantity: Int32?
        var type: ProductType?
        var appAccountToken: UUID?
        var inAppOwnershipType: InAppOwnershipType?
        var signedDate: Date?
        var revocationReason: RevocationReason?
        var revocationDate: Date?
        var isUpgraded: Bool?
        var offerType: OfferType?
        var offerIdentifier: String?
        var environment: Environment?
        var storefront: String?
        var storefrontId: String?
        var transactionReason: TransactionReason?
        var currency: String?
        var price: Int64?
        var offerDiscountType: OfferDiscountType?
        var appTransactionId: String?
        var offerPeriod: String?
        var revocationType: RevocationType?
        var revocationPercentage: Int32?
        var advancedCommerceInfo: AdvancedCommerce?
        var billingPlanType: String?
        var commitmentInfo: AdvancedCommerce?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case originalTransactionId, transactionId, webOrderLineItemId, bundleId, productId, subscriptionGroupIdentifier, purchaseDate
            case originalPurchaseDate, expiresDate, quantity, type, appAccountToken, inAppOwnershipType, signedDate, revocationReason
            case revocationDate, isUpgraded, offerType, offerIdentifier, environment, storefront, storefrontId, transactionReason, currency
            case price, offerDiscountType, appTransactionId, offerPeriod, revocationType, revocationPercentage, advancedCommerceInfo
            case billingPlanType, commitmentInfo
        }
    }

    /// The Advanced Commerce and commitment objects, for SKUs the simulated store does not sell.
    struct AdvancedCommerce: Decodable {
        var requestReferenceId: String?
    }

    /// `JWSRenewalInfoDecodedPayload`.
    struct JWSRenewalInfoDecodedPayload: Decodable {
        var expirationIntent: ExpirationIntent?
        var originalTransactionId: String?
        var autoRenewProductId: String?
        var productId: String?
        var autoRenewStatus: AutoRenewStatus?
        var isInBillingRetryPeriod: Bool?
        var priceIncreaseStatus: PriceIncreaseStatus?
        var gracePeriodExpiresDate: Date?
        var offerType: OfferType?
        var offerIdentifier: String?
        var signedDate: Date?
        var environment: Environment?
        var recentSubscriptionStartDate: Date?
        var renewalDate: Date?
        var currency: String?
        var renewalPrice: Int64?
        var offerDiscountType: OfferDiscountType?
        var eligibleWinBackOfferIds: [String]?
        var appAccountToken: UUID?
        var appTransactionId: String?
        var offerPeriod: String?
        var advancedCommerceInfo: AdvancedCommerce?
        var commitmentInfo: AdvancedCommerce?
        var renewalBillingPlanType: String?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case expirationIntent, originalTransactionId, autoRenewProductId, productId, autoRenewStatus, isInBillingRetryPeriod
            case priceIncreaseStatus, gracePeriodExpiresDate, offerType, offerIdentifier, signedDate, environment, recentSubscriptionStartDate
            case renewalDate, currency, renewalPrice, offerDiscountType, eligibleWinBackOfferIds, appAccountToken, appTransactionId, offerPeriod
            case advancedCommerceInfo, commitmentInfo, renewalBillingPlanType
        }
    }

    enum NotificationTypeV2: String, Decodable {
        case subscribed = "SUBSCRIBED"
        case didChangeRenewalPref = "DID_CHANGE_RENEWAL_PREF"
        case didChangeRenewalStatus = "DID_CHANGE_RENEWAL_STATUS"
        case offerRedeemed = "OFFER_REDEEMED"
        case didRenew = "DID_RENEW"
        case expired = "EXPIRED"
        case didFailToRenew = "DID_FAIL_TO_RENEW"
        case gracePeriodExpired = "GRACE_PERIOD_EXPIRED"
        case priceIncrease = "PRICE_INCREASE"
        case refund = "REFUND"
        case refundDeclined = "REFUND_DECLINED"
        case consumptionRequest = "CONSUMPTION_REQUEST"
        case renewalExtended = "RENEWAL_EXTENDED"
        case revoke = "REVOKE"
        case test = "TEST"
        case renewalExtension = "RENEWAL_EXTENSION"
        case refundReversed = "REFUND_REVERSED"
        case externalPurchaseToken = "EXTERNAL_PURCHASE_TOKEN"
        case oneTimeCharge = "ONE_TIME_CHARGE"
    }

    enum Subtype: String, Decodable {
        case initialBuy = "INITIAL_BUY"
        case resubscribe = "RESUBSCRIBE"
        case downgrade = "DOWNGRADE"
        case upgrade = "UPGRADE"
        case autoRenewEnabled = "AUTO_RENEW_ENABLED"
        case autoRenewDisabled = "AUTO_RENEW_DISABLED"
        case voluntary = "VOLUNTARY"
        case billingRetry = "BILLING_RETRY"
        case priceIncrease = "PRICE_INCREASE"
        case gracePeriod = "GRACE_PERIOD"
        case pending = "PENDING"
        case accepted = "ACCEPTED"
        case billingRecovery = "BILLING_RECOVERY"
        case productNotForSale = "PRODUCT_NOT_FOR_SALE"
        case summary = "SUMMARY"
        case failure = "FAILURE"
        case unreported = "UNREPORTED"
    }

    enum Environment: String, Decodable {
        case sandbox = "Sandbox"
        case production = "Production"
        case xcode = "Xcode"
        case localTesting = "LocalTesting"
    }

    enum Status: Int32, Decodable {
        case active = 1
        case expired
        case billingRetry
        case billingGracePeriod
        case revoked
    }

    enum ConsumptionRequestReason: String, Decodable {
        case unintendedPurchase = "UNINTENDED_PURCHASE"
        case fulfillmentIssue = "FULFILLMENT_ISSUE"
        case unsatisfiedWithPurchase = "UNSATISFIED_WITH_PURCHASE"
        case legal = "LEGAL"
        case other = "OTHER"
    }

    enum ProductType: String, Decodable {
        case autoRenewable = "Auto-Renewable Subscription"
        case nonConsumable = "Non-Consumable"
        case consumable = "Consumable"
        case nonRenewing = "Non-Renewing Subscription"
    }

    enum InAppOwnershipType: String, Decodable {
        case familyShared = "FAMILY_SHARED"
        case purchased = "PURCHASED"
    }

    enum RevocationReason: Int32, Decodable {
        case refundedForOtherReason = 0
        case refundedDueToIssue = 1
    }

    enum OfferType: Int32, Decodable {
        case introductoryOffer = 1
        case promotionalOffer
        case subscriptionOfferCode
        case winBackOffer
    }

    enum RevocationType: String, Decodable {
        case refundFull = "REFUND_FULL"
        case refundProrated = "REFUND_PRORATED"
        case familyRevoke = "FAMILY_REVOKE"
    }

    enum TransactionReason: String, Decodable {
        case purchase = "PURCHASE"
        case renewal = "RENEWAL"
    }

    enum OfferDiscountType: String, Decodable {
        case freeTrial = "FREE_TRIAL"
        case payAsYouGo = "PAY_AS_YOU_GO"
        case payUpFront = "PAY_UP_FRONT"
        case oneTime = "ONE_TIME"
    }

    enum ExpirationIntent: Int32, Decodable {
        case customerCancelled = 1
        case billingError
        case customerDidNotConsentToPriceIncrease
        case productNotAvailable
        case other
    }

    enum AutoRenewStatus: Int32, Decodable {
        case off = 0
        case on = 1
    }

    enum PriceIncreaseStatus: Int32, Decodable {
        case customerHasNotResponded = 0
        case customerConsentedOrWasNotifiedWithoutNeedingConsent = 1
    }

    /// Apple's decoder: dates in milliseconds since 1970.
    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return decoder
    }()

    /// The payload a JWS carries, decoded as `Model`, without checking its signature.
    static func decode<Model: Decodable>(_ model: Model.Type, from token: String) throws -> (model: Model, keys: Set<String>) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = base64URL(String(parts[1])) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not a JWS"))
        }
        let object = try JSONSerialization.jsonObject(with: payload) as? [String: Any] ?? [:]
        return (try decoder.decode(model, from: payload), Set(object.keys))
    }

    /// The keys of the JSON object under `key` of a JWS payload.
    static func keys(of key: String, in token: String) throws -> Set<String> {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = base64URL(String(parts[1])),
            let object = try JSONSerialization.jsonObject(with: payload) as? [String: Any], let inner = object[key] as? [String: Any]
        else { return [] }
        return Set(inner.keys)
    }

    private static func base64URL(_ text: String) -> Foundation.Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Foundation.Data(base64Encoded: base64)
    }
}
