import Foundation

/// What an app's paywalls show, as data an app loads at run time (JSON from its own
/// server, say) and replaces while it runs: offerings of products, the audiences they
/// are for, experiments that split users between offerings, and the placements — the
/// places in the app that may show a paywall — that tie them together.
///
/// ```json
/// {
///   "offerings": [
///     { "id": "annual-first", "packages": [
///         { "id": "annual", "productID": "com.train.pro.yearly", "metadata": { "badge": "Best value" } },
///         { "id": "monthly", "productID": "com.train.pro.monthly" } ] },
///     { "id": "monthly-first", "packages": [ { "id": "monthly", "productID": "com.train.pro.monthly" } ] }
///   ],
///   "audiences": [ { "id": "free", "conditions": [ { "tierBelow": "pro" } ] } ],
///   "experiments": [ { "id": "annual-vs-monthly", "variants": [
///       { "id": "a", "weight": 50, "offering": "annual-first" },
///       { "id": "b", "weight": 50, "offering": "monthly-first" } ] } ],
///   "placements": [ { "id": "analytics-tab", "feature": "analytics",
///       "rules": [ { "audience": "free", "experiment": "annual-vs-monthly" }, { "grant": true } ] } ]
/// }
/// ```
public struct PaywallConfiguration: Codable, Hashable, Sendable {
    /// The offerings a paywall may show.
    public var offerings: [PaywallOffering]
    /// The groups of users rules are for.
    public var audiences: [PaywallAudience]
    /// The experiments that split users between offerings.
    public var experiments: [PaywallExperiment]
    /// The places in the app that may show a paywall.
    public var placements: [PaywallPlacement]
    /// The offering a gate shows when the one a rule or variant chose has no product on
    /// sale in the storefront (`"fallbackOffering"` in the JSON); nil for none, when such a
    /// gate shows no paywall (``PaywallDecision/nothingOnSale``).
    public var fallbackOffering: String?

    /// Creates a configuration.
    /// - Parameters:
    ///   - offerings: The offerings.
    ///   - audiences: The audiences.
    ///   - experiments: The experiments.
    ///   - placements: The placements.
    ///   - fallbackOffering: The offering shown in place of one with nothing on sale.
    public init(
        offerings: [PaywallOffering] = [], audiences: [PaywallAudience] = [], experiments: [PaywallExperiment] = [],
        placements: [PaywallPlacement] = [], fallbackOffering: String? = nil
    ) {
        self.offerings = offerings
        self.audiences = audiences
        self.experiments = experiments
        self.placements = placements
        self.fallbackOffering = fallbackOffering
    }

    /// No paywalls at all.
    public static let empty = PaywallConfiguration()

    /// The most bytes of JSON ``init(json:)`` reads: 1 MiB.
    public static let maximumJSONSize = 1 << 20

    /// Reads a configuration from its JSON. Every object is read whole: a key it does not
    /// have, such as a misspelt `"placement"`, is an error rather than left out.
    /// - Parameter json: The JSON, at most ``maximumJSONSize`` bytes.
    /// - Throws: ``TrainCore/TrainErrorCode/invalidConfiguration`` for JSON that is not a
    ///   configuration, or is larger.
    public init(json: Data) throws(SubscriptionError) {
        guard json.count <= Self.maximumJSONSize else {
            throw SubscriptionError(
                .invalidConfiguration, detail: "The JSON has \(json.count) bytes; a configuration has at most \(Self.maximumJSONSize).")
        }
        do {
            self = try JSONDecoder().decode(PaywallConfiguration.self, from: json)
        } catch {
            throw SubscriptionError(.invalidConfiguration, detail: "The JSON is not a paywall configuration: \(error)")
        }
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case offerings, audiences, experiments, placements, fallbackOffering
    }

    /// Decodes a configuration; a list left out is empty, and a fallback left out is none.
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError` for anything that is not a configuration, or a key it does not have.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.strictContainer(keyedBy: CodingKeys.self)
        offerings = try container.decodeIfPresent([PaywallOffering].self, forKey: .offerings) ?? []
        audiences = try container.decodeIfPresent([PaywallAudience].self, forKey: .audiences) ?? []
        experiments = try container.decodeIfPresent([PaywallExperiment].self, forKey: .experiments) ?? []
        placements = try container.decodeIfPresent([PaywallPlacement].self, forKey: .placements) ?? []
        fallbackOffering = try container.decodeIfPresent(String.self, forKey: .fallbackOffering)
    }

    /// Checks that the configuration holds together with the app's products and the
    /// feature catalog: everything ``validateStructure()`` checks; every package of a
    /// product in `products`; every placement's feature one that a tier of `catalog`
    /// unlocks; every introductory-offer condition of a subscription group of `products`.
    /// - Parameters:
    ///   - products: The app's products: its whole catalog, or those on sale.
    ///   - catalog: Which tier unlocks which feature.
    /// - Throws: ``TrainCore/TrainErrorCode/invalidConfiguration`` naming what is wrong.
    public func validate(against products: [AppStoreProduct], catalog: FeatureCatalog = .standard) throws(SubscriptionError) {
        try validateStructure()
        let known = Set(products.map(\.id))
        for offering in offerings {
            for package in offering.packages where !known.contains(package.productID) {
                throw Self.invalid(
                    "Package '\(package.id)' of '\(offering.id)' names the product '\(package.productID)', which is not among the app's products.")
            }
        }
        let unlockable = catalog.features.values.reduce(into: Set<Feature>()) { $0.formUnion($1) }
        for placement in placements {
            if let feature = placement.feature, !unlockable.contains(feature) {
                throw Self.invalid("Placement '\(placement.id)' guards '\(feature)', which no tier unlocks.")
            }
        }
        let groups = Set(products.compactMap(\.subscriptionGroupID))
        for audience in audiences {
            for case .introOfferEligible(let group, _) in audience.conditions where !groups.contains(group) {
                throw Self.invalid("Audience '\(audience.id)' asks about the subscription group '\(group)', which no product is in.")
            }
        }
    }

    /// Checks that the configuration holds together by itself: every ID of 1 to 200
    /// bytes, in Unicode's composed form (NFC) and without control characters, unique
    /// among its kind; every offering with at least one package; every audience,
    /// offering and experiment a rule or variant names defined; every experiment with
    /// variants whose weights are 0 to 100 and add up to 100; every placement with rules,
    /// one for everyone and last, so that no rule is out of reach; a fallback offering,
    /// if named, defined.
    /// - Throws: ``TrainCore/TrainErrorCode/invalidConfiguration`` naming what is wrong.
    public func validateStructure() throws(SubscriptionError) {
        let offeringIDs = try Self.unique(offerings.map(\.id), "offering")
        if let fallbackOffering, !offeringIDs.contains(fallbackOffering) {
            throw Self.invalid("The fallback offering '\(fallbackOffering)' is not among the offerings.")
        }
        for offering in offerings {
            guard !offering.packages.isEmpty else { throw Self.invalid("Offering '\(offering.id)' has no packages.") }
            _ = try Self.unique(offering.packages.map(\.id), "package of '\(offering.id)'")
        }
        let audienceIDs = try Self.unique(audiences.map(\.id), "audience")
        let experimentIDs = try Self.unique(experiments.map(\.id), "experiment")
        for experiment in experiments {
            guard !experiment.variants.isEmpty else { throw Self.invalid("Experiment '\(experiment.id)' has no variants.") }
            _ = try Self.unique(experiment.variants.map(\.id), "variant of '\(experiment.id)'")
            // Each weight is checked before any is added, so the sum cannot overflow.
            guard experiment.variants.allSatisfy({ (0...100).contains($0.weight) }),
                experiment.variants.reduce(0, { $0 + $1.weight }) == 100
            else { throw Self.invalid("The weights of experiment '\(experiment.id)' are 0 to 100 each and add up to 100.") }
            for variant in experiment.variants {
                if let offering = variant.offering, !offeringIDs.contains(offering) {
                    throw Self.invalid("Variant '\(variant.id)' of '\(experiment.id)' names no offering '\(offering)'.")
                }
            }
        }
        _ = try Self.unique(placements.map(\.id), "placement")
        for placement in placements {
            guard let last = placement.rules.last, last.audience == nil, placement.rules.dropLast().allSatisfy({ $0.audience != nil }) else {
                throw Self.invalid("Placement '\(placement.id)' needs one rule for everyone, its last: a rule after it is out of reach.")
            }
            for rule in placement.rules {
                if let audience = rule.audience, !audienceIDs.contains(audience) {
                    throw Self.invalid("A rule of '\(placement.id)' names no audience '\(audience)'.")
                }
                switch rule.action {
                case .show(let offering) where !offeringIDs.contains(offering):
                    throw Self.invalid("A rule of '\(placement.id)' names no offering '\(offering)'.")
                case .experiment(let experiment) where !experimentIDs.contains(experiment):
                    throw Self.invalid("A rule of '\(placement.id)' names no experiment '\(experiment)'.")
                default:
                    break
                }
            }
        }
    }

    /// The warnings about this configuration where the storefront sells `sold`: one for
    /// each offering with a package whose product is not among them, in offering order.
    /// - Parameter sold: The products on sale.
    /// - Returns: The warnings; empty when every package's product is on sale.
    public func warnings(sold: [AppStoreProduct]) -> [PaywallWarning] {
        let onSale = Set(sold.map(\.id))
        let fallback = fallbackOffering.flatMap { id in offerings.first { $0.id == id } }
        let shownInstead = fallback.flatMap { $0.packages.contains { onSale.contains($0.productID) } ? $0.id : nil }
        return offerings.compactMap { offering in
            let missing = offering.packages.map(\.productID).filter { !onSale.contains($0) }
            guard !missing.isEmpty else { return nil }
            let nothing = missing.count == offering.packages.count
            return PaywallWarning(
                offering: offering.id, productsNotOnSale: missing, hasNothingOnSale: nothing, shownInstead: nothing ? shownInstead : nil)
        }
    }

    private static func invalid(_ why: String) -> SubscriptionError { SubscriptionError(.invalidConfiguration, detail: why) }

    /// The IDs as a set, once each is checked and found only once.
    private static func unique(_ ids: [String], _ kind: String) throws(SubscriptionError) -> Set<String> {
        var seen: Set<String> = []
        for id in ids {
            guard (1...200).contains(id.utf8.count) else { throw invalid("A \(kind) ID has 1 to 200 bytes, not '\(id)'.") }
            guard !id.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw invalid("A \(kind) ID has no control characters: \(id.debugDescription).")
            }
            guard id.utf8.elementsEqual(id.precomposedStringWithCanonicalMapping.utf8) else {
                throw invalid("A \(kind) ID is written in Unicode's composed form (NFC): \(id.debugDescription).")
            }
            guard seen.insert(id).inserted else { throw invalid("Two \(kind)s have the ID '\(id)'.") }
        }
        return seen
    }
}

/// What a paywall offers: packages of products, with what the paywall draws for them.
public struct PaywallOffering: Codable, Hashable, Sendable, Identifiable {
    /// The offering's ID.
    public var id: String
    /// Its packages, in the order the paywall lists them.
    public var packages: [PaywallPackage]
    /// What the paywall draws — a title, a subtitle, an image name — as the app reads it.
    public var metadata: [String: String]

    /// Creates an offering.
    /// - Parameters:
    ///   - id: Its ID.
    ///   - packages: Its packages.
    ///   - metadata: What the paywall draws.
    public init(id: String, packages: [PaywallPackage], metadata: [String: String] = [:]) {
        self.id = id
        self.packages = packages
        self.metadata = metadata
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case id, packages, metadata
    }

    /// Decodes an offering; its metadata may be left out.
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.strictContainer(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        packages = try container.decode([PaywallPackage].self, forKey: .packages)
        metadata = try container.decodeIfPresent([String: String].self, forKey: .metadata) ?? [:]
    }
}

/// One product of an offering, with what the paywall draws for it (a badge, a headline).
public struct PaywallPackage: Codable, Hashable, Sendable, Identifiable {
    /// The package's ID within its offering, such as `annual`.
    public var id: String
    /// The product it sells.
    public var productID: String
    /// What the paywall draws for it.
    public var metadata: [String: String]

    /// Creates a package.
    /// - Parameters:
    ///   - id: Its ID.
    ///   - productID: The product.
    ///   - metadata: What the paywall draws for it.
    public init(id: String, productID: String, metadata: [String: String] = [:]) {
        self.id = id
        self.productID = productID
        self.metadata = metadata
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case id, productID, metadata
    }

    /// Decodes a package; its metadata may be left out.
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.strictContainer(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        productID = try container.decode(String.self, forKey: .productID)
        metadata = try container.decodeIfPresent([String: String].self, forKey: .metadata) ?? [:]
    }
}

/// A group of users a rule is for: those every condition holds for.
public struct PaywallAudience: Codable, Hashable, Sendable, Identifiable {
    /// The audience's ID.
    public var id: String
    /// What holds for its users; none, and it is everyone.
    public var conditions: [PaywallCondition]

    /// Creates an audience.
    /// - Parameters:
    ///   - id: Its ID.
    ///   - conditions: What holds for its users.
    public init(id: String, conditions: [PaywallCondition]) {
        self.id = id
        self.conditions = conditions
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case id, conditions
    }

    /// Decodes an audience.
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError`, also for a key an audience does not have.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.strictContainer(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        conditions = try container.decode([PaywallCondition].self, forKey: .conditions)
    }
}

/// Something that holds, or not, for the user at a gate. Written in JSON as an object
/// with one key: `{"tierBelow": "pro"}`, `{"tierAtLeast": "pro"}`,
/// `{"introOfferEligible": {"groupID": "train.subscriptions", "is": true}}`,
/// `{"attribute": {"key": "goal", "equals": "marathon"}}`.
public enum PaywallCondition: Hashable, Sendable {
    /// The user's tier is below this one.
    case tierBelow(SubscriptionTier)
    /// The user's tier is this one or higher.
    case tierAtLeast(SubscriptionTier)
    /// Whether the Apple ID may still have the introductory offer in the group.
    case introOfferEligible(groupID: String, Bool)
    /// The attribute the app set for the user has this value.
    case attribute(key: String, equals: String)
}

extension PaywallCondition: Codable {
    private enum CodingKeys: String, CodingKey, CaseIterable {
        case tierBelow, tierAtLeast, introOfferEligible, attribute
    }

    private struct Eligibility: Codable {
        var groupID: String
        var `is`: Bool

        private enum CodingKeys: String, CodingKey, CaseIterable {
            case groupID, `is`
        }

        init(groupID: String, is eligible: Bool) {
            self.groupID = groupID
            self.is = eligible
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.strictContainer(keyedBy: CodingKeys.self)
            groupID = try container.decode(String.self, forKey: .groupID)
            `is` = try container.decode(Bool.self, forKey: .is)
        }
    }

    private struct Attribute: Codable {
        var key: String
        var equals: String

        private enum CodingKeys: String, CodingKey, CaseIterable {
            case key, equals
        }

        init(key: String, equals: String) {
            self.key = key
            self.equals = equals
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.strictContainer(keyedBy: CodingKeys.self)
            key = try container.decode(String.self, forKey: .key)
            equals = try container.decode(String.self, forKey: .equals)
        }
    }

    /// Decodes a condition from its one-key object.
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError` for an object without exactly one known key.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.strictContainer(keyedBy: CodingKeys.self)
        guard container.allKeys.count == 1, let key = container.allKeys.first else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "A condition is an object with one known key."))
        }
        switch key {
        case .tierBelow: self = .tierBelow(try container.decode(SubscriptionTier.self, forKey: key))
        case .tierAtLeast: self = .tierAtLeast(try container.decode(SubscriptionTier.self, forKey: key))
        case .introOfferEligible:
            let eligibility = try container.decode(Eligibility.self, forKey: key)
            self = .introOfferEligible(groupID: eligibility.groupID, eligibility.is)
        case .attribute:
            let attribute = try container.decode(Attribute.self, forKey: key)
            self = .attribute(key: attribute.key, equals: attribute.equals)
        }
    }

    /// Encodes the condition as its one-key object.
    /// - Parameter encoder: The encoder.
    /// - Throws: The encoder's error.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .tierBelow(let tier): try container.encode(tier, forKey: .tierBelow)
        case .tierAtLeast(let tier): try container.encode(tier, forKey: .tierAtLeast)
        case .introOfferEligible(let groupID, let eligible):
            try container.encode(Eligibility(groupID: groupID, is: eligible), forKey: .introOfferEligible)
        case .attribute(let key, let value): try container.encode(Attribute(key: key, equals: value), forKey: .attribute)
        }
    }
}

/// An experiment: users split between its variants by weight, each user always in the
/// same one.
public struct PaywallExperiment: Codable, Hashable, Sendable, Identifiable {
    /// The experiment's ID.
    public var id: String
    /// Its variants.
    public var variants: [PaywallVariant]

    /// Creates an experiment.
    /// - Parameters:
    ///   - id: Its ID.
    ///   - variants: Its variants.
    public init(id: String, variants: [PaywallVariant]) {
        self.id = id
        self.variants = variants
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case id, variants
    }

    /// Decodes an experiment.
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError`, also for a key an experiment does not have.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.strictContainer(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        variants = try container.decode([PaywallVariant].self, forKey: .variants)
    }
}

/// One arm of an experiment.
public struct PaywallVariant: Codable, Hashable, Sendable, Identifiable {
    /// The variant's ID within its experiment.
    public var id: String
    /// The percentage of users it gets: the weights of an experiment add up to 100.
    public var weight: Int
    /// The offering its users see; nil for a holdout, whose users go through.
    public var offering: String?

    /// Creates a variant.
    /// - Parameters:
    ///   - id: Its ID.
    ///   - weight: Its percentage of users.
    ///   - offering: What its users see; nil for a holdout.
    public init(id: String, weight: Int, offering: String?) {
        self.id = id
        self.weight = weight
        self.offering = offering
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case id, weight, offering
    }

    /// Decodes a variant; a holdout leaves its offering out.
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError`, also for a key a variant does not have.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.strictContainer(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        weight = try container.decode(Int.self, forKey: .weight)
        offering = try container.decodeIfPresent(String.self, forKey: .offering)
    }
}

/// A place in the app that may show a paywall, such as a locked tab.
public struct PaywallPlacement: Codable, Hashable, Sendable, Identifiable {
    /// The placement's ID, which the app passes to `gate(placement:)`.
    public var id: String
    /// The feature it guards: a user whose tier unlocks it goes through.
    public var feature: Feature?
    /// What to do, the first rule whose audience holds deciding; the last is for everyone.
    public var rules: [PaywallRule]

    /// Creates a placement.
    /// - Parameters:
    ///   - id: Its ID.
    ///   - feature: The feature it guards, if any.
    ///   - rules: Its rules.
    public init(id: String, feature: Feature? = nil, rules: [PaywallRule]) {
        self.id = id
        self.feature = feature
        self.rules = rules
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case id, feature, rules
    }

    /// Decodes a placement; one that guards no feature leaves it out.
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError`, also for a key a placement does not have.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.strictContainer(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        feature = try container.decodeIfPresent(Feature.self, forKey: .feature)
        rules = try container.decode([PaywallRule].self, forKey: .rules)
    }
}

/// For an audience (everyone when nil), what a placement does. Written in JSON as
/// `{"audience": "free", "show": "annual-first"}`, `{"experiment": "…"}` or `{"grant": true}`.
public struct PaywallRule: Hashable, Sendable {
    /// What a rule does.
    public enum Action: Hashable, Sendable {
        /// Show this offering.
        case show(String)
        /// Show the offering of the user's variant in this experiment.
        case experiment(String)
        /// Let the user through.
        case grant
    }

    /// The audience it is for; nil for everyone.
    public var audience: String?
    /// What it does.
    public var action: Action

    /// Creates a rule.
    /// - Parameters:
    ///   - audience: The audience; nil for everyone.
    ///   - action: What it does.
    public init(audience: String? = nil, _ action: Action) {
        self.audience = audience
        self.action = action
    }
}

extension PaywallRule: Codable {
    private enum CodingKeys: String, CodingKey, CaseIterable {
        case audience, show, experiment, grant
    }

    /// Decodes a rule: its audience, and one of `show`, `experiment` or `grant`.
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError` for a rule with no action or more than one.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.strictContainer(keyedBy: CodingKeys.self)
        audience = try container.decodeIfPresent(String.self, forKey: .audience)
        let actions: [Action] = [
            try container.decodeIfPresent(String.self, forKey: .show).map(Action.show),
            try container.decodeIfPresent(String.self, forKey: .experiment).map(Action.experiment),
            try container.decodeIfPresent(Bool.self, forKey: .grant) == true ? .grant : nil,
        ].compactMap { $0 }
        guard actions.count == 1, let action = actions.first else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "A rule has one of show, experiment or grant."))
        }
        self.action = action
    }

    /// Encodes the rule.
    /// - Parameter encoder: The encoder.
    /// - Throws: The encoder's error.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(audience, forKey: .audience)
        switch action {
        case .show(let offering): try container.encode(offering, forKey: .show)
        case .experiment(let experiment): try container.encode(experiment, forKey: .experiment)
        case .grant: try container.encode(true, forKey: .grant)
        }
    }
}

/// A key of any name, to list every key of an object.
private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension Decoder {
    /// The object's container, once every key the object has is one of `Keys`: a
    /// configuration is read whole, so a misspelt key is an error and not a part left out.
    fileprivate func strictContainer<Keys: CodingKey & CaseIterable>(keyedBy keys: Keys.Type) throws -> KeyedDecodingContainer<Keys> {
        let known = Set(Keys.allCases.map(\.stringValue))
        if let unknown = try container(keyedBy: AnyKey.self).allKeys.first(where: { !known.contains($0.stringValue) }) {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: codingPath, debugDescription: "'\(unknown.stringValue)' is not a key of this object."))
        }
        return try container(keyedBy: keys)
    }
}
