import Foundation

/// The one error type of TrainSubscription, with codes a caller can switch on and
/// user-facing text.
public struct SubscriptionError: Error, Hashable, Sendable {
    /// What went wrong; new codes can be added without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The stable name of the code.
        public let name: String
        private init(_ name: String) { self.name = name }

        /// No product has this identifier.
        public static let productNotFound = Code("productNotFound")
        /// A purchase is already in progress.
        public static let purchaseInProgress = Code("purchaseInProgress")
        /// No transaction has this identifier.
        public static let transactionNotFound = Code("transactionNotFound")
        /// The transaction belongs to another app user.
        public static let notYourTransaction = Code("notYourTransaction")
        /// Purchases need a signed-in app user to tie them to.
        public static let noAppAccount = Code("noAppAccount")
        /// The device's Apple ID already has a subscription in this group, or this
        /// non-consumable, used by another account of the app or bought outside it;
        /// buying again would not give this account access.
        public static let subscribedWithAnotherAccount = Code("subscribedWithAnotherAccount")
        /// The Apple ID may not buy with this offer: an introductory offer after any
        /// subscription in the group, a promotional one before any, a win-back one while
        /// subscribed (StoreKit's `Product.PurchaseError.ineligibleForOffer`).
        public static let ineligibleForOffer = Code("ineligibleForOffer")
        /// The product has no offer with this identifier (`invalidOfferIdentifier`).
        public static let invalidOfferIdentifier = Code("invalidOfferIdentifier")
        /// The offer code is unknown or was already redeemed.
        public static let invalidOfferCode = Code("invalidOfferCode")
        /// The user has no subscription this control can act on.
        public static let notSubscribed = Code("notSubscribed")
        /// No pending purchase has this identifier.
        public static let requestNotFound = Code("requestNotFound")
        /// A simulated month or renewal must last at least a second.
        public static let invalidTimeRate = Code("invalidTimeRate")
        /// An argument was outside what the call accepts.
        public static let invalidArgument = Code("invalidArgument")
        /// A signed value failed verification.
        public static let failedVerification = Code("failedVerification")
        /// The network could not be reached.
        public static let networkError = Code("networkError")
        /// The product is not sold in the storefront (`Product.PurchaseError.productUnavailable`).
        public static let productUnavailable = Code("productUnavailable")
        /// The user may not make payments (parental controls, a restricted device).
        public static let paymentNotAllowed = Code("paymentNotAllowed")
        /// The App Store had a problem of its own.
        public static let systemError = Code("systemError")
        /// The transaction ledger on this device could not be read or written.
        public static let ledgerUnreadable = Code("ledgerUnreadable")
        /// The Apple ID is in a family group already: one Apple ID, one family.
        public static let alreadyInFamily = Code("alreadyInFamily")
        /// The family group has six people already, Apple's limit.
        public static let familyFull = Code("familyFull")
        /// The Apple ID is in no family group, or names none it organizes.
        public static let notInFamily = Code("notInFamily")
        /// A paywall configuration does not hold together: its detail says why.
        public static let invalidConfiguration = Code("invalidConfiguration")
        /// The paywall configuration has no such placement.
        public static let placementNotFound = Code("placementNotFound")
        /// The paywall configuration has no such experiment.
        public static let experimentNotFound = Code("experimentNotFound")

        /// The code's name.
        public var description: String { name }
    }

    /// What went wrong.
    public let code: Code
    /// A detail for developers and logs.
    public let detail: String

    /// Creates an error.
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - detail: A detail for developers; defaults to the user-facing description.
    public init(_ code: Code, detail: String? = nil) {
        self.code = code
        self.detail = detail ?? Self.messages[code]?.0 ?? code.name
    }

    private static let messages: [Code: (String, String?)] = [
        .productNotFound: ("This subscription is not available.", "Try again later."),
        .purchaseInProgress: ("A purchase is already in progress.", "Wait for it to finish."),
        .transactionNotFound: ("The purchase could not be found.", "Restore purchases and try again."),
        .notYourTransaction: ("This purchase belongs to another account.", "Sign in with the account that made it."),
        .noAppAccount: ("Sign in to subscribe.", "Sign in, then try again."),
        .subscribedWithAnotherAccount: (
            "This Apple ID already has this purchase, used by another account in this app.",
            "Sign in to that account, or manage the subscription in Settings › Apple ID › Subscriptions."
        ),
        .ineligibleForOffer: ("This offer isn't available for your account.", "You can subscribe at the regular price."),
        .invalidOfferIdentifier: ("This offer is not available.", "Try again later."),
        .invalidOfferCode: ("This code is not valid.", "Check the code, or contact the sender."),
        .notSubscribed: ("There is no subscription to change.", nil),
        .requestNotFound: ("The pending purchase could not be found.", nil),
        .invalidTimeRate: ("The time rate is not valid.", "Use at least one second per simulated month."),
        .invalidArgument: ("The request is not valid.", nil),
        .failedVerification: ("The purchase could not be verified.", "Restore purchases, or contact support if this persists."),
        .networkError: ("The App Store could not be reached.", "Check your connection and try again."),
        .productUnavailable: ("This item isn't available in your country or region.", nil),
        .paymentNotAllowed: ("Payments are not allowed on this device.", "Check Screen Time restrictions in Settings."),
        .systemError: ("The App Store had a problem.", "Try again later."),
        .ledgerUnreadable: ("Your purchases on this device could not be read.", "Restart the app; your subscription is safe with the App Store."),
        .alreadyInFamily: ("This Apple ID is already in a family group.", "Leave that family group first."),
        .familyFull: ("This family group is full.", "A family group has up to six people."),
        .notInFamily: ("This Apple ID is not in a family group.", nil),
        .invalidConfiguration: ("The paywall configuration is not valid.", nil),
        .placementNotFound: ("This paywall is not available.", nil),
        .experimentNotFound: ("This paywall is not available.", nil),
    ]
}

extension SubscriptionError {
    /// Two errors are equal when their codes are, whatever their detail, so a test
    /// can write `#expect(throws: SubscriptionError(.someCode))` against a real service.
    /// - Parameters:
    ///   - lhs: An error.
    ///   - rhs: Another error.
    /// - Returns: Whether both have the same code.
    public static func == (lhs: SubscriptionError, rhs: SubscriptionError) -> Bool {
        lhs.code == rhs.code
    }

    /// Hashes the code only, consistent with ``==(_:_:)``.
    /// - Parameter hasher: The hasher.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
    }
}

extension SubscriptionError: LocalizedError {
    /// A user-facing sentence for the code.
    public var errorDescription: String? { Self.messages[code]?.0 ?? detail }
    /// What the user can do about it.
    public var recoverySuggestion: String? { Self.messages[code]?.1 ?? nil }
}

extension SubscriptionError: CustomStringConvertible {
    /// The code and the detail, for logs.
    public var description: String { "SubscriptionError.\(code): \(detail)" }
}
