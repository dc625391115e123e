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
        ])
    func badJSON(json: String) {
        #expect(throws: SubscriptionError(.invalidConfiguration)) { try PaywallConfiguration(json: Data(json.utf8)) }
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
        default: c.experiments[0].variants[0].weight = 40
        }
        return c
    }

    @Test(
        "IDs, packages, references and weights are checked",
        arguments: [
            "an empty ID", "an ID over 200 bytes", "an offering without packages", "two packages with one ID", "two experiments with one ID",
            "two variants with one ID", "a variant naming no offering", "a rule naming no audience", "a rule naming no offering",
            "a placement without rules", "weights under 100",
        ])
    func invalid(what: String) throws {
        let configuration = try Self.broken(what)
        #expect(configuration != (try PaywallConfiguration(json: Self.documented)), "broken: \(what)")
        #expect(throws: SubscriptionError(.invalidConfiguration), "\(what)") { try configuration.validate(against: Self.products) }
    }
}
