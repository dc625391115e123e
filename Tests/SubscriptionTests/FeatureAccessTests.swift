import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainSubscription

@Suite(.timeLimit(.minutes(1))) struct FeatureAccessTests {
    @Test("free gates analytics behind Pro, and Pro gates advanced progression behind Premium")
    func standardMapping() {
        let free = FeatureAccess(tier: .free)
        #expect(free.canAccess(.basicPlans) && free.canAccess(.workoutTracking))
        #expect(!free.canAccess(.analytics))
        #expect(free.minimumTier(for: .analytics) == .pro)
        #expect(free.minimumTier(for: .advancedProgression) == .premium)
        #expect(free.minimumTier(for: .basicPlans) == nil)
        let pro = FeatureAccess(tier: .pro)
        #expect(pro.canAccess(.analytics) && pro.minimumTier(for: .analytics) == nil)
        #expect(pro.minimumTier(for: .advancedProgression) == .premium)
        #expect(Feature.allCases.allSatisfy(FeatureAccess(tier: .premium).canAccess))
    }

    @Test("the mapping is data an app can replace")
    func customCatalog() {
        let catalog = FeatureCatalog(features: [.free: [.basicPlans, .analytics], .premium: Set(Feature.allCases)])
        let free = FeatureAccess(tier: .free, catalog: catalog)
        #expect(free.canAccess(.analytics))
        #expect(free.minimumTier(for: .customPlans) == .premium)
        #expect(FeatureAccess(tier: .pro, catalog: catalog).canAccess(.basicPlans) == false)
    }

    @Test("tiers are ordered free < pro < premium")
    func ordering() {
        #expect(SubscriptionTier.allCases.sorted() == [.free, .pro, .premium])
        #expect(SubscriptionTier.pro < .premium && SubscriptionTier.free < .pro)
    }
}
