import Foundation
import Testing
import TrainAccount
import TrainAuth
import TrainCore
import TrainSubscription
import TrainTesting

/// SUB-18: a world has one App Store, in which each user's devices are signed in to
/// the user's own Apple ID, so a family, a refund and a restore reach across users.
@Suite(.timeLimit(.minutes(1))) struct OneAppStoreTests {
    static let familyPlan = "com.train.family.monthly"

    let clock = ManualClock()
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// A stack selling a family-shareable monthly plan, with Ada signed in on its first
    /// device and Grace on a phone of hers.
    func world(_ variant: AccountVariant) async throws -> (ada: TrainServices, grace: TrainServices, graceID: String) {
        var family = AppStoreProduct(id: Self.familyPlan, displayName: "Family", tier: .premium, period: .month, price: 14.99)
        family.isFamilyShareable = true
        let configuration = TrainServicesConfiguration(
            context: TrainContext(clock: clock), products: AppStoreProduct.standard + [family], authPolicy: AuthPolicy(passwordIterations: 1_000))
        let ada =
            switch variant {
            case .inMemory: TrainServices.inMemory(configuration: configuration)
            case .file: try TrainServices.files(in: directory.file("Train"), configuration: configuration)
            }
        ada.appleID.signIn(as: .ada)
        _ = try await ada.auth.signInWithApple()
        let grace = try await ada.addUser(named: "Grace Hopper")
        return (ada, try ada.makeDevice(for: grace.id), grace.id)
    }

    @Test(
        "each user's devices are signed in to the user's own Apple ID in one App Store: a family spanning two users' phones shares the organizer's plan",
        arguments: AccountVariant.allCases)
    func familyAcrossUsers(variant: AccountVariant) async throws {
        let (ada, grace, graceID) = try await world(variant)
        #expect(grace.appStore.appleID == .standard(forUser: graceID) && ada.appStore.appleID != grace.appStore.appleID)
        try ada.appStore.createFamily(organizer: ada.appStore.appleID)
        try ada.appStore.addToFamily(grace.appStore.appleID, organizer: ada.appStore.appleID)
        _ = try await ada.subscriptions.purchase(Self.familyPlan)
        #expect(ada.subscriptions.currentTier == .premium)
        #expect(try await grace.subscriptions.restorePurchases() == .premium, "shared with Grace's Apple ID")
        let shared = try await grace.subscriptions.subscriptionStatuses().first?.transaction.unsafePayloadValue
        #expect(shared?.ownershipType == .familyShared)

        let tablet = try ada.makeDevice(for: graceID)
        #expect(tablet.appStore.appleID == grace.appStore.appleID, "her second device: the same Apple ID")
        #expect(try await tablet.subscriptions.restorePurchases() == .premium, "restored on her tablet")

        let refunded = try #require(try await ada.subscriptions.subscriptionStatuses().first?.transaction.unsafePayloadValue)
        try ada.appStore.refund(transactionID: refunded.id)
        #expect(try await grace.subscriptions.restorePurchases() == .free, "the organizer's refund ends the member's access")
    }

    @Test(
        "the organizer deleting their app account leaves the family's access: the purchase belongs to the Apple ID, which renews it",
        arguments: AccountVariant.allCases)
    func organizerDeletesTheirAccount(variant: AccountVariant) async throws {
        let (ada, grace, _) = try await world(variant)
        try ada.appStore.createFamily(organizer: ada.appStore.appleID)
        try ada.appStore.addToFamily(grace.appStore.appleID, organizer: ada.appStore.appleID)
        _ = try await ada.subscriptions.purchase(Self.familyPlan)
        let adaID = try #require(ada.auth.currentUser?.id)
        let scheduled = try await ada.account.deleteAccount(of: adaID)
        clock.advance(to: scheduled.purgeAt.addingTimeInterval(1))
        _ = try await ada.account.purgeDueDeletions()
        #expect(ada.auth.currentUser == nil)
        clock.advance(by: .seconds(31 * 86_400))
        #expect(try await grace.subscriptions.restorePurchases() == .premium, "renewed on Ada's Apple ID, still shared")
        #expect(ada.appStore.allTransactions.count >= 2, "the Apple ID's purchases stay with the App Store")
    }

    @Test("a shared family iPad switches to another user's Apple ID and has what that Apple ID bought; a family refuses a member twice")
    func sharedDeviceAndBadFamilies() async throws {
        let (ada, grace, graceID) = try await world(.inMemory)
        _ = try await grace.subscriptions.purchase(AppStoreProduct.standard[0].id)
        let iPad = try ada.makeDevice(for: graceID)
        try iPad.appStore.switchAppleID(to: ada.appStore.appleID)
        #expect(try await iPad.subscriptions.restorePurchases() == .free, "Ada's Apple ID bought nothing")
        #expect(grace.appStore.appleID == .standard(forUser: graceID), "switching the iPad left Grace's phone alone")
        #expect(try await grace.subscriptions.restorePurchases() == .pro)

        try ada.appStore.createFamily(organizer: ada.appStore.appleID)
        try ada.appStore.addToFamily(grace.appStore.appleID, organizer: ada.appStore.appleID)
        let gracesTablet = try ada.makeDevice(for: graceID)
        #expect(throws: SubscriptionError(.alreadyInFamily), "Grace's tablet is the same member: one Apple ID") {
            try ada.appStore.addToFamily(gracesTablet.appStore.appleID, organizer: ada.appStore.appleID)
        }
        #expect(throws: SubscriptionError(.alreadyInFamily), "the organizer is no member of their own family") {
            try ada.appStore.addToFamily(ada.appStore.appleID, organizer: ada.appStore.appleID)
        }
        #expect(ada.appStore.family(of: grace.appStore.appleID)?.members == [grace.appStore.appleID])
    }
}
