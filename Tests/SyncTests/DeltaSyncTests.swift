import Foundation
import Testing
import TrainSync
import TrainTesting

@Suite struct DeltaSyncTests {
    @Test("a sync with nothing new makes one remote call, for 1 plan or 300", arguments: [1, 300])
    func noOpSyncIsOneCall(_ count: Int) async throws {
        let world = try SyncWorld()
        let remote = InterposedRemote(world.remote)
        let phone = try world.device("phone", remote: remote)
        for index in 0..<count { _ = try await phone.plans.createPlan(Fixture.plan("Plan \(index)")) }
        _ = try await phone.plans.sync()
        let before = remote.calls.withLock { $0.count }
        let report = try await phone.plans.sync()
        #expect(report.remoteCalls == 1)
        #expect(remote.calls.withLock { $0.count } - before == 1)
    }

    @Test("a download reads only what changed since the cursor, and the cursor survives a relaunch", arguments: SyncVariant.allCases)
    func downloadsOnlyChanges(_ variant: SyncVariant) async throws {
        let world = try SyncWorld(variant)
        let phone = try world.device("phone")
        let remote = InterposedRemote(world.remote)
        let tablet = try world.device("tablet", remote: remote)
        var plans: [TrainingPlan] = []
        for index in 0..<120 { plans.append(try await phone.plans.createPlan(Fixture.plan("Plan \(index)"))) }
        _ = try await phone.plans.sync()
        #expect(try await tablet.plans.sync().downloaded == 120)
        var changed = plans[7]
        changed.notes = "Changed on the phone"
        _ = try await phone.plans.updatePlan(changed)
        _ = try await phone.plans.sync()
        let bytesBefore = remote.bytes.withLock { $0 }
        let relaunched = variant == .file ? try world.device("tablet", remote: remote) : tablet
        let report = try await relaunched.plans.sync()
        #expect(report.downloaded == 1)
        #expect(report.remoteCalls == 1)
        let bytes = remote.bytes.withLock { $0 } - bytesBefore
        #expect(bytes > 0 && bytes < 1_000)
        #expect(try relaunched.plans.plan(id: changed.id)?.notes == "Changed on the phone")
    }

    @Test("downloads come in pages of the page size, each page's cursor stored with its changes")
    func pagedDownload() async throws {
        let world = try SyncWorld()
        let phone = try world.device("phone")
        let remote = InterposedRemote(world.remote)
        let tablet = try world.device("tablet", pageSize: 50, remote: remote)
        for index in 0..<120 { _ = try await phone.plans.createPlan(Fixture.plan("Plan \(index)")) }
        _ = try await phone.plans.sync()
        // The third page fails: the first two pages' plans stay, and the next sync reads only the rest.
        remote.onCall { call, index in call == .changes && index == 3 ? .fail : .pass }
        await #expect(throws: SyncError(.remoteUnavailable)) { try await tablet.plans.sync() }
        #expect(try tablet.plans.plans().count == 100)
        remote.onCall { _, _ in .pass }
        let report = try await tablet.plans.sync()
        #expect(report.downloaded == 20)
        #expect(try tablet.plans.plans().count == 120)
    }
}
