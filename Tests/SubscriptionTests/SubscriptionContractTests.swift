import Foundation
import Testing
import TrainCore
import TrainSubscription
import TrainTesting

/// TEST-4: LocalSubscriptionService keeps the public SubscriptionService contract, in memory and on disk.
final class LocalSubscriptionEnvironment: SubscriptionContractEnvironment {
    let store: SimulatedAppStore
    let directory: TemporaryDirectory
    let accessPolicy: SubscriptionAccessPolicy

    /// The standard subscriptions, one with a free trial in a group of its own, and a product of each other type.
    static let products =
        AppStoreProduct.standardWithoutTrial.map { product in
            var product = product
            if product.id == "com.train.pro.monthly" { product.offers = OfferTests.trialMonthly.offers }
            return product
        } + [OfferTests.payUpFront] + ProductTypeTests.catalog.filter { $0.type != .autoRenewable }

    init(_ variant: StoreVariant, _ accessPolicy: SubscriptionAccessPolicy) throws {
        self.accessPolicy = accessPolicy
        directory = try TemporaryDirectory()
        switch variant {
        case .inMemory:
            store = try SimulatedAppStore(
                storage: .inMemory, context: TrainContext(clock: ManualClock()), configuration: AppStoreConfiguration(products: Self.products))
        case .file:
            store = try SimulatedAppStore(
                storage: .file(directory.file("appstore.sqlite")), context: TrainContext(clock: ManualClock()),
                configuration: AppStoreConfiguration(products: Self.products))
        }
    }

    func makeService(appAccountToken: UUID?) async throws -> any SubscriptionService {
        LocalSubscriptionService(
            store: store, context: store.context,
            configuration: SubscriptionConfiguration(appAccountToken: appAccountToken, accessPolicy: accessPolicy))
    }
}

extension ContractCheck: CustomTestStringConvertible {
    public var testDescription: String { name }
}

/// The contract can fail: a fake that grants without a buyer and ignores users is caught.
/// A service that ignores the app account token it is given: its purchases carry none,
/// and every app user on the device has the Apple ID's subscriptions.
struct PermissiveSubscriptionEnvironment: SubscriptionContractEnvironment {
    let real: LocalSubscriptionEnvironment
    var accessPolicy: SubscriptionAccessPolicy { .appAccountToken }

    init() throws { real = try LocalSubscriptionEnvironment(.inMemory, .appleID) }

    func makeService(appAccountToken: UUID?) async throws -> any SubscriptionService { try await real.makeService(appAccountToken: nil) }
}

@Suite(.timeLimit(.minutes(1))) struct SubscriptionContractTests {
    @Test("LocalSubscriptionService keeps the SubscriptionService contract", arguments: StoreVariant.allCases, SubscriptionServiceContract.checks)
    func contract(variant: StoreVariant, check: SubscriptionContractCheck) async throws {
        for policy in [SubscriptionAccessPolicy.appleID, .appAccountToken] {
            try await check.run(in: LocalSubscriptionEnvironment(variant, policy))
        }
    }

    @Test("a service that ignores the app account token breaks the buyer and per-user checks")
    func catchesViolations() async throws {
        var violated: [String] = []
        for check in SubscriptionServiceContract.checks {
            do {
                try await check.run(in: try PermissiveSubscriptionEnvironment())
            } catch is ContractViolation {
                violated.append(check.name)
            } catch {}
        }
        #expect(violated.contains("a purchase returns a verified transaction of the buyer and grants its tier"))
        #expect(violated.contains("another app user on the device has the Apple ID's subscription only if access is by Apple ID"))
    }
}
