import Foundation
import Testing
import TrainAuth
import TrainTesting

@testable import TrainSync

@Suite struct SyncDeletionTests {
    @Test(
        "deleting a user's plans empties this device and the remote for them, and leaves another user's plans alone", arguments: SyncVariant.allCases)
    func deletesOneUsersPlans(_ variant: SyncVariant) async throws {
        let world = try SyncWorld(variant)
        let grace = try world.device("laptop", user: "grace")
        _ = try await grace.plans.createPlan(Fixture.plan("Grace's plan"))
        _ = try await grace.plans.sync()
        let phone = try world.device("phone", user: "ada")
        let synced = try await phone.plans.createPlan(Fixture.plan("Synced"))
        _ = try await phone.plans.sync()
        _ = try await phone.plans.createPlan(Fixture.plan("Queued"))
        try await phone.plans.deletePlan(id: synced.id)

        let report = try await phone.plans.deleteAccountData()
        #expect(report == SyncDeletionReport(localRecords: 1, remoteRecords: 1), "the queued plan here; the synced one there")
        #expect(try phone.plans.plans().isEmpty)
        #expect(try phone.plans.pendingCount() == 0, "nothing of Ada's is left to upload")
        #expect(try await world.remotePlans(of: "ada").isEmpty)
        #expect(try await world.remotePlans(of: "grace").map(\.name) == ["Grace's plan"])
        _ = try await phone.plans.sync()
        #expect(try await world.remotePlans(of: "ada").isEmpty, "a sync afterwards brings nothing back")
        #expect(try await phone.plans.deleteAccountData() == SyncDeletionReport(), "again, there is nothing left")
    }

    @Test("when the remote cannot be reached, this device's plans are gone and a retry erases the remote's, counting both attempts' records")
    func retryAfterRemoteFailure() async throws {
        let world = try SyncWorld()
        let phone = try world.device("phone", user: "ada")
        _ = try await phone.plans.createPlan(Fixture.plan())
        _ = try await phone.plans.sync()
        let remote = InterposedRemote(world.remote)
        let retrying = try world.device("tablet", user: "ada", remote: remote)
        _ = try await retrying.plans.sync()
        remote.onCall { call, _ in call == .erase ? .fail : .pass }
        await #expect(throws: SyncError(.remoteUnavailable)) { _ = try await retrying.plans.deleteAccountData() }
        #expect(try retrying.plans.plans().isEmpty)
        #expect(try await world.remotePlans(of: "ada").count == 1)
        remote.onCall { _, _ in .pass }
        #expect(
            try await retrying.plans.deleteAccountData() == SyncDeletionReport(localRecords: 1, remoteRecords: 1),
            "the failed attempt's local plan is counted once")
        #expect(try await retrying.plans.deleteAccountData() == SyncDeletionReport(), "a tally is reported once")
        #expect(try await world.remotePlans(of: "ada").isEmpty)
    }

    @Test("another device of the erased user reads a snapshot next and keeps none of the erased plans")
    func otherDeviceResyncs() async throws {
        let world = try SyncWorld()
        let phone = try world.device("phone", user: "ada")
        let tablet = try world.device("tablet", user: "ada")
        _ = try await phone.plans.createPlan(Fixture.plan())
        _ = try await phone.plans.sync()
        _ = try await tablet.plans.sync()
        #expect(try tablet.plans.plans().count == 1)
        _ = try await phone.plans.deleteAccountData()
        _ = try await tablet.plans.sync()
        #expect(try tablet.plans.plans().isEmpty)
    }

    @Test("erasing a scope that is already empty keeps every device's cursor")
    func secondEraseKeepsCursors() async throws {
        let remote = LocalRemotePlanStore()
        let scope = RemoteScope(userID: "ada", collection: "plans")
        let mutation = RemoteMutation(
            id: MutationID(replicaID: "r1", sequence: 1), recordID: UUID(), baseVersion: nil, isDeletion: false, document: Data("{}".utf8))
        _ = try await remote.write([mutation], in: scope)
        #expect(try await remote.erase(scope) == 1)
        let cursor = try await remote.snapshot(in: scope, after: nil, limit: 10).cursor
        #expect(try await remote.erase(scope) == 0)
        #expect(try await remote.changes(in: scope, after: cursor, limit: 10).records.isEmpty, "the cursor read after the first erase still works")
    }

    @Test("a deletion waits for a sync in flight and refuses new ones, so no upload puts a plan back on the remote")
    func waitsForSyncInFlight() async throws {
        let world = try SyncWorld()
        let remote = InterposedRemote(world.remote)
        let phone = try world.device("phone", user: "ada", remote: remote)
        _ = try await phone.plans.createPlan(Fixture.plan())
        let (writing, wrote) = AsyncStream.makeStream(of: Void.self)
        let (released, release) = AsyncStream.makeStream(of: Void.self)
        remote.onCall { call, _ in
            if case .write = call {
                wrote.yield()
                for await _ in released {}
            }
            return .pass
        }
        let plans = phone.plans
        let sync = Task { try await plans.sync() }
        for await _ in writing { break }
        let deletion = Task { try await plans.deleteAccountData() }
        await plans.activity.waitForCount(1) // the deletion waits for the upload
        #expect(!plans.activity.withContext { $0.closing.isEmpty }, "the deletion is waiting for the sync")
        await #expect(throws: SyncError(.notSignedIn)) { try await plans.download() }
        #expect(!remote.calls.withLock { $0.contains(.erase) }, "the remote is not erased while the upload is in flight")

        release.finish()
        _ = try await sync.value
        #expect(try await deletion.value == SyncDeletionReport(localRecords: 1, remoteRecords: 1))
        #expect(try await world.remotePlans(of: "ada").isEmpty)
        #expect(try await plans.download().downloaded == 0, "syncs go on once the deletion has returned")
    }

    @Test("signed out, nothing is deleted")
    func signedOut() async throws {
        let world = try SyncWorld()
        let phone = try world.device("phone", user: "ada")
        _ = try await phone.plans.createPlan(Fixture.plan())
        phone.auth.setCurrentUser(nil)
        await #expect(throws: SyncError(.notSignedIn)) { _ = try await phone.plans.deleteAccountData() }
        phone.signIn("ada")
        #expect(try phone.plans.plans().count == 1)
    }
}
