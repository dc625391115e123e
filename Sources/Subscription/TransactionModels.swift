import Foundation

/// Why the App Store revoked a transaction.
public enum TransactionRevocationReason: String, Codable, Hashable, Sendable {
    /// Refunded because of an issue in the app.
    case developerIssue
    /// Refunded or revoked for another reason.
    case other
}

/// How the user owns a transaction.
public enum OwnershipType: String, Codable, Hashable, Sendable {
    /// Bought by the user.
    case purchased
    /// Shared by a family member.
    case familyShared
}

/// Where a transaction was made.
public enum StoreEnvironment: String, Codable, Hashable, Sendable {
    /// The App Store.
    case production
    /// Apple's sandbox.
    case sandbox
    /// Xcode's StoreKit testing.
    case xcode
    /// TrainKit's simulated App Store.
    case simulated
}

/// A transaction — a subscription period, a non-renewing subscription, a
/// non-consumable or a consumable bought — with the fields of StoreKit 2's
/// `Transaction` that entitlement depends on.
public struct AppStoreTransaction: Codable, Hashable, Sendable, Identifiable {
    /// The transaction's unique identifier.
    public var id: UInt64
    /// The identifier of the subscription's first transaction; renewals share it.
    public var originalID: UInt64
    /// The product bought.
    public var productID: String
    /// What kind of product it is.
    public var productType: StoreProductType
    /// The subscription group of an auto-renewable subscription; nil for other products.
    public var subscriptionGroupID: String?
    /// When the App Store charged for it (for a subscription, for this period).
    public var purchaseDate: Date
    /// When this period of an auto-renewable subscription ends; nil for other products,
    /// as in StoreKit (a non-renewing subscription's end is the app's to count).
    public var expirationDate: Date?
    /// How many were bought: more than 1 only for a consumable.
    public var purchasedQuantity: Int
    /// The offer it was bought with, if any.
    public var offer: TransactionOffer?
    /// What was paid for it: the offer's price during an offer, 0 in a free trial.
    public var price: Decimal?
    /// The ISO 4217 code of the currency paid in, such as `USD`.
    public var currency: String?
    /// Why it was made: a purchase, or a renewal.
    public var reason: TransactionReason
    /// When the subscription's first transaction was bought; the purchase date for
    /// anything else.
    public var originalPurchaseDate: Date
    /// The country code of the storefront it was bought in, such as `USA`.
    public var storefrontCountryCode: String?

    /// Whether it pays for a free trial, an introductory discount, or a normal period.
    public var periodType: SubscriptionPeriodType {
        guard let offer, offer.type == .introductory else { return .normal }
        return offer.paymentMode == .freeTrial ? .trial : .intro
    }
    /// When the App Store refunded or revoked it, if it did.
    public var revocationDate: Date?
    /// Why it was revoked.
    public var revocationReason: TransactionRevocationReason?
    /// Whether a higher-level subscription in the group replaced it.
    public var isUpgraded: Bool
    /// How the user owns it.
    public var ownershipType: OwnershipType
    /// The app user who bought it.
    public var appAccountToken: UUID?
    /// Where it was made.
    public var environment: StoreEnvironment

    /// Creates a transaction.
    /// - Parameters:
    ///   - id: The identifier.
    ///   - originalID: The subscription's first transaction; `id` for a first purchase.
    ///   - productID: The product.
    ///   - productType: What kind of product it is.
    ///   - subscriptionGroupID: The product's group, for an auto-renewable subscription.
    ///   - purchaseDate: When it was charged.
    ///   - expirationDate: When the period ends.
    ///   - revocationDate: When it was revoked.
    ///   - revocationReason: Why.
    ///   - isUpgraded: Whether an upgrade replaced it.
    ///   - ownershipType: How it is owned.
    ///   - appAccountToken: The buyer's app account.
    ///   - environment: Where it was made.
    ///   - purchasedQuantity: How many were bought.
    ///   - offer: The offer it was bought with.
    ///   - price: What was paid.
    ///   - currency: The currency paid in.
    ///   - reason: Why it was made; a renewal when it continues an earlier transaction, else a purchase, by default.
    ///   - originalPurchaseDate: When the first transaction was bought; `purchaseDate` by default.
    ///   - storefrontCountryCode: The storefront it was bought in.
    public init(
        id: UInt64, originalID: UInt64? = nil, productID: String, productType: StoreProductType = .autoRenewable,
        subscriptionGroupID: String? = "train.subscriptions", purchaseDate: Date, expirationDate: Date?, revocationDate: Date? = nil,
        revocationReason: TransactionRevocationReason? = nil, isUpgraded: Bool = false, ownershipType: OwnershipType = .purchased,
        appAccountToken: UUID? = nil, environment: StoreEnvironment = .simulated, purchasedQuantity: Int = 1,
        offer: TransactionOffer? = nil, price: Decimal? = nil, currency: String? = nil, reason: TransactionReason? = nil,
        originalPurchaseDate: Date? = nil, storefrontCountryCode: String? = nil
    ) {
        self.id = id
        self.originalID = originalID ?? id
        self.productID = productID
        self.productType = productType
        self.subscriptionGroupID = subscriptionGroupID
        self.purchaseDate = purchaseDate
        self.expirationDate = expirationDate
        self.purchasedQuantity = purchasedQuantity
        self.offer = offer
        self.price = price
        self.currency = currency
        self.reason = reason ?? (originalID.map { $0 != id } == true ? .renewal : .purchase)
        self.originalPurchaseDate = originalPurchaseDate ?? purchaseDate
        self.storefrontCountryCode = storefrontCountryCode
        self.revocationDate = revocationDate
        self.revocationReason = revocationReason
        self.isUpgraded = isUpgraded
        self.ownershipType = ownershipType
        self.appAccountToken = appAccountToken
        self.environment = environment
    }
}

extension AppStoreTransaction {
    private enum CodingKeys: String, CodingKey {
        case id, originalID, productID, productType, subscriptionGroupID, purchaseDate, expirationDate, purchasedQuantity
        case revocationDate, revocationReason, isUpgraded, ownershipType, appAccountToken, environment, offer, price, currency
        case reason, originalPurchaseDate, storefrontCountryCode
    }

    /// Decodes a transaction; one written before transactions had a product type is an
    /// auto-renewable subscription's, of quantity 1.
    /// - Parameter decoder: The decoder.
    /// - Throws: The decoder's error.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(UInt64.self, forKey: .id), originalID: try container.decode(UInt64.self, forKey: .originalID),
            productID: try container.decode(String.self, forKey: .productID),
            productType: try container.decodeIfPresent(StoreProductType.self, forKey: .productType) ?? .autoRenewable,
            subscriptionGroupID: try container.decodeIfPresent(String.self, forKey: .subscriptionGroupID),
            purchaseDate: try container.decode(Date.self, forKey: .purchaseDate),
            expirationDate: try container.decodeIfPresent(Date.self, forKey: .expirationDate),
            revocationDate: try container.decodeIfPresent(Date.self, forKey: .revocationDate),
            revocationReason: try container.decodeIfPresent(TransactionRevocationReason.self, forKey: .revocationReason),
            isUpgraded: try container.decode(Bool.self, forKey: .isUpgraded),
            ownershipType: try container.decode(OwnershipType.self, forKey: .ownershipType),
            appAccountToken: try container.decodeIfPresent(UUID.self, forKey: .appAccountToken),
            environment: try container.decode(StoreEnvironment.self, forKey: .environment),
            purchasedQuantity: try container.decodeIfPresent(Int.self, forKey: .purchasedQuantity) ?? 1,
            offer: try container.decodeIfPresent(TransactionOffer.self, forKey: .offer),
            price: try container.decodeIfPresent(Decimal.self, forKey: .price),
            currency: try container.decodeIfPresent(String.self, forKey: .currency),
            reason: try container.decodeIfPresent(TransactionReason.self, forKey: .reason),
            originalPurchaseDate: try container.decodeIfPresent(Date.self, forKey: .originalPurchaseDate),
            storefrontCountryCode: try container.decodeIfPresent(String.self, forKey: .storefrontCountryCode))
    }
}

/// A value the App Store signed, checked on the device: StoreKit's `VerificationResult`.
public enum StoreVerificationResult<SignedType: Hashable & Sendable>: Hashable, Sendable {
    /// The signature checked out.
    case verified(SignedType)
    /// The signature did not check out; the value must not be trusted.
    case unverified(SignedType, VerificationFailure)

    /// The value, trusted or not.
    public var unsafePayloadValue: SignedType {
        switch self {
        case .verified(let value), .unverified(let value, _): value
        }
    }

    /// The value if it was verified, as StoreKit's `payloadValue`.
    /// - Throws: ``TrainCore/TrainErrorCode/failedVerification`` if it was not.
    public var payloadValue: SignedType {
        get throws(SubscriptionError) {
            switch self {
            case .verified(let value): return value
            case .unverified(_, let failure):
                throw SubscriptionError(.failedVerification, detail: "The transaction failed verification: \(failure).")
            }
        }
    }

    /// Whether the signature checked out.
    public var isVerified: Bool {
        if case .verified = self { true } else { false }
    }
}

extension StoreVerificationResult: Codable where SignedType: Codable {}

/// Why verification failed.
public enum VerificationFailure: String, Codable, Hashable, Sendable {
    /// The signature is invalid.
    case invalidSignature
    /// The certificate chain is invalid.
    case invalidCertificateChain
    /// The value was signed for another device.
    case invalidDeviceVerification
}

/// The state of a subscription: StoreKit's `Product.SubscriptionInfo.RenewalState`.
public enum RenewalState: String, Codable, Hashable, Sendable {
    /// Active and renewing or set to lapse at the period's end.
    case subscribed
    /// Lapsed.
    case expired
    /// Renewal failed; Apple keeps trying, and the user has no access.
    case inBillingRetryPeriod
    /// Renewal failed; the user keeps access until the grace period ends.
    case inGracePeriod
    /// Refunded or revoked.
    case revoked
}

/// Why a subscription lapsed.
public enum ExpirationReason: String, Codable, Hashable, Sendable {
    /// The user turned auto-renew off.
    case autoRenewDisabled
    /// Billing failed and was not resolved in time.
    case billingError
    /// The user did not agree to a price increase.
    case didNotConsentToPriceIncrease
    /// The product was no longer for sale.
    case productUnavailable
    /// Another reason.
    case unknown
}

/// The user's answer to a price increase.
public enum PriceIncreaseStatus: String, Codable, Hashable, Sendable {
    /// No increase is pending, or it needs no consent.
    case noIncreasePending
    /// An increase is pending and the user has not answered.
    case pending
    /// The user agreed.
    case agreed
}

/// What will happen at the next renewal: StoreKit's `RenewalInfo`.
public struct RenewalInfo: Codable, Hashable, Sendable {
    /// The subscription's first transaction.
    public var originalTransactionID: UInt64
    /// The product of the current period.
    public var currentProductID: String
    /// Whether it renews at the end of the period.
    public var willAutoRenew: Bool
    /// The product it renews into (differs after a downgrade or a crossgrade at renewal).
    public var autoRenewPreference: String?
    /// Why it lapsed, once it has; in the billing grace period and billing retry, a
    /// billing error, as Apple's renewal info says while the issue lasts.
    public var expirationReason: ExpirationReason?
    /// When the billing grace period ends, while in it.
    public var gracePeriodExpirationDate: Date?
    /// Whether Apple is retrying a failed renewal.
    public var isInBillingRetry: Bool
    /// The state of a pending price increase.
    public var priceIncreaseStatus: PriceIncreaseStatus
    /// The offer the next renewal is at: one redeemed for it (a promotional offer or an
    /// offer code on the current product, or with a downgrade), or the rest of a
    /// pay-as-you-go offer.
    public var offer: TransactionOffer?
    /// The win-back offers the subscriber may buy with, once the subscription has lapsed.
    public var eligibleWinBackOfferIDs: [String]
    /// When the subscriber's current run of paid service began, lapses shorter than 60
    /// days ignored: their tenure. Nil where the store did not keep it.
    public var recentSubscriptionStartDate: Date?
    /// What the next renewal costs, in ``currency``: the price of the product it renews
    /// into, or of the offer it renews at. Nil where that product is not sold.
    public var renewalPrice: Decimal?
    /// The ISO 4217 code of ``renewalPrice``'s currency.
    public var currency: String?

    /// Creates renewal info.
    /// - Parameters:
    ///   - originalTransactionID: The subscription's first transaction.
    ///   - currentProductID: The product of the current period.
    ///   - willAutoRenew: Whether it renews.
    ///   - autoRenewPreference: The product it renews into.
    ///   - expirationReason: Why it lapsed.
    ///   - gracePeriodExpirationDate: When grace ends.
    ///   - isInBillingRetry: Whether billing is being retried.
    ///   - priceIncreaseStatus: The price-increase state.
    ///   - offer: The offer of the next renewal.
    ///   - eligibleWinBackOfferIDs: The win-back offers the subscriber may buy with.
    ///   - recentSubscriptionStartDate: When the current run of paid service began.
    ///   - renewalPrice: What the next renewal costs.
    ///   - currency: The currency of its price.
    public init(
        originalTransactionID: UInt64, currentProductID: String, willAutoRenew: Bool = true, autoRenewPreference: String? = nil,
        expirationReason: ExpirationReason? = nil, gracePeriodExpirationDate: Date? = nil, isInBillingRetry: Bool = false,
        priceIncreaseStatus: PriceIncreaseStatus = .noIncreasePending, offer: TransactionOffer? = nil, eligibleWinBackOfferIDs: [String] = [],
        recentSubscriptionStartDate: Date? = nil, renewalPrice: Decimal? = nil, currency: String? = nil
    ) {
        self.originalTransactionID = originalTransactionID
        self.currentProductID = currentProductID
        self.willAutoRenew = willAutoRenew
        self.autoRenewPreference = autoRenewPreference ?? currentProductID
        self.expirationReason = expirationReason
        self.gracePeriodExpirationDate = gracePeriodExpirationDate
        self.isInBillingRetry = isInBillingRetry
        self.priceIncreaseStatus = priceIncreaseStatus
        self.offer = offer
        self.eligibleWinBackOfferIDs = eligibleWinBackOfferIDs
        self.recentSubscriptionStartDate = recentSubscriptionStartDate
        self.renewalPrice = renewalPrice
        self.currency = currency
    }
}

/// One subscription's state, latest transaction and renewal info: StoreKit's `Product.SubscriptionInfo.Status`.
public struct RenewalStatus: Hashable, Sendable {
    /// The renewal state.
    public var state: RenewalState
    /// The latest transaction of the subscription.
    public var transaction: StoreVerificationResult<AppStoreTransaction>
    /// What happens at the next renewal.
    public var renewalInfo: StoreVerificationResult<RenewalInfo>

    /// Creates a status.
    /// - Parameters:
    ///   - state: The renewal state.
    ///   - transaction: The latest transaction.
    ///   - renewalInfo: The renewal info.
    public init(state: RenewalState, transaction: StoreVerificationResult<AppStoreTransaction>, renewalInfo: StoreVerificationResult<RenewalInfo>) {
        self.state = state
        self.transaction = transaction
        self.renewalInfo = renewalInfo
    }
}

/// The outcome of a purchase: StoreKit's `Product.PurchaseResult`.
public enum StorePurchaseResult: Hashable, Sendable {
    /// The purchase went through; its transaction is here and not on the updates stream.
    case success(StoreVerificationResult<AppStoreTransaction>)
    /// The user cancelled.
    case userCancelled
    /// Waiting for approval (Ask to Buy) or for an interrupted purchase to be resolved;
    /// the outcome arrives on the updates stream.
    case pending
}
