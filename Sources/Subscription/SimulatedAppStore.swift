import Foundation
import Synchronization
import TrainCore

/// The App Store's side of subscriptions, simulated (SUB-4): a ledger of
/// transactions and subscriptions per instance, driven by the injected clock, with
/// the controls of StoreKitTest's `SKTestSession`.
///
/// Subscriptions renew at the end of each period, on the clock: with a
/// `ManualClock`, advancing it past a renewal date makes the renewal happen and
/// reach the app's updates stream. Every call first brings the ledger up to the
/// clock's present (``settle()``).
///
/// ```swift
/// let store = try SimulatedAppStore(storage: .inMemory, products: Product.standard, clock: clock)
/// let subscriptions = LocalSubscriptionService(store: store)
/// await subscriptions.setAppAccountToken(userToken)
/// _ = try await subscriptions.purchase("com.train.pro.monthly")
/// store.askToBuyEnabled = true                      // the next purchase waits for a parent
/// try store.refund(transactionID: 1, reason: .other) // arrives on the updates stream
/// ```
///
/// The file-backed variant keeps the ledger across launches; a ledger it cannot
/// read is an error, never an empty history (SUB-6). Test settings (Ask to Buy,
/// failures, time rate) live for the instance only, as in `SKTestSession`.
public final class SimulatedAppStore: Sendable {
    /// How fast subscription time runs.
    public enum TimeRate: Hashable, Sendable {
        /// Periods last as long as they say.
        case realTime
        /// A month of subscription time lasts this long (a year, twelve times as long);
        /// grace and billing-retry periods shrink in proportion.
        case monthlyRenewal(every: Duration)
    }

    enum Event: Sendable {
        /// A transaction was created or changed (its `revision`-th state); `returnedByPurchase`
        /// when `purchase` hands it back itself.
        case transaction(StoreVerificationResult<StoreTransaction>, revision: Int, returnedByPurchase: Bool)
        /// A subscription's state changed without a new transaction (expiry, grace, billing retry).
        case status(appAccountToken: UUID?)
    }

    struct Settings: Hashable, Sendable {
        var askToBuyEnabled = false
        var interruptedPurchasesEnabled = false
        var shouldEnterBillingRetryOnRenewal = false
        var billingGracePeriodIsEnabled = false
        var purchaseFailure: SubscriptionError.Code?
        var producesUnverifiedTransactions = false
        var userCancelsPurchases = false
        var purchaseSheetDelay: Duration = .zero
        var timeRate = TimeRate.realTime
    }

    struct State {
        var entries: [UInt64: StoreLedger.Entry] = [:]
        var subscriptions: [UInt64: StoreLedger.Subscription] = [:]
        var pending: [String: PendingPurchase] = [:]
        var nextID: UInt64 = 1
        var settings = Settings()
        var scheduled: Set<Date> = []
        /// Set when a failed write could not be undone by reloading: every later change
        /// is refused rather than written over the ledger from a state that may be wrong.
        var isBroken = false
    }

    /// Which records a change touched, to persist them.
    struct Changes {
        var entries: Set<UInt64> = []
        var subscriptions: Set<UInt64> = []
        var pending: Set<String> = []
        var events: [Event] = []
    }

    /// The products on sale.
    public let products: [StoreProduct]
    let clock: any DateClock
    private let ledger: RecordStore
    let state: Mutex<State>
    /// Called, in order and outside the state lock, with every change; the service keeps its entitlements current through them.
    private let observers = Mutex<(next: Int, handlers: [Int: @Sendable (Event) -> Void])>((0, [:]))
    private let timers = Mutex<[Task<Void, Never>]>([])

    /// Creates a store whose ledger lives in memory. It cannot fail, so a SwiftUI
    /// preview or a test can make one without `try`.
    /// - Parameters:
    ///   - products: The products on sale.
    ///   - clock: The clock that dates transactions and drives renewals.
    public convenience init(products: [StoreProduct] = StoreProduct.standard, clock: any DateClock = SystemClock()) {
        let ledger = RecordStore.inMemoryOrFailing(StoreLedger.schema)
        self.init(products: products, clock: clock, ledger: ledger, state: (try? Self.load(from: ledger)) ?? State())
    }

    /// Creates a store whose ledger lives in `storage`; from a file, the ledger
    /// survives relaunches.
    /// - Parameters:
    ///   - storage: In memory, or a file (other services may share it) with its options.
    ///   - products: The products on sale.
    ///   - clock: The clock that dates transactions and drives renewals.
    /// - Throws: ``SubscriptionError/Code/ledgerUnreadable``, naming the file, if the
    ///   ledger cannot be opened or a record cannot be read.
    public convenience init(storage: Storage, products: [StoreProduct] = StoreProduct.standard,
                            clock: any DateClock = SystemClock()) throws(SubscriptionError) {
        do {
            let ledger = try RecordStore(storage, schema: StoreLedger.schema)
            self.init(products: products, clock: clock, ledger: ledger, state: try Self.load(from: ledger))
        } catch {
            throw SubscriptionError(.ledgerUnreadable, detail: "The transaction ledger could not be read: \(error)")
        }
    }

    private init(products: [StoreProduct], clock: any DateClock, ledger: RecordStore, state: State) {
        self.products = products
        self.clock = clock
        self.ledger = ledger
        self.state = Mutex(state)
        settle()
    }

    deinit {
        timers.withLock { tasks in tasks.forEach { $0.cancel() } }
    }

    /// Registers `handler` for every change from now on.
    /// - Returns: The registration, for ``removeObserver(_:)``.
    func addObserver(_ handler: @escaping @Sendable (Event) -> Void) -> Int {
        observers.withLock { observers in
            defer { observers.next += 1 }
            observers.handlers[observers.next] = handler
            return observers.next
        }
    }

    func removeObserver(_ id: Int) {
        _ = observers.withLock { $0.handlers.removeValue(forKey: id) }
    }

    private static func load(from ledger: RecordStore) throws -> State {
        try ledger.read { records in
            var state = State()
            for entry in try records.values(in: StoreLedger.transactions) { state.entries[entry.transaction.id] = entry }
            for subscription in try records.values(in: StoreLedger.subscriptions) { state.subscriptions[subscription.originalID] = subscription }
            for pending in try records.values(in: StoreLedger.pending) { state.pending[pending.id] = pending }
            state.nextID = try records.value(forKey: "nextID", in: StoreLedger.meta) ?? 1
            return state
        }
    }

    // MARK: - Running changes

    /// Applies `body` to the state, brought up to now first; persists what it touched
    /// in one transaction, then announces it. A failed write reloads the ledger and throws.
    func mutate<Result>(_ body: (inout State, inout Changes, Date) throws(SubscriptionError) -> Result) throws(SubscriptionError) -> Result {
        let now = clock.now
        let (result, changes): (Result, Changes) = try state.withLock { state throws(SubscriptionError) in
            guard !state.isBroken else {
                throw SubscriptionError(.ledgerUnreadable, detail: "An earlier write to the ledger failed and could not be undone; reopen the store.")
            }
            var changes = Changes()
            settle(&state, &changes, now: now)
            let result = try body(&state, &changes, now)
            settle(&state, &changes, now: now)
            do throws(SubscriptionError) {
                try persist(state, changes)
            } catch {
                // What is on disk is the truth: go back to it, keeping this session's settings.
                if var reloaded = try? Self.load(from: ledger) {
                    reloaded.settings = state.settings
                    state = reloaded
                } else {
                    state.isBroken = true
                }
                throw error
            }
            // Every subscription the change touched is announced, so observers can refresh
            // what depends on its state (grace, billing retry, revocation).
            for id in changes.subscriptions {
                if let subscription = state.subscriptions[id] { changes.events.append(.status(appAccountToken: subscription.appAccountToken)) }
            }
            return (result, changes)
        }
        announce(changes)
        return result
    }

    /// Brings every subscription up to the clock's present: renewals, lapses, grace
    /// and billing retry ending, Ask to Buy requests lapsing after 24 hours.
    public func settle() {
        _ = try? mutate { (_, _, _) throws(SubscriptionError) in }
    }

    private func persist(_ state: State, _ changes: Changes) throws(SubscriptionError) {
        guard !changes.entries.isEmpty || !changes.subscriptions.isEmpty || !changes.pending.isEmpty else { return }
        do {
            try ledger.write { records in
                for id in changes.entries {
                    if let entry = state.entries[id] {
                        try records.put(entry, forKey: StoreLedger.key(id), in: StoreLedger.transactions)
                    } else {
                        try records.removeValue(forKey: StoreLedger.key(id), in: StoreLedger.transactions)
                    }
                }
                for id in changes.subscriptions {
                    if let subscription = state.subscriptions[id] {
                        try records.put(subscription, forKey: StoreLedger.key(id), in: StoreLedger.subscriptions)
                    } else {
                        try records.removeValue(forKey: StoreLedger.key(id), in: StoreLedger.subscriptions)
                    }
                }
                for id in changes.pending {
                    if let pending = state.pending[id] {
                        try records.put(pending, forKey: id, in: StoreLedger.pending)
                    } else {
                        try records.removeValue(forKey: id, in: StoreLedger.pending)
                    }
                }
                try records.put(state.nextID, forKey: "nextID", in: StoreLedger.meta)
            }
        } catch {
            throw SubscriptionError(.ledgerUnreadable, detail: "The transaction ledger could not be written: \(error)")
        }
    }

    private func announce(_ changes: Changes) {
        if !changes.events.isEmpty {
            let handlers = observers.withLock { $0.handlers.sorted { $0.key < $1.key }.map(\.value) }
            for event in changes.events {
                for handler in handlers { handler(event) }
            }
        }
        scheduleTimers()
    }

    /// Makes sure a task sleeps on the clock until just after each upcoming boundary.
    private func scheduleTimers() {
        let dates: [Date] = state.withLock { state in
            var boundaries: Set<Date> = []
            for subscription in state.subscriptions.values {
                switch subscription.state {
                case .subscribed: boundaries.insert(subscription.periodEnd)
                case .inGracePeriod: if let end = subscription.graceEnd { boundaries.insert(end) }
                case .inBillingRetryPeriod: if let end = subscription.retryEnd { boundaries.insert(end) }
                case .expired, .revoked: break
                }
            }
            for pending in state.pending.values where pending.kind == .askToBuy {
                boundaries.insert(pending.requestedAt.addingTimeInterval(Self.askToBuyLifetime))
            }
            let new = boundaries.subtracting(state.scheduled)
            state.scheduled.formUnion(new)
            return Array(new)
        }
        guard !dates.isEmpty else { return }
        let clock = clock
        let tasks = dates.map { date in
            Task { [weak self] in
                // Boundaries are inclusive (active while now <= expiration): wake just after.
                try? await clock.sleep(until: date.addingTimeInterval(0.001))
                guard !Task.isCancelled else { return }
                self?.settle()
            }
        }
        timers.withLock { $0 += tasks }
    }

    static let askToBuyLifetime: TimeInterval = 24 * 3600

    // MARK: - Time

    func product(_ id: String) -> StoreProduct? {
        products.first { $0.id == id }
    }

    func periodEnd(of product: StoreProduct, from start: Date, rate: TimeRate) -> Date {
        switch rate {
        case .realTime:
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
            return calendar.date(byAdding: .month, value: product.period.months, to: start)
                ?? start.addingTimeInterval(Double(product.period.months) * 30 * 86_400)
        case .monthlyRenewal(let every):
            return start.addingTimeInterval(every.timeInterval * Double(product.period.months))
        }
    }

    /// 16 days in real time, as Apple's grace period for monthly and longer periods.
    func gracePeriod(_ rate: TimeRate) -> TimeInterval {
        scaled(16 * 86_400, rate)
    }

    /// 60 days in real time, as Apple's billing retry.
    func billingRetryPeriod(_ rate: TimeRate) -> TimeInterval {
        scaled(60 * 86_400, rate)
    }

    private func scaled(_ interval: TimeInterval, _ rate: TimeRate) -> TimeInterval {
        switch rate {
        case .realTime: interval
        case .monthlyRenewal(let every): interval * every.timeInterval / (30 * 86_400)
        }
    }

    // MARK: - The state machine

    private func settle(_ state: inout State, _ changes: inout Changes, now: Date) {
        for id in state.subscriptions.keys.sorted() {
            guard var subscription = state.subscriptions[id] else { continue }
            let before = subscription
            advance(&subscription, &state, &changes, now: now)
            if subscription != before {
                state.subscriptions[id] = subscription
                changes.subscriptions.insert(id)
            }
        }
        for (id, pending) in state.pending where pending.kind == .askToBuy
            && pending.requestedAt.addingTimeInterval(Self.askToBuyLifetime) < now {
            state.pending[id] = nil
            changes.pending.insert(id)
        }
    }

    private func advance(_ subscription: inout StoreLedger.Subscription, _ state: inout State, _ changes: inout Changes, now: Date) {
        while true {
            switch subscription.state {
            case .subscribed where subscription.periodEnd < now:
                if !subscription.willAutoRenew {
                    subscription.state = .expired
                    subscription.expirationReason = .autoRenewDisabled
                } else if subscription.priceIncrease == .pending {
                    subscription.state = .expired
                    subscription.expirationReason = .didNotConsentToPriceIncrease
                } else if state.settings.shouldEnterBillingRetryOnRenewal {
                    subscription.retryEnd = subscription.periodEnd.addingTimeInterval(billingRetryPeriod(state.settings.timeRate))
                    if state.settings.billingGracePeriodIsEnabled {
                        subscription.state = .inGracePeriod
                        subscription.graceEnd = subscription.periodEnd.addingTimeInterval(gracePeriod(state.settings.timeRate))
                    } else {
                        subscription.state = .inBillingRetryPeriod
                    }
                } else {
                    renew(&subscription, &state, &changes, at: subscription.periodEnd)
                }
            case .inGracePeriod where (subscription.graceEnd ?? .distantPast) < now:
                subscription.state = .inBillingRetryPeriod
                subscription.graceEnd = nil
            case .inBillingRetryPeriod where (subscription.retryEnd ?? .distantPast) < now:
                subscription.state = .expired
                subscription.expirationReason = .billingError
                subscription.retryEnd = nil
            default:
                return
            }
        }
    }

    /// Starts the next period at `start`, in the product the subscription renews into.
    func renew(_ subscription: inout StoreLedger.Subscription, _ state: inout State, _ changes: inout Changes, at start: Date) {
        let product = product(subscription.autoRenewPreference) ?? product(subscription.productID)
        guard let product else {
            subscription.state = .expired
            subscription.expirationReason = .productUnavailable
            return
        }
        let transaction = newTransaction(product, token: subscription.appAccountToken, originalID: subscription.originalID,
                                         purchaseDate: start, state: &state, changes: &changes, returnedByPurchase: false)
        subscription.begin(transaction)
        if subscription.priceIncrease == .agreed { subscription.priceIncrease = .noIncreasePending }
    }

    /// Records a new transaction and queues its announcement.
    @discardableResult
    func newTransaction(_ product: StoreProduct, token: UUID?, originalID: UInt64?, purchaseDate: Date, state: inout State,
                        changes: inout Changes, returnedByPurchase: Bool) -> StoreTransaction {
        let id = state.nextID
        state.nextID += 1
        let transaction = StoreTransaction(
            id: id, originalID: originalID ?? id, productID: product.id, subscriptionGroupID: product.subscriptionGroupID,
            purchaseDate: purchaseDate, expirationDate: periodEnd(of: product, from: purchaseDate, rate: state.settings.timeRate),
            appAccountToken: token)
        let entry = StoreLedger.Entry(transaction: transaction, verified: !state.settings.producesUnverifiedTransactions)
        state.entries[id] = entry
        changes.entries.insert(id)
        changes.events.append(.transaction(entry.result, revision: entry.revision, returnedByPurchase: returnedByPurchase))
        return transaction
    }

    /// Changes a stored transaction and queues its announcement.
    func update(_ id: UInt64, _ state: inout State, _ changes: inout Changes, _ body: (inout StoreTransaction) -> Void) {
        guard var entry = state.entries[id] else { return }
        body(&entry.transaction)
        entry.revision += 1
        state.entries[id] = entry
        changes.entries.insert(id)
        changes.events.append(.transaction(entry.result, revision: entry.revision, returnedByPurchase: false))
    }

    /// Buys `product` for `token` at `date`: a new subscription, a resubscription,
    /// an immediate upgrade, or a downgrade or crossgrade that waits for the next renewal.
    func buy(_ product: StoreProduct, token: UUID, at date: Date, returnedByPurchase: Bool, state: inout State,
             changes: inout Changes, now: Date) -> StoreVerificationResult<StoreTransaction> {
        let existing = state.subscriptions.values.first { $0.groupID == product.subscriptionGroupID && $0.appAccountToken == token }
        if var subscription = existing, subscription.grantsAccess(at: now), let current = self.product(subscription.productID) {
            let latest = subscription.latestTransactionID
            if product.id == current.id || product.tier <= current.tier {
                // Same product: nothing to buy. Downgrade or crossgrade: it takes effect at the next renewal.
                if product.id != current.id {
                    subscription.autoRenewPreference = product.id
                    subscription.willAutoRenew = true
                    state.subscriptions[subscription.originalID] = subscription
                    changes.subscriptions.insert(subscription.originalID)
                }
                return state.entries[latest]?.result ?? .verified(StoreTransaction(id: latest, productID: current.id, purchaseDate: date, expirationDate: nil))
            }
            // Upgrade: immediate; the old transaction is marked upgraded.
            update(latest, &state, &changes) { $0.isUpgraded = true }
            let transaction = newTransaction(product, token: token, originalID: subscription.originalID, purchaseDate: date,
                                             state: &state, changes: &changes, returnedByPurchase: returnedByPurchase)
            subscription.begin(transaction)
            state.subscriptions[subscription.originalID] = subscription
            changes.subscriptions.insert(subscription.originalID)
            return state.entries[transaction.id]?.result ?? .verified(transaction)
        }
        let transaction = newTransaction(product, token: token, originalID: existing?.originalID, purchaseDate: date,
                                         state: &state, changes: &changes, returnedByPurchase: returnedByPurchase)
        let subscription = StoreLedger.Subscription(
            originalID: transaction.originalID, groupID: product.subscriptionGroupID, appAccountToken: token,
            productID: product.id, latestTransactionID: transaction.id, periodEnd: transaction.expirationDate ?? date,
            autoRenewPreference: product.id)
        state.subscriptions[subscription.originalID] = subscription
        changes.subscriptions.insert(subscription.originalID)
        return state.entries[transaction.id]?.result ?? .verified(transaction)
    }

    /// The subscription of `token` in `product`'s group.
    func subscriptionID(for productID: String, token: UUID, in state: State) throws(SubscriptionError) -> UInt64 {
        guard let product = product(productID) else { throw SubscriptionError(.productNotFound, detail: "No product '\(productID)'.") }
        guard let subscription = state.subscriptions.values.first(where: {
            $0.groupID == product.subscriptionGroupID && $0.appAccountToken == token
        }) else {
            throw SubscriptionError(.notSubscribed, detail: "This user has no subscription in the group of '\(productID)'.")
        }
        return subscription.originalID
    }
}

