import Foundation
import Synchronization
import TrainCore
import TrainSubscription

/// A scriptable ``SubscriptionService`` for unit tests of view models (TEST-1).
///
/// Calls are recorded; scripted results are returned until scripted again;
/// unscripted calls return plausible defaults, or throw ``FakeError/unimplemented(_:)``
/// when the fake is strict. ``setTier(_:)`` and ``sendTransactionUpdate(_:)`` drive
/// the two streams; ``controls`` inject failures, latency and holds.
///
/// ```swift
/// let subscriptions = FakeSubscriptionService()
/// subscriptions.scriptPurchase(.success(.pending))
/// let model = PaywallModel(subscriptions: subscriptions)
/// await model.buy("com.train.pro.monthly")
/// #expect(model.message == "Waiting for approval")
/// #expect(subscriptions.calls == [.purchase("com.train.pro.monthly")])
/// ```
public final class FakeSubscriptionService: SubscriptionService {
    /// A recorded call.
    public enum Call: Hashable, Sendable {
        /// ``products()``.
        case products
        /// ``purchase(_:)``.
        case purchase(String)
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
        /// ``subscriptionStatuses()``.
        case subscriptionStatuses
        /// ``setAppAccountToken(_:)``.
        case setAppAccountToken(UUID?)
    }

    /// Failure injection, latency and holding.
    public let controls: FakeControls<Call>
    /// Whether unscripted calls throw ``FakeError/unimplemented(_:)``.
    public let isStrict: Bool
    private let tiers: Broadcast<SubscriptionTier>
    private let updates = Broadcast<StoreVerificationResult<StoreTransaction>?>(initial: nil)
    private let purchasesInFlight = Mutex(0)

    private struct Scripts {
        var products: Result<[StoreProduct], SubscriptionError>?
        var purchase: Result<StorePurchaseResult, SubscriptionError>?
        var restore: Result<SubscriptionTier, SubscriptionError>?
        var finish: SubscriptionError??
        var entitlements: Result<[StoreTransaction], SubscriptionError>?
        var statuses: Result<[SubscriptionStatus], SubscriptionError>?
        var nextTransactionID: UInt64 = 1
    }

    private let scripts = Mutex(Scripts())

    /// Creates a fake.
    /// - Parameters:
    ///   - tier: The tier at the start.
    ///   - strict: Whether unscripted calls throw instead of returning defaults.
    ///   - clock: The clock ``FakeControls/latency`` sleeps on.
    public init(tier: SubscriptionTier = .free, strict: Bool = false, clock: (any DateClock)? = nil) {
        tiers = Broadcast(initial: tier)
        isStrict = strict
        controls = FakeControls(clock: clock)
    }

    /// Every call made so far.
    public var calls: [Call] { controls.calls }

    /// The current tier.
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
    public func sendTransactionUpdate(_ update: StoreVerificationResult<StoreTransaction>) {
        updates.send(update)
    }

    /// Scripts ``products()``.
    /// - Parameter result: What it returns from now on.
    public func scriptProducts(_ result: Result<[StoreProduct], SubscriptionError>) { scripts.withLock { $0.products = result } }
    /// Scripts ``purchase(_:)``; a success sets the tier to the product's.
    /// - Parameter result: What it returns from now on.
    public func scriptPurchase(_ result: Result<StorePurchaseResult, SubscriptionError>) { scripts.withLock { $0.purchase = result } }
    /// Scripts ``restorePurchases()``; a success sets the tier.
    /// - Parameter result: What it returns from now on.
    public func scriptRestore(_ result: Result<SubscriptionTier, SubscriptionError>) { scripts.withLock { $0.restore = result } }
    /// Scripts ``finish(_:)``.
    /// - Parameter error: The error it throws from now on, or nil to succeed.
    public func scriptFinish(failingWith error: SubscriptionError?) { scripts.withLock { $0.finish = .some(error) } }
    /// Scripts ``currentEntitlements()``.
    /// - Parameter result: What it returns from now on.
    public func scriptEntitlements(_ result: Result<[StoreTransaction], SubscriptionError>) { scripts.withLock { $0.entitlements = result } }
    /// Scripts ``subscriptionStatuses()``.
    /// - Parameter result: What it returns from now on.
    public func scriptStatuses(_ result: Result<[SubscriptionStatus], SubscriptionError>) { scripts.withLock { $0.statuses = result } }

    private func resolve<Value>(_ name: String, _ scripted: Result<Value, SubscriptionError>?, fallback: () throws -> Value) throws -> Value {
        if let scripted { return try scripted.get() }
        if isStrict { throw FakeError.unimplemented(name) }
        return try fallback()
    }

    /// Recorded; returns the scripted products, or ``StoreProduct/standard``.
    /// - Returns: The products.
    public func products() async throws -> [StoreProduct] {
        try await controls.record(.products)
        return try resolve("products()", scripts.withLock { $0.products }) { StoreProduct.standard }
    }

    /// Recorded; in progress until it returns. Returns the scripted result, or a verified
    /// transaction of the product; a success sets the tier.
    /// - Parameter productID: The product.
    /// - Returns: The result.
    public func purchase(_ productID: String) async throws -> StorePurchaseResult {
        purchasesInFlight.withLock { $0 += 1 }
        defer { purchasesInFlight.withLock { $0 -= 1 } }
        try await controls.record(.purchase(productID))
        let result = try resolve("purchase(_:)", scripts.withLock { $0.purchase }) {
            guard StoreProduct.standard.contains(where: { $0.id == productID }) else {
                throw SubscriptionError(.productNotFound, detail: "No product '\(productID)'.")
            }
            let id = scripts.withLock { scripts in
                defer { scripts.nextTransactionID += 1 }
                return scripts.nextTransactionID
            }
            return .success(.verified(StoreTransaction(id: id, productID: productID, purchaseDate: ManualClock.defaultStart,
                                                  expirationDate: ManualClock.defaultStart.addingTimeInterval(30 * 86_400))))
        }
        if case .success(let transaction) = result, transaction.isVerified,
           let tier = StoreProduct.standard.first(where: { $0.id == transaction.unsafePayloadValue.productID })?.tier {
            setTier(max(tier, currentTier))
        }
        return result
    }

    /// Recorded; returns the scripted tier (and sets it), or the current tier.
    /// - Returns: The tier.
    public func restorePurchases() async throws -> SubscriptionTier {
        try await controls.record(.restorePurchases)
        let tier = try resolve("restorePurchases()", scripts.withLock { $0.restore }) { currentTier }
        setTier(tier)
        return tier
    }

    /// Recorded; yields what ``sendTransactionUpdate(_:)`` sends from now on.
    /// - Returns: The stream.
    public func transactionUpdates() -> AsyncStream<StoreVerificationResult<StoreTransaction>> {
        controls.recordSynchronously(.transactionUpdates)
        let source = updates.subscribe(replayingCurrent: false)
        return AsyncStream { continuation in
            let forward = Task {
                for await update in source {
                    if let update { continuation.yield(update) }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in forward.cancel() }
        }
    }

    /// Recorded; the tier now, then what ``setTier(_:)`` sets.
    /// - Returns: The stream.
    public func tierChanges() -> AsyncStream<SubscriptionTier> {
        controls.recordSynchronously(.tierChanges)
        return tiers.subscribe()
    }

    /// Recorded; succeeds unless scripted to fail.
    /// - Parameter transactionID: The transaction.
    public func finish(_ transactionID: UInt64) async throws {
        try await controls.record(.finish(transactionID))
        let scripted = scripts.withLock { $0.finish }
        if let scripted {
            if let error = scripted { throw error }
            return
        }
        if isStrict { throw FakeError.unimplemented("finish(_:)") }
    }

    /// Recorded; returns the scripted transactions, or none.
    /// - Returns: The entitlements.
    public func currentEntitlements() async throws -> [StoreTransaction] {
        try await controls.record(.currentEntitlements)
        return try resolve("currentEntitlements()", scripts.withLock { $0.entitlements }) { [] }
    }

    /// Recorded; returns the scripted statuses, or none.
    /// - Returns: The statuses.
    public func subscriptionStatuses() async throws -> [SubscriptionStatus] {
        try await controls.record(.subscriptionStatuses)
        return try resolve("subscriptionStatuses()", scripts.withLock { $0.statuses }) { [] }
    }

    /// Recorded; does nothing else.
    /// - Parameter token: The app user.
    public func setAppAccountToken(_ token: UUID?) async {
        try? await controls.record(.setAppAccountToken(token), canFail: false)
    }
}
