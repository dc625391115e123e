import Foundation
import TrainCore

/// The simulated App Store's records: what it persists in its ``RecordStore``.
enum StoreLedger {
    static let schema = StoreSchema(name: "appstore", migrations: [
        .createCollections(version: 1, ["transactions", "subscriptions", "pending", "meta"]),
    ])

    /// A transaction as the store keeps it: whether it verifies, and whether the app finished it.
    struct Entry: Codable, Hashable, Sendable {
        var transaction: StoreTransaction
        var verified: Bool
        var finished = false
        /// Counts the changes to the transaction, so its states can be told apart in order.
        var revision = 0

        var result: StoreVerificationResult<StoreTransaction> {
            verified ? .verified(transaction) : .unverified(transaction, .invalidSignature)
        }
    }

    /// One subscription (a chain of transactions sharing an original ID) of one app user.
    struct Subscription: Codable, Hashable, Sendable {
        var originalID: UInt64
        var groupID: String
        var appAccountToken: UUID?
        var productID: String
        var latestTransactionID: UInt64
        var periodEnd: Date
        var state: RenewalState = .subscribed
        var willAutoRenew = true
        var autoRenewPreference: String
        var graceEnd: Date?
        var retryEnd: Date?
        var expirationReason: ExpirationReason?
        var priceIncrease: PriceIncreaseStatus = .noIncreasePending

        /// Makes `transaction` the current period: subscribed, in its product, with no
        /// billing issue or lapse pending.
        mutating func begin(_ transaction: StoreTransaction) {
            productID = transaction.productID
            autoRenewPreference = transaction.productID
            latestTransactionID = transaction.id
            periodEnd = transaction.expirationDate ?? transaction.purchaseDate
            state = .subscribed
            graceEnd = nil
            retryEnd = nil
            expirationReason = nil
        }

        /// Whether the user has access through it at `now`.
        func grantsAccess(at now: Date) -> Bool {
            switch state {
            case .subscribed: now <= periodEnd
            case .inGracePeriod: now <= (graceEnd ?? periodEnd)
            case .expired, .inBillingRetryPeriod, .revoked: false
            }
        }

        var renewalInfo: RenewalInfo {
            RenewalInfo(originalTransactionID: originalID, currentProductID: productID, willAutoRenew: willAutoRenew,
                        autoRenewPreference: autoRenewPreference, expirationReason: expirationReason,
                        gracePeriodExpirationDate: state == .inGracePeriod ? graceEnd : nil,
                        isInBillingRetry: state == .inGracePeriod || state == .inBillingRetryPeriod,
                        priceIncreaseStatus: priceIncrease)
        }
    }

    static let transactions = RecordCollection<Entry>("transactions")
    static let subscriptions = RecordCollection<Subscription>("subscriptions")
    static let pending = RecordCollection<PendingPurchase>("pending")
    static let meta = RecordCollection<UInt64>("meta")

    static func key(_ id: UInt64) -> String { String(format: "%020llu", id) }
}

/// A purchase waiting for a parent's approval (Ask to Buy) or for an interruption to be resolved.
public struct PendingPurchase: Codable, Hashable, Sendable, Identifiable {
    /// Why it waits.
    public enum Kind: String, Codable, Hashable, Sendable {
        /// Ask to Buy: a parent approves or declines; it lapses after 24 hours.
        case askToBuy
        /// An interrupted purchase (terms to accept, a payment method to fix).
        case interrupted
    }

    /// The request's identifier.
    public var id: String
    /// The product asked for.
    public var productID: String
    /// The app user who asked.
    public var appAccountToken: UUID
    /// When it was asked.
    public var requestedAt: Date
    /// Why it waits.
    public var kind: Kind

    /// Creates a pending purchase.
    /// - Parameters:
    ///   - id: The request's identifier.
    ///   - productID: The product.
    ///   - appAccountToken: The app user.
    ///   - requestedAt: When.
    ///   - kind: Why it waits.
    public init(id: String, productID: String, appAccountToken: UUID, requestedAt: Date, kind: Kind) {
        self.id = id
        self.productID = productID
        self.appAccountToken = appAccountToken
        self.requestedAt = requestedAt
        self.kind = kind
    }
}
