import Foundation
import Testing
import TrainCore
import TrainSync
import TrainTesting

/// Two instances of the service on one file (an app and its widget) and a second
/// device, all editing and syncing at once.
@Suite struct SyncConcurrencyTests {
    @Test("concurrent edits and syncs from two instances on one file and a second device lose no edit and converge")
    func concurrentEditsAndSyncs() async throws {
        let world = try SyncWorld(.file)
        let app = try world.device("phone")
        let widget = try world.device("phone") // the same file
        let tablet = try world.device("tablet")
        var plans: [TrainingPlan] = []
        for index in 0..<20 { plans.append(try await app.plans.createPlan(Fixture.plan("Plan \(index)"))) }
        try await app.plans.sync()
        try await tablet.plans.sync()
        let seeds = plans
        // Each task owns one field of one plan, so every final value is known.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, plan) in seeds.enumerated() {
                let device = [app, widget, tablet][index % 3]
                group.addTask {
                    for round in 1...5 {
                        guard var current = try device.plans.plan(id: plan.id) else { continue }
                        current.notes = "\(device.name) \(index) round \(round)"
                        _ = try await device.plans.updatePlan(current)
                        _ = try? await device.plans.sync()
                    }
                }
            }
            for device in [app, widget, tablet] {
                group.addTask { for _ in 0..<10 { _ = try? await device.plans.sync() } }
            }
            try await group.waitForAll()
        }
        for _ in 0..<2 {
            for device in [app, widget, tablet] { try await device.plans.sync() }
        }
        let remote = try await world.remotePlans()
        #expect(remote.count == 20)
        for (index, plan) in seeds.enumerated() {
            let device = [app, widget, tablet][index % 3]
            #expect(remote.first { $0.id == plan.id }?.notes == "\(device.name) \(index) round 5")
        }
        for device in [app, widget, tablet] {
            #expect(try device.plans.plans() == remote)
            #expect(try device.plans.pendingCount() == 0)
        }
    }
}
