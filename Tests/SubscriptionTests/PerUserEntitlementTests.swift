import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainSubscription

/// SUB-7: entitlements belong to the app user who bought them.
@Suite(.timeLimit(.minutes(1))) struct PerUserEntitlementTests {
    typealias H = SubscriptionHarness

    @Test("a second app user on the same device does not inherit the first one's subscription")
    func noLeak() async throws {
        let harness = try H()
        let adas = try await harness.buy(H.premiumMonthly)
        await harness.service.setAppAccountToken(H.grace)
        #expect(harness.service.currentTier == .free)
        #expect(try await harness.service.currentEntitlements().isEmpty)
        #expect(try await harness.service.subscriptionStatuses().isEmpty)
        await #expect(throws: SubscriptionError(.notYourTransaction)) { try await harness.service.finish(adas.id) }
        let graces = try await harness.buy(H.proMonthly)
        #expect(graces.appAccountToken == H.grace && graces.originalID != adas.originalID)
        #expect(harness.service.currentTier == .pro)
        await harness.service.setAppAccountToken(H.ada)
        #expect(harness.service.currentTier == .premium)
        await harness.service.setAppAccountToken(nil)
        #expect(harness.service.currentTier == .free)
    }

    @Test("the tier stream follows the app user")
    func tierStream() async throws {
        let harness = try H()
        let tiers = harness.service.tierChanges()
        #expect(await tiers.collect(1).first == .free)
        try await harness.buy()
        #expect(await tiers.collect(1).first == .pro)
        await harness.service.setAppAccountToken(H.grace)
        #expect(await tiers.collect(1).first == .free)
    }
}
