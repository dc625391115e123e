import Foundation
import Testing
import TrainAuth
import TrainCore
import TrainSocial
import TrainTesting

/// Posting with a photo in one call: the upload and the post both happen, or neither
/// leaves anything behind.
@Suite struct PostWithPhotoTests {
    /// A workout source that, once armed, signs another user in when it is read: inside
    /// the post, after the upload.
    struct SwitchingWorkoutSource: WorkoutSource {
        let auth: FakeAuthService
        let armed = Locked(false)
        func workouts(endingIn interval: DateInterval) async throws -> [WorkoutRecord] {
            if armed.withLock({ $0 }) {
                auth.setCurrentUser(UserEntity(id: "bob", displayName: "Bob", createdAt: interval.end, lastSignInAt: interval.end))
            }
            return []
        }
    }

    @Test("a post with a photo uploads it and shows its URL, and the photo goes with the post", arguments: SocialVariant.allCases)
    func uploadsAndPosts(variant: SocialVariant) async throws {
        let harness = try SocialHarness(variant)
        try await harness.join("ada")
        let post = try await harness.social.createPost(content: "summit", workoutType: .run, photo: SocialHarness.jpeg())
        let stored = try await harness.media.list(for: "ada")
        #expect(stored.count == 1 && post.mediaURL == stored.first.map(harness.media.url(for:)))
        #expect(try await harness.social.discoverFeed().map(\.mediaURL) == [post.mediaURL])
        try await harness.social.deletePost(post.id)
        #expect(try await harness.media.list(for: "ada").isEmpty)
    }

    @Test(
        "a post that shows its author's profile photo leaves it in the media store while the profile shows it, and takes it when nothing else does",
        arguments: SocialVariant.allCases)
    func profilePhotoInAPost(variant: SocialVariant) async throws {
        let harness = try SocialHarness(variant)
        try await harness.join("ada")
        let profilePhoto = try await harness.media.put(SocialHarness.jpeg(), kind: .profilePhoto, for: "ada")
        let url = harness.media.url(for: profilePhoto)
        let now = harness.clock.now
        harness.auth.setCurrentUser(UserEntity(id: "ada", displayName: "Ada", createdAt: now, lastSignInAt: now, photoURL: url))
        _ = try await harness.social.refreshProfile()
        let post = try await harness.social.createPost(content: "me", workoutType: .run, mediaURL: url)
        try await harness.social.deletePost(post.id)
        #expect(try await harness.media.list(for: "ada") == [profilePhoto], "the profile shows it")
        // A profile photo the profile no longer shows, kept for a post, goes with it.
        harness.auth.setCurrentUser(UserEntity(id: "ada", displayName: "Ada", createdAt: now, lastSignInAt: now))
        _ = try await harness.social.refreshProfile()
        let last = try await harness.social.createPost(content: "me again", workoutType: .run, mediaURL: url)
        try await harness.social.deletePost(last.id)
        #expect(try await harness.media.list(for: "ada").isEmpty)
    }

    @Test(
        "a photo too large or not an image, a locked feed or empty text posts nothing and stores nothing", arguments: SocialVariant.allCases)
    func refusedBeforeOrDuringTheUpload(variant: SocialVariant) async throws {
        let harness = try SocialHarness(variant)
        harness.act(as: "ada")
        await #expect(throws: SocialError(.feedLocked)) {
            _ = try await harness.social.createPost(content: "locked", workoutType: .run, photo: SocialHarness.jpeg())
        }
        _ = try await harness.social.unlockFeed(workoutType: .run)
        await #expect(throws: SocialError(.invalidContent)) {
            _ = try await harness.social.createPost(content: "  ", workoutType: .run, photo: SocialHarness.jpeg())
        }
        await #expect(throws: SocialError(.mediaTooLarge)) {
            _ = try await harness.social.createPost(content: "huge", workoutType: .run, photo: SocialHarness.jpeg(size: 10_000_001))
        }
        await #expect(throws: SocialError(.unsupportedMediaType)) {
            _ = try await harness.social.createPost(content: "text", workoutType: .run, photo: Data("not an image".utf8))
        }
        #expect(try await harness.media.list(for: "ada").isEmpty)
        #expect(try await harness.social.discoverFeed().isEmpty)
    }

    @Test("a post that fails after the upload, because another user signed in during it, leaves no photo behind")
    func failureAfterTheUploadRemovesThePhoto() async throws {
        let auth = FakeAuthService()
        let clock = ManualClock()
        let media = LocalMediaStore(auth: auth, context: TrainContext(clock: clock))
        let source = SwitchingWorkoutSource(auth: auth)
        let social = LocalSocialFeedService(
            auth: auth, media: media, context: TrainContext(clock: clock), configuration: SocialConfiguration(workouts: source))
        auth.setCurrentUser(UserEntity(id: "ada", displayName: "Ada", createdAt: clock.now, lastSignInAt: clock.now))
        _ = try await social.unlockFeed(workoutType: .run)
        source.armed.withLock { $0 = true }
        await #expect(throws: SocialError(.notSignedIn)) {
            _ = try await social.createPost(content: "summit", workoutType: .run, photo: SocialHarness.jpeg())
        }
        #expect(try await media.list(for: "ada").isEmpty, "the upload was removed although Bob is signed in now")
        #expect(auth.currentUser?.id == "bob")
        source.armed.withLock { $0 = false }
        auth.setCurrentUser(UserEntity(id: "ada", displayName: "Ada", createdAt: clock.now, lastSignInAt: clock.now))
        #expect(try await social.discoverFeed().isEmpty)
    }
}
