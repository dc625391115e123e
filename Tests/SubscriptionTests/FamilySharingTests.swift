import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainSubscription

/// SUB-13: Family Sharing in the simulated App Store.
@Suite(.timeLimit(.minutes(1))) struct FamilySharingTests {
    static let family = "com.train.family.monthly"
    static let solo = "com.train.pro.monthly"
    static let lifetime = "com.train.lifetime"
    static let coach = "com.train.coach"

    static let products: [AppStoreProduct] = {
        var family = AppStoreProduct(id: Self.family, displayName: "Family", tier: .premium, period: .month, price: 14.99)
        family.isFamilyShareable = true
        let solo = AppStoreProduct(id: Self.solo, displayName: "Pro", tier: .pro, period: .month, price: 4.99)
        var lifetime = AppStoreProduct.nonConsumable(id: Self.lifetime, displayName: "Lifetime", tier: .pro, price: 99)
        lifetime.isFamilyShareable = true
        let coach = AppStoreProduct.nonConsumable(id: Self.coach, displayName: "Coach pack", tier: .pro, price: 19)
        return [family, solo, lifetime, coach]
    }()

    static let parent = AppleID.test("parent@example.com")
    static let child = AppleID.test("child@example.com")
    static let teen = AppleID.test("teen@example.com")

    /// A store with a family of a parent and a child, a device and service on it.
    struct World {
        let clock = ManualClock()
        let directory: TemporaryDirectory
        let variant: StoreVariant
        var store: SimulatedAppStore
        var service: LocalSubscriptionService

        init(_ variant: StoreVariant) throws {
            self.variant = variant
            directory = try TemporaryDirectory()
            store = try Self.makeStore(variant, directory: directory, clock: clock)
            service = LocalSubscriptionService(store: store, context: store.context)
            try store.createFamily(organizer: FamilySharingTests.parent)
            try store.addToFamily(FamilySharingTests.child, organizer: FamilySharingTests.parent)
        }

        static func makeStore(_ variant: StoreVariant, directory: TemporaryDirectory, clock: ManualClock) throws -> SimulatedAppStore {
            let storage: StorageLocation = variant == .file ? .file(directory.file("appstore.sqlite")) : .inMemory
            return try SimulatedAppStore(
                storage: storage, context: TrainContext(clock: clock), configuration: AppStoreConfiguration(products: FamilySharingTests.products))
        }

        /// The tier of whoever is signed in to the device now, as a relaunched app reads it.
        func tier(of appleID: AppleID) async throws -> SubscriptionTier {
            try store.switchAppleID(to: appleID)
            return try await service.restorePurchases()
        }

        /// A purchase by `appleID` on the device.
        @discardableResult
        func buy(_ productID: String, as appleID: AppleID) async throws -> AppStoreTransaction {
            try store.switchAppleID(to: appleID)
            guard case .success(let result) = try await service.purchase(productID) else { throw SubscriptionError(.systemError) }
            return result.unsafePayloadValue
        }

        /// The notifications sent after the first `count`, as type, subtype and whose transaction.
        func sent(after count: Int) -> [String] {
            store.serverNotifications.dropFirst(count).map { notification in
                let owner = notification.transaction?.ownershipType == .familyShared ? "member" : "buyer"
                return [notification.type.rawValue, notification.subtype?.rawValue, owner].compactMap { $0 }.joined(separator: "/")
            }
        }
    }

    @Test("a shareable subscription is shared: the child holds a transaction of its own, owned familyShared", arguments: StoreVariant.allCases)
    func shared(variant: StoreVariant) async throws {
        let world = try World(variant)
        let before = world.store.serverNotifications.count
        let bought = try await world.buy(Self.family, as: Self.parent)
        #expect(bought.ownershipType == .purchased)
        #expect(try await world.tier(of: Self.child) == .premium)
        let entitlements = try await world.service.currentEntitlements().map(\.unsafePayloadValue)
        let shared = try #require(entitlements.first)
        #expect(entitlements.count == 1 && shared.ownershipType == .familyShared && shared.id != bought.id && shared.productID == Self.family)
        #expect(shared.expirationDate == bought.expirationDate && shared.price == nil && shared.appAccountToken == nil)
        let statuses = try await world.service.subscriptionStatuses()
        #expect(statuses.map(\.transaction.unsafePayloadValue.id) == [shared.id] && statuses.first?.state == .subscribed)
        #expect(world.sent(after: before) == ["SUBSCRIBED/INITIAL_BUY/buyer", "SUBSCRIBED/INITIAL_BUY/member"])
        let json = try #require(world.store.serverNotifications.last?.signedPayload)
        #expect(try world.store.notificationVerifier().verify(json).transaction?.ownershipType == .familyShared)
        #expect(try await world.tier(of: Self.teen) == .free, "someone outside the family has nothing")
    }

    @Test("renewals reach the child as its own renewals; a subscription that is not shareable is not shared", arguments: StoreVariant.allCases)
    func renewalsAndUnshared(variant: StoreVariant) async throws {
        let world = try World(variant)
        let bought = try await world.buy(Self.family, as: Self.parent)
        try await world.buy(Self.solo, as: Self.child)
        let before = world.store.serverNotifications.count
        world.clock.advance(to: try #require(bought.expirationDate).addingTimeInterval(1))
        #expect(world.sent(after: before).sorted() == ["DID_RENEW/buyer", "DID_RENEW/buyer", "DID_RENEW/member"])
        try world.store.switchAppleID(to: Self.child)
        let mine = try await world.service.allTransactions().map(\.unsafePayloadValue)
        #expect(mine.filter { $0.ownershipType == .familyShared }.count == 2, "the first period and its renewal")
        #expect(Set(mine.filter { $0.ownershipType == .familyShared }.map(\.originalID)).count == 1, "one chain of its own")
        #expect(try await world.tier(of: Self.parent) == .premium)
        #expect(try await world.service.currentEntitlements().count == 1, "the child's Pro is not shared")
    }

    @Test("leaving the family ends the child's access at once with REVOKE; the parent keeps theirs", arguments: StoreVariant.allCases)
    func leaving(variant: StoreVariant) async throws {
        let world = try World(variant)
        try await world.buy(Self.family, as: Self.parent)
        try await world.buy(Self.lifetime, as: Self.parent)
        let before = world.store.serverNotifications.count
        try world.store.removeFromFamily(Self.child)
        #expect(world.sent(after: before).sorted() == ["REVOKE/member", "REVOKE/member"])
        #expect(try await world.tier(of: Self.child) == .free)
        #expect(try await world.tier(of: Self.parent) == .premium)
        #expect(world.store.family(of: Self.child) == nil && world.store.family(of: Self.parent)?.members == [])
    }

    @Test("the parent's refund, expiry or lapse ends the child's access", arguments: StoreVariant.allCases)
    func purchaseEnds(variant: StoreVariant) async throws {
        let world = try World(variant)
        let bought = try await world.buy(Self.family, as: Self.parent)
        var before = world.store.serverNotifications.count
        try world.store.refund(transactionID: bought.id, reason: .developerIssue)
        #expect(world.sent(after: before) == ["REFUND/buyer", "REVOKE/member"])
        #expect(try await world.tier(of: Self.child) == .free)
        let revoked = try await world.service.allTransactions().last?.unsafePayloadValue
        #expect(revoked?.revocationReason == .developerIssue, "a member's revocation has the purchaser's reason")

        try await world.buy(Self.family, as: Self.parent)
        #expect(try await world.tier(of: Self.child) == .premium, "shared again when the parent resubscribes")
        try world.store.switchAppleID(to: Self.parent)
        before = world.store.serverNotifications.count
        try world.store.expireSubscription(productID: Self.family)
        #expect(world.sent(after: before) == ["EXPIRED/buyer", "EXPIRED/member"])
        #expect(try await world.tier(of: Self.child) == .free)

        try await world.buy(Self.family, as: Self.parent)
        try world.store.setAutoRenew(false, productID: Self.family)
        let end = try #require(try await world.service.subscriptionStatuses().first?.transaction.unsafePayloadValue.expirationDate)
        world.clock.advance(to: end.addingTimeInterval(1))
        #expect(try await world.tier(of: Self.child) == .free)
    }

    @Test("a billing grace period keeps the child's access as it keeps the parent's", arguments: StoreVariant.allCases)
    func grace(variant: StoreVariant) async throws {
        let world = try World(variant)
        let bought = try await world.buy(Self.family, as: Self.parent)
        world.store.shouldEnterBillingRetryOnRenewal = true
        world.store.billingGracePeriodIsEnabled = true
        try world.store.switchAppleID(to: Self.child) // the child's device follows the change as it happens
        world.clock.advance(to: try #require(bought.expirationDate).addingTimeInterval(1))
        #expect(world.service.currentTier == .premium, "in grace")
        #expect(try await world.tier(of: Self.child) == .premium, "in grace, read again from the ledger")
        world.clock.advance(by: .seconds(17 * 86_400))
        #expect(world.service.currentTier == .free, "grace over, billing retry: no access")
    }

    @Test(
        "joining later shares what the family holds now: the subscription and the shareable non-consumable, not another",
        arguments: StoreVariant.allCases)
    func joiningLater(variant: StoreVariant) async throws {
        let world = try World(variant)
        try await world.buy(Self.family, as: Self.parent)
        try await world.buy(Self.lifetime, as: Self.child)
        try await world.buy(Self.coach, as: Self.child)
        let before = world.store.serverNotifications.count
        try world.store.addToFamily(Self.teen, organizer: Self.parent)
        #expect(world.sent(after: before) == ["SUBSCRIBED/INITIAL_BUY/member", "ONE_TIME_CHARGE/member"])
        #expect(try await world.tier(of: Self.teen) == .premium)
        let owned = try await world.service.currentEntitlements().map(\.unsafePayloadValue)
        #expect(Set(owned.map(\.productID)) == [Self.family, Self.lifetime] && owned.allSatisfy { $0.ownershipType == .familyShared })
        #expect(!owned.contains { $0.productID == Self.coach }, "a non-consumable that is not shareable stays the child's")
    }

    @Test("an upgrade reaches the child as a new period of the new product", arguments: StoreVariant.allCases)
    func upgrade(variant: StoreVariant) async throws {
        var family = AppStoreProduct(id: "com.train.family.plus", displayName: "Family+", tier: .premium, period: .month, price: 19.99)
        family.isFamilyShareable = true
        var basic = AppStoreProduct(id: "com.train.family.basic", displayName: "Family", tier: .pro, period: .month, price: 9.99)
        basic.isFamilyShareable = true
        let clock = ManualClock()
        let directory = try TemporaryDirectory()
        let storage: StorageLocation = variant == .file ? .file(directory.file("appstore.sqlite")) : .inMemory
        let store = try SimulatedAppStore(
            storage: storage, context: TrainContext(clock: clock), configuration: AppStoreConfiguration(products: [basic, family]))
        let service = LocalSubscriptionService(store: store, context: store.context)
        try store.createFamily(organizer: Self.parent)
        try store.addToFamily(Self.child, organizer: Self.parent)
        try store.switchAppleID(to: Self.parent)
        _ = try await service.purchase(basic.id)
        _ = try await service.purchase(family.id)
        try store.switchAppleID(to: Self.child)
        #expect(try await service.restorePurchases() == .premium)
        let mine = try await service.allTransactions().map(\.unsafePayloadValue)
        #expect(mine.map(\.productID) == [basic.id, family.id] && mine.first?.isUpgraded == true)
    }

    @Test(
        "a restore on the child's device finds what the family shares; a relaunch keeps the family and the shares", arguments: StoreVariant.allCases)
    func restoreAndRelaunch(variant: StoreVariant) async throws {
        var world = try World(variant)
        try await world.buy(Self.family, as: Self.parent)
        try world.store.switchAppleID(to: Self.child)
        let childDevice = LocalSubscriptionService(store: world.store, context: world.store.context)
        #expect(childDevice.currentTier == .premium)
        #expect(try await childDevice.restorePurchases() == .premium)
        guard variant == .file else { return }
        world.store = try World.makeStore(.file, directory: world.directory, clock: world.clock)
        world.service = LocalSubscriptionService(store: world.store, context: world.store.context)
        #expect(world.store.family(of: Self.child)?.organizer == Self.parent)
        #expect(try await world.tier(of: Self.child) == .premium)
        try world.store.removeFromFamily(Self.child)
        #expect(try await world.tier(of: Self.child) == .free, "the share read back from the file is ended")
    }

    @Test("six people at most, one family per Apple ID, and only a member can leave: typed errors that change nothing")
    func limits() async throws {
        let world = try World(.inMemory)
        for index in 1...4 { try world.store.addToFamily(AppleID.test("kid\(index)@example.com"), organizer: Self.parent) }
        #expect(world.store.family(of: Self.parent)?.everyone.count == 6)
        #expect(throws: SubscriptionError(.familyFull)) { try world.store.addToFamily(Self.teen, organizer: Self.parent) }
        #expect(throws: SubscriptionError(.alreadyInFamily)) { try world.store.createFamily(organizer: Self.child) }
        try world.store.createFamily(organizer: Self.teen)
        #expect(throws: SubscriptionError(.alreadyInFamily)) { try world.store.addToFamily(Self.child, organizer: Self.teen) }
        #expect(throws: SubscriptionError(.notInFamily)) { try world.store.addToFamily(Self.child, organizer: Self.child) }
        #expect(throws: SubscriptionError(.notInFamily)) { try world.store.removeFromFamily(AppleID.test("stranger@example.com")) }
        #expect(world.store.families.map(\.everyone.count) == [6, 1], "nothing changed")
        try world.store.removeFromFamily(Self.parent)
        #expect(world.store.families.map(\.organizer) == [Self.teen], "the organizer leaving ends the group")
    }

    @Test("only an auto-renewable subscription or a non-consumable is shareable; a StoreKit file's familyShareable is read")
    func shareableProducts() throws {
        var consumable = AppStoreProduct.consumable(id: "com.train.coins", displayName: "Coins", price: 0.99)
        consumable.isFamilyShareable = true
        #expect(throws: SubscriptionError(.invalidArgument)) { try consumable.validate() }
        var pass = AppStoreProduct.nonRenewing(id: "com.train.pass", displayName: "Pass", tier: .pro, duration: .month, price: 9.99)
        pass.isFamilyShareable = true
        #expect(throws: SubscriptionError(.invalidArgument)) { try pass.validate() }
        for product in Self.products { try product.validate() }
    }
}

extension AppleID {
    /// An Apple ID a test knows is well formed.
    static func test(_ email: String) -> AppleID {
        (try? AppleID(email)) ?? .standard
    }
}
