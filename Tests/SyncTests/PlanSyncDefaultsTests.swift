import Foundation
import Testing
import TrainSync
import TrainTesting

/// A conformance of an app's own, written before the plans stream and the sync
/// triggers existed: it gets them from the protocol's defaults.
private struct ForwardingPlans: PlanSyncService {
    let base: LocalPlanSyncService
    func plans() throws -> [TrainingPlan] { try base.plans() }
    func plan(id: UUID) throws -> TrainingPlan? { try base.plan(id: id) }
    func createPlan(_ plan: TrainingPlan) async throws -> TrainingPlan { try await base.createPlan(plan) }
    func updatePlan(_ plan: TrainingPlan) async throws -> TrainingPlan { try await base.updatePlan(plan) }
    func deletePlan(id: UUID) async throws { try await base.deletePlan(id: id) }
    func status(ofPlan id: UUID) throws -> SyncStatus? { try base.status(ofPlan: id) }
    func statusChanges() -> AsyncStream<SyncStatusChange> { base.statusChanges() }
    @discardableResult func sync() async throws -> SyncReport { try await base.sync() }
    func uploadPlan(id: UUID) async throws -> SyncStatus? { try await base.uploadPlan(id: id) }
    func downloadPlans() async throws -> SyncReport { try await base.downloadPlans() }
    func resolveConflict(planID id: UUID, keeping plan: TrainingPlan) async throws -> TrainingPlan {
        try await base.resolveConflict(planID: id, keeping: plan)
    }
    func conflictLog() throws -> [SyncConflictRecord] { try base.conflictLog() }
    func deadLetters() throws -> [DeadLetter] { try base.deadLetters() }
    func deleteAccountData() async throws -> SyncDeletionReport { try await base.deleteAccountData() }
    func purgeAccountData(of userID: String) async throws -> SyncDeletionReport { try await base.purgeAccountData(of: userID) }
}

@Suite struct PlanSyncDefaultsTests {
    @Test("a conformance without the plans stream and the triggers of its own gets them from its status changes")
    func defaults() async throws {
        let world = try SyncWorld()
        let phone = try world.device("phone")
        let plans = ForwardingPlans(base: phone.plans)
        var updates = plans.planUpdates().makeAsyncIterator()
        var triggers = plans.syncTriggers().makeAsyncIterator()
        #expect(await updates.next() == [])
        let plan = try await plans.createPlan(Fixture.plan("First"))
        #expect(await updates.next()?.map(\.id) == [plan.id])
        #expect(await triggers.next() == .localEdit)
        try await plans.sync()
        #expect(await updates.next()?.map(\.id) == [plan.id], "a status change sends the plans again")
    }
}
