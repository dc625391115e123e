import Foundation
import Testing
import TrainCore
import TrainSubscription
import TrainTesting

/// TEST-4: LocalSubscriptionService keeps the public SubscriptionService contract, in memory and on disk.
final class LocalSubscriptionEnvironment: SubscriptionContractEnvironment {
    let store: SimulatedAppStore
    let directory: TemporaryDirectory

    init(_ variant: StoreVariant) throws {
        directory = try TemporaryDirectory()
        switch variant {
        case .inMemory: store = try SimulatedAppStore(storage: .inMemory, products: StoreProduct.standard, clock: ManualClock())
        case .file: store = try SimulatedAppStore(storage: .file(directory.file("appstore.sqlite")), clock: ManualClock())
        }
    }

    func makeService(appAccountToken: UUID?) async throws -> any SubscriptionService {
        LocalSubscriptionService(store: store, appAccountToken: appAccountToken)
    }
}

extension ContractCheck: CustomTestStringConvertible {
    public var testDescription: String { name }
}

/// The contract can fail: a fake that grants without a buyer and ignores users is caught.
struct PermissiveSubscriptionEnvironment: SubscriptionContractEnvironment {
    func makeService(appAccountToken: UUID?) async throws -> any SubscriptionService { FakeSubscriptionService() }
}

@Suite(.timeLimit(.minutes(1))) struct SubscriptionContractTests {
    @Test("LocalSubscriptionService keeps the SubscriptionService contract", arguments: StoreVariant.allCases, SubscriptionServiceContract.checks)
    func contract(variant: StoreVariant, check: SubscriptionContractCheck) async throws {
        try await check.run(in: LocalSubscriptionEnvironment(variant))
    }

    @Test("a permissive fake breaks the buyer, per-user and signed-out checks")
    func catchesViolations() async throws {
        var violated: [String] = []
        for check in SubscriptionServiceContract.checks {
            do {
                try await check.run(in: PermissiveSubscriptionEnvironment())
            } catch is ContractViolation {
                violated.append(check.name)
            } catch {}
        }
        #expect(violated.contains("a purchase returns a verified transaction of the buyer and grants its tier"))
        #expect(violated.contains("another app user on the device does not inherit the subscription"))
    }
}
