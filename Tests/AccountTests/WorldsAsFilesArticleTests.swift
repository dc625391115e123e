import Foundation
import Observation
import Testing
import TrainAccount
import TrainCore
import TrainSocial
import TrainSubscription

// The code of TrainAccount.docc/WorldsAsFiles.md, kept compiling and correct here.
// When you change one, change the other.

extension WorldSnapshot {
    static func twoFriends() throws -> WorldSnapshot {
        try WorldSnapshot(
            json: Data(
                #"""
                {"version": 1,
                 "users": [{"id": "ada", "displayName": "Ada"}, {"id": "grace", "displayName": "Grace"}],
                 "follows": [{"follower": "ada", "followee": "grace"}, {"follower": "grace", "followee": "ada"}],
                 "posts": [{"author": "grace", "content": "Intervals on the track: 6 × 800 m."}],
                 "purchases": [{"user": "ada", "product": "com.train.pro.monthly"}]}
                """#.utf8))
    }
}

@MainActor
@Observable
private final class FriendsModel {
    private let social: any SocialFeed
    private(set) var posts: [PostEntity] = []

    init(social: any SocialFeed) { self.social = social }

    func load() async throws { posts = Array(try await social.friendsFeed(limit: 20, after: nil)) }
}

@MainActor
@Test("the ten-line world gives the view model Grace's post and Ada the Pro tier") func aFriendsPostShows() async throws {
    let services = try TrainServices.inMemory(from: .twoFriends(), signedIn: "ada")
    _ = try await services.social.unlockFeed(workoutType: .run)
    let model = FriendsModel(social: services.social)
    try await model.load()
    #expect(model.posts.map(\.content) == ["Intervals on the track: 6 × 800 m."])
    #expect(services.subscriptions.currentTier == .pro)
}

@MainActor
private func previewServices() -> TrainServices {
    (try? TrainServices.preview(from: .twoFriends(), signedIn: "ada")) ?? .preview()
}

/// The article's preview.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct WorldsAsFilesArticleTests {
    @Test("the preview starts from the ten-line world, Ada signed in, her feed opened by a sample workout")
    func preview() async throws {
        let services = previewServices()
        #expect(services.auth.currentUser?.id == "ada")
        #expect(try await services.social.unlockFeed(workoutType: .run).workout != nil, "a sample run of today opens the feed")
        #expect(try await services.social.friendsFeed(limit: 20, after: nil).map(\.userName) == ["Grace"])
        #expect(try services.exportWorld().users.map(\.id) == ["ada", "grace"], "the world, not the default preview's")
    }
}
