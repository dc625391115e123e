import Foundation
import Testing
import TrainAuth
import TrainCore
import TrainSubscription
import TrainTesting

/// Given an auth service, the subscription and paywall services follow its signed-in
/// user themselves: nobody pushes a token or a user to them.
@Suite(.timeLimit(.minutes(1))) struct FollowingAuthTests {
    let clock = ManualClock()
    let auth = FakeAuthService()

    func user(_ id: String) -> UserEntity {
        UserEntity(id: id, displayName: id, createdAt: clock.now, lastSignInAt: clock.now)
    }

    /// A subscription service on a new store that follows ``auth``, where each app user has their own purchases.
    func service() -> LocalSubscriptionService {
        let store = SimulatedAppStore(
            context: TrainContext(clock: clock), configuration: AppStoreConfiguration(products: AppStoreProduct.standardWithoutTrial))
        return LocalSubscriptionService(
            store: store, auth: auth, context: store.context, configuration: SubscriptionConfiguration(accessPolicy: .appAccountToken))
    }

    static func token(of result: StorePurchaseResult) -> UUID? {
        if case .success(let transaction) = result { transaction.unsafePayloadValue.appAccountToken } else { nil }
    }

    @Test("a purchase is tagged with the token of the user signed in when it starts, with no token set by anyone")
    func purchaseCarriesTheSignedInUsersToken() async throws {
        let subscriptions = service()
        await #expect(throws: SubscriptionError(.noAppAccount)) { _ = try await subscriptions.purchase(SubscriptionHarness.proMonthly) }
        auth.setCurrentUser(user("ada"))
        let result = try await subscriptions.purchase(SubscriptionHarness.proMonthly)
        #expect(Self.token(of: result) == (try AppAccountToken.forUser("ada")))
        #expect(subscriptions.currentTier == .pro)
    }

    @Test("another user signing in switches the tier and its stream to theirs with no call to the service, and back")
    func switchesWithTheAuthState() async throws {
        let subscriptions = service()
        auth.setCurrentUser(user("ada"))
        _ = try await subscriptions.purchase(SubscriptionHarness.proMonthly)
        let tiers = subscriptions.tierChanges()
        auth.setCurrentUser(user("grace"))
        #expect(await tiers.firstValue(where: { $0 == .free }) == .free, "the stream tells Grace's tier without a read")
        #expect(subscriptions.currentTier == .free)
        auth.setCurrentUser(user("ada"))
        #expect(subscriptions.currentTier == .pro)
    }

    @Test("a token set by hand is ignored by a service that follows an auth service")
    func handSetTokenIsIgnored() async throws {
        let subscriptions = service()
        auth.setCurrentUser(user("ada"))
        await subscriptions.setAppAccountToken(try AppAccountToken.forUser("mallory"))
        #expect(Self.token(of: try await subscriptions.purchase(SubscriptionHarness.proMonthly)) == (try AppAccountToken.forUser("ada")))
    }

    @Test("the paywalls assign and log the signed-in user, and this installation once they sign out, with no user set by anyone")
    func paywallsFollowTheUser() async throws {
        let paywalls = LocalPaywallService(subscriptions: service(), auth: auth, context: TrainContext(clock: clock))
        try await paywalls.replaceConfiguration(LocalPaywallServiceTests.configuration(weights: (100, 0)))
        auth.setCurrentUser(user("ada"))
        await paywalls.setUser("mallory")
        _ = try await paywalls.gate(placement: "onboarding")
        auth.setCurrentUser(nil)
        _ = try await paywalls.gate(placement: "onboarding")
        let users = try await paywalls.exposures().map(\.user)
        #expect(users.count == 2)
        #expect(users.first == "ada")
        #expect(users.last?.hasPrefix("install:") == true)
    }
}
