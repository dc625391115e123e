import Foundation
import TrainCore
import TrainSubscription

/// A scriptable `SubscriptionService` for unit tests of view models.
///
/// Calls are recorded; scripted results are returned. A fake made with
/// ``init(tier:clock:)`` is strict: a call nobody scripted records a test failure
/// naming the call and throws ``FakeError/unimplemented(_:)``; its tier is what the
/// test sets with ``setTier(_:)``, and a scripted purchase that succeeds raises it to
/// the product's tier (looked up in the scripted products, or `AppStoreProduct.standard`).
/// ``sendTransactionUpdate(_:)`` drives its transaction stream. A fake made with
/// ``init(backedBy:clock:)`` passes every call nobody scripted to that service, such
/// as a `LocalSubscriptionService` over a `SimulatedAppStore`, and shows its state.
///
/// ```swift
/// let subscriptions = FakeSubscriptionService()
/// subscriptions.script(.purchase, .returning(.pending))
/// let model = PaywallModel(subscriptions: subscriptions)
/// await model.buy("com.train.pro.monthly")
/// #expect(model.message == "Waiting for approval")
/// #expect(subscriptions.calls == [.purchase("com.train.pro.monthly")])
/// ```
public final class FakeSubscriptionService: SubscriptionService, ScriptableFake, BackedFake {
    /// A recorded call: the method, declared once below, applied to its arguments.
    public typealias Call = FakeCall<FakeSubscriptionService>

    /// Failure injection, latency, holding, scripts and left-overs.
    public let controls: FakeControls<Call>
    /// The service unscripted calls go to; nil for a strict fake.
    public let service: (any SubscriptionService)?
    private let tiers: Broadcast<SubscriptionTier>
    private let updates = Broadcast<StoreVerificationResult<AppStoreTransaction>?>(initial: nil)
    private let purchasesInFlight = Locked(0)
    private let lastProducts = Locked<[AppStoreProduct]?>(nil)

    /// Creates a strict fake: every call but the tier needs a script.
    /// - Parameters:
    ///   - tier: The tier at the start.
    ///   - clock: The clock ``FakeControls/latency`` sleeps on.
    public init(tier: SubscriptionTier = .free, clock: (any DateClock)? = nil) {
        service = nil
        tiers = Broadcast(initial: tier)
        controls = FakeControls(fakeName: "FakeSubscriptionService", clock: clock)
    }

    /// Creates a fake in front of `service`: calls nobody scripted go to it, and the
    /// tier is its.
    /// - Parameters:
    ///   - service: The service, such as a `LocalSubscriptionService` over a `SimulatedAppStore`.
    ///   - clock: The clock ``FakeControls/latency`` sleeps on.
    public init(backedBy service: any SubscriptionService, clock: (any DateClock)? = nil) {
        self.service = service
        tiers = Broadcast(initial: .free)
        controls = FakeControls(fakeName: "FakeSubscriptionService", strict: false, clock: clock)
    }

    /// Whether unscripted calls fail the test.
    public var isStrict: Bool { controls.isStrict }

    /// The service's tier, or a strict fake's.
    public var currentTier: SubscriptionTier { service?.currentTier ?? tiers.value }

    /// True while a ``purchase(_:offer:)`` call is under way (held, sleeping or running).
    public var isPurchaseInProgress: Bool { purchasesInFlight.withLock { $0 > 0 } }

    /// Sets a strict fake's tier and, if it changed, emits it on ``tierChanges()``.
    /// - Parameter tier: The new tier.
    public func setTier(_ tier: SubscriptionTier) {
        guard controls.ownsState("setTier(_:)") else { return }
        show(tier)
    }

    private func show(_ tier: SubscriptionTier) {
        if service == nil, tier != tiers.value { tiers.send(tier) }
    }

    /// Emits a transaction on a strict fake's ``transactionUpdates()`` streams, as a renewal or refund would.
    /// - Parameter update: The transaction.
    public func sendTransactionUpdate(_ update: StoreVerificationResult<AppStoreTransaction>) {
        guard controls.ownsState("sendTransactionUpdate(_:)") else { return }
        updates.send(update)
    }

    /// Suspends until at least `count` listeners follow a strict fake's ``transactionUpdates()``.
    /// - Parameter count: The number of listeners to wait for.
    public func waitForTransactionListeners(_ count: Int = 1) async {
        guard controls.ownsState("waitForTransactionListeners(_:)") else { return }
        await updates.waitForSubscribers(count)
    }

    /// Suspends until at least `count` subscribers follow a strict fake's ``tierChanges()``.
    /// - Parameter count: The number of subscribers to wait for.
    public func waitForTierSubscribers(_ count: Int = 1) async {
        guard controls.ownsState("waitForTierSubscribers(_:)") else { return }
        await tiers.waitForSubscribers(count)
    }

    /// Returns the scripted products, or the service's.
    public func products() async throws -> [AppStoreProduct] {
        let products = try await perform(.products) { try await $0.products() }
        lastProducts.withLock { $0 = products }
        return products
    }

    /// In progress until it returns. Returns the scripted result, or the service's; a
    /// scripted success raises a strict fake's tier to the product's.
    public func purchase(_ productID: String, offer: PurchaseOffer?) async throws -> StorePurchaseResult {
        purchasesInFlight.withLock { $0 += 1 }
        defer { purchasesInFlight.withLock { $0 -= 1 } }
        let catalog = controls.peekScript(.products) ?? lastProducts.withLock { $0 } ?? AppStoreProduct.standard
        let forward: @Sendable (any SubscriptionService) async throws -> StorePurchaseResult = { try await $0.purchase(productID, offer: offer) }
        let result =
            if let offer { try await perform(.purchaseWithOffer, productID, offer, forward: forward) } else {
                try await perform(.purchase, productID, forward: forward)
            }
        if case .success(let transaction) = result, transaction.isVerified,
            let product = catalog.first(where: { $0.id == transaction.unsafePayloadValue.productID })
        {
            show(max(product.tier, currentTier))
        }
        return result
    }

    /// Returns the scripted answer, or the service's.
    public func isEligibleForIntroOffer(groupID: String) async throws -> Bool {
        try await perform(.isEligibleForIntroOffer, groupID) { try await $0.isEligibleForIntroOffer(groupID: groupID) }
    }

    /// Returns the scripted tier, which becomes a strict fake's, or the service's.
    public func restorePurchases() async throws -> SubscriptionTier {
        let tier = try await perform(.restorePurchases) { try await $0.restorePurchases() }
        show(tier)
        return tier
    }

    /// Recorded as a subscription; the service's updates, or what ``sendTransactionUpdate(_:)`` sends from now on.
    public func transactionUpdates() -> AsyncStream<StoreVerificationResult<AppStoreTransaction>> {
        controls.recordSubscription(.transactionUpdates())
        return service?.transactionUpdates() ?? updates.events()
    }

    /// Recorded as a subscription; the service's tiers, or a strict fake's: the tier now, then each change.
    public func tierChanges() -> AsyncStream<SubscriptionTier> {
        controls.recordSubscription(.tierChanges())
        return service?.tierChanges() ?? tiers.subscribe()
    }

    /// Succeeds as scripted, or as the service does.
    public func finish(_ transactionID: UInt64) async throws {
        try await perform(.finish, transactionID) { try await $0.finish(transactionID) }
    }

    /// Returns the scripted transactions, or the service's.
    public func currentEntitlements() async throws -> [StoreVerificationResult<AppStoreTransaction>] {
        try await perform(.currentEntitlements) { try await $0.currentEntitlements() }
    }

    /// Returns the scripted storefront, or the service's.
    public func storefront() async throws -> StoreStorefront {
        try await perform(.storefront) { try await $0.storefront() }
    }

    /// Returns the scripted app transaction, or the service's.
    public func appTransaction() async throws -> StoreVerificationResult<AppTransactionInfo> {
        try await perform(.appTransaction) { try await $0.appTransaction() }
    }

    /// Returns the scripted transactions, or the service's.
    public func allTransactions() async throws -> [StoreVerificationResult<AppStoreTransaction>] {
        try await perform(.allTransactions) { try await $0.allTransactions() }
    }

    /// Returns the scripted transactions, or the service's.
    public func unfinishedTransactions() async throws -> [StoreVerificationResult<AppStoreTransaction>] {
        try await perform(.unfinishedTransactions) { try await $0.unfinishedTransactions() }
    }

    /// Returns the scripted transaction, or the service's.
    public func latestTransaction(for productID: String) async throws -> StoreVerificationResult<AppStoreTransaction>? {
        try await perform(.latestTransaction, productID) { try await $0.latestTransaction(for: productID) }
    }

    /// Returns the scripted statuses, or the service's.
    public func subscriptionStatuses() async throws -> [RenewalStatus] {
        try await perform(.subscriptionStatuses) { try await $0.subscriptionStatuses() }
    }

    /// Recorded, held and delayed; passed to the service, if any.
    public func setAppAccountToken(_ token: UUID?) async {
        await controls.performWithoutFailing(.setAppAccountToken, token) {
            await service?.setAppAccountToken(token)
        }
    }
}

extension FakeMethods where Fake == FakeSubscriptionService {
    /// ``FakeSubscriptionService/products()``: the products; also where purchases look up their tier.
    public static var products: FakeMethod<FakeSubscriptionService, [AppStoreProduct]> { .init("products()") }

    /// ``FakeSubscriptionService/purchase(_:offer:)`` without an offer; scripted, it is
    /// with an offer or without: the outcome; a success raises a strict fake's tier.
    public static var purchase: FakeMethod<FakeSubscriptionService, StorePurchaseResult, String> { .init("purchase(_:offer:)") }

    /// ``FakeSubscriptionService/purchase(_:offer:)`` with an offer; scripted as ``FakeMethods/purchase``.
    public static var purchaseWithOffer: FakeMethod<FakeSubscriptionService, StorePurchaseResult, String, PurchaseOffer> {
        .init("purchase(_:offer:)")
    }

    /// ``FakeSubscriptionService/isEligibleForIntroOffer(groupID:)``: the answer.
    public static var isEligibleForIntroOffer: FakeMethod<FakeSubscriptionService, Bool, String> { .init("isEligibleForIntroOffer(groupID:)") }

    /// ``FakeSubscriptionService/restorePurchases()``: the tier, which becomes a strict fake's.
    public static var restorePurchases: FakeMethod<FakeSubscriptionService, SubscriptionTier> { .init("restorePurchases()") }

    /// ``FakeSubscriptionService/transactionUpdates()``.
    public static var transactionUpdates: FakeMethod<FakeSubscriptionService, AsyncStream<StoreVerificationResult<AppStoreTransaction>>> {
        .init("transactionUpdates()")
    }

    /// ``FakeSubscriptionService/tierChanges()``.
    public static var tierChanges: FakeMethod<FakeSubscriptionService, AsyncStream<SubscriptionTier>> { .init("tierChanges()") }

    /// ``FakeSubscriptionService/finish(_:)``.
    public static var finish: FakeMethod<FakeSubscriptionService, Void, UInt64> { .init("finish(_:)") }

    /// ``FakeSubscriptionService/currentEntitlements()``: the transactions.
    public static var currentEntitlements: FakeMethod<FakeSubscriptionService, [StoreVerificationResult<AppStoreTransaction>]> {
        .init("currentEntitlements()")
    }

    /// ``FakeSubscriptionService/allTransactions()``: the transactions.
    public static var allTransactions: FakeMethod<FakeSubscriptionService, [StoreVerificationResult<AppStoreTransaction>]> {
        .init("allTransactions()")
    }

    /// ``FakeSubscriptionService/appTransaction()``: the app transaction.
    public static var appTransaction: FakeMethod<FakeSubscriptionService, StoreVerificationResult<AppTransactionInfo>> { .init("appTransaction()") }

    /// ``FakeSubscriptionService/storefront()``: the storefront.
    public static var storefront: FakeMethod<FakeSubscriptionService, StoreStorefront> { .init("storefront()") }

    /// ``FakeSubscriptionService/unfinishedTransactions()``: the transactions.
    public static var unfinishedTransactions: FakeMethod<FakeSubscriptionService, [StoreVerificationResult<AppStoreTransaction>]> {
        .init("unfinishedTransactions()")
    }

    /// ``FakeSubscriptionService/latestTransaction(for:)``: the transaction, or nil.
    public static var latestTransaction: FakeMethod<FakeSubscriptionService, StoreVerificationResult<AppStoreTransaction>?, String> {
        .init("latestTransaction(for:)")
    }

    /// ``FakeSubscriptionService/subscriptionStatuses()``: the statuses.
    public static var subscriptionStatuses: FakeMethod<FakeSubscriptionService, [RenewalStatus]> { .init("subscriptionStatuses()") }

    /// ``FakeSubscriptionService/setAppAccountToken(_:)``.
    public static var setAppAccountToken: FakeMethod<FakeSubscriptionService, Void, UUID?> { .init("setAppAccountToken(_:)") }
}
