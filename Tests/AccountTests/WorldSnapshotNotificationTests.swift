import Foundation
import Testing
import TrainAccount
import TrainCore
import TrainSocial
import TrainTesting

/// The notifications in a world's snapshot: each with the likes, comments, mentions
/// or follows it counts, and what its recipient read and saw.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct WorldSnapshotNotificationTests {

    let clock = ManualClock()
    var configuration: TrainServicesConfiguration { TrainServicesConfiguration(context: TrainContext(clock: clock)) }
    nonisolated static let post = UUID(uuidString: "0196f5a0-0000-7000-8000-000000000001") ?? UUID()
    nonisolated static let comment = UUID(uuidString: "0196f5a0-0000-7000-8000-000000000002") ?? UUID()

    static let people = #"""
        {"version": 1, "users": [{"id": "grace"}, {"id": "ada"}, {"id": "linus"}],
         "posts": [{"id": "\#(post)", "author": "grace", "content": "Intervals"}]}
        """#

    /// Ada likes Grace's post, comments mentioning Linus and follows Grace; Linus likes
    /// it; Grace reads the likes and sees the rest; then Linus comments.
    func notifiedWorld() async throws -> TrainServices {
        let services = try TrainServices.inMemory(from: try WorldSnapshot(json: Data(Self.people.utf8)), configuration: configuration)
        let ada = try services.makeDevice(for: "ada")
        let linus = try services.makeDevice(for: "linus")
        let grace = try services.makeDevice(for: "grace")
        for device in [ada, linus] { _ = try await device.social.unlockFeed(workoutType: .run) }
        try await ada.social.like(Self.post)
        clock.advance(by: .seconds(1))
        _ = try await ada.social.comment(on: Self.post, text: "Fast! \(Mention.token(for: "linus"))")
        try await ada.social.follow("grace")
        clock.advance(by: .seconds(1))
        try await linus.social.like(Self.post)
        let page = try await grace.social.notifications(limit: 20, after: nil)
        if let likes = page.notifications.first(where: { $0.kind == .like }) { try await grace.social.markNotificationRead(likes.id) }
        try await grace.social.markNotificationsSeen()
        clock.advance(by: .seconds(1))
        _ = try await linus.social.comment(on: Self.post, text: "Nice")
        return services
    }

    @Test("notifications export and import to the same bytes, in memory and in files, and their recipients see the same pages and counts")
    func sameNotifications() async throws {
        let original = try await notifiedWorld()
        let first = try original.exportWorld().encoded()
        let snapshot = try WorldSnapshot(json: first)
        #expect(snapshot.notifications.map(\.kind).sorted { $0.rawValue < $1.rawValue } == [.comment, .follow, .like, .mention])
        #expect(snapshot.notifications.first { $0.kind == .like }?.causes.map(\.actor) == ["ada", "linus"])
        #expect(snapshot.notificationsSeen.map(\.user) == ["grace"])
        let imported = try TrainServices.inMemory(from: snapshot, configuration: configuration)
        #expect(try imported.exportWorld().encoded() == first)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("notifications-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try TrainServices.files(in: directory, from: snapshot, configuration: configuration).exportWorld().encoded() == first)
        for user in ["grace", "linus"] {
            let before = try original.makeDevice(for: user)
            let after = try imported.makeDevice(for: user)
            #expect(try await after.social.notifications(limit: 20, after: nil) == before.social.notifications(limit: 20, after: nil), "\(user)")
            #expect(try await after.social.unseenNotificationCount() == before.social.unseenNotificationCount(), "\(user)")
        }
        let grace = try imported.makeDevice(for: "grace")
        let page = try await grace.social.notifications(limit: 20, after: nil)
        #expect(page.notifications.first { $0.kind == .like }?.isRead == true && page.notifications.first { $0.kind == .comment }?.isRead == false)
        #expect(try await grace.social.unseenNotificationCount() == 1, "Linus's comment came after Grace saw the rest")
    }

    @Test("a fixture's notification left at its defaults is unread and unseen, dated at its newest cause, and counts its users")
    func defaults() async throws {
        let json = #"""
            {"version": 1, "users": [{"id": "grace"}, {"id": "ada"}, {"id": "linus"}],
             "posts": [{"id": "\#(Self.post)", "author": "grace", "content": "Intervals"}],
             "likes": [{"user": "ada", "post": "\#(Self.post)"}, {"user": "linus", "post": "\#(Self.post)"}],
             "notifications": [{"recipient": "grace", "kind": "like", "post": "\#(Self.post)",
                                "causes": [{"actor": "ada", "date": "2020-01-01T00:00:00Z"}, {"actor": "linus", "date": "2020-01-02T00:00:00Z"}]}]}
            """#
        let services = try TrainServices.inMemory(from: try WorldSnapshot(json: Data(json.utf8)), signedIn: "grace", configuration: configuration)
        let page = try await services.social.notifications(limit: 20, after: nil)
        let like = try #require(page.notifications.first)
        #expect(like.actorCount == 2 && like.latestActors.map(\.id) == ["linus", "ada"] && !like.isRead && !like.isSeen)
        #expect(like.updatedAt == Date(timeIntervalSince1970: 1_577_923_200))
        #expect(try await services.social.unseenNotificationCount() == 1)
    }

    @Test(
        "a notification the feed would not have made is a typed error naming its path",
        arguments: [
            (#"{"recipient": "bob", "kind": "follow", "causes": [{"actor": "ada"}]}"#, "notifications[0].recipient"),
            (#"{"recipient": "grace", "kind": "follow", "causes": []}"#, "notifications[0].causes"),
            (#"{"recipient": "grace", "kind": "follow", "causes": [{"actor": "grace"}]}"#, "notifications[0].causes[0].actor"),
            (#"{"recipient": "grace", "kind": "like", "causes": [{"actor": "ada"}]}"#, "notifications[0].post"),
            (#"{"recipient": "ada", "kind": "like", "post": "\#(post)", "causes": [{"actor": "grace"}]}"#, "notifications[0].post"),
            (#"{"recipient": "grace", "kind": "comment", "post": "\#(post)", "causes": [{"actor": "ada"}]}"#, "notifications[0].causes[0].comment"),
            (
                #"{"recipient": "grace", "kind": "comment", "post": "\#(post)", "causes": [{"actor": "ada", "comment": "\#(comment)"}]}"#,
                "notifications[0].causes[0].comment"
            ),
            (
                #"{"recipient": "grace", "kind": "like", "post": "\#(post)", "causes": [{"actor": "ada"}, {"actor": "ada"}]}"#,
                "notifications[0].causes[1]"
            ),
            (
                #"{"recipient": "grace", "kind": "follow", "causes": [{"actor": "ada", "date": "2020-01-02T00:00:00Z"}], "updatedAt": "2020-01-01T00:00:00Z"}"#,
                "notifications[0].updatedAt"
            ),
            (
                #"{"recipient": "grace", "kind": "follow", "causes": [{"actor": "ada", "date": "2020-01-01T00:00:00Z"}], "readAt": "2020-01-02T00:00:00Z"}"#,
                "notifications[0].readAt"
            ),
            (#"{"recipient": "ada", "kind": "mention", "post": "\#(post)", "causes": [{"actor": "linus"}]}"#, "notifications[0].causes[0].actor"),
            (#"{"recipient": "grace", "kind": "like", "post": "\#(post)", "causes": [{"actor": "linus"}]}"#, "notifications[0].causes[0].actor"),
            (#"{"recipient": "linus", "kind": "follow", "causes": [{"actor": "ada"}]}"#, "notifications[0].causes[0].actor"),
            (#"{"recipient": "ada", "kind": "mention", "post": "\#(post)", "causes": [{"actor": "grace"}]}"#, "notifications[0].causes[0]"),
            (
                #"{"recipient": "grace", "kind": "follow", "causes": [{"actor": "ada"}], "updatedAt": "2999-01-01T00:00:00Z"}"#,
                "notifications[0].updatedAt"
            ),
        ])
    func refused(notification: String, path: String) throws {
        let json = #"""
            {"version": 1, "users": [{"id": "grace"}, {"id": "ada"}, {"id": "linus"}],
             "posts": [{"id": "\#(Self.post)", "author": "grace", "content": "Intervals"}],
             "likes": [{"user": "ada", "post": "\#(Self.post)"}], "follows": [{"follower": "ada", "followee": "grace"}],
             "notifications": [\#(notification)]}
            """#
        let error = #expect(throws: WorldSnapshotError.self) {
            _ = try TrainServices.inMemory(from: try WorldSnapshot(json: Data(json.utf8)), configuration: configuration)
        }
        #expect(error?.path == path, "\(error?.detail ?? "")")
    }
}
