import Foundation
import TrainCore

/// What happened, in an App Store Server Notification (V2): the `notificationType`. The
/// set is open, as Apple's grows; the simulated store sends the ones its controls make.
public struct StoreNotificationType: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    /// Apple's name, such as `DID_RENEW`.
    public let rawValue: String

    /// Creates a type from Apple's name.
    /// - Parameter rawValue: The name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A subscription began: a first purchase (``StoreNotificationSubtype/initialBuy``) or a
    /// resubscription (``StoreNotificationSubtype/resubscribe``), an offer's included.
    public static let subscribed = Self(rawValue: "SUBSCRIBED")
    /// What renews changed: an upgrade (at once), a downgrade (at the next renewal), or,
    /// with no subtype, a pending downgrade cancelled.
    public static let didChangeRenewalPref = Self(rawValue: "DID_CHANGE_RENEWAL_PREF")
    /// Auto-renew was turned off or on.
    public static let didChangeRenewalStatus = Self(rawValue: "DID_CHANGE_RENEWAL_STATUS")
    /// A promotional offer or offer code was redeemed on an active subscription.
    public static let offerRedeemed = Self(rawValue: "OFFER_REDEEMED")
    /// The subscription renewed; ``StoreNotificationSubtype/billingRecovery`` after a billing issue.
    public static let didRenew = Self(rawValue: "DID_RENEW")
    /// The subscription lapsed; the subtype says why.
    public static let expired = Self(rawValue: "EXPIRED")
    /// A renewal failed to bill: billing retry, or ``StoreNotificationSubtype/gracePeriod``.
    public static let didFailToRenew = Self(rawValue: "DID_FAIL_TO_RENEW")
    /// The billing grace period ended and billing retry goes on.
    public static let gracePeriodExpired = Self(rawValue: "GRACE_PERIOD_EXPIRED")
    /// A price increase is pending the subscriber's consent, or was accepted.
    public static let priceIncrease = Self(rawValue: "PRICE_INCREASE")
    /// The App Store refunded a transaction.
    public static let refund = Self(rawValue: "REFUND")
    /// The App Store declined a refund the customer asked for.
    public static let refundDeclined = Self(rawValue: "REFUND_DECLINED")
    /// The App Store reversed a refund.
    public static let refundReversed = Self(rawValue: "REFUND_REVERSED")
    /// A customer asked for a refund of a consumable or a subscription; the App Store
    /// asks the app's server for consumption information.
    public static let consumptionRequest = Self(rawValue: "CONSUMPTION_REQUEST")
    /// A purchase the customer had through Family Sharing is no longer shared with them.
    public static let revoke = Self(rawValue: "REVOKE")
    /// A non-consumable, consumable or non-renewing subscription was bought.
    public static let oneTimeCharge = Self(rawValue: "ONE_TIME_CHARGE")
    /// The App Store extended a subscription's renewal date.
    public static let renewalExtended = Self(rawValue: "RENEWAL_EXTENDED")
    /// A test notification, asked for by the app's server.
    public static let test = Self(rawValue: "TEST")

    /// Apple's name.
    public var description: String { rawValue }
}

/// The detail of an App Store Server Notification (V2): the `subtype`. The set is open.
public struct StoreNotificationSubtype: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    /// Apple's name, such as `GRACE_PERIOD`.
    public let rawValue: String

    /// Creates a subtype from Apple's name.
    /// - Parameter rawValue: The name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A first subscription in the group.
    public static let initialBuy = Self(rawValue: "INITIAL_BUY")
    /// A subscription in a group the Apple ID subscribed in before.
    public static let resubscribe = Self(rawValue: "RESUBSCRIBE")
    /// A downgrade, or a crossgrade to another period: at the next renewal.
    public static let downgrade = Self(rawValue: "DOWNGRADE")
    /// An upgrade, or a crossgrade to the same period: at once.
    public static let upgrade = Self(rawValue: "UPGRADE")
    /// Auto-renew turned on.
    public static let autoRenewEnabled = Self(rawValue: "AUTO_RENEW_ENABLED")
    /// Auto-renew turned off.
    public static let autoRenewDisabled = Self(rawValue: "AUTO_RENEW_DISABLED")
    /// Lapsed because the subscriber turned auto-renew off.
    public static let voluntary = Self(rawValue: "VOLUNTARY")
    /// Lapsed because billing retry ended without recovering.
    public static let billingRetry = Self(rawValue: "BILLING_RETRY")
    /// Lapsed because the subscriber did not consent to a price increase.
    public static let priceIncrease = Self(rawValue: "PRICE_INCREASE")
    /// A failed renewal entered the billing grace period.
    public static let gracePeriod = Self(rawValue: "GRACE_PERIOD")
    /// A price increase waits for consent.
    public static let pending = Self(rawValue: "PENDING")
    /// A price increase was accepted.
    public static let accepted = Self(rawValue: "ACCEPTED")
    /// A renewal that billed after a billing issue.
    public static let billingRecovery = Self(rawValue: "BILLING_RECOVERY")
    /// Lapsed because the product was no longer for sale.
    public static let productNotForSale = Self(rawValue: "PRODUCT_NOT_FOR_SALE")

    /// Apple's name.
    public var description: String { rawValue }
}

/// Why a customer asked for a refund, as a `CONSUMPTION_REQUEST` notification tells the
/// app's server. The set is open.
public struct RefundRequestReason: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    /// Apple's name, such as `UNINTENDED_PURCHASE`.
    public let rawValue: String

    /// Creates a reason from Apple's name.
    /// - Parameter rawValue: The name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The customer did not mean to buy it.
    public static let unintendedPurchase = Self(rawValue: "UNINTENDED_PURCHASE")
    /// The customer did not receive what they bought.
    public static let fulfillmentIssue = Self(rawValue: "FULFILLMENT_ISSUE")
    /// The customer was not satisfied with what they bought.
    public static let unsatisfiedWithPurchase = Self(rawValue: "UNSATISFIED_WITH_PURCHASE")
    /// A legal reason.
    public static let legal = Self(rawValue: "LEGAL")
    /// Another reason.
    public static let other = Self(rawValue: "OTHER")

    /// Apple's name.
    public var description: String { rawValue }
}

/// An App Store Server Notification (V2) as the app's server reads it once verified:
/// what happened, to which transaction, and the subscription's state and renewal info
/// at that moment. ``signedPayload`` is what the App Store posts, as
/// `{"signedPayload": "…"}`: a JWS whose payload has Apple's field names
/// (`notificationType`, `subtype`, `notificationUUID`, `data.signedTransactionInfo`,
/// `data.signedRenewalInfo`, `data.status`, …), the transaction and renewal info each
/// a JWS of its own, dates in milliseconds since 1970.
///
/// ```swift
/// let verifier = store.notificationVerifier()
/// for await posted in store.serverNotificationUpdates() {
///     let notification = try verifier.verify(posted.signedPayload)   // what the server does
///     if notification.type == .refund { revokeAccess(notification.transaction) }
/// }
/// ```
public struct StoreServerNotification: Hashable, Sendable, Identifiable {
    /// The notification's identifier (`notificationUUID`).
    public var id: UUID
    /// What happened.
    public var type: StoreNotificationType
    /// The detail, if the type has one.
    public var subtype: StoreNotificationSubtype?
    /// When the App Store signed it: when the change happened.
    public var signedDate: Date
    /// The app's bundle identifier.
    public var bundleID: String
    /// The app's App Apple ID (`appAppleId`), in production.
    public var appAppleID: Int64?
    /// The app's version.
    public var bundleVersion: String
    /// Where it happened.
    public var environment: StoreEnvironment
    /// The state of the subscription afterwards; nil for a product that is not an
    /// auto-renewable subscription and for a test notification.
    public var status: RenewalState?
    /// The transaction it is about, as signed then; nil for a test notification.
    public var transaction: AppStoreTransaction?
    /// The subscription's renewal info afterwards; nil where ``status`` is.
    public var renewalInfo: RenewalInfo?
    /// Why the customer asked for a refund, in a `CONSUMPTION_REQUEST`.
    public var consumptionRequestReason: RefundRequestReason?
    /// The signed notification the App Store posts, which ``StoreNotificationVerifier`` checks.
    public var signedPayload: String

    /// Creates a notification.
    /// - Parameters:
    ///   - id: The identifier.
    ///   - type: What happened.
    ///   - subtype: The detail.
    ///   - signedDate: When.
    ///   - bundleID: The app's bundle identifier.
    ///   - bundleVersion: The app's version.
    ///   - environment: Where.
    ///   - status: The subscription's state.
    ///   - transaction: The transaction.
    ///   - renewalInfo: The renewal info.
    ///   - consumptionRequestReason: The refund request's reason.
    ///   - signedPayload: The signed notification.
    ///   - appAppleID: The app's App Apple ID.
    public init(
        id: UUID, type: StoreNotificationType, subtype: StoreNotificationSubtype? = nil, signedDate: Date, bundleID: String,
        bundleVersion: String, environment: StoreEnvironment = .simulated, status: RenewalState? = nil, transaction: AppStoreTransaction? = nil,
        renewalInfo: RenewalInfo? = nil, consumptionRequestReason: RefundRequestReason? = nil, signedPayload: String = "",
        appAppleID: Int64? = nil
    ) {
        self.id = id
        self.type = type
        self.subtype = subtype
        self.signedDate = signedDate
        self.bundleID = bundleID
        self.appAppleID = appAppleID
        self.bundleVersion = bundleVersion
        self.environment = environment
        self.status = status
        self.transaction = transaction
        self.renewalInfo = renewalInfo
        self.consumptionRequestReason = consumptionRequestReason
        self.signedPayload = signedPayload
    }
}

/// Checks a signed App Store Server Notification of the simulated store, as an app's
/// server checks Apple's: the signature of the notification and of the transaction
/// and renewal info inside it, and the app it is for.
///
/// The simulated store signs with HS256 (HMAC-SHA256, the platform's crypto), so the
/// verifier holds the store's key (``SimulatedAppStore/notificationVerifier(environment:)``); Apple
/// signs with ES256 and a certificate chain, which Apple's App Store Server Library checks.
/// Like Apple's `SignedDataVerifier`, it is made for one app in one environment: a
/// notification of another environment is refused, and in production one without the
/// app's App Apple ID.
public struct StoreNotificationVerifier: Sendable {
    private let key: Data
    private let bundleID: String
    private let appAppleID: Int64?
    private let environment: StoreEnvironment?

    /// Creates a verifier.
    /// - Parameters:
    ///   - key: The key the store signs with.
    ///   - bundleID: The app whose notifications to accept.
    ///   - appAppleID: The app's App Apple ID, which a production notification must name;
    ///     a notification that names another is refused in any environment.
    ///   - environment: The one environment to accept; nil for any.
    public init(key: Data, bundleID: String, appAppleID: Int64? = nil, environment: StoreEnvironment? = nil) {
        self.key = key
        self.bundleID = bundleID
        self.appAppleID = appAppleID
        self.environment = environment
    }

    /// Verifies a signed notification and reads it.
    /// - Parameter signedPayload: The `signedPayload` the App Store posted.
    /// - Returns: The notification.
    /// - Throws: ``TrainCore/TrainErrorCode/failedVerification`` for a notification, a
    ///   transaction or renewal info that is not a JWS signed with the key, is not the
    ///   payload of a notification, is for another app, or is of another environment than
    ///   the verifier's or than the notification's; a production notification without the
    ///   verifier's App Apple ID, or one naming another.
    public func verify(_ signedPayload: String) throws(SubscriptionError) -> StoreServerNotification {
        let payload: NotificationJSON.Payload = try decode(signedPayload, "notification")
        var notification = try payload.notification(signedPayload: signedPayload)
        guard notification.bundleID == bundleID else {
            throw SubscriptionError(.failedVerification, detail: "The notification is for '\(notification.bundleID)', not '\(bundleID)'.")
        }
        try checkApp(of: notification)
        let environmentName = payload.data?.environment
        if let signed = payload.data?.signedTransactionInfo {
            let transaction: NotificationJSON.Transaction = try decode(signed, "transaction")
            guard transaction.bundleId == bundleID else {
                throw SubscriptionError(.failedVerification, detail: "The transaction is of another app.")
            }
            guard transaction.environment == environmentName else {
                throw SubscriptionError(.failedVerification, detail: "The transaction is of another environment than its notification.")
            }
            notification.transaction = try transaction.transaction()
        }
        if let signed = payload.data?.signedRenewalInfo {
            let renewal: NotificationJSON.Renewal = try decode(signed, "renewal info")
            guard renewal.environment == environmentName else {
                throw SubscriptionError(.failedVerification, detail: "The renewal info is of another environment than its notification.")
            }
            notification.renewalInfo = try renewal.renewalInfo()
        }
        return notification
    }

    /// Throws unless `notification` is of the verifier's environment and, where it must
    /// or does name one, of its App Apple ID.
    private func checkApp(of notification: StoreServerNotification) throws(SubscriptionError) {
        if let environment, notification.environment != environment {
            throw SubscriptionError(.failedVerification, detail: "The notification is of \(notification.environment), not \(environment).")
        }
        if notification.environment == .production, notification.appAppleID == nil || notification.appAppleID != appAppleID {
            throw SubscriptionError(.failedVerification, detail: "A production notification names the app's App Apple ID.")
        }
        if let named = notification.appAppleID, let appAppleID, named != appAppleID {
            throw SubscriptionError(.failedVerification, detail: "The notification is for the App Apple ID \(named), not \(appAppleID).")
        }
    }

    private func decode<Value: Decodable>(_ token: String, _ what: String) throws(SubscriptionError) -> Value {
        let payload: Data
        do {
            payload = try CompactJWS.verifiedPayload(of: token, key: key)
        } catch {
            throw SubscriptionError(.failedVerification, detail: "The \(what) does not verify: \(error.detail)")
        }
        do {
            return try JSONDecoder().decode(Value.self, from: payload)
        } catch {
            throw SubscriptionError(.failedVerification, detail: "The \(what)'s payload is not what the App Store signs.")
        }
    }
}
