import Foundation
import TrainCore

/// What a ``LocalPaywallService`` is built with.
public struct PaywallServiceConfiguration: Sendable {
    /// The clock exposures are dated by.
    public var clock: any DateClock
    /// Which tier unlocks which feature, for placements that guard one.
    public var catalog: FeatureCatalog

    /// Creates a configuration.
    /// - Parameters:
    ///   - clock: The clock; the system's by default.
    ///   - catalog: The tier-to-feature mapping; the standard one by default.
    public init(clock: any DateClock = SystemClock(), catalog: FeatureCatalog = .standard) {
        self.clock = clock
        self.catalog = catalog
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
/// this installation's, `install:` and an ID kept with the configuration.
///
/// ```swift
/// let paywalls = try LocalPaywallService(subscriptions: subscriptions, storage: .file(directory.appendingPathComponent("paywalls.sqlite")))
/// try await paywalls.replaceConfiguration(PaywallConfiguration(json: downloaded))
/// await paywalls.setUser(user.id)
/// ```
public final class LocalPaywallService: PaywallService {
    /// The subscriptions whose tier, eligibility and products the gates read.
    public let subscriptions: any SubscriptionService
    private let store: RecordStore
    private let settings: PaywallServiceConfiguration

    private struct State {
        var configuration = PaywallConfiguration.empty
        var userID: String?
        var attributes: [String: String] = [:]
        /// This installation's ID: the one kept, or (in a store that cannot be read) a new one.
        var installID = UUID().uuidString.lowercased()
        /// The store's count of commits by other connections when the configuration was read.
        var seenExternalChanges: UInt64 = 0
    }

    private let state: Locked<State>

    /// Creates a service whose configuration and exposures live in memory. It cannot
    /// fail, so a SwiftUI preview or a test can make one without `try`.
    /// - Parameters:
    ///   - subscriptions: The subscription service.
    ///   - configuration: The clock and the feature catalog.
    public convenience init(subscriptions: any SubscriptionService, configuration: PaywallServiceConfiguration = PaywallServiceConfiguration()) {
        self.init(subscriptions: subscriptions, store: .inMemoryOrFailing(PaywallRecords.schema), configuration: configuration)
    }

    /// Creates a service whose configuration and exposures live in `storage`: from a file,
    /// the configuration last put in force and the exposures survive a relaunch.
    /// - Parameters:
    ///   - subscriptions: The subscription service.
    ///   - storage: In memory, or a file (other services may share it).
    ///   - configuration: The clock and the feature catalog.
    /// - Throws: ``SubscriptionError/Code/ledgerUnreadable`` naming the file if it cannot be read.
    public convenience init(
        subscriptions: any SubscriptionService, storage: StorageLocation, configuration: PaywallServiceConfiguration = PaywallServiceConfiguration()
    ) throws(SubscriptionError) {
        do {
            let store = try RecordStore(storage, schema: PaywallRecords.schema)
            self.init(subscriptions: subscriptions, store: store, configuration: configuration, state: try Self.load(store))
        } catch {
            throw SubscriptionError(.ledgerUnreadable, detail: "The paywall configuration could not be read: \(error)")
        }
    }

    /// Creates a service over `store`, a store of ``recordSchema`` another service of
    /// the stack may share the file of; a store that cannot be read starts empty.
    package convenience init(subscriptions: any SubscriptionService, store: RecordStore, configuration: PaywallServiceConfiguration) {
        self.init(subscriptions: subscriptions, store: store, configuration: configuration, state: (try? Self.load(store)) ?? State())
    }

    /// The schema of the store a stack makes for a service.
    package static var recordSchema: StoreSchema { PaywallRecords.schema }

    private init(subscriptions: any SubscriptionService, store: RecordStore, configuration: PaywallServiceConfiguration, state: State) {
        self.subscriptions = subscriptions
        self.store = store
        settings = configuration
        self.state = Locked(state)
    }

    /// Reads the configuration kept, and this installation's ID, made the first time.
    private static func load(_ store: RecordStore) throws -> State {
        var state = State()
        state.installID = try store.write { records in
            if let id = try records.value(forKey: PaywallRecords.installKey, in: PaywallRecords.install) { return id }
            let id = UUID().uuidString.lowercased()
            try records.put(id, forKey: PaywallRecords.installKey, in: PaywallRecords.install)
            return id
        }
        state.configuration = try store.read { try $0.value(forKey: PaywallRecords.currentKey, in: PaywallRecords.configurations) } ?? .empty
        state.seenExternalChanges = try store.externalChangeCount()
        return state
    }

    public var configuration: PaywallConfiguration {
        refreshFromStorage()
        return state.withLock { $0.configuration }
    }

    public func replaceConfiguration(_ configuration: PaywallConfiguration) async throws {
        try configuration.validate(against: try await subscriptions.products())
        do {
            try store.write { records in try records.put(configuration, forKey: PaywallRecords.currentKey, in: PaywallRecords.configurations) }
        } catch {
            throw SubscriptionError(.ledgerUnreadable, detail: "The paywall configuration could not be kept: \(error)")
        }
        state.withLock { $0.configuration = configuration }
    }

    public func gate(placement id: String) async throws -> PaywallDecision {
        let configuration = configuration
        guard let placement = configuration.placements.first(where: { $0.id == id }) else {
            throw SubscriptionError(.placementNotFound, detail: "The configuration has no placement '\(id)'.")
        }
        if let feature = placement.feature, FeatureAccess(tier: subscriptions.currentTier, catalog: settings.catalog).canAccess(feature) {
            return .granted
        }
        // The configuration was checked when it was put in force: its last rule is for everyone.
        for rule in placement.rules where try await holds(rule.audience, in: configuration) {
            switch rule.action {
            case .grant:
                return .granted
            case .show(let offering):
                return .show(try await presentation(of: offering, at: id, in: configuration, assignment: nil))
            case .experiment(let experiment):
                let (assignment, variant) = try assign(experiment, in: configuration)
                try logExposure(assignment, at: id)
                guard let offering = variant.offering else { return .granted }
                return .show(try await presentation(of: offering, at: id, in: configuration, assignment: assignment))
            }
        }
        return .granted
    }

    public func assignment(in experiment: String) async throws -> PaywallAssignment {
        try assign(experiment, in: configuration).assignment
    }

    public func setUser(_ userID: String?) async {
        state.withLock { $0.userID = userID }
    }

    public func setAttribute(_ value: String?, forKey key: String) async {
        state.withLock { $0.attributes[key] = value }
    }

    public func exposures() async throws -> [PaywallExposure] {
        do {
            return try store.read { try $0.values(in: PaywallRecords.exposures) }
        } catch {
            throw SubscriptionError(.ledgerUnreadable, detail: "The exposures could not be read: \(error)")
        }
    }

    /// The user experiments assign: the one set, or this installation.
    private var userKey: String {
        state.withLock { $0.userID ?? "install:\($0.installID)" }
    }

    /// Reads the configuration again if another service on the file replaced it.
    private func refreshFromStorage() {
        guard let external = try? store.externalChangeCount(), state.withLock({ $0.seenExternalChanges != external }) else { return }
        let stored = try? store.read { try $0.value(forKey: PaywallRecords.currentKey, in: PaywallRecords.configurations) }
        state.withLock { state in
            state.seenExternalChanges = external
            if let stored { state.configuration = stored }
        }
    }

    /// Whether every condition of `audience` holds for the user now; nil is everyone.
    private func holds(_ audience: String?, in configuration: PaywallConfiguration) async throws -> Bool {
        guard let audience else { return true }
        guard let conditions = configuration.audiences.first(where: { $0.id == audience })?.conditions else { return false }
        let attributes = state.withLock { $0.attributes }
        for condition in conditions {
            let holds: Bool
            switch condition {
            case .tierBelow(let tier): holds = subscriptions.currentTier.level < tier.level
            case .tierAtLeast(let tier): holds = subscriptions.currentTier.level >= tier.level
            case .introOfferEligible(let group, let eligible): holds = try await subscriptions.isEligibleForIntroOffer(groupID: group) == eligible
            case .attribute(let key, let value): holds = attributes[key] == value
            }
            guard holds else { return false }
        }
        return true
    }

    /// The user's variant of `experiment`: where the SHA-256 of the experiment and the
    /// user, as a number below 100, falls among the variants' weights.
    private func assign(_ experiment: String, in configuration: PaywallConfiguration) throws(SubscriptionError) -> (
        assignment: PaywallAssignment, variant: PaywallVariant
    ) {
        guard let variants = configuration.experiments.first(where: { $0.id == experiment })?.variants else {
            throw SubscriptionError(.invalidConfiguration, detail: "The configuration has no experiment '\(experiment)'.")
        }
        let bucket = try Self.bucket(experiment: experiment, user: userKey)
        var passed = 0
        for variant in variants {
            passed += variant.weight
            if bucket < passed { return (PaywallAssignment(experiment: experiment, variant: variant.id), variant) }
        }
        // Weights add up to 100 in a configuration in force, so the loop returned.
        throw SubscriptionError(.invalidConfiguration, detail: "The weights of experiment '\(experiment)' do not add up to 100.")
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

    /// Logs that the user was shown `assignment` at `placement`, numbered after the last exposure.
    private func logExposure(_ assignment: PaywallAssignment, at placement: String) throws(SubscriptionError) {
        let exposure = PaywallExposure(assignment: assignment, placement: placement, user: userKey, date: settings.clock.now)
        do {
            try store.write { records in
                let last = try records.lastKey(in: PaywallRecords.exposures).flatMap { UInt64($0) } ?? 0
                try records.put(exposure, forKey: StoreLedger.key(last + 1), in: PaywallRecords.exposures)
            }
        } catch {
            throw SubscriptionError(.ledgerUnreadable, detail: "The exposure could not be logged: \(error)")
        }
    }

    /// The paywall of `offering` at `placement`: its packages' products as the store sells them now.
    private func presentation(
        of offering: String, at placement: String, in configuration: PaywallConfiguration, assignment: PaywallAssignment?
    ) async throws -> PaywallPresentation {
        guard let offering = configuration.offerings.first(where: { $0.id == offering }) else {
            throw SubscriptionError(.invalidConfiguration, detail: "The configuration has no offering '\(offering)'.")
        }
        let sold = try await subscriptions.products()
        let products = offering.packages.compactMap { package in sold.first { $0.id == package.productID } }
        return PaywallPresentation(placement: placement, offering: offering, products: products, assignment: assignment)
    }
}

/// What a ``LocalPaywallService`` keeps in its store.
enum PaywallRecords {
    static let schema = StoreSchema(name: "paywalls", migrations: [.createCollections(version: 1, ["configurations", "exposures", "install"])])
    /// The configuration in force, under ``currentKey``.
    static let configurations = RecordCollection<PaywallConfiguration>("configurations")
    static let currentKey = "current"
    /// Exposures by their number (``StoreLedger/key(_:)``), oldest first.
    static let exposures = RecordCollection<PaywallExposure>("exposures")
    /// This installation's ID, under ``installKey``.
    static let install = RecordCollection<String>("install")
    static let installKey = "id"
}
