import Foundation
import TrainCore
import TrainSubscription

/// What the ``SubscriptionServiceContract`` needs from the conformance under test.
public protocol SubscriptionContractEnvironment: Sendable {
    /// Makes a service over a store with no purchases, signed in as `appAccountToken`.
    /// Every service made by one environment shares that store.
    /// - Parameter appAccountToken: The app user.
    /// - Returns: The service under test.
    func makeService(appAccountToken: UUID?) async throws -> any SubscriptionService

    /// Which app user the services have access to what the Apple ID bought: the checks
    /// of app users sharing a device expect what the policy says.
    var accessPolicy: SubscriptionAccessPolicy { get }
}

extension SubscriptionContractEnvironment {
    /// StoreKit's behaviour, unless the environment says otherwise.
    public var accessPolicy: SubscriptionAccessPolicy { .appleID }
}

/// A check of the ``SubscriptionServiceContract``.
public typealias SubscriptionContractCheck = ContractCheck<any SubscriptionContractEnvironment>

extension Expectations {
    func expectError(_ code: SubscriptionError.Code, _ what: String, _ body: () async throws -> Void) async throws {
        try await expectError(code, what, codeOf: { (error: SubscriptionError) in error.code }, body)
    }
}

/// The public behavioural contract of `SubscriptionService`. TrainKit runs
/// it against `LocalSubscriptionService` in memory and on disk, under both access
/// policies; an app runs it against its StoreKit conformance in a StoreKitTest session:
///
/// ```swift
/// @Test(arguments: SubscriptionServiceContract.checks)
/// func subscriptionContract(_ check: SubscriptionContractCheck) async throws {
///     try await check.run(in: MyStoreKitEnvironment())
/// }
/// ```
public enum SubscriptionServiceContract {
    static let ada = UUID(uuidString: "00000000-0000-0000-0000-0000000000a1") ?? UUID()
    static let grace = UUID(uuidString: "00000000-0000-0000-0000-0000000000b2") ?? UUID()

    /// The cheapest auto-renewable subscription of the lowest paid tier.
    static func entryProduct(of service: any SubscriptionService) async throws -> AppStoreProduct? {
        try await service.products().filter { $0.tier != .free && $0.type == .autoRenewable }.min { ($0.tier, $0.price) < ($1.tier, $1.price) }
    }

    /// Every check of the contract.
    public static let checks: [SubscriptionContractCheck] = [
        SubscriptionContractCheck("a new user is on the free tier and can see products", covers: SubscriptionAccess.self, SubscriptionPurchasing.self)
        { environment, check in
            let service = try await environment.makeService(appAccountToken: ada)
            try check.expect(service.currentTier == .free, "a new user starts free")
            try check.expect(try await !service.products().isEmpty, "products are listed")
            try check.expect(!service.isPurchaseInProgress, "no purchase is in progress")
        },
        SubscriptionContractCheck(
            "a purchase returns a verified transaction of the buyer and grants its tier", covers: SubscriptionPurchasing.self, SubscriptionAccess.self
        ) { environment, check in
            let service = try await environment.makeService(appAccountToken: ada)
            guard let product = try await entryProduct(of: service) else { throw ContractViolation(check: check.check, message: "no paid product") }
            guard case .success(let result) = try await service.purchase(product.id) else {
                throw ContractViolation(check: check.check, message: "the purchase did not succeed")
            }
            let transaction = try result.payloadValue
            try check.expect(transaction.productID == product.id, "the transaction is of the product bought")
            try check.expect(transaction.appAccountToken == ada, "the transaction carries the buyer's appAccountToken")
            try check.expect(try await service.restorePurchases() == product.tier, "the tier is the product's")
            try check.expect(
                try await service.currentEntitlements().contains { $0.unsafePayloadValue.id == transaction.id }, "it is a current entitlement")
        },
        SubscriptionContractCheck("an unknown product is productNotFound and buys nothing", covers: SubscriptionPurchasing.self) {
            environment, check in
            let service = try await environment.makeService(appAccountToken: ada)
            try await check.expectError(.productNotFound, "buying an unknown product") { _ = try await service.purchase("com.example.unknown") }
            try check.expect(try await service.currentEntitlements().isEmpty, "nothing was bought")
            try check.expect(service.currentTier == .free, "the tier is unchanged")
        },
        SubscriptionContractCheck("finishing is idempotent; an unknown transaction is transactionNotFound", covers: SubscriptionTransactions.self) {
            environment, check in
            let service = try await environment.makeService(appAccountToken: ada)
            guard let product = try await entryProduct(of: service),
                case .success(let result) = try await service.purchase(product.id)
            else {
                throw ContractViolation(check: check.check, message: "the purchase did not succeed")
            }
            let id = result.unsafePayloadValue.id
            try await service.finish(id)
            try await service.finish(id)
            try await check.expectError(.transactionNotFound, "finishing an unknown transaction") { try await service.finish(UInt64.max) }
        },
        SubscriptionContractCheck(
            "a second purchase in the group changes the one subscription, never starts a parallel one", covers: SubscriptionPurchasing.self,
            SubscriptionTransactions.self
        ) { environment, check in
            let service = try await environment.makeService(appAccountToken: ada)
            let paid = try await service.products().filter { $0.tier != .free && $0.type == .autoRenewable }
                .sorted { ($0.tier, $0.price) < ($1.tier, $1.price) }
            guard let low = paid.first, let high = paid.last(where: { $0.tier > low.tier && $0.subscriptionGroupID == low.subscriptionGroupID }),
                case .success(let first) = try await service.purchase(low.id), case .success(let second) = try await service.purchase(high.id)
            else { return }
            try check.expect(
                second.unsafePayloadValue.originalID == first.unsafePayloadValue.originalID, "the upgrade continues the subscription")
            try check.expect(try await service.subscriptionStatuses().count == 1, "one subscription in the group")
            try check.expect(try await service.restorePurchases() == high.tier, "the tier is the upgrade's")
        },
        SubscriptionContractCheck(
            "an Apple ID new to a group gets its introductory offer on the first purchase there, and is not eligible after",
            covers: SubscriptionPurchasing.self
        ) {
            environment, check in
            let service = try await environment.makeService(appAccountToken: ada)
            guard let product = try await service.products().first(where: { $0.introductoryOffer != nil }),
                let group = product.subscriptionGroupID
            else { return }
            try check.expect(try await service.isEligibleForIntroOffer(groupID: group), "a new Apple ID is eligible")
            guard case .success(let result) = try await service.purchase(product.id) else {
                throw ContractViolation(check: check.check, message: "the purchase did not succeed")
            }
            let transaction = result.unsafePayloadValue
            try check.expect(transaction.offer?.type == .introductory, "the first purchase is at the introductory offer")
            try check.expect(
                transaction.price == product.introductoryOffer?.price, "the transaction carries the offer's price")
            try check.expect(try await !service.isEligibleForIntroOffer(groupID: group), "after it, the Apple ID is not eligible")
        },
        SubscriptionContractCheck(
            "a promotional offer, where one is sold, is refused to an Apple ID new to its group, and nothing is bought",
            covers: SubscriptionPurchasing.self
        ) {
            environment, check in
            let service = try await environment.makeService(appAccountToken: ada)
            guard let product = try await service.products().first(where: { $0.offers.contains { $0.type == .promotional } }),
                let id = product.offers.first(where: { $0.type == .promotional })?.id
            else { return }
            try await check.expectError(.ineligibleForOffer, "a promotional offer before any subscription") {
                _ = try await service.purchase(product.id, offer: .promotional(id: id))
            }
            try check.expect(try await service.allTransactions().isEmpty, "nothing was bought")
        },
        SubscriptionContractCheck(
            "a promotional offer, where one is sold, redeemed by a subscriber of its product applies from the next renewal: the period bought stays, the renewal info names the offer, and redeeming it again is ineligibleForOffer",
            covers: SubscriptionPurchasing.self, SubscriptionAccess.self
        ) {
            environment, check in
            let service = try await environment.makeService(appAccountToken: ada)
            guard let product = try await service.products().first(where: { $0.offers.contains { $0.type == .promotional } }),
                let id = product.offers.first(where: { $0.type == .promotional })?.id
            else { return }
            guard case .success(let bought) = try await service.purchase(product.id) else {
                throw ContractViolation(check: check.check, message: "the purchase did not succeed")
            }
            let redeemed = try await service.purchase(product.id, offer: .promotional(id: id))
            if case .success(let result) = redeemed {
                try check.expect(result.unsafePayloadValue.id == bought.unsafePayloadValue.id, "the period bought stays: no new transaction now")
            }
            let info = try await service.subscriptionStatuses().first { $0.transaction.unsafePayloadValue.productID == product.id }?.renewalInfo
            try check.expect(
                info?.unsafePayloadValue.offer?.type == .promotional && info?.unsafePayloadValue.offer?.id == id,
                "the renewal info names the offer for the next renewal")
            try await check.expectError(.ineligibleForOffer, "the offer redeemed again") {
                _ = try await service.purchase(product.id, offer: .promotional(id: id))
            }
        },
        SubscriptionContractCheck(
            "a purchase is in the history, unfinished until finished, and the product's latest transaction", covers: SubscriptionTransactions.self
        ) {
            environment, check in
            let service = try await environment.makeService(appAccountToken: ada)
            guard let product = try await entryProduct(of: service), case .success(let result) = try await service.purchase(product.id)
            else {
                throw ContractViolation(check: check.check, message: "the purchase did not succeed")
            }
            let id = result.unsafePayloadValue.id
            try check.expect(try await service.allTransactions().contains { $0.unsafePayloadValue.id == id }, "it is in the history")
            try check.expect(try await service.unfinishedTransactions().contains { $0.unsafePayloadValue.id == id }, "it is unfinished")
            try check.expect(try await service.latestTransaction(for: product.id)?.unsafePayloadValue.id == id, "it is the latest")
            try await service.finish(id)
            try check.expect(try await !service.unfinishedTransactions().contains { $0.unsafePayloadValue.id == id }, "finished, it is not")
            try check.expect(try await service.latestTransaction(for: "com.example.unknown") == nil, "an unknown product has none")
        },
        SubscriptionContractCheck(
            "a non-consumable, where one is sold, is kept for good: buying it again returns its transaction", covers: SubscriptionPurchasing.self,
            SubscriptionTransactions.self
        ) {
            environment, check in
            let service = try await environment.makeService(appAccountToken: ada)
            guard let product = try await service.products().first(where: { $0.type == .nonConsumable && $0.tier != .free }),
                case .success(let first) = try await service.purchase(product.id)
            else { return }
            try check.expect(first.unsafePayloadValue.expirationDate == nil, "a non-consumable has no expiration date")
            guard case .success(let again) = try await service.purchase(product.id) else {
                throw ContractViolation(check: check.check, message: "buying it again did not succeed")
            }
            try check.expect(again.unsafePayloadValue.id == first.unsafePayloadValue.id, "buying it again returns the same transaction")
            try check.expect(try await service.restorePurchases() >= product.tier, "it grants its tier")
        },
        SubscriptionContractCheck(
            "a consumable, where one is sold, is a new transaction each time and never an entitlement", covers: SubscriptionPurchasing.self,
            SubscriptionTransactions.self
        ) {
            environment, check in
            let service = try await environment.makeService(appAccountToken: ada)
            guard let product = try await service.products().first(where: { $0.type == .consumable }),
                case .success(let first) = try await service.purchase(product.id),
                case .success(let second) = try await service.purchase(product.id)
            else { return }
            try check.expect(first.unsafePayloadValue.id != second.unsafePayloadValue.id, "each purchase is a transaction of its own")
            try check.expect(
                try await !service.currentEntitlements().contains { $0.unsafePayloadValue.productID == product.id },
                "a consumable is never an entitlement")
            try await service.finish(first.unsafePayloadValue.id)
            try await service.finish(second.unsafePayloadValue.id)
        },
        SubscriptionContractCheck(
            "another app user on the device has the Apple ID's subscription only if access is by Apple ID", covers: SubscriptionAccess.self,
            SubscriptionPurchasing.self
        ) {
            environment, check in
            let service = try await environment.makeService(appAccountToken: ada)
            guard let product = try await entryProduct(of: service),
                case .success(let result) = try await service.purchase(product.id)
            else {
                throw ContractViolation(check: check.check, message: "the purchase did not succeed")
            }
            await service.setAppAccountToken(grace)
            switch environment.accessPolicy {
            case .appleID:
                try check.expect(try await service.restorePurchases() == product.tier, "the second user has the Apple ID's tier")
                try check.expect(
                    try await service.currentEntitlements().contains { $0.unsafePayloadValue.id == result.unsafePayloadValue.id },
                    "the second user has the Apple ID's entitlement")
            case .appAccountToken:
                try check.expect(try await service.restorePurchases() == .free, "the second user is on the free tier")
                try check.expect(try await service.currentEntitlements().isEmpty, "the second user has no entitlements")
                try await check.expectError(.notYourTransaction, "the second user finishing the first one's transaction") {
                    try await service.finish(result.unsafePayloadValue.id)
                }
                try await check.expectError(.subscribedWithAnotherAccount, "the second user buying in the same group") {
                    _ = try await service.purchase(product.id)
                }
                try check.expect(try await service.currentEntitlements().isEmpty, "the second user bought nothing")
            }
            await service.setAppAccountToken(ada)
            try check.expect(try await service.restorePurchases() == product.tier, "the buyer keeps the tier")
        },
        SubscriptionContractCheck(
            "without an app user, a purchase goes through untagged, or is noAppAccount if access is per app user", covers: SubscriptionPurchasing.self
        ) {
            environment, check in
            let service = try await environment.makeService(appAccountToken: nil)
            guard let product = try await entryProduct(of: service) else { return }
            switch environment.accessPolicy {
            case .appleID:
                guard case .success(let result) = try await service.purchase(product.id) else {
                    throw ContractViolation(check: check.check, message: "the purchase did not succeed")
                }
                try check.expect(result.unsafePayloadValue.appAccountToken == nil, "the transaction carries no appAccountToken")
                try check.expect(try await service.restorePurchases() == product.tier, "the Apple ID has the tier")
            case .appAccountToken:
                try await check.expectError(.noAppAccount, "buying while signed out") { _ = try await service.purchase(product.id) }
            }
        },
        SubscriptionContractCheck("the tier stream starts with the current tier and follows a purchase", covers: SubscriptionAccess.self) {
            environment, check in
            let service = try await environment.makeService(appAccountToken: ada)
            let tiers = service.tierChanges()
            guard let product = try await entryProduct(of: service) else { return }
            let watched = Task { await tiers.collect(2, within: Expectations.streamWait) }
            _ = try await service.purchase(product.id)
            let values = await watched.value
            try check.expect(values.first == .free, "the stream starts with the current tier")
            try check.expect(values.dropFirst().first == product.tier, "the purchase's tier follows")
        },
        SubscriptionContractCheck("an unfinished purchase is redelivered to every new listener", covers: SubscriptionTransactions.self) {
            environment, check in
            let service = try await environment.makeService(appAccountToken: ada)
            guard let product = try await entryProduct(of: service),
                case .success(let result) = try await service.purchase(product.id)
            else {
                throw ContractViolation(check: check.check, message: "the purchase did not succeed")
            }
            for listener in 1...2 {
                let delivered = await service.transactionUpdates().collect(1, within: Expectations.streamWait)
                try check.expect(
                    delivered.first?.unsafePayloadValue.id == result.unsafePayloadValue.id,
                    "listener \(listener) receives the unfinished purchase")
            }
            try await service.finish(result.unsafePayloadValue.id)
        },
    ]
}
