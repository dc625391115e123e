import Foundation
import Testing
import TrainAuth
import TrainSync
import TrainTesting

@Suite struct PlanEditingTests {
    @Test("a plan is saved for the signed-in user, queued, and read back", arguments: SyncVariant.allCases)
    func createAndRead(_ variant: SyncVariant) async throws {
        let world = try SyncWorld(variant)
        let phone = try world.device("phone")
        let plan = try await phone.plans.createPlan(Fixture.plan("  Marathon base  "))
        #expect(plan.userID == "ada")
        #expect(plan.name == "Marathon base")
        #expect(try phone.plans.plans() == [plan])
        #expect(try phone.plans.status(ofPlan: plan.id) == .notSynced)
        #expect(try phone.plans.pendingCount() == 1)
    }

    @Test("bad input gets a typed error and changes nothing: empty name, end before start, 0 or 8 days, unknown ID, another user's plan, signed out")
    func badInput() async throws {
        let world = try SyncWorld()
        let phone = try world.device("phone")
        let kept = try await phone.plans.createPlan(Fixture.plan())
        _ = try await phone.plans.sync()
        let before = try phone.plans.plans()

        var empty = kept
        empty.name = " \n "
        await #expect(throws: SyncError(.invalidRecord)) { try await phone.plans.updatePlan(empty) }
        var backwards = kept
        backwards.endDate = kept.startDate.addingTimeInterval(-86_400)
        await #expect(throws: SyncError(.invalidRecord)) { try await phone.plans.updatePlan(backwards) }
        for days in [0, 8, -1, Int.max] {
            var wrong = kept
            wrong.daysPerWeek = days
            await #expect(throws: SyncError(.invalidRecord)) { try await phone.plans.updatePlan(wrong) }
        }
        var nul = kept
        nul.name = "Plan\u{0}"
        await #expect(throws: SyncError(.invalidRecord)) { try await phone.plans.updatePlan(nul) }
        await #expect(throws: SyncError(.recordNotFound)) { try await phone.plans.updatePlan(Fixture.plan()) }
        await #expect(throws: SyncError(.recordNotFound)) { try await phone.plans.deletePlan(id: UUID()) }
        await #expect(throws: SyncError(.recordExists)) { try await phone.plans.createPlan(kept) }
        var theirs = kept
        theirs.userID = "grace"
        await #expect(throws: SyncError(.notAuthorized)) { try await phone.plans.updatePlan(theirs) }

        phone.signIn("grace")
        #expect(try phone.plans.plans().isEmpty)
        var stolen = kept
        stolen.userID = ""
        await #expect(throws: SyncError(.recordNotFound)) { try await phone.plans.updatePlan(stolen) }
        await #expect(throws: SyncError(.recordNotFound)) { try await phone.plans.deletePlan(id: kept.id) }

        phone.auth.setCurrentUser(nil)
        await #expect(throws: SyncError(.notSignedIn)) { try await phone.plans.createPlan(Fixture.plan()) }
        await #expect(throws: SyncError(.notSignedIn)) { try await phone.plans.sync() }
        #expect(throws: SyncError(.notSignedIn)) { try phone.plans.plans() }

        phone.signIn("ada")
        #expect(try phone.plans.plans() == before)
        #expect(try phone.plans.pendingCount() == 0)
        #expect(try phone.plans.status(ofPlan: kept.id) == .synced)
    }

    @Test("saving a plan unchanged queues nothing")
    func unchangedSaveQueuesNothing() async throws {
        let world = try SyncWorld()
        let phone = try world.device("phone")
        let plan = try await phone.plans.createPlan(Fixture.plan())
        _ = try await phone.plans.sync()
        _ = try await phone.plans.updatePlan(plan)
        #expect(try phone.plans.pendingCount() == 0)
        #expect(try phone.plans.status(ofPlan: plan.id) == .synced)
    }

    @Test("the status stream reports a plan queued, then synced, then deleted")
    func statusStream() async throws {
        let world = try SyncWorld()
        let phone = try world.device("phone")
        let stream = phone.plans.statusChanges()
        var iterator = stream.makeAsyncIterator()
        let plan = try await phone.plans.createPlan(Fixture.plan())
        _ = try await phone.plans.sync()
        try await phone.plans.deletePlan(id: plan.id)
        _ = try await phone.plans.sync()
        var seen: [SyncStatus?] = []
        while seen.count < 4, let change = await iterator.next() {
            #expect(change.recordID == plan.id)
            seen.append(change.status)
        }
        #expect(seen == [.notSynced, .synced, .pendingUpload, nil])
    }
}
