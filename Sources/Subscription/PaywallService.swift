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
///     case .nothingOnSale:
///         showPurchasesUnavailable()
///     }
/// }
/// ```
public protocol PaywallService: Sendable {
    /// The configuration in force.
    var configuration: PaywallConfiguration { get }

    /// Puts `configuration` in force from the next gate on, once it is checked against
    /// the app's products; it is kept, so a relaunch starts with it.
    ///
    /// An offering with packages the storefront does not sell now is no error — the
    /// storefront may change — but each is a warning, returned: a gate leaves those
    /// packages out, and shows the configuration's fallback offering, or no paywall, in
    /// place of an offering with nothing on sale.
    /// - Parameter configuration: The new configuration.
    /// - Returns: The warnings about the configuration now in force; empty when every
    ///   package's product is on sale, and when a service checking against the app's
    ///   whole catalog cannot list the storefront's products now.
    /// - Throws: ``SubscriptionError`` — `invalidConfiguration` naming what is wrong, and
    ///   the configuration in force stays; the store's failure to list its products;
    ///   `ledgerUnreadable` if it cannot be kept.
    @discardableResult
    func replaceConfiguration(_ configuration: PaywallConfiguration) async throws -> [PaywallWarning]

    /// What the place `placement` of the app does for the user now: lets them through
    /// (their tier unlocks the placement's feature, or a rule grants), or shows an
    /// offering — a variant's, in an experiment, which logs the user's exposure once the
    /// decision is made (a holdout's pass too; a gate that fails logs nothing). A paywall
    /// is never empty: in place of an offering with no product on sale it shows the
    /// configuration's fallback offering, or, when that has none on sale either or there
    /// is none, decides ``PaywallDecision/nothingOnSale``; the exposure names the offering
    /// shown.
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
    /// The user does not go through, and there is nothing to sell them: neither the
    /// offering chosen nor the configuration's fallback has a product on sale in the
    /// storefront. The app shows no paywall (a note that purchases are unavailable, say).
    case nothingOnSale

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
    /// The offering the rule or variant chose, when it had no product on sale and
    /// ``offering`` is the configuration's fallback in its place; nil otherwise.
    public var fallbackFrom: String?

    /// Creates a presentation.
    /// - Parameters:
    ///   - placement: The placement.
    ///   - offering: The offering.
    ///   - products: Its products.
    ///   - assignment: The experiment's variant.
    ///   - fallbackFrom: The offering chosen, when the fallback is shown in its place.
    public init(
        placement: String, offering: PaywallOffering, products: [AppStoreProduct], assignment: PaywallAssignment? = nil,
        fallbackFrom: String? = nil
    ) {
        self.placement = placement
        self.offering = offering
        self.products = products
        self.assignment = assignment
        self.fallbackFrom = fallbackFrom
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
    /// The offering shown: the variant's, or the configuration's fallback in place of a
    /// variant's with nothing on sale; nil when no paywall was shown — a holdout, or
    /// nothing on sale — and in an exposure logged before this was recorded.
    public var offering: String?

    /// Creates an exposure.
    /// - Parameters:
    ///   - assignment: The experiment and variant.
    ///   - placement: The placement.
    ///   - user: The user.
    ///   - date: When.
    ///   - offering: The offering shown.
    public init(assignment: PaywallAssignment, placement: String, user: String, date: Date, offering: String? = nil) {
        self.assignment = assignment
        self.placement = placement
        self.user = user
        self.date = date
        self.offering = offering
    }
}

/// Something in a paywall configuration that works, though not as its author may
/// expect: an offering with packages whose products the storefront does not sell. It
/// is found when the configuration is put in force.
public struct PaywallWarning: Hashable, Sendable, CustomStringConvertible {
    /// The offering.
    public var offering: String
    /// The products of its packages that the storefront does not sell, in package order.
    public var productsNotOnSale: [String]
    /// Whether it has no product on sale at all: a gate that chooses it shows
    /// ``shownInstead``, or no paywall when that is nil.
    public var hasNothingOnSale: Bool
    /// What a gate shows in its place while it has nothing on sale: the configuration's
    /// fallback offering, if that has a product on sale; nil for no paywall.
    public var shownInstead: String?

    /// Creates a warning.
    /// - Parameters:
    ///   - offering: The offering.
    ///   - productsNotOnSale: Its products not on sale.
    ///   - hasNothingOnSale: Whether none is on sale.
    ///   - shownInstead: What a gate shows in its place.
    public init(offering: String, productsNotOnSale: [String], hasNothingOnSale: Bool, shownInstead: String? = nil) {
        self.offering = offering
        self.productsNotOnSale = productsNotOnSale
        self.hasNothingOnSale = hasNothingOnSale
        self.shownInstead = shownInstead
    }

    /// The warning in English.
    public var description: String {
        let products = productsNotOnSale.map { "'\($0)'" }.joined(separator: ", ")
        guard hasNothingOnSale else { return "Offering '\(offering)' is shown without \(products), which the storefront does not sell." }
        let instead = shownInstead.map { "the fallback offering '\($0)' is shown in its place" } ?? "no paywall is shown in its place"
        return "Offering '\(offering)' has nothing on sale (\(products)): \(instead)."
    }
}
