import Foundation

/// The signed-in user's tier now and at every change, and the state of their renewals:
/// what feature gating reads.
///
/// A capability of ``SubscriptionService``; a view model that gates a feature can depend
/// on this protocol alone.
public protocol SubscriptionAccess: Sendable {
    /// The tier the signed-in app user's entitlements grant now. Reading it never
    /// writes anything.
    var currentTier: SubscriptionTier { get }

    /// The tier now, then each change of tier.
    /// - Returns: A stream; cancelling its consumer ends it.
    func tierChanges() -> AsyncStream<SubscriptionTier>

    /// The state and renewal info of each of the user's subscriptions.
    /// - Returns: One status per subscription.
    /// - Throws: The store's failure, such as ``TrainCore/TrainErrorCode/networkError``.
    func subscriptionStatuses() async throws -> [RenewalStatus]
}

/// What a paywall calls: the storefront, the products, buying one, offers, and restoring.
///
/// A capability of ``SubscriptionService``.
public protocol SubscriptionPurchasing: Sendable {
    /// Whether a purchase is in progress (the purchase sheet is up).
    var isPurchaseInProgress: Bool { get }

    /// The storefront the Apple ID buys in, whose currency prices are in: StoreKit's `Storefront.current`.
    /// - Returns: The storefront.
    /// - Throws: A conformance's failure to reach the store; TrainKit's own service does not throw.
    func storefront() async throws -> StoreStorefront

    /// The products on sale in the storefront, each at its price there.
    /// - Returns: The products.
    /// - Throws: ``TrainCore/TrainErrorCode/networkError`` when the store cannot be reached.
    func products() async throws -> [AppStoreProduct]

    /// Buys a product for the signed-in app user. Cancelling the calling task while the
    /// purchase sheet is up ends it as `.userCancelled`, never as `CancellationError`.
    /// An introductory offer applies by itself where the Apple ID is eligible.
    /// - Parameters:
    ///   - productID: The product.
    ///   - offer: A promotional or win-back offer of the product to buy with, or nil.
    /// - Returns: Its transaction, `.userCancelled`, or `.pending`.
    /// - Throws: ``SubscriptionError`` — `productNotFound`, `purchaseInProgress`,
    ///   `noAppAccount`, `invalidOfferIdentifier`, `ineligibleForOffer`, or the store's failure.
    func purchase(_ productID: String, offer: PurchaseOffer?) async throws -> StorePurchaseResult

    /// Whether the Apple ID may still have an introductory offer in a subscription group:
    /// it never had a subscription there, a free trial included (StoreKit's
    /// `Product.SubscriptionInfo.isEligibleForIntroOffer(for:)`).
    /// - Parameter groupID: The subscription group.
    /// - Returns: True if its first purchase there gets the introductory offer.
    func isEligibleForIntroOffer(groupID: String) async throws -> Bool

    /// Brings the entitlements up to date with the store (StoreKit's `AppStore.sync`).
    /// - Returns: The tier afterwards.
    /// - Throws: ``TrainCore/TrainErrorCode/ledgerUnreadable`` if the ledger cannot be read;
    ///   the store's failure, such as ``TrainCore/TrainErrorCode/networkError``.
    func restorePurchases() async throws -> SubscriptionTier

    /// Ties purchases and entitlements to an app user; nil when nobody is signed in.
    /// - Parameter token: The user's `appAccountToken`.
    func setAppAccountToken(_ token: UUID?) async
}

/// The App Store's transactions, as StoreKit 2 gives them: verified or not, to finish.
///
/// A capability of ``SubscriptionService``.
public protocol SubscriptionTransactions: Sendable {
    /// Transactions that arrive outside `purchase`: renewals, refunds, Ask to Buy
    /// outcomes, purchases made elsewhere. A new listener first receives every
    /// unfinished transaction of the user, and a running one those of each app user
    /// who signs in.
    /// - Returns: A stream; cancelling its consumer ends it.
    func transactionUpdates() -> AsyncStream<StoreVerificationResult<AppStoreTransaction>>

    /// Tells the store the app has delivered a transaction; finishing twice does nothing.
    /// - Parameter transactionID: The transaction.
    /// - Throws: ``SubscriptionError`` — `transactionNotFound`, `notYourTransaction`.
    func finish(_ transactionID: UInt64) async throws

    /// The transactions that entitle the user now, each with its verification, as
    /// StoreKit's `Transaction.currentEntitlements` hands them over: an unverified one is
    /// listed too, and the caller decides what to do with it; it never counts toward
    /// ``SubscriptionAccess/currentTier``.
    /// - Returns: Unrevoked, not upgraded, active transactions of the user.
    func currentEntitlements() async throws -> [StoreVerificationResult<AppStoreTransaction>]

    /// Every transaction of the user, oldest first by purchase date, but consumables already finished:
    /// StoreKit's `Transaction.all`.
    /// - Returns: The transactions, each with its verification.
    func allTransactions() async throws -> [StoreVerificationResult<AppStoreTransaction>]

    /// The user's transactions the app has not finished, oldest first: StoreKit's `Transaction.unfinished`.
    /// - Returns: The transactions, each with its verification.
    func unfinishedTransactions() async throws -> [StoreVerificationResult<AppStoreTransaction>]

    /// The user's latest transaction of a product, by purchase date: StoreKit's `Transaction.latest(for:)`.
    /// - Parameter productID: The product.
    /// - Returns: The transaction, or nil if the user never bought it.
    func latestTransaction(for productID: String) async throws -> StoreVerificationResult<AppStoreTransaction>?

    /// The App Store's record of the app itself on this Apple ID: StoreKit's `AppTransaction.shared`.
    /// - Returns: The app transaction, with its verification.
    /// - Throws: The store's failure, such as ``TrainCore/TrainErrorCode/networkError``.
    func appTransaction() async throws -> StoreVerificationResult<AppTransactionInfo>
}

/// The subscription service: the current tier, products, purchases, restore, and
/// streams of transaction updates and tier changes — without StoreKit, so it runs
/// everywhere.
///
/// TrainKit's conformance is ``LocalSubscriptionService`` on a ``SimulatedAppStore``;
/// `FakeSubscriptionService` in TrainTesting is a scriptable double; an app adds a
/// StoreKit 2 conformance behind the same protocol.
///
/// ```swift
/// func upgradeTapped(subscriptions: any SubscriptionService) async throws {
///     switch try await subscriptions.purchase("com.train.pro.monthly") {
///     case .success(let verification):
///         let transaction = try verification.payloadValue
///         try await subscriptions.finish(transaction.id)
///     case .pending, .userCancelled:
///         break
///     }
///     if subscriptions.featureAccess().canAccess(.analytics) { /* show analytics */ }
/// }
/// ```
public protocol SubscriptionService: SubscriptionAccess, SubscriptionPurchasing, SubscriptionTransactions {}

extension SubscriptionPurchasing {
    /// Buys a product with no offer asked for (an introductory offer still applies where
    /// the Apple ID is eligible); see ``purchase(_:offer:)``.
    /// - Parameter productID: The product.
    /// - Returns: Its transaction, `.userCancelled`, or `.pending`.
    /// - Throws: As ``purchase(_:offer:)``.
    public func purchase(_ productID: String) async throws -> StorePurchaseResult {
        try await purchase(productID, offer: nil)
    }
}

extension SubscriptionAccess {
    /// What the current tier may use under `catalog`, for any conformance.
    /// - Parameter catalog: The tier-to-feature mapping; the standard one by default.
    /// - Returns: The feature access of ``SubscriptionAccess/currentTier``.
    public func featureAccess(catalog: FeatureCatalog = .standard) -> FeatureAccess {
        FeatureAccess(tier: currentTier, catalog: catalog)
    }
}
