import Foundation
import Testing
import TrainCore
import TrainSocial
import TrainTesting

@Suite struct MediaStoreTests {
    enum Kind: String, CaseIterable, CustomStringConvertible {
        case inMemory, directory
        var description: String { rawValue }
    }

    static func store(_ kind: Kind, in directory: TemporaryDirectory, maximumSize: Int = 1_000) throws -> LocalMediaStore {
        switch kind {
        case .inMemory: LocalMediaStore(configuration: MediaConfiguration(maximumSize: maximumSize))
        case .directory: try LocalMediaStore(storage: .file(directory.file("media")), configuration: MediaConfiguration(maximumSize: maximumSize))
        }
    }

    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13])
    static let gif = Data("GIF89a....".utf8)
    static let webp = Data("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8)
    static let heic = Data([0, 0, 0, 24] + Array("ftypheic".utf8) + [0, 0, 0, 0])

    @Test("put, get, list and delete stay under each user's prefix", arguments: Kind.allCases)
    func perUserPrefix(kind: Kind) async throws {
        let directory = try TemporaryDirectory()
        let media = try Self.store(kind, in: directory)
        let photo = try await media.put(SocialHarness.jpeg(), kind: .postPhoto, for: "ada")
        let avatar = try await media.put(Self.png, kind: .profilePhoto, for: "ada")
        let bobs = try await media.put(Self.gif, kind: .postPhoto, for: "bob")
        #expect(try await media.data(for: photo) == SocialHarness.jpeg())
        #expect(Set(try await media.list(for: "ada")) == [photo, avatar])
        #expect(try await media.list(for: "bob") == [bobs])
        #expect(photo.path.hasPrefix("users/616461/post_photos/") && photo.path.hasSuffix(".jpg"))
        try await media.delete(photo)
        try await media.delete(photo)
        await #expect(throws: SocialError(.mediaNotFound)) { try await media.data(for: photo) }
        #expect(try await media.deleteAll(for: "ada") == 1)
        #expect(try await media.list(for: "ada").isEmpty)
        #expect(try await media.contains(bobs))
    }

    @Test("the type is read from the first bytes: JPEG, PNG, GIF, HEIC and WebP pass, anything else is unsupportedMediaType")
    func contentTypeByMagicBytes() async throws {
        #expect(MediaContentType(sniffing: SocialHarness.jpeg()) == .jpeg)
        #expect(MediaContentType(sniffing: Self.png) == .png)
        #expect(MediaContentType(sniffing: Self.gif) == .gif)
        #expect(MediaContentType(sniffing: Self.webp) == .webp)
        #expect(MediaContentType(sniffing: Self.heic) == .heic)
        let media = LocalMediaStore()
        for bad in [
            Data(), Data("<script>alert(1)</script>".utf8), Data([0xFF, 0xD8]), Data("RIFF....WAVE".utf8),
            Data([0, 0, 0, 24] + Array("ftypmp42".utf8)),
        ] {
            await #expect(throws: SocialError(.unsupportedMediaType)) { try await media.put(bad, kind: .postPhoto, for: "ada") }
        }
        #expect(try await media.list(for: "ada").isEmpty)
    }

    @Test("a photo over the size limit is mediaTooLarge and nothing is stored; one at the limit is kept", arguments: Kind.allCases)
    func sizeLimit(kind: Kind) async throws {
        let directory = try TemporaryDirectory()
        let media = try Self.store(kind, in: directory, maximumSize: 100)
        await #expect(throws: SocialError(.mediaTooLarge)) { try await media.put(SocialHarness.jpeg(size: 101), kind: .postPhoto, for: "ada") }
        #expect(try await media.list(for: "ada").isEmpty)
        _ = try await media.put(SocialHarness.jpeg(size: 100), kind: .postPhoto, for: "ada")
        #expect(try await media.list(for: "ada").count == 1)
    }

    @Test("user IDs with slashes, dots, NUL or combining marks stay in their own folder under the root", arguments: Kind.allCases)
    func hostileUserIDs(kind: Kind) async throws {
        let directory = try TemporaryDirectory()
        let media = try Self.store(kind, in: directory)
        let ids = ["../../etc", "a/b", "a\u{0}b", "\u{E9}", "e\u{301}", ".", "USERS"]
        var references: [MediaReference] = []
        for id in ids { references.append(try await media.put(SocialHarness.jpeg(), kind: .postPhoto, for: id)) }
        for (id, reference) in zip(ids, references) {
            #expect(try await media.list(for: id) == [reference])
            #expect(!reference.path.contains("..") && reference.path.split(separator: "/").count == 4)
            let url = media.url(for: reference)
            #expect(try media.reference(for: url) == reference)
            #expect(
                url.standardizedFileURL.path.hasPrefix(
                    media.url(for: references[0]).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path))
        }
        await #expect(throws: SocialError(.userNotFound)) { try await media.put(SocialHarness.jpeg(), kind: .postPhoto, for: "") }
        await #expect(throws: SocialError(.userNotFound)) {
            try await media.put(SocialHarness.jpeg(), kind: .postPhoto, for: String(repeating: "x", count: 101))
        }
    }

    @Test("URLs outside the store name no reference; one inside it that names none of its photos is mediaNotFound")
    func foreignURLs() async throws {
        let media = LocalMediaStore()
        let photo = try await media.put(SocialHarness.jpeg(), kind: .postPhoto, for: "ada")
        let root = media.url(for: photo).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let outside = [
            URL(string: "https://example.com/users/616461/post_photos/x.jpg"),
            LocalMediaStore().url(for: photo),
            root.appendingPathComponent("users/616461/post_photos/../../../../etc/\(photo.id.uuidString.lowercased()).jpg"),
        ]
        for url in outside.compactMap({ $0 }) { #expect(try media.reference(for: url) == nil, "\(url)") }
        let inside = [
            root.appendingPathComponent("users/ZZ/post_photos/\(photo.id.uuidString.lowercased()).jpg"),
            root.appendingPathComponent("users/616461/other/\(photo.id.uuidString.lowercased()).jpg"),
            root.appendingPathComponent("users/616461/post_photos/\(photo.id.uuidString.lowercased()).exe"),
            root.appendingPathComponent("users/616461"),
            root.appendingPathComponent("users/616461/post_photos/notes.txt"),
        ]
        for url in inside { #expect(throws: SocialError(.mediaNotFound), "\(url)") { try media.reference(for: url) } }
    }

    @Test("two stores on one directory see each other's photos")
    func sharedDirectory() async throws {
        let directory = try TemporaryDirectory()
        let first = try LocalMediaStore(storage: .file(directory.file("media")))
        let second = try LocalMediaStore(storage: .file(directory.file("media")))
        let photo = try await first.put(Self.png, kind: .postPhoto, for: "ada")
        #expect(try await second.data(for: photo) == Self.png)
        #expect(try second.reference(for: first.url(for: photo)) == photo)
        try await second.delete(photo)
        #expect(try await !first.contains(photo))
    }

    @Test("in a directory, photos and their folders are readable by their owner only")
    func ownerOnlyFiles() async throws {
        let directory = try TemporaryDirectory()
        let media = try LocalMediaStore(storage: .file(directory.file("media")))
        let photo = try await media.put(SocialHarness.jpeg(), kind: .postPhoto, for: "ada")
        var url = media.url(for: photo)
        for expected in [0o600, 0o700, 0o700, 0o700, 0o700] {
            let permissions = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int
            #expect(permissions == expected, "\(url.path)")
            url = url.deletingLastPathComponent()
        }
    }

    @Test("a post shows only its author's stored photos, and only ones that exist; nothing is posted otherwise", arguments: SocialVariant.allCases)
    func postMediaIsChecked(variant: SocialVariant) async throws {
        let harness = try SocialHarness(variant)
        try await harness.join("bob", "ada")
        let bobs = try await harness.media.put(SocialHarness.jpeg(), kind: .postPhoto, for: "bob")
        await #expect(throws: SocialError(.notAuthorized)) {
            try await harness.social.createPost(content: "stolen", workoutType: .run, mediaURL: harness.media.url(for: bobs))
        }
        let gone = try await harness.media.put(SocialHarness.jpeg(), kind: .postPhoto, for: "ada")
        try await harness.media.delete(gone)
        await #expect(throws: SocialError(.mediaNotFound)) {
            try await harness.social.createPost(content: "missing", workoutType: .run, mediaURL: harness.media.url(for: gone))
        }
        #expect(try await harness.social.discoverFeed().isEmpty)
        let external = try #require(URL(string: "https://cdn.example.com/a.jpg"))
        #expect(try await harness.social.createPost(content: "linked", workoutType: .run, mediaURL: external).mediaURL == external)
    }

    @Test("a post's photo is deleted with the post, once no other post shows it", arguments: SocialVariant.allCases)
    func photoGoesWithItsLastPost(variant: SocialVariant) async throws {
        let harness = try SocialHarness(variant)
        try await harness.join("ada")
        let photo = try await harness.media.put(SocialHarness.jpeg(), kind: .postPhoto, for: "ada")
        let url = harness.media.url(for: photo)
        let first = try await harness.social.createPost(content: "one", workoutType: .run, mediaURL: url)
        let second = try await harness.social.createPost(content: "two", workoutType: .run, mediaURL: url)
        try await harness.social.deletePost(first.id)
        #expect(try await harness.media.contains(photo))
        #expect(try await harness.social.discoverFeed().map(\.mediaURL) == [url])
        try await harness.social.deletePost(second.id)
        #expect(try await !harness.media.contains(photo))
    }

    @Test("a user who signs out while the photo is checked posts nothing")
    func signedOutDuringTheCheck() async throws {
        let harness = try SocialHarness()
        try await harness.join("ada")
        let photo = try await harness.media.put(SocialHarness.jpeg(), kind: .postPhoto, for: "ada")
        let switching = SwitchingMediaStore(base: harness.media) { harness.act(as: "bob") }
        let social = LocalSocialFeedService(auth: harness.auth, media: switching, context: TrainContext(clock: harness.clock))
        harness.act(as: "ada")
        _ = try await social.unlockFeed(workoutType: .run)
        await #expect(throws: SocialError(.notSignedIn)) {
            try await social.createPost(content: "as ada", workoutType: .run, mediaURL: harness.media.url(for: photo))
        }
        harness.act(as: "ada")
        #expect(try await social.discoverFeed().isEmpty)
    }
}

/// A media store that runs `duringCheck` while a post's photo is checked, as if
/// another user signed in at that moment.
struct SwitchingMediaStore: MediaStore {
    let base: LocalMediaStore
    let duringCheck: @Sendable () -> Void
    var maximumSize: Int { base.maximumSize }
    func put(_ data: Data, kind: MediaKind, for userID: String) async throws -> MediaReference {
        try await base.put(data, kind: kind, for: userID)
    }
    func data(for reference: MediaReference) async throws -> Data { try await base.data(for: reference) }
    func contains(_ reference: MediaReference) async throws -> Bool {
        duringCheck()
        return try await base.contains(reference)
    }
    func list(for userID: String) async throws -> [MediaReference] { try await base.list(for: userID) }
    func delete(_ reference: MediaReference) async throws { try await base.delete(reference) }
    func deleteAll(for userID: String) async throws -> Int { try await base.deleteAll(for: userID) }
    func url(for reference: MediaReference) -> URL { base.url(for: reference) }
    func reference(for url: URL) throws(SocialError) -> MediaReference? { try base.reference(for: url) }
}
