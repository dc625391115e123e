import Foundation

/// The subscription levels of the app, ordered: `free < pro < premium`.
public enum SubscriptionTier: String, Codable, Hashable, Sendable, CaseIterable, Comparable {
    /// No subscription.
    case free
    /// The Pro subscription.
    case pro
    /// The Premium subscription.
    case premium

    /// Orders tiers by level.
    public static func < (lhs: SubscriptionTier, rhs: SubscriptionTier) -> Bool {
        lhs.level < rhs.level
    }

    private var level: Int {
        switch self {
        case .free: 0
        case .pro: 1
        case .premium: 2
        }
    }
}

/// A gated capability of the app.
public enum Feature: String, Codable, Hashable, Sendable, CaseIterable {
    /// Ready-made training plans.
    case basicPlans
    /// Logging workouts.
    case workoutTracking
    /// Building one's own plans.
    case customPlans
    /// Training analytics.
    case analytics
    /// Automatic progression of loads and volumes.
    case advancedProgression
}

/// Which features each tier unlocks — data, not a switch, so an app can replace it.
public struct FeatureCatalog: Codable, Hashable, Sendable {
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
        return SubscriptionTier.allCases.sorted().first { catalog.features(of: $0).contains(feature) }
    }
}
