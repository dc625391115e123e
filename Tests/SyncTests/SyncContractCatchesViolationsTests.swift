import Foundation
import Testing
import TrainCore
import TrainSync
import TrainTesting

/// A remote that keeps the last write of each record whatever its base, and applies a
/// repeated mutation again: what a naive "set the document" backend does.
final class OverwritingRemote: RemotePlanStore {
    private let records = Locked([UUID: RemoteRecord]())

    func write(_ mutations: [RemoteMutation], in scope: RemoteScope) async throws -> RemoteWriteResponse {
        let results = records.withLock { records in
            mutations.map { mutation -> RemoteWriteResult in
                let version = UInt64(records.count + 1) + (records[mutation.recordID]?.version ?? 0)
                records[mutation.recordID] = RemoteRecord(
                    id: mutation.recordID, version: version, isDeleted: mutation.isDeletion, mutation: mutation.id, document: mutation.document)
                return .applied(version: version)
            }
        }
        return RemoteWriteResponse(results: results, serverTime: Date())
    }

    func changes(in scope: RemoteScope, after cursor: UInt64, limit: Int) async throws -> RemotePage {
        let all = records.withLock { Array($0.values) }.sorted { $0.version < $1.version }
        return RemotePage(records: all, cursor: all.last?.version ?? 0, hasMore: false, serverTime: Date())
    }

    func snapshot(in scope: RemoteScope, after recordID: UUID?, limit: Int) async throws -> RemotePage {
        try await changes(in: scope, after: 0, limit: limit)
    }

    func erase(_ scope: RemoteScope) async throws -> Int {
        records.withLock { records in
            defer { records = [:] }
            return records.count
        }
    }
}

struct PermissiveRemoteEnvironment: RemoteStoreContractEnvironment {
    func makeRemote() async throws -> any RemotePlanStore { OverwritingRemote() }
}

/// Each device Ada's for good, syncing through a remote of its own: a service that
/// syncs nothing between devices and ignores who is signed in.
struct PermissivePlanSyncEnvironment: PlanSyncContractEnvironment {
    func makeDevices(_ count: Int) async throws -> [PlanSyncContractDevice] {
        try (0..<count).map { index in try Self.device("device\(index)") }
    }

    func makeDevice(syncingThrough remote: any RemotePlanStore) async throws -> PlanSyncContractDevice {
        try Self.device("device")
    }

    private static func device(_ name: String) throws -> PlanSyncContractDevice {
        let world = try SyncWorld()
        let device = try world.device(name)
        return PlanSyncContractDevice(service: device.plans) { _ in _ = world }
    }
}

/// A working remote that breaks its contract in one way.
struct MisbehavingRemoteEnvironment: RemoteStoreContractEnvironment {
    let misbehavior: FakeRemotePlanStore.Misbehavior

    func makeRemote() async throws -> any RemotePlanStore {
        let remote = FakeRemotePlanStore.inMemory()
        remote.misbehave(misbehavior)
        return remote
    }
}

@Suite(.timeLimit(.minutes(1))) struct SyncContractCatchesViolationsTests {
    static func violations<Environment>(_ checks: [ContractCheck<Environment>], in environment: Environment) async -> [String] {
        var violated: [String] = []
        for check in checks {
            do {
                try await check.run(in: environment)
            } catch is ContractViolation {
                violated.append(check.name)
            } catch {}
        }
        return violated
    }

    @Test("a remote that overwrites whatever the base and applies repeats again breaks the compare-and-set, once-only and scope checks")
    func catchesRemoteViolations() async throws {
        let violated = await Self.violations(RemotePlanStoreContract.checks, in: PermissiveRemoteEnvironment() as any RemoteStoreContractEnvironment)
        #expect(violated.contains { $0.hasPrefix("a write on the current version applies") })
        #expect(violated.contains { $0.hasPrefix("a mutation delivered twice is applied once") })
        #expect(violated.contains { $0.hasPrefix("scopes are apart") })
        #expect(violated.contains { $0.hasPrefix("a deletion is a tombstone") })
    }

    @Test(
        "a remote whose feed never moves on, whose snapshot repeats, whose records come under other IDs or whose clock is an hour off breaks the check of that promise"
    )
    func catchesMisbehavingRemotes() async throws {
        let cases: [(FakeRemotePlanStore.Misbehavior, String)] = [
            (.endlessChangeFeed, "while more follow, each change-feed page"),
            (.repeatingSnapshot, "a snapshot read page by page lists each record once"),
            (.mismatchedRecordIDs, "each record comes back under its own ID"),
            (.serverTimeOffset(.seconds(3_600)), "every answer tells the time"),
            (.acknowledgesReusedMutationIDs, "a mutation ID used again for another record"),
        ]
        for (misbehavior, check) in cases {
            let violated = await Self.violations(
                RemotePlanStoreContract.checks, in: MisbehavingRemoteEnvironment(misbehavior: misbehavior) as any RemoteStoreContractEnvironment)
            #expect(violated.contains { $0.hasPrefix(check) }, "\(misbehavior) is caught by '\(check)'")
        }
        let honest = await Self.violations(RemotePlanStoreContract.checks, in: FakeRemoteEnvironment() as any RemoteStoreContractEnvironment)
        #expect(honest.isEmpty)
    }

    @Test("a service that syncs nothing between devices and ignores who is signed in breaks the sync, users-apart and signed-out checks")
    func catchesPlanSyncViolations() async throws {
        let violated = await Self.violations(PlanSyncServiceContract.checks, in: PermissivePlanSyncEnvironment() as any PlanSyncContractEnvironment)
        #expect(violated.contains { $0.hasPrefix("a plan made on one device reaches another") })
        #expect(violated.contains { $0.hasPrefix("one user's plans, queued or synced, never reach another user") })
        #expect(violated.contains { $0.hasPrefix("signed out, calls are notSignedIn") })
        #expect(violated.contains { $0.hasPrefix("a page with another user's plan ends the sync foreignRecord") })
        #expect(violated.contains { $0.hasPrefix("a change feed whose cursor never moves on ends the sync stalledCursor") })
    }
}
