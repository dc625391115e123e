import Testing
import TrainCore
import TrainSubscription

@Suite struct SubscriptionErrorTests {
    @Test("errors compare equal by code whatever their detail, so #expect(throws:) matches a real service's error")
    func equalByCode() async throws {
        let service = LocalSubscriptionService(
            store: try SimulatedAppStore(storage: .inMemory, configuration: AppStoreConfiguration(products: AppStoreProduct.standardWithoutTrial)),
            configuration: SubscriptionConfiguration(accessPolicy: .appAccountToken))
        await #expect(throws: SubscriptionError(.noAppAccount)) { _ = try await service.purchase("com.train.pro.monthly") }
        #expect(SubscriptionError(.networkError, detail: "a") == SubscriptionError(.networkError, detail: "b"))
        #expect(SubscriptionError(.networkError) != SubscriptionError(.systemError))
        #expect(Set([SubscriptionError(.networkError, detail: "a"), SubscriptionError(.networkError)]).count == 1)
    }
}
