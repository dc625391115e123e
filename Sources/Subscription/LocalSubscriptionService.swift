import Foundation
import Synchronization
import TrainCore

/// TrainKit's ``SubscriptionService``: the device side of StoreKit 2 — entitlement,
/// delivery and finishing — on a ``SimulatedAppStore``. In memory or file-backed
/// depends only on the store it is given.
///
/// The store tells the service of every change as it happens, so ``currentTier``
/// reflects a purchase, a renewal or a refund as soon as the store call returns, and
/// a renewal or lapse as soon as the clock passes its date.
///
/// ```swift
/// let store = try SimulatedAppStore(storage: .file(directory.appendingPathComponent("train.sqlite")))
/// let subscriptions = LocalSubscriptionService(store: store, appAccountToken: userToken)
/// for await tier in subscriptions.tierChanges() { print("tier:", tier) }
/// ```
public final class LocalSubscriptionService: SubscriptionService {
    /// The store this service buys from.
    public let store: SimulatedAppStore

    private struct Listener {
        let continuation: AsyncStream<StoreVerificationResult<StoreTransaction>>.Continuation
        /// The latest revision of each transaction handed over, so an older state that
        /// arrives late is not handed over after a newer one.
        var delivered: [UInt64: Int]

        /// Hands over `result` unless this listener already has it or a newer state of it.
        mutating func deliver(_ result: StoreVerificationResult<StoreTransaction>, revision: Int) {
            let id = result.unsafePayloadValue.id
            guard (delivered[id] ?? -1) < revision else { return }
            delivered[id] = revision
            continuation.yield(result)
        }
    }

    private struct State {
        var appAccountToken: UUID?
        var engine: EntitlementEngine
        var listeners: [Int: Listener] = [:]
        var nextListenerID = 0
        var requests = 0
    }

    // The service's state, behind one lock. It is never held while calling into the
    // store's changes (which call back into `handle`), only while reading the store.
    private let state: Mutex<State>
    private let inProgress = Mutex(false)
    private let tiers: Broadcast<SubscriptionTier>
    private let observation = Mutex<Int?>(nil)

    /// Creates the service.
    /// - Parameters:
    ///   - store: The App Store to buy from and read the ledger of.
    ///   - appAccountToken: The signed-in app user, if any.
    public init(store: SimulatedAppStore, appAccountToken: UUID? = nil) {
        self.store = store
        state = Mutex(State(appAccountToken: appAccountToken, engine: EntitlementEngine(products: store.products)))
        tiers = Broadcast(initial: .free)
        // Listen first, then read the history under the lock: a change reported in
        // between is applied again afterwards, which is harmless.
        let id = store.addObserver { [weak self] event in self?.handle(event) }
        observation.withLock { $0 = id }
        rebuild()
    }

    deinit {
        if let id = observation.withLock({ $0 }) { store.removeObserver(id) }
        tiers.finish()
        state.withLock { state in state.listeners.values.forEach { $0.continuation.finish() } }
    }

    /// The tier the user's entitlements grant at the store clock's present (renewals
    /// and lapses due by now are applied first).
    public var currentTier: SubscriptionTier {
        store.settle()
        let now = store.clock.now
        return state.withLock { $0.engine.tier(at: now) }
    }

    /// Whether a purchase is in progress.
    public var isPurchaseInProgress: Bool { inProgress.withLock { $0 } }

    /// What the current tier may use under `catalog`.
    /// - Parameter catalog: The tier-to-feature mapping.
    /// - Returns: The feature access.
    public func featureAccess(catalog: FeatureCatalog = .standard) -> FeatureAccess {
        FeatureAccess(tier: currentTier, catalog: catalog)
    }

    /// The products on sale.
    /// - Returns: The store's products.
    public func products() async throws -> [StoreProduct] {
        store.products
    }

    /// Buys a product for the signed-in app user; the purchase is in progress while
    /// the (simulated) sheet is up.
    /// - Parameter productID: The product.
    /// - Returns: Its transaction, `.userCancelled`, or `.pending`.
    /// - Throws: ``SubscriptionError`` — `noAppAccount`, `productNotFound`,
    ///   `purchaseInProgress`, or the store's failure; nothing changes.
    public func purchase(_ productID: String) async throws -> StorePurchaseResult {
        guard let token = state.withLock({ $0.appAccountToken }) else { throw SubscriptionError(.noAppAccount) }
        guard let product = store.product(productID) else { throw SubscriptionError(.productNotFound, detail: "No product '\(productID)'.") }
        let started = inProgress.withLock { busy in
            defer { busy = true }
            return !busy
        }
        guard started else { throw SubscriptionError(.purchaseInProgress) }
        defer { inProgress.withLock { $0 = false } }
        let delay = store.purchaseSheetDelay
        if delay > .zero { try await store.clock.sleep(for: delay) }
        let request = state.withLock { state in
            state.requests += 1
            return "request-\(state.requests)-\(UUID().uuidString.prefix(8))"
        }
        // The store reports the new transaction through `handle` before it returns.
        return try store.purchase(product, appAccountToken: token, requestID: request)
    }

    /// Brings the ledger up to now and recomputes the entitlements from it.
    /// - Returns: The tier.
    public func restorePurchases() async throws -> SubscriptionTier {
        store.settle()
        rebuild()
        return currentTier
    }

    /// Renewals, refunds, Ask to Buy outcomes and outside purchases; unfinished
    /// transactions first (SUB-5). The listener exists from the moment this returns.
    /// - Returns: The stream.
    public func transactionUpdates() -> AsyncStream<StoreVerificationResult<StoreTransaction>> {
        let (stream, continuation) = AsyncStream<StoreVerificationResult<StoreTransaction>>.makeStream()
        let store = store
        let id = state.withLock { state in
            let id = state.nextListenerID
            state.nextListenerID += 1
            var listener = Listener(continuation: continuation, delivered: [:])
            if let token = state.appAccountToken {
                for (result, revision) in store.unfinished(of: token) { listener.deliver(result, revision: revision) }
            }
            state.listeners[id] = listener
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.listeners.removeValue(forKey: id) }
        }
        return stream
    }

    /// The tier now, then each change.
    /// - Returns: The stream.
    public func tierChanges() -> AsyncStream<SubscriptionTier> {
        tiers.subscribe()
    }

    /// Finishes a transaction of the signed-in user; idempotent.
    /// - Parameter transactionID: The transaction.
    /// - Throws: ``SubscriptionError`` — `transactionNotFound`, `notYourTransaction`.
    public func finish(_ transactionID: UInt64) async throws {
        try store.finish(transactionID, appAccountToken: state.withLock { $0.appAccountToken })
    }

    /// The transactions that grant access now.
    /// - Returns: The user's verified, unrevoked, not upgraded, active transactions.
    public func currentEntitlements() async throws -> [StoreTransaction] {
        guard let token = state.withLock({ $0.appAccountToken }) else { return [] }
        store.settle()
        let now = store.clock.now
        let history = store.history(of: token)
        return history.transactions.compactMap { result in
            guard case .verified(let transaction) = result, transaction.revocationDate == nil, !transaction.isUpgraded else { return nil }
            let until = max(transaction.expirationDate ?? .distantFuture, history.grace[transaction.id] ?? .distantPast)
            return now <= until ? transaction : nil
        }
    }

    /// The state and renewal info of each of the user's subscriptions.
    /// - Returns: One status per subscription.
    public func subscriptionStatuses() async throws -> [SubscriptionStatus] {
        guard let token = state.withLock({ $0.appAccountToken }) else { return [] }
        store.settle()
        return store.statuses(of: token)
    }

    /// Switches to another app user (or to nobody): their entitlements, and only theirs, count.
    /// - Parameter token: The user's `appAccountToken`, or nil.
    public func setAppAccountToken(_ token: UUID?) async {
        rebuild(switchingTo: .some(token))
    }

    // MARK: - Store changes

    private func handle(_ event: SimulatedAppStore.Event) {
        switch event {
        case .transaction(let result, let revision, let returnedByPurchase):
            let applied: Bool = state.withLock { state in
                guard let token = state.appAccountToken, result.unsafePayloadValue.appAccountToken == token else { return false }
                state.engine.apply(result)
                guard !returnedByPurchase else { return true }
                for id in state.listeners.keys { state.listeners[id]?.deliver(result, revision: revision) }
                return true
            }
            if applied { publishTier() }
        case .status(let token):
            if token != nil, token == state.withLock({ $0.appAccountToken }) { rebuild() }
        }
    }

    /// Recomputes the entitlements of the current user (or of `newUser`, switching to
    /// them) from the store's ledger. The lock is held throughout, so no change the
    /// store reports meanwhile can be overwritten by an older reading; the store is only
    /// read here, and it never calls back while it is being read.
    private func rebuild(switchingTo newUser: UUID?? = .none) {
        let now = store.clock.now
        state.withLock { state in
            if let newUser { state.appAccountToken = newUser }
            var engine = EntitlementEngine(products: store.products)
            if let token = state.appAccountToken {
                let history = store.history(of: token)
                history.transactions.forEach { engine.apply($0) }
                for (id, end) in history.grace { engine.setGracePeriodEnd(end, forTransaction: id) }
            }
            state.engine = engine
            publish(&state, now: now)
        }
    }

    private func publishTier() {
        state.withLock { publish(&$0, now: store.clock.now) }
    }

    /// Sends the tier if it changed; called with the lock held, so sends are in order.
    private func publish(_ state: inout State, now: Date) {
        let tier = state.engine.tier(at: now)
        if tier != tiers.value { tiers.send(tier) }
    }
}
