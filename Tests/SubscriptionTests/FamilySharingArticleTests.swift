import Foundation
import Testing
import TrainCore
import TrainSubscription
import TrainTesting

// The code of TrainSubscription.docc/FamilySharing.md, kept compiling and correct here.

@Suite(.timeLimit(.minutes(1))) struct FamilySharingArticleTests {
    @Test("the article's family spans two devices of one App Store: the member's phone has the organizer's plan, shared")
    func familyAcrossDevices() async throws {
        let products = FamilySharingTests.products
        let organizer = SimulatedAppStore(context: TrainContext(clock: ManualClock()), configuration: AppStoreConfiguration(products: products))
        let membersPhone = organizer.device(signedInTo: try AppleID("grace@example.com"))
        _ = try organizer.createFamily(organizer: organizer.appleID)
        try organizer.addToFamily(membersPhone.appleID, organizer: organizer.appleID)
        _ = try await LocalSubscriptionService(store: organizer, context: organizer.context).purchase("com.train.family.monthly")
        let member = LocalSubscriptionService(store: membersPhone, context: membersPhone.context)
        print(try await member.restorePurchases()) // premium, shared
        #expect(try await member.restorePurchases() == .premium)
        #expect(member.currentTier == .premium)
        #expect(organizer.appleID == .standard && membersPhone.appleID.email == "grace@example.com", "each device keeps its Apple ID")
    }
}
