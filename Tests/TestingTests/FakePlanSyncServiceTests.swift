import Foundation
import Testing
import TrainSync
import TrainTesting

@Suite struct FakePlanSyncServiceTests {
    static func plan(_ name: String) -> TrainingPlan {
        TrainingPlan(name: name, startDate: ManualClock.defaultStart, endDate: ManualClock.defaultStart.addingTimeInterval(86_400), daysPerWeek: 3)
    }

    @Test("a save queues the plan with a status a view can show, and an unscripted sync marks it synced")
    func lenientCalls() async throws {
        let plans = FakePlanSyncService()
        let changes = plans.statusChanges()
        var iterator = changes.makeAsyncIterator()
        let draft = Self.plan("Base")
        let plan = try await plans.createPlan(draft)
        #expect(plan.userID == "user")
        #expect(try plans.status(ofPlan: plan.id) == .notSynced)
        #expect(try await plans.sync().uploaded == 1)
        #expect(try plans.status(ofPlan: plan.id) == .synced)
        #expect(await iterator.next() == SyncStatusChange(recordID: plan.id, status: .notSynced))
        #expect(await iterator.next() == SyncStatusChange(recordID: plan.id, status: .synced))
        var edited = plan
        edited.name = "Edited"
        _ = try await plans.updatePlan(edited)
        #expect(try plans.status(ofPlan: plan.id) == .pendingUpload)
        #expect(
            plans.calls == [.statusChanges, .createPlan(draft), .status(plan.id), .sync, .status(plan.id), .updatePlan(edited), .status(plan.id)])
    }

    @Test("bad input is refused as the real service refuses it")
    func badInput() async throws {
        let plans = FakePlanSyncService(plans: [Self.plan("Kept")])
        var empty = Self.plan("x")
        empty.name = ""
        await #expect(throws: SyncError(.invalidRecord)) { try await plans.createPlan(empty) }
        await #expect(throws: SyncError(.recordNotFound)) { try await plans.updatePlan(Self.plan("Nobody's")) }
        await #expect(throws: SyncError(.recordNotFound)) { try await plans.deletePlan(id: UUID()) }
        let kept = try #require(try plans.plans().first)
        await #expect(throws: SyncError(.noConflict)) { try await plans.resolveConflict(planID: kept.id, keeping: kept) }
        plans.setStatus(.conflict, of: kept.id)
        var chosen = kept
        chosen.notes = "Chosen"
        _ = try await plans.resolveConflict(planID: kept.id, keeping: chosen)
        #expect(try plans.plan(id: kept.id)?.notes == "Chosen")
        #expect(try plans.status(ofPlan: kept.id) == .pendingUpload)
    }

    @Test("a scripted failure leaves the plans queued, and a strict fake fails an unscripted call")
    func scriptedAndStrict() async throws {
        let plans = FakePlanSyncService()
        let plan = try await plans.createPlan(Self.plan("Base"))
        plans.script(.sync, .once(.failure(SyncError(.remoteUnavailable))))
        await #expect(throws: SyncError(.remoteUnavailable)) { try await plans.sync() }
        #expect(try plans.status(ofPlan: plan.id) == .notSynced)
        let strict = FakePlanSyncService(strict: true)
        await withKnownIssue {
            await #expect(throws: FakeError.self) { try await strict.sync() }
        } matching: {
            FakeIssue.isUnscriptedCall($0, "FakePlanSyncService.sync()")
        }
    }

    @Test("the fake's plans stream follows its saves and deletions, and its triggers its edits and a signalled remote change; both are recorded")
    func streams() async throws {
        let first = Self.plan("First")
        let plans = FakePlanSyncService(plans: [first])
        var updates = plans.planUpdates().makeAsyncIterator()
        var triggers = plans.syncTriggers().makeAsyncIterator()
        #expect(await updates.next()?.map(\.name) == ["First"])
        let second = try await plans.createPlan(Self.plan("Second"))
        #expect(await updates.next()?.map(\.id) == [first, second].map(\.id).sorted { $0.uuidString < $1.uuidString })
        #expect(await triggers.next() == .localEdit)
        try await plans.deletePlan(id: first.id)
        #expect(await updates.next()?.map(\.name) == ["Second"])
        #expect(await triggers.next() == .localEdit)
        plans.signalRemoteChange()
        #expect(await triggers.next() == .remoteChange)
        #expect(plans.calls.prefix(2) == [.planUpdates, .syncTriggers])
    }
}
