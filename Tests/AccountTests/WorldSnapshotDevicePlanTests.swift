import Foundation
import Testing
import TrainAccount
import TrainCore
import TrainSync
import TrainTesting

/// A device's plan edits not uploaded yet, in a world's snapshot: an offline user's
/// new plan, edit and deletion are a fixture that the next sync uploads.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct WorldSnapshotDevicePlanTests {

    let clock = ManualClock()
    var configuration: TrainServicesConfiguration { TrainServicesConfiguration(context: TrainContext(clock: clock)) }

    /// Ada with two plans on the remote.
    static let fixture = #"""
        {"version": 1, "users": [{"id": "ada", "email": "ada@example.com", "providers": [{"provider": "emailCode", "subject": "ada@example.com"}]}],
         "plans": [{"id": "00000000-0000-7000-8000-00000000000A", "user": "ada", "name": "Spring 10k",
                    "startDate": "2026-03-02T00:00:00Z", "endDate": "2026-04-26T00:00:00Z", "lastModified": "2001-01-01T00:00:00Z"},
                   {"id": "00000000-0000-7000-8000-00000000000B", "user": "ada", "name": "Old plan",
                    "startDate": "2025-03-02T00:00:00Z", "endDate": "2025-04-26T00:00:00Z", "lastModified": "2001-01-01T00:00:00Z"}]}
        """#

    @Test("a new plan, an edit and a deletion not uploaded export and import to the same bytes, in memory and in files; a sync uploads them")
    func offlineEdits() async throws {
        let services = try TrainServices.inMemory(
            from: try WorldSnapshot(json: Data(Self.fixture.utf8)), signedIn: "ada", configuration: configuration)
        try await services.plans.sync()
        clock.advance(by: .seconds(60))
        var spring = try #require(try services.plans.plans().first { $0.name == "Spring 10k" })
        spring.name = "Spring half marathon"
        spring = try await services.plans.updatePlan(spring)
        let old = try #require(try services.plans.plans().first { $0.name == "Old plan" })
        try await services.plans.deletePlan(id: old.id)
        let made = try await services.plans.createPlan(TrainingPlan(name: "Summer 5k", startDate: clock.now, endDate: clock.now, daysPerWeek: 3))

        let first = try services.exportWorld().encoded()
        let snapshot = try WorldSnapshot(json: first)
        #expect(Set(snapshot.devicePlans.map(\.name)) == ["Spring half marathon", "Summer 5k"])
        #expect(snapshot.devicePlanDeletions == [WorldSnapshot.PlanDeletion(user: "ada", id: old.id, deletedAt: clock.now)])
        #expect(Set(snapshot.plans.map(\.name)) == ["Spring 10k", "Old plan"], "the remote has none of them yet")

        let imported = try TrainServices.inMemory(from: snapshot, signedIn: "ada", configuration: configuration)
        #expect(try imported.exportWorld().encoded() == first)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("device-plans-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try TrainServices.files(in: directory, from: snapshot, configuration: configuration).exportWorld().encoded() == first)

        #expect(try imported.plans.pendingCount() == 3)
        #expect(try imported.plans.status(ofPlan: made.id) == .notSynced)
        clock.advance(by: .seconds(60))
        try await imported.plans.sync()
        let after = try imported.exportWorld()
        #expect(after.devicePlans.isEmpty && after.devicePlanDeletions.isEmpty)
        #expect(Set(after.plans.map(\.name)) == ["Spring half marathon", "Summer 5k"], "the edit won over the remote's older version")
        #expect(Set(try imported.plans.plans().map(\.name)) == ["Spring half marathon", "Summer 5k"])
    }

    @Test("an edit older than the remote's version loses to it at the next sync, field by field, as a late upload does")
    func olderEditLoses() async throws {
        var snapshot = try WorldSnapshot(json: Data(Self.fixture.utf8))
        snapshot.plans[0].lastModified = clock.now
        var edit = snapshot.plans[0]
        edit.name = "Stale rename"
        edit.lastModified = clock.now.addingTimeInterval(-3_600)
        snapshot.devicePlans = [edit]
        let services = try TrainServices.inMemory(from: snapshot, signedIn: "ada", configuration: configuration)
        clock.advance(by: .seconds(60))
        try await services.plans.sync()
        #expect(try services.exportWorld().plans.first { $0.id == edit.id }?.name == "Spring 10k")
    }

    @Test(
        "a device edit of a user the world lacks, listed twice or deleted too, dated after now or finer than the millisecond is a typed error naming its path",
        arguments: [
            (
                #""devicePlans": [{"user": "bob", "name": "X", "startDate": "2026-03-02T00:00:00Z", "endDate": "2026-03-02T00:00:00Z"}]"#,
                WorldSnapshotError.Code.danglingReference, "devicePlans[0].user"
            ),
            (
                #""devicePlanDeletions": [{"user": "bob", "id": "00000000-0000-7000-8000-00000000000A"}]"#, .danglingReference,
                "devicePlanDeletions[0].user"
            ),
            (
                #""devicePlanDeletions": [{"user": "ada", "id": "00000000-0000-7000-8000-00000000000A", "deletedAt": "2001-01-01T00:00:00.0005Z"}]"#,
                .invalidValue, "devicePlanDeletions[0].deletedAt"
            ),
            (
                #""devicePlans": [{"id": "00000000-0000-7000-8000-00000000000C", "user": "ada", "name": "X", "startDate": "2026-03-02T00:00:00Z", "endDate": "2026-03-02T00:00:00Z"}, {"id": "00000000-0000-7000-8000-00000000000C", "user": "ada", "name": "Y", "startDate": "2026-03-02T00:00:00Z", "endDate": "2026-03-02T00:00:00Z"}]"#,
                .duplicateID, "devicePlans[1].id"
            ),
            (
                #""devicePlans": [{"id": "00000000-0000-7000-8000-00000000000C", "user": "ada", "name": "X", "startDate": "2026-03-02T00:00:00Z", "endDate": "2026-03-02T00:00:00Z"}], "devicePlanDeletions": [{"user": "ada", "id": "00000000-0000-7000-8000-00000000000C"}]"#,
                .duplicateID, "devicePlanDeletions[0].id"
            ),
            (
                #""devicePlanDeletions": [{"user": "ada", "id": "00000000-0000-7000-8000-00000000000A", "deletedAt": "2999-01-01T00:00:00Z"}]"#,
                .invalidValue, "devicePlanDeletions[0].deletedAt"
            ),
            (
                #""devicePlans": [{"user": "ada", "name": " X", "startDate": "2026-03-02T00:00:00Z", "endDate": "2026-03-02T00:00:00Z"}]"#,
                .invalidValue, "devicePlans[0].name"
            ),
        ])
    func refused(lists: String, code: WorldSnapshotError.Code, path: String) throws {
        let json = """
            {"version": 1, "users": [{"id": "ada"}, {"id": "grace"}],
             "plans": [{"id": "00000000-0000-7000-8000-00000000000A", "user": "ada", "name": "Spring 10k", "startDate": "2026-03-02T00:00:00Z", "endDate": "2026-04-26T00:00:00Z"}],
             \(lists)}
            """
        let error = #expect(throws: WorldSnapshotError(code)) {
            try TrainServices.inMemory(from: try WorldSnapshot(json: Data(json.utf8)), configuration: configuration)
        }
        #expect(error?.path == path)
    }

    /// The fixture imported with Ada signed in, synced, a minute later.
    func synced() async throws -> TrainServices {
        let services = try TrainServices.inMemory(
            from: try WorldSnapshot(json: Data(Self.fixture.utf8)), signedIn: "ada", configuration: configuration)
        try await services.plans.sync()
        clock.advance(by: .seconds(60))
        return services
    }

    @Test(
        "an edit of a downloaded plan, even in the millisecond of the remote's version, is pending upload over it after the import and replaces it at the sync, with no conflict"
    )
    func editOfRemoteVersion() async throws {
        let services = try TrainServices.inMemory(
            from: try WorldSnapshot(json: Data(Self.fixture.utf8)), signedIn: "ada", configuration: configuration)
        try await services.plans.sync()
        var spring = try #require(try services.plans.plans().first { $0.name == "Spring 10k" })
        spring.name = "Renamed"
        spring = try await services.plans.updatePlan(spring)
        let old = try #require(try services.plans.plans().first { $0.name == "Old plan" })
        try await services.plans.deletePlan(id: old.id)
        let imported = try TrainServices.inMemory(from: try services.exportWorld(), signedIn: "ada", configuration: configuration)
        #expect(try imported.plans.status(ofPlan: spring.id) == .pendingUpload)
        for stack in [services, imported] {
            let report = try await stack.plans.sync()
            #expect(report.conflicts == 0 && report.uploaded == 2)
            #expect(try stack.plans.conflictLog().isEmpty)
            #expect(try stack.exportWorld().plans.map(\.name) == ["Renamed"])
        }
    }

    @Test("an edit of a plan another device deleted is left out of the export: the deletion wins at the next sync, in the original and in the import")
    func deletedElsewhere() async throws {
        let services = try await synced()
        let tablet = try services.makeDevice(for: "ada")
        try await tablet.plans.sync()
        var spring = try #require(try services.plans.plans().first { $0.name == "Spring 10k" })
        spring.notes = "offline note"
        _ = try await services.plans.updatePlan(spring)
        try await tablet.plans.deletePlan(id: spring.id)
        try await tablet.plans.sync()
        let snapshot = try services.exportWorld()
        #expect(snapshot.devicePlans.isEmpty)
        let imported = try TrainServices.inMemory(from: snapshot, signedIn: "ada", configuration: configuration)
        for stack in [services, imported] {
            try await stack.plans.sync()
            #expect(try stack.exportWorld().plans.map(\.name) == ["Old plan"])
        }
    }

    @Test("two users' plans of one ID, one on the remote and one new on the device, export and import to the same bytes")
    func oneIDTwoUsers() async throws {
        let json = #"""
            {"version": 1, "users": [{"id": "ada"}, {"id": "grace"}],
             "plans": [{"id": "00000000-0000-7000-8000-00000000000A", "user": "grace", "name": "Grace's", "startDate": "2026-03-02T00:00:00Z", "endDate": "2026-04-26T00:00:00Z"}],
             "devicePlans": [{"id": "00000000-0000-7000-8000-00000000000A", "user": "ada", "name": "Ada's", "startDate": "2026-03-02T00:00:00Z", "endDate": "2026-04-26T00:00:00Z"}]}
            """#
        let services = try TrainServices.inMemory(from: try WorldSnapshot(json: Data(json.utf8)), signedIn: "ada", configuration: configuration)
        let first = try services.exportWorld().encoded()
        #expect(try TrainServices.inMemory(from: try WorldSnapshot(json: first), configuration: configuration).exportWorld().encoded() == first)
        try await services.plans.sync()
        let synced = try services.exportWorld()
        #expect(synced.plans.map(\.name).sorted() == ["Ada's", "Grace's"])
        #expect(try TrainServices.inMemory(from: synced, configuration: configuration).exportWorld().encoded() == synced.encoded())
    }

    @Test(
        "a plan whose characters the services allow but whose bytes the remote does not take is refused at its path, on the remote and on the device",
        arguments: [false, true])
    func overTheRemotesLimit(onDevice: Bool) throws {
        // 10,000 characters of 101 code points each: within a plan's limit, over 1 MiB.
        var plan = WorldSnapshot.Plan(user: "ada", name: "Heavy", startDate: clock.now, endDate: clock.now)
        plan.notes = String(repeating: "e" + String(repeating: "\u{301}", count: 100), count: 10_000)
        var snapshot = WorldSnapshot(users: [WorldSnapshot.User(id: "ada")])
        if onDevice { snapshot.devicePlans = [plan] } else { snapshot.plans = [plan] }
        let error = #expect(throws: WorldSnapshotError(.invalidValue)) { try TrainServices.inMemory(from: snapshot, configuration: configuration) }
        #expect(error?.path == (onDevice ? "devicePlans[0]" : "plans[0]"))
    }
}
