import Foundation
import TrainAuth
import TrainCore
import TrainSocial
import TrainSubscription
import TrainSync

/// What a ``TrainServices`` stack is built with.
public struct TrainServicesConfiguration: Sendable {
    /// The one clock of every service and simulation.
    public var clock: any DateClock
    /// The user's time zone, read when it matters: a workout unlocks the feed until
    /// midnight there.
    public var timeZone: @Sendable () -> TimeZone
    /// The app's bundle ID, the audience of the simulated Sign in with Apple.
    public var appleAudience: String
    /// The products on sale in the simulated App Store.
    public var products: [AppStoreProduct]
    /// Which app user has access to what the device's Apple ID bought.
    public var subscriptionAccess: SubscriptionAccessPolicy
    /// Sign-in rules.
    public var authPolicy: AuthPolicy
    /// Feed rules.
    public var socialPolicy: SocialPolicy
    /// The versions of the privacy policy and terms in force.
    public var consentPolicies: ConsentPolicies
    /// When background sync runs.
    public var backgroundSync: BackgroundSyncPolicy

    /// Creates a configuration.
    /// - Parameters:
    ///   - clock: The system clock by default.
    ///   - timeZone: The device's time zone by default.
    ///   - appleAudience: `com.example.train` by default.
    ///   - products: The standard Pro and Premium products by default.
    ///   - subscriptionAccess: StoreKit's behaviour by default: every app user on the
    ///     device has what its Apple ID bought.
    ///   - authPolicy: The default sign-in rules.
    ///   - socialPolicy: The default feed rules.
    ///   - consentPolicies: Version 1 of both documents.
    ///   - backgroundSync: A sync every 5 minutes.
    public init(
        clock: any DateClock = SystemClock(), timeZone: @escaping @Sendable () -> TimeZone = { TimeZone.current },
        appleAudience: String = "com.example.train", products: [AppStoreProduct] = AppStoreProduct.standard,
        subscriptionAccess: SubscriptionAccessPolicy = .appleID, authPolicy: AuthPolicy = AuthPolicy(), socialPolicy: SocialPolicy = SocialPolicy(),
        consentPolicies: ConsentPolicies = ConsentPolicies(),
        backgroundSync: BackgroundSyncPolicy = BackgroundSyncPolicy()
    ) {
        self.clock = clock
        self.timeZone = timeZone
        self.appleAudience = appleAudience
        self.products = products
        self.subscriptionAccess = subscriptionAccess
        self.authPolicy = authPolicy
        self.socialPolicy = socialPolicy
        self.consentPolicies = consentPolicies
        self.backgroundSync = backgroundSync
    }
}

/// The whole TrainKit stack in one call: every service of one device, wired to one
/// another, with the simulations that stand in for Apple and a backend — Sign in with
/// Apple, the App Store and the remote for plans.
///
/// ```swift
/// let services = try TrainServices.files(in: appSupport.appendingPathComponent("Train"))
/// let session = services.makeSessionManager()
/// services.appleID.signIn(as: .init(subject: "001.ada", email: "ada@example.com"))
/// try await session.signInWithApple()
/// ```
///
/// In a directory, the device's data is in `trainkit.sqlite` with photos under
/// `media/`; the simulated App Store keeps its ledger in `appstore.sqlite` and the
/// simulated remote its plans in `remote.sqlite`.
public final class TrainServices: Sendable {
    /// What the stack was built with.
    public let configuration: TrainServicesConfiguration
    /// The simulated Sign in with Apple: choose who signs in with `signIn(as:)`.
    public let appleID: SimulatedIdentityProvider
    /// Accounts and the session.
    public let auth: LocalAuthService
    /// The simulated App Store.
    public let appStore: SimulatedAppStore
    /// Subscriptions and the tier.
    public let subscriptions: LocalSubscriptionService
    /// Photos.
    public let media: LocalMediaStore
    /// The feed, follows, likes and comments.
    public let social: LocalSocialFeedService
    /// The simulated remote that plans sync with.
    public let remote: LocalRemotePlanStore
    /// Plans, offline first.
    public let plans: LocalPlanSyncService
    /// Background sync of the plans, run by the session manager while a user is signed in.
    public let backgroundSync: BackgroundSyncManager
    /// Account deletion, export and consent.
    public let account: LocalAccountService
    private let sampleData = Locked<Task<Void, Never>?>(nil)

    /// Wires the services made for a stack: the account service over the others.
    private init(
        configuration: TrainServicesConfiguration, appleID: SimulatedIdentityProvider, auth: LocalAuthService, appStore: SimulatedAppStore,
        media: LocalMediaStore, social: LocalSocialFeedService, remote: LocalRemotePlanStore, plans: LocalPlanSyncService,
        accountStorage: RecordStore
    ) {
        self.configuration = configuration
        self.appleID = appleID
        self.auth = auth
        self.appStore = appStore
        subscriptions = LocalSubscriptionService(store: appStore, accessPolicy: configuration.subscriptionAccess)
        self.media = media
        self.social = social
        self.remote = remote
        self.plans = plans
        backgroundSync = BackgroundSyncManager(service: plans, policy: configuration.backgroundSync, clock: configuration.clock)
        account = LocalAccountService(
            auth: auth, social: social, plans: plans, subscriptions: subscriptions, store: accountStorage,
            configuration: AccountConfiguration(clock: configuration.clock, policies: configuration.consentPolicies))
    }

    /// The auth configuration of a stack: its clock, the simulated Apple and the policy.
    private static func authConfiguration(_ configuration: TrainServicesConfiguration, apple: SimulatedIdentityProvider) -> AuthConfiguration {
        AuthConfiguration(
            clock: configuration.clock, apple: IdentityProviderConfiguration(authorizer: apple, audience: configuration.appleAudience),
            policy: configuration.authPolicy)
    }

    private static func appleID(_ configuration: TrainServicesConfiguration) -> SimulatedIdentityProvider {
        SimulatedIdentityProvider(provider: .apple, audience: configuration.appleAudience, clock: configuration.clock)
    }

    /// A stack whose data lives in memory: for tests and prototypes. It cannot fail.
    /// - Parameter configuration: Clock, products and policies.
    /// - Returns: The stack, nobody signed in.
    public static func inMemory(configuration: TrainServicesConfiguration = TrainServicesConfiguration()) -> TrainServices {
        let apple = appleID(configuration)
        return inMemory(configuration, apple: apple, auth: LocalAuthService(configuration: authConfiguration(configuration, apple: apple)))
    }

    private static func inMemory(_ configuration: TrainServicesConfiguration, apple: SimulatedIdentityProvider, auth: LocalAuthService)
        -> TrainServices
    {
        let media = LocalMediaStore(auth: auth, clock: configuration.clock)
        let remote = LocalRemotePlanStore(policy: RemotePolicy(clock: configuration.clock))
        let plans = LocalPlanSyncService(auth: auth, remote: remote, configuration: SyncConfiguration(clock: configuration.clock))
        let social = LocalSocialFeedService(
            auth: auth, media: media,
            configuration: SocialConfiguration(clock: configuration.clock, timeZone: configuration.timeZone, policy: configuration.socialPolicy))
        let appStore = SimulatedAppStore(products: configuration.products, clock: configuration.clock)
        return TrainServices(
            configuration: configuration, appleID: apple, auth: auth, appStore: appStore, media: media, social: social, remote: remote,
            plans: plans, accountStorage: .inMemoryOrFailing(AccountRecords.schema))
    }

    /// A stack whose data lives in files in `directory`, created owner-only if it does
    /// not exist: state survives a relaunch, and an interrupted account deletion is
    /// finished by ``finishInterruptedDeletions()``.
    /// - Parameters:
    ///   - directory: The directory.
    ///   - configuration: Clock, products and policies.
    /// - Returns: The stack, with the session remembered from the last launch.
    /// - Throws: `CoreError` or `SubscriptionError` naming a file that cannot be opened.
    public static func files(in directory: URL, configuration: TrainServicesConfiguration = TrainServicesConfiguration()) throws -> TrainServices {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let device = StorageLocation.file(directory.appendingPathComponent("trainkit.sqlite"))
        let apple = appleID(configuration)
        let auth = try LocalAuthService(storage: device, configuration: authConfiguration(configuration, apple: apple))
        let media = try LocalMediaStore(
            directory: directory.appendingPathComponent("media", isDirectory: true), auth: auth, clock: configuration.clock)
        let remote = try LocalRemotePlanStore(
            storage: .file(directory.appendingPathComponent("remote.sqlite")), policy: RemotePolicy(clock: configuration.clock))
        let plans = try LocalPlanSyncService(
            auth: auth, remote: remote, storage: device, configuration: SyncConfiguration(clock: configuration.clock))
        let social = try LocalSocialFeedService(
            auth: auth, storage: device, media: media,
            configuration: SocialConfiguration(clock: configuration.clock, timeZone: configuration.timeZone, policy: configuration.socialPolicy))
        let appStore = try SimulatedAppStore(
            storage: .file(directory.appendingPathComponent("appstore.sqlite")), products: configuration.products, clock: configuration.clock)
        return TrainServices(
            configuration: configuration, appleID: apple, auth: auth, appStore: appStore, media: media, social: social, remote: remote,
            plans: plans, accountStorage: try RecordStore(device, schema: AccountRecords.schema))
    }

    /// A stack in memory for a SwiftUI preview: it cannot fail, and it starts with
    /// `user` signed in and their token bound. Sample data — an unlocked feed with a
    /// post, two plans, accepted policies — is added by ``sampleDataLoaded``, which a preview
    /// shows as it arrives and a test can await.
    /// - Parameters:
    ///   - user: The signed-in user; Ada, with Sign in with Apple, by default. Nil starts signed out.
    ///   - configuration: Clock, products and policies.
    /// - Returns: The stack.
    public static func preview(
        signedIn user: UserEntity? = TrainServices.previewUser, configuration: TrainServicesConfiguration = TrainServicesConfiguration()
    ) -> TrainServices {
        let apple = appleID(configuration)
        let authConfiguration = authConfiguration(configuration, apple: apple)
        let auth = user.map { LocalAuthService(signedIn: $0, configuration: authConfiguration) } ?? LocalAuthService(configuration: authConfiguration)
        let services = inMemory(configuration, apple: apple, auth: auth)
        services.sampleData.withLock { task in
            task = Task { [services] in
                guard let user = services.auth.currentUser else { return }
                await services.subscriptions.setAppAccountToken(try? AppAccountToken.forUser(user.id))
                _ = try? await services.social.unlockFeed(workoutType: .run)
                _ = try? await services.social.createPost(content: "Easy 5k before work.", workoutType: .run)
                let today = services.configuration.clock.now
                for (name, weeks) in [("Spring 10k", 8), ("Strength basics", 6)] {
                    _ = try? await services.plans.createPlan(
                        TrainingPlan(name: name, startDate: today, endDate: today.addingTimeInterval(Double(weeks) * 7 * 86_400), daysPerWeek: 3))
                }
                for document in ConsentDocument.allCases {
                    _ = try? await services.account.accept(document, version: services.configuration.consentPolicies.versions[document] ?? 1)
                }
            }
        }
        return services
    }

    /// The user a preview stack starts with: Ada, signed in with Apple.
    public static let previewUser = UserEntity(
        id: "preview-ada", email: "ada@example.com", displayName: "Ada Lovelace",
        providers: [
            LinkedProvider(
                provider: .apple, subject: "000001.preview", email: "ada@example.com", linkedAt: Date(timeIntervalSince1970: 1_767_225_600))
        ],
        createdAt: Date(timeIntervalSince1970: 1_767_225_600), lastSignInAt: Date(timeIntervalSince1970: 1_767_225_600))

    /// The task adding a preview stack's sample data; nil for other stacks.
    public var sampleDataLoaded: Task<Void, Never>? { sampleData.withLock { $0 } }

    /// A session manager over this stack, with its background sync.
    /// - Returns: The manager; call its `start()`.
    @MainActor
    public func makeSessionManager() -> UserSessionManager {
        UserSessionManager(auth: auth, subscriptions: subscriptions, social: social, account: account, backgroundSync: backgroundSync)
    }

    /// Finishes account deletions that a relaunch cut short; call it on launch.
    /// - Returns: Their reports.
    /// - Throws: ``AccountError``.
    @discardableResult
    public func finishInterruptedDeletions() async throws -> [AccountDeletionReport] {
        try await account.finishInterruptedDeletions()
    }
}
