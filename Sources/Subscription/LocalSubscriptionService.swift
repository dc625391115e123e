import Foundation
import Synchronization
import TrainCore

/// TrainKit's ``SubscriptionService``: the device side of StoreKit 2 — entitlement,
/// delivery and finishing — on a ``SimulatedAppStore``. In memory or file-backed
/// depends only on the store it is given.
///
/// ```swift
/// let store = try SimulatedAppStore(fileAt: directory.appendingPathComponent("train.sqlite"))
/// let subscriptions = LocalSubscriptionService(store: store, appAccountToken: userToken)
/// for await tier in subscriptions.tierChanges() { print("tier:", tier) }
/// ```
public actor LocalSubscriptionService: SubscriptionService {
    /// The store this service buys from.
    public nonisolated let store: SimulatedAppStore
    private nonisolated let engine: Mutex<EntitlementEngine>
    private nonisolated let inProgress = Mutex(false)
    private nonisolated let tiers: Broadcast<SubscriptionTier>
    private nonisolated let eventTask = Mutex<Task<Void, Never>?>(nil)
    /// The app user and the update listeners, shared with the nonisolated registration
    /// so that a listener exists from the moment `transactionUpdates()` returns.
    private nonisolated let shared: Mutex<Shared>
    private var graceKnown: Set<UInt64> = []
    private var requests = 0

    private struct Listener {
        let continuation: AsyncStream<VerificationResult<Transaction>>.Continuation
        var delivered: Set<Transaction>
    }

    private struct Shared {
        var appAccountToken: UUID?
        var listeners: [Int: Listener] = [:]
        var nextListenerID = 0
    }

    private nonisolated var appAccountToken: UUID? { shared.withLock { $0.appAccountToken } }

    /// Creates the service.
    /// - Parameters:
    ///   - store: The App Store to buy from and read the ledger of.
    ///   - appAccountToken: The signed-in app user, if any.
    public init(store: SimulatedAppStore, appAccountToken: UUID? = nil) {
        self.store = store
        shared = Mutex(Shared(appAccountToken: appAccountToken))
        var engine = EntitlementEngine(products: store.products)
        var grace: Set<UInt64> = []
        if let appAccountToken {
            let history = store.history(of: appAccountToken)
            history.transactions.forEach { engine.apply($0) }
            for (id, end) in history.grace { engine.setGracePeriodEnd(end, forSubscription: id) }
            grace = Set(history.grace.keys)
        }
        graceKnown = grace
        let tier = engine.tier(at: store.clock.now)
        self.engine = Mutex(engine)
        tiers = Broadcast(initial: tier)
        let events = store.events.subscribe(replayingCurrent: false)
        let task = Task { [weak self] in
            for await event in events {
                guard let event else { continue }
                await self?.handle(event)
            }
        }
        eventTask.withLock { $0 = task }
    }

    deinit {
        eventTask.withLock { $0?.cancel() }
        tiers.finish()
    }

    /// The tier the user's entitlements grant at the store clock's present.
    public nonisolated var currentTier: SubscriptionTier {
        let now = store.clock.now
        return engine.withLock { $0.tier(at: now) }
    }

    /// Whether a purchase is in progress.
    public nonisolated var isPurchaseInProgress: Bool { inProgress.withLock { $0 } }

    /// What the current tier may use under `catalog`.
    /// - Parameter catalog: The tier-to-feature mapping.
    /// - Returns: The feature access.
    public nonisolated func featureAccess(catalog: FeatureCatalog = .standard) -> FeatureAccess {
        FeatureAccess(tier: currentTier, catalog: catalog)
    }

    /// The products on sale.
    /// - Returns: The store's products.
    public func products() async throws -> [Product] {
        store.products
    }

    /// Buys a product for the signed-in app user; the purchase is in progress while
    /// the (simulated) sheet is up.
    /// - Parameter productID: The product.
    /// - Returns: Its transaction, `.userCancelled`, or `.pending`.
    /// - Throws: ``SubscriptionError`` — `noAppAccount`, `productNotFound`,
    ///   `purchaseInProgress`, or the store's failure; nothing changes.
    public func purchase(_ productID: String) async throws -> PurchaseResult {
        guard let token = appAccountToken else { throw SubscriptionError(.noAppAccount) }
        guard let product = store.product(productID) else { throw SubscriptionError(.productNotFound, detail: "No product '\(productID)'.") }
        let started = inProgress.withLock { busy in
            defer { busy = true }
            return !busy
        }
        guard started else { throw SubscriptionError(.purchaseInProgress) }
        defer { inProgress.withLock { $0 = false } }
        let delay = store.purchaseSheetDelay
        if delay > .zero { try await store.clock.sleep(for: delay) }
        requests += 1
        let result = try store.purchase(product, appAccountToken: token, requestID: "request-\(requests)-\(UUID().uuidString.prefix(8))")
        if case .success(let transaction) = result, appAccountToken == token {
            engine.withLock { $0.apply(transaction) }
            publishTier()
        }
        return result
    }

    /// Brings the ledger up to now and recomputes the entitlements from it.
    /// - Returns: The tier.
    public func restorePurchases() async throws -> SubscriptionTier {
        rebuild()
        return currentTier
    }

    /// Renewals, refunds, Ask to Buy outcomes and outside purchases; unfinished
    /// transactions first (SUB-5).
    /// - Returns: The stream.
    public nonisolated func transactionUpdates() -> AsyncStream<VerificationResult<Transaction>> {
        let (stream, continuation) = AsyncStream<VerificationResult<Transaction>>.makeStream()
        let id = shared.withLock { shared in
            defer { shared.nextListenerID += 1 }
            return shared.nextListenerID
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.shared.withLock { $0.listeners.removeValue(forKey: id) }
        }
        let store = store
        shared.withLock { shared in
            var listener = Listener(continuation: continuation, delivered: [])
            if let token = shared.appAccountToken {
                for result in store.unfinished(of: token) {
                    continuation.yield(result)
                    listener.delivered.insert(result.unsafePayloadValue)
                }
            }
            shared.listeners[id] = listener
        }
        return stream
    }

    /// The tier now, then each change.
    /// - Returns: The stream.
    public nonisolated func tierChanges() -> AsyncStream<SubscriptionTier> {
        tiers.subscribe()
    }

    /// Finishes a transaction of the signed-in user; idempotent.
    /// - Parameter transactionID: The transaction.
    /// - Throws: ``SubscriptionError`` — `transactionNotFound`, `notYourTransaction`.
    public func finish(_ transactionID: UInt64) async throws {
        try store.finish(transactionID, appAccountToken: appAccountToken)
    }

    /// The transactions that grant access now.
    /// - Returns: The user's verified, unrevoked, not upgraded, active transactions.
    public func currentEntitlements() async throws -> [Transaction] {
        guard let token = appAccountToken else { return [] }
        let now = store.clock.now
        let history = store.history(of: token)
        return history.transactions.compactMap { result in
            guard case .verified(let transaction) = result, transaction.revocationDate == nil, !transaction.isUpgraded else { return nil }
            let until = max(transaction.expirationDate ?? .distantFuture, history.grace[transaction.originalID] ?? .distantPast)
            return now <= until ? transaction : nil
        }
    }

    /// The state and renewal info of each of the user's subscriptions.
    /// - Returns: One status per subscription.
    public func subscriptionStatuses() async throws -> [SubscriptionStatus] {
        guard let token = appAccountToken else { return [] }
        return store.statuses(of: token)
    }

    /// Switches to another app user (or to nobody): their entitlements, and only theirs, count.
    /// - Parameter token: The user's `appAccountToken`, or nil.
    public func setAppAccountToken(_ token: UUID?) async {
        shared.withLock { $0.appAccountToken = token }
        rebuild()
    }

    // MARK: - Events

    private func handle(_ event: SimulatedAppStore.Event) {
        switch event {
        case .transaction(let result, let returnedByPurchase):
            guard let token = appAccountToken, result.unsafePayloadValue.appAccountToken == token else { return }
            engine.withLock { $0.apply(result) }
            if !returnedByPurchase { deliver(result) }
            publishTier()
        case .status(let token):
            guard let current = appAccountToken, token == current else { return }
            refreshGrace(store.history(of: current).grace)
            publishTier()
        }
    }

    private func deliver(_ result: VerificationResult<Transaction>) {
        shared.withLock { shared in
            for (id, listener) in shared.listeners where !listener.delivered.contains(result.unsafePayloadValue) {
                listener.continuation.yield(result)
                shared.listeners[id]?.delivered.insert(result.unsafePayloadValue)
            }
        }
    }

    private func rebuild() {
        var fresh = EntitlementEngine(products: store.products)
        graceKnown = []
        if let token = appAccountToken {
            let history = store.history(of: token)
            history.transactions.forEach { fresh.apply($0) }
            for (id, end) in history.grace { fresh.setGracePeriodEnd(end, forSubscription: id) }
            graceKnown = Set(history.grace.keys)
        }
        engine.withLock { $0 = fresh }
        publishTier()
    }

    private func refreshGrace(_ grace: [UInt64: Date]) {
        engine.withLock { engine in
            for id in graceKnown.union(grace.keys) { engine.setGracePeriodEnd(grace[id], forSubscription: id) }
        }
        graceKnown = Set(grace.keys)
    }

    private func publishTier() {
        let tier = currentTier
        if tier != tiers.value { tiers.send(tier) }
    }
}
