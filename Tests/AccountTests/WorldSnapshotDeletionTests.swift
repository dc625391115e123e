import Foundation
import Testing
import TrainAccount
import TrainAuth
import TrainCore
import TrainSocial
import TrainTesting

/// Account deletions asked for and not purged, in a world's snapshot: one in its grace
/// period comes back hidden and restorable, one that is due is purged by the stack the
/// snapshot starts.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct WorldSnapshotDeletionTests {

    let clock = ManualClock()
    var configuration: TrainServicesConfiguration { TrainServicesConfiguration(context: TrainContext(clock: clock)) }

    /// Ada, who signs in by email code, with a post; Grace follows her, feed unlocked.
    static let world = #"""
        {"version": 1,
         "users": [{"id": "ada", "email": "ada@example.com", "providers": [{"provider": "emailCode", "subject": "ada@example.com"}]},
                   {"id": "grace"}],
         "follows": [{"follower": "grace", "followee": "ada"}],
         "posts": [{"author": "ada", "content": "10 km"}],
         "unlocks": [{"user": "grace", "workoutType": "run"}]
        """#

    func snapshot(deletions: String? = nil) throws -> WorldSnapshot {
        try WorldSnapshot(json: Data((Self.world + (deletions.map { #", "deletions": \#($0)}"# } ?? "}")).utf8))
    }

    func friendsFeed(of services: TrainServices, as userID: String) async throws -> [String] {
        let device = try services.makeDevice(for: userID)
        return try await device.social.friendsFeed(limit: 10, after: nil).posts.map(\.content)
    }

    @Test("a deletion in its grace period exports and imports to the same bytes: the user stays hidden, sees the deletion and can restore it")
    func gracePeriod() async throws {
        let services = try TrainServices.inMemory(from: try snapshot(), signedIn: "ada", configuration: configuration)
        let scheduled = try await services.account.scheduleDeletion(of: "ada")
        let first = try services.exportWorld().encoded()
        let exported = try WorldSnapshot(json: first)
        #expect(exported.deletions == [WorldSnapshot.Deletion(user: "ada", purgeAt: scheduled.purgeAt)])
        #expect(exported.posts.count == 1, "a deletion in its grace period deletes nothing yet")

        let imported = try TrainServices.inMemory(from: exported, signedIn: "ada", configuration: configuration)
        #expect(try imported.exportWorld().encoded() == first)
        #expect(try imported.account.scheduledDeletion()?.purgeAt == scheduled.purgeAt)
        #expect(try await friendsFeed(of: imported, as: "grace").isEmpty, "hidden from the users who follow her")
        try await imported.account.restoreAccount()
        #expect(try imported.exportWorld().deletions.isEmpty)
        #expect(try await friendsFeed(of: imported, as: "grace") == ["10 km"])
    }

    @Test(
        "a deletion whose grace period ended, or whose purge began, is purged by the stack it is imported into, in memory and in files",
        arguments: [#"[{"user": "ada"}]"#, #"[{"user": "ada", "purgeAt": "2001-01-01T00:00:00Z"}]"#], [false, true])
    func duePurge(deletions: String, inFiles: Bool) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("deletions-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let snapshot = try snapshot(deletions: deletions)
        let services =
            inFiles
            ? try TrainServices.files(in: directory, from: snapshot, configuration: configuration)
            : try TrainServices.inMemory(from: snapshot, configuration: configuration)
        let report = try await services.account.deletionCompletion(of: "ada")
        #expect(report.social.posts == 1 && report.finishedAt != nil)
        let after = try services.exportWorld()
        #expect(after.users.map(\.id) == ["grace"] && after.posts.isEmpty && after.follows.isEmpty && after.deletions.isEmpty)
    }

    @Test("a purge that has begun is written without a date and read back as one")
    func begunPurge() throws {
        var snapshot = WorldSnapshot(users: [WorldSnapshot.User(id: "ada")])
        snapshot.deletions = [WorldSnapshot.Deletion(user: "ada")]
        let json = try snapshot.encoded()
        #expect(String(decoding: json, as: UTF8.self).contains("\"deletions\" : [\n    {\n      \"user\" : \"ada\"\n    }\n  ]"))
        #expect(try WorldSnapshot(json: json) == snapshot)
    }

    @Test(
        "a deletion of a user the world lacks, listed twice, or of the user signed in at the import while it is due is a typed error naming its path",
        arguments: [
            (#"[{"user": "bob"}]"#, "ada", WorldSnapshotError.Code.danglingReference, "deletions[0].user"),
            (#"[{"user": "ada", "purgeAt": "2030-01-01T00:00:00Z"}, {"user": "ada"}]"#, "grace", .duplicateID, "deletions[1].user"),
            (#"[{"user": "ada"}]"#, "ada", .invalidValue, "deletions[0].purgeAt"),
            (#"[{"user": "ada", "purgeAt": "2001-01-01T00:00:00Z"}]"#, "ada", .invalidValue, "deletions[0].purgeAt"),
            (#"[{"user": "ada", "when": "2030-01-01T00:00:00Z"}]"#, "ada", .unreadable, "deletions[0].when"),
        ])
    func refused(deletions: String, signedIn: String, code: WorldSnapshotError.Code, path: String) throws {
        let error = #expect(throws: WorldSnapshotError(code)) {
            try TrainServices.inMemory(from: try snapshot(deletions: deletions), signedIn: signedIn, configuration: configuration)
        }
        #expect(error?.path == path)
    }

    @Test("a grace period that ends after the import purges the user on the stack's clock")
    func graceEndsLater() async throws {
        let purgeAt = clock.now.addingTimeInterval(3_600)
        var snapshot = try snapshot()
        snapshot.deletions = [WorldSnapshot.Deletion(user: "ada", purgeAt: purgeAt)]
        let services = try TrainServices.inMemory(from: snapshot, configuration: configuration)
        #expect(try services.exportWorld().users.count == 2)
        await clock.waitForSleeper(wakingBy: purgeAt)
        clock.advance(by: .seconds(3_600))
        let report = try await services.account.deletionCompletion(of: "ada")
        #expect(report.social.posts == 1)
        #expect(try services.exportWorld().users.map(\.id) == ["grace"])
    }
}
