import Foundation
import TrainCore

/// The one error type of TrainSubscription, with codes a caller can switch on and
/// user-facing text.
public struct SubscriptionError: TrainError {
    /// What went wrong; new codes can be added without breaking callers.
    public typealias Code = TrainErrorCode<SubscriptionError>

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
        self.detail = detail ?? code.message
    }
}

/// The codes of ``SubscriptionError``.
extension TrainErrorCode where Failure == SubscriptionError {
    /// No product has this identifier.
    public static var productNotFound: Self {
        Self("productNotFound", message: "This subscription is not available.", recoverySuggestion: "Try again later.")
    }
    /// A purchase is already in progress.
    public static var purchaseInProgress: Self {
        Self("purchaseInProgress", message: "A purchase is already in progress.", recoverySuggestion: "Wait for it to finish.")
    }
    /// No transaction has this identifier.
    public static var transactionNotFound: Self {
        Self("transactionNotFound", message: "The purchase could not be found.", recoverySuggestion: "Restore purchases and try again.")
    }
    /// The transaction belongs to another app user.
    public static var notYourTransaction: Self {
        Self("notYourTransaction", message: "This purchase belongs to another account.", recoverySuggestion: "Sign in with the account that made it.")
    }
    /// Purchases need a signed-in app user to tie them to.
    public static var noAppAccount: Self { Self("noAppAccount", message: "Sign in to subscribe.", recoverySuggestion: "Sign in, then try again.") }
    /// The device's Apple ID already has a subscription in this group, or this
    /// non-consumable, used by another account of the app or bought outside it;
    /// buying again would not give this account access.
    public static var subscribedWithAnotherAccount: Self {
        Self(
            "subscribedWithAnotherAccount", message: "This Apple ID already has this purchase, used by another account in this app.",
            recoverySuggestion: "Sign in to that account, or manage the subscription in Settings › Apple ID › Subscriptions.")
    }
    /// The Apple ID may not buy with this offer: an introductory offer after any
    /// subscription in the group, a promotional one before any, a win-back one while
    /// subscribed (StoreKit's `Product.PurchaseError.ineligibleForOffer`).
    public static var ineligibleForOffer: Self {
        Self(
            "ineligibleForOffer", message: "This offer isn't available for your account.",
            recoverySuggestion: "You can subscribe at the regular price.")
    }
    /// The product has no offer with this identifier (`invalidOfferIdentifier`).
    public static var invalidOfferIdentifier: Self {
        Self("invalidOfferIdentifier", message: "This offer is not available.", recoverySuggestion: "Try again later.")
    }
    /// The offer code is unknown or was already redeemed.
    public static var invalidOfferCode: Self {
        Self("invalidOfferCode", message: "This code is not valid.", recoverySuggestion: "Check the code, or contact the sender.")
    }
    /// The user has no subscription this control can act on.
    public static var notSubscribed: Self { Self("notSubscribed", message: "There is no subscription to change.") }
    /// No pending purchase has this identifier.
    public static var requestNotFound: Self { Self("requestNotFound", message: "The pending purchase could not be found.") }
    /// A simulated month or renewal must last at least a second.
    public static var invalidTimeRate: Self {
        Self("invalidTimeRate", message: "The time rate is not valid.", recoverySuggestion: "Use at least one second per simulated month.")
    }
    /// An argument was outside what the call accepts.
    public static var invalidArgument: Self { Self("invalidArgument", message: "The request is not valid.") }
    /// A signed value failed verification.
    public static var failedVerification: Self {
        Self(
            "failedVerification", message: "The purchase could not be verified.",
            recoverySuggestion: "Restore purchases, or contact support if this persists.")
    }
    /// The network could not be reached.
    public static var networkError: Self {
        Self("networkError", message: "The App Store could not be reached.", recoverySuggestion: "Check your connection and try again.")
    }
    /// The product is not sold in the storefront (`Product.PurchaseError.productUnavailable`).
    public static var productUnavailable: Self { Self("productUnavailable", message: "This item isn't available in your country or region.") }
    /// The user may not make payments (parental controls, a restricted device).
    public static var paymentNotAllowed: Self {
        Self(
            "paymentNotAllowed", message: "Payments are not allowed on this device.",
            recoverySuggestion: "Check Screen Time restrictions in Settings.")
    }
    /// The App Store had a problem of its own.
    public static var systemError: Self { Self("systemError", message: "The App Store had a problem.", recoverySuggestion: "Try again later.") }
    /// The transaction ledger on this device could not be read or written.
    public static var ledgerUnreadable: Self {
        Self(
            "ledgerUnreadable", message: "Your purchases on this device could not be read.",
            recoverySuggestion: "Restart the app; your subscription is safe with the App Store.")
    }
    /// The Apple ID is in a family group already: one Apple ID, one family.
    public static var alreadyInFamily: Self {
        Self("alreadyInFamily", message: "This Apple ID is already in a family group.", recoverySuggestion: "Leave that family group first.")
    }
    /// The family group has six people already, Apple's limit.
    public static var familyFull: Self {
        Self("familyFull", message: "This family group is full.", recoverySuggestion: "A family group has up to six people.")
    }
    /// The Apple ID is in no family group, or names none it organizes.
    public static var notInFamily: Self { Self("notInFamily", message: "This Apple ID is not in a family group.") }
    /// A paywall configuration does not hold together: its detail says why.
    public static var invalidConfiguration: Self { Self("invalidConfiguration", message: "The paywall configuration is not valid.") }
    /// The paywall configuration has no such placement.
    public static var placementNotFound: Self { Self("placementNotFound", message: "This paywall is not available.") }
    /// The paywall configuration has no such experiment.
    public static var experimentNotFound: Self { Self("experimentNotFound", message: "This paywall is not available.") }
}
