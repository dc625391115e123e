import Foundation
import TrainAuth
import TrainCore
import TrainSync
import TrainTesting

enum SyncVariant: String, CaseIterable, CustomStringConvertible {
    case inMemory, file
    var description: String { rawValue }
}

/// One remote and the devices that sync through it, each with its own clock, auth
/// and store, all on manual clocks.
final class SyncWorld: Sendable {
    let variant: SyncVariant
    let remoteClock = ManualClock()
    let directory: TemporaryDirectory
    let remote: any RemotePlanStore
    let local: LocalRemotePlanStore
    private let devices = Locked([Device]())

    init(
        _ variant: SyncVariant = .inMemory, configuration: RemoteConfiguration = RemoteConfiguration(),
        wrap: (LocalRemotePlanStore) -> any RemotePlanStore = { $0 }
    ) throws {
        self.variant = variant
        directory = try TemporaryDirectory()
        local =
            variant == .file
            ? try LocalRemotePlanStore(
                storage: .file(directory.file("remote.sqlite")), context: TrainContext(clock: remoteClock), configuration: configuration)
            : LocalRemotePlanStore(context: TrainContext(clock: remoteClock), configuration: configuration)
        remote = wrap(local)
    }

    /// A device signed in as `user`, whose clock is `skew` seconds off the remote's.
    func device(
        _ name: String, user: String = "ada", skew: TimeInterval = 0, conflictPolicy: ConflictPolicy<TrainingPlan> = .fieldMerge,
        deletePolicy: DeleteConflictPolicy = .deleteWins, batchSize: Int = 500, pageSize: Int = 500, remote: (any RemotePlanStore)? = nil,
        ids: (any IDGenerator)? = nil, file: URL? = nil
    ) throws -> Device {
        let clock = ManualClock(start: remoteClock.now.addingTimeInterval(skew))
        let device = try Device(
            name: name, world: self, clock: clock, ids: ids ?? SequentialIDGenerator(prefix: "\(name)-"),
            configuration: SyncConfiguration(conflictPolicy: conflictPolicy, deletePolicy: deletePolicy, batchSize: batchSize, pageSize: pageSize),
            remote: remote ?? self.remote, file: file)
        device.auth.setCurrentUser(UserEntity(id: user, displayName: user, createdAt: remoteClock.now, lastSignInAt: remoteClock.now))
        devices.withLock { $0.append(device) }
        return device
    }

    /// Moves the remote's clock and every device's by `seconds`.
    func advance(by seconds: TimeInterval) {
        remoteClock.advance(by: .seconds(seconds))
        for device in devices.withLock({ $0 }) { device.clock.advance(by: .seconds(seconds)) }
    }

    /// The plans the remote holds for `user`, as a new device signed in as them downloads them.
    func remotePlans(of user: String = "ada", from remote: (any RemotePlanStore)? = nil) async throws -> [TrainingPlan] {
        let auth = FakeAuthService()
        auth.setCurrentUser(UserEntity(id: user, displayName: user, createdAt: remoteClock.now, lastSignInAt: remoteClock.now))
        let probe = LocalPlanSyncService(auth: auth, remote: remote ?? local, context: TrainContext(clock: remoteClock))
        try await probe.download()
        return try probe.plans()
    }
}

/// A simulated device: its clock, its signed-in user and its plans.
final class Device: Sendable {
    let name: String
    let clock: ManualClock
    let auth = FakeAuthService()
    let plans: LocalPlanSyncService
    let file: URL

    init(
        name: String, world: SyncWorld, clock: ManualClock, ids: any IDGenerator, configuration: SyncConfiguration<TrainingPlan>,
        remote: any RemotePlanStore, file: URL? = nil
    ) throws {
        self.name = name
        self.clock = clock
        self.file = file ?? world.directory.file("\(name).sqlite")
        let context = TrainContext(clock: clock, ids: ids)
        plans =
            world.variant == .file
            ? try LocalPlanSyncService(auth: auth, remote: remote, storage: .file(self.file), context: context, configuration: configuration)
            : LocalPlanSyncService(auth: auth, remote: remote, context: context, configuration: configuration)
    }

    func signIn(_ user: String) {
        auth.setCurrentUser(UserEntity(id: user, displayName: user, createdAt: clock.now, lastSignInAt: clock.now))
    }
}

enum Fixture {
    static let start = Date(timeIntervalSince1970: 1_767_571_200) // 2026-01-05

    static func plan(_ name: String = "10k in spring", id: UUID = UUID(), notes: String = "", days: Int = 3) -> TrainingPlan {
        TrainingPlan(id: id, name: name, notes: notes, startDate: start, endDate: start.addingTimeInterval(8 * 7 * 86_400), daysPerWeek: days)
    }
}
