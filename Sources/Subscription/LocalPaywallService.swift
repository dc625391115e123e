import Foundation
import TrainAuth
import TrainCore

/// What a ``LocalPaywallService`` is built with besides its context, each with a default.
public struct PaywallServiceConfiguration: Sendable {
    /// Which tier unlocks which feature, for placements that guard one; the standard catalog.
    public var catalog: FeatureCatalog = .standard
    /// The app's whole catalog, which a configuration's packages must name products of;
    /// nil (the default) for the products the storefront sells now. With the whole
    /// catalog, one configuration serves every storefront: a package of a product the
    /// storefront does not sell is left out of the paywall, not refused.
    public var products: [AppStoreProduct]?
    /// The clock given to the deprecated initializer, which overrides the context's.
    package var legacy = LegacyContext()

    /// Creates a configuration; `PaywallServiceConfiguration()` has the standard
    /// catalog and the storefront's products.
    /// - Parameters:
    ///   - catalog: The tier-to-feature mapping; the standard one by default.
    ///   - products: The app's whole catalog; nil for the products on sale in the storefront.
    public init(catalog: FeatureCatalog = .standard, products: [AppStoreProduct]? = nil) {
        self.catalog = catalog
        self.products = products
    }

    /// Creates a configuration with a clock of its own.
    /// - Parameters:
    ///   - clock: The clock, in place of the context's.
    ///   - catalog: The tier-to-feature mapping; the standard one by default.
    ///   - products: The app's whole catalog; nil for the products on sale in the storefront.
    @_disfavoredOverload
    @available(*, deprecated, message: "Pass the clock in the service's context.")
    public init(clock: (any DateClock)? = nil, catalog: FeatureCatalog = .standard, products: [AppStoreProduct]? = nil) {
        self.init(catalog: catalog, products: products)
        self.legacy = LegacyContext(clock: clock)
    }

    /// The clock given to the deprecated initializer, or the system's.
    @available(*, deprecated, message: "Pass the clock in the service's context.")
    public var clock: any DateClock {
        get { legacy.clock ?? SystemClock() }
        set { legacy.clock = newValue }
    }
}

/// TrainKit's ``PaywallService``, over any ``SubscriptionService``: the configuration in
/// force and the exposures kept in memory or in a file, the tier, introductory-offer
/// eligibility and products read from the subscription service at each gate.
///
/// A user's variant is a function of the experiment and the user alone, so it is the
/// same at every gate, after a relaunch and on every device, and a backend can compute
/// it too: the first 8 bytes of the SHA-256 of the experiment's ID, a NUL byte and the
/// user's ID (UTF-8), read as a big-endian unsigned number, modulo 100, give a bucket;
/// the variants take buckets in order, as many as their weight. Without a user it is
/// this installation's, `install:` and an ID kept with the configuration, so it stays
/// the same on this device until the app is deleted.
///
/// A gate reads the user and their attributes once, when it starts: a user who signs
/// in while it waits for the store is the next gate's. An exposure is logged only for a
/// paywall the gate returns.
///
/// ```swift
/// let paywalls = try LocalPaywallService(
///     subscriptions: subscriptions, auth: auth, storage: .file(directory.appendingPathComponent("paywalls.sqlite")))
/// try await paywalls.replaceConfiguration(PaywallConfiguration(json: downloaded))
/// let decision = try await paywalls.gate(placement: "onboarding")   // for the user signed in to `auth`
/// ```
public final class LocalPaywallService: PaywallService {
    /// The subscriptions whose tier, eligibility and products the gates read.
    public let subscriptions: any SubscriptionService
    /// The auth service whose signed-in user experiments assign and exposures name; nil
    /// for a user set by hand (``setUser(_:)``).
    public let auth: (any AuthSession)?
    private let store: RecordStore
    /// The clock exposures are dated by and the IDs of installations.
    public let context: TrainContext
    private let settings: PaywallServiceConfiguration

    private struct State {
        var configuration = PaywallConfiguration.empty
        /// The number of the configuration in force; each replacement is one more.
        var revision: UInt64 = 0
        var userID: String?
        var attributes: [String: String] = [:]
        /// This installation's ID: the one kept, or (in a store that cannot be read) a new one.
        var installID: String
        /// The store's count of commits by other connections when the configuration was read.
        var seenExternalChanges: UInt64?
    }

    /// The user a gate decides for, read once when it starts.
    private struct Viewer {
        var key: String
        var attributes: [String: String]
    }

    private let state: Locked<State>

    /// Creates a service whose configuration and exposures live in memory. It cannot
    /// fail, so a SwiftUI preview or a test can make one without `try`.
    /// - Parameters:
    ///   - subscriptions: The subscription service.
    ///   - auth: The auth service whose signed-in user the service follows by itself; nil
    ///     for a user set by hand.
    ///   - context: The clock exposures are dated by and the IDs of installations; the live ones by default.
    ///   - configuration: The feature catalog and the app's products.
    public convenience init(
        subscriptions: any SubscriptionService, auth: (any AuthSession)? = nil, context: TrainContext = .live,
        configuration: PaywallServiceConfiguration = PaywallServiceConfiguration()
    ) {
        self.init(
            subscriptions: subscriptions, auth: auth, store: .inMemoryOrFailing(PaywallRecords.schema), context: context,
            configuration: configuration)
    }

    /// Creates a service whose configuration and exposures live in `storage`: from a file,
    /// the configuration last put in force, the installation's ID and the exposures
    /// survive a relaunch.
    /// - Parameters:
    ///   - subscriptions: The subscription service.
    ///   - auth: The auth service whose signed-in user the service follows by itself; nil
    ///     for a user set by hand.
    ///   - storage: In memory, or a file (other services may share it).
    ///   - context: The clock exposures are dated by and the IDs of installations; the live ones by default.
    ///   - configuration: The feature catalog and the app's products.
    /// - Throws: ``TrainCore/TrainErrorCode/ledgerUnreadable`` naming the file if it cannot
    ///   be read, or holds a configuration this version cannot read.
    public convenience init(
        subscriptions: any SubscriptionService, auth: (any AuthSession)? = nil, storage: StorageLocation, context: TrainContext = .live,
        configuration: PaywallServiceConfiguration = PaywallServiceConfiguration()
    ) throws(SubscriptionError) {
        let context = configuration.legacy.applied(to: context)
        let store: RecordStore
        let state: State
        do {
            store = try RecordStore(storage, schema: PaywallRecords.schema)
            state = try Self.load(store, orEmpty: false, ids: context.ids)
        } catch {
            throw SubscriptionError(.ledgerUnreadable, detail: "The paywall configuration could not be read: \(error)")
        }
        self.init(subscriptions: subscriptions, auth: auth, store: store, context: context, configuration: configuration, state: state)
    }

    /// Creates a service over `store`, a store of ``recordSchema`` another service of
    /// the stack may share the file of. A configuration it cannot read is left out (the
    /// next replacement writes over it); an installation ID it cannot read or keep is a
    /// new one.
    package convenience init(
        subscriptions: any SubscriptionService, auth: (any AuthSession)?, store: RecordStore, context: TrainContext,
        configuration: PaywallServiceConfiguration
    ) {
        let context = configuration.legacy.applied(to: context)
        let state = (try? Self.load(store, orEmpty: true, ids: context.ids)) ?? State(installID: context.ids.makeID().lowercased())
        self.init(subscriptions: subscriptions, auth: auth, store: store, context: context, configuration: configuration, state: state)
    }

    /// The schema of the store a stack makes for a service.
    package static var recordSchema: StoreSchema { PaywallRecords.schema }

    private init(
        subscriptions: any SubscriptionService, auth: (any AuthSession)?, store: RecordStore, context: TrainContext,
        configuration: PaywallServiceConfiguration, state: State
    ) {
        self.subscriptions = subscriptions
        self.auth = auth
        self.store = store
        self.context = context
        settings = configuration
        self.state = Locked(state)
    }

    /// Reads this installation's ID, made the first time, and the configuration kept:
    /// one that cannot be read or does not hold together is an error, or with `orEmpty`
    /// none.
    private static func load(_ store: RecordStore, orEmpty: Bool, ids: any IDGenerator) throws -> State {
        var state = State(installID: "")
        state.installID = try store.write { records in
            if let id = try records.value(forKey: PaywallRecords.installKey, in: PaywallRecords.install) { return id }
            let id = ids.makeID().lowercased()
            try records.put(id, forKey: PaywallRecords.installKey, in: PaywallRecords.install)
            return id
        }
        do {
            let changes = try store.externalChangeCount()
            if let kept = try readKept(store) {
                (state.configuration, state.revision) = (kept.configuration, kept.revision)
            }
            state.seenExternalChanges = changes
        } catch  where orEmpty {
            // Left out: the next replacement writes over it.
        }
        return state
    }

    /// The configuration kept, checked to hold together as it was when put in force.
    private static func readKept(_ store: RecordStore) throws -> KeptPaywallConfiguration? {
        guard let kept = try store.read({ try $0.value(forKey: PaywallRecords.currentKey, in: PaywallRecords.configurations) }) else { return nil }
        try kept.configuration.validateStructure()
        return kept
    }

    public var configuration: PaywallConfiguration {
        refreshFromStorage()
        return state.withLock { $0.configuration }
    }

    @discardableResult
    public func replaceConfiguration(_ configuration: PaywallConfiguration) async throws -> [PaywallWarning] {
        // Checked against the whole catalog when there is one, without asking the store;
        // the warnings need the storefront's products, when the store can list them.
        let sold: [AppStoreProduct]?
        if let whole = settings.products {
            try configuration.validate(against: whole, catalog: settings.catalog)
            sold = try? await subscriptions.products()
        } else {
            let onSale = try await subscriptions.products()
            try configuration.validate(against: onSale, catalog: settings.catalog)
            sold = onSale
        }
        let revision: UInt64
        do {
            let inForce = state.withLock { $0.revision }
            revision = try store.write { records in
                // One this version cannot read is written over, numbered after the one in force.
                let kept = try? records.value(forKey: PaywallRecords.currentKey, in: PaywallRecords.configurations)
                let last = max(kept?.revision ?? 0, inForce)
                try records.put(
                    KeptPaywallConfiguration(revision: last + 1, configuration: configuration), forKey: PaywallRecords.currentKey,
                    in: PaywallRecords.configurations)
                return last + 1
            }
        } catch {
            throw SubscriptionError(.ledgerUnreadable, detail: "The paywall configuration could not be kept: \(error)")
        }
        adopt(configuration, revision: revision)
        return sold.map(configuration.warnings(sold:)) ?? []
    }

    public func gate(placement id: String) async throws -> PaywallDecision {
        let viewer = self.viewer
        let configuration = configuration
        guard let placement = configuration.placements.first(where: { $0.id == id }) else {
            throw SubscriptionError(.placementNotFound, detail: "The configuration has no placement \(id.debugDescription).")
        }
        if let feature = placement.feature, FeatureAccess(tier: subscriptions.currentTier, catalog: settings.catalog).canAccess(feature) {
            return .granted
        }
        // The configuration in force holds together: its last rule is for everyone.
        for rule in placement.rules where try await holds(rule.audience, for: viewer, in: configuration) {
            switch rule.action {
            case .grant:
                return .granted
            case .show(let offering):
                return try await decision(showing: offering, at: placement.id, in: configuration, assignment: nil)
            case .experiment(let experiment):
                let (assignment, variant) = try assign(experiment, to: viewer, in: configuration)
                let decision: PaywallDecision
                if let offering = variant.offering {
                    decision = try await self.decision(showing: offering, at: placement.id, in: configuration, assignment: assignment)
                } else {
                    decision = .granted
                }
                // Logged last: a gate that fails or is cancelled showed nothing.
                try Task.checkCancellation()
                try logExposure(assignment, at: placement.id, showing: decision.presentation?.offering.id, for: viewer)
                return decision
            }
        }
        return .granted
    }

    public func assignment(in experiment: String) async throws -> PaywallAssignment {
        try assign(experiment, to: viewer, in: configuration).assignment
    }

    /// Makes `userID` the user experiments assign and exposures name; nil falls back to
    /// this installation. A service given an auth service follows its signed-in user and
    /// ignores this call.
    public func setUser(_ userID: String?) async {
        guard auth == nil else { return }
        switchUser(to: userID)
    }

    /// Makes the auth service's signed-in user the user, for a service that follows one.
    private func followAuth() {
        if let auth { switchUser(to: auth.currentUser?.id) }
    }

    /// Makes `userID` the user, with no attributes if another user than before.
    private func switchUser(to userID: String?) {
        state.withLock { state in
            guard state.userID != userID else { return }
            state.userID = userID
            state.attributes = [:]
        }
    }

    public func setAttribute(_ value: String?, forKey key: String) async {
        followAuth()
        state.withLock { $0.attributes[key] = value }
    }

    public func exposures() async throws -> [PaywallExposure] {
        do {
            return try store.read { try $0.values(in: PaywallRecords.exposures) }
        } catch {
            throw SubscriptionError(.ledgerUnreadable, detail: "The exposures could not be read: \(error)")
        }
    }

    /// Reads the whole log, in one write transaction, and removes `userID`'s exposures.
    @discardableResult
    public func removeExposures(of userID: String) async throws -> Int {
        do {
            return try store.write { records in
                let theirs = try records.entries(in: PaywallRecords.exposures).filter { $0.value.user == userID }
                for entry in theirs { try records.removeValue(forKey: entry.key, in: PaywallRecords.exposures) }
                return theirs.count
            }
        } catch {
            throw SubscriptionError(.ledgerUnreadable, detail: "The exposures could not be removed: \(error)")
        }
    }

    /// The user now — the auth service's signed-in user, or the one set, or this
    /// installation — and their attributes.
    private var viewer: Viewer {
        followAuth()
        return state.withLock { Viewer(key: $0.userID ?? "install:\($0.installID)", attributes: $0.attributes) }
    }

    /// Puts `configuration` in force unless a newer one already is.
    private func adopt(_ configuration: PaywallConfiguration, revision: UInt64) {
        state.withLock { state in
            guard revision > state.revision else { return }
            (state.configuration, state.revision) = (configuration, revision)
        }
    }

    /// Reads the configuration again if another connection to the file committed since
    /// it was last read; one it cannot read leaves the one in force, and is tried again.
    private func refreshFromStorage() {
        guard let external = try? store.externalChangeCount(), state.withLock({ $0.seenExternalChanges != external }) else { return }
        let kept: KeptPaywallConfiguration?
        do {
            kept = try Self.readKept(store)
        } catch {
            return
        }
        if let kept { adopt(kept.configuration, revision: kept.revision) }
        state.withLock { $0.seenExternalChanges = external }
    }

    /// Whether every condition of `audience` holds for `viewer` now; nil is everyone.
    private func holds(_ audience: String?, for viewer: Viewer, in configuration: PaywallConfiguration) async throws -> Bool {
        guard let audience else { return true }
        guard let conditions = configuration.audiences.first(where: { $0.id == audience })?.conditions else { return false }
        for condition in conditions {
            let holds: Bool
            switch condition {
            case .tierBelow(let tier): holds = subscriptions.currentTier.level < tier.level
            case .tierAtLeast(let tier): holds = subscriptions.currentTier.level >= tier.level
            case .introOfferEligible(let group, let eligible): holds = try await subscriptions.isEligibleForIntroOffer(groupID: group) == eligible
            case .attribute(let key, let value): holds = viewer.attributes[key] == value
            }
            guard holds else { return false }
        }
        return true
    }

    /// `viewer`'s variant of `experiment`: where the SHA-256 of the experiment's ID, as the
    /// configuration spells it, and the user, as a number below 100, falls among the weights.
    private func assign(_ experiment: String, to viewer: Viewer, in configuration: PaywallConfiguration) throws(SubscriptionError) -> (
        assignment: PaywallAssignment, variant: PaywallVariant
    ) {
        guard let experiment = configuration.experiments.first(where: { $0.id == experiment }) else {
            throw SubscriptionError(.experimentNotFound, detail: "The configuration has no experiment \(experiment.debugDescription).")
        }
        let bucket = try Self.bucket(experiment: experiment.id, user: viewer.key)
        var passed = 0
        for variant in experiment.variants {
            // A configuration in force has weights of 0 to 100 that add up to 100.
            passed += min(max(variant.weight, 0), 100)
            if bucket < passed { return (PaywallAssignment(experiment: experiment.id, variant: variant.id), variant) }
        }
        throw SubscriptionError(.invalidConfiguration, detail: "The weights of experiment '\(experiment.id)' do not add up to 100.")
    }

    /// A number below 100 from the SHA-256 of `experiment` and `user`, NUL between them.
    static func bucket(experiment: String, user: String) throws(SubscriptionError) -> Int {
        let digest: [UInt8]
        do {
            digest = try PlatformCrypto.sha256(Data("\(experiment)\u{0}\(user)".utf8))
        } catch {
            throw SubscriptionError(.systemError, detail: "The assignment could not be hashed: \(error.detail)")
        }
        let value = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Int(value % 100)
    }

    /// Logs that `viewer` was shown `assignment` at `placement`, with `offering` on
    /// screen, numbered after the last exposure.
    private func logExposure(_ assignment: PaywallAssignment, at placement: String, showing offering: String?, for viewer: Viewer)
        throws(SubscriptionError)
    {
        let exposure = PaywallExposure(
            assignment: assignment, placement: placement, user: viewer.key, date: context.clock.now, offering: offering)
        do {
            try store.write { records in
                let last = try records.lastKey(in: PaywallRecords.exposures).flatMap { UInt64($0) } ?? 0
                try records.put(exposure, forKey: StoreLedger.key(last + 1), in: PaywallRecords.exposures)
            }
        } catch {
            throw SubscriptionError(.ledgerUnreadable, detail: "The exposure could not be logged: \(error)")
        }
    }

    /// What a gate that chose `id` at `placement` decides: the offering's paywall, with
    /// only the packages whose products the store sells now; the configuration's
    /// fallback in its place when none is on sale; nothing on sale when the fallback has
    /// none either, or there is none.
    private func decision(
        showing id: String, at placement: String, in configuration: PaywallConfiguration, assignment: PaywallAssignment?
    ) async throws -> PaywallDecision {
        let sold = Dictionary(try await subscriptions.products().map { ($0.id, $0) }) { first, _ in first }
        var fallbackFrom: String?
        for candidate in [id] + (configuration.fallbackOffering.map { [$0] } ?? []) {
            guard var offering = configuration.offerings.first(where: { $0.id == candidate }) else {
                throw SubscriptionError(.invalidConfiguration, detail: "The configuration has no offering '\(candidate)'.")
            }
            offering.packages.removeAll { sold[$0.productID] == nil }
            if !offering.packages.isEmpty {
                let products = offering.packages.compactMap { sold[$0.productID] }
                return .show(
                    PaywallPresentation(
                        placement: placement, offering: offering, products: products, assignment: assignment, fallbackFrom: fallbackFrom))
            }
            fallbackFrom = id
        }
        return .nothingOnSale
    }
}

/// The configuration in force, with its number: each replacement is one more, so a
/// service never goes back to an older one it reads late.
struct KeptPaywallConfiguration: Codable {
    var revision: UInt64
    var configuration: PaywallConfiguration
}

/// What a ``LocalPaywallService`` keeps in its store.
enum PaywallRecords {
    static let schema = StoreSchema(name: "paywalls", migrations: [.createCollections(version: 1, ["configurations", "exposures", "install"])])
    /// The configuration in force, under ``currentKey``.
    static let configurations = RecordCollection<KeptPaywallConfiguration>("configurations")
    static let currentKey = "current"
    /// Exposures by their number (``StoreLedger/key(_:)``), oldest first.
    static let exposures = RecordCollection<PaywallExposure>("exposures")
    /// This installation's ID, under ``installKey``.
    static let install = RecordCollection<String>("install")
    static let installKey = "id"
}
