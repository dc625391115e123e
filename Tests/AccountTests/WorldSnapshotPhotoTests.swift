import Foundation
import Testing
import TrainAccount
import TrainCore
import TrainSocial
import TrainTesting

/// The photos posts show, in a world's snapshot: their bytes come along, and the
/// imported post shows the photo from the new stack's media store.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct WorldSnapshotPhotoTests {

    let clock = ManualClock()
    var configuration: TrainServicesConfiguration { TrainServicesConfiguration(context: TrainContext(clock: clock)) }
    /// A PNG's signature and a few bytes after it: what the media store takes as a PNG.
    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3, 4])
    static let world = #"""
        {"version": 1, "users": [{"id": "ada"}, {"id": "grace", "photoURL": "https://example.com/grace.jpg"}], "unlocks": [{"user": "ada", "workoutType": "run"}],
         "posts": [{"author": "grace", "content": "Summit", "mediaURL": "https://example.com/summit.jpg"}]}
        """#

    @Test("a post's photo exports with its bytes, imports into the new stack's media store in memory and in files, and exports to the same bytes")
    func photoRoundTrip() async throws {
        let services = try TrainServices.inMemory(from: try WorldSnapshot(json: Data(Self.world.utf8)), signedIn: "ada", configuration: configuration)
        let post = try await services.social.createPost(content: "Track day", workoutType: .run, photo: Self.png)
        clock.advance(by: .seconds(1))
        let snapshot = try services.exportWorld()
        let photo = try #require(snapshot.photos.first)
        #expect(snapshot.photos.count == 1 && photo.user == "ada" && photo.data == Self.png)
        let exported = try #require(snapshot.posts.first { $0.id == post.id })
        #expect(exported.photo == photo.id && exported.mediaURL == nil, "a photo of the store is named, not its URL")
        #expect(snapshot.posts.first { $0.author == "grace" }?.mediaURL == URL(string: "https://example.com/summit.jpg"))
        let first = try snapshot.encoded()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("photos-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        for imported in [
            try TrainServices.inMemory(from: try WorldSnapshot(json: first), configuration: configuration),
            try TrainServices.files(in: directory, from: try WorldSnapshot(json: first), configuration: configuration),
        ] {
            let shown = try #require(try Self.mediaURL(of: post.id, in: imported))
            let reference = try #require(try imported.media.reference(for: shown))
            #expect(reference.id == photo.id && reference.userID == "ada")
            #expect(try await imported.media.data(for: reference) == Self.png)
            #expect(try imported.exportWorld().encoded() == first)
        }
    }

    @Test("an imported photo two posts show stays while one of them does and goes with the last, as in the original")
    func photoGoesWithItsLastPost() async throws {
        let services = try TrainServices.inMemory(from: try WorldSnapshot(json: Data(Self.world.utf8)), signedIn: "ada", configuration: configuration)
        let first = try await services.social.createPost(content: "Track day", workoutType: .run, photo: Self.png)
        let shown = try #require(first.mediaURL)
        let second = try await services.social.createPost(content: "Same track, a week on", workoutType: .run, mediaURL: shown)
        clock.advance(by: .seconds(1))
        let imported = try TrainServices.inMemory(from: try services.exportWorld(), signedIn: "ada", configuration: configuration)
        #expect(try imported.exportWorld().photos.count == 1, "one photo, shown twice")
        for stack in [services, imported] {
            let url = try #require(try Self.mediaURL(of: first.id, in: stack))
            let reference = try #require(try stack.media.reference(for: url))
            #expect(try Self.mediaURL(of: second.id, in: stack) == url)
            try await stack.social.deletePost(first.id)
            #expect(try await stack.media.contains(reference), "the other post still shows it")
            try await stack.social.deletePost(second.id)
            #expect(try await !stack.media.contains(reference), "it goes with the last post that shows it")
        }
    }

    /// The media URL the stack's feed holds for a post.
    static func mediaURL(of post: UUID, in stack: TrainServices) throws -> URL? {
        try stack.social.exportWorld().posts.first { $0.id == post }?.mediaURL
    }

    @Test(
        "a photo or a post's media the services would refuse is a typed error naming its path",
        arguments: [
            (#""photos": [{"user": "bob", "id": "00000000-0000-4000-8000-000000000001", "data": "iVBORw0KGgoB"}]"#, "photos[0].user"),
            (#""photos": [{"user": "ada", "id": "00000000-0000-4000-8000-000000000001", "data": "AAECAwQFBgc="}]"#, "photos[0].data"),
            (
                #""photos": [{"user": "ada", "id": "00000000-0000-4000-8000-000000000001", "data": "iVBORw0KGgoB"},"#
                    + #"{"user": "grace", "id": "00000000-0000-4000-8000-000000000001", "data": "iVBORw0KGgoB"}]"#, "photos[1].id"
            ),
            (#""posts": [{"author": "ada", "content": "x", "photo": "00000000-0000-4000-8000-000000000001"}]"#, "posts[0].photo"),
            (
                #""photos": [{"user": "grace", "id": "00000000-0000-4000-8000-000000000001", "data": "iVBORw0KGgoB"}],"#
                    + #""posts": [{"author": "ada", "content": "x", "photo": "00000000-0000-4000-8000-000000000001"}]"#, "posts[0].photo"
            ),
            (
                #""photos": [{"user": "ada", "id": "00000000-0000-4000-8000-000000000001", "data": "iVBORw0KGgoB"}],"#
                    + #""posts": [{"author": "ada", "content": "x", "photo": "00000000-0000-4000-8000-000000000001", "mediaURL": "https://a.example/b.jpg"}]"#,
                "posts[0].photo"
            ),
            (#""posts": [{"author": "ada", "content": "x", "mediaURL": "http://a.example/b.jpg"}]"#, "posts[0].mediaURL"),
            (#""photos": [{"user": "ada", "id": "00000000-0000-4000-8000-000000000001", "data": "iVBORw0KGgoB"}]"#, "photos[0].id"),
        ])
    func refused(fields: String, path: String) throws {
        let json = #"{"version": 1, "users": [{"id": "ada"}, {"id": "grace"}], \#(fields)}"#
        let error = #expect(throws: WorldSnapshotError.self) {
            _ = try TrainServices.inMemory(from: try WorldSnapshot(json: Data(json.utf8)), configuration: configuration)
        }
        #expect(error?.path == path, "\(error?.detail ?? "")")
    }

    @Test("a photo over the media store's limit is refused at its data, and nothing is imported")
    func tooLarge() throws {
        var snapshot = WorldSnapshot(users: [WorldSnapshot.User(id: "ada")])
        var data = Self.png
        data.append(Data(count: MediaConfiguration().maximumSize + 1 - data.count))
        snapshot.photos = [WorldSnapshot.Photo(user: "ada", id: UUID(), data: data)]
        let error = #expect(throws: WorldSnapshotError.self) { _ = try TrainServices.inMemory(from: snapshot, configuration: configuration) }
        #expect(error?.code == .invalidValue && error?.path == "photos[0].data")
        snapshot.photos[0].data.removeLast()
        var post = WorldSnapshot.Post(author: "ada", content: "At the limit")
        post.photo = snapshot.photos[0].id
        snapshot.posts = [post]
        let services = try TrainServices.inMemory(from: snapshot, configuration: configuration)
        #expect(try services.exportWorld().photos.map(\.data) == [data.dropLast()], "a photo at the limit is taken")
    }
}

extension WorldSnapshotPhotoTests {
    @Test(
        "a profile photo in the stack's media store exports with its bytes and shows on the imported account and profile, signed in or not, in memory and in files"
    )
    func profilePhotoRoundTrip() async throws {
        let services = try TrainServices.inMemory(from: try WorldSnapshot(json: Data(Self.world.utf8)), signedIn: "ada", configuration: configuration)
        let session = services.makeSessionManager()
        await session.start()
        _ = try await session.updateProfile(displayName: "Ada", photo: .set(Self.png))
        let snapshot = try services.exportWorld()
        let exported = try #require(snapshot.users.first { $0.id == "ada" })
        let photo = try #require(snapshot.photos.first)
        #expect(exported.photoURL == nil && exported.photo == photo.id && photo.kind == .profilePhoto && photo.data == Self.png)
        #expect(snapshot.users.first { $0.id == "grace" }?.photoURL == URL(string: "https://example.com/grace.jpg"), "one from elsewhere is kept")
        let first = try snapshot.encoded()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("profile-photos-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        for imported in [
            try TrainServices.inMemory(from: snapshot, signedIn: "ada", configuration: configuration),
            try TrainServices.inMemory(from: snapshot, configuration: configuration),
            try TrainServices.files(in: directory, from: snapshot, configuration: configuration),
        ] {
            let device = try imported.makeDevice(for: "ada")
            let shown = try #require(device.auth.currentUser?.photoURL)
            #expect(try await device.social.profile("ada").photoURL == shown, "the feed's profile shows it too")
            let reference = try #require(try imported.media.reference(for: shown))
            #expect(reference.id == photo.id && reference.kind == .profilePhoto)
            #expect(try await imported.media.data(for: reference) == Self.png)
            #expect(try imported.exportWorld().encoded() == first)
        }
        let signedIn = try TrainServices.inMemory(from: snapshot, signedIn: "ada", configuration: configuration)
        let current = try #require(signedIn.auth.currentUser?.photoURL)
        #expect(try signedIn.media.reference(for: current)?.id == photo.id, "the signed-in account shows it")
    }

    @Test(
        "a profile photo the services would refuse is a typed error naming its path",
        arguments: [
            (#"{"id": "ada", "photo": "00000000-0000-4000-8000-000000000001"}"#, "users[0].photo"),
            (#"{"id": "ada", "photo": "00000000-0000-4000-8000-000000000002"}"#, "users[0].photo"),
            (#"{"id": "ada", "photo": "00000000-0000-4000-8000-000000000002", "photoURL": "https://a.example/ada.jpg"}"#, "users[0].photo"),
        ])
    func profilePhotoRefused(user: String, path: String) throws {
        let json = #"""
            {"version": 1, "users": [\#(user), {"id": "grace"}],
             "photos": [{"user": "grace", "id": "00000000-0000-4000-8000-000000000002", "kind": "profile_photo", "data": "iVBORw0KGgoB"}]}
            """#
        let error = #expect(throws: WorldSnapshotError.self) {
            _ = try TrainServices.inMemory(from: try WorldSnapshot(json: Data(json.utf8)), configuration: configuration)
        }
        #expect(error?.path == path, "\(error?.detail ?? "")")
    }

    @Test("a photo of a user ID the media store does not file, over 100 bytes, is refused at its user before anything is written")
    func longUserID() throws {
        let id = String(repeating: "a", count: 101)
        var snapshot = WorldSnapshot(users: [WorldSnapshot.User(id: id)])
        snapshot.photos = [WorldSnapshot.Photo(user: id, id: UUID(), data: WorldSnapshotPhotoTests.png)]
        snapshot.users[0].photo = snapshot.photos[0].id
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("long-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let error = #expect(throws: WorldSnapshotError.self) { try TrainServices.files(in: directory, from: snapshot, configuration: configuration) }
        #expect(error?.code == .invalidValue && error?.path == "photos[0].user", "\(error?.detail ?? "")")
        #expect(!FileManager.default.fileExists(atPath: directory.path), "nothing written")
    }
}
