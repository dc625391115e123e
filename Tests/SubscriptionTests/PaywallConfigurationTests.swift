import Foundation
import Testing
import TrainCore
import TrainSubscription
import TrainTesting

/// SUB-12: a paywall configuration is data — read from JSON, written back the same, and
/// checked against the products on sale before it is put in force.
@Suite(.timeLimit(.minutes(1))) struct PaywallConfigurationTests {
    /// The JSON of PaywallConfiguration's documentation, with the second offering it names.
    static let documented = Data(
        """
        {
          "offerings": [
            { "id": "annual-first", "packages": [
                { "id": "annual", "productID": "com.train.pro.yearly", "metadata": { "badge": "Best value" } },
                { "id": "monthly", "productID": "com.train.pro.monthly" } ] },
            { "id": "monthly-first", "packages": [ { "id": "monthly", "productID": "com.train.pro.monthly" } ] }
          ],
          "audiences": [ { "id": "free", "conditions": [ { "tierBelow": "pro" } ] } ],
          "experiments": [ { "id": "annual-vs-monthly", "variants": [
              { "id": "a", "weight": 50, "offering": "annual-first" },
              { "id": "b", "weight": 50, "offering": "monthly-first" } ] } ],
          "placements": [ { "id": "analytics-tab", "feature": "analytics",
              "rules": [ { "audience": "free", "experiment": "annual-vs-monthly" }, { "grant": true } ] } ]
        }
        """.utf8)

    static let products = AppStoreProduct.standardWithoutTrial

    @Test("the documented JSON reads as the configuration it describes, and holds together")
    func documentedJSON() throws {
        let configuration = try PaywallConfiguration(json: Self.documented)
        #expect(configuration.offerings.map(\.id) == ["annual-first", "monthly-first"])
        #expect(
            configuration.offerings[0].packages[0]
                == PaywallPackage(id: "annual", productID: "com.train.pro.yearly", metadata: ["badge": "Best value"]))
        #expect(configuration.audiences == [PaywallAudience(id: "free", conditions: [.tierBelow(.pro)])])
        #expect(configuration.experiments[0].variants.map(\.weight) == [50, 50])
        #expect(
            configuration.placements == [
                PaywallPlacement(
                    id: "analytics-tab", feature: .analytics,
                    rules: [PaywallRule(audience: "free", .experiment("annual-vs-monthly")), PaywallRule(.grant)])
            ])
        try configuration.validate(against: Self.products)
    }

    @Test("every condition and action is written back as it was read")
    func roundTrip() throws {
        let configuration = PaywallConfiguration(
            offerings: [
                PaywallOffering(id: "o", packages: [PaywallPackage(id: "p", productID: "com.train.pro.monthly")], metadata: ["title": "Go Pro"])
            ],
            audiences: [
                PaywallAudience(
                    id: "everyone-who",
                    conditions: [
                        .tierBelow(.premium), .tierAtLeast(.pro), .introOfferEligible(groupID: "train.subscriptions", false),
                        .attribute(key: "goal", equals: "marathon"),
                    ])
            ],
            experiments: [PaywallExperiment(id: "e", variants: [PaywallVariant(id: "v", weight: 100, offering: nil)])],
            placements: [
                PaywallPlacement(
                    id: "p", rules: [PaywallRule(audience: "everyone-who", .show("o")), PaywallRule(.experiment("e")), PaywallRule(.grant)])
            ])
        let json = try JSONEncoder().encode(configuration)
        #expect(try PaywallConfiguration(json: json) == configuration)
        let text = String(decoding: json, as: UTF8.self)
        #expect(text.contains(#""tierBelow":"premium""#) && text.contains(#""grant":true"#), "conditions and rules keep their one-key JSON")
    }

    @Test(
        "JSON that is not a configuration is invalidConfiguration",
        arguments: [
            #"{"placements": [{"id": "p", "rules": [{"show": "a", "grant": true}]}]}"#,
            #"{"placements": [{"id": "p", "rules": [{"audience": "x"}]}]}"#,
            #"{"audiences": [{"id": "a", "conditions": [{"tierBelow": "pro", "tierAtLeast": "pro"}]}]}"#,
            #"{"audiences": [{"id": "a", "conditions": [{"spendsMore": 10}]}]}"#,
            #"{"experiments": [{"id": "e", "variants": [{"id": "v", "weight": "half"}]}]}"#,
            #"{"offerings": "#,
            #"{"placement": [{"id": "p", "rules": [{"grant": true}]}]}"#,
            #"{"audiences": [{"id": "a", "conditions": [{"tierBelow": "pro", "negate": true}]}]}"#,
            #"{"audiences": [{"id": "a", "conditions": [{"attribute": {"key": "goal", "equal": "marathon"}}]}]}"#,
            #"{"experiments": [{"id": "e", "variants": [{"id": "v", "weight": 100, "offerings": "o"}]}]}"#,
            #"{"offerings": [{"id": "o", "packages": [{"id": "p", "productID": "x", "badge": "Best"}]}]}"#,
        ])
    func badJSON(json: String) {
        #expect(throws: SubscriptionError(.invalidConfiguration)) { try PaywallConfiguration(json: Data(json.utf8)) }
    }

    @Test("JSON over 1 MiB is invalidConfiguration before it is read")
    func oversizeJSON() {
        let padding = String(repeating: " ", count: PaywallConfiguration.maximumJSONSize)
        #expect(throws: SubscriptionError(.invalidConfiguration)) { try PaywallConfiguration(json: Data("{\(padding)}".utf8)) }
        #expect(throws: Never.self) { try PaywallConfiguration(json: Data("{\(padding.dropFirst(2))}".utf8)) }
    }

    @Test("a placement's feature must be one a tier unlocks, an eligibility condition's group one a product is in")
    func catalogAndGroups() throws {
        var configuration = try PaywallConfiguration(json: Self.documented)
        try configuration.validate(against: Self.products, catalog: .standard)
        configuration.placements[0].feature = Feature("analytcs")
        #expect(throws: SubscriptionError(.invalidConfiguration)) { try configuration.validate(against: Self.products) }
        let coaching = FeatureCatalog(features: [.pro: [Feature("analytcs")]])
        #expect(throws: Never.self) { try configuration.validate(against: Self.products, catalog: coaching) }
        configuration.audiences[0].conditions.append(.introOfferEligible(groupID: "train.subscription", true))
        #expect(throws: SubscriptionError(.invalidConfiguration)) { try configuration.validate(against: Self.products, catalog: coaching) }
        configuration.audiences[0].conditions[1] = .introOfferEligible(groupID: "train.subscriptions", true)
        #expect(throws: Never.self) { try configuration.validate(against: Self.products, catalog: coaching) }
    }

    /// The documented configuration broken one way.
    static func broken(_ what: String) throws -> PaywallConfiguration {
        var c = try PaywallConfiguration(json: documented)
        switch what {
        case "an empty ID": c.audiences[0].id = ""
        case "an ID over 200 bytes": c.placements[0].id = String(repeating: "é", count: 101)
        case "an offering without packages": c.offerings[1].packages = []
        case "two packages with one ID": c.offerings[0].packages[1].id = "annual"
        case "two experiments with one ID": c.experiments.append(c.experiments[0])
        case "two variants with one ID": c.experiments[0].variants[1].id = "a"
        case "a variant naming no offering": c.experiments[0].variants[0].offering = "gone"
        case "a rule naming no audience": c.placements[0].rules[0].audience = "gone"
        case "a rule naming no offering": c.placements[0].rules[1] = PaywallRule(.show("gone"))
        case "a placement without rules": c.placements[0].rules = []
        case "a rule after the rule for everyone": c.placements[0].rules.append(PaywallRule(.show("annual-first")))
        case "an ID with a NUL": c.offerings[1].packages[0].id = "month\u{0}ly"
        case "an ID in decomposed form": c.offerings[1].packages[0].id = "cafe\u{301}"
        case "a negative weight": c.experiments[0].variants += [PaywallVariant(id: "c", weight: -10, offering: nil)]
        case "a weight over 100 with a negative one":
            c.experiments[0].variants = [PaywallVariant(id: "a", weight: 110, offering: nil), PaywallVariant(id: "b", weight: -10, offering: nil)]
        default: c.experiments[0].variants[0].weight = 40
        }
        return c
    }

    @Test(
        "IDs, packages, references and weights are checked",
        arguments: [
            "an empty ID", "an ID over 200 bytes", "an offering without packages", "two packages with one ID", "two experiments with one ID",
            "two variants with one ID", "a variant naming no offering", "a rule naming no audience", "a rule naming no offering",
            "a placement without rules", "weights under 100", "a rule after the rule for everyone", "an ID with a NUL",
            "an ID in decomposed form", "a negative weight", "a weight over 100 with a negative one",
        ])
    func invalid(what: String) throws {
        let configuration = try Self.broken(what)
        #expect(configuration != (try PaywallConfiguration(json: Self.documented)), "broken: \(what)")
        #expect(throws: SubscriptionError(.invalidConfiguration), "\(what)") { try configuration.validate(against: Self.products) }
    }
}
