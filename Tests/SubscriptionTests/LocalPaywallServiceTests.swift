import Foundation
import Testing
import TrainCore
import TrainSubscription
import TrainTesting

/// SUB-12: LocalPaywallService decides each gate from the configuration in force and
/// the store as it is now, assigns by the documented hash, logs exposures, and keeps
/// what it must across a relaunch — in memory and on disk.
@Suite(.timeLimit(.minutes(1))) struct LocalPaywallServiceTests {
    static let group = "train.subscriptions"

    /// Two offerings for free users — one for those who may still have an introductory
    /// offer — an experiment with a holdout, and a placement guarding analytics.
    static func configuration(weights: (Int, Int) = (50, 50)) -> PaywallConfiguration {
        PaywallConfiguration(
            offerings: [
                PaywallOffering(id: "welcome", packages: [PaywallPackage(id: "monthly", productID: SubscriptionHarness.proMonthly)]),
                PaywallOffering(id: "win-back", packages: [PaywallPackage(id: "yearly", productID: SubscriptionHarness.proYearly)]),
            ],
            audiences: [
                PaywallAudience(id: "new", conditions: [.tierBelow(.pro), .introOfferEligible(groupID: group, true)]),
                PaywallAudience(id: "lapsed", conditions: [.tierBelow(.pro), .introOfferEligible(groupID: group, false)]),
            ],
            experiments: [
                PaywallExperiment(
                    id: "order",
                    variants: [
                        PaywallVariant(id: "shown", weight: weights.0, offering: "welcome"),
                        PaywallVariant(id: "holdout", weight: weights.1, offering: nil),
                    ])
            ],
            placements: [
                PaywallPlacement(
                    id: "upsell",
                    rules: [PaywallRule(audience: "new", .show("welcome")), PaywallRule(audience: "lapsed", .show("win-back")), PaywallRule(.grant)]),
                PaywallPlacement(id: "analytics", feature: .analytics, rules: [PaywallRule(.show("welcome"))]),
                PaywallPlacement(id: "onboarding", rules: [PaywallRule(.experiment("order"))]),
            ])
    }

    /// A paywall service over the harness's subscriptions, in the harness's storage.
    static func paywalls(_ harness: SubscriptionHarness) throws -> LocalPaywallService {
        let settings = PaywallServiceConfiguration()
        switch harness.variant {
        case .inMemory:
            return LocalPaywallService(subscriptions: harness.service, context: TrainContext(clock: harness.clock), configuration: settings)
        case .file:
            return try LocalPaywallService(
                subscriptions: harness.service, storage: .file(harness.directory.file("paywalls.sqlite")),
                context: TrainContext(clock: harness.clock), configuration: settings)
        }
    }

    @Test("audiences of tier and introductory-offer eligibility follow the store at each gate", arguments: StoreVariant.allCases)
    func audiences(variant: StoreVariant) async throws {
        let harness = try SubscriptionHarness(variant)
        let paywalls = try Self.paywalls(harness)
        try await paywalls.replaceConfiguration(Self.configuration())
        #expect(try await paywalls.gate(placement: "upsell").presentation?.offering.id == "welcome", "free and eligible")
        #expect(try await paywalls.gate(placement: "analytics").presentation?.products.map(\.id) == [SubscriptionHarness.proMonthly])
        try await harness.buy()
        #expect(try await paywalls.gate(placement: "upsell") == .granted, "pro: no audience holds, the rule for everyone grants")
        #expect(try await paywalls.gate(placement: "analytics") == .granted, "pro unlocks analytics")
        try harness.store.expireSubscription(productID: SubscriptionHarness.proMonthly)
        #expect(try await paywalls.gate(placement: "upsell").presentation?.offering.id == "win-back", "free again, the offer used")
        #expect(try await paywalls.gate(placement: "analytics").presentation != nil, "the lapsed user sees the paywall again")
    }

    @Test(
        "a variant is the documented bucket: SHA-256 of experiment, NUL and user, first 8 bytes big-endian, modulo 100",
        arguments: StoreVariant.allCases)
    func documentedBucket(variant: StoreVariant) async throws {
        let paywalls = try Self.paywalls(try SubscriptionHarness(variant))
        // SHA-256("order\0user-42") starts with bytes whose big-endian value is 82 modulo 100
        // (computed outside TrainKit, with Python's hashlib).
        await paywalls.setUser("user-42")
        try await paywalls.replaceConfiguration(Self.configuration(weights: (82, 18)))
        #expect(try await paywalls.assignment(in: "order").variant == "holdout", "bucket 82 is past the first 82")
        try await paywalls.replaceConfiguration(Self.configuration(weights: (83, 17)))
        #expect(try await paywalls.assignment(in: "order").variant == "shown", "bucket 82 is among the first 83")
    }

    @Test(
        "each showing logs an exposure dated by the clock, a holdout's too, naming the installation when no user is set",
        arguments: StoreVariant.allCases)
    func exposures(variant: StoreVariant) async throws {
        let harness = try SubscriptionHarness(variant)
        let paywalls = try Self.paywalls(harness)
        try await paywalls.replaceConfiguration(Self.configuration(weights: (0, 100)))
        #expect(try await paywalls.gate(placement: "onboarding") == .granted, "the holdout goes through")
        harness.clock.advance(by: .seconds(90))
        await paywalls.setUser("ada")
        try await paywalls.replaceConfiguration(Self.configuration(weights: (100, 0)))
        #expect(try await paywalls.gate(placement: "onboarding").presentation?.assignment == PaywallAssignment(experiment: "order", variant: "shown"))
        _ = try await paywalls.gate(placement: "upsell")
        let logged = try await paywalls.exposures()
        #expect(logged.map(\.assignment.variant) == ["holdout", "shown"], "a gate outside an experiment logs nothing")
        #expect(logged[0].user.hasPrefix("install:") && logged[0].user.count > "install:".count)
        #expect(logged[1].user == "ada")
        #expect(logged[1].date.timeIntervalSince(logged[0].date) == 90)
    }

    @Test("a configuration that does not hold together changes nothing, in force or kept", arguments: StoreVariant.allCases)
    func badConfigurationChangesNothing(variant: StoreVariant) async throws {
        let harness = try SubscriptionHarness(variant)
        let paywalls = try Self.paywalls(harness)
        let good = Self.configuration()
        try await paywalls.replaceConfiguration(good)
        var bad = good
        bad.offerings[0].packages[0].productID = "com.example.elsewhere"
        await #expect(throws: SubscriptionError(.invalidConfiguration)) { try await paywalls.replaceConfiguration(bad) }
        #expect(paywalls.configuration == good)
        #expect(try await paywalls.gate(placement: "upsell").presentation?.offering.id == "welcome")
        if variant == .file {
            try harness.relaunch()
            #expect(try Self.paywalls(harness).configuration == good, "the kept one is the good one")
        }
        await #expect(throws: SubscriptionError(.experimentNotFound)) { try await paywalls.assignment(in: "missing") }
        #expect(try await paywalls.exposures().isEmpty, "nothing was logged")
    }

    @Test("a relaunch keeps the configuration, the exposures and the installation's variant")
    func relaunch() async throws {
        let harness = try SubscriptionHarness(.file)
        var paywalls = try Self.paywalls(harness)
        try await paywalls.replaceConfiguration(Self.configuration())
        let before = try await paywalls.assignment(in: "order")
        _ = try await paywalls.gate(placement: "onboarding")
        let exposures = try await paywalls.exposures()
        try harness.relaunch()
        paywalls = try Self.paywalls(harness)
        #expect(paywalls.configuration == Self.configuration())
        #expect(try await paywalls.exposures() == exposures)
        #expect(try await paywalls.assignment(in: "order") == before)
        _ = try await paywalls.gate(placement: "onboarding")
        #expect(try await paywalls.exposures().map(\.user) == [exposures[0].user, exposures[0].user], "the same installation")
    }

    @Test("two services on one file: a replacement by one is in force in the other, and no exposure is lost")
    func twoServicesOnOneFile() async throws {
        let harness = try SubscriptionHarness(.file)
        let first = try Self.paywalls(harness)
        let second = try Self.paywalls(harness)
        try await first.replaceConfiguration(Self.configuration(weights: (100, 0)))
        #expect(second.configuration == Self.configuration(weights: (100, 0)))
        #expect(try await second.gate(placement: "onboarding").presentation?.offering.id == "welcome")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<20 {
                group.addTask { _ = try await (index.isMultiple(of: 2) ? first : second).gate(placement: "onboarding") }
            }
            try await group.waitForAll()
        }
        #expect(try await first.exposures().count == 21)
        #expect(try await second.exposures() == first.exposures())
        #expect(Set(try await first.exposures().map(\.user)).count == 1, "one installation per file")
    }

    @Test("an unknown placement is placementNotFound and logs nothing", arguments: StoreVariant.allCases)
    func unknownPlacement(variant: StoreVariant) async throws {
        let paywalls = try Self.paywalls(try SubscriptionHarness(variant))
        await #expect(throws: SubscriptionError(.placementNotFound)) { try await paywalls.gate(placement: "upsell") }
        try await paywalls.replaceConfiguration(Self.configuration())
        await #expect(throws: SubscriptionError(.placementNotFound)) { try await paywalls.gate(placement: "upsell\u{0}") }
        #expect(try await paywalls.exposures().isEmpty)
    }

    @Test("a gate that fails to load the products logs no exposure", arguments: StoreVariant.allCases)
    func failedGateLogsNothing(variant: StoreVariant) async throws {
        let harness = try SubscriptionHarness(variant)
        let paywalls = try Self.paywalls(harness)
        try await paywalls.replaceConfiguration(Self.configuration(weights: (100, 0)))
        harness.store.setSimulatedError(.networkError, for: .loadProducts)
        await #expect(throws: SubscriptionError(.networkError)) { try await paywalls.gate(placement: "onboarding") }
        #expect(try await paywalls.exposures().isEmpty, "nothing was shown")
        harness.store.setSimulatedError(nil, for: .loadProducts)
        _ = try await paywalls.gate(placement: "onboarding")
        #expect(try await paywalls.exposures().count == 1)
    }

    @Test("a gate whose task is cancelled logs no exposure", arguments: StoreVariant.allCases)
    func cancelledGateLogsNothing(variant: StoreVariant) async throws {
        let harness = try SubscriptionHarness(variant)
        let paywalls = try Self.paywalls(harness)
        try await paywalls.replaceConfiguration(Self.configuration(weights: (100, 0)))
        let (start, starting) = AsyncStream<Void>.makeStream()
        let gate = Task {
            // Ends at once once the task is cancelled: the gate runs in a cancelled task.
            for await _ in start { break }
            return try await paywalls.gate(placement: "onboarding")
        }
        gate.cancel()
        starting.finish()
        await #expect(throws: CancellationError.self) { try await gate.value }
        #expect(try await paywalls.exposures().isEmpty)
    }

    @Test(
        "a user who signs in while a gate waits for the store is the next gate's: the exposure names the user it began with",
        arguments: StoreVariant.allCases)
    func userChangeMidGate(variant: StoreVariant) async throws {
        let harness = try SubscriptionHarness(variant)
        let subscriptions = FakeSubscriptionService(backedBy: harness.service)
        let settings = PaywallServiceConfiguration()
        let paywalls =
            switch variant {
            case .inMemory: LocalPaywallService(subscriptions: subscriptions, context: TrainContext(clock: harness.clock), configuration: settings)
            case .file:
                try LocalPaywallService(
                    subscriptions: subscriptions, storage: .file(harness.directory.file("paywalls.sqlite")),
                    context: TrainContext(clock: harness.clock), configuration: settings)
            }
        var configuration = Self.configuration(weights: (100, 0))
        configuration.placements[2].rules = [PaywallRule(audience: "new", .experiment("order")), PaywallRule(.grant)]
        try await paywalls.replaceConfiguration(configuration)
        await paywalls.setUser("ada")
        subscriptions.controls.holdCalls()
        let gate = Task { try await paywalls.gate(placement: "onboarding") }
        await subscriptions.controls.waitForHeldCalls(1)
        await paywalls.setUser("bob")
        subscriptions.controls.releaseHeldCalls()
        #expect(try await gate.value.presentation?.assignment?.variant == "shown")
        #expect(try await paywalls.exposures().map(\.user) == ["ada"])
    }

    @Test("a package whose product the storefront does not sell is left out of the offering and the products alike", arguments: StoreVariant.allCases)
    func unsoldPackage(variant: StoreVariant) async throws {
        let harness = try SubscriptionHarness(variant)
        let store = SimulatedAppStore(
            context: TrainContext(clock: harness.clock),
            configuration: AppStoreConfiguration(products: [StorefrontTests.everywhere, StorefrontTests.americanOnly]))
        let subscriptions = LocalSubscriptionService(store: store, context: store.context)
        let paywalls =
            switch variant {
            case .inMemory: LocalPaywallService(subscriptions: subscriptions)
            case .file: try LocalPaywallService(subscriptions: subscriptions, storage: .file(harness.directory.file("paywalls.sqlite")))
            }
        let offering = PaywallOffering(
            id: "both",
            packages: [
                PaywallPackage(id: "coach", productID: StorefrontTests.americanOnly.id, metadata: ["badge": "New"]),
                PaywallPackage(id: "pro", productID: StorefrontTests.everywhere.id),
            ])
        try await paywalls.replaceConfiguration(
            PaywallConfiguration(offerings: [offering], placements: [PaywallPlacement(id: "p", rules: [PaywallRule(.show("both"))])]))
        #expect(
            try await paywalls.gate(placement: "p").presentation?.products.map(\.id) == [
                StorefrontTests.americanOnly.id, StorefrontTests.everywhere.id,
            ])
        store.storefront = StorefrontTests.germany
        let shown = try #require(try await paywalls.gate(placement: "p").presentation)
        #expect(shown.offering.packages.map(\.id) == ["pro"])
        #expect(shown.products.map(\.id) == [StorefrontTests.everywhere.id], "products[i] is the product of packages[i]")
    }

    @Test(
        "with the app's whole catalog, one configuration serves every storefront; without it, a product not on sale here is refused",
        arguments: StoreVariant.allCases)
    func wholeCatalog(variant: StoreVariant) async throws {
        let harness = try SubscriptionHarness(variant)
        let catalog = [StorefrontTests.everywhere, StorefrontTests.americanOnly]
        let (subscriptions, _) = Self.germanStore(catalog, harness)
        func paywalls(_ products: [AppStoreProduct]?, _ name: String) throws -> LocalPaywallService {
            try Self.paywalls(over: subscriptions, products: products, in: harness, named: name)
        }
        let offering = PaywallOffering(
            id: "both",
            packages: [
                PaywallPackage(id: "coach", productID: StorefrontTests.americanOnly.id),
                PaywallPackage(id: "pro", productID: StorefrontTests.everywhere.id),
            ])
        let configuration = PaywallConfiguration(offerings: [offering], placements: [PaywallPlacement(id: "p", rules: [PaywallRule(.show("both"))])])
        let onSale = try paywalls(nil, "on-sale.sqlite")
        await #expect(throws: SubscriptionError(.invalidConfiguration)) { try await onSale.replaceConfiguration(configuration) }
        #expect(onSale.configuration == .empty)
        let whole = try paywalls(catalog, "whole.sqlite")
        try await whole.replaceConfiguration(configuration)
        #expect(try await whole.gate(placement: "p").presentation?.offering.packages.map(\.id) == ["pro"])
    }

    @Test(
        "an offering with nothing on sale is never an empty paywall: the fallback offering shows in its place, or no paywall; the warning and the exposure say which",
        arguments: StoreVariant.allCases)
    func nothingOnSale(variant: StoreVariant) async throws {
        let harness = try SubscriptionHarness(variant)
        let catalog = [StorefrontTests.everywhere, StorefrontTests.americanOnly]
        let (subscriptions, store) = Self.germanStore(catalog, harness)
        let paywalls = try Self.paywalls(over: subscriptions, products: catalog, in: harness, named: "paywalls.sqlite")
        var configuration = PaywallConfiguration(
            offerings: [
                PaywallOffering(id: "coach", packages: [PaywallPackage(id: "coach", productID: StorefrontTests.americanOnly.id)]),
                PaywallOffering(id: "pro", packages: [PaywallPackage(id: "pro", productID: StorefrontTests.everywhere.id)]),
            ],
            experiments: [PaywallExperiment(id: "exp", variants: [PaywallVariant(id: "coach", weight: 100, offering: "coach")])],
            placements: [
                PaywallPlacement(id: "p", rules: [PaywallRule(.show("coach"))]), PaywallPlacement(id: "e", rules: [PaywallRule(.experiment("exp"))]),
            ])
        let coachOnly = PaywallWarning(offering: "coach", productsNotOnSale: [StorefrontTests.americanOnly.id], hasNothingOnSale: true)
        #expect(try await paywalls.replaceConfiguration(configuration) == [coachOnly])
        #expect(try await paywalls.gate(placement: "p") == .nothingOnSale)
        #expect(try await paywalls.gate(placement: "e") == .nothingOnSale)

        configuration.fallbackOffering = "pro"
        var falling = coachOnly
        falling.shownInstead = "pro"
        #expect(try await paywalls.replaceConfiguration(configuration) == [falling])
        let shown = try #require(try await paywalls.gate(placement: "p").presentation)
        #expect(shown.offering.id == "pro" && shown.fallbackFrom == "coach" && shown.products.map(\.id) == [StorefrontTests.everywhere.id])
        #expect(try await paywalls.gate(placement: "e").presentation?.offering.id == "pro")
        #expect(try await paywalls.exposures().map(\.offering) == [nil, "pro"], "each exposure names the offering shown")

        store.storefront = .unitedStates
        let american = try #require(try await paywalls.gate(placement: "p").presentation)
        #expect(american.offering.id == "coach" && american.fallbackFrom == nil, "sold here: the offering itself")

        configuration.fallbackOffering = "nowhere"
        await #expect(throws: SubscriptionError(.invalidConfiguration)) { try await paywalls.replaceConfiguration(configuration) }
        #expect(paywalls.configuration.fallbackOffering == "pro", "the configuration in force stays")
    }

    /// Subscriptions over a store of `catalog` in the German storefront, on the harness's clock.
    static func germanStore(_ catalog: [AppStoreProduct], _ harness: SubscriptionHarness) -> (LocalSubscriptionService, SimulatedAppStore) {
        let store = SimulatedAppStore(context: TrainContext(clock: harness.clock), configuration: AppStoreConfiguration(products: catalog))
        store.storefront = StorefrontTests.germany
        return (LocalSubscriptionService(store: store, context: store.context), store)
    }

    /// A paywall service over `subscriptions`, given the whole catalog `products`, in the
    /// harness's storage under `name`.
    static func paywalls(
        over subscriptions: LocalSubscriptionService, products: [AppStoreProduct]?, in harness: SubscriptionHarness, named name: String
    ) throws -> LocalPaywallService {
        let settings = PaywallServiceConfiguration(products: products)
        return switch harness.variant {
        case .inMemory: LocalPaywallService(subscriptions: subscriptions, context: TrainContext(clock: harness.clock), configuration: settings)
        case .file:
            try LocalPaywallService(
                subscriptions: subscriptions, storage: .file(harness.directory.file(name)), context: TrainContext(clock: harness.clock),
                configuration: settings)
        }
    }

    @Test(
        "a kept configuration this version cannot read: opening the file is ledgerUnreadable; a stack's service starts without it and keeps the installation"
    )
    func unreadableConfiguration() async throws {
        let harness = try SubscriptionHarness(.file)
        let file = harness.directory.file("paywalls.sqlite")
        let first = try Self.paywalls(harness)
        try await first.replaceConfiguration(Self.configuration(weights: (100, 0)))
        _ = try await first.gate(placement: "onboarding")
        let installation = try #require(try await first.exposures().first?.user)
        let raw = try RecordStore(.file(file), schema: LocalPaywallService.recordSchema)
        try raw.write { records in try records.setData(Data("not a configuration".utf8), forKey: "current", in: "configurations") }
        #expect(throws: SubscriptionError(.ledgerUnreadable)) { try LocalPaywallService(subscriptions: harness.service, storage: .file(file)) }
        let stacked = LocalPaywallService(
            subscriptions: harness.service, auth: nil, store: raw, context: TrainContext(clock: harness.clock),
            configuration: PaywallServiceConfiguration())
        #expect(stacked.configuration == .empty)
        try await stacked.replaceConfiguration(Self.configuration(weights: (100, 0)))
        _ = try await stacked.gate(placement: "onboarding")
        #expect(try await stacked.exposures().map(\.user) == [installation, installation], "the same installation")
    }
}
