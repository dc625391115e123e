import Foundation
import Testing
import TrainCore
import TrainSync
import TrainTesting

@testable import TrainSync

/// SYNC-17: each workout of a plan keeps its place relative to its neighbours as its
/// author put it, whatever another device inserted, moved or removed at once.
@Suite struct ListOrderTests {
    static func workout(_ title: String) -> PlannedWorkout { PlannedWorkout(title: title, minutes: 30) }

    /// Two devices with one synced plan of `titles`.
    static func pair(_ variant: SyncVariant, _ titles: [String], deletePolicy: DeleteConflictPolicy = .deleteWins) async throws -> (
        SyncWorld, Device, Device, TrainingPlan
    ) {
        let world = try SyncWorld(variant)
        let phone = try world.device("phone", deletePolicy: deletePolicy)
        let tablet = try world.device("tablet", deletePolicy: deletePolicy)
        var plan = Fixture.plan()
        plan.weeklyWorkouts = titles.map(workout)
        plan = try await phone.plans.createPlan(plan)
        try await phone.plans.sync()
        try await tablet.plans.sync()
        return (world, phone, tablet, plan)
    }

    /// The titles of the plan's workouts once both devices synced twice; every device
    /// and the remote must agree.
    static func settled(_ id: UUID, _ world: SyncWorld, _ phone: Device, _ tablet: Device) async throws -> [String] {
        for device in [phone, tablet, phone, tablet] { try await device.plans.sync() }
        let remote = try #require(try await world.remotePlans().first { $0.id == id }).weeklyWorkouts
        for device in [phone, tablet] { #expect(try device.plans.plan(id: id)?.weeklyWorkouts == remote, "\(device.name) agrees") }
        return remote.map(\.title)
    }

    @Test(
        "an insertion between two workouts on one device and an append on the other a minute later keep both places", arguments: SyncVariant.allCases)
    func insertAndAppend(_ variant: SyncVariant) async throws {
        let (world, phone, tablet, plan) = try await Self.pair(variant, ["one", "three"])
        var mine = plan
        mine.weeklyWorkouts.insert(Self.workout("two"), at: 1)
        _ = try await phone.plans.updatePlan(mine)
        world.advance(by: 60)
        var theirs = plan
        theirs.weeklyWorkouts.append(Self.workout("four"))
        _ = try await tablet.plans.updatePlan(theirs)
        #expect(try await Self.settled(plan.id, world, phone, tablet) == ["one", "two", "three", "four"])
    }

    @Test("under edit-wins, a workout renamed on one device and removed on the other comes back in its place", arguments: SyncVariant.allCases)
    func restoredInPlace(_ variant: SyncVariant) async throws {
        let (world, phone, tablet, plan) = try await Self.pair(variant, ["a", "b", "c", "d"], deletePolicy: .editWins)
        var mine = plan
        mine.weeklyWorkouts[1].title = "b renamed"
        _ = try await phone.plans.updatePlan(mine)
        world.advance(by: 5)
        var theirs = plan
        theirs.weeklyWorkouts.remove(at: 1)
        theirs.weeklyWorkouts.append(Self.workout("e"))
        _ = try await tablet.plans.updatePlan(theirs)
        #expect(try await Self.settled(plan.id, world, phone, tablet) == ["a", "b renamed", "c", "d", "e"])
    }

    @Test(
        "a workout moved on one device while others are inserted on the other keeps the move, and the rest keep their order",
        arguments: SyncVariant.allCases)
    func moveBesideInserts(_ variant: SyncVariant) async throws {
        let (world, phone, tablet, plan) = try await Self.pair(variant, ["a", "b", "c", "d"])
        var mine = plan
        mine.weeklyWorkouts.insert(mine.weeklyWorkouts.remove(at: 3), at: 0)
        _ = try await phone.plans.updatePlan(mine)
        world.advance(by: 5)
        var theirs = plan
        theirs.weeklyWorkouts.insert(Self.workout("b2"), at: 2)
        theirs.weeklyWorkouts.insert(Self.workout("c2"), at: 4)
        _ = try await tablet.plans.updatePlan(theirs)
        #expect(try await Self.settled(plan.id, world, phone, tablet) == ["d", "a", "b", "b2", "c", "c2"])
    }

    @Test("the same workout moved on both devices at once stands where the later move put it", arguments: SyncVariant.allCases)
    func concurrentMoves(_ variant: SyncVariant) async throws {
        let (world, phone, tablet, plan) = try await Self.pair(variant, ["a", "b", "c", "d"])
        var mine = plan
        mine.weeklyWorkouts.append(mine.weeklyWorkouts.remove(at: 0))
        _ = try await phone.plans.updatePlan(mine)
        world.advance(by: 5)
        var theirs = plan
        theirs.weeklyWorkouts.insert(theirs.weeklyWorkouts.remove(at: 0), at: 2)
        _ = try await tablet.plans.updatePlan(theirs)
        #expect(try await Self.settled(plan.id, world, phone, tablet) == ["b", "c", "a", "d"])
    }

    @Test("positions: strictly between their bounds, short, and spread the same on every device for a list stored without them")
    func positions() {
        let spread = ListPosition.spread(50)
        #expect(spread == spread.sorted() && Set(spread).count == 50 && spread.allSatisfy(ListPosition.isValid))
        #expect(spread.map(\.count).max() ?? 0 <= 3)
        var lower = "V"
        for _ in 0..<200 {
            let next = ListPosition.between(lower, "W", count: 1)[0]
            #expect(lower < next && next < "W" && ListPosition.isValid(next))
            lower = next
        }
        #expect(ListPosition.between(nil, "1", count: 3).allSatisfy { $0 < "1" && ListPosition.isValid($0) })
        for hostile in ["", "0", "V0", "a b", "é", String(repeating: "V", count: 65), "V\u{0}"] {
            #expect(!ListPosition.isValid(hostile), "\(hostile)")
        }
    }

    @Test("a downloaded document whose element position is hostile is refused as undecodable, and one of layout 2 reads with positions in its order")
    func hostileAndEarlierDocuments() throws {
        var plan = Fixture.plan()
        plan.userID = "ada"
        plan.weeklyWorkouts = ["a", "b", "c"].map(Self.workout)
        let stamp = HybridTimestamp(milliseconds: 5, counter: 0, replicaID: "phone")
        let document = try SyncDocument.of(plan, previous: nil, stamp: stamp)
        let positions = (document.elements["weeklyWorkouts"] ?? [:]).values.compactMap(\.position)
        #expect(positions.count == 3)
        // The bytes of a position, as a hostile remote would change them: one ending in
        // `0`, one with a space, one with a byte no digit has.
        let position = try #require(positions.first)
        let bytes = Array(document.data)
        let start = try #require(
            (0...(bytes.count - position.utf8.count)).first { bytes[$0..<($0 + position.utf8.count)].elementsEqual(position.utf8) })
        for hostile in [String(position.dropLast()) + "0", String(position.dropLast()) + " ", String(position.dropLast()) + "\u{7F}"] {
            var tampered = bytes
            tampered.replaceSubrange(start..<(start + position.utf8.count), with: Array(hostile.utf8))
            #expect(throws: CoreError(.undecodable), "\(hostile)") { try SyncDocument(data: Data(tampered)) }
        }
        #expect(try SyncDocument(data: Data(bytes)) == document)
        var earlier = document
        for id in earlier.elements["weeklyWorkouts"]?.keys.map({ $0 }) ?? [] {
            earlier.elements["weeklyWorkouts"]?[id]?.position = nil
            earlier.elements["weeklyWorkouts"]?[id]?.placed = nil
        }
        #expect(earlier.data.first == 2, "with no positions, layout 2")
        let read = try SyncDocument(data: earlier.data)
        let list = try #require(read.list("weeklyWorkouts", as: TrainingPlan.self))
        #expect(list.order.map { list.states[$0]?.position ?? "" } == ListPosition.spread(3))
    }

    @Test(
        "10 replicas inserting, moving, renaming and removing workouts of one plan through a failing network agree once it heals, and each keeps the order its inserter saw"
    )
    func replicasKeepInsertionOrder() async throws {
        for seed in SeededRandomNumberGenerator.seeds(default: 6) {
            var random = SeededRandomNumberGenerator(seed: seed)
            let world = try SyncWorld()
            let network = ChaosRemote(world.remote, seed: seed)
            let devices = try (0..<10).map { try world.device("replica\($0)", remote: network) }
            var plan = try await devices[0].plans.createPlan(Fixture.plan())
            _ = try? await devices[0].plans.sync()
            var model = ChaosSyncTests.Model()
            var moved = Set<UUID>()
            for _ in 0..<150 {
                world.advance(by: Double(Int.random(in: 1...2_000, using: &random)) / 1000)
                let device = devices[Int.random(in: 0..<devices.count, using: &random)]
                guard let current = try device.plans.plan(id: plan.id) else {
                    _ = try? await device.plans.sync()
                    continue
                }
                plan = current
                switch Int.random(in: 0..<10, using: &random) {
                case ..<4 where plan.weeklyWorkouts.count < 50:
                    let id = UUID(uuid: ChaosSyncTests.uuid(&random))
                    plan.weeklyWorkouts.insert(
                        PlannedWorkout(id: id, title: "w", minutes: 30), at: Int.random(in: 0...plan.weeklyWorkouts.count, using: &random))
                    model.inserted(id, into: plan.weeklyWorkouts, of: plan.id)
                    _ = try await device.plans.updatePlan(plan)
                case 4 where plan.weeklyWorkouts.count > 2:
                    // A move past two or more workouts, which no other reading of the new
                    // order explains with as few moves (a swap of two neighbours could be
                    // either one moving). The order around it is the mover's from now on.
                    let from = Int.random(in: 0..<plan.weeklyWorkouts.count, using: &random)
                    let targets = (0..<plan.weeklyWorkouts.count).filter { abs($0 - from) >= 2 }
                    guard let to = targets.randomElement(using: &random) else { continue }
                    let workout = plan.weeklyWorkouts.remove(at: from)
                    plan.weeklyWorkouts.insert(workout, at: to)
                    moved.insert(workout.id)
                    _ = try await device.plans.updatePlan(plan)
                case 5 where !plan.weeklyWorkouts.isEmpty:
                    plan.weeklyWorkouts[Int.random(in: 0..<plan.weeklyWorkouts.count, using: &random)].minutes += 1
                    _ = try await device.plans.updatePlan(plan)
                case 6 where !plan.weeklyWorkouts.isEmpty:
                    plan.weeklyWorkouts.remove(at: Int.random(in: 0..<plan.weeklyWorkouts.count, using: &random))
                    _ = try await device.plans.updatePlan(plan)
                default:
                    _ = try? await device.plans.sync()
                }
            }
            await network.heal()
            for _ in 0..<2 {
                for device in devices { try await device.plans.sync() }
            }
            let remote = try #require(try await world.remotePlans().first { $0.id == plan.id })
            for device in devices {
                #expect(try device.plans.plan(id: plan.id) == remote, "seed \(seed): \(device.name) differs; replay with TRAINKIT_SEED=\(seed)")
            }
            model.orders[plan.id] = model.orders[plan.id]?.filter { !moved.contains($0.0) && !moved.contains($0.1) }
            let broken = model.broken([plan.id: remote])
            #expect(broken.isEmpty, "seed \(seed): \(broken.count) pairs left the order they were inserted in; replay with TRAINKIT_SEED=\(seed)")
        }
    }

    @Test("a document stored before positions, with a tombstone, edited by this version writes bytes that read back")
    func earlierDocumentWithATombstoneRoundTrips() throws {
        var plan = Fixture.plan()
        plan.weeklyWorkouts = ["a", "b", "c"].map(Self.workout)
        let first = HybridTimestamp(milliseconds: 5, counter: 0, replicaID: "phone")
        var earlier = try SyncDocument.of(plan, previous: nil, stamp: first)
        plan.weeklyWorkouts.remove(at: 1)
        earlier = try SyncDocument.of(plan, previous: earlier, stamp: HybridTimestamp(milliseconds: 6, counter: 0, replicaID: "phone"))
        for id in earlier.elements["weeklyWorkouts"]?.keys.map({ $0 }) ?? [] {
            earlier.elements["weeklyWorkouts"]?[id]?.position = nil
            earlier.elements["weeklyWorkouts"]?[id]?.placed = nil
        }
        let stored = try SyncDocument(data: earlier.data)
        #expect(stored.elements["weeklyWorkouts"]?.values.filter(\.isRemoved).count == 1, "a layout-2 document with its tombstone")
        plan.weeklyWorkouts.append(Self.workout("d"))
        let edited = try SyncDocument.of(plan, previous: stored, stamp: HybridTimestamp(milliseconds: 7, counter: 0, replicaID: "tablet"))
        let read = try SyncDocument(data: edited.data)
        #expect(read == edited && edited.data.first == 3)
        #expect(read.elements["weeklyWorkouts"]?.values.allSatisfy { $0.position.map(ListPosition.isValid) == true } == true)
    }

    @Test("a list edited hundreds of times at one place keeps positions a document holds: they are spread anew when they would grow too long")
    func positionsStayShort() throws {
        var plan = Fixture.plan()
        var document = try SyncDocument.of(plan, previous: nil, stamp: HybridTimestamp(milliseconds: 1, counter: 0, replicaID: "phone"))
        var longest = 0
        for number in 0..<420 {
            // The newest on top, the oldest dropped past 20: positions below the top keep shrinking the gap.
            plan.weeklyWorkouts.insert(Self.workout("w\(number)"), at: 0)
            if plan.weeklyWorkouts.count > 20 { plan.weeklyWorkouts.removeLast() }
            let stamp = HybridTimestamp(milliseconds: Int64(2 + number), counter: 0, replicaID: "phone")
            document = try SyncDocument.of(plan, previous: document, stamp: stamp)
            longest = max(longest, (document.elements["weeklyWorkouts"] ?? [:]).values.compactMap { $0.position?.utf8.count }.max() ?? 0)
        }
        #expect(longest <= ListPosition.maximumLength, "no edit wrote a position longer than a document holds")
        let read = try SyncDocument(data: document.data)
        #expect(try read.record(as: TrainingPlan.self)?.weeklyWorkouts == plan.weeklyWorkouts)
        let list = try #require(read.list("weeklyWorkouts", as: TrainingPlan.self))
        let byPosition = list.order.sorted { (list.states[$0]?.position ?? "", $0) < (list.states[$1]?.position ?? "", $1) }
        #expect(byPosition == list.order, "the positions hold the list's order")
        let written = (document.elements["weeklyWorkouts"] ?? [:]).values.filter { !$0.isRemoved }
        #expect(written.count == 20 && written.allSatisfy { $0.position.map(ListPosition.isValid) == true }, "every position is one a document holds")
        #expect(read == document, "and the bytes read back whole")
    }

    @Test("two workouts appended in one edit keep their order whatever the device's replica ID")
    func suffixesKeepOneEditsOrder() {
        for replica in (0..<300).map({ "replica-\($0)" }) {
            let stamp = HybridTimestamp(milliseconds: 1, counter: 0, replicaID: replica)
            let before = ["a": ("y", stamp)]
            let placed = ListPosition.place(["a", "b", "c"], before: before, at: stamp).map(\.position)
            #expect(placed == placed.sorted() && Set(placed).count == 3, "\(replica): \(placed)")
        }
    }
}
