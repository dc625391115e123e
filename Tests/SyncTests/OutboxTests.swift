import Foundation
import Testing
import TrainAuth
import TrainSync
import TrainTesting

@Suite struct OutboxTests {
    @Test("an edit is queued in the same transaction: a relaunch before any sync still uploads it", arguments: SyncVariant.allCases)
    func queuedDurably(_ variant: SyncVariant) async throws {
        let world = try SyncWorld(variant)
        let phone = try world.device("phone")
        let plan = try await phone.plans.createPlan(Fixture.plan())
        let again = variant == .file ? try world.device("phone") : phone
        #expect(try again.plans.pendingCount() == 1)
        #expect(try again.plans.status(ofPlan: plan.id) == .notSynced)
        let report = try await again.plans.sync()
        #expect(report.uploaded == 1)
        #expect(try again.plans.status(ofPlan: plan.id) == .synced)
        #expect(try await world.remotePlans().map(\.name) == [plan.name])
    }

    @Test("an edit made while its upload is in flight stays queued and goes up with the next sync")
    func editDuringUpload() async throws {
        let world = try SyncWorld()
        let remote = InterposedRemote(world.remote)
        let phone = try world.device("phone", remote: remote)
        var plan = try await phone.plans.createPlan(Fixture.plan("First name"))
        let created = plan
        remote.onCall { call, _ in
            if case .write = call {
                var renamed = created
                renamed.name = "Second name"
                _ = try? await phone.plans.updatePlan(renamed)
            }
            return .pass
        }
        #expect(try await phone.plans.uploadPlan(id: plan.id) == .pendingUpload)
        remote.onCall { _, _ in .pass }
        #expect(try phone.plans.status(ofPlan: plan.id) == .pendingUpload)
        #expect(try phone.plans.pendingCount() == 1)
        #expect(try await world.remotePlans().map(\.name) == ["First name"])
        _ = try await phone.plans.sync()
        #expect(try phone.plans.status(ofPlan: plan.id) == .synced)
        #expect(try await world.remotePlans().map(\.name) == ["Second name"])
        plan = try #require(try phone.plans.plan(id: plan.id))
        #expect(plan.name == "Second name")
    }

    @Test("a write the remote commits but whose answer is lost is applied once when retried", arguments: SyncVariant.allCases)
    func ambiguousFailureAppliesOnce(_ variant: SyncVariant) async throws {
        let world = try SyncWorld(variant)
        let remote = InterposedRemote(world.remote)
        let phone = try world.device("phone", remote: remote)
        let plan = try await phone.plans.createPlan(Fixture.plan())
        remote.onCall { call, _ in if case .write = call { .loseAnswer } else { .pass } }
        await #expect(throws: SyncError(.remoteUnavailable)) { try await phone.plans.sync() }
        #expect(try phone.plans.status(ofPlan: plan.id) == .notSynced)
        remote.onCall { _, _ in .pass }
        let relaunched = variant == .file ? try world.device("phone", remote: remote) : phone
        let report = try await relaunched.plans.sync()
        #expect(report.conflicts == 0)
        #expect(try relaunched.plans.status(ofPlan: plan.id) == .synced)
        let feed = try await world.local.changes(in: RemoteScope(userID: "ada", collection: "plans"), after: 0, limit: 10)
        #expect(feed.records.map(\.version) == [1])
    }

    @Test("an edit after a lost answer is uploaded over the device's own earlier write, even when the remote wins conflicts")
    func editAfterLostAnswer() async throws {
        let world = try SyncWorld()
        let remote = InterposedRemote(world.remote)
        let phone = try world.device("phone", conflictPolicy: .remoteWins, remote: remote)
        var plan = try await phone.plans.createPlan(Fixture.plan("Before"))
        remote.onCall { call, _ in if case .write = call { .loseAnswer } else { .pass } }
        await #expect(throws: SyncError(.remoteUnavailable)) { try await phone.plans.sync() }
        plan.name = "After"
        plan = try await phone.plans.updatePlan(plan)
        remote.onCall { _, _ in .pass }
        let report = try await phone.plans.sync()
        #expect(report.conflicts == 0)
        #expect(try phone.plans.status(ofPlan: plan.id) == .synced)
        #expect(try await world.remotePlans().map(\.name) == ["After"])
        #expect(try phone.plans.conflictLog().isEmpty)
    }
}
