import Foundation
import Testing
import TrainSocial
import TrainTesting

@Suite struct SocialScenarioTests {
    @Test("a user with 10 posts, 5 followers and 20 likes is one expression, and every count is its relations")
    func userInOneExpression() async throws {
        let scenario = try SocialScenario()
        let ada = try await scenario.user("ada", posts: 10, followers: 5, likes: 20, comments: 3)
        #expect(ada.profile.followerCount == 5)
        #expect(ada.posts.count == 10)
        #expect(ada.posts.map(\.likeCount).reduce(0, +) == 20)
        #expect(ada.posts.map(\.commentCount).reduce(0, +) == 3)
        #expect(Set(try await scenario.social.followers().map(\.id)) == Set(ada.followers))
        #expect(scenario.auth.currentUser?.id == "ada")
        #expect(try await scenario.social.recount() == 0)
    }

    @Test("likes beyond one per follower and post come from new fans")
    func fansMakeUpTheLikes() async throws {
        let scenario = try SocialScenario()
        let bob = try await scenario.user("bob", posts: 2, followers: 1, likes: 5)
        #expect(bob.posts.map(\.likeCount).sorted() == [2, 3])
        #expect(try await scenario.social.likes(on: bob.posts[0].id).count == bob.posts[0].likeCount)
        #expect(try await scenario.social.profile("bob-fan-2").id == "bob-fan-2")
    }

    @Test("likes without posts is a typed error and makes no user")
    func likesNeedPosts() async throws {
        let scenario = try SocialScenario()
        await #expect(throws: SocialError(.postNotFound)) { try await scenario.user("cy", likes: 1) }
        scenario.act(as: "someone")
        await #expect(throws: SocialError(.userNotFound)) { try await scenario.social.profile("cy") }
    }

    @Test("the same seed makes the same random graph, whose counts equal its relations")
    func seededGraph() async throws {
        func graph() async throws -> [String: [String]] {
            let scenario = try SocialScenario()
            var following: [String: [String]] = [:]
            for id in try await scenario.randomGraph(users: 12, seed: 42) {
                scenario.act(as: id)
                following[id] = try await scenario.social.following().map(\.id).sorted()
            }
            #expect(try await scenario.social.recount() == 0)
            return following
        }
        let first = try await graph()
        #expect(first == (try await graph()))
        #expect(first.values.map(\.count).reduce(0, +) > 0)
    }
}
