import Foundation
import Testing
import TrainAccount
import TrainAuth
import TrainCore
import TrainSocial
import TrainSubscription
import TrainTesting

/// Reading and importing a world's snapshot is a trust boundary: each thing wrong is a
/// typed error naming its path, and nothing is imported.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct WorldSnapshotImportTests {

    let clock = ManualClock()
    var configuration: TrainServicesConfiguration { TrainServicesConfiguration(context: TrainContext(clock: clock)) }
    nonisolated static let post = "0196f5a0-0000-7000-8000-000000000001"

    /// Reads and imports `json`, returning the error it throws.
    func failure(_ json: String) -> WorldSnapshotError? {
        do {
            _ = try TrainServices.inMemory(from: try WorldSnapshot(json: Data(json.utf8)), configuration: configuration)
            return nil
        } catch {
            return error
        }
    }

    @Test(
        "a document the format refuses is a typed error naming the path of what is wrong",
        arguments: [
            (#"{"version": 2, "users": []}"#, WorldSnapshotError.Code.unsupportedVersion, "version"),
            (#"{"users": []}"#, .unreadable, "version"),
            (#"not json"#, .unreadable, ""),
            (#"{"version": 1, "follws": []}"#, .unreadable, "follws"),
            (#"{"version": 1, "users": [{"id": "ada", "displayname": "Ada"}]}"#, .unreadable, "users[0].displayname"),
            (#"{"version": 1, "users": [{"id": 5}]}"#, .unreadable, "users[0].id"),
            (#"{"version": 1, "users": [{"id": "ada", "createdAt": "2026-02-30T00:00:00Z"}]}"#, .unreadable, "users[0].createdAt"),
            (#"{"version": 1, "users": [{"id": "ada"}, {"id": "ada"}]}"#, .duplicateID, "users[1].id"),
            (#"{"version": 1, "users": [{"id": "a\u0000b"}]}"#, .invalidValue, "users[0].id"),
            (
                #"{"version": 1, "users": [{"id": "a", "email": "x@example.com"}, {"id": "b", "email": "X@Example.com"}]}"#, .duplicateID,
                "users[1].email"
            ),
            (
                #"{"version": 1, "users": [{"id": "ada"}], "follows": [{"follower": "ada", "followee": "bob"}]}"#, .danglingReference,
                "follows[0].followee"
            ),
            (#"{"version": 1, "users": [{"id": "ada"}], "follows": [{"follower": "ada", "followee": "ada"}]}"#, .invalidValue, "follows[0]"),
            (
                #"{"version": 1, "users": [{"id": "a"}, {"id": "b"}], "blocks": [{"blocker": "a", "blocked": "b"}], "follows": [{"follower": "b", "followee": "a"}]}"#,
                .invalidValue, "follows[0]"
            ),
            (#"{"version": 1, "users": [{"id": "a"}], "likes": [{"user": "a", "post": "\#(post)"}]}"#, .danglingReference, "likes[0].post"),
            (
                #"{"version": 1, "users": [{"id": "a"}], "posts": [{"id": "\#(post)", "author": "a", "content": "x"}, {"id": "\#(post)", "author": "a", "content": "y"}]}"#,
                .duplicateID, "posts[1].id"
            ),
            (
                #"{"version": 1, "users": [{"id": "a"}], "posts": [{"author": "a", "content": "x", "likeCount": 3}]}"#, .countMismatch,
                "posts[0].likeCount"
            ),
            (#"{"version": 1, "users": [{"id": "a"}], "posts": [{"author": "a", "content": " padded"}]}"#, .invalidValue, "posts[0].content"),
            (
                #"{"version": 1, "users": [{"id": "a"}], "purchases": [{"user": "a", "product": "com.example.nope"}]}"#, .danglingReference,
                "purchases[0].product"
            ),
            (
                #"{"version": 1, "users": [{"id": "a"}], "purchases": [{"user": "b", "product": "com.train.pro.monthly"}]}"#, .danglingReference,
                "purchases[0].user"
            ),
            (#"{"version": 1, "users": [{"id": "a", "password": "long enough"}]}"#, .invalidValue, "users[0].email"),
            (#"{"version": 1, "users": [{"id": "a", "email": "a@example.com", "password": "short"}]}"#, .invalidValue, "users[0].password"),
            (
                #"{"version": 1, "users": [{"id": "a", "email": "a@example.com", "password": "long enough", "providers": [{"provider": "apple.com", "subject": "a"}]}]}"#,
                .invalidValue, "users[0].providers"
            ),
            (
                #"{"version": 1, "users": [{"id": "a", "email": "a@example.com", "passwordHash": {"algorithm": "md5", "iterations": 1, "salt": "AA==", "hash": "AA=="}}]}"#,
                .invalidValue, "users[0].passwordHash"
            ),
            (#"{"version": 1, "tokenSigningKey": "AAAA"}"#, .invalidValue, "tokenSigningKey"),
            (#"{"version": 1, "users": [{"id": "a", "createdAt": "2999-01-01T00:00:00Z"}]}"#, .invalidValue, "users[0].createdAt"),
            (
                #"{"version": 1, "users": [{"id": "a"}], "posts": [{"author": "a", "content": "x", "createdAt": "2999-01-01T00:00:00Z"}]}"#,
                .invalidValue, "posts[0].createdAt"
            ),
            (
                #"{"version": 1, "users": [{"id": "a"}], "posts": [{"author": "a", "content": "x", "expiresAt": "9999-12-31T23:59:59.9999Z"}]}"#,
                .invalidValue, "posts[0].expiresAt"
            ),
            (#"{"version": 1, "users": [{"id": "a", "createdAt": "9999-12-31T23:59:59.9999999Z"}]}"#, .unreadable, "users[0].createdAt"),
            (
                #"{"version": 1, "users": [{"id": "\u00e9"}], "posts": [{"author": "e\u0301", "content": "x"}]}"#, .danglingReference,
                "posts[0].author"
            ),
            (
                #"{"version": 1, "users": [{"id": "a"}], "posts": [{"author": "a", "content": "x", "workoutType": ""}]}"#, .invalidValue,
                "posts[0].workoutType"
            ),
            (#"{"version": 1, "users": [{"id": "a", "photoURL": "javascript:alert(1)"}]}"#, .invalidValue, "users[0].photoURL"),
            (
                #"{"version": 1, "users": [{"id": "a", "providers": [{"provider": "phone", "subject": "call me"}]}]}"#, .invalidValue,
                "users[0].providers[0].subject"
            ),
            (
                #"{"version": 1, "users": [{"id": "a", "providers": [{"provider": "emailCode", "subject": "ADA@X.COM"}]}]}"#, .invalidValue,
                "users[0].providers[0].subject"
            ),
            (
                #"{"version": 1, "users": [{"id": "a"}, {"id": "b"}], "mutes": [{"muter": "a", "muted": "b"}, {"muter": "a", "muted": "b"}]}"#,
                .duplicateID, "mutes[1]"
            ),
            (#"{"version": 1, "families": [{"organizer": "not an apple id", "members": []}]}"#, .invalidValue, "families[0].organizer"),
            (
                #"{"version": 1, "families": [{"organizer": "a@example.com", "members": ["b@example.com"]}, {"organizer": "c@example.com", "members": ["B@example.com"]}]}"#,
                .duplicateID, "families[1].members[0]"
            ),
            (
                #"{"version": 1, "families": [{"organizer": "a@x.com", "members": ["b@x.com", "c@x.com", "d@x.com", "e@x.com", "f@x.com", "g@x.com"]}]}"#,
                .invalidValue, "families[0].members"
            ),
            (#"{"version": 1, "version": 1}"#, .unreadable, "version"),
            (#"{"version": 1, "users": [{"id": "a"}, {"id": "ada", "displayName": "Ada", "id": "bob"}]}"#, .unreadable, "users[1].id"),
            (#"{"version": 1, "users": [{"id": "ada", "\u0069d": "bob"}]}"#, .unreadable, "users[0].id"),
            (
                #"{"version": 1, "users": [{"id": "a"}], "posts": [{"author": "a", "content": "x, \"id\": y", "workout": {"duration": 1, "duration": 2}}]}"#,
                .unreadable, "posts[0].workout.duration"
            ),
        ])
    func refused(json: String, code: WorldSnapshotError.Code, path: String) {
        let error = failure(json)
        #expect(error?.code == code, "\(error?.detail ?? "no error")")
        #expect(error?.path == path, "\(error?.detail ?? "no error")")
    }

    @Test("IDs that only look alike are two users, as the services tell them apart by their bytes, each with their own name and readers")
    func lookAlikeIDs() async throws {
        let json = #"""
            {"version": 1,
             "users": [{"id": "\u00e9", "displayName": "One"}, {"id": "e\u0301", "displayName": "Two"}, {"id": "reader"}],
             "follows": [{"follower": "\u00e9", "followee": "e\u0301"}, {"follower": "reader", "followee": "\u00e9"}],
             "posts": [{"author": "\u00e9", "content": "by one"}, {"author": "e\u0301", "content": "by two"}]}
            """#
        let services = try TrainServices.inMemory(from: try WorldSnapshot(json: Data(json.utf8)), signedIn: "reader", configuration: configuration)
        let world = try services.exportWorld()
        #expect(world.users.count == 3 && world.follows.count == 2)
        _ = try await services.social.unlockFeed(workoutType: .run)
        let feed = try await services.social.friendsFeed(limit: 20, after: nil)
        #expect(feed.map { "\($0.userName): \($0.content)" } == ["One: by one"], "the reader follows one of the two")
    }

    @Test("at most 100 plain passwords are hashed at one import")
    func passwordCount() {
        var configuration = configuration
        configuration.authPolicy.passwordIterations = 1_000
        let users = (0...100).map { #"{"id": "u\#($0)", "email": "u\#($0)@example.com", "password": "correct horse"}"# }
        let json = #"{"version": 1, "users": [\#(users.joined(separator: ","))]}"#
        let error = #expect(throws: WorldSnapshotError.self) {
            try TrainServices.inMemory(from: try WorldSnapshot(json: Data(json.utf8)), configuration: configuration)
        }
        #expect(error?.code == .invalidValue && error?.path == "users[100].password")
    }

    @Test("a document or a file over the documented size is tooLarge before it is read")
    func tooLarge() throws {
        let big = Data(count: WorldSnapshot.maximumSize + 1)
        #expect(throws: WorldSnapshotError(.tooLarge)) { try WorldSnapshot(json: big) }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("world-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(FileManager.default.createFile(atPath: file.path, contents: nil))
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: UInt64(WorldSnapshot.maximumSize) + 1)
        try handle.close()
        #expect(throws: WorldSnapshotError(.tooLarge)) { try WorldSnapshot(contentsOf: file) }
    }

    @Test("a world the App Store refuses partway leaves no stack in the directory, and a directory with a stack is refused")
    func nothingImported() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("world-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        // Bought over a century ago, which the store refuses after the accounts are written.
        let old = try WorldSnapshot(
            json: Data(
                #"{"version": 1, "users": [{"id": "a"}], "purchases": [{"user": "a", "product": "com.train.pro.monthly", "purchasedAt": "1900-01-01T00:00:00Z"}]}"#
                    .utf8))
        let error = #expect(throws: WorldSnapshotError.self) { try TrainServices.files(in: directory, from: old, configuration: configuration) }
        #expect(error?.path == "purchases[0]")
        let left = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        #expect(left.allSatisfy { !$0.hasPrefix("trainkit.sqlite") && !$0.hasPrefix("appstore.sqlite") }, "\(left)")

        let good = try WorldSnapshot(json: Data(#"{"version": 1, "users": [{"id": "a"}]}"#.utf8))
        let services = try TrainServices.files(in: directory, from: good, configuration: configuration)
        #expect(try services.exportWorld().users.map(\.id) == ["a"])
        #expect(throws: WorldSnapshotError(.notImported)) { try TrainServices.files(in: directory, from: good, configuration: configuration) }
    }

    @Test("fields a hand-written document leaves out take their documented defaults")
    func defaults() async throws {
        let json =
            #"{"version": 1, "users": [{"id": "ada"}, {"id": "grace", "displayName": "Grace"}], "posts": [{"author": "grace", "content": "Hi"}]}"#
        let services = try TrainServices.inMemory(from: try WorldSnapshot(json: Data(json.utf8)), configuration: configuration)
        let world = try services.exportWorld()
        let ada = try #require(world.users.first)
        #expect(ada.providers == [WorldSnapshot.Provider(provider: .apple, subject: "ada", linkedAt: clock.now)])
        #expect(ada.createdAt == clock.now && ada.lastSignInAt == clock.now && ada.isEmailVerified == false && ada.displayName == nil)
        let post = try #require(world.posts.first)
        #expect(post.workoutType == .run && post.createdAt == clock.now && post.expiresAt == clock.now.addingTimeInterval(86_400))
        #expect(post.likeCount == 0 && post.commentCount == 0)
        let again = try TrainServices.inMemory(from: try WorldSnapshot(json: Data(json.utf8)), configuration: configuration).exportWorld()
        #expect(again.posts.first?.id == post.id, "a post left without an ID gets the same one at each import")
        services.appleID.signIn(as: SimulatedIdentityProvider.Account(subject: "ada"))
        #expect(try await services.auth.signInWithApple().id == "ada", "a user signs in with Apple under their ID's subject")
    }

    @Test("text with quotes, backslashes, control characters, emoji and combining marks is written so it reads back the same")
    func escaping() throws {
        let texts = ["say \"hi\"", "back\\slash / slash", "line\nbreak\ttab\r", "\u{1}\u{1F}\u{7F}", "👩‍👩‍👧 e\u{301}\u{301}", "\u{0}nul"]
        var world = WorldSnapshot()
        for (index, text) in texts.enumerated() {
            var user = WorldSnapshot.User(id: "u\(index) \(text)", displayName: text, createdAt: Date(timeIntervalSince1970: 1_767_225_600.123456))
            user.providers = [WorldSnapshot.Provider(provider: .password, subject: text, email: text)]
            world.users.append(user)
            world.posts.append(WorldSnapshot.Post(id: UUID(), author: user.id, content: text, workoutType: WorkoutType(text)))
        }
        let bytes = try world.encoded()
        #expect(try WorldSnapshot(json: bytes) == world)
        #expect(try JSONSerialization.jsonObject(with: bytes) is [String: Any], "Foundation's reader reads it too")
    }

    @Test("dates read and write as ISO 8601 in UTC to the microsecond, and read back to the same text")
    func dates() throws {
        for text in ["2026-01-01T08:30:00Z", "2026-01-01T08:30:00.25Z", "1970-01-01T00:00:00.000001Z", "2026-12-31T23:59:59.999999Z"] {
            let snapshot = try WorldSnapshot(json: Data(#"{"version": 1, "users": [{"id": "a", "createdAt": "\#(text)"}]}"#.utf8))
            let written = String(decoding: try snapshot.encoded(), as: UTF8.self)
            #expect(written.contains("\"createdAt\" : \"\(text)\""), "\(written)")
        }
        var generator = SeededRandomNumberGenerator(seed: 7)
        for _ in 0..<300 {
            // Whole seconds from 1583 (Foundation's calendar is Julian before 1582) to 9999
            // read as Foundation's ISO 8601 style writes them, and back.
            let date = Date(timeIntervalSince1970: Double(Int64.random(in: -12_212_553_600..<253_402_300_800, using: &generator)))
            let text = date.formatted(Date.ISO8601FormatStyle())
            let written = String(decoding: try WorldSnapshot(users: [.init(id: "a", createdAt: date)]).encoded(), as: UTF8.self)
            #expect(written.contains("\"createdAt\" : \"\(text)\""), "\(date.timeIntervalSince1970): \(written)")
            let read = try WorldSnapshot(json: Data(#"{"version": 1, "users": [{"id": "a", "createdAt": "\#(text)"}]}"#.utf8))
            #expect(read.users.first?.createdAt == date, "\(text)")
        }
        for bad in [
            "2025-02-29T00:00:00Z", "2026-01-01 08:30:00Z", "2026-01-01T08:30:00+01:00", "2026-13-01T00:00:00Z", "2026-01-01T08:30:00.Z",
            "2026-01-01T08:30:00.1234567890Z",
        ] {
            #expect(throws: WorldSnapshotError(.unreadable), "\(bad)") {
                try WorldSnapshot(json: Data(#"{"version": 1, "users": [{"id": "a", "createdAt": "\#(bad)"}]}"#.utf8))
            }
        }
    }
}
