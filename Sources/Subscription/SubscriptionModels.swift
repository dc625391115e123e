import Foundation

/// A subscription level of the app. The set is open: TrainKit declares ``free``,
/// ``pro`` and ``premium``, and an app declares its own beside them. Tiers are
/// ordered by ``level``: buying a product of a higher tier is an upgrade, and a user
/// with several active subscriptions has the highest of their tiers.
///
/// ```swift
/// extension SubscriptionTier {
///     static let family = SubscriptionTier("family", level: 3)
/// }
/// let products = [AppStoreProduct(id: "com.train.family", displayName: "Family", tier: .family, period: .monthly, price: 14.99)]
/// ```
public struct SubscriptionTier: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The tier's stable name, such as `"pro"`: what products and stored data name it by.
    public let name: String
    /// Where the tier stands: higher levels unlock more. ``free`` is 0.
    public let level: Int

    /// Creates a tier.
    /// - Parameters:
    ///   - name: The tier's stable name.
    ///   - level: Where it stands; higher unlocks more.
    public init(_ name: String, level: Int) {
        self.name = name
        self.level = level
    }

    /// No subscription.
    public static let free = SubscriptionTier("free", level: 0)
    /// The Pro subscription.
    public static let pro = SubscriptionTier("pro", level: 1)
    /// The Premium subscription.
    public static let premium = SubscriptionTier("premium", level: 2)
    /// TrainKit's tiers, lowest first.
    public static let standard: [SubscriptionTier] = [.free, .pro, .premium]

    /// Orders tiers by level, then by name.
    /// - Parameters:
    ///   - lhs: A tier.
    ///   - rhs: Another tier.
    /// - Returns: Whether `lhs` stands below `rhs`.
    public static func < (lhs: SubscriptionTier, rhs: SubscriptionTier) -> Bool {
        (lhs.level, lhs.name) < (rhs.level, rhs.name)
    }

    /// The tier's name.
    public var description: String { name }
}

extension SubscriptionTier: Codable {
    private enum CodingKeys: String, CodingKey {
        case name, level
    }

    /// Reads a tier: one of TrainKit's by its name alone (as earlier versions wrote
    /// every tier), any other as its name and level.
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError` for a name alone that is not one of TrainKit's tiers.
    public init(from decoder: any Decoder) throws {
        if let name = try? decoder.singleValueContainer().decode(String.self) {
            guard let tier = Self.standard.first(where: { $0.name == name }) else {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "'\(name)' is not a tier without its level."))
            }
            self = tier
            return
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(try container.decode(String.self, forKey: .name), level: try container.decode(Int.self, forKey: .level))
    }

    /// Writes one of TrainKit's tiers as its name, any other as its name and level.
    /// - Parameter encoder: The encoder.
    /// - Throws: `EncodingError` if the encoder fails.
    public func encode(to encoder: any Encoder) throws {
        if Self.standard.contains(self) {
            var container = encoder.singleValueContainer()
            try container.encode(name)
        } else {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(level, forKey: .level)
        }
    }
}

/// A gated capability of the app. The set is open: TrainKit declares the standard
/// features, and an app declares its own beside them.
///
/// ```swift
/// extension Feature {
///     static let coachChat = Feature("coachChat")
/// }
/// ```
public struct Feature: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    /// The feature's stable name.
    public let rawValue: String

    /// Creates a feature.
    /// - Parameter rawValue: Its stable name.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Creates a feature.
    /// - Parameter name: Its stable name.
    public init(_ name: String) {
        self.init(rawValue: name)
    }

    /// Ready-made training plans.
    public static let basicPlans = Feature("basicPlans")
    /// Logging workouts.
    public static let workoutTracking = Feature("workoutTracking")
    /// Building one's own plans.
    public static let customPlans = Feature("customPlans")
    /// Training analytics.
    public static let analytics = Feature("analytics")
    /// Automatic progression of loads and volumes.
    public static let advancedProgression = Feature("advancedProgression")
    /// TrainKit's features.
    public static let standard: [Feature] = [.basicPlans, .workoutTracking, .customPlans, .analytics, .advancedProgression]

    /// The feature's name.
    public var description: String { rawValue }
}

/// Which features each tier unlocks — data, not a switch, so an app can replace it
/// with its own tiers and features.
public struct FeatureCatalog: Hashable, Sendable {
    /// The features of each tier. A tier missing from the map unlocks nothing.
    public var features: [SubscriptionTier: Set<Feature>]

    /// Creates a catalog.
    /// - Parameter features: The features of each tier.
    public init(features: [SubscriptionTier: Set<Feature>]) {
        self.features = features
    }

    /// The standard mapping: free has basic plans and workout tracking; Pro adds custom
    /// plans and analytics; Premium adds advanced progression.
    public static let standard = FeatureCatalog(features: [
        .free: [.basicPlans, .workoutTracking],
        .pro: [.basicPlans, .workoutTracking, .customPlans, .analytics],
        .premium: [.basicPlans, .workoutTracking, .customPlans, .analytics, .advancedProgression],
    ])

    /// The features `tier` unlocks.
    /// - Parameter tier: The tier.
    /// - Returns: Its features.
    public func features(of tier: SubscriptionTier) -> Set<Feature> {
        features[tier] ?? []
    }
}

extension FeatureCatalog: Codable {
    /// One tier's features, as a catalog is written.
    private struct Entry: Codable {
        var tier: SubscriptionTier
        var features: [Feature]
    }

    /// Reads a catalog written as a list of tiers with their features, lowest tier
    /// first, or as an object keyed by TrainKit's tier names, as earlier versions wrote it.
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError` if it is neither.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let entries = try? container.decode([Entry].self) {
            self.init(features: Dictionary(entries.map { ($0.tier, Set($0.features)) }) { first, second in first.union(second) })
            return
        }
        let named = try container.decode([String: Set<Feature>].self)
        var features: [SubscriptionTier: Set<Feature>] = [:]
        for (name, set) in named {
            guard let tier = SubscriptionTier.standard.first(where: { $0.name == name }) else {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "'\(name)' is not a tier without its level."))
            }
            features[tier] = set
        }
        self.init(features: features)
    }

    /// Writes the catalog as a list of tiers with their features, lowest tier first.
    /// - Parameter encoder: The encoder.
    /// - Throws: `EncodingError` if the encoder fails.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(features.keys.sorted().map { Entry(tier: $0, features: features[$0, default: []].sorted { $0.rawValue < $1.rawValue }) })
    }
}

/// Whether the current tier may use a feature, and what it would take.
///
/// ```swift
/// let access = FeatureAccess(tier: subscriptions.currentTier)
/// if !access.canAccess(.analytics), let tier = access.minimumTier(for: .analytics) {
///     showPaywall(offering: tier)      // .pro
/// }
/// ```
public struct FeatureAccess: Hashable, Sendable {
    /// The tier whose access is described.
    public var tier: SubscriptionTier
    /// The mapping of tiers to features.
    public var catalog: FeatureCatalog

    /// Creates the access of `tier` under `catalog`.
    /// - Parameters:
    ///   - tier: The current tier.
    ///   - catalog: The mapping; the standard one by default.
    public init(tier: SubscriptionTier, catalog: FeatureCatalog = .standard) {
        self.tier = tier
        self.catalog = catalog
    }

    /// Whether the tier unlocks `feature`.
    /// - Parameter feature: The feature.
    /// - Returns: True if it may be used.
    public func canAccess(_ feature: Feature) -> Bool {
        catalog.features(of: tier).contains(feature)
    }

    /// The lowest tier that unlocks `feature`: nil when it is already accessible, or
    /// when no tier unlocks it.
    /// - Parameter feature: The feature.
    /// - Returns: The tier to offer, or nil.
    public func minimumTier(for feature: Feature) -> SubscriptionTier? {
        guard !canAccess(feature) else { return nil }
        return catalog.features.keys.sorted().first { catalog.features(of: $0).contains(feature) }
    }
}
