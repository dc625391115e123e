import Foundation
import Testing
import TrainAccount
import TrainAuth
import TrainCore
import TrainSocial
import TrainSubscription
import TrainSync

/// Every fake of an app's services wired together over one stack in memory: what a
/// test scripts is answered by the script, and every call nobody scripted by the stack's
/// real services, which share one user and one world — so the fakes agree. The account
/// service and the background sync run over the other fakes, as the app's do over its
/// services: a deletion through ``account`` signs ``auth`` out, and a failure scripted
/// on ``social`` or ``plans`` is a failure of the deletion's step.
///
/// ```swift
/// let fakes = FakeServices()                               // FakeAuthService.sampleUser signed in
/// fakes.social.script(.friendsFeed, .throwing(SocialError(.feedLocked)))
/// let model = FeedModel(session: fakes.makeSessionManager(), social: fakes.social)
/// await model.load()
/// #expect(model.isLocked)
/// _ = try await fakes.social.unlockFeed(workoutType: .run)  // unscripted: the real service
/// fakes.finish()
/// ```
public final class FakeServices: Sendable {
    /// The stack in memory the fakes pass unscripted calls to: its simulated App Store,
    /// Sign in with Apple, network and world are the test's to drive.
    public let services: TrainServices
    /// The auth fake, over the stack's auth service.
    public let auth: FakeAuthService
    /// The subscription fake, over the stack's subscription service.
    public let subscriptions: FakeSubscriptionService
    /// The social fake, over the stack's social service.
    public let social: FakeSocialFeedService
    /// The paywalls fake, over paywalls that read the subscription fake, in memory.
    public let paywalls: FakePaywallService
    /// The plans fake, over the stack's plans.
    public let plans: FakePlanSyncService
    /// The account fake, over an account service that runs on the other fakes.
    public let account: FakeAccountService
    /// Background sync of ``plans``, run by a session manager while a user is signed in.
    public let backgroundSync: BackgroundSyncManager

    /// Builds the stack and the fakes in front of it.
    /// - Parameters:
    ///   - configuration: The stack's clock, device, products and policies; a manual
    ///     clock at 2026-01-01 by default.
    ///   - user: The user signed in at the start; ``FakeAuthService/sampleUser`` by
    ///     default, nil for nobody.
    public init(
        configuration: TrainServicesConfiguration = TrainServicesConfiguration(context: TrainContext(clock: ManualClock())),
        signedIn user: UserEntity? = FakeAuthService.sampleUser
    ) {
        let services = TrainServices.inMemory(configuration, signedIn: user)
        let clock = configuration.context.clock
        self.services = services
        auth = FakeAuthService(backedBy: services.auth, clock: clock)
        subscriptions = FakeSubscriptionService(backedBy: services.subscriptions, clock: clock)
        social = FakeSocialFeedService(backedBy: services.social, clock: clock)
        plans = FakePlanSyncService(backedBy: services.plans, clock: clock)
        let localPaywalls = LocalPaywallService(
            subscriptions: subscriptions, auth: auth, context: configuration.context, configuration: configuration.paywall)
        paywalls = FakePaywallService(backedBy: localPaywalls, clock: clock)
        let local = LocalAccountService(
            auth: auth, social: social, plans: plans, subscriptions: subscriptions, paywalls: paywalls, context: configuration.context,
            configuration: configuration.account)
        account = FakeAccountService(backedBy: local, auth: auth, clock: clock)
        backgroundSync = BackgroundSyncManager(service: plans, context: configuration.context, configuration: configuration.backgroundSync)
    }

    /// A session manager over the fakes, with ``backgroundSync``, ``paywalls`` and the stack's feature catalog.
    /// - Returns: The manager; call its `start()`.
    @MainActor
    public func makeSessionManager() -> UserSessionManager {
        UserSessionManager(
            auth: auth, subscriptions: subscriptions, social: social, account: account, backgroundSync: backgroundSync,
            features: services.configuration.features, paywalls: paywalls)
    }

    /// Ends a test's use of the fakes: records a test failure for each left-over of
    /// each fake and returns them all.
    /// - Parameter sourceLocation: Where the failures point; the caller's line by default.
    /// - Returns: The left-overs, fake by fake.
    @discardableResult
    public func finish(sourceLocation: SourceLocation = #_sourceLocation) -> [FakeLeftover] {
        auth.finish(sourceLocation: sourceLocation) + subscriptions.finish(sourceLocation: sourceLocation)
            + social.finish(sourceLocation: sourceLocation) + plans.finish(sourceLocation: sourceLocation)
            + account.finish(sourceLocation: sourceLocation) + paywalls.finish(sourceLocation: sourceLocation)
    }
}
