import Foundation
import TrainCore
import TrainSubscription

/// A scriptable `SubscriptionService` for unit tests of view models.
///
/// Calls are recorded; scripted results are returned; unscripted calls return
/// plausible defaults, or — when the fake is strict — record a test failure naming
/// the call and throw ``FakeError/unimplemented(_:)``. ``setTier(_:)`` and
/// ``sendTransactionUpdate(_:)`` drive the two streams; ``controls`` inject failures,
/// latency and holds.
///
/// A purchase that succeeds, scripted or not, raises the tier to its product's,
/// looked up in the scripted products (`AppStoreProduct.standard` when none are
/// scripted), and its transaction is dated by the fake's clock. Unscripted, the first
/// purchase in a subscription group gets the product's introductory offer, and
/// ``isEligibleForIntroOffer(groupID:)`` is true until then; a promotional or win-back
/// offer is `ineligibleForOffer` before then; a non-consumable bought again returns its
/// first transaction.
///
/// ```swift
/// let subscriptions = FakeSubscriptionService()
/// subscriptions.script(.purchase, .returning(.pending))
/// let model = PaywallModel(subscriptions: subscriptions)
/// await model.buy("com.train.pro.monthly")
/// #expect(model.message == "Waiting for approval")
/// #expect(subscriptions.calls == [.purchase("com.train.pro.monthly")])
/// ```
public final class FakeSubscriptionService: SubscriptionService, ScriptableFake {
    /// A recorded call.
    public enum Call: Hashable, Sendable {
        /// ``products()``.
        case products
        /// ``purchase(_:offer:)`` without an offer.
        case purchase(String)
        /// ``purchase(_:offer:)`` with an offer.
        case purchaseWithOffer(String, PurchaseOffer)
        /// ``isEligibleForIntroOffer(groupID:)``.
        case isEligibleForIntroOffer(String)
        /// ``restorePurchases()``.
        case restorePurchases
        /// ``transactionUpdates()``.
        case transactionUpdates
        /// ``tierChanges()``.
        case tierChanges
        /// ``finish(_:)``.
        case finish(UInt64)
        /// ``currentEntitlements()``.
        case currentEntitlements
        /// ``allTransactions()``.
        case allTransactions
        /// ``appTransaction()``.
        case appTransaction
        /// ``storefront()``.
        case storefront
        /// ``unfinishedTransactions()``.
        case unfinishedTransactions
        /// ``latestTransaction(for:)``.
        case latestTransaction(String)
        /// ``subscriptionStatuses()``.
        case subscriptionStatuses
        /// ``setAppAccountToken(_:)``.
        case setAppAccountToken(UUID?)
    }

    /// Failure injection, latency, holding, scripts and left-overs.
    public let controls: FakeControls<Call>
    private let tiers: Broadcast<SubscriptionTier>
    private let updates = Broadcast<StoreVerificationResult<AppStoreTransaction>?>(initial: nil)
    private let purchasesInFlight = Locked(0)
    private let nextTransactionID = Locked<UInt64>(1)
    private let lastProducts = Locked<[AppStoreProduct]?>(nil)
    /// Every transaction bought through the fake, and which of them were finished.
    private let history = Locked<(transactions: [StoreVerificationResult<AppStoreTransaction>], finished: Set<UInt64>)>(([], []))

    /// Whether a purchase through the fake went through in `group`.
    private func hasBought(inGroup group: String?) -> Bool {
        guard let group else { return false }
        return history.withLock { $0.transactions.contains { $0.unsafePayloadValue.subscriptionGroupID == group } }
    }

    /// The first transaction of the non-consumable `productID` bought through the fake.
    private func owned(_ productID: String) -> AppStoreTransaction? {
        history.withLock { $0.transactions.first { $0.unsafePayloadValue.productID == productID } }?.unsafePayloadValue
    }

    /// Creates a fake.
    /// - Parameters:
    ///   - tier: The tier at the start.
    ///   - strict: Whether a call nobody scripted fails the test (and throws) instead of returning a default.
    ///   - clock: The clock that dates transactions and that ``FakeControls/latency``
    ///     sleeps on; without one, transactions are dated 2026-01-01.
    public init(tier: SubscriptionTier = .free, strict: Bool = false, clock: (any DateClock)? = nil) {
        tiers = Broadcast(initial: tier)
        controls = FakeControls(fakeName: "FakeSubscriptionService", strict: strict, clock: clock)
    }

    /// Whether unscripted calls fail the test.
    public var isStrict: Bool { controls.isStrict }

    public var currentTier: SubscriptionTier { tiers.value }

    /// True while a ``purchase(_:)`` call is under way (held, sleeping or running).
    public var isPurchaseInProgress: Bool { purchasesInFlight.withLock { $0 > 0 } }

    /// Sets the tier and, if it changed, emits it on ``tierChanges()``.
    /// - Parameter tier: The new tier.
    public func setTier(_ tier: SubscriptionTier) {
        if tier != tiers.value { tiers.send(tier) }
    }

    /// Emits a transaction on every ``transactionUpdates()`` stream, as a renewal or refund would.
    /// - Parameter update: The transaction.
    public func sendTransactionUpdate(_ update: StoreVerificationResult<AppStoreTransaction>) {
        updates.send(update)
    }

    /// Suspends until at least `count` listeners follow ``transactionUpdates()``.
    /// - Parameter count: The number of listeners to wait for.
    public func waitForTransactionListeners(_ count: Int = 1) async {
        await updates.waitForSubscribers(count)
    }

    /// Suspends until at least `count` subscribers follow ``tierChanges()``.
    /// - Parameter count: The number of subscribers to wait for.
    public func waitForTierSubscribers(_ count: Int = 1) async {
        await tiers.waitForSubscribers(count)
    }

    private func perform<Output>(
        _ call: Call, _ method: FakeMethod<FakeSubscriptionService, Output>,
        fallback: () throws -> Output
    ) async throws -> Output {
        try await controls.perform(call, method: method.name, fallback: fallback)
    }

    /// The products a purchase is looked up in: the scripted ones (or the last that
    /// ``products()`` returned), or the standard four.
    private var catalog: [AppStoreProduct] {
        controls.peekScript(FakeMethod<FakeSubscriptionService, [AppStoreProduct]>.products.name, as: [AppStoreProduct].self)
            ?? lastProducts.withLock { $0 } ?? AppStoreProduct.standard
    }

    /// Returns the scripted products, or `AppStoreProduct.standard`.
    public func products() async throws -> [AppStoreProduct] {
        let products = try await perform(.products, .products) { AppStoreProduct.standard }
        lastProducts.withLock { $0 = products }
        return products
    }

    /// In progress until it returns. Returns the scripted result, or a verified
    /// transaction of the product dated by the fake's clock — at its introductory offer
    /// on the first purchase in its group, or at the offer asked for
    /// (`invalidOfferIdentifier` if the product has none such);
    /// a success raises the tier to the product's.
    public func purchase(_ productID: String, offer: PurchaseOffer?) async throws -> StorePurchaseResult {
        purchasesInFlight.withLock { $0 += 1 }
        defer { purchasesInFlight.withLock { $0 -= 1 } }
        let products = catalog
        let call: Call = offer.map { .purchaseWithOffer(productID, $0) } ?? .purchase(productID)
        let result = try await perform(call, .purchase) { () throws -> StorePurchaseResult in
            guard let product = products.first(where: { $0.id == productID }) else {
                throw SubscriptionError(.productNotFound, detail: "No product '\(productID)'.")
            }
            if product.type == .nonConsumable, let owned = owned(productID) {
                return .success(.verified(owned)) // StoreKit 2 hands back the transaction of what is owned
            }
            let chosen: SubscriptionOffer?
            if let offer {
                guard let found = product.offer(offer.type, id: offer.id) else {
                    throw SubscriptionError(.invalidOfferIdentifier, detail: "'\(productID)' has no offer '\(offer.id)'.")
                }
                // Promotional and win-back offers are for those who subscribed before.
                guard hasBought(inGroup: product.subscriptionGroupID) else {
                    throw SubscriptionError(.ineligibleForOffer, detail: "Nobody subscribed in the group of '\(productID)' through the fake.")
                }
                chosen = found
            } else {
                chosen = product.subscriptionGroupID != nil && !hasBought(inGroup: product.subscriptionGroupID) ? product.introductoryOffer : nil
            }
            let id = nextTransactionID.withLock { next in
                defer { next += 1 }
                return next
            }
            let date = controls.clock?.now ?? ManualClock.defaultStart
            let renews = product.type == .autoRenewable
            return .success(
                .verified(
                    AppStoreTransaction(
                        id: id, productID: productID, productType: product.type,
                        subscriptionGroupID: renews ? product.subscriptionGroupID : nil, purchaseDate: date,
                        expirationDate: renews ? (chosen?.period ?? product.period)?.end(after: date) : nil,
                        offer: chosen.map { TransactionOffer(type: $0.type, id: $0.id, paymentMode: $0.paymentMode) },
                        price: chosen?.price ?? product.price, currency: "USD")))
        }
        if case .success(let transaction) = result, transaction.isVerified,
            let product = products.first(where: { $0.id == transaction.unsafePayloadValue.productID })
        {
            history.withLock { history in
                if !history.transactions.contains(where: { $0.unsafePayloadValue.id == transaction.unsafePayloadValue.id }) {
                    history.transactions.append(transaction)
                }
            }
            setTier(max(product.tier, currentTier))
        }
        return result
    }

    /// Returns the scripted answer, or whether no purchase through the fake went through in the group.
    public func isEligibleForIntroOffer(groupID: String) async throws -> Bool {
        try await perform(.isEligibleForIntroOffer(groupID), .isEligibleForIntroOffer) {
            !hasBought(inGroup: groupID)
        }
    }

    /// Returns the scripted tier (and sets it), or the current tier.
    public func restorePurchases() async throws -> SubscriptionTier {
        let tier = try await perform(.restorePurchases, .restorePurchases) { currentTier }
        setTier(tier)
        return tier
    }

    /// Recorded as a subscription; yields what ``sendTransactionUpdate(_:)`` sends from now on.
    public func transactionUpdates() -> AsyncStream<StoreVerificationResult<AppStoreTransaction>> {
        controls.recordSubscription(.transactionUpdates)
        return updates.events()
    }

    /// Recorded as a subscription; the tier now, then what ``setTier(_:)`` sets.
    public func tierChanges() -> AsyncStream<SubscriptionTier> {
        controls.recordSubscription(.tierChanges)
        return tiers.subscribe()
    }

    /// Succeeds unless scripted to fail.
    public func finish(_ transactionID: UInt64) async throws {
        try await perform(.finish(transactionID), .finish) {}
        history.withLock { _ = $0.finished.insert(transactionID) }
    }

    /// Returns the scripted transactions, or none.
    public func currentEntitlements() async throws -> [StoreVerificationResult<AppStoreTransaction>] {
        try await perform(.currentEntitlements, .currentEntitlements) { [] }
    }

    /// Returns the scripted storefront, or the United States.
    public func storefront() async throws -> StoreStorefront {
        try await perform(.storefront, .storefront) { .unitedStates }
    }

    /// Returns the scripted app transaction, or version 1.0 of `com.example.train` bought at the fake clock's start.
    public func appTransaction() async throws -> StoreVerificationResult<AppTransactionInfo> {
        try await perform(.appTransaction, .appTransaction) {
            .verified(
                AppTransactionInfo(
                    bundleID: "com.example.train", appVersion: "1.0", originalAppVersion: "1.0",
                    originalPurchaseDate: ManualClock.defaultStart))
        }
    }

    /// Returns the scripted transactions, or those bought through the fake but finished consumables.
    public func allTransactions() async throws -> [StoreVerificationResult<AppStoreTransaction>] {
        let bought = history.withLock { $0 }
        return try await perform(.allTransactions, .allTransactions) {
            bought.transactions.filter { $0.unsafePayloadValue.productType != .consumable || !bought.finished.contains($0.unsafePayloadValue.id) }
        }
    }

    /// Returns the scripted transactions, or those bought through the fake and not finished.
    public func unfinishedTransactions() async throws -> [StoreVerificationResult<AppStoreTransaction>] {
        let bought = history.withLock { $0 }
        return try await perform(.unfinishedTransactions, .unfinishedTransactions) {
            bought.transactions.filter { !bought.finished.contains($0.unsafePayloadValue.id) }
        }
    }

    /// Returns the scripted transaction, or the latest of the product bought through the fake.
    public func latestTransaction(for productID: String) async throws -> StoreVerificationResult<AppStoreTransaction>? {
        let bought = history.withLock { $0.transactions }
        return try await perform(.latestTransaction(productID), .latestTransaction) {
            bought.last { $0.unsafePayloadValue.productID == productID }
        }
    }

    /// Returns the scripted statuses, or none.
    public func subscriptionStatuses() async throws -> [RenewalStatus] {
        try await perform(.subscriptionStatuses, .subscriptionStatuses) { [] }
    }

    /// Recorded; does nothing else.
    public func setAppAccountToken(_ token: UUID?) async {
        await controls.performWithoutFailing(.setAppAccountToken(token), method: "setAppAccountToken(_:)")
    }
}

extension FakeMethod where Fake == FakeSubscriptionService, Output == [AppStoreProduct] {
    /// ``FakeSubscriptionService/products()``: the products; also where purchases look up their tier.
    public static var products: Self { Self("products()") }
}

extension FakeMethod where Fake == FakeSubscriptionService, Output == StorePurchaseResult {
    /// ``FakeSubscriptionService/purchase(_:offer:)``, with an offer or without: the
    /// outcome; a success raises the tier.
    public static var purchase: Self { Self("purchase(_:offer:)") }
}

extension FakeMethod where Fake == FakeSubscriptionService, Output == Bool {
    /// ``FakeSubscriptionService/isEligibleForIntroOffer(groupID:)``: the answer.
    public static var isEligibleForIntroOffer: Self { Self("isEligibleForIntroOffer(groupID:)") }
}

extension FakeMethod where Fake == FakeSubscriptionService, Output == SubscriptionTier {
    /// ``FakeSubscriptionService/restorePurchases()``: the tier, which becomes current.
    public static var restorePurchases: Self { Self("restorePurchases()") }
}

extension FakeMethod where Fake == FakeSubscriptionService, Output == Void {
    /// ``FakeSubscriptionService/finish(_:)``.
    public static var finish: Self { Self("finish(_:)") }
}

extension FakeMethod where Fake == FakeSubscriptionService, Output == [StoreVerificationResult<AppStoreTransaction>] {
    /// ``FakeSubscriptionService/currentEntitlements()``: the transactions.
    public static var currentEntitlements: Self { Self("currentEntitlements()") }
    /// ``FakeSubscriptionService/allTransactions()``: the transactions.
    public static var allTransactions: Self { Self("allTransactions()") }
    /// ``FakeSubscriptionService/unfinishedTransactions()``: the transactions.
    public static var unfinishedTransactions: Self { Self("unfinishedTransactions()") }
}

extension FakeMethod where Fake == FakeSubscriptionService, Output == StoreStorefront {
    /// ``FakeSubscriptionService/storefront()``: the storefront.
    public static var storefront: Self { Self("storefront()") }
}

extension FakeMethod where Fake == FakeSubscriptionService, Output == StoreVerificationResult<AppTransactionInfo> {
    /// ``FakeSubscriptionService/appTransaction()``: the app transaction.
    public static var appTransaction: Self { Self("appTransaction()") }
}

extension FakeMethod where Fake == FakeSubscriptionService, Output == StoreVerificationResult<AppStoreTransaction>? {
    /// ``FakeSubscriptionService/latestTransaction(for:)``: the transaction, or nil.
    public static var latestTransaction: Self { Self("latestTransaction(for:)") }
}

extension FakeMethod where Fake == FakeSubscriptionService, Output == [RenewalStatus] {
    /// ``FakeSubscriptionService/subscriptionStatuses()``: the statuses.
    public static var subscriptionStatuses: Self { Self("subscriptionStatuses()") }
}
