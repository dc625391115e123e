import Foundation
import TrainAccount
import TrainAuth
import TrainCore
import TrainSocial
import TrainSubscription
import TrainSync
import TrainTesting

/// The two storage variants every account rule must hold for.
enum AccountVariant: String, CaseIterable, CustomStringConvertible {
    case inMemory, file
    var description: String { rawValue }
}

/// Every real service on one device, over a simulated Apple, a remote and an App
/// Store, with the account service on top: in memory, or in files of one directory.
final class AccountWorld: Sendable {
    static let appleAudience = "com.example.train"
    static let ada = SimulatedIdentityProvider.Account(
        subject: "001.ada", email: "ada@example.com", fullName: FullName(givenName: "Ada", familyName: "Lovelace"))
    static let grace = SimulatedIdentityProvider.Account(
        subject: "002.grace", email: "grace@example.com", fullName: FullName(givenName: "Grace", familyName: "Hopper"))

    let variant: AccountVariant
    let clock = ManualClock()
    let directory: TemporaryDirectory
    let apple: SimulatedIdentityProvider
    let remote: LocalRemotePlanStore
    let appStore: SimulatedAppStore
    let auth: LocalAuthService
    let media: LocalMediaStore
    let social: LocalSocialFeedService
    let plans: LocalPlanSyncService
    let subscriptions: LocalSubscriptionService
    let account: LocalAccountService

    init(_ variant: AccountVariant = .inMemory, socialPolicy: SocialPolicy = SocialPolicy(), remote override: (any RemotePlanStore)? = nil) throws {
        self.variant = variant
        directory = try TemporaryDirectory()
        apple = SimulatedIdentityProvider(provider: .apple, audience: Self.appleAudience, clock: clock)
        remote = LocalRemotePlanStore(context: TrainContext(clock: clock))
        appStore = SimulatedAppStore(context: TrainContext(clock: clock))
        let device: StorageLocation = variant == .file ? .file(directory.file("train.sqlite")) : .inMemory
        auth = try LocalAuthService(
            storage: device, context: TrainContext(clock: clock, ids: SequentialIDGenerator(prefix: "user-")),
            configuration: AuthConfiguration(
                apple: IdentityProviderConfiguration(authorizer: apple, audience: Self.appleAudience), biometrics: FakeBiometricAuthenticator(),
                policy: AuthPolicy(passwordIterations: 1_000)))
        media = variant == .file ? try LocalMediaStore(storage: .file(directory.file("media"))) : LocalMediaStore()
        social = try LocalSocialFeedService(
            auth: auth, media: media, storage: device, context: TrainContext(clock: clock), configuration: SocialConfiguration(policy: socialPolicy))
        plans = try LocalPlanSyncService(auth: auth, remote: override ?? remote, storage: device, context: TrainContext(clock: clock))
        subscriptions = LocalSubscriptionService(store: appStore, context: appStore.context)
        account = try LocalAccountService(
            auth: auth, social: social, plans: plans, subscriptions: subscriptions, storage: device, context: TrainContext(clock: clock))
    }

    /// Signs `person` in with Apple, binds their App Store token and unlocks their feed.
    @discardableResult
    func signIn(_ person: SimulatedIdentityProvider.Account = AccountWorld.ada) async throws -> UserEntity {
        apple.signIn(as: person)
        let user = try await auth.signInWithApple()
        await subscriptions.setAppAccountToken(try AppAccountToken.forUser(user.id))
        if !social.hasFeedUnlocked() { _ = try await social.unlockFeed(workoutType: .run) }
        return user
    }

    /// Signs in a person of this name with Apple (a new account the first time).
    @discardableResult
    func signIn(named name: String) async throws -> UserEntity {
        try await signIn(SimulatedIdentityProvider.Account(subject: "sub.\(name)", email: "\(name)@example.com", fullName: FullName(givenName: name)))
    }

    /// Deletes `userID`'s account and waits for its purge to finish.
    /// - Returns: The purge's report.
    func deleteAndPurge(_ userID: String) async throws -> AccountDeletionReport {
        try await account.deleteAccount(of: userID)
        return try await account.deletionCompletion(of: userID)
    }

    /// Signs Ada in with a post, a plan, a subscription and a consent, partitions
    /// `remote` and deletes her account: the call returns and the purge stops at the plans.
    /// - Returns: Ada, and the step the purge failed at.
    func deleteAdaWithTheRemoteDown(_ remote: FakeRemotePlanStore) async throws -> (ada: UserEntity, failedAt: AccountDeletionStep?) {
        let ada = try await signIn()
        try await makeBusy()
        let progress = account.deletionProgress()
        remote.partition()
        try await account.deleteAccount(of: ada.id)
        return (ada, await progress.firstValue(where: { $0.phase == .failed })?.step)
    }

    /// Another account service on this world's services and file: the next launch.
    func relaunchedAccount() throws -> LocalAccountService {
        try LocalAccountService(
            auth: auth, social: social, plans: plans, subscriptions: subscriptions, storage: .file(directory.file("train.sqlite")),
            context: TrainContext(clock: clock))
    }

    /// Gives the signed-in user a post, a plan, a Pro subscription and a consent.
    func makeBusy() async throws {
        _ = try await social.createPost(content: "Morning run", workoutType: .run)
        _ = try await plans.createPlan(
            TrainingPlan(name: "10k", startDate: clock.now, endDate: clock.now.addingTimeInterval(86_400 * 28), daysPerWeek: 3))
        _ = try await plans.sync()
        _ = try await subscriptions.purchase("com.train.pro.monthly")
        try await account.accept(.privacyPolicy, version: 1)
    }
}

/// A deletion over the fakes, so each service can be made to fail at any step. The
/// auth fake is strict, its user and schedules the test's to set, and answers the
/// deletion's calls as Apple and the sign-in service would; the social, plans and
/// subscription fakes pass what nobody scripted to a stack in memory, and answer the
/// purge's calls with empty reports: the stack behind them knows nothing of the auth
/// fake's schedules.
struct FakeStack {
    let clock = ManualClock()
    let fakes: FakeServices
    let auth = FakeAuthService(currentUser: FakeAuthService.sampleUser)
    var social: FakeSocialFeedService { fakes.social }
    var plans: FakePlanSyncService { fakes.plans }
    var subscriptions: FakeSubscriptionService { fakes.subscriptions }
    let directory: TemporaryDirectory
    let account: LocalAccountService
    var userID: String { FakeAuthService.sampleUser.id }

    init(file: Bool = false) throws {
        fakes = FakeServices(configuration: TrainServicesConfiguration(context: TrainContext(clock: clock)))
        directory = try TemporaryDirectory()
        let receipt = AccountDeletionReceipt(userID: FakeAuthService.sampleUser.id, providers: [.apple], tokenRevocation: .revoked)
        auth.script(.revokeAppleToken, .returning(.revoked))
        auth.script(.scheduleAccountDeletion, .returning(.revoked))
        auth.script(.cancelScheduledDeletion, .returning(()))
        auth.script(.purgeScheduledAccount, .returning(receipt))
        fakes.social.script(.purgeAccountData, .returning(SocialDeletionReport()))
        fakes.plans.script(.purgeAccountData, .returning(SyncDeletionReport()))
        account = try LocalAccountService(
            auth: auth, social: fakes.social, plans: fakes.plans, subscriptions: fakes.subscriptions,
            storage: file ? .file(directory.file("account.sqlite")) : .inMemory, context: TrainContext(clock: clock))
    }

    /// Another account service over the same fakes and, for a file, the same file: a relaunch.
    func makeAccount(file: Bool) throws -> LocalAccountService {
        try LocalAccountService(
            auth: auth, social: social, plans: plans, subscriptions: subscriptions,
            storage: file ? .file(directory.file("account.sqlite")) : .inMemory, context: TrainContext(clock: clock))
    }

    /// Schedules `userID`'s deletion on the auth fake with its grace period ended.
    func scheduleDuePurge(of userID: String, at date: Date = .distantPast) {
        auth.setScheduledDeletion(of: userID, at: date)
    }

    /// Makes the first call of `step`'s service method fail.
    func failFirstCall(of step: AccountDeletionStep) {
        switch step {
        case .appleRevocation: auth.failCall(1, of: .revokeAppleToken, with: AuthenticationError(.networkError))
        case .socialData: social.failCall(1, of: .purgeAccountData, with: SocialError(.storage))
        case .plans: plans.failCall(1, of: .purgeAccountData, with: SyncError(.remoteUnavailable))
        case .subscription: subscriptions.failCall(2, of: .subscriptionStatuses, with: SubscriptionError(.networkError))
        case .authAccount: auth.failCall(1, of: .purgeScheduledAccount, with: AuthenticationError(.networkError))
        case .localData: break
        }
    }

    /// How many times each step's service method was called.
    func callCounts() -> [AccountDeletionStep: Int] {
        [
            .appleRevocation: auth.calls.count { $0 == .revokeAppleToken() },
            .socialData: social.calls.count { $0.isCall(of: .purgeAccountData) },
            .plans: plans.calls.count { $0.isCall(of: .purgeAccountData) },
            .subscription: subscriptions.calls.count { $0 == .subscriptionStatuses() },
            .authAccount: auth.calls.count { $0.isCall(of: .purgeScheduledAccount) },
        ]
    }
}

extension AppStoreProduct {
    /// The standard products without Pro monthly's free trial: a first period of a month.
    static let standardWithoutTrial = AppStoreProduct.standard.map { product in
        var product = product
        product.introductoryOffer = nil
        return product
    }
}
