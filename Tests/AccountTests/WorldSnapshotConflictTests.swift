import Foundation
import Testing
import TrainAccount
import TrainCore
import TrainSync
import TrainTesting

/// The device's conflict log in a world's snapshot: the values a device's edits lost
/// to another device's are still listed after an import, as an app shows them.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct WorldSnapshotConflictTests {

    let clock = ManualClock()
    var configuration: TrainServicesConfiguration { TrainServicesConfiguration(context: TrainContext(clock: clock)) }

    /// Ada's plan renamed on the phone, then on the tablet, which syncs first: at the
    /// phone's sync its older name loses to the tablet's.
    func lostRename() async throws -> TrainServices {
        let services = TrainServices.inMemory(configuration: configuration)
        services.appleID.signIn(as: .ada)
        _ = try await services.auth.signInWithApple()
        let plan = try await services.plans.createPlan(TrainingPlan(name: "Spring 10k", startDate: clock.now, endDate: clock.now, daysPerWeek: 3))
        try await services.plans.sync()
        let tablet = try services.makeDevice(for: try #require(services.auth.currentUser?.id))
        try await tablet.plans.sync()
        clock.advance(by: .seconds(60))
        var renamed = plan
        renamed.name = "Phone name"
        _ = try await services.plans.updatePlan(renamed)
        clock.advance(by: .seconds(60))
        renamed.name = "Tablet name"
        _ = try await tablet.plans.updatePlan(renamed)
        try await tablet.plans.sync()
        clock.advance(by: .seconds(60))
        try await services.plans.sync()
        return services
    }

    @Test("a device's conflict log exports with each lost value and imports to the same log and bytes, in memory and in files")
    func conflictLogRoundTrip() async throws {
        let original = try await lostRename()
        let log = try original.plans.conflictLog()
        let name = try #require(log.first { $0.field == "name" }, "\(log.map(\.field))")
        #expect(try name.losingValue(as: String.self) == "Phone name")
        let snapshot = try original.exportWorld()
        let ada = try #require(original.auth.currentUser?.id)
        #expect(snapshot.deviceConflicts.count == log.count)
        #expect(
            snapshot.deviceConflicts.filter { $0.field == "name" }.map { [$0.user, $0.losingValue, $0.winningValue] } == [
                [ada, #""Phone name""#, #""Tablet name""#]
            ])
        let first = try snapshot.encoded()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("conflicts-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let imported = try TrainServices.inMemory(from: try WorldSnapshot(json: first), signedIn: ada, configuration: configuration)
        #expect(try imported.plans.conflictLog() == log)
        #expect(try imported.exportWorld().encoded() == first)
        let inFiles = try TrainServices.files(in: directory, from: try WorldSnapshot(json: first), configuration: configuration)
        #expect(try inFiles.exportWorld().encoded() == first)
    }

    @Test("a fixture's conflicts are the signed-in user's log, oldest first, with their values as the app reads them")
    func fixture() throws {
        let plan = UUID()
        var world = WorldSnapshot(users: [WorldSnapshot.User(id: "ada"), WorldSnapshot.User(id: "grace")])
        world.deviceConflicts = [
            WorldSnapshot.PlanConflict(
                user: "ada", plan: plan, field: "daysPerWeek", losingValue: "4", winningValue: "3", resolvedAt: clock.now.addingTimeInterval(-60)),
            WorldSnapshot.PlanConflict(user: "grace", plan: plan, field: "name", losingValue: #""Grace's""#, winningValue: #""Other""#),
            WorldSnapshot.PlanConflict(
                user: "ada", plan: plan, field: "notes", losingValue: "null", winningValue: #""Easy""#, resolvedAt: clock.now.addingTimeInterval(-120)
            ),
        ]
        let services = try TrainServices.inMemory(from: world, signedIn: "ada", configuration: configuration)
        let log = try services.plans.conflictLog()
        #expect(log.map(\.field) == ["notes", "daysPerWeek"])
        #expect(try log.last?.losingValue(as: Int.self) == 4)
        #expect(log.allSatisfy { $0.recordID == plan })
    }

    @Test(
        "a conflict of a user the world lacks, with no field's name, a value that is not JSON, or dated after now is refused at its path",
        arguments: [
            (#"{"user": "bob", "plan": "00000000-0000-7000-8000-00000000000A", "field": "name", "losingValue": "1", "winningValue": "2"}"#, "user"),
            (#"{"user": "ada", "plan": "00000000-0000-7000-8000-00000000000A", "field": "", "losingValue": "1", "winningValue": "2"}"#, "field"),
            (
                #"{"user": "ada", "plan": "00000000-0000-7000-8000-00000000000A", "field": "name", "losingValue": "Phone name", "winningValue": "2"}"#,
                "losingValue"
            ),
            (
                #"{"user": "ada", "plan": "00000000-0000-7000-8000-00000000000A", "field": "name", "losingValue": "1", "winningValue": ""}"#,
                "winningValue"
            ),
            (
                #"{"user": "ada", "plan": "00000000-0000-7000-8000-00000000000A", "field": "name", "losingValue": "1", "winningValue": "2", "resolvedAt": "2999-01-01T00:00:00Z"}"#,
                "resolvedAt"
            ),
        ])
    func refused(conflict: String, field: String) throws {
        let json = #"{"version": 1, "users": [{"id": "ada"}], "deviceConflicts": [\#(conflict)]}"#
        let error = #expect(throws: WorldSnapshotError.self) {
            try TrainServices.inMemory(from: try WorldSnapshot(json: Data(json.utf8)), configuration: configuration)
        }
        #expect(error?.path == "deviceConflicts[0].\(field)", "\(error?.detail ?? "")")
    }
}
