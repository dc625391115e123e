import Foundation
import Testing
import TrainAuth
import TrainSync
import TrainTesting

@Suite struct FakePlanSyncServiceTests {
    static func plan(_ name: String) -> TrainingPlan {
        TrainingPlan(name: name, startDate: ManualClock.defaultStart, endDate: ManualClock.defaultStart.addingTimeInterval(86_400), daysPerWeek: 3)
    }

    @Test("a scripted save queues the plan with a status a view can show, and a scripted sync marks it synced")
    func scriptedCalls() async throws {
        let plans = FakePlanSyncService()
        let changes = plans.statusChanges()
        var iterator = changes.makeAsyncIterator()
        let draft = Self.plan("Base")
        plans.script(.createPlan, .returning(draft))
        plans.script(.sync, .returning(SyncReport()))
        let plan = try await plans.createPlan(draft)
        #expect(try plans.status(ofPlan: plan.id) == .notSynced)
        _ = try await plans.sync()
        #expect(try plans.status(ofPlan: plan.id) == .synced)
        #expect(await iterator.next() == SyncStatusChange(recordID: plan.id, status: .notSynced))
        #expect(await iterator.next() == SyncStatusChange(recordID: plan.id, status: .synced))
        var edited = plan
        edited.name = "Edited"
        plans.script(.updatePlan, .returning(edited))
        _ = try await plans.updatePlan(edited)
        #expect(try plans.status(ofPlan: plan.id) == .pendingUpload)
        #expect(
            plans.calls == [.statusChanges(), .createPlan(draft), .status(plan.id), .sync(), .status(plan.id), .updatePlan(edited), .status(plan.id)])
    }

    @Test("a scripted failure leaves the plans queued, and an unscripted call fails the test")
    func scriptedFailureAndStrict() async throws {
        let plans = FakePlanSyncService()
        plans.script(.createPlan, .once(.success(Self.plan("Base"))))
        let plan = try await plans.createPlan(Self.plan("Base"))
        plans.script(.sync, .once(.failure(SyncError(.remoteUnavailable))))
        await #expect(throws: SyncError(.remoteUnavailable)) { try await plans.sync() }
        #expect(try plans.status(ofPlan: plan.id) == .notSynced)
        await withKnownIssue {
            await #expect(throws: FakeError.self) { try await plans.sync() }
        } matching: {
            FakeIssue.isUnscriptedCall($0, "FakePlanSyncService.sync()")
        }
    }

    @Test("over a LocalPlanSyncService, bad input is refused by the service itself and its plans are what the fake shows")
    func backedByService() async throws {
        let auth = FakeAuthService(currentUser: FakeAuthService.sampleUser)
        let service = LocalPlanSyncService(auth: auth, remote: LocalRemotePlanStore())
        let plans = FakePlanSyncService(backedBy: service)
        var empty = Self.plan("x")
        empty.name = ""
        await #expect(throws: SyncError(.invalidRecord)) { try await plans.createPlan(empty) }
        await #expect(throws: SyncError(.recordNotFound)) { try await plans.deletePlan(id: UUID()) }
        let kept = try await plans.createPlan(Self.plan("Kept"))
        #expect(kept.userID == FakeAuthService.sampleUser.id)
        await #expect(throws: SyncError(.noConflict)) { try await plans.resolveConflict(planID: kept.id, keeping: kept) }
        _ = try await plans.sync()
        #expect(try plans.plans() == service.plans() && plans.status(ofPlan: kept.id) == .synced)
    }

    @Test("a strict fake's plans stream follows its scripted saves and deletions, and its triggers its edits and a signalled remote change")
    func streams() async throws {
        let first = Self.plan("First")
        let plans = FakePlanSyncService(plans: [first])
        var updates = plans.planUpdates().makeAsyncIterator()
        var triggers = plans.syncTriggers().makeAsyncIterator()
        #expect(await updates.next()?.map(\.name) == ["First"])
        let second = Self.plan("Second")
        plans.script(.createPlan, .returning(second))
        plans.script(.deletePlan, .succeeding)
        _ = try await plans.createPlan(second)
        #expect(await updates.next()?.map(\.id) == [first, second].map(\.id).sorted { $0.uuidString < $1.uuidString })
        #expect(await triggers.next() == .localEdit)
        try await plans.deletePlan(id: first.id)
        #expect(await updates.next()?.map(\.name) == ["Second"])
        #expect(await triggers.next() == .localEdit)
        plans.signalRemoteChange()
        #expect(await triggers.next() == .remoteChange)
        #expect(plans.calls.prefix(2) == [.planUpdates(), .syncTriggers()])
    }
}
