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
    /// The first device's App Store — the world's, whose devices every other device's is —
    /// photos and auth service.
    private let first = Locked<(appStore: SimulatedAppStore, media: LocalMediaStore, auth: any AuthService)?>(nil)
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

    /// Records the first device's App Store — the world's, of which later devices get
    /// devices — and photo store, which later devices share, and its auth service, whose
    /// user's other devices are signed in to its Apple ID.
    func setFirstDevice(appStore: SimulatedAppStore, media: LocalMediaStore, auth: any AuthService) {
        first.withLock { $0 = (appStore, media, auth) }
    }

    /// The photos, checked against `auth`: the first device's store, or one sharing its photos.
    func media(for auth: any AuthService) -> LocalMediaStore {
        first.withLock { $0?.media.sharing(with: auth) } ?? LocalMediaStore(auth: auth, context: configuration.context)
    }

    /// The App Store of a new device of `userID`: a device of the world's one App Store,
    /// signed in to the Apple ID of the first device when its user is signed in there
    /// (what one device buys, the other has), and to the user's own otherwise.
    func appStore(for userID: String) -> SimulatedAppStore {
        let first = first.withLock { $0 }
        let world = first?.appStore ?? SimulatedAppStore(context: configuration.context, configuration: configuration.appStore)
        let signedInFirst = first?.auth.currentUser.map { $0.id.utf8.elementsEqual(userID.utf8) } ?? false
        return world.device(signedInTo: signedInFirst ? world.appleID : .standard(forUser: userID))
    }

    /// The next device's number, from 1.
    func nextDeviceNumber() -> Int {
        devices.withLock { count in
            count += 1
            return count
        }
    }
}
