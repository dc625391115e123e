import Foundation
import Testing
import TrainAuth
import TrainCore
import TrainSocial
import TrainTesting

// The code of TrainSocial.docc/ModeratingContent.md, kept compiling and correct here.
// When you change one, change the other.

private func makeModeratedFeed(auth: any AuthService) throws -> LocalSocialFeedService {
    let policy = SocialPolicy(
        wordFilter: try WordFilter(["buy followers", "spam"]), hideAfterReports: 3, moderators: ["moderator-1"])
    return LocalSocialFeedService(auth: auth, configuration: SocialConfiguration(policy: policy))
}

private func reportAndBlock(_ post: PostEntity, social: any SocialFeedService) async throws {
    try await social.report(.post(post.id), reason: .spam, details: "Sells followers")
    try await social.block(post.userID)
}

private func reviewReports(social: any SocialFeedService) async throws -> Int {
    let cases = try await social.moderationQueue(limit: 20, after: nil)
    for reported in cases {
        switch reported.target {
        case .post, .comment:
            try await social.moderate(reported.target, action: .takeDown, note: "Against the community rules")
        case .user:
            try await social.moderate(reported.target, action: .suspend, note: "Repeated reports")
        }
    }
    return cases.count
}

private func promote(_ userID: String, social: any SocialFeedService) async throws {
    try await social.moderate(.user(userID), action: .grantModerator, note: "Trusted member")
}

@Suite struct ModeratingContentTests {
    @Test("the article's code: an admin promotes a user, who then reads the queue")
    func promoteCode() async throws {
        let auth = FakeAuthService()
        let social = LocalSocialFeedService(auth: auth, configuration: SocialConfiguration(policy: SocialPolicy(admins: ["admin-1"])))
        for id in ["bob", "admin-1"] {
            auth.setCurrentUser(UserEntity(id: id, displayName: id, createdAt: .now, lastSignInAt: .now))
            _ = try await social.unlockFeed(workoutType: .run)
        }
        try await promote("bob", social: social)
        #expect(try await social.moderationLog(limit: 10, after: nil).map(\.action) == [.grantModerator])
        auth.setCurrentUser(UserEntity(id: "bob", displayName: "bob", createdAt: .now, lastSignInAt: .now))
        #expect(try await social.moderationQueue(limit: 10, after: nil).isEmpty)
    }

    @Test("the article's code: a filtered post refused, a report and a block, then the moderator takes the post down")
    func articleCode() async throws {
        let auth = FakeAuthService()
        let social = try makeModeratedFeed(auth: auth)
        func act(as id: String) { auth.setCurrentUser(UserEntity(id: id, displayName: id, createdAt: .now, lastSignInAt: .now)) }
        for id in ["moderator-1", "bob", "ada"] {
            act(as: id)
            _ = try await social.unlockFeed(workoutType: .run)
        }
        await #expect(throws: SocialError(.objectionableContent)) { try await social.createPost(content: "Buy followers here", workoutType: .run) }
        let post = try await social.createPost(content: "Cheap shoes, DM me", workoutType: .run)

        act(as: "bob")
        try await reportAndBlock(post, social: social)
        act(as: "moderator-1")
        #expect(try await reviewReports(social: social) == 1)
        #expect(try await social.discoverFeed().isEmpty, "taken down for everyone")
        #expect(try await social.moderationLog(limit: 10, after: nil).map(\.note) == ["Against the community rules"])
    }
}
