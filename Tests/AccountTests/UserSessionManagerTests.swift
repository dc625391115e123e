import Foundation
import Testing
import TrainAccount
import TrainAuth
import TrainCore
import TrainSocial
import TrainSubscription
import TrainSync
import TrainTesting

@MainActor
@Suite(.timeLimit(.minutes(1))) struct UserSessionManagerTests {
    /// The offer a purchase asks for: Premium monthly carries it in this stack's App Store.
    static let comeback = SubscriptionOffer(id: "comeback", type: .promotional, paymentMode: .payUpFront, period: .threeMonths, price: 9)
    let clock = ManualClock()
    let fakes: FakeServices
    var auth: FakeAuthService { fakes.auth }
    var subscriptions: FakeSubscriptionService { fakes.subscriptions }
    var plans: FakePlanSyncService { fakes.plans }
    var sync: BackgroundSyncManager { fakes.backgroundSync }
    let session: UserSessionManager

    init() {
        let products = AppStoreProduct.standardWithoutTrial.map { product in
            var product = product
            if product.id == "com.train.premium.monthly" { product.offers = [Self.comeback] }
            return product
        }
        fakes = FakeServices(configuration: TrainServicesConfiguration(context: TrainContext(clock: clock), products: products), signedIn: nil)
        fakes.services.appleID.signIn(as: .init(subject: "001.ada", email: "ada@example.com"))
        session = fakes.makeSessionManager()
    }

    static func isStopped(_ status: BackgroundSyncStatus) -> Bool {
        if case .stopped = status { true } else { false }
    }

    func token(of user: UserEntity) throws -> UUID { try AppAccountToken.forUser(user.id) }

    /// The tokens the session pushed to the subscription service: none, as it follows auth itself.
    var tokensSet: [UUID?] {
        subscriptions.calls.compactMap { $0.arguments(of: .setAppAccountToken) }
    }

    /// The app account token a successful purchase was tagged with.
    func token(of result: StorePurchaseResult) -> UUID? {
        if case .success(let transaction) = result { transaction.unsafePayloadValue.appAccountToken } else { nil }
    }

    @Test("before start the state is unknown; started signed out it is unauthenticated with the free tier")
    func startSignedOut() async {
        #expect(session.authState == .unknown)
        await session.start()
        #expect(session.authState == .unauthenticated)
        #expect(session.currentUser == nil && session.tier == .free && !session.isFeedUnlocked)
        session.stop()
    }

    @Test("signing in reads the tier and the feed and starts sync; a purchase is tagged with the user's token, which the session never pushes")
    func signInSetsUpTheSession() async throws {
        await session.start()
        let user = try await session.signInWithApple()
        #expect(token(of: try await session.purchase("com.train.pro.monthly")) == (try token(of: user)))
        _ = try await fakes.social.unlockFeed(workoutType: .run)
        try await session.signOut()

        _ = try await session.signInWithApple()
        #expect(session.authState == .authenticated)
        #expect(session.currentUser?.id == user.id)
        #expect(tokensSet.isEmpty, "the subscription service follows the auth service itself")
        #expect(session.tier == .pro)
        #expect(session.isFeedUnlocked)
        #expect(!Self.isStopped(sync.status), "background sync runs")
        session.stop()
    }

    @Test("each sign-in and sign-out returns with the session set, while the auth state listener follows the same changes")
    func signInBesideTheListener() async throws {
        await session.start()
        for round in 0..<100 {
            let user = try await session.signInWithApple()
            #expect(session.currentUser?.id == user.id, "round \(round): signed in")
            #expect(session.authState == .authenticated, "round \(round)")
            try await session.signOut()
            #expect(session.currentUser == nil, "round \(round): signed out")
            #expect(session.authState == .unauthenticated, "round \(round)")
        }
        session.stop()
    }

    @Test("a purchase right after a sign-in made elsewhere is tagged with that user's token, with nothing to wait for")
    func purchaseRightAfterSignIn() async throws {
        await session.start()
        let user = try await fakes.services.auth.signInWithApple()
        let result = try await session.purchase("com.train.pro.monthly")
        #expect(token(of: result) == (try token(of: user)))
        #expect(session.tier == .pro, "the purchase's tier shows when the call returns")
        #expect(tokensSet.isEmpty)
        session.stop()
    }

    @Test("a purchase through the session can ask for a promotional offer, which reaches the subscription service")
    func purchaseWithAnOffer() async throws {
        await session.start()
        _ = try await session.signInWithApple()
        _ = try await session.purchase("com.train.pro.monthly")
        guard case .success(let result) = try await session.purchase("com.train.premium.monthly", offer: .promotional(id: "comeback")) else {
            Issue.record("the purchase did not succeed")
            return
        }
        #expect(result.unsafePayloadValue.offer?.id == "comeback")
        #expect(subscriptions.calls.contains(.purchaseWithOffer("com.train.premium.monthly", .promotional(id: "comeback"))))
        session.stop()
    }

    @Test("a workout logged through the session shows the feed open, with its end, before the call returns")
    func unlockThroughTheSession() async throws {
        await session.start()
        _ = try await session.signInWithApple()
        let unlock = try await session.unlockFeed(workoutType: .run)
        #expect(session.isFeedUnlocked && session.feedUnlockedUntil == unlock.expiresAt)
        #expect(fakes.social.calls.contains(.unlockFeed(.run)))
        try await session.signOut()
        await #expect(throws: SocialError(.notSignedIn)) { try await session.unlockFeed(workoutType: .run) }
        #expect(!session.isFeedUnlocked)
        session.stop()
    }

    @Test("a purchase signed out is noAppAccount and reaches no store")
    func purchaseSignedOut() async throws {
        await session.start()
        await #expect(throws: SubscriptionError(.noAppAccount)) { _ = try await session.purchase("com.train.pro.monthly") }
        #expect(!subscriptions.calls.contains(.purchase("com.train.pro.monthly")))
        session.stop()
    }

    @Test("signing out stops sync and shows the free tier; a purchase then carries no token")
    func signOutEndsTheSession() async throws {
        await session.start()
        try await session.signInWithApple()
        _ = try await session.purchase("com.train.pro.monthly")
        try await session.signOut()
        #expect(session.authState == .unauthenticated && session.currentUser == nil)
        #expect(token(of: try await fakes.services.subscriptions.purchase("com.train.premium.monthly")) == nil)
        #expect(tokensSet.isEmpty)
        #expect(session.tier == .free)
        #expect(Self.isStopped(sync.status))
        session.stop()
    }

    @Test("a sign-out while a purchase is on its way ends with nobody signed in and nothing bought for the user")
    func signOutDuringPurchase() async throws {
        await session.start()
        subscriptions.controls.holdCalls()
        let user = try await fakes.services.auth.signInWithApple()
        let purchase = Task { @MainActor in try await session.purchase("com.train.pro.monthly") }
        await subscriptions.controls.waitForHeldCalls()
        try await fakes.services.auth.signOut()
        let signOut = Task { @MainActor in try await session.signOut() }
        subscriptions.controls.releaseHeldCalls()
        let bought = try? await purchase.value
        _ = try await signOut.value
        #expect(bought.flatMap { token(of: $0) } != (try token(of: user)), "nothing was bought for the user who signed out")
        #expect(session.authState == .unauthenticated)
        session.stop()
    }

    @Test("after a deletion request fails, the user stays signed in, and a purchase is tagged with their token")
    func failedDeletionKeepsTheUser() async throws {
        await session.start()
        let user = try await session.signInWithApple()
        auth.failCall(1, of: .scheduleAccountDeletion, with: AuthenticationError(.storage))
        await #expect(throws: AccountError(.deletionIncomplete)) { _ = try await session.deleteAccount() }
        #expect(session.authState == .authenticated && session.accountDeletion == nil)
        #expect(session.deletionProgress?.phase == .failed)
        #expect(token(of: try await session.purchase("com.train.pro.monthly")) == (try token(of: user)))
        session.stop()
    }

    @Test("deleting the account stops sync and ends the session at once, shows the deletion while its purge runs, then its report")
    func deleteAccount() async throws {
        await session.start()
        let user = try await session.signInWithApple()
        let deletion = try await session.deleteAccount()
        #expect(deletion.userID == user.id)
        #expect(session.authState == .unauthenticated)
        #expect(auth.currentUser == nil, "the deletion signed the auth fake out")
        #expect(token(of: try await fakes.services.subscriptions.purchase("com.train.pro.monthly")) == nil, "a purchase now carries no token")
        #expect(Self.isStopped(sync.status))
        #expect(await waitUntil { session.accountDeletion == nil && session.deletionReport?.userID == user.id })
        #expect(plans.calls.contains(.purgeAccountData(user.id)))
        #expect(session.deletionProgress?.step == .localData && session.deletionProgress?.fractionCompleted == 1)
        session.stop()
    }

    @Test(
        "scheduling the deletion ends the session; a sign-in during the grace period shows the schedule and syncs nothing until the account is restored"
    )
    func scheduleAndRestore() async throws {
        await session.start()
        try await session.signInWithApple()
        let scheduled = try await session.scheduleAccountDeletion()
        #expect(session.authState == .unauthenticated)
        #expect(tokensSet.isEmpty)
        #expect(Self.isStopped(sync.status))
        #expect(session.scheduledDeletion == nil, "nobody is signed in")

        try await session.signInWithApple()
        #expect(session.scheduledDeletion == scheduled, "the app offers the restore")
        #expect(Self.isStopped(sync.status), "nothing syncs until the account is restored")
        try await session.restoreAccount()
        #expect(session.scheduledDeletion == nil)
        #expect(!Self.isStopped(sync.status), "background sync runs again")
        #expect(try auth.scheduledDeletions().isEmpty)
        session.stop()
    }
}
