import Foundation
import Testing
import TrainCore
import TrainSubscription
import TrainTesting

/// LocalPaywallService keeps the public PaywallService contract, in memory and on disk.
final class LocalPaywallEnvironment: PaywallContractEnvironment {
    let variant: StoreVariant
    let store: SimulatedAppStore
    let directory: TemporaryDirectory
    private let made = Locked(0)

    init(_ variant: StoreVariant) throws {
        self.variant = variant
        directory = try TemporaryDirectory()
        store = SimulatedAppStore(
            context: TrainContext(clock: ManualClock()), configuration: AppStoreConfiguration(products: AppStoreProduct.standardWithoutTrial))
    }

    /// A service over a subscription service of its own, each in its own file on disk.
    func makeService() async throws -> any PaywallService {
        let subscriptions = LocalSubscriptionService(
            store: store, context: store.context, configuration: SubscriptionConfiguration(appAccountToken: UUID()))
        switch variant {
        case .inMemory:
            return LocalPaywallService(subscriptions: subscriptions)
        case .file:
            let number = made.withLock { made in
                made += 1
                return made
            }
            return try LocalPaywallService(subscriptions: subscriptions, storage: .file(directory.file("paywalls-\(number).sqlite")))
        }
    }

    /// A service given the whole catalog: the standard products and a coaching plan sold
    /// in Germany only, so not in the store's American storefront.
    func makeServiceWithUnsoldProduct() async throws -> any PaywallService {
        var coach = AppStoreProduct(
            id: unsoldProductID, displayName: "Coach Monthly", tier: .pro, period: .month, price: 29.99, subscriptionGroupID: "train.coach")
        coach.prices = ["DEU": 29.99]
        let subscriptions = LocalSubscriptionService(store: store, context: store.context)
        return LocalPaywallService(subscriptions: subscriptions, configuration: PaywallServiceConfiguration(products: store.products + [coach]))
    }

    func subscribe(_ service: any PaywallService, to productID: String) async throws {
        guard let local = service as? LocalPaywallService else { throw SubscriptionError(.systemError, detail: "not a service of this environment") }
        _ = try await local.subscriptions.purchase(productID)
    }
}

/// The contract can fail: a service that forgets the user and the attributes it is told.
final class ForgetfulPaywallService: PaywallService {
    let real: any PaywallService
    init(_ real: any PaywallService) { self.real = real }
    var configuration: PaywallConfiguration { real.configuration }
    func replaceConfiguration(_ configuration: PaywallConfiguration) async throws -> [PaywallWarning] {
        try await real.replaceConfiguration(configuration)
    }
    func gate(placement: String) async throws -> PaywallDecision { try await real.gate(placement: placement) }
    func assignment(in experiment: String) async throws -> PaywallAssignment { try await real.assignment(in: experiment) }
    func setUser(_ userID: String?) async {}
    func setAttribute(_ value: String?, forKey key: String) async {}
    func exposures() async throws -> [PaywallExposure] { try await real.exposures() }
    func removeExposures(of userID: String) async throws -> Int { try await real.removeExposures(of: userID) }
}

struct ForgetfulPaywallEnvironment: PaywallContractEnvironment {
    let real: LocalPaywallEnvironment
    init() throws { real = try LocalPaywallEnvironment(.inMemory) }
    func makeService() async throws -> any PaywallService { ForgetfulPaywallService(try await real.makeService()) }
    func subscribe(_ service: any PaywallService, to productID: String) async throws {
        guard let forgetful = service as? ForgetfulPaywallService else {
            throw SubscriptionError(.systemError, detail: "not a service of this environment")
        }
        try await real.subscribe(forgetful.real, to: productID)
    }
}

@Suite(.timeLimit(.minutes(1))) struct PaywallContractTests {
    @Test("LocalPaywallService keeps the PaywallService contract", arguments: StoreVariant.allCases, PaywallServiceContract.checks)
    func contract(variant: StoreVariant, check: PaywallContractCheck) async throws {
        try await check.run(in: LocalPaywallEnvironment(variant))
    }

    @Test("a service that forgets the user and the attributes breaks the audience, assignment and split checks")
    func catchesViolations() async throws {
        var violated: [String] = []
        for check in PaywallServiceContract.checks {
            do {
                try await check.run(in: try ForgetfulPaywallEnvironment())
            } catch is ContractViolation {
                violated.append(check.name)
            }
        }
        #expect(violated.contains("an audience by attribute gets its offering; others fall to the rule for everyone"))
        #expect(violated.contains("users are split by the weights: about half in each of a 50/50 test, all in the one of a 100/0 test"))
        #expect(violated.contains("a user's variant is the same at every gate and in another service, and each showing is an exposure"))
    }
}
