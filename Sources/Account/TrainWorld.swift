import Foundation
import TrainAuth
import TrainCore
import TrainSocial
import TrainSubscription
import TrainSync

/// What the devices of one stack share, as a backend and Apple would: the accounts,
/// the feed, the photos, the remote, and each Apple ID's App Store purchases.
final class TrainWorld: Sendable {
    /// Where the accounts are.
    enum Accounts: Sendable {
        /// TrainKit's accounts, in a store every device's auth service opens.
        case local(RecordStore)
        /// The app's own auth service, whose accounts the stack cannot reach.
        case app(any AuthService)
    }

    /// The session key of a stack's first device, the one a file of an earlier version holds.
    static let firstSessionKey = "current"

    let configuration: TrainServicesConfiguration
    /// The directory of a stack in files; nil in memory.
    let directory: URL?
    let accounts: Accounts
    let socialStore: RecordStore
    let remote: any RemotePlanStore
    /// The mail every device's auth service sends: reset, verification and sign-in codes.
    let mailbox = SimulatedMailbox()
    /// The first device's App Store, photos and auth service.
    private let first = Locked<(appStore: SimulatedAppStore, media: LocalMediaStore, auth: any AuthService)?>(nil)
    /// The App Stores of the users other than the first device's, by user ID.
    private let appStores = Locked<[String: SimulatedAppStore]>([:])
    private let devices = Locked(0)

    /// A world in memory.
    init(inMemory configuration: TrainServicesConfiguration) {
        self.configuration = configuration
        directory = nil
        let accounts = configuration.auth.map(Accounts.app) ?? .local(.inMemoryOrFailing(LocalAuthService.recordSchema))
        self.accounts = accounts
        socialStore = .inMemoryOrFailing(LocalSocialFeedService.recordSchema)
        remote = configuration.remote ?? LocalRemotePlanStore(context: configuration.context, configuration: Self.remoteConfiguration(accounts))
    }

    /// A world in `directory`: the accounts and the feed in `trainkit.sqlite`, the
    /// remote in `remote.sqlite`.
    init(directory: URL, configuration: TrainServicesConfiguration) throws {
        self.configuration = configuration
        self.directory = directory
        let device = StorageLocation.file(directory.appendingPathComponent("trainkit.sqlite"))
        let accounts = try configuration.auth.map(Accounts.app) ?? .local(RecordStore(device, schema: LocalAuthService.recordSchema))
        self.accounts = accounts
        socialStore = try RecordStore(device, schema: LocalSocialFeedService.recordSchema)
        remote =
            try configuration.remote
            ?? LocalRemotePlanStore(
                storage: .file(directory.appendingPathComponent("remote.sqlite")), context: configuration.context,
                configuration: Self.remoteConfiguration(accounts))
    }

    /// The simulated remote's configuration: the writes of a user whose deletion was
    /// asked for, or whose account is gone, refused as a backend would.
    private static func remoteConfiguration(_ accounts: Accounts) -> RemoteConfiguration {
        var configuration = RemoteConfiguration()
        if case .local(let store) = accounts {
            configuration.acceptsWrites = { LocalAuthService.acceptsWrites(of: $0, in: store) }
        }
        return configuration
    }

    /// Records the first device's App Store and photo store, which later devices share,
    /// and its auth service, whose user shares its App Store.
    func setFirstDevice(appStore: SimulatedAppStore, media: LocalMediaStore, auth: any AuthService) {
        first.withLock { $0 = (appStore, media, auth) }
    }

    /// The photos, checked against `auth`: the first device's store, or one sharing its photos.
    func media(for auth: any AuthService) -> LocalMediaStore {
        first.withLock { $0?.media.sharing(with: auth) } ?? LocalMediaStore(auth: auth, context: configuration.context)
    }

    /// The App Store a device of `userID` buys from: the first device's when its user
    /// is signed in there (one Apple ID, so what one device buys the other has);
    /// otherwise the user's own, in memory, made on first use.
    func appStore(for userID: String) -> SimulatedAppStore {
        if let (shared, _, auth) = first.withLock({ $0 }), auth.currentUser.map({ $0.id.utf8.elementsEqual(userID.utf8) }) ?? false {
            return shared
        }
        return appStores.withLock { stores in
            if let store = stores[userID] { return store }
            let store = SimulatedAppStore(context: configuration.context, configuration: configuration.appStore)
            stores[userID] = store
            return store
        }
    }

    /// The next device's number, from 1.
    func nextDeviceNumber() -> Int {
        devices.withLock { count in
            count += 1
            return count
        }
    }
}
