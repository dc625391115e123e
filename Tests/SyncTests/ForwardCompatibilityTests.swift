import Foundation
import Testing
import TrainAuth
import TrainCore
import TrainSync
import TrainTesting

/// SYNC-14: fields of a document that this build does not know are kept through its
/// edits and uploads. Version 2 of an app adds a `coach` to its plans; a device still
/// on version 1 edits the same plans.
@Suite struct ForwardCompatibilityTests {
    /// A plan as a newer version of the app has it: version 1's fields, a coach, and
    /// workouts of its own type — version 1's, or ones with a field it added.
    struct NewerPlan<Workout: Codable & Hashable & Sendable>: Syncable {
        static var recordType: String { "plans" }
        let id: UUID
        var userID: String
        var name: String
        var notes: String
        var startDate: Date
        var endDate: Date
        var daysPerWeek: Int
        var isCompleted: Bool
        var weeklyWorkouts: [Workout]
        var lastModified: Date
        var coach: String?

        init(_ plan: TrainingPlan, workouts: [Workout], coach: String? = nil) {
            (id, userID, name, notes, startDate, endDate) = (plan.id, plan.userID, plan.name, plan.notes, plan.startDate, plan.endDate)
            (daysPerWeek, isCompleted, lastModified) = (plan.daysPerWeek, plan.isCompleted, plan.lastModified)
            weeklyWorkouts = workouts
            self.coach = coach
        }

        func validated() throws(SyncError) -> NewerPlan { self }
    }

    /// Version 2's plan: version 1's workouts and a coach.
    typealias PlanV2 = NewerPlan<PlannedWorkout>

    /// A device on version 2, signed in as Ada, syncing through the world's remote.
    static func newer<Workout>(_ world: SyncWorld, _ name: String, workouts: Workout.Type = PlannedWorkout.self) throws -> SyncEngine<
        NewerPlan<Workout>
    > {
        let auth = FakeAuthService()
        auth.setCurrentUser(UserEntity(id: "ada", displayName: "Ada", createdAt: world.remoteClock.now, lastSignInAt: world.remoteClock.now))
        let context = TrainContext(clock: world.remoteClock, ids: SequentialIDGenerator(prefix: "\(name)-"))
        return world.variant == .file
            ? try SyncEngine(auth: auth, remote: world.remote, storage: .file(world.directory.file("\(name).sqlite")), context: context)
            : SyncEngine(auth: auth, remote: world.remote, context: context)
    }

    @Test("a field a newer version added survives an older version's edit and upload, back on the newer version", arguments: SyncVariant.allCases)
    func newerToOlderToNewer(_ variant: SyncVariant) async throws {
        let world = try SyncWorld(variant)
        let tablet = try Self.newer(world, "tablet")
        let phone = try world.device("phone")
        let made = try await tablet.create(PlanV2(Fixture.plan("Base"), coach: "Lin"))
        try await tablet.sync()
        try await phone.plans.sync()
        var renamed = try #require(try phone.plans.plan(id: made.id))
        renamed.name = "Renamed on version 1"
        _ = try await phone.plans.updatePlan(renamed)
        try await phone.plans.sync()
        try await tablet.sync()
        let plan = try #require(try tablet.record(id: made.id))
        #expect(plan.name == "Renamed on version 1")
        #expect(plan.coach == "Lin")
        // A third device on version 2 reads the coach from the remote.
        let laptop = try Self.newer(world, "laptop")
        try await laptop.sync()
        #expect(try laptop.record(id: made.id)?.coach == "Lin")
    }

    @Test(
        "an older version's edit and a newer version's edit of the field it added, made at once, both survive on every device",
        arguments: SyncVariant.allCases)
    func olderToNewerToOlder(_ variant: SyncVariant) async throws {
        let world = try SyncWorld(variant)
        let phone = try world.device("phone")
        let tablet = try Self.newer(world, "tablet")
        let made = try await phone.plans.createPlan(Fixture.plan("Base", notes: "first"))
        try await phone.plans.sync()
        try await tablet.sync()
        var coached = try #require(try tablet.record(id: made.id))
        coached.coach = "Lin"
        _ = try await tablet.update(coached)
        var noted = made
        noted.notes = "edited on version 1"
        _ = try await phone.plans.updatePlan(noted)
        world.advance(by: 1)
        try await tablet.sync()
        try await phone.plans.sync()
        try await tablet.sync()
        try await phone.plans.sync()
        #expect(try tablet.record(id: made.id)?.coach == "Lin")
        #expect(try tablet.record(id: made.id)?.notes == "edited on version 1")
        #expect(try phone.plans.plan(id: made.id)?.notes == "edited on version 1")
        // The older device's next edit keeps the coach too.
        var again = try #require(try phone.plans.plan(id: made.id))
        again.daysPerWeek = 5
        _ = try await phone.plans.updatePlan(again)
        try await phone.plans.sync()
        try await tablet.sync()
        #expect(try tablet.record(id: made.id)?.coach == "Lin")
        #expect(try tablet.record(id: made.id)?.daysPerWeek == 5)
        #expect(try phone.plans.conflictLog().isEmpty && tablet.conflictLog().isEmpty)
    }

    @Test(
        "a field the newer version clears stays cleared when the older version edits another field, after it downloaded the clear or at once",
        arguments: [true, false])
    func clearedFieldStaysCleared(olderSawTheClear: Bool) async throws {
        let world = try SyncWorld()
        let tablet = try Self.newer(world, "tablet")
        let phone = try world.device("phone")
        var plan = try await tablet.create(PlanV2(Fixture.plan("Base"), coach: "Lin"))
        try await tablet.sync()
        try await phone.plans.sync()
        plan.coach = nil
        _ = try await tablet.update(plan)
        try await tablet.sync()
        if olderSawTheClear { try await phone.plans.sync() }
        var renamed = try #require(try phone.plans.plan(id: plan.id))
        renamed.name = "Renamed"
        _ = try await phone.plans.updatePlan(renamed)
        try await phone.plans.sync()
        try await tablet.sync()
        #expect(try tablet.record(id: plan.id)?.name == "Renamed")
        #expect(try tablet.record(id: plan.id)?.coach == nil)
    }

    /// A workout as a later version has it, with an intensity inside.
    struct WorkoutV3: Codable, Hashable, Sendable {
        var id: UUID
        var title: String
        var minutes: Int
        var intensity: String?
    }

    @Test("a key a newer version added inside a plan's workouts survives an older version's edit of another field")
    func nestedFieldSurvivesOtherEdit() async throws {
        let world = try SyncWorld()
        let tablet = try Self.newer(world, "tablet", workouts: WorkoutV3.self)
        let phone = try world.device("phone")
        let made = try await tablet.create(
            NewerPlan(Fixture.plan("Base"), workouts: [WorkoutV3(id: UUID(), title: "Intervals", minutes: 40, intensity: "hard")]))
        try await tablet.sync()
        try await phone.plans.sync()
        var renamed = try #require(try phone.plans.plan(id: made.id))
        renamed.name = "Renamed on version 1"
        _ = try await phone.plans.updatePlan(renamed)
        try await phone.plans.sync()
        try await tablet.sync()
        let plan = try #require(try tablet.record(id: made.id))
        #expect(plan.name == "Renamed on version 1")
        #expect(plan.weeklyWorkouts.first?.intensity == "hard")
    }
}

extension ForwardCompatibilityTests.NewerPlan where Workout == PlannedWorkout {
    /// Version 2's plan: `plan` with a coach.
    init(_ plan: TrainingPlan, coach: String?) {
        self.init(plan, workouts: plan.weeklyWorkouts, coach: coach)
    }
}
