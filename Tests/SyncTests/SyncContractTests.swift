import Foundation
import Testing
import TrainAuth
import TrainSync
import TrainTesting

/// TEST-4: LocalRemotePlanStore keeps the RemotePlanStore contract and
/// LocalPlanSyncService keeps the PlanSyncService contract, in memory and on disk.
struct LocalRemoteEnvironment: RemoteStoreContractEnvironment {
    let variant: SyncVariant
    /// Lives as long as the check that holds the environment.
    let directory: TemporaryDirectory

    init(variant: SyncVariant) throws {
        self.variant = variant
        directory = try TemporaryDirectory()
    }

    func makeRemote() async throws -> any RemotePlanStore {
        variant == .file ? try LocalRemotePlanStore(storage: .file(directory.file("remote-\(UUID()).sqlite"))) : LocalRemotePlanStore()
    }
}

struct LocalPlanSyncEnvironment: PlanSyncContractEnvironment {
    let variant: SyncVariant

    func makeDevices(_ count: Int) async throws -> [PlanSyncContractDevice] {
        let world = try SyncWorld(variant)
        return try (0..<count).map { index in
            let device = try world.device("device\(index)")
            device.auth.setCurrentUser(nil)
            return PlanSyncContractDevice(service: device.plans) { user in
                _ = world // the devices' files live as long as the devices
                if let user { device.signIn(user) } else { device.auth.setCurrentUser(nil) }
            }
        }
    }

    func makeDevice(syncingThrough remote: any RemotePlanStore) async throws -> PlanSyncContractDevice {
        let world = try SyncWorld(variant)
        let device = try world.device("device", remote: remote)
        device.auth.setCurrentUser(nil)
        return PlanSyncContractDevice(service: device.plans) { user in
            _ = world
            if let user { device.signIn(user) } else { device.auth.setCurrentUser(nil) }
        }
    }
}

@Suite(.timeLimit(.minutes(1))) struct SyncContractTests {
    @Test("LocalRemotePlanStore keeps the RemotePlanStore contract", arguments: SyncVariant.allCases, RemotePlanStoreContract.checks)
    func remoteContract(variant: SyncVariant, check: RemoteStoreContractCheck) async throws {
        try await check.run(in: try LocalRemoteEnvironment(variant: variant))
    }

    @Test("FakeRemotePlanStore keeps the RemotePlanStore contract", arguments: RemotePlanStoreContract.checks)
    func fakeRemoteContract(check: RemoteStoreContractCheck) async throws {
        try await check.run(in: FakeRemoteEnvironment())
    }

    @Test("LocalPlanSyncService keeps the PlanSyncService contract", arguments: SyncVariant.allCases, PlanSyncServiceContract.checks)
    func planSyncContract(variant: SyncVariant, check: PlanSyncContractCheck) async throws {
        try await check.run(in: LocalPlanSyncEnvironment(variant: variant))
    }
}

struct FakeRemoteEnvironment: RemoteStoreContractEnvironment {
    func makeRemote() async throws -> any RemotePlanStore { FakeRemotePlanStore.inMemory() }
}
