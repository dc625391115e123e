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
        #expect(Feature.standard.allSatisfy(FeatureAccess(tier: .premium).canAccess))
    }

    @Test("the mapping is data an app can replace")
    func customCatalog() {
        let catalog = FeatureCatalog(features: [.free: [.basicPlans, .analytics], .premium: Set(Feature.standard)])
        let free = FeatureAccess(tier: .free, catalog: catalog)
        #expect(free.canAccess(.analytics))
        #expect(free.minimumTier(for: .customPlans) == .premium)
        #expect(FeatureAccess(tier: .pro, catalog: catalog).canAccess(.basicPlans) == false)
    }

    @Test("tiers are ordered free < pro < premium")
    func ordering() {
        #expect(SubscriptionTier.standard.sorted() == [.free, .pro, .premium])
        #expect(SubscriptionTier.pro < .premium && SubscriptionTier.free < .pro)
    }

    @Test("an app's own tier and feature: a Family product grants its tier, above Premium, and the catalog gates the app's feature behind it")
    func appTierAndFeature() async throws {
        let family = SubscriptionTier("family", level: 3)
        let coachChat = Feature("coachChat")
        let clock = ManualClock()
        let products =
            AppStoreProduct.standard + [
                AppStoreProduct(id: "com.train.family.monthly", displayName: "Family", tier: family, period: .month, price: 14.99)
            ]
        let store = SimulatedAppStore(context: TrainContext(clock: clock), configuration: AppStoreConfiguration(products: products))
        let service = LocalSubscriptionService(store: store, context: store.context)
        _ = try await service.purchase("com.train.premium.monthly")
        #expect(service.currentTier == SubscriptionTier.premium)
        _ = try await service.purchase("com.train.family.monthly")
        #expect(service.currentTier == family, "a higher level is an upgrade, at once")
        let catalog = FeatureCatalog(features: [.free: [.basicPlans], family: [.basicPlans, coachChat]])
        #expect(FeatureAccess(tier: family, catalog: catalog).canAccess(coachChat))
        #expect(FeatureAccess(tier: .premium, catalog: catalog).minimumTier(for: coachChat) == family)
    }

    @Test("TrainKit's tiers are written by name as before, an app's with its level; a name alone that is not TrainKit's is refused")
    func tierCoding() throws {
        let family = SubscriptionTier("family", level: 3)
        #expect(String(decoding: try JSONEncoder().encode(SubscriptionTier.pro), as: UTF8.self) == #""pro""#)
        #expect(try JSONDecoder().decode(SubscriptionTier.self, from: JSONEncoder().encode(family)) == family)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(SubscriptionTier.self, from: Data(#""family""#.utf8)) }
        let catalog = FeatureCatalog(features: [.pro: [.analytics], family: [Feature("coachChat")]])
        #expect(try JSONDecoder().decode(FeatureCatalog.self, from: JSONEncoder().encode(catalog)) == catalog)
        let earlier = Data(#"{"free":["basicPlans"],"pro":["basicPlans","analytics"]}"#.utf8)
        #expect(
            try JSONDecoder().decode(FeatureCatalog.self, from: earlier)
                == FeatureCatalog(features: [.free: [.basicPlans], .pro: [.basicPlans, .analytics]]))
    }
}
