import Foundation
import Testing
import TrainSync
import TrainTesting

@Suite struct TombstoneTests {
    @Test("a deletion reaches the other device", arguments: SyncVariant.allCases)
    func deletionPropagates(_ variant: SyncVariant) async throws {
        let (world, phone, tablet, plan) = try await ConflictTests.pair(variant)
        try await phone.plans.deletePlan(id: plan.id)
        _ = try await phone.plans.sync()
        _ = try await tablet.plans.sync()
        #expect(try tablet.plans.plan(id: plan.id) == nil)
        #expect(try tablet.plans.status(ofPlan: plan.id) == nil)
        #expect(try await world.remotePlans().isEmpty)
    }

    @Test("a deletion against a concurrent edit wins by default, and the edit goes to the conflict log", arguments: [false, true])
    func deleteWinsByDefault(_ deleterFirst: Bool) async throws {
        let (world, phone, tablet, plan) = try await ConflictTests.pair()
        try await phone.plans.deletePlan(id: plan.id)
        var edited = plan
        edited.notes = "Edited while it was being deleted"
        _ = try await tablet.plans.updatePlan(edited)
        let order = deleterFirst ? [phone, tablet, phone, tablet] : [tablet, phone, tablet, phone]
        for device in order { _ = try await device.plans.sync() }
        for device in [phone, tablet] { #expect(try device.plans.plan(id: plan.id) == nil) }
        #expect(try await world.remotePlans().isEmpty)
        let log = try (deleterFirst ? tablet : phone).plans.conflictLog()
        if deleterFirst {
            #expect(try log.first(where: { $0.field == "notes" })?.losingValue(as: String.self) == "Edited while it was being deleted")
        } else {
            #expect(log.contains { $0.field == "notes" })
        }
    }

    @Test("with edit-wins, an edit against a concurrent deletion brings the plan back on every device")
    func editWins() async throws {
        let world = try SyncWorld()
        let phone = try world.device("phone", deletePolicy: .editWins)
        let tablet = try world.device("tablet", deletePolicy: .editWins)
        let plan = try await phone.plans.createPlan(Fixture.plan())
        _ = try await phone.plans.sync()
        _ = try await tablet.plans.sync()
        try await phone.plans.deletePlan(id: plan.id)
        var edited = plan
        edited.notes = "Still training"
        _ = try await tablet.plans.updatePlan(edited)
        for device in [phone, tablet, phone, tablet] { _ = try await device.plans.sync() }
        for device in [phone, tablet] { #expect(try device.plans.plan(id: plan.id)?.notes == "Still training") }
    }

    @Test("a plan deleted and created again with the same ID exists on every device")
    func deleteThenRecreate() async throws {
        let (world, phone, tablet, plan) = try await ConflictTests.pair()
        try await phone.plans.deletePlan(id: plan.id)
        _ = try await phone.plans.sync()
        _ = try await tablet.plans.sync()
        var again = plan
        again.name = "Back again"
        _ = try await phone.plans.createPlan(again)
        _ = try await phone.plans.sync()
        _ = try await tablet.plans.sync()
        for device in [phone, tablet] { #expect(try device.plans.plan(id: plan.id)?.name == "Back again") }
        #expect(try await world.remotePlans().map(\.name) == ["Back again"])
    }

    @Test(
        "a device offline longer than deletions are kept reads everything again and does not bring a deleted plan back",
        arguments: SyncVariant.allCases)
    func fullResyncAfterRetention(_ variant: SyncVariant) async throws {
        let world = try SyncWorld(variant, configuration: RemoteConfiguration(tombstoneRetention: .seconds(7 * 86_400)))
        let phone = try world.device("phone")
        let tablet = try world.device("tablet")
        let doomed = try await phone.plans.createPlan(Fixture.plan("Doomed"))
        let kept = try await phone.plans.createPlan(Fixture.plan("Kept"))
        _ = try await phone.plans.sync()
        _ = try await tablet.plans.sync()
        try await phone.plans.deletePlan(id: doomed.id)
        _ = try await phone.plans.sync()
        world.advance(by: 8 * 86_400)
        var edited = kept
        edited.notes = "Edited offline for a week"
        _ = try await tablet.plans.updatePlan(edited)
        let report = try await tablet.plans.sync()
        #expect(report.didFullResync)
        #expect(try tablet.plans.plan(id: doomed.id) == nil)
        #expect(try tablet.plans.plans().map(\.notes) == ["Edited offline for a week"])
        _ = try await phone.plans.sync()
        #expect(try await world.remotePlans().map(\.name) == ["Kept"])
        #expect(try phone.plans.plans().map(\.notes) == ["Edited offline for a week"])
        #expect(try await tablet.plans.sync().didFullResync == false)
    }
}
