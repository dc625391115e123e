import Foundation
import Testing
import TrainSync
import TrainTesting

@Suite struct ConflictTests {
    /// Two devices with the same synced plan.
    static func pair(
        _ variant: SyncVariant = .inMemory, skew: TimeInterval = 0, policy: ConflictPolicy<TrainingPlan> = .fieldMerge
    ) async throws -> (SyncWorld, Device, Device, TrainingPlan) {
        let world = try SyncWorld(variant)
        let phone = try world.device("phone", skew: skew, conflictPolicy: policy)
        let tablet = try world.device("tablet", conflictPolicy: policy)
        let plan = try await phone.plans.createPlan(Fixture.plan("Base plan", notes: "Easy weeks", days: 3))
        _ = try await phone.plans.sync()
        _ = try await tablet.plans.sync()
        return (world, phone, tablet, plan)
    }

    @Test("edits to different fields on two devices both survive the field merge, on both devices", arguments: SyncVariant.allCases)
    func fieldMergeKeepsBoth(_ variant: SyncVariant) async throws {
        let (world, phone, tablet, plan) = try await Self.pair(variant)
        var renamed = plan
        renamed.name = "Spring 10k"
        _ = try await phone.plans.updatePlan(renamed)
        world.advance(by: 60)
        var busier = plan
        busier.daysPerWeek = 5
        _ = try await tablet.plans.updatePlan(busier)
        for device in [phone, tablet, phone, tablet] { _ = try await device.plans.sync() }
        for device in [phone, tablet] {
            let merged = try #require(try device.plans.plan(id: plan.id))
            #expect(merged.name == "Spring 10k")
            #expect(merged.daysPerWeek == 5)
            #expect(try device.plans.status(ofPlan: plan.id) == .synced)
            let log = try device.plans.conflictLog().map(\.field)
            #expect(log.isEmpty)
        }
        #expect(try await world.remotePlans().map(\.name) == ["Spring 10k"])
    }

    @Test("the same field edited on two devices keeps the later edit by hybrid clock and logs the losing value")
    func sameFieldLaterWins() async throws {
        let (world, phone, tablet, plan) = try await Self.pair()
        var first = plan
        first.notes = "Hills on Tuesday"
        _ = try await tablet.plans.updatePlan(first)
        world.advance(by: 60)
        var second = plan
        second.notes = "Intervals on Thursday"
        _ = try await phone.plans.updatePlan(second)
        _ = try await phone.plans.sync()
        _ = try await tablet.plans.sync()
        _ = try await phone.plans.sync()
        for device in [phone, tablet] { #expect(try device.plans.plan(id: plan.id)?.notes == "Intervals on Thursday") }
        let log = try tablet.plans.conflictLog()
        #expect(log.count == 1)
        #expect(log.first?.field == "notes")
        #expect(try log.first?.losingValue(as: String.self) == "Hills on Tuesday")
    }

    @Test("a device whose clock is a day fast does not win a conflict it made earlier: edits are ordered by the remote's time")
    func skewedClockDoesNotWin() async throws {
        let (world, phone, tablet, plan) = try await Self.pair(skew: 86_400)
        var early = plan
        early.notes = "Written first, on the phone a day ahead"
        _ = try await phone.plans.updatePlan(early)
        world.advance(by: 600)
        var late = plan
        late.notes = "Written ten minutes later on the tablet"
        _ = try await tablet.plans.updatePlan(late)
        for device in [phone, tablet, phone, tablet] { _ = try await device.plans.sync() }
        for device in [phone, tablet] {
            #expect(try device.plans.plan(id: plan.id)?.notes == "Written ten minutes later on the tablet")
        }
    }

    @Test("a device whose clock is a day slow does not lose a conflict it made later")
    func slowClockDoesNotLose() async throws {
        let (world, phone, tablet, plan) = try await Self.pair(skew: -86_400)
        var early = plan
        early.notes = "Written first, on the tablet"
        _ = try await tablet.plans.updatePlan(early)
        world.advance(by: 600)
        var late = plan
        late.notes = "Written later, on the phone a day behind"
        _ = try await phone.plans.updatePlan(late)
        for device in [tablet, phone, tablet, phone] { _ = try await device.plans.sync() }
        for device in [phone, tablet] {
            #expect(try device.plans.plan(id: plan.id)?.notes == "Written later, on the phone a day behind")
        }
    }

    @Test("edits at the same instant break the tie by replica ID, the same way on both devices whichever syncs first", arguments: [false, true])
    func tieBreaksByReplica(_ tabletFirst: Bool) async throws {
        let (_, phone, tablet, plan) = try await Self.pair()
        var fromPhone = plan
        fromPhone.notes = "phone"
        var fromTablet = plan
        fromTablet.notes = "tablet"
        _ = try await phone.plans.updatePlan(fromPhone)
        _ = try await tablet.plans.updatePlan(fromTablet)
        let order = tabletFirst ? [tablet, phone, tablet, phone] : [phone, tablet, phone, tablet]
        for device in order { _ = try await device.plans.sync() }
        // Replica IDs are "phone-1" and "tablet-1": "tablet-1" sorts last and wins.
        for device in [phone, tablet] { #expect(try device.plans.plan(id: plan.id)?.notes == "tablet") }
    }

    @Test("last-writer-wins keeps the whole later record; local-wins and remote-wins keep their side", arguments: ["lww", "local", "remote"])
    func wholeRecordPolicies(_ name: String) async throws {
        let policy: ConflictPolicy<TrainingPlan> = name == "lww" ? .lastWriterWins : name == "local" ? .localWins : .remoteWins
        let (world, phone, tablet, plan) = try await Self.pair(policy: policy)
        var phoneEdit = plan
        phoneEdit.name = "Phone name"
        _ = try await phone.plans.updatePlan(phoneEdit)
        world.advance(by: 60)
        var tabletEdit = plan
        tabletEdit.daysPerWeek = 6
        _ = try await tablet.plans.updatePlan(tabletEdit)
        _ = try await phone.plans.sync()
        _ = try await tablet.plans.sync() // the tablet meets the conflict
        _ = try await phone.plans.sync()
        let expected: (String, Int) =
            switch name {
            case "lww", "local": ("Base plan", 6) // the tablet's record: later, and local to the resolver
            default: ("Phone name", 3)
            }
        for device in [phone, tablet] {
            let kept = try #require(try device.plans.plan(id: plan.id))
            #expect(kept.name == expected.0)
            #expect(kept.daysPerWeek == expected.1)
        }
        let fields = try tablet.plans.conflictLog().map(\.field)
        // The phone's edit left lastModified as created; the tablet's edit changed it.
        #expect(fields == (name == "remote" ? ["daysPerWeek", "lastModified"] : ["name"]))
    }

    @Test("a custom policy can blend the two versions")
    func customBlend() async throws {
        let policy = ConflictPolicy<TrainingPlan>.custom { conflict in
            var blended = conflict.remote
            blended.notes = conflict.remote.notes + " / " + conflict.local.notes
            return .keep(blended)
        }
        let (_, phone, tablet, plan) = try await Self.pair(policy: policy)
        var a = plan
        a.notes = "A"
        var b = plan
        b.notes = "B"
        _ = try await phone.plans.updatePlan(a)
        _ = try await tablet.plans.updatePlan(b)
        for device in [phone, tablet, phone] { _ = try await device.plans.sync() }
        for device in [phone, tablet] { #expect(try device.plans.plan(id: plan.id)?.notes == "A / B") }
    }

    @Test("a held conflict is kept out of uploads until the app resolves it, then the choice is uploaded")
    func heldConflict() async throws {
        let (_, phone, tablet, plan) = try await Self.pair(policy: .custom { _ in .hold })
        var a = plan
        a.name = "Phone's"
        var b = plan
        b.name = "Tablet's"
        _ = try await phone.plans.updatePlan(a)
        _ = try await tablet.plans.updatePlan(b)
        _ = try await phone.plans.sync()
        _ = try await tablet.plans.sync()
        #expect(try tablet.plans.status(ofPlan: plan.id) == .conflict)
        #expect(try tablet.plans.plan(id: plan.id)?.name == "Tablet's")
        await #expect(throws: SyncError(.noConflict)) { try await phone.plans.resolveConflict(planID: plan.id, keeping: a) }
        var chosen = b
        chosen.name = "Both agreed"
        _ = try await tablet.plans.resolveConflict(planID: plan.id, keeping: chosen)
        _ = try await tablet.plans.sync()
        _ = try await phone.plans.sync()
        for device in [phone, tablet] {
            #expect(try device.plans.plan(id: plan.id)?.name == "Both agreed")
            #expect(try device.plans.status(ofPlan: plan.id) == .synced)
        }
    }

    @Test(
        "a later start on one device and an earlier end on the other, which together would end the plan before it starts, keep the later edit whole")
    func mergeThatBreaksThePlan() async throws {
        let (world, phone, tablet, plan) = try await Self.pair()
        var mine = plan
        mine.startDate = plan.startDate.addingTimeInterval(40 * 86_400)
        _ = try await phone.plans.updatePlan(mine)
        world.advance(by: 60)
        var theirs = plan
        theirs.endDate = plan.startDate.addingTimeInterval(20 * 86_400)
        _ = try await tablet.plans.updatePlan(theirs)
        for device in [phone, tablet, phone, tablet] { _ = try await device.plans.sync() }
        for device in [phone, tablet] {
            let kept = try #require(try device.plans.plan(id: plan.id))
            #expect(kept.startDate == plan.startDate && kept.endDate == theirs.endDate, "the tablet's later edit, whole")
            #expect(kept.endDate >= kept.startDate)
        }
    }
}
