import Foundation
import Observation
import Testing
import TrainAuth
import TrainCore
import TrainSync
import TrainTesting

// The code of TrainSync.docc/GettingStartedWithSync.md, kept compiling and correct here.
// When you change one, change the other.

private func makePlans(auth: any AuthService, directory: URL) throws -> LocalPlanSyncService {
    let remote = try LocalRemotePlanStore(storage: .file(directory.appendingPathComponent("remote.sqlite")))
    return try LocalPlanSyncService(auth: auth, remote: remote, storage: .file(directory.appendingPathComponent("trainkit.sqlite")))
}

private func planSpring(plans: any PlanSyncService, start: Date) async throws -> [String] {
    var plan = try await plans.createPlan(
        TrainingPlan(name: "Spring 10k", startDate: start, endDate: start.addingTimeInterval(56 * 86_400), daysPerWeek: 3))
    plan.notes = "Hills on Tuesdays."
    plan = try await plans.updatePlan(plan)
    do {
        try await plans.sync()
    } catch SyncError.remoteUnavailable {
        // Nothing is lost: the edits stay queued for the next sync.
    }
    return try plans.conflictLog().map { "\($0.field) lost \(String(decoding: $0.losingValue, as: UTF8.self))" }
}

@MainActor @Observable final class PlansModel {
    private(set) var plans: [TrainingPlan] = []

    func follow(_ service: any PlanSyncService) async {
        for await plans in service.planUpdates() { self.plans = plans }
    }
}

private func keepInStep(plans: any PlanSyncService) -> BackgroundSyncManager {
    let manager = BackgroundSyncManager(service: plans)
    manager.start()
    return manager
}

private let askTheUser = SyncConfiguration<TrainingPlan>(conflictPolicy: .custom { _ in .hold })

@Suite struct GettingStartedWithSyncTests {
    @Test("the article's device saves a plan, syncs it, and a second device on the same remote file receives it, its model showing each change")
    func article() async throws {
        let directory = try TemporaryDirectory()
        let auth = FakeAuthService()
        auth.setCurrentUser(UserEntity(id: "ada", displayName: "Ada", createdAt: ManualClock.defaultStart, lastSignInAt: ManualClock.defaultStart))
        let plans = try makePlans(auth: auth, directory: directory.url)
        #expect(try await planSpring(plans: plans, start: ManualClock.defaultStart).isEmpty)
        let plan = try #require(try plans.plans().first)
        #expect(try plans.status(ofPlan: plan.id) == .synced)
        let remote = try LocalRemotePlanStore(storage: .file(directory.url.appendingPathComponent("remote.sqlite")))
        let tablet = LocalPlanSyncService(auth: auth, remote: remote)
        try await tablet.sync()
        #expect(try tablet.plan(id: plan.id)?.notes == "Hills on Tuesdays.")
        let model = await PlansModel()
        let following = Task { await model.follow(tablet) }
        await waitUntil { model.plans.map(\.id) == [plan.id] }
        var renamed = plan
        renamed.name = "Spring 10k, sub 50"
        _ = try await plans.updatePlan(renamed)
        try await plans.sync()
        try await tablet.sync()
        await waitUntil { model.plans.first?.name == "Spring 10k, sub 50" }
        following.cancel()
        let manager = keepInStep(plans: plans)
        manager.stop()
        if case .stopped = manager.status {} else { Issue.record("the manager did not stop: \(manager.status)") }
        if case .custom = askTheUser.conflictPolicy {} else { Issue.record("the article's policy is not custom") }
    }
}
