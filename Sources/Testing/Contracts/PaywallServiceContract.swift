import Foundation
import TrainCore
import TrainSubscription

/// What the ``PaywallServiceContract`` needs from the conformance under test.
public protocol PaywallContractEnvironment: Sendable {
    /// Makes a paywall service over subscriptions with nothing bought, for a free user.
    /// - Returns: The service under test.
    func makeService() async throws -> any PaywallService

    /// Buys `productID` for the user of `service`, so that its tier changes.
    /// - Parameters:
    ///   - service: A service this environment made.
    ///   - productID: The product.
    func subscribe(_ service: any PaywallService, to productID: String) async throws

    /// A monthly and a yearly subscription on sale, of a tier that unlocks ``feature``.
    var monthlyProductID: String { get }
    /// A yearly subscription on sale, of the same tier.
    var yearlyProductID: String { get }
    /// A feature the products' tier unlocks and the free tier does not.
    var feature: Feature { get }

    /// Makes a paywall service as ``makeService()`` does, for an app whose catalog also
    /// has ``unsoldProductID``, a product the storefront does not sell. By default,
    /// ``makeService()``: a conformance that refuses a package of a product it does not
    /// sell keeps the contract by refusing it.
    /// - Returns: The service under test.
    func makeServiceWithUnsoldProduct() async throws -> any PaywallService
    /// A product of the app's catalog that the storefront does not sell.
    var unsoldProductID: String { get }
}

extension PaywallContractEnvironment {
    /// TrainKit's Pro monthly.
    public var monthlyProductID: String { "com.train.pro.monthly" }
    /// TrainKit's Pro yearly.
    public var yearlyProductID: String { "com.train.pro.yearly" }
    /// Analytics, which Pro unlocks.
    public var feature: Feature { .analytics }
    /// The service of ``makeService()``.
    public func makeServiceWithUnsoldProduct() async throws -> any PaywallService { try await makeService() }
    /// `com.train.coach.monthly`.
    public var unsoldProductID: String { "com.train.coach.monthly" }
}

/// A check of the ``PaywallServiceContract``.
public typealias PaywallContractCheck = ContractCheck<any PaywallContractEnvironment>

/// The public behavioural contract of `PaywallService`. TrainKit runs it against
/// `LocalPaywallService` in memory and on disk; an app runs it against its own, say one
/// over RevenueCat's offerings or Superwall's placements:
///
/// ```swift
/// @Test(arguments: PaywallServiceContract.checks)
/// func paywallContract(_ check: PaywallContractCheck) async throws {
///     try await check.run(in: MyPaywallEnvironment())
/// }
/// ```
public enum PaywallServiceContract {
    /// A configuration of two offerings, an audience by attribute, a 50/50 experiment
    /// and a placement guarding the environment's feature.
    static func configuration(_ environment: any PaywallContractEnvironment, weights: (Int, Int) = (50, 50)) -> PaywallConfiguration {
        PaywallConfiguration(
            offerings: [
                PaywallOffering(
                    id: "annual-first",
                    packages: [
                        PaywallPackage(id: "annual", productID: environment.yearlyProductID, metadata: ["badge": "Best value"]),
                        PaywallPackage(id: "monthly", productID: environment.monthlyProductID),
                    ]),
                PaywallOffering(id: "monthly-only", packages: [PaywallPackage(id: "monthly", productID: environment.monthlyProductID)]),
            ],
            audiences: [PaywallAudience(id: "runners", conditions: [.attribute(key: "sport", equals: "running")])],
            experiments: [
                PaywallExperiment(
                    id: "order",
                    variants: [
                        PaywallVariant(id: "annual", weight: weights.0, offering: "annual-first"),
                        PaywallVariant(id: "holdout", weight: weights.1, offering: nil),
                    ])
            ],
            placements: [
                PaywallPlacement(
                    id: "locked-feature", feature: environment.feature,
                    rules: [PaywallRule(audience: "runners", .show("monthly-only")), PaywallRule(.show("annual-first"))]),
                PaywallPlacement(id: "onboarding", rules: [PaywallRule(.experiment("order"))]),
            ])
    }

    /// Every check of the contract.
    public static let checks: [PaywallContractCheck] = [
        PaywallContractCheck(
            "a placement shows its offering with its products in package order; once the tier unlocks the feature, it grants",
            covers: PaywallService.self
        ) {
            environment, check in
            let paywalls = try await environment.makeService()
            try await paywalls.replaceConfiguration(configuration(environment))
            let shown = try await paywalls.gate(placement: "locked-feature").presentation
            try check.expect(shown?.offering.id == "annual-first", "the offering for everyone")
            try check.expect(
                shown?.products.map(\.id) == [environment.yearlyProductID, environment.monthlyProductID], "the products, in package order")
            try check.expect(shown?.offering.packages.first?.metadata["badge"] == "Best value", "the package's metadata")
            try await environment.subscribe(paywalls, to: environment.monthlyProductID)
            try check.expect(try await paywalls.gate(placement: "locked-feature") == .granted, "a tier that unlocks the feature goes through")
        },
        PaywallContractCheck(
            "a paywall is never empty: in place of an offering with nothing on sale a gate shows the fallback offering, or no paywall, and putting it in force warns",
            covers: PaywallService.self
        ) { environment, check in
            let paywalls = try await environment.makeServiceWithUnsoldProduct()
            var configuration = PaywallConfiguration(
                offerings: [
                    PaywallOffering(id: "unsold", packages: [PaywallPackage(id: "coach", productID: environment.unsoldProductID)]),
                    PaywallOffering(id: "monthly-only", packages: [PaywallPackage(id: "monthly", productID: environment.monthlyProductID)]),
                ],
                placements: [PaywallPlacement(id: "upsell", rules: [PaywallRule(.show("unsold"))])])
            let warnings: [PaywallWarning]
            do {
                warnings = try await paywalls.replaceConfiguration(configuration)
            } catch let error as SubscriptionError where error.code == .invalidConfiguration {
                return // Refused when put in force: no gate can show it.
            }
            try check.expect(
                warnings.contains { $0.offering == "unsold" && $0.hasNothingOnSale && $0.shownInstead == nil },
                "a warning that the offering has nothing on sale: \(warnings)")
            try check.expect(try await paywalls.gate(placement: "upsell") == .nothingOnSale, "no fallback: no paywall, not an empty one")
            configuration.fallbackOffering = "monthly-only"
            try await paywalls.replaceConfiguration(configuration)
            let shown = try await paywalls.gate(placement: "upsell").presentation
            try check.expect(
                shown?.offering.id == "monthly-only" && shown?.products.map(\.id) == [environment.monthlyProductID]
                    && shown?.fallbackFrom == "unsold",
                "the fallback offering in its place: \(String(describing: shown?.offering.id))")
        },
        PaywallContractCheck("an audience by attribute gets its offering; others fall to the rule for everyone", covers: PaywallService.self) {
            environment, check in
            let paywalls = try await environment.makeService()
            try await paywalls.replaceConfiguration(configuration(environment))
            await paywalls.setAttribute("running", forKey: "sport")
            try check.expect(
                try await paywalls.gate(placement: "locked-feature").presentation?.offering.id == "monthly-only", "the runners' offering")
            await paywalls.setAttribute(nil, forKey: "sport")
            try check.expect(try await paywalls.gate(placement: "locked-feature").presentation?.offering.id == "annual-first", "everyone's")
        },
        PaywallContractCheck("an unknown placement is placementNotFound", covers: PaywallService.self) { environment, check in
            let paywalls = try await environment.makeService()
            try await paywalls.replaceConfiguration(configuration(environment))
            try await check.expectError(.placementNotFound, "a placement the configuration lacks") {
                _ = try await paywalls.gate(placement: "nowhere")
            }
        },
        PaywallContractCheck(
            "a configuration that does not hold together is invalidConfiguration, and the one in force stays", covers: PaywallService.self
        ) {
            environment, check in
            let paywalls = try await environment.makeService()
            let good = configuration(environment)
            try await paywalls.replaceConfiguration(good)
            var unknownProduct = good
            unknownProduct.offerings[0].packages[0].productID = "com.example.nothing"
            var duplicate = good
            duplicate.offerings[1].id = duplicate.offerings[0].id
            var lopsided = good
            lopsided.experiments[0].variants[0].weight = 70
            var negative = good
            negative.experiments[0].variants = [
                PaywallVariant(id: "annual", weight: 60, offering: "annual-first"), PaywallVariant(id: "holdout", weight: 60, offering: nil),
                PaywallVariant(id: "minus", weight: -20, offering: nil),
            ]
            var unreachable = good
            unreachable.placements[1].rules.append(PaywallRule(.grant))
            var empty = good
            empty.experiments[0].variants = []
            var noFallback = good
            noFallback.placements[0].rules.removeLast()
            var dangling = good
            dangling.placements[1].rules = [PaywallRule(.experiment("missing"))]
            for (bad, what) in [
                (unknownProduct, "a package of a product the app does not have"), (duplicate, "two offerings with one ID"),
                (lopsided, "weights that add up to 120"), (negative, "a negative weight"), (empty, "an experiment without variants"),
                (noFallback, "a placement with no rule for everyone"), (dangling, "a rule naming no experiment"),
                (unreachable, "a rule after the rule for everyone"),
            ] {
                try await check.expectError(.invalidConfiguration, what) { try await paywalls.replaceConfiguration(bad) }
            }
            try check.expect(paywalls.configuration == good, "the configuration in force stays")
        },
        PaywallContractCheck(
            "a user's variant is the same at every gate and in another service, and each showing is an exposure", covers: PaywallService.self
        ) {
            environment, check in
            let paywalls = try await environment.makeService()
            try await paywalls.replaceConfiguration(configuration(environment))
            await paywalls.setUser("user-42")
            let first = try await paywalls.assignment(in: "order")
            for _ in 0..<3 {
                let decision = try await paywalls.gate(placement: "onboarding")
                if first.variant == "holdout" {
                    try check.expect(decision == .granted, "the holdout goes through")
                } else {
                    try check.expect(decision.presentation?.assignment == first, "the same variant's offering at every gate")
                }
            }
            let other = try await environment.makeService()
            try await other.replaceConfiguration(configuration(environment))
            await other.setUser("user-42")
            try check.expect(try await other.assignment(in: "order") == first, "the same user, the same variant, in another service")
            let exposures = try await paywalls.exposures()
            try check.expect(exposures.count == 3, "three exposures logged (got \(exposures.count))")
            try check.expect(exposures.allSatisfy { $0.assignment == first && $0.placement == "onboarding" && $0.user == "user-42" }, "each names it")
        },
        PaywallContractCheck(
            "a variant with an offering shows it with its assignment; a holdout goes through; both are exposures", covers: PaywallService.self
        ) {
            environment, check in
            let paywalls = try await environment.makeService()
            await paywalls.setUser("user-7")
            try await paywalls.replaceConfiguration(configuration(environment, weights: (100, 0)))
            let shown = try await paywalls.gate(placement: "onboarding").presentation
            try check.expect(shown?.offering.id == "annual-first", "the variant's offering")
            try check.expect(shown?.assignment == PaywallAssignment(experiment: "order", variant: "annual"), "with its assignment")
            try await paywalls.replaceConfiguration(configuration(environment, weights: (0, 100)))
            try check.expect(try await paywalls.gate(placement: "onboarding") == .granted, "the holdout goes through")
            let variants = try await paywalls.exposures().map(\.assignment.variant)
            try check.expect(variants == ["annual", "holdout"], "both logged (got \(variants))")
        },
        PaywallContractCheck("removing a user's exposures removes theirs only, once", covers: PaywallService.self) { environment, check in
            let paywalls = try await environment.makeService()
            try await paywalls.replaceConfiguration(configuration(environment))
            for user in ["ada", "bob", "ada"] {
                await paywalls.setUser(user)
                _ = try await paywalls.gate(placement: "onboarding")
            }
            try check.expect(try await paywalls.removeExposures(of: "ada") == 2, "Ada's two")
            try check.expect(try await paywalls.exposures().map(\.user) == ["bob"], "Bob's stays")
            try check.expect(try await paywalls.removeExposures(of: "ada") == 0, "none the second time")
        },
        PaywallContractCheck("an unknown experiment is experimentNotFound; another user starts with no attributes", covers: PaywallService.self) {
            environment, check in
            let paywalls = try await environment.makeService()
            try await paywalls.replaceConfiguration(configuration(environment))
            try await check.expectError(.experimentNotFound, "an experiment the configuration lacks") {
                _ = try await paywalls.assignment(in: "nothing")
            }
            await paywalls.setUser("ada")
            await paywalls.setAttribute("running", forKey: "sport")
            try check.expect(try await paywalls.gate(placement: "locked-feature").presentation?.offering.id == "monthly-only", "Ada runs")
            await paywalls.setUser("bob")
            try check.expect(
                try await paywalls.gate(placement: "locked-feature").presentation?.offering.id == "annual-first", "Bob has none of Ada's attributes")
        },
        PaywallContractCheck(
            "users are split by the weights: about half in each of a 50/50 test, all in the one of a 100/0 test", covers: PaywallService.self
        ) {
            environment, check in
            let paywalls = try await environment.makeService()
            try await paywalls.replaceConfiguration(configuration(environment))
            var annual = 0
            for index in 0..<400 {
                await paywalls.setUser("user-\(index)")
                if try await paywalls.assignment(in: "order").variant == "annual" { annual += 1 }
            }
            try check.expect((150...250).contains(annual), "about half of 400 users in each variant (got \(annual))")
            try await paywalls.replaceConfiguration(configuration(environment, weights: (100, 0)))
            for index in 0..<50 {
                await paywalls.setUser("user-\(index)")
                try check.expect(try await paywalls.assignment(in: "order").variant == "annual", "a weight of 100 takes everyone")
            }
        },
    ]
}
