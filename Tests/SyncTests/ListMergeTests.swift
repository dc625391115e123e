import Foundation
import Testing
import TrainCore
import TrainSync
import TrainTesting

@testable import TrainSync

/// SYNC-15: a plan's workouts merge one by one. Two devices adding, changing or
/// removing different workouts at once both keep their work; one workout changed on
/// both follows the field policy; a removal is a tombstone.
@Suite struct ListMergeTests {
    static let easy = PlannedWorkout(title: "Easy run", minutes: 40)
    static let long = PlannedWorkout(title: "Long run", minutes: 90)

    /// Two devices with one synced plan of two workouts.
    static func pair(_ variant: SyncVariant, deletePolicy: DeleteConflictPolicy = .deleteWins) async throws -> (
        SyncWorld, Device, Device, TrainingPlan
    ) {
        let world = try SyncWorld(variant)
        let phone = try world.device("phone", deletePolicy: deletePolicy)
        let tablet = try world.device("tablet", deletePolicy: deletePolicy)
        var plan = Fixture.plan()
        plan.weeklyWorkouts = [easy, long]
        plan = try await phone.plans.createPlan(plan)
        try await phone.plans.sync()
        try await tablet.plans.sync()
        return (world, phone, tablet, plan)
    }

    /// Both devices sync twice, the phone first.
    static func settle(_ phone: Device, _ tablet: Device) async throws {
        for device in [phone, tablet, phone, tablet] { try await device.plans.sync() }
    }

    /// The workouts of the plan on each device and the remote, which must agree.
    static func workouts(_ id: UUID, _ world: SyncWorld, _ devices: Device...) async throws -> [PlannedWorkout] {
        let remote = try #require(try await world.remotePlans().first { $0.id == id }).weeklyWorkouts
        for device in devices { #expect(try device.plans.plan(id: id)?.weeklyWorkouts == remote, "\(device.name) agrees with the remote") }
        return remote
    }

    @Test("two devices each adding a workout to the same plan at once both keep theirs", arguments: SyncVariant.allCases)
    func concurrentAdds(_ variant: SyncVariant) async throws {
        let (world, phone, tablet, plan) = try await Self.pair(variant)
        let tempo = PlannedWorkout(title: "Tempo", minutes: 45)
        let hills = PlannedWorkout(title: "Hills", minutes: 50)
        var mine = plan
        mine.weeklyWorkouts.append(tempo)
        _ = try await phone.plans.updatePlan(mine)
        world.advance(by: 5)
        var theirs = plan
        theirs.weeklyWorkouts.append(hills)
        _ = try await tablet.plans.updatePlan(theirs)
        try await Self.settle(phone, tablet)
        // Both appended after the long run: both stand there, in one order on every device.
        let merged = try await Self.workouts(plan.id, world, phone, tablet)
        #expect(merged.prefix(2) == [Self.easy, Self.long] && Set(merged.dropFirst(2)) == [hills, tempo])
        #expect(try phone.plans.conflictLog().isEmpty && tablet.plans.conflictLog().isEmpty)
    }

    @Test("two devices changing different workouts of a plan at once both keep their change", arguments: SyncVariant.allCases)
    func differentElements(_ variant: SyncVariant) async throws {
        let (world, phone, tablet, plan) = try await Self.pair(variant)
        var mine = plan
        mine.weeklyWorkouts[0].minutes = 45
        _ = try await phone.plans.updatePlan(mine)
        var theirs = plan
        theirs.weeklyWorkouts[1].title = "Long run, hilly"
        _ = try await tablet.plans.updatePlan(theirs)
        try await Self.settle(phone, tablet)
        let workouts = try await Self.workouts(plan.id, world, phone, tablet)
        #expect(workouts.map(\.minutes) == [45, 90])
        #expect(workouts.map(\.title) == ["Easy run", "Long run, hilly"])
        #expect(workouts.map(\.id) == [Self.easy.id, Self.long.id])
    }

    @Test(
        "a workout removed on one device while another is added on the other: the removal and the addition both hold", arguments: SyncVariant.allCases
    )
    func removalAndAddition(_ variant: SyncVariant) async throws {
        let (world, phone, tablet, plan) = try await Self.pair(variant)
        var mine = plan
        mine.weeklyWorkouts.removeAll { $0.id == Self.easy.id }
        _ = try await phone.plans.updatePlan(mine)
        let strides = PlannedWorkout(title: "Strides", minutes: 20)
        var theirs = plan
        theirs.weeklyWorkouts.append(strides)
        _ = try await tablet.plans.updatePlan(theirs)
        try await Self.settle(phone, tablet)
        #expect(try await Self.workouts(plan.id, world, phone, tablet).map(\.id) == [Self.long.id, strides.id])
    }

    @Test("one workout changed on both devices keeps the later change, and the earlier one is in the conflict log", arguments: SyncVariant.allCases)
    func sameElement(_ variant: SyncVariant) async throws {
        let (world, phone, tablet, plan) = try await Self.pair(variant)
        var mine = plan
        mine.weeklyWorkouts[0].minutes = 45
        _ = try await phone.plans.updatePlan(mine)
        world.advance(by: 5)
        var theirs = plan
        theirs.weeklyWorkouts[0].minutes = 50
        theirs.weeklyWorkouts[1].minutes = 100
        _ = try await tablet.plans.updatePlan(theirs)
        try await Self.settle(phone, tablet)
        #expect(try await Self.workouts(plan.id, world, phone, tablet).map(\.minutes) == [50, 100])
        let log = try phone.plans.conflictLog() + tablet.plans.conflictLog()
        #expect(log.count == 1)
        #expect(log.first?.field == "weeklyWorkouts")
        #expect(try log.first?.losingValue(as: PlannedWorkout.self).minutes == 45)
    }

    @Test("a workout removed on one device and changed on the other stays removed, the change logged; under edit-wins it comes back")
    func removalAgainstEdit() async throws {
        for policy in DeleteConflictPolicy.allCases {
            let (world, phone, tablet, plan) = try await Self.pair(.inMemory, deletePolicy: policy)
            var mine = plan
            mine.weeklyWorkouts.removeAll { $0.id == Self.easy.id }
            _ = try await phone.plans.updatePlan(mine)
            var theirs = plan
            theirs.weeklyWorkouts[0].minutes = 55
            _ = try await tablet.plans.updatePlan(theirs)
            try await Self.settle(phone, tablet)
            let ids = try await Self.workouts(plan.id, world, phone, tablet).map(\.id)
            let log = try phone.plans.conflictLog() + tablet.plans.conflictLog()
            if policy == .deleteWins {
                #expect(ids == [Self.long.id])
                #expect(try log.map { try $0.losingValue(as: PlannedWorkout.self).minutes } == [55])
            } else {
                #expect(Set(ids) == [Self.easy.id, Self.long.id])
                #expect(log.isEmpty)
            }
        }
    }

    @Test(
        "a removal is a tombstone: a device whose copy predates it adds a workout without bringing the removed one back",
        arguments: SyncVariant.allCases)
    func tombstone(_ variant: SyncVariant) async throws {
        let (world, phone, tablet, plan) = try await Self.pair(variant)
        var mine = plan
        mine.weeklyWorkouts.removeAll { $0.id == Self.long.id }
        _ = try await phone.plans.updatePlan(mine)
        try await phone.plans.sync()
        // The tablet has not seen the removal; its copy still lists the long run.
        let fartlek = PlannedWorkout(title: "Fartlek", minutes: 35)
        var theirs = plan
        theirs.weeklyWorkouts.insert(fartlek, at: 0)
        _ = try await tablet.plans.updatePlan(theirs)
        try await Self.settle(phone, tablet)
        #expect(try await Self.workouts(plan.id, world, phone, tablet).map(\.id) == [fartlek.id, Self.easy.id])
    }

    @Test("workouts stored without IDs get the same IDs on every device, and two devices' first edits of them merge by workout")
    func storedWithoutIDs() async throws {
        let world = try SyncWorld()
        let phone = try world.device("phone")
        let tablet = try world.device("tablet")
        // A plan as an earlier version stored it: workouts without IDs, no element readings.
        var plan = Fixture.plan()
        plan.userID = "ada"
        var document = try SyncDocument.of(plan, previous: nil, stamp: HybridTimestamp(milliseconds: 1, counter: 0, replicaID: "old"))
        document.fields["weeklyWorkouts"] = Data(#"[{"minutes":40,"title":"Easy run"},{"minutes":40,"title":"Easy run"}]"#.utf8)
        document.elements = [:]
        _ = try await world.local.write(
            [
                RemoteMutation(
                    id: MutationID(replicaID: "old", sequence: 1), recordID: plan.id, baseVersion: nil, isDeletion: false,
                    document: Self.layoutOne(document))
            ], in: RemoteScope(userID: "ada", collection: "plans"))
        try await phone.plans.sync()
        try await tablet.plans.sync()
        let ids = try #require(try phone.plans.plan(id: plan.id)).weeklyWorkouts.map(\.id)
        #expect(Set(ids).count == 2, "two identical workouts get two IDs")
        #expect(try tablet.plans.plan(id: plan.id)?.weeklyWorkouts.map(\.id) == ids)
        var mine = try #require(try phone.plans.plan(id: plan.id))
        mine.weeklyWorkouts[1].minutes = 60
        _ = try await phone.plans.updatePlan(mine)
        var theirs = try #require(try tablet.plans.plan(id: plan.id))
        theirs.weeklyWorkouts.append(PlannedWorkout(title: "Hills", minutes: 30))
        _ = try await tablet.plans.updatePlan(theirs)
        try await Self.settle(phone, tablet)
        let merged = try await Self.workouts(plan.id, world, phone, tablet)
        #expect(merged.map(\.minutes) == [40, 60, 30])
        #expect(Array(merged.map(\.id).prefix(2)) == ids)
        #expect(try phone.plans.conflictLog().isEmpty && tablet.plans.conflictLog().isEmpty)
    }

    /// A document's bytes as an earlier version wrote them: layout 1, eight bytes for
    /// each number and length, no element readings.
    static func layoutOne(_ document: SyncDocument) -> Data {
        var writer = BinaryWriter(format: 1)
        let all = Array(document.stamps.values) + (document.deleted.map { [$0] } ?? [])
        let replicas = Array(Set(all.map(\.replicaID))).sorted()
        func write(_ stamp: HybridTimestamp?) {
            writer.write(stamp != nil)
            guard let stamp else { return }
            writer.write(Int(stamp.milliseconds))
            writer.write(Int(stamp.counter))
            writer.write(replicas.firstIndex(of: stamp.replicaID) ?? 0)
        }
        writer.write(replicas.count)
        for replica in replicas { writer.write(replica) }
        writer.write(document.fields.count)
        for name in document.fields.keys.sorted() {
            writer.write(name)
            writer.write(document.fields[name] ?? Data())
            write(document.stamps[name])
        }
        write(document.deleted)
        return writer.data
    }

    @Test(
        "a document with list elements is written in layout 3, one without in layout 2, and each reads back whole with its element readings and positions; a document of layout 1 still reads"
    )
    func layout() throws {
        var plan = Fixture.plan()
        plan.userID = "ada"
        let stamp = HybridTimestamp(milliseconds: 5, counter: 1, replicaID: "phone")
        let bare = try SyncDocument.of(plan, previous: nil, stamp: stamp)
        #expect(bare.elements.isEmpty && bare.data.first == 2)
        #expect(try SyncDocument(data: Self.layoutOne(bare)) == bare)
        #expect(try SyncDocument.inspect(Self.layoutOne(bare), fields: Array("userID".utf8), []).first.map { Array($0) } == Array(#""ada""#.utf8))
        let deletion = SyncDocument.tombstone(HybridTimestamp(milliseconds: -3, counter: 7, replicaID: "old"))
        #expect(try SyncDocument(data: Self.layoutOne(deletion)) == deletion)
        #expect(try SyncDocument(data: deletion.data) == deletion, "a reading before 1970 reads back")
        plan.weeklyWorkouts = [Self.easy]
        let first = try SyncDocument.of(plan, previous: bare, stamp: stamp)
        plan.weeklyWorkouts = [Self.long]
        let later = HybridTimestamp(milliseconds: 9, counter: 0, replicaID: "tablet")
        let document = try SyncDocument.of(plan, previous: first, stamp: later)
        #expect(document.data.first == 3)
        let read = try SyncDocument(data: document.data)
        #expect(read == document)
        #expect(read.elements["weeklyWorkouts"]?.count == 2)
        #expect(read.elements["weeklyWorkouts"]?.values.filter(\.isRemoved).map(\.stamp) == [later], "the removed workout is a tombstone")
        #expect(try SyncDocument.inspect(document.data, fields: [], []).latest == later)
        #expect(throws: CoreError(.undecodable)) { try SyncDocument(data: document.data + [0]) }
    }

    @Test("a plan that lists one workout twice is invalid")
    func duplicateWorkout() async throws {
        let world = try SyncWorld()
        let phone = try world.device("phone")
        var plan = Fixture.plan()
        plan.weeklyWorkouts = [Self.easy, Self.easy]
        await #expect(throws: SyncError(.invalidRecord)) { _ = try await phone.plans.createPlan(plan) }
    }

    @Test(
        "a merge that would give a plan more workouts than it may have keeps the later edit whole, and the plan stays editable",
        arguments: SyncVariant.allCases)
    func mergeOverTheLimit(_ variant: SyncVariant) async throws {
        let (world, phone, tablet, plan) = try await Self.pair(variant)
        var mine = plan
        mine.weeklyWorkouts = (0..<30).map { PlannedWorkout(title: "Phone \($0)", minutes: 30) }
        _ = try await phone.plans.updatePlan(mine)
        world.advance(by: 5)
        var theirs = plan
        theirs.weeklyWorkouts = (0..<30).map { PlannedWorkout(title: "Tablet \($0)", minutes: 30) }
        _ = try await tablet.plans.updatePlan(theirs)
        try await Self.settle(phone, tablet)
        let kept = try await Self.workouts(plan.id, world, phone, tablet)
        #expect(kept == theirs.weeklyWorkouts, "the later edit, whole")
        #expect(!(try phone.plans.conflictLog() + tablet.plans.conflictLog()).isEmpty, "the other edit is in the log")
        var renamed = try #require(try phone.plans.plan(id: plan.id))
        renamed.name = "Renamed"
        _ = try await phone.plans.updatePlan(renamed)
    }

    @Test("a removed workout's tombstone is dropped after 30 days, so a plan edited day after day for years stays within the remote's limit")
    func tombstonesExpire() async throws {
        let world = try SyncWorld(configuration: RemoteConfiguration(maximumDocumentBytes: 3_000))
        let phone = try world.device("phone")
        var plan = Fixture.plan()
        plan.weeklyWorkouts = [Self.easy]
        plan = try await phone.plans.createPlan(plan)
        for day in 0..<400 {
            world.advance(by: 86_400)
            plan.weeklyWorkouts.append(PlannedWorkout(title: "Day \(day)", minutes: 20))
            plan = try await phone.plans.updatePlan(plan)
            plan.weeklyWorkouts.removeLast()
            plan = try await phone.plans.updatePlan(plan)
        }
        let stored = try await phone.plans.sync()
        #expect(stored.rejected == 0)
        #expect(try await world.remotePlans().first?.weeklyWorkouts == [Self.easy])
    }
}
