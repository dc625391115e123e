import Foundation

/// Paywalls as data: which offering a place in the app shows, to whom, and which
/// variant of an experiment a user is in — from a ``PaywallConfiguration`` the app
/// replaces while it runs, with no new build.
///
/// TrainKit's conformance is ``LocalPaywallService``; `FakePaywallService` in
/// TrainTesting is a scriptable double.
///
/// ```swift
/// func analyticsTapped(paywalls: any PaywallService) async throws {
///     switch try await paywalls.gate(placement: "analytics-tab") {
///     case .granted:
///         openAnalytics()
///     case .show(let paywall):
///         present(paywall.offering, products: paywall.products)
///     }
/// }
/// ```
public protocol PaywallService: Sendable {
    /// The configuration in force.
    var configuration: PaywallConfiguration { get }

    /// Puts `configuration` in force from the next gate on, once it is checked against
    /// the app's products; it is kept, so a relaunch starts with it.
    /// - Parameter configuration: The new configuration.
    /// - Throws: ``SubscriptionError`` — `invalidConfiguration` naming what is wrong, and
    ///   the configuration in force stays; the store's failure to list its products;
    ///   `ledgerUnreadable` if it cannot be kept.
    func replaceConfiguration(_ configuration: PaywallConfiguration) async throws

    /// What the place `placement` of the app does for the user now: lets them through
    /// (their tier unlocks the placement's feature, or a rule grants), or shows an
    /// offering — a variant's, in an experiment, which logs the user's exposure once the
    /// decision is made (a holdout's pass too; a gate that fails logs nothing).
    /// - Parameter placement: The placement's ID.
    /// - Returns: The decision.
    /// - Throws: ``SubscriptionError`` — `placementNotFound`; the store's failure.
    func gate(placement: String) async throws -> PaywallDecision

    /// The variant of `experiment` the user is in, without logging an exposure: the same
    /// for the same user every time, on every device.
    /// - Parameter experiment: The experiment's ID.
    /// - Returns: The user's assignment.
    /// - Throws: ``TrainCore/TrainErrorCode/experimentNotFound`` for an experiment the
    ///   configuration does not have.
    func assignment(in experiment: String) async throws -> PaywallAssignment

    /// Makes `userID` the user experiments assign and exposures name; nil falls back to
    /// this installation, which keeps an ID of its own. Another user than before starts
    /// with no attributes.
    /// - Parameter userID: The signed-in user's ID, or nil.
    func setUser(_ userID: String?) async

    /// Sets an attribute of the user that audiences test (`{"attribute": …}`), or clears it.
    /// - Parameters:
    ///   - value: The value, or nil.
    ///   - key: The attribute.
    func setAttribute(_ value: String?, forKey key: String) async

    /// Every exposure to an experiment logged so far, oldest first.
    /// - Returns: The exposures.
    /// - Throws: ``TrainCore/TrainErrorCode/ledgerUnreadable`` if they cannot be read.
    func exposures() async throws -> [PaywallExposure]

    /// Removes every exposure that names `userID`, as the deletion of their account does;
    /// removing them again removes nothing.
    /// - Parameter userID: The user.
    /// - Returns: How many were removed.
    /// - Throws: ``TrainCore/TrainErrorCode/ledgerUnreadable`` if the log cannot be read or written.
    @discardableResult
    func removeExposures(of userID: String) async throws -> Int
}

/// What a gate decided.
public enum PaywallDecision: Hashable, Sendable {
    /// The user goes through.
    case granted
    /// The app shows this paywall.
    case show(PaywallPresentation)

    /// The paywall to show, or nil when the user goes through.
    public var presentation: PaywallPresentation? {
        if case .show(let presentation) = self { presentation } else { nil }
    }
}

/// A paywall to show: the offering, its products as the store sells them now, and the
/// experiment variant that chose it.
public struct PaywallPresentation: Hashable, Sendable {
    /// The placement that shows it.
    public var placement: String
    /// The offering, without the packages whose product the storefront does not sell.
    public var offering: PaywallOffering
    /// The product of each package of ``offering``, in the same order, at the
    /// storefront's prices. A package whose product the storefront does not sell is
    /// left out of both, so `products[i]` is the product of `offering.packages[i]`.
    public var products: [AppStoreProduct]
    /// The experiment and variant that chose the offering, if one did.
    public var assignment: PaywallAssignment?

    /// Creates a presentation.
    /// - Parameters:
    ///   - placement: The placement.
    ///   - offering: The offering.
    ///   - products: Its products.
    ///   - assignment: The experiment's variant.
    public init(placement: String, offering: PaywallOffering, products: [AppStoreProduct], assignment: PaywallAssignment? = nil) {
        self.placement = placement
        self.offering = offering
        self.products = products
        self.assignment = assignment
    }
}

/// The variant of an experiment a user is in.
public struct PaywallAssignment: Codable, Hashable, Sendable {
    /// The experiment.
    public var experiment: String
    /// The variant.
    public var variant: String

    /// Creates an assignment.
    /// - Parameters:
    ///   - experiment: The experiment.
    ///   - variant: The variant.
    public init(experiment: String, variant: String) {
        self.experiment = experiment
        self.variant = variant
    }
}

/// A user shown an experiment's variant at a placement: what an experiment's results
/// are counted from.
public struct PaywallExposure: Codable, Hashable, Sendable {
    /// The experiment and variant.
    public var assignment: PaywallAssignment
    /// The placement.
    public var placement: String
    /// The user: the ID given to `setUser(_:)`, or `install:` and this installation's ID.
    public var user: String
    /// When.
    public var date: Date

    /// Creates an exposure.
    /// - Parameters:
    ///   - assignment: The experiment and variant.
    ///   - placement: The placement.
    ///   - user: The user.
    ///   - date: When.
    public init(assignment: PaywallAssignment, placement: String, user: String, date: Date) {
        self.assignment = assignment
        self.placement = placement
        self.user = user
        self.date = date
    }
}
