import Foundation
import Testing
import TrainAccount
import TrainCore
import TrainSync
import TrainTesting

/// A world's training plans in its snapshot: the remote's plans exported, imported as
/// another device's uploads, and checked at the import like the rest of the document.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct WorldSnapshotPlanTests {

    let clock = ManualClock()
    var configuration: TrainServicesConfiguration { TrainServicesConfiguration(context: TrainContext(clock: clock)) }

    /// Ada with one hand-written plan: no IDs, no `lastModified`.
    static let fixture = #"""
        {"version": 1, "users": [{"id": "ada"}],
         "plans": [{"user": "ada", "name": "Spring 10k", "startDate": "2026-03-02T00:00:00Z", "endDate": "2026-04-26T00:00:00Z",
                    "weeklyWorkouts": [{"title": "Easy run", "minutes": 40}, {"title": "Intervals", "minutes": 50}]}]}
        """#

    @Test("an imported plan is on the remote: a device has it after its first sync, with the documented defaults")
    func importedPlansDownload() async throws {
        let services = try TrainServices.inMemory(
            from: try WorldSnapshot(json: Data(Self.fixture.utf8)), signedIn: "ada", configuration: configuration)
        #expect(try services.plans.plans().isEmpty, "not on the device before it syncs")
        let report = try await services.plans.sync()
        #expect(report.downloaded == 1)
        let plan = try #require(try services.plans.plans().first)
        #expect(plan.name == "Spring 10k" && plan.userID == "ada" && plan.notes.isEmpty && !plan.isCompleted)
        #expect(plan.daysPerWeek == 2, "the number of workouts")
        #expect(plan.weeklyWorkouts.map(\.title) == ["Easy run", "Intervals"])
        #expect(Set(plan.weeklyWorkouts.map(\.id)).count == 2)
        #expect(plan.lastModified == clock.now)
        #expect(try services.plans.status(ofPlan: plan.id) == .synced)
    }

    @Test("two users whose IDs only look alike each keep their own plan on the remote")
    func lookAlikeUsers() async throws {
        let composed = "\u{E9}"
        let decomposed = "e\u{301}"
        var world = WorldSnapshot(users: [WorldSnapshot.User(id: composed), WorldSnapshot.User(id: decomposed)])
        let day = clock.now
        world.plans = [
            WorldSnapshot.Plan(user: composed, name: "Composed", startDate: day, endDate: day),
            WorldSnapshot.Plan(user: decomposed, name: "Decomposed", startDate: day, endDate: day),
        ]
        let services = try TrainServices.inMemory(from: world, configuration: configuration)
        for (user, name) in [(composed, "Composed"), (decomposed, "Decomposed")] {
            let device = try services.makeDevice(for: user)
            try await device.plans.sync()
            #expect(try device.plans.plans().map(\.name) == [name])
        }
        #expect(try services.exportWorld().plans.map(\.name).sorted() == ["Composed", "Decomposed"])
    }

    @Test("an edit made after the import wins over the imported plan on the user's other device, and the next export holds it")
    func laterEditWins() async throws {
        let services = try TrainServices.inMemory(
            from: try WorldSnapshot(json: Data(Self.fixture.utf8)), signedIn: "ada", configuration: configuration)
        try await services.plans.sync()
        var plan = try #require(try services.plans.plans().first)
        clock.advance(by: .seconds(60))
        plan.name = "Spring half"
        _ = try await services.plans.updatePlan(plan)
        let unsynced = try services.exportWorld()
        #expect(unsynced.plans.map(\.name) == ["Spring 10k"], "an edit not uploaded yet is not on the remote")
        try await services.plans.sync()
        let tablet = try services.makeDevice(for: "ada")
        try await tablet.plans.sync()
        #expect(try tablet.plans.plans().map(\.name) == ["Spring half"])
        #expect(try services.exportWorld().plans.map(\.name) == ["Spring half"])
    }

    @Test("plans made and synced by calls export and import to the same bytes, in memory and in files")
    func sameBytes() async throws {
        let services = TrainServices.inMemory(configuration: configuration)
        services.appleID.signIn(as: .ada)
        _ = try await services.auth.signInWithApple()
        let start = clock.now
        _ = try await services.plans.createPlan(
            TrainingPlan(
                name: "Base", notes: "Keep it easy", startDate: start, endDate: start.addingTimeInterval(28 * 86_400), daysPerWeek: 3,
                weeklyWorkouts: [PlannedWorkout(title: "Long run", minutes: 90)]))
        let done = try await services.plans.createPlan(
            TrainingPlan(name: "Winter", startDate: start, endDate: start, daysPerWeek: 7, isCompleted: true))
        try await services.plans.sync()
        try await services.plans.deletePlan(id: done.id)
        try await services.plans.sync()
        let first = try services.exportWorld().encoded()
        let snapshot = try WorldSnapshot(json: first)
        #expect(snapshot.plans.map(\.name) == ["Base"], "a deleted plan is left out")
        #expect(try TrainServices.inMemory(from: snapshot, configuration: configuration).exportWorld().encoded() == first)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("plans-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try TrainServices.files(in: directory, from: snapshot, configuration: configuration).exportWorld().encoded() == first)
    }

    @Test(
        "a plan the services would not store is a typed error naming its path",
        arguments: [
            (#"{"user": "bob", "name": "x", "startDate": "2026-03-02T00:00:00Z", "endDate": "2026-03-02T00:00:00Z"}"#, "plans[0].user"),
            (#"{"user": "ada", "name": " x", "startDate": "2026-03-02T00:00:00Z", "endDate": "2026-03-02T00:00:00Z"}"#, "plans[0].name"),
            (#"{"user": "ada", "name": "x", "startDate": "2026-03-02T00:00:00Z", "endDate": "2026-03-01T00:00:00Z"}"#, "plans[0]"),
            (
                #"{"user": "ada", "name": "x", "daysPerWeek": 8, "startDate": "2026-03-02T00:00:00Z", "endDate": "2026-03-02T00:00:00Z"}"#,
                "plans[0]"
            ),
            (
                #"{"user": "ada", "name": "x", "startDate": "2026-03-02T00:00:00Z", "endDate": "2026-03-02T00:00:00Z", "weeklyWorkouts": [{"title": "Run", "minutes": 0}]}"#,
                "plans[0]"
            ),
            (
                #"{"user": "ada", "name": "x", "startDate": "2026-03-02T00:00:00Z", "endDate": "2026-03-02T00:00:00Z", "lastModified": "2999-01-01T00:00:00Z"}"#,
                "plans[0].lastModified"
            ),
            (#"{"user": "ada", "name": "x", "startDate": "2026-03-02T00:00:00Z", "end": "2026-03-02T00:00:00Z"}"#, "plans[0].end"),
        ])
    func refusedPlan(plan: String, path: String) throws {
        let json = #"{"version": 1, "users": [{"id": "ada"}], "plans": [\#(plan)]}"#
        let error = #expect(throws: WorldSnapshotError.self) {
            _ = try TrainServices.inMemory(from: try WorldSnapshot(json: Data(json.utf8)), configuration: configuration)
        }
        #expect(error?.path == path, "\(error?.detail ?? "")")
    }

    @Test("two plans with one ID, or a plan listing a workout twice, are refused")
    func duplicates() throws {
        let id = "0196f5a0-0000-7000-8000-0000000000aa"
        let plan = #"{"id": "\#(id)", "user": "ada", "name": "x", "startDate": "2026-03-02T00:00:00Z", "endDate": "2026-03-02T00:00:00Z"}"#
        let twice = try WorldSnapshot(json: Data(#"{"version": 1, "users": [{"id": "ada"}], "plans": [\#(plan), \#(plan)]}"#.utf8))
        let duplicate = #expect(throws: WorldSnapshotError.self) { try TrainServices.inMemory(from: twice, configuration: configuration) }
        #expect(duplicate?.code == .duplicateID && duplicate?.path == "plans[1].id")
        let workout = #"{"id": "\#(id)", "title": "Run", "minutes": 30}"#
        var repeated = try WorldSnapshot(json: Data(#"{"version": 1, "users": [{"id": "ada"}], "plans": [\#(plan)]}"#.utf8))
        repeated.plans[0].weeklyWorkouts = try JSONDecoder().decode([WorldSnapshot.Plan.Workout].self, from: Data("[\(workout), \(workout)]".utf8))
        let error = #expect(throws: WorldSnapshotError.self) { try TrainServices.inMemory(from: repeated, configuration: configuration) }
        #expect(error?.code == .invalidValue && error?.path == "plans[0]")
    }

    @Test("a stack with the app's own remote refuses a world with plans, and cannot export its plans")
    func appsOwnRemote() async throws {
        var own = configuration
        own.remote = LocalRemotePlanStore(context: TrainContext(clock: clock))
        let snapshot = try WorldSnapshot(json: Data(Self.fixture.utf8))
        let refused = #expect(throws: WorldSnapshotError.self) { try TrainServices.inMemory(from: snapshot, configuration: own) }
        #expect(refused?.code == .notImported && refused?.path == "plans")
        var planless = snapshot
        planless.plans = []
        let services = try TrainServices.inMemory(from: planless, configuration: own)
        own.remote = FailingRemote()
        let elsewhere = TrainServices.inMemory(configuration: own)
        #expect(throws: AccountError(.notSupported)) { try elsewhere.exportWorld() }
        #expect(try services.exportWorld().plans.isEmpty, "a simulated remote of the app's is read")
    }

    /// A remote the stack cannot read: the app's own.
    struct FailingRemote: RemotePlanStore {
        func write(_ mutations: [RemoteMutation], in scope: RemoteScope) async throws -> RemoteWriteResponse {
            throw RemoteStoreError(.unavailable)
        }
        func changes(in scope: RemoteScope, after cursor: UInt64, limit: Int) async throws -> RemotePage { throw RemoteStoreError(.unavailable) }
        func snapshot(in scope: RemoteScope, after recordID: UUID?, limit: Int) async throws -> RemotePage {
            throw RemoteStoreError(.unavailable)
        }
        func erase(_ scope: RemoteScope) async throws -> Int { throw RemoteStoreError(.unavailable) }
    }
}
