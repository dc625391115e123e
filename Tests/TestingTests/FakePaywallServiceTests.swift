import Foundation
import Testing
import TrainCore
import TrainSubscription
import TrainTesting

/// TEST-1 for paywalls: a fake that records each call, answers as scripted, and in front
/// of a service passes on what nobody scripted.
@Suite(.timeLimit(.minutes(1))) struct FakePaywallServiceTests {
    static let offering = PaywallOffering(id: "pro", packages: [PaywallPackage(id: "monthly", productID: "com.train.pro.monthly")])
    static let configuration = PaywallConfiguration(
        offerings: [offering], placements: [PaywallPlacement(id: "analytics", feature: .analytics, rules: [PaywallRule(.show("pro"))])])

    @Test(
        "a strict fake answers a gate only as scripted, keeps the user and attributes set, and a scripted replacement puts the configuration in force"
    )
    func strict() async throws {
        let paywalls = FakePaywallService()
        await withKnownIssue {
            await #expect(throws: FakeError.unimplemented("FakePaywallService.gate(placement:)")) { try await paywalls.gate(placement: "analytics") }
        } matching: {
            FakeIssue.isUnscriptedCall($0, "FakePaywallService.gate(placement:)")
        }
        let shown = PaywallDecision.show(PaywallPresentation(placement: "analytics", offering: Self.offering, products: []))
        paywalls.script(.gate, .sequence([.success(shown), .success(.granted)]))
        #expect(try await paywalls.gate(placement: "analytics") == shown)
        #expect(try await paywalls.gate(placement: "analytics") == .granted)
        await paywalls.setUser("ada")
        await paywalls.setAttribute("running", forKey: "sport")
        #expect(paywalls.user == "ada" && paywalls.attributes == ["sport": "running"])
        paywalls.script(.replaceConfiguration, .returning([]))
        try await paywalls.replaceConfiguration(Self.configuration)
        #expect(paywalls.configuration == Self.configuration)
        #expect(
            paywalls.calls == [
                .gate("analytics"), .gate("analytics"), .gate("analytics"), .setUser("ada"), .setAttribute("running", "sport"),
                .replaceConfiguration(Self.configuration), .configuration(),
            ])
    }

    @Test("in front of a service, unscripted calls reach it and a failure is injected on the next call")
    func backed() async throws {
        let store = SimulatedAppStore(
            context: TrainContext(clock: ManualClock()), configuration: AppStoreConfiguration(products: AppStoreProduct.standard))
        let service = LocalPaywallService(subscriptions: LocalSubscriptionService(store: store, context: store.context))
        let paywalls = FakePaywallService(backedBy: service)
        try await paywalls.replaceConfiguration(Self.configuration)
        #expect(service.configuration == Self.configuration, "the replacement reached the service")
        #expect(try await paywalls.gate(placement: "analytics").presentation?.offering == Self.offering)
        paywalls.controls.failNextCall(with: SubscriptionError(.networkError))
        await #expect(throws: SubscriptionError(.networkError)) { try await paywalls.gate(placement: "analytics") }
        await paywalls.setUser("ada")
        #expect(paywalls.user == nil, "the user is the service's")
        #expect(paywalls.finish().isEmpty)
    }
}
