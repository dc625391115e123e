import Foundation
import Testing
import TrainCore
import TrainSocial
import TrainTesting

/// Every spelling of a photo's URL resolves to its one canonical reference before the
/// feed checks who owns it and which posts show it.
@Suite struct MediaReferenceTests {
    /// The store's root, from one of its photos' URLs.
    static func root(of media: LocalMediaStore, _ photo: MediaReference) -> URL {
        media.url(for: photo).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    @Test("letter case, . and .., and percent-encoding all resolve to the photo's canonical reference", arguments: MediaStoreTests.Kind.allCases)
    func spellings(kind: MediaStoreTests.Kind) async throws {
        let directory = try TemporaryDirectory()
        let media = try MediaStoreTests.store(kind, in: directory)
        let photo = try await media.put(SocialHarness.jpeg(), kind: .postPhoto, for: "ada")
        let root = Self.root(of: media, photo)
        let id = photo.id.uuidString.lowercased()
        let spellings = [
            root.appendingPathComponent("users/616461/post_photos/\(photo.id.uuidString).jpg"),
            root.appendingPathComponent("USERS/616461/POST_PHOTOS/\(id).JPG"),
            root.appendingPathComponent("users/616461/./post_photos/../post_photos/\(id).jpg"),
            URL(string: root.absoluteString + "/users/%36%31%36%34%36%31/post%5Fphotos/\(id).jpg"),
        ]
        for url in spellings.compactMap({ $0 }) { #expect(try media.reference(for: url) == photo, "\(url)") }
    }

    @Test("a root spelled in another Unicode normalization or reached through a symbolic link resolves to the same reference")
    func unicodeAndSymbolicLinks() async throws {
        let directory = try TemporaryDirectory()
        let composed = directory.file("caf\u{E9}")
        let media = try LocalMediaStore(storage: .file(composed))
        let photo = try await media.put(SocialHarness.jpeg(), kind: .postPhoto, for: "ada")
        let path = "users/616461/post_photos/\(photo.id.uuidString.lowercased()).jpg"
        let decomposed = URL(fileURLWithPath: directory.file("cafe\u{301}").path.decomposedStringWithCanonicalMapping).appendingPathComponent(path)
        #expect(try media.reference(for: decomposed) == photo)
        let alias = directory.file("alias")
        try FileManager.default.createSymbolicLink(at: alias, withDestinationURL: composed)
        #expect(try media.reference(for: alias.appendingPathComponent(path)) == photo)
    }

    @Test("another user's photo under any spelling is notAuthorized, and nothing is posted", arguments: SocialVariant.allCases)
    func aliasesOfAnotherUsersPhoto(variant: SocialVariant) async throws {
        let harness = try SocialHarness(variant)
        try await harness.join("bob", "ada")
        let bobs = try await harness.media.put(SocialHarness.jpeg(), kind: .postPhoto, for: "bob")
        let root = Self.root(of: harness.media, bobs)
        let aliases = [
            root.appendingPathComponent("users/626f62/post_photos/\(bobs.id.uuidString).jpg"),
            root.appendingPathComponent("users/616461/../626f62/post_photos/\(bobs.id.uuidString.lowercased()).jpg"),
        ]
        for alias in aliases {
            await #expect(throws: SocialError(.notAuthorized), "\(alias)") {
                try await harness.social.createPost(content: "stolen", workoutType: .run, mediaURL: alias)
            }
        }
        await #expect(throws: SocialError(.mediaNotFound)) {
            try await harness.social.createPost(content: "a folder", workoutType: .run, mediaURL: root.appendingPathComponent("users/626f62"))
        }
        #expect(try await harness.social.discoverFeed().isEmpty)
    }

    @Test("a symbolic link in one's own folder to another user's photo is notAuthorized")
    func symbolicLinkToAnotherUsersPhoto() async throws {
        let harness = try SocialHarness(.file)
        try await harness.join("bob", "ada")
        let bobs = try await harness.media.put(SocialHarness.jpeg(), kind: .postPhoto, for: "bob")
        let adas = try await harness.media.put(SocialHarness.jpeg(), kind: .postPhoto, for: "ada")
        let link = harness.media.url(for: adas).deletingLastPathComponent().appendingPathComponent("\(UUID().uuidString.lowercased()).jpg")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: harness.media.url(for: bobs))
        await #expect(throws: SocialError(.notAuthorized)) {
            try await harness.social.createPost(content: "linked", workoutType: .run, mediaURL: link)
        }
        #expect(try await harness.social.discoverFeed().isEmpty)
    }

    @Test(
        "a post given an alias of its own photo shows the canonical URL, and deleting the post deletes the photo", arguments: SocialVariant.allCases)
    func aliasIsStoredCanonically(variant: SocialVariant) async throws {
        let harness = try SocialHarness(variant)
        try await harness.join("ada")
        let photo = try await harness.media.put(SocialHarness.jpeg(), kind: .postPhoto, for: "ada")
        let alias = Self.root(of: harness.media, photo).appendingPathComponent("USERS/616461/post_photos/\(photo.id.uuidString).jpg")
        let post = try await harness.social.createPost(content: "mine", workoutType: .run, mediaURL: alias)
        #expect(post.mediaURL == harness.media.url(for: photo))
        #expect(try await harness.social.discoverFeed().map(\.mediaURL) == [harness.media.url(for: photo)])
        try await harness.social.deletePost(post.id)
        #expect(try await !harness.media.contains(photo), "the usage index knew the photo under its alias")
    }
}
