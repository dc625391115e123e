import Foundation
import TrainAuth
import TrainCore
import TrainSocial
import TrainSubscription
import TrainSync

/// The whole TrainKit stack in one call: every service of one device, wired to one
/// another, with the simulations that stand in for Apple and a backend — Sign in with
/// Apple, the App Store, the device's biometrics and network, and the remote for plans.
///
/// ```swift
/// let services = try TrainServices.files(in: appSupport.appendingPathComponent("Train"))
/// let session = services.makeSessionManager()
/// services.appleID.signIn(as: .init(subject: "001.ada", email: "ada@example.com"))
/// try await session.signInWithApple()
/// ```
///
/// A stack is one device in a simulated world. ``addUser(named:email:)`` adds a
/// friend to that world and ``makeDevice(for:)`` gives a user another device in it:
/// every device shares the accounts, the feed, the photos and the remote, and keeps its
/// own session, plans, network and background sync.
///
/// In a directory, the device's data is in `trainkit.sqlite` with photos under
/// `media/`; the simulated App Store keeps its ledger in `appstore.sqlite`, the
/// simulated remote its plans in `remote.sqlite`, and each further device its own data
/// under `devices/`.
public final class TrainServices: Sendable {
    /// What the stack was built with.
    public let configuration: TrainServicesConfiguration
    /// The simulated Sign in with Apple of this device: choose who signs in with `signIn(as:)`.
    public let appleID: SimulatedIdentityProvider
    /// Accounts and the session: TrainKit's, or the app's own from the configuration.
    public let auth: any AuthService
    /// The simulated App Store this device buys from.
    public let appStore: SimulatedAppStore
    /// Subscriptions and the tier.
    public let subscriptions: LocalSubscriptionService
    /// Paywalls as data over ``subscriptions``: put a configuration in force with
    /// `replaceConfiguration(_:)`; the session manager tells it who is signed in.
    public let paywalls: LocalPaywallService
    /// Photos.
    public let media: LocalMediaStore
    /// The simulated mail of this stack's world: read the password reset, verification
    /// and sign-in codes the auth service sends, with `lastCode(for:_:)`.
    public var mailbox: SimulatedMailbox { world.mailbox }
    /// The feed, follows, likes and comments.
    public let social: LocalSocialFeedService
    /// The remote that plans sync with: the simulated one, or the app's own.
    public let remote: any RemotePlanStore
    /// This device's network to the remote: set its `conditions` to take the device
    /// offline, make the remote fail, or slow it down on the clock.
    public let network: SimulatedNetwork
    /// Plans, offline first.
    public let plans: LocalPlanSyncService
    /// Background sync of the plans, run by the session manager while a user is signed in.
    public let backgroundSync: BackgroundSyncManager
    /// Account deletion, export and consent.
    public let account: LocalAccountService
    /// What the devices of this stack's world share.
    let world: TrainWorld
    /// Every store of this device's data — the feed, TrainKit's accounts when the stack
    /// keeps them, the plans and the account service's own — for tools that compare a
    /// device's whole data before and after an operation, as the benchmark does.
    package let deviceStores: [RecordStore]
    private let sampleData = Locked<Task<Void, Never>?>(nil)

    /// Wires one device's services over the world: the account service over the others.
    init(
        world: TrainWorld, appleID: SimulatedIdentityProvider, auth: any AuthService, appStore: SimulatedAppStore, media: LocalMediaStore,
        deviceStore: DeviceStores
    ) {
        let configuration = world.configuration
        self.world = world
        self.configuration = configuration
        var stores = [world.socialStore, deviceStore.plans, deviceStore.account, deviceStore.paywalls]
        if case .local(let accounts) = world.accounts { stores.append(accounts) }
        deviceStores = stores
        self.appleID = appleID
        self.auth = auth
        self.appStore = appStore
        subscriptions = LocalSubscriptionService(
            store: appStore, auth: auth, context: configuration.context, configuration: configuration.subscription)
        paywalls = LocalPaywallService(
            subscriptions: subscriptions, auth: auth, store: deviceStore.paywalls, context: configuration.context,
            configuration: configuration.paywall)
        self.media = media
        let social = LocalSocialFeedService(
            auth: auth, store: world.socialStore, media: media, context: configuration.context, configuration: configuration.social)
        self.social = social
        // The profile shows each change of the account before the call that made it returns.
        (auth as? LocalAuthService)?.followAccount { [weak social] user in social?.matchProfile(to: user, creatingOnly: false) }
        remote = world.remote
        network = SimulatedNetwork(remote: world.remote, conditions: configuration.network, clock: configuration.context.clock)
        plans = LocalPlanSyncService(
            auth: auth, remote: network, store: deviceStore.plans, context: configuration.context, configuration: SyncConfiguration())
        backgroundSync = BackgroundSyncManager(service: plans, context: configuration.context, configuration: configuration.backgroundSync)
        account = LocalAccountService(
            auth: auth, social: social, plans: plans, subscriptions: subscriptions, paywalls: paywalls, store: deviceStore.account,
            context: configuration.context, configuration: configuration.account)
    }

    /// A stack whose data lives in memory: for tests and prototypes. It cannot fail.
    /// - Parameter configuration: Clock, device, products, policies and the app's own parts.
    /// - Returns: The stack, nobody signed in.
    public static func inMemory(configuration: TrainServicesConfiguration = TrainServicesConfiguration()) -> TrainServices {
        inMemory(configuration, signedIn: nil)
    }

    /// A stack in memory, with `user`'s account signed in when one is given, its photos
    /// in `photos` when given: a store made first, whose URLs the user's account may show.
    package static func inMemory(
        _ configuration: TrainServicesConfiguration, signedIn user: UserEntity?, photos: LocalMediaStore? = nil
    ) -> TrainServices {
        let world = TrainWorld(inMemory: configuration)
        let apple = configuration.makeAppleID()
        let auth: any AuthService
        switch world.accounts {
        case .app(let own):
            auth = own
        case .local(let accounts):
            if let user { try? LocalAuthService.insert(user, into: accounts) }
            let authConfiguration = configuration.authConfiguration(apple: apple, mailbox: world.mailbox)
            // A user with Apple sign-in signed in just now: the simulated Apple ID is theirs,
            // and their deletion can revoke their token.
            let appleCode = user.flatMap { user in
                user.providers.first { $0.provider == .apple }.map { link in
                    apple.authorizationCode(signingIn: SimulatedIdentityProvider.Account(subject: link.subject, email: link.email ?? user.email))
                }
            }
            // A user the store refuses (an empty ID) leaves the stack signed out; an
            // in-memory store that cannot be read, which does not happen, leaves it alone.
            auth =
                (try? LocalAuthService(
                    store: accounts, sessionKey: TrainWorld.firstSessionKey, signingIn: user?.id, appleAuthorizationCode: appleCode,
                    context: configuration.context, configuration: authConfiguration))
                ?? (try? LocalAuthService(
                    store: accounts, sessionKey: TrainWorld.firstSessionKey, signingIn: nil, context: configuration.context,
                    configuration: authConfiguration))
                ?? LocalAuthService(context: configuration.context, configuration: authConfiguration)
        }
        let media = photos?.sharing(with: auth) ?? LocalMediaStore(auth: auth, context: configuration.context)
        let appStore = SimulatedAppStore(context: configuration.context, configuration: configuration.appStore)
        world.setFirstDevice(appStore: appStore, media: media, auth: auth)
        return TrainServices(
            world: world, appleID: apple, auth: auth, appStore: appStore, media: media,
            deviceStore: DeviceStores())
    }

    /// A stack whose data lives in files in `directory`, created owner-only if it does
    /// not exist: state survives a relaunch, and the purge of an account deletion a
    /// relaunch cut short goes on by itself in the background.
    /// - Parameters:
    ///   - directory: The directory.
    ///   - configuration: Clock, device, products, policies and the app's own parts.
    /// - Returns: The stack, with the session remembered from the last launch.
    /// - Throws: `CoreError` or `SubscriptionError` naming a file that cannot be opened.
    public static func files(in directory: URL, configuration: TrainServicesConfiguration = TrainServicesConfiguration()) throws -> TrainServices {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let device = StorageLocation.file(directory.appendingPathComponent("trainkit.sqlite"))
        let world = try TrainWorld(directory: directory, configuration: configuration)
        let apple = configuration.makeAppleID()
        let auth: any AuthService
        switch world.accounts {
        case .app(let own):
            auth = own
        case .local(let accounts):
            auth = try LocalAuthService(
                store: accounts, sessionKey: TrainWorld.firstSessionKey, signingIn: nil, context: configuration.context,
                configuration: configuration.authConfiguration(apple: apple, mailbox: world.mailbox))
        }
        let media = try LocalMediaStore(
            auth: auth, storage: .file(directory.appendingPathComponent("media", isDirectory: true)), context: configuration.context)
        let appStore = try SimulatedAppStore(
            storage: .file(directory.appendingPathComponent("appstore.sqlite")), context: configuration.context,
            configuration: configuration.appStore)
        world.setFirstDevice(appStore: appStore, media: media, auth: auth)
        return TrainServices(
            world: world, appleID: apple, auth: auth, appStore: appStore, media: media,
            deviceStore: try DeviceStores(device))
    }

    /// A session manager over this stack, with its background sync, feature catalog and paywalls.
    /// - Returns: The manager; call its `start()`.
    @MainActor
    public func makeSessionManager() -> UserSessionManager {
        UserSessionManager(
            auth: auth, subscriptions: subscriptions, social: social, account: account, backgroundSync: backgroundSync,
            features: configuration.features, media: media, paywalls: paywalls)
    }

    /// The task adding a preview stack's sample data; nil for other stacks.
    public var sampleDataLoaded: Task<Void, Never>? { sampleData.withLock { $0 } }

    /// Starts adding sample data with `load`, once.
    func loadSampleData(_ load: @escaping @Sendable (TrainServices) async -> Void) {
        sampleData.withLock { task in
            task = Task { [self] in await load(self) }
        }
    }
}

/// The stores of one device's own data: its plans, its account service's and its paywalls'.
struct DeviceStores {
    let plans: RecordStore
    let account: RecordStore
    let paywalls: RecordStore

    /// Stores in memory.
    init() {
        plans = .inMemoryOrFailing(LocalPlanSyncService.recordSchema)
        account = .inMemoryOrFailing(AccountRecords.schema)
        paywalls = .inMemoryOrFailing(LocalPaywallService.recordSchema)
    }

    /// Stores in `file`, which they share.
    init(_ file: StorageLocation) throws {
        plans = try RecordStore(file, schema: LocalPlanSyncService.recordSchema)
        account = try RecordStore(file, schema: AccountRecords.schema)
        paywalls = try RecordStore(file, schema: LocalPaywallService.recordSchema)
    }
}
