import Foundation
import Testing
import TrainAuth
import TrainCore
import TrainSocial
import TrainTesting

// The code of TrainSocial.docc/GettingStartedWithTheFeed.md, kept compiling and correct here.
// When you change one, change the other.

private func makeFeed(auth: any AuthService, directory: URL) throws -> LocalSocialFeedService {
    let media = try LocalMediaStore(storage: .file(directory.appendingPathComponent("media")))
    return try LocalSocialFeedService(auth: auth, media: media, storage: .file(directory.appendingPathComponent("trainkit.sqlite")))
}

private func finishWorkout(social: LocalSocialFeedService, photo: Data) async throws -> [PostEntity] {
    let unlock = try await social.unlockFeed(workoutType: .run)
    print("Feed open until", unlock.expiresAt)
    _ = try await social.createPost(content: "Morning 10k", workoutType: .run, photo: photo)
    var page = try await social.friendsFeed(limit: 20)
    var posts = page.posts
    while let next = page.nextCursor {
        page = try await social.friendsFeed(limit: 20, after: next)
        posts += page
    }
    return posts
}

private func loadFeed(social: any SocialFeedService) async -> String {
    do {
        let page = try await social.friendsFeed(limit: 20)
        return page.isEmpty ? "No posts yet" : "\(page.count) posts"
    } catch let error as SocialError where error.code == .feedLocked {
        return error.recoverySuggestion ?? "Complete a workout"
    } catch {
        return "Something went wrong"
    }
}

private func deleteSocialData(social: any SocialFeedService) async throws -> SocialDeletionReport {
    let report = try await social.deleteAccountData()
    print("Removed \(report.posts) posts and \(report.media) photos")
    return report
}

@Suite struct GettingStartedWithTheFeedTests {
    @Test("the article's code: a locked feed, a workout, a photo post read back page by page, then the data deleted")
    func articleCode() async throws {
        let directory = try TemporaryDirectory()
        let auth = FakeAuthService(currentUser: UserEntity(id: "ada", displayName: "Ada", createdAt: .now, lastSignInAt: .now))
        let social = try makeFeed(auth: auth, directory: directory.url)
        #expect(await loadFeed(social: social) == SocialError(.feedLocked).recoverySuggestion)
        let posts = try await finishWorkout(social: social, photo: SocialHarness.jpeg())
        #expect(posts.map(\.content) == ["Morning 10k"])
        #expect(await loadFeed(social: social) == "1 posts")
        let report = try await deleteSocialData(social: social)
        #expect(report.posts == 1 && report.media == 1)
        #expect(try await social.media.list(for: "ada").isEmpty)
    }
}
