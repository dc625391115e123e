import Foundation
import TrainCore

/// What a ``SimulatedAppStore`` sells, and for which app, besides its context.
public struct AppStoreConfiguration: Sendable {
    /// The products on sale; ``AppStoreProduct/standard`` by default.
    public var products: [AppStoreProduct] = AppStoreProduct.standard
    /// The app: the bundle ID and App Apple ID its server notifications name;
    /// ``StoreApp/example`` by default.
    public var app: StoreApp = .example

    /// Creates a configuration.
    /// - Parameters:
    ///   - products: The products on sale; the standard ones by default.
    ///   - app: The app; TrainKit's example app by default.
    public init(products: [AppStoreProduct] = AppStoreProduct.standard, app: StoreApp = .example) {
        self.products = products
        self.app = app
    }
}

/// The App Store's side of subscriptions, simulated: a ledger of transactions and
/// subscriptions per instance, driven by the injected clock, with the controls of
/// StoreKitTest's `SKTestSession`.
///
/// Subscriptions renew at the end of each period, on the clock: with a
/// `ManualClock`, advancing it past a renewal date makes the renewal happen and
/// reach the app's updates stream. Every store call first brings the ledger up to the
/// clock's present (``settle()``). A jump of the clock over more than
/// ``maximumRenewalsPerSettle`` periods of one subscription records its latest
/// renewals only, as if the earlier ones had happened, so any jump settles in
/// bounded time.
///
/// ```swift
/// let store = SimulatedAppStore(context: TrainContext(clock: clock))
/// let subscriptions = LocalSubscriptionService(store: store, auth: auth, context: store.context)
/// _ = try await subscriptions.purchase("com.train.pro.monthly")
/// store.askToBuyEnabled = true                      // the next purchase waits for a parent
/// try store.refund(transactionID: 1, reason: .other) // arrives on the updates stream
/// ```
///
/// The file-backed variant keeps the ledger across launches; a ledger it cannot
/// read is an error, never an empty history. Two stores on one file (an app and
/// its extension, or two processes) share the ledger: each change runs in one write
/// transaction on what is stored, so they never hand out one transaction ID twice or
/// write over each other. Test settings (Ask to Buy, failures, time rate) live for
/// the instance only, as in `SKTestSession`.
public final class SimulatedAppStore: Sendable {
    /// How fast subscription time runs: SKTestSession's time rates.
    public enum TimeRate: Hashable, Sendable {
        /// Periods last as long as they say, on the calendar.
        case realTime
        /// A month of subscription time lasts this long (a year twelve times as long, a
        /// week 7/30 of it, a day 1/30); grace and billing-retry periods shrink in
        /// proportion. Apple's `monthlyRenewalEvery…` rates; Apple's own weekly lengths
        /// at them are not proportional, these are.
        case monthlyRenewal(every: Duration)
        /// Every period, whatever its length — a week, a year, a free trial — lasts this
        /// long, and so do a grace period and billing retry: Apple's
        /// `oneRenewalEvery…` rates (`oneRenewalEveryTwoSeconds` …
        /// `oneRenewalEveryFifteenMinutes`).
        case oneRenewal(every: Duration)
        /// A day of subscription time lasts a second: a week 7 s, a month 30 s, a year
        /// 365 s; grace 6 or 16 s and billing retry 60 s. Apple's `oneSecondIsOneDay`.
        case oneSecondIsOneDay
    }

    /// A call to the store that a test can make fail: SKTestSession's `StoreKitAPI`.
    public enum StoreAPI: String, Hashable, Sendable, CaseIterable {
        /// Loading products (`Product.products(for:)`; ``SubscriptionPurchasing/products()``).
        case loadProducts
        /// A purchase in the app (``SubscriptionPurchasing/purchase(_:offer:)``).
        case purchase
        /// Syncing with the App Store (`AppStore.sync()`; ``SubscriptionPurchasing/restorePurchases()``).
        case appStoreSync
        /// Reading subscription statuses (``SubscriptionAccess/subscriptionStatuses()``).
        case subscriptionStatus
        /// Reading the app transaction (`AppTransaction.shared`).
        case appTransaction
    }

    /// The most renewals of one subscription one settlement records: 1,200 (a century
    /// of monthly periods).
    public static let maximumRenewalsPerSettle = 1_200

    enum Event: Sendable {
        /// A transaction of `owner` was created or changed (its `revision`-th state);
        /// `returnedByPurchase` when `purchase` hands it back itself.
        case transaction(StoreVerificationResult<AppStoreTransaction>, owner: AppleID, revision: Int, returnedByPurchase: Bool)
        /// The grace period of the latest transaction of a subscription of `owner`, tagged
        /// `appAccountToken`, began (with its end) or ended (nil). `sequence` orders these events.
        case grace(owner: AppleID, appAccountToken: UUID?, transactionID: UInt64, end: Date?, sequence: UInt64)
        /// A subscription's state changed, perhaps without a new transaction (expiry,
        /// billing retry): observers publish what now holds.
        case status
        /// The ledger was read again (another store on the file changed it) or cleared, or
        /// the device's Apple ID changed: whatever an observer derived from it must be
        /// derived again.
        case reloaded
        /// A server notification was recorded.
        case notification(StoreLedger.Notice)

        /// This event as another service than the buyer sees it: a transaction a purchase
        /// returned is, to it, one made elsewhere.
        var madeElsewhere: Event {
            guard case .transaction(let result, let owner, let revision, true) = self else { return self }
            return .transaction(result, owner: owner, revision: revision, returnedByPurchase: false)
        }
    }

    struct Settings: Hashable, Sendable {
        var askToBuyEnabled = false
        var interruptedPurchasesEnabled = false
        var shouldEnterBillingRetryOnRenewal = false
        var billingGracePeriodIsEnabled = false
        /// The error each store call fails with, where a test chose one.
        var failures: [StoreAPI: SubscriptionError.Code] = [:]
        var producesUnverifiedTransactions = false
        var userCancelsPurchases = false
        var purchaseSheetDelay: Duration = .zero
        var timeRate = TimeRate.realTime
        /// Offer codes not yet redeemed, uppercase, with the product and offer of each.
        var offerCodes: [String: OfferCode] = [:]
        /// The storefront the device's Apple ID buys in.
        var storefront = StoreStorefront.unitedStates
        /// The locale product names are read in.
        var locale = Locale(identifier: "en_US")
    }

    /// What an offer code redeems.
    struct OfferCode: Hashable, Sendable {
        var productID: String
        var offerID: String
    }

    /// A grace period as announced to observers: whose latest transaction, until when.
    struct Grace: Hashable {
        var transactionID: UInt64
        var end: Date
    }

    struct State {
        /// The Apple ID signed in to the device: purchases and controls act on its subscriptions.
        var appleID = AppleID.standard
        var entries: [UInt64: StoreLedger.Entry] = [:]
        var subscriptions: [UInt64: StoreLedger.Subscription] = [:]
        var pending: [String: PendingPurchase] = [:]
        var nextID: UInt64 = 1
        var settings = Settings()
        /// The grace periods observers know of, by subscription.
        var announcedGrace: [UInt64: Grace] = [:]
        /// Numbers grace events, so an observer can tell an older one that arrives late.
        var sequence: UInt64 = 0
        /// The ledger store's count of commits by other connections when this state was read.
        var seenExternalChanges: UInt64 = 0
        /// The ledger's own version, raised by every write to it: a commit by another
        /// connection that left it alone (another service's schema on the file) is no
        /// reason to read the ledger again.
        var ledgerVersion: UInt64 = 0
        /// Set when a failed write could not be undone by reloading: every later change
        /// is refused rather than written over the ledger from a state that may be wrong.
        var isBroken = false
        /// When the non-renewing subscriptions not yet settled past end, earliest first:
        /// the tier changes then, though nothing is written.
        var passEnds: [Date] = []
        /// The subscription groups each Apple ID has had a transaction in, so a purchase
        /// tells introductory-offer eligibility without reading the history.
        var groupsJoined: Set<GroupMember> = []
        /// The non-consumables each Apple ID bought (refunded ones too), so a family that
        /// grows shares them without reading the history.
        var nonConsumables: [AppleID: [UInt64]] = [:]
        /// The key server notifications are signed with, kept in the ledger.
        var notificationKey = Data()
        /// The number of the latest server notification in the ledger.
        var lastNotice: UInt64 = 0
        /// The transactions whose refund a customer asked for and the App Store has not decided.
        var refundRequests: Set<UInt64> = []
        /// Family groups by organizer.
        var families: [AppleID: FamilyGroup] = [:]
        /// Purchases shared with family members, by ``StoreLedger/Share/key``, and the keys of each purchase's shares.
        var shares: [String: StoreLedger.Share] = [:]
        var sharesByPurchase: [UInt64: Set<String>] = [:]

        /// The family group `appleID` is in.
        func family(of appleID: AppleID) -> FamilyGroup? {
            families.values.first { $0.contains(appleID) }
        }

        /// The shares of `purchase`, by member.
        func shares(of purchase: UInt64) -> [StoreLedger.Share] {
            (sharesByPurchase[purchase] ?? []).sorted().compactMap { shares[$0] }
        }

        /// Records `share`, or forgets the one under `key` when it is nil.
        mutating func setShare(_ share: StoreLedger.Share?, key: String, _ changes: inout Changes) {
            if let old = shares[key] { sharesByPurchase[old.purchase]?.remove(key) }
            shares[key] = share
            if let share { sharesByPurchase[share.purchase, default: []].insert(key) }
            changes.shares.insert(key)
        }

        /// The grace period of a subscription now, if it is in one.
        func grace(of subscription: StoreLedger.Subscription) -> Grace? {
            guard subscription.state == .inGracePeriod, let end = subscription.graceEnd else { return nil }
            return Grace(transactionID: subscription.latestTransactionID, end: end)
        }
    }

    /// An Apple ID in a subscription group it has had a transaction in.
    struct GroupMember: Hashable, Sendable {
        var group: String
        var owner: AppleID
    }

    /// Which records a change touched, to persist them.
    struct Changes {
        var entries = Touched<UInt64>()
        var subscriptions = Touched<UInt64>()
        var pending = Touched<String>()
        /// Whether the device's Apple ID changed.
        var device = false
        var events: [Event] = []
        /// Server notifications of the change, numbered when they are written.
        var notices: [StoreLedger.Notice] = []
        /// Refund requests asked for (a reason) or decided (nil).
        var refundRequests: [UInt64: RefundRequestReason?] = [:]
        /// Family groups by organizer, and shares by key, that changed.
        var families = Touched<AppleID>()
        var shares = Touched<String>()
    }

    /// The records a change touched, each once, in the order first touched. Most
    /// changes touch a handful, searched in the array; a clock jump can touch thousands
    /// (every renewal it records), so past 16 membership is kept in a set.
    struct Touched<ID: Hashable>: Sequence {
        private var ids: [ID] = []
        private var members: Set<ID>?

        init() {}

        init(_ ids: some Sequence<ID>) {
            for id in ids { insert(id) }
        }

        var isEmpty: Bool { ids.isEmpty }

        mutating func insert(_ id: ID) {
            if members == nil {
                guard !ids.contains(id) else { return }
                ids.append(id)
                if ids.count > 16 { members = Set(ids) }
            } else if members?.insert(id).inserted == true {
                ids.append(id)
            }
        }

        func makeIterator() -> IndexingIterator<[ID]> { ids.makeIterator() }

        /// The records touched, in ascending order: one alone is its own order, without a sorted copy.
        func ascending() -> [ID] where ID: Comparable {
            ids.count > 1 ? ids.sorted() : ids
        }
    }

    /// The products on sale.
    public let products: [AppStoreProduct]
    /// The app the store sells for.
    public let storeApp: StoreApp
    /// The clock that dates transactions and drives renewals.
    public let context: TrainContext
    var clock: any DateClock { context.clock }
    let ledger: RecordStore
    let state: Locked<State>
    /// Called outside the state lock with the events of each change, in order; the service keeps its entitlements current through them.
    private let observers: Locked<(next: Int, handlers: [(id: Int, handler: @Sendable ([Event]) -> Void)])>
    /// The app's own transaction, as a test set it.
    let app: Locked<AppTransactionInfo>
    /// The app transaction of a new store: version 1.0, bought when the store was made.
    let defaultAppTransaction: AppTransactionInfo
    /// The one task that sleeps until the next boundary, the date it wakes at, and how
    /// many times in a row it woke and could not settle.
    private let timer: Locked<(deadline: Date?, task: Task<Void, Never>?, failures: Int)>
    /// The first half of the identifiers of the notifications this instance writes: random, made once.
    let noticePrefix: UInt64
    /// The listeners of ``serverNotificationUpdates()``.
    let notificationListeners: Locked<(next: Int, continuations: [Int: AsyncStream<StoreServerNotification>.Continuation])>
    /// The Apple ID of a device of ``device(signedInTo:)``; nil for the store itself,
    /// whose device's Apple ID the ledger keeps.
    let device: Locked<AppleID>?
    /// The store a device of ``device(signedInTo:)`` belongs to, which keeps its timer.
    private let base: SimulatedAppStore?

    /// Creates a store whose ledger lives in memory. It cannot fail, so a SwiftUI
    /// preview or a test can make one without `try`.
    /// - Parameters:
    ///   - context: The clock that dates transactions and drives renewals; the live one by default.
    ///   - configuration: The products on sale.
    public convenience init(context: TrainContext = .live, configuration: AppStoreConfiguration = AppStoreConfiguration()) {
        let ledger = RecordStore.inMemoryOrFailing(StoreLedger.schema)
        self.init(configuration, context: context, ledger: ledger, state: (try? ledger.read(Self.load)) ?? State())
    }

    /// Creates a store whose ledger lives in `storage`; from a file, the ledger
    /// survives relaunches.
    /// - Parameters:
    ///   - storage: In memory, or a file (other services may share it) with its options.
    ///   - context: The clock that dates transactions and drives renewals; the live one by default.
    ///   - configuration: The products on sale.
    /// - Throws: ``TrainCore/TrainErrorCode/ledgerUnreadable``, naming the file, if the
    ///   ledger cannot be opened or a record cannot be read.
    public convenience init(
        storage: StorageLocation, context: TrainContext = .live, configuration: AppStoreConfiguration = AppStoreConfiguration()
    ) throws(SubscriptionError) {
        do {
            let ledger = try RecordStore(storage, schema: StoreLedger.schema)
            var state = try ledger.read(Self.load)
            if state.pending.values.contains(where: { $0.transactionID == 0 }) {
                try ledger.write(Self.numberEarlierRequests)
                state = try ledger.read(Self.load)
            }
            self.init(configuration, context: context, ledger: ledger, state: state)
        } catch {
            throw SubscriptionError(.ledgerUnreadable, detail: "The transaction ledger could not be read: \(error)")
        }
    }

    /// Creates a store whose ledger lives in memory.
    /// - Parameters:
    ///   - products: The products on sale.
    ///   - clock: The clock that dates transactions and drives renewals.
    @_disfavoredOverload
    @available(*, deprecated, message: "Use init(context:configuration:); the clock comes in the context, the products in the configuration.")
    public convenience init(products: [AppStoreProduct] = AppStoreProduct.standard, clock: any DateClock = SystemClock()) {
        self.init(context: TrainContext(clock: clock), configuration: AppStoreConfiguration(products: products))
    }

    /// Creates a store whose ledger lives in `storage`.
    /// - Parameters:
    ///   - storage: In memory, or a file with its options.
    ///   - products: The products on sale.
    ///   - clock: The clock that dates transactions and drives renewals.
    /// - Throws: ``TrainCore/TrainErrorCode/ledgerUnreadable`` if the ledger cannot be read.
    @_disfavoredOverload
    @available(*, deprecated, message: "Use init(storage:context:configuration:); the clock comes in the context, the products in the configuration.")
    public convenience init(
        storage: StorageLocation, products: [AppStoreProduct] = AppStoreProduct.standard, clock: any DateClock = SystemClock()
    ) throws(SubscriptionError) {
        try self.init(storage: storage, context: TrainContext(clock: clock), configuration: AppStoreConfiguration(products: products))
    }

    private init(_ configuration: AppStoreConfiguration, context: TrainContext, ledger: RecordStore, state: State) {
        let products = configuration.products
        self.products = products
        storeApp = configuration.app
        self.context = context
        self.ledger = ledger
        device = nil
        base = nil
        noticePrefix = UInt64.random(in: 0...UInt64.max)
        observers = Locked((0, []))
        timer = Locked((nil, nil, 0))
        notificationListeners = Locked((0, [:]))
        var state = state
        state.passEnds = Self.passEnds(of: state.entries.values, products: products)
        if state.notificationKey.isEmpty {
            // Made once and kept in the ledger, so every store on the file signs alike; a
            // ledger that cannot be written signs with a key of this instance only.
            state.notificationKey = (try? ledger.write(Self.notificationKey)) ?? Data((try? PlatformCrypto.randomBytes(count: 32)) ?? [])
        }
        self.state = Locked(state)
        defaultAppTransaction = AppTransactionInfo(
            bundleID: configuration.app.bundleID, appVersion: "1.0", originalAppVersion: "1.0", originalPurchaseDate: context.clock.now)
        app = Locked(defaultAppTransaction)
        settle()
    }

    /// A device of this store's App Store.
    private init(deviceOf store: SimulatedAppStore, signedInTo appleID: AppleID) {
        products = store.products
        storeApp = store.storeApp
        context = store.context
        ledger = store.ledger
        state = store.state
        app = store.app
        defaultAppTransaction = store.defaultAppTransaction
        noticePrefix = store.noticePrefix
        observers = store.observers
        timer = store.timer
        notificationListeners = store.notificationListeners
        device = Locked(appleID)
        base = store.base ?? store
    }

    /// Another device of this App Store, signed in to `appleID`: a family member's phone,
    /// or a second user's, in one simulated world. It shares everything the App Store
    /// holds — the ledger, families, notifications, the test settings and the clock — and
    /// has its own signed-in Apple ID, which ``switchAppleID(to:)`` on it changes for it
    /// alone. What one device's Apple ID buys, every device signed in to that Apple ID
    /// has; a purchase shared with a family reaches the members' devices.
    ///
    /// ```swift
    /// let organizer = SimulatedAppStore(context: context)
    /// let member = organizer.device(signedInTo: try AppleID("grace@example.com"))
    /// _ = try organizer.createFamily(organizer: organizer.appleID)
    /// try organizer.addToFamily(member.appleID, organizer: organizer.appleID)
    /// ```
    /// - Parameter appleID: The device's Apple ID.
    /// - Returns: The device's store.
    public func device(signedInTo appleID: AppleID) -> SimulatedAppStore {
        SimulatedAppStore(deviceOf: self, signedInTo: appleID)
    }

    /// The Apple ID signed in to this device while the state lock is held: its own for a
    /// device of ``device(signedInTo:)``, the ledger's for the store.
    func deviceAppleID(_ state: State) -> AppleID {
        device?.withLock { $0 } ?? state.appleID
    }

    deinit {
        // The timer is the App Store's, which its devices share and keep alive.
        if base == nil { timer.withLock { $0.task?.cancel() } }
    }

    /// Registers `handler` for every change from now on; it receives each change's events together.
    /// - Returns: The registration, for ``removeObserver(_:)``.
    func addObserver(_ handler: @escaping @Sendable ([Event]) -> Void) -> Int {
        observers.withLock { observers in
            defer { observers.next += 1 }
            observers.handlers.append((observers.next, handler))
            return observers.next
        }
    }

    func removeObserver(_ id: Int) {
        observers.withLock { $0.handlers.removeAll { $0.id == id } }
    }

    /// Reads the whole ledger. The next ID is past every stored transaction, even if
    /// the stored counter is missing or behind.
    private static func load(from records: RecordReader) throws -> State {
        var state = State()
        for entry in try records.values(in: StoreLedger.transactions) { state.entries[entry.transaction.id] = entry }
        deriveEarlierFields(of: &state.entries)
        state.groupsJoined = groupsJoined(by: state.entries.values)
        state.nonConsumables = nonConsumables(in: state.entries.values)
        for subscription in try records.values(in: StoreLedger.subscriptions) { state.subscriptions[subscription.originalID] = subscription }
        for pending in try records.values(in: StoreLedger.pending) { state.pending[pending.id] = pending }
        state.appleID = try records.value(forKey: StoreLedger.deviceKey, in: StoreLedger.device) ?? .standard
        state.nextID = try nextID(in: records, entries: state.entries.keys, pending: state.pending.values)
        state.ledgerVersion = try records.value(forKey: "version", in: StoreLedger.meta) ?? 0
        state.notificationKey = try records.value(forKey: StoreLedger.notificationKeyName, in: StoreLedger.keys) ?? Data()
        state.lastNotice = try records.lastKey(in: StoreLedger.notifications).flatMap { UInt64($0) } ?? 0
        state.refundRequests = Set(try records.keys(in: StoreLedger.refundRequests).compactMap { UInt64($0) })
        for family in try records.values(in: StoreLedger.families) { state.families[family.organizer] = family }
        for share in try records.values(in: StoreLedger.shares) {
            state.shares[share.key] = share
            state.sharesByPurchase[share.purchase, default: []].insert(share.key)
        }
        for subscription in state.subscriptions.values {
            if let grace = state.grace(of: subscription) { state.announcedGrace[subscription.originalID] = grace }
        }
        state.seenExternalChanges = records.externalChangeCount
        return state
    }

    /// The non-consumables each owner of `entries` bought, oldest first.
    static func nonConsumables(in entries: some Sequence<StoreLedger.Entry>) -> [AppleID: [UInt64]] {
        var bought: [AppleID: [UInt64]] = [:]
        for entry in entries where entry.transaction.productType == .nonConsumable && entry.transaction.ownershipType == .purchased {
            bought[entry.owner, default: []].append(entry.transaction.id)
        }
        return bought.mapValues { $0.sorted() }
    }

    /// The groups each owner of `entries` has bought a subscription in.
    static func groupsJoined(by entries: some Sequence<StoreLedger.Entry>) -> Set<GroupMember> {
        Set(
            entries.compactMap { entry in
                // What a family shares is not the member's own subscription.
                entry.transaction.ownershipType == .purchased
                    ? entry.transaction.subscriptionGroupID.map { GroupMember(group: $0, owner: entry.owner) } : nil
            })
    }

    /// Fills in what a transaction stored before layout 5 lacks: its original purchase
    /// date, its first transaction's; and its reason — a renewal when it starts where the
    /// transaction before it in the subscription ended (a forced renewal a millisecond
    /// later), a purchase otherwise (a first purchase, an upgrade, a resubscription).
    private static func deriveEarlierFields(of entries: inout [UInt64: StoreLedger.Entry]) {
        let derived = entries.values.filter(\.hasDerivedFields).map(\.transaction)
        guard !derived.isEmpty else { return }
        let chains = Dictionary(grouping: entries.values.map(\.transaction), by: \.originalID)
        for transaction in derived {
            let chain = chains[transaction.originalID] ?? []
            let first = chain.min { $0.id < $1.id }
            let previous = chain.filter { $0.id < transaction.id }.max { $0.id < $1.id }
            let continues = previous.map {
                !$0.isUpgraded && abs(($0.expirationDate ?? .distantPast).timeIntervalSince(transaction.purchaseDate)) <= 0.001
            }
            entries[transaction.id]?.transaction.reason = continues == true ? .renewal : .purchase
            entries[transaction.id]?.transaction.originalPurchaseDate = first?.purchaseDate ?? transaction.purchaseDate
        }
    }

    // MARK: - Running changes

    /// Applies `body` to the state inside one write transaction on the ledger (see
    /// ``transaction(_:now:_:)``), then announces the change.
    func mutate<Result: Sendable>(_ body: (inout State, inout Changes, Date) throws(SubscriptionError) -> Result) throws(SubscriptionError) -> Result
    {
        try mutate(returningEventsTo: nil, body).result
    }

    /// Runs `body` as ``mutate(_:)`` does, and returns the change's events with its
    /// result: the observer `caller` is not told them, as the caller applies them itself
    /// from what the write returned; every other observer is, once the write is done.
    func mutate<Result: Sendable>(
        returningEventsTo caller: Int?, _ body: (inout State, inout Changes, Date) throws(SubscriptionError) -> Result
    ) throws(SubscriptionError) -> (result: Result, events: [Event]) {
        let now = clock.now
        let outcome = state.withLock { state -> Swift.Result<(Result, Changes), SubscriptionError> in
            do throws(SubscriptionError) {
                return .success(try transaction(&state, now: now, body))
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .success(let (result, changes)):
            announce(changes, skipping: caller)
            return (result, changes.events)
        case .failure(let error):
            // A failed change went back to the ledger as stored, which may hold what
            // another store on the file wrote meanwhile: observers derive their state again.
            var reloaded = Changes()
            reloaded.events = [.reloaded]
            announce(reloaded)
            throw error
        }
    }

    /// Runs `body` in one write transaction on the ledger, with the state lock held: the
    /// state is read again first if another store on the file changed it, brought up to
    /// now, changed, and what the change touched is written before the transaction
    /// commits. A failed write reloads the ledger and throws.
    private func transaction<Result>(_ state: inout State, now: Date, _ body: (inout State, inout Changes, Date) throws(SubscriptionError) -> Result)
        throws(SubscriptionError) -> (Result, Changes)
    {
        guard !state.isBroken else {
            throw SubscriptionError(.ledgerUnreadable, detail: "An earlier write to the ledger failed and could not be undone; reopen the store.")
        }
        do {
            return try ledger.write { records in
                var changes = Changes()
                changes.events += try reloadIfChanged(&state, from: records)
                settle(&state, &changes, now: now)
                let result = try body(&state, &changes, now)
                settle(&state, &changes, now: now)
                try persist(&state, &changes, in: records)
                announceGrace(&state, &changes)
                return (result, changes)
            }
        } catch {
            // What is stored is the truth: go back to it, keeping this session's settings.
            if let reloaded = try? ledger.read({ records in try reloaded(state, from: records) }) {
                state = reloaded
            } else {
                state.isBroken = true
            }
            if let error = error as? SubscriptionError { throw error }
            throw SubscriptionError(.ledgerUnreadable, detail: "The transaction ledger could not be written: \(error)")
        }
    }

    /// The next transaction ID: past every stored transaction and waiting purchase, even
    /// if the stored counter is missing or behind.
    private static func nextID(
        in records: RecordReader, entries: some Sequence<UInt64>, pending: some Sequence<PendingPurchase>
    ) throws -> UInt64 {
        let pastEvery = max(entries.max() ?? 0, pending.map(\.transactionID).max() ?? 0) + 1
        return max(try records.value(forKey: "nextID", in: StoreLedger.meta) ?? 1, pastEvery)
    }

    /// Gives each waiting purchase saved before they had identifiers one from the
    /// transaction sequence, in the order they were asked for, and writes them, so every
    /// launch and every store on the file lists it under the same one.
    private static func numberEarlierRequests(in records: RecordWriter) throws {
        let pending = try records.values(in: StoreLedger.pending)
        let unnumbered = pending.filter { $0.transactionID == 0 }.sorted { ($0.requestedAt, $0.id) < ($1.requestedAt, $1.id) }
        guard !unnumbered.isEmpty else { return }
        // Transaction keys sort as their IDs: the last is the highest.
        let highest = try records.lastKey(in: StoreLedger.transactions).flatMap { UInt64($0) }
        var next = try nextID(in: records, entries: highest.map { [$0] } ?? [], pending: pending)
        for var request in unnumbered {
            request.transactionID = next
            next += 1
            try records.put(request, forKey: request.id, in: StoreLedger.pending)
        }
        try records.put(next, forKey: "nextID", in: StoreLedger.meta)
        // Other stores on the file read the ledger again.
        try records.put((try records.value(forKey: "version", in: StoreLedger.meta) ?? 0) + 1, forKey: "version", in: StoreLedger.meta)
    }

    /// The ledger as stored, with this instance's settings and event numbering kept.
    private func reloaded(_ state: State, from records: RecordReader) throws -> State {
        var fresh = try Self.load(from: records)
        fresh.passEnds = Self.passEnds(of: fresh.entries.values, products: products)
        fresh.settings = state.settings
        fresh.sequence = state.sequence
        if fresh.notificationKey.isEmpty { fresh.notificationKey = state.notificationKey }
        return fresh
    }

    /// Reads the ledger again if another store on the file wrote to it since `state`
    /// was read, and returns what observers must hear: `.reloaded`, then every
    /// transaction the other store created or changed, so update listeners receive a
    /// renewal, refund or purchase recorded there as if it had happened here.
    private func reloadIfChanged(_ state: inout State, from records: RecordReader) throws -> [Event] {
        guard records.externalChangeCount != state.seenExternalChanges else { return [] }
        state.seenExternalChanges = records.externalChangeCount
        guard try records.value(forKey: "version", in: StoreLedger.meta) ?? 0 != state.ledgerVersion else { return [] }
        let fresh = try reloaded(state, from: records)
        var events: [Event] = [.reloaded]
        for (id, entry) in fresh.entries.sorted(by: { $0.key < $1.key }) where state.entries[id]?.revision != entry.revision {
            events.append(.transaction(entry.result, owner: entry.owner, revision: entry.revision, returnedByPurchase: false))
        }
        if fresh.lastNotice > state.lastNotice, notificationListeners.withLock({ !$0.continuations.isEmpty }) {
            let range = KeyRange(after: StoreLedger.key(state.lastNotice))
            events += try records.values(in: StoreLedger.notifications, range: range).map(Event.notification)
        }
        state = fresh
        return events
    }

    /// Brings every subscription up to the clock's present — renewals, lapses, grace
    /// and billing retry ending, Ask to Buy requests lapsing after 24 hours — and picks
    /// up what another store on the same file wrote. Writes only when something is due.
    public func settle() {
        _ = settleNow()
    }

    /// ``settle()``, telling whether the ledger is now settled: false when a settlement
    /// was due and could not be written.
    private func settleNow() -> Bool {
        refreshFromStorage()
        let now = clock.now
        let (settled, changes): (Bool, Changes?) = state.withLock { state in
            guard !state.isBroken else { return (false, nil) }
            guard Self.isDue(state, at: now) else { return (true, nil) }
            let changes = try? transaction(&state, now: now) { (_, _, _) throws(SubscriptionError) in }.1
            return (changes != nil, changes)
        }
        if settled { timer.withLock { $0.failures = 0 } }
        if let changes { announce(changes) }
        return settled
    }

    /// The ends of the non-renewing subscriptions among `entries` not refunded, earliest
    /// first: each product's period from the purchase date, in real time, as the
    /// service counts them.
    static func passEnds(of entries: some Sequence<StoreLedger.Entry>, products: [AppStoreProduct]) -> [Date] {
        let periods = Dictionary(
            products.compactMap { product in product.type == .nonRenewable ? product.period.map { (product.id, $0) } : nil },
            uniquingKeysWith: { first, _ in first })
        return entries.compactMap { entry in
            guard entry.transaction.productType == .nonRenewable, entry.transaction.revocationDate == nil,
                let period = periods[entry.transaction.productID]
            else { return nil }
            return period.end(after: entry.transaction.purchaseDate)
        }.sorted()
    }

    /// Reads the ledger again, without writing, if another store on the file changed it.
    func refreshFromStorage() {
        guard ledger.file != nil else { return } // nothing else writes to memory
        let events: [Event] = state.withLock { state in
            guard !state.isBroken, let external = try? ledger.externalChangeCount(), external != state.seenExternalChanges else { return [] }
            var updated = state
            guard let events = try? ledger.read({ records in try reloadIfChanged(&updated, from: records) }) else { return [] }
            state = updated
            return events
        }
        if !events.isEmpty { announce(Changes(events: events)) }
    }

    /// Whether a renewal, lapse or other boundary has passed that the ledger has not settled.
    func isDue(at now: Date) -> Bool {
        state.withLock { Self.isDue($0, at: now) }
    }

    private static func isDue(_ state: State, at now: Date) -> Bool {
        nextBoundary(of: state).map { $0 < now } ?? false
    }

    /// What settling at `now` would announce; nothing is written or kept. The settlement
    /// runs on the state itself and is undone, so it costs what it changes, not the
    /// length of the history (a copy of the state would copy every transaction).
    func preview(at now: Date) -> [Event] {
        state.withLock { state in
            let saved = (
                subscriptions: state.subscriptions, pending: state.pending, nextID: state.nextID,
                announcedGrace: state.announcedGrace, sequence: state.sequence, passEnds: state.passEnds, shares: state.shares,
                sharesByPurchase: state.sharesByPurchase
            )
            var changes = Changes()
            settle(&state, &changes, now: now)
            announceGrace(&state, &changes)
            // Settling only adds transactions (renewals), numbered from the saved next ID.
            for id in changes.entries where id >= saved.nextID { state.entries[id] = nil }
            state.subscriptions = saved.subscriptions
            state.pending = saved.pending
            state.nextID = saved.nextID
            state.announcedGrace = saved.announcedGrace
            state.sequence = saved.sequence
            state.passEnds = saved.passEnds
            state.shares = saved.shares
            state.sharesByPurchase = saved.sharesByPurchase
            return changes.events
        }
    }

    private func persist(_ state: inout State, _ changes: inout Changes, in records: RecordWriter) throws {
        guard
            !changes.entries.isEmpty || !changes.subscriptions.isEmpty || !changes.pending.isEmpty || changes.device || !changes.notices.isEmpty
                || !changes.refundRequests.isEmpty || !changes.families.isEmpty || !changes.shares.isEmpty
        else { return }
        if ledger.file != nil { // only a file has other stores to tell
            state.ledgerVersion += 1
            try records.put(state.ledgerVersion, forKey: "version", in: StoreLedger.meta)
        }
        // Each record is encoded once: a notification of it as it is now takes the same bytes.
        var encoded = StoreLedger.Encoded()
        for id in changes.entries {
            if let entry = state.entries[id] {
                try records.setData(encoded.entry(entry), forKey: StoreLedger.key(id), in: StoreLedger.transactions)
            } else {
                try records.removeValue(forKey: StoreLedger.key(id), in: StoreLedger.transactions)
            }
        }
        for id in changes.subscriptions {
            if let subscription = state.subscriptions[id] {
                try records.setData(encoded.subscription(subscription), forKey: StoreLedger.key(id), in: StoreLedger.subscriptions)
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
        if changes.device { try records.put(state.appleID, forKey: StoreLedger.deviceKey, in: StoreLedger.device) }
        // The counter is a floor a load raises past every stored transaction and waiting
        // purchase: it is written only when the newest identifier is not a stored
        // transaction's (a deletion, or a purchase waiting under it), not on every renewal.
        if state.nextID > 1, state.entries.index(forKey: state.nextID - 1) == nil {
            try records.put(state.nextID, forKey: "nextID", in: StoreLedger.meta)
        }
        for organizer in changes.families {
            if let family = state.families[organizer] {
                try records.put(family, forKey: organizer.email, in: StoreLedger.families)
            } else {
                try records.removeValue(forKey: organizer.email, in: StoreLedger.families)
            }
        }
        for key in changes.shares {
            if let share = state.shares[key] {
                try records.put(share, forKey: key, in: StoreLedger.shares)
            } else {
                try records.removeValue(forKey: key, in: StoreLedger.shares)
            }
        }
        for (id, reason) in changes.refundRequests {
            if let reason {
                try records.put(reason, forKey: StoreLedger.key(id), in: StoreLedger.refundRequests)
                state.refundRequests.insert(id)
            } else {
                try records.removeValue(forKey: StoreLedger.key(id), in: StoreLedger.refundRequests)
                state.refundRequests.remove(id)
            }
        }
        if !changes.notices.isEmpty {
            // Numbered after the last one stored: the state was read again in this transaction
            // if another store on the file wrote since.
            var number = state.lastNotice
            // Told as events only to the stream's listeners; a change with none does not carry them.
            let listened = notificationListeners.withLock { !$0.continuations.isEmpty }
            for index in changes.notices.indices { // numbered in place: a notice is copied only for listeners
                number += 1
                changes.notices[index].id = Self.notificationID(prefix: noticePrefix, number: number)
                try records.setData(
                    encoded.notice(changes.notices[index], entries: state.entries, subscriptions: state.subscriptions),
                    forKey: StoreLedger.key(number), in: StoreLedger.notifications)
                if listened { changes.events.append(.notification(changes.notices[index])) }
            }
            state.lastNotice = number
        }
    }

    /// Queues a status event for each subscription the change touched, and a grace
    /// event for each grace period that began or ended.
    private func announceGrace(_ state: inout State, _ changes: inout Changes) {
        for id in changes.subscriptions.ascending() {
            // Read in place: the subscription is copied only when its grace period changed.
            let index = state.subscriptions.index(forKey: id)
            let now = index.flatMap { state.grace(of: state.subscriptions.values[$0]) }
            let before = state.announcedGrace[id]
            if before != now {
                let subscription = index.map { state.subscriptions.values[$0] }
                let owner = subscription?.owner ?? state.appleID
                let token = subscription?.appAccountToken
                // The family members it is shared with have the grace period on their own transactions.
                let members = state.shares(of: id).map { (owner: $0.member, transactionID: $0.latestTransactionID) }
                if let before {
                    for holder in [(owner, token, before.transactionID)] + members.map({ ($0.owner, nil, $0.transactionID) }) {
                        state.sequence += 1
                        changes.events.append(
                            .grace(owner: holder.0, appAccountToken: holder.1, transactionID: holder.2, end: nil, sequence: state.sequence))
                    }
                }
                if let now {
                    for holder in [(owner, token, now.transactionID)] + members.map({ ($0.owner, nil, $0.transactionID) }) {
                        state.sequence += 1
                        changes.events.append(
                            .grace(owner: holder.0, appAccountToken: holder.1, transactionID: holder.2, end: now.end, sequence: state.sequence))
                    }
                }
                state.announcedGrace[id] = now
            }
            if index != nil { changes.events.append(.status) }
        }
    }

    private func announce(_ changes: Changes, skipping caller: Int? = nil) {
        if !changes.events.isEmpty {
            let handlers = observers.withLock { $0.handlers }
            // The caller's purchase returns its transaction; to every other service on the
            // store it is a transaction made elsewhere, for its updates stream.
            let events = caller == nil ? changes.events : changes.events.map(\.madeElsewhere)
            for observer in handlers where observer.id != caller { observer.handler(events) }
            deliverNotifications(in: changes.events)
        }
        scheduleTimers()
    }

    /// The earliest date at which something happens by itself: a period's end, the end
    /// of grace or billing retry, an Ask to Buy request lapsing.
    private static func nextBoundary(of state: State) -> Date? {
        var next: Date?
        func consider(_ date: Date?) {
            guard let date else { return }
            if next.map({ date < $0 }) ?? true { next = date }
        }
        for subscription in state.subscriptions.values {
            switch subscription.state {
            case .subscribed: consider(subscription.periodEnd)
            case .inGracePeriod: consider(subscription.graceEnd)
            case .inBillingRetryPeriod: consider(subscription.retryEnd)
            case .expired, .revoked: break
            }
        }
        for pending in state.pending.values where pending.kind == .askToBuy {
            consider(pending.requestedAt.addingTimeInterval(askToBuyLifetime))
        }
        consider(state.passEnds.first)
        return next
    }

    /// Makes sure the timer task wakes just after the next boundary. A task armed for an
    /// earlier date is kept: it settles then, and arms the next one. After a wake that
    /// could not settle (the ledger cannot be written), the next wake waits 1 s, then 2,
    /// 4, … up to 5 minutes of the clock, instead of finding the same boundary past and
    /// trying again at once; a broken ledger arms nothing.
    private func scheduleTimers() {
        if let base { return base.scheduleTimers() }
        guard let boundary = state.withLock({ $0.isBroken ? nil : Self.nextBoundary(of: $0) }) else { return }
        let clock = clock
        timer.withLock { timer in
            var next = boundary
            if timer.failures > 0 {
                next = max(next, clock.now.addingTimeInterval(min(pow(2, Double(timer.failures - 1)), 300)))
            }
            if let armed = timer.deadline, armed <= next { return }
            timer.task?.cancel()
            timer.deadline = next
            timer.task = Task { [weak self] in
                // Boundaries are inclusive (active while now <= expiration): wake just after.
                try? await clock.sleep(until: next.addingTimeInterval(0.001))
                guard !Task.isCancelled, let self else { return }
                self.timer.withLock { if $0.deadline == next { $0.deadline = nil } }
                if !self.settleNow() { self.timer.withLock { $0.failures += 1 } }
                self.scheduleTimers()
            }
        }
    }

    static let askToBuyLifetime: TimeInterval = 24 * 3600

}
