import Foundation
import TrainAuth
import TrainCore

/// What a ``LocalSubscriptionService`` is built with besides its collaborators and context.
public struct SubscriptionConfiguration: Sendable {
    /// The app user's token for a service without an auth service, if any; nil by
    /// default. A service given an auth service uses its signed-in user's token.
    public var appAccountToken: UUID?
    /// Which app user has access to what the Apple ID owns: all of them, as StoreKit,
    /// by default.
    public var accessPolicy: SubscriptionAccessPolicy = .appleID

    /// Creates a configuration.
    /// - Parameters:
    ///   - appAccountToken: The signed-in app user's token; none by default.
    ///   - accessPolicy: Who has access; every app user of the Apple ID by default.
    public init(appAccountToken: UUID? = nil, accessPolicy: SubscriptionAccessPolicy = .appleID) {
        self.appAccountToken = appAccountToken
        self.accessPolicy = accessPolicy
    }
}

/// TrainKit's ``SubscriptionService``: the device side of StoreKit 2 — entitlement,
/// delivery and finishing — on a ``SimulatedAppStore``. In memory or file-backed
/// depends only on the store it is given.
///
/// The store tells the service of every change as it happens, and the service keeps
/// its entitlements up to date one change at a time: ``currentTier`` reflects a
/// purchase, a renewal or a refund as soon as the store call returns, costs the same
/// whatever the length of the history, and never writes to the store. A renewal due
/// by the clock counts at once, even before the store has recorded it.
///
/// What counts is what the store's device Apple ID owns, as in StoreKit: by default
/// everything it bought, whichever app user is signed in or none
/// (``SubscriptionAccessPolicy/appleID``); with ``SubscriptionAccessPolicy/appAccountToken``,
/// only what the signed-in app user bought.
///
/// ```swift
/// let store = try SimulatedAppStore(storage: .file(directory.appendingPathComponent("train.sqlite")))
/// let subscriptions = LocalSubscriptionService(store: store, context: store.context)
/// for await tier in subscriptions.tierChanges() { print("tier:", tier) }
/// ```
public final class LocalSubscriptionService: SubscriptionService {
    /// The store this service buys from.
    public let store: SimulatedAppStore
    /// The auth service whose signed-in user's token tags purchases and, under
    /// ``SubscriptionAccessPolicy/appAccountToken``, decides what counts; nil for a token
    /// set by hand (``setAppAccountToken(_:)``).
    public let auth: (any AuthSession)?
    /// The device's clock and the IDs of purchase requests.
    public let context: TrainContext
    /// Which app user has access to what the device's Apple ID owns.
    public let accessPolicy: SubscriptionAccessPolicy

    private struct Listener {
        let continuation: AsyncStream<StoreVerificationResult<AppStoreTransaction>>.Continuation
        /// The latest revision of each transaction handed over, so an older state that
        /// arrives late is not handed over after a newer one.
        var delivered: [UInt64: Int] = [:]

        /// Hands over `result` unless this listener already has it or a newer state of it.
        mutating func deliver(_ result: StoreVerificationResult<AppStoreTransaction>, revision: Int) {
            let id = result.unsafePayloadValue.id
            guard (delivered[id] ?? -1) < revision else { return }
            delivered[id] = revision
            continuation.yield(result)
        }
    }

    private struct State {
        var appAccountToken: UUID?
        /// The auth service's user the token is of, for a service that follows one.
        var followedUserID: String?
        /// The device's Apple ID at the last rebuild: the entitlements are of its transactions.
        var appleID = AppleID.standard
        var engine: EntitlementEngine
        /// The store's grace-event number at the last rebuild: those up to it are in the engine.
        var rebuiltAt: UInt64 = 0
        /// The number of the last grace event applied, by transaction.
        var graceApplied: [UInt64: UInt64] = [:]
        var listeners: [Int: Listener] = [:]
        var nextListenerID = 0
        var requests = 0
        /// How many times the entitlements were recomputed from the whole history.
        var rebuilds = 0

        /// The change `event` makes for the current user, seen under `policy`, or nil:
        /// another user's, a grace event the entitlements already have, or an event that
        /// changes none. It changes nothing: it is `mutating` so that it reads the state
        /// in place, where a call on a copy would retain and release each of its fields.
        mutating func change(_ event: SimulatedAppStore.Event, policy: SubscriptionAccessPolicy) -> Change? {
            let viewer = SimulatedAppStore.Audience(policy: policy, token: appAccountToken)
            switch event {
            case .transaction(let result, let owner, let revision, let returnedByPurchase):
                guard viewer.sees(owner: owner, token: result.unsafePayloadValue.appAccountToken, on: appleID) else { return nil }
                return .transaction(result, revision: revision, returnedByPurchase: returnedByPurchase)
            case .grace(let owner, let token, let transactionID, let end, let sequence):
                guard viewer.sees(owner: owner, token: token, on: appleID), sequence > rebuiltAt, sequence > graceApplied[transactionID] ?? 0
                else { return nil }
                return .grace(transactionID: transactionID, end: end, sequence: sequence)
            case .status, .reloaded, .notification:
                return nil
            }
        }
    }

    // The service's state, behind one lock. It is never held while calling into the
    // store's changes (which call back into `handle`), only while reading the store
    // and, in a switch of user, the auth service's `currentUser`, which calls nothing
    // of this service.
    private let state: Locked<State>
    private let inProgress = Locked(false)
    private let tiers: Broadcast<SubscriptionTier>
    private let observation = Locked<Int?>(nil)
    /// Follows the auth state, so the tier and the update listeners switch user without a call.
    private let authFollower = Locked<Task<Void, Never>?>(nil)

    /// Creates the service.
    /// - Parameters:
    ///   - store: The App Store to buy from and read the ledger of.
    ///   - auth: The auth service whose signed-in user the service follows by itself:
    ///     their app account token (``AppAccountToken/forUser(_:)``) tags purchases, and
    ///     the tier and update listeners switch when another user signs in, with no call
    ///     by the app. Nil for a token set by hand.
    ///   - context: The device's clock, which entitlements are checked against, and the
    ///     IDs of purchase requests; the live ones by default. Give it the store's
    ///     context (`store.context`) for a device whose clock is the store's.
    ///   - configuration: Who has access, and the token of a service without an auth service.
    public init(
        store: SimulatedAppStore, auth: (any AuthSession)? = nil, context: TrainContext = .live,
        configuration: SubscriptionConfiguration = SubscriptionConfiguration()
    ) {
        self.store = store
        self.auth = auth
        self.context = context
        self.accessPolicy = configuration.accessPolicy
        let userID = auth?.currentUser?.id
        var initial = State(
            appAccountToken: auth == nil ? configuration.appAccountToken : Self.token(of: userID), engine: EntitlementEngine(products: store.products)
        )
        initial.followedUserID = userID
        state = Locked(initial)
        tiers = Broadcast(initial: .free)
        // Listen first, then read the history under the lock: a change reported in
        // between is applied again afterwards, which is harmless.
        let id = store.addObserver { [weak self] events in self?.handle(events) }
        observation.withLock { $0 = id }
        rebuild()
        if let auth {
            let states = auth.authStateChanges()
            let follower = Task { [weak self] in
                for await _ in states { self?.followAuth() }
            }
            authFollower.withLock { $0 = follower }
        }
    }

    /// The app account token of `userID`, or nil for nobody (or an ID no token can be made of).
    private static func token(of userID: String?) -> UUID? {
        userID.flatMap { try? AppAccountToken.forUser($0) }
    }

    /// Switches to the auth service's signed-in user if another one is signed in now:
    /// called by every read and purchase, so each acts for the user signed in when it
    /// starts, and by the follower of the auth state.
    private func followAuth() {
        guard let auth else { return }
        let userID = auth.currentUser?.id
        guard state.withLock({ $0.followedUserID != userID }) else { return }
        rebuild(followingAuth: true)
    }

    /// Creates the service on the store's clock.
    /// - Parameters:
    ///   - store: The App Store to buy from and read the ledger of.
    ///   - appAccountToken: The signed-in app user, if any.
    ///   - accessPolicy: Which app user has access to what the Apple ID owns.
    @available(*, deprecated, message: "Use init(store:auth:context:configuration:), with the store's context for the store's clock.")
    public convenience init(store: SimulatedAppStore, appAccountToken: UUID? = nil, accessPolicy: SubscriptionAccessPolicy = .appleID) {
        self.init(
            store: store, context: store.context,
            configuration: SubscriptionConfiguration(appAccountToken: appAccountToken, accessPolicy: accessPolicy))
    }

    deinit {
        authFollower.withLock { $0?.cancel() }
        if let id = observation.withLock({ $0 }) { store.removeObserver(id) }
        tiers.finish()
        state.withLock { state in for listener in state.listeners.values { listener.continuation.finish() } }
    }

    public var currentTier: SubscriptionTier {
        followAuth()
        store.refreshFromStorage()
        let now = context.clock.now
        guard store.isDue(at: now) else { return state.withLock { $0.engine.tier(at: now) } }
        // A renewal or grace period is due and the store has not recorded it yet:
        // answer as if it had, without writing or keeping anything.
        let preview = store.preview(at: now)
        return state.withLock { state in
            var transactions: [StoreVerificationResult<AppStoreTransaction>] = []
            var graceEnds: [(transactionID: UInt64, end: Date?)] = []
            for event in preview {
                switch state.change(event, policy: accessPolicy) {
                case .transaction(let result, _, _)?: transactions.append(result)
                case .grace(let transactionID, let end, _)?: graceEnds.append((transactionID, end))
                case nil: break
                }
            }
            return state.engine.tier(at: now, previewing: transactions, graceEnds: graceEnds)
        }
    }

    public var isPurchaseInProgress: Bool { inProgress.withLock { $0 } }

    /// The products sold in the store's storefront, each at its price there.
    public func products() async throws -> [AppStoreProduct] {
        try store.failIfSimulated(.loadProducts)
        return store.productsInStorefront
    }

    public func storefront() async throws -> StoreStorefront {
        store.storefront
    }

    /// Buys a product for the device's Apple ID, tagged with the signed-in app user's
    /// token if there is one; the purchase is in progress while the (simulated) sheet is
    /// up. Cancelling the calling task while the sheet is up ends the purchase as
    /// `.userCancelled`, buying nothing. Under ``SubscriptionAccessPolicy/appAccountToken``
    /// it needs a signed-in app user, and is ``TrainCore/TrainErrorCode/subscribedWithAnotherAccount``
    /// while the Apple ID's subscription in the group is another app user's or was bought
    /// outside the app untagged. Another app user signing in, or the device signing in to
    /// another Apple ID, while the sheet is up is ``TrainCore/TrainErrorCode/notYourTransaction``,
    /// and nothing is bought. An Apple ID new to the group gets the product's
    /// introductory offer by itself; `offer` asks for a promotional or win-back one.
    public func purchase(_ productID: String, offer: PurchaseOffer?) async throws -> StorePurchaseResult {
        followAuth()
        let token = state.withLock { $0.appAccountToken }
        if accessPolicy == .appAccountToken, token == nil { throw SubscriptionError(.noAppAccount) }
        let appleID = store.appleID
        guard let product = store.product(productID) else { throw SubscriptionError(.productNotFound, detail: "No product '\(productID)'.") }
        let started = inProgress.withLock { busy in
            defer { busy = true }
            return !busy
        }
        guard started else { throw SubscriptionError(.purchaseInProgress) }
        defer { inProgress.withLock { $0 = false } }
        let delay = store.purchaseSheetDelay
        if delay > .zero {
            do {
                try await context.clock.sleep(for: delay)
            } catch {
                return .userCancelled
            }
        }
        guard !Task.isCancelled else { return .userCancelled }
        let ids = context.ids
        let request = try state.withLock { state throws(SubscriptionError) -> String in
            // Read again after the sheet: the app user may have changed meanwhile.
            guard state.appAccountToken == token, auth.map({ Self.token(of: $0.currentUser?.id) == token }) ?? true else {
                throw SubscriptionError(
                    .notYourTransaction, detail: "Another app user signed in while the purchase sheet was up; nothing was bought.")
            }
            state.requests += 1
            return "request-\(state.requests)-\(ids.makeID())"
        }
        // The store returns what the purchase changed, and this service applies it: the
        // store calls back only the other services on it.
        let (result, events) = try store.purchase(
            product, offer: offer, appleID: appleID, appAccountToken: token, exclusive: accessPolicy == .appAccountToken, requestID: request,
            caller: observation.withLock { $0 })
        handle(events)
        return result
    }

    /// Whether the device's Apple ID has never had a subscription in the group, a free
    /// trial included, so its first purchase there gets the introductory offer.
    public func isEligibleForIntroOffer(groupID: String) async throws -> Bool {
        store.isEligibleForIntroOffer(groupID: groupID)
    }

    /// Brings the ledger up to now and recomputes the entitlements from it.
    public func restorePurchases() async throws -> SubscriptionTier {
        followAuth()
        try store.failIfSimulated(.appStoreSync)
        store.settle()
        rebuild()
        return currentTier
    }

    /// Renewals, refunds, Ask to Buy outcomes and outside purchases; unfinished
    /// transactions first, and those of each app user who signs in while it runs. The
    /// listener exists from the moment this returns.
    public func transactionUpdates() -> AsyncStream<StoreVerificationResult<AppStoreTransaction>> {
        followAuth()
        let (stream, continuation) = AsyncStream<StoreVerificationResult<AppStoreTransaction>>.makeStream()
        let store = store
        let id = state.withLock { state in
            let id = state.nextListenerID
            state.nextListenerID += 1
            var listener = Listener(continuation: continuation)
            for (result, revision) in store.unfinished(for: audience(state)) { listener.deliver(result, revision: revision) }
            state.listeners[id] = listener
            return id
        }
        continuation.onTermination = { [weak self] _ in
            // Removed from another task: a cancelled listener's task holds its own lock
            // here, and a delivery holding the state lock may be waiting for that lock.
            Task { [weak self] in _ = self?.state.withLock { $0.listeners.removeValue(forKey: id) } }
        }
        return stream
    }

    public func tierChanges() -> AsyncStream<SubscriptionTier> {
        tiers.subscribe()
    }

    public func finish(_ transactionID: UInt64) async throws {
        followAuth()
        try store.finish(transactionID, for: state.withLock { audience($0) })
    }

    /// The transactions that entitle the user now: each active auto-renewable
    /// subscription period (grace included), each non-consumable owned, and the latest
    /// purchase of each non-renewing subscription while its period runs — never a
    /// consumable. Unverified ones are listed as StoreKit lists them, and never count
    /// toward the tier. StoreKit lists a non-renewing subscription's latest transaction
    /// whether or not its period has run out, because it leaves that end to the app;
    /// this service knows the period.
    public func currentEntitlements() async throws -> [StoreVerificationResult<AppStoreTransaction>] {
        followAuth()
        let (viewer, engine) = state.withLock { (audience($0), $0.engine) }
        store.settle()
        let now = context.clock.now
        let history = store.history(for: viewer)
        // The latest of each non-renewing product, verified and not: a later unverified
        // purchase must not hide the verified one that grants the tier.
        struct PassKey: Hashable {
            var productID: String
            var verified: Bool
        }
        var latestNonRenewing: [PassKey: AppStoreTransaction] = [:]
        let active = history.transactions.filter { result in
            let transaction = result.unsafePayloadValue
            guard transaction.revocationDate == nil, !transaction.isUpgraded, let end = engine.entitlementEnd(of: transaction),
                now <= max(end, history.grace[transaction.id] ?? .distantPast)
            else { return false }
            if transaction.productType == .nonRenewable {
                let key = PassKey(productID: transaction.productID, verified: result.isVerified)
                if latestNonRenewing[key].map({ Self.isLater(transaction, than: $0) }) ?? true { latestNonRenewing[key] = transaction }
            }
            return true
        }
        return active.filter { result in
            let transaction = result.unsafePayloadValue
            return transaction.productType != .nonRenewable
                || latestNonRenewing[PassKey(productID: transaction.productID, verified: result.isVerified)]?.id == transaction.id
        }
    }

    public func allTransactions() async throws -> [StoreVerificationResult<AppStoreTransaction>] {
        followAuth()
        let viewer = state.withLock { audience($0) }
        store.settle()
        return store.transactions(for: viewer, includingFinishedConsumables: false)
    }

    public func unfinishedTransactions() async throws -> [StoreVerificationResult<AppStoreTransaction>] {
        followAuth()
        let viewer = state.withLock { audience($0) }
        store.settle()
        return store.unfinished(for: viewer).map(\.result)
    }

    public func latestTransaction(for productID: String) async throws -> StoreVerificationResult<AppStoreTransaction>? {
        followAuth()
        let viewer = state.withLock { audience($0) }
        store.settle()
        return store.transactions(for: viewer, includingFinishedConsumables: true).last { $0.unsafePayloadValue.productID == productID }
    }

    /// Whether `transaction` was bought after `other`: by purchase date, then identifier
    /// (an approved Ask to Buy request keeps its earlier identifier).
    static func isLater(_ transaction: AppStoreTransaction, than other: AppStoreTransaction) -> Bool {
        (transaction.purchaseDate, transaction.id) > (other.purchaseDate, other.id)
    }

    public func appTransaction() async throws -> StoreVerificationResult<AppTransactionInfo> {
        try store.failIfSimulated(.appTransaction)
        return store.appTransaction
    }

    public func subscriptionStatuses() async throws -> [RenewalStatus] {
        try store.failIfSimulated(.subscriptionStatus)
        followAuth()
        let viewer = state.withLock { audience($0) }
        store.settle()
        return store.statuses(for: viewer)
    }

    /// Switches to another app user (or to nobody). Under ``SubscriptionAccessPolicy/appAccountToken``
    /// their entitlements, and only theirs, count, and running update listeners receive
    /// their unfinished transactions; under ``SubscriptionAccessPolicy/appleID`` what
    /// counts stays the Apple ID's. A service given an auth service follows its
    /// signed-in user and ignores this call.
    public func setAppAccountToken(_ token: UUID?) async {
        guard auth == nil else { return }
        rebuild(switchingTo: .some(token))
    }

    /// How many times the entitlements were recomputed from the whole history: at
    /// creation, on a switch of user, on restore, and when the ledger was read again.
    /// Renewals, refunds and grace periods are applied one change at a time.
    var rebuildCount: Int { state.withLock { $0.rebuilds } }

    /// The entitlement engine's work so far (``EntitlementEngine/steps``): how a test
    /// tells that a change cost what it changed, not the length of the history.
    var engineSteps: Int { state.withLock { $0.engine.steps } }

    // MARK: - Store changes

    /// Applies one change's events, then publishes the tier once.
    private func handle(_ events: [SimulatedAppStore.Event]) {
        let now = context.clock.now
        let reloaded = events.contains { if case .reloaded = $0 { true } else { false } }
        if reloaded { rebuild() }
        state.withLock { state in
            // After a rebuild the engine already has these changes; listeners still get
            // the transactions, and applying them again changes nothing.
            for event in events { apply(event, to: &state) }
            publish(&state, now: now)
        }
    }

    /// Whose transactions the service sees in `state`.
    private func audience(_ state: State) -> SimulatedAppStore.Audience {
        SimulatedAppStore.Audience(policy: accessPolicy, token: state.appAccountToken)
    }

    /// What a store event changes in the current user's entitlements.
    private enum Change {
        case transaction(StoreVerificationResult<AppStoreTransaction>, revision: Int, returnedByPurchase: Bool)
        case grace(transactionID: UInt64, end: Date?, sequence: UInt64)
    }

    /// Applies one change of the store to the entitlements of the current user, and
    /// hands a transaction to the update listeners unless `purchase` returns it itself.
    private func apply(_ event: SimulatedAppStore.Event, to state: inout State) {
        switch state.change(event, policy: accessPolicy) {
        case .transaction(let result, let revision, let returnedByPurchase)?:
            state.engine.apply(result)
            guard !returnedByPurchase else { return }
            for id in state.listeners.keys { state.listeners[id]?.deliver(result, revision: revision) }
        case .grace(let transactionID, let end, let sequence)?:
            state.graceApplied[transactionID] = sequence
            state.engine.setGracePeriodEnd(end, forTransaction: transactionID)
        case nil:
            break
        }
    }

    /// Recomputes the entitlements of the current user from the store's ledger —
    /// switching first to `token`'s user, or with `followingAuth` to the auth service's
    /// user if another one is signed in (and doing nothing if not). The lock is held throughout, so no change the
    /// store reports meanwhile can be overwritten by an older reading; the store is only
    /// read here, and it never calls back while it is being read.
    private func rebuild(switchingTo token: UUID?? = .none, followingAuth: Bool = false) {
        let now = context.clock.now
        state.withLock { state in
            var newUser = token
            if followingAuth, let auth {
                // Read under the lock, so two switches at once end with the user signed in last.
                let userID = auth.currentUser?.id
                guard state.followedUserID != userID else { return }
                state.followedUserID = userID
                newUser = .some(Self.token(of: userID))
            }
            if let newUser { state.appAccountToken = newUser }
            var engine = EntitlementEngine(products: store.products)
            state.graceApplied = [:]
            let viewer = audience(state)
            let history = store.history(for: viewer)
            let switchedAppleID = history.appleID != state.appleID
            state.appleID = history.appleID
            for transaction in history.transactions { engine.apply(transaction) }
            for (id, end) in history.grace { engine.setGracePeriodEnd(end, forTransaction: id) }
            state.rebuiltAt = history.sequence
            if newUser != nil || switchedAppleID {
                for (result, revision) in store.unfinished(for: viewer) {
                    for id in state.listeners.keys { state.listeners[id]?.deliver(result, revision: revision) }
                }
            }
            state.engine = engine
            state.rebuilds += 1
            publish(&state, now: now)
        }
    }

    /// Sends the tier if it changed; called with the lock held, so sends are in order.
    private func publish(_ state: inout State, now: Date) {
        let tier = state.engine.tier(at: now)
        if tier != tiers.value { tiers.send(tier) }
    }
}
