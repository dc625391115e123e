import Foundation
import Testing
import TrainAccount
import TrainAuth
import TrainCore
import TrainSocial
import TrainSubscription
import TrainSync
import TrainTesting

/// The ten deletion cases of the Stampbook deletion plan, on the real services.
@Suite(.timeLimit(.minutes(1))) struct DeletionCasesTests {
    @Test("case 1, basic deletion: a user with no posts and no followers is deleted cleanly")
    func basic() async throws {
        let world = try AccountWorld()
        let user = try await world.signIn(named: "quiet")
        let report = try await world.deleteAndPurge(user.id)
        #expect(report.social == SocialDeletionReport(), "nothing social to remove")
        #expect(report.providers == [.apple])
        #expect(world.auth.currentUser == nil)
        #expect(try await world.signIn(named: "quiet").id != user.id, "the account is gone: the same Apple ID makes a new one")
    }

    @Test("case 2, a user with 10 posts: all of them are deleted")
    func posts() async throws {
        let world = try AccountWorld()
        let user = try await world.signIn(named: "poster")
        for index in 1...10 { _ = try await world.social.createPost(content: "Stamp \(index)", workoutType: .run) }
        #expect(try await world.deleteAndPurge(user.id).social.posts == 10)
        try await world.signIn(named: "reader")
        #expect(try await world.social.discoverFeed(limit: 50).isEmpty)
    }

    @Test("case 3, a user with 5 followers: the follows are removed and each follower's following count goes down")
    func followers() async throws {
        let world = try AccountWorld()
        let user = try await world.signIn(named: "popular")
        try await world.auth.signOut()
        var fans: [UserEntity] = []
        for index in 1...5 {
            let fan = try await world.signIn(named: "fan\(index)")
            try await world.social.follow(user.id)
            fans.append(fan)
            try await world.auth.signOut()
        }
        try await world.signIn(named: "popular")
        #expect(try await world.deleteAndPurge(user.id).social.follows == 5)
        try await world.signIn(named: "fan1")
        for fan in fans { #expect(try await world.social.profile(fan.id).followingCount == 0) }
        #expect(try await world.social.following().isEmpty)
    }

    @Test("case 4, a user following 10 people: the follows are removed and each one's follower count goes down")
    func following() async throws {
        let world = try AccountWorld()
        var idols: [UserEntity] = []
        for index in 1...10 {
            idols.append(try await world.signIn(named: "idol\(index)"))
            try await world.auth.signOut()
        }
        let user = try await world.signIn(named: "follower")
        for idol in idols { try await world.social.follow(idol.id) }
        #expect(try await world.deleteAndPurge(user.id).social.follows == 10)
        try await world.signIn(named: "idol1")
        for idol in idols { #expect(try await world.social.profile(idol.id).followerCount == 0) }
    }

    @Test("case 5, a user who liked 20 posts and commented on 15: likes and comments go and the posts' counts follow")
    func likesAndComments() async throws {
        let world = try AccountWorld(socialPolicy: SocialPolicy(deletedUserComments: .delete))
        try await world.signIn(named: "author")
        var posts: [PostEntity] = []
        for index in 1...20 { posts.append(try await world.social.createPost(content: "Post \(index)", workoutType: .run)) }
        try await world.auth.signOut()
        let user = try await world.signIn(named: "fan")
        for post in posts { try await world.social.like(post.id) }
        for post in posts.prefix(15) { _ = try await world.social.comment(on: post.id, text: "Nice one") }
        let report = try await world.deleteAndPurge(user.id)
        #expect(report.social.likes == 20 && report.social.deletedComments == 15)
        try await world.signIn(named: "author")
        let after = try await world.social.exportAccountData().posts
        #expect(after.count == 20)
        #expect(after.allSatisfy { $0.likeCount == 0 && $0.commentCount == 0 })
        for post in posts.prefix(15) { #expect(try await world.social.comments(on: post.id).isEmpty) }
    }

    @Test("case 6, a user with a profile picture and 5 post photos: every photo is deleted from the media store", arguments: AccountVariant.allCases)
    func photos(variant: AccountVariant) async throws {
        let world = try AccountWorld(variant)
        let user = try await world.signIn(named: "photographer")
        let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 7, count: 60))
        _ = try await world.media.put(jpeg, kind: .profilePhoto, for: user.id)
        for index in 1...5 {
            let photo = try await world.media.put(jpeg, kind: .postPhoto, for: user.id)
            _ = try await world.social.createPost(content: "Stamp \(index)", workoutType: .run, mediaURL: world.media.url(for: photo))
        }
        #expect(try await world.media.list(for: user.id).count == 6)
        #expect(try await world.deleteAndPurge(user.id).social.media == 6)
        #expect(try await world.media.list(for: user.id).isEmpty)
    }

    @Test("case 7, a user who blocked 3 users: every block is deleted and the counts stay true")
    func blocks() async throws {
        let world = try AccountWorld()
        var blocked: [UserEntity] = []
        for index in 1...3 {
            blocked.append(try await world.signIn(named: "pest\(index)"))
            try await world.auth.signOut()
        }
        let user = try await world.signIn(named: "blocker")
        for pest in blocked { try await world.social.block(pest.id) }
        #expect(try await world.deleteAndPurge(user.id).social.blocks == 3)
        try await world.signIn(named: "pest1")
        #expect(try await world.social.recount() == 0)
        #expect(try await world.social.searchUsers("blocker", limit: 5).isEmpty, "the deleted user is not found")
    }

    @Test("case 8, orphaned data: the deleted user's comments on others' posts show \"[Deleted User]\"")
    func orphanedComments() async throws {
        let world = try AccountWorld()
        try await world.signIn(named: "author")
        let post = try await world.social.createPost(content: "Long ride", workoutType: .cycle)
        try await world.auth.signOut()
        let user = try await world.signIn(named: "commenter")
        _ = try await world.social.comment(on: post.id, text: "Chapeau")
        #expect(try await world.deleteAndPurge(user.id).social.anonymizedComments == 1)
        try await world.signIn(named: "author")
        let comments = try await world.social.comments(on: post.id)
        #expect(comments.map(\.displayName) == ["[Deleted User]"])
        #expect(comments.map(\.text) == ["Chapeau"])
        #expect(comments.allSatisfy { $0.userID == nil })
    }

    @Test(
        "case 9, the connection drops mid-deletion: the user is gone at once, the purge says which step failed and finishes from it when the network is back"
    )
    func networkFailure() async throws {
        let remote = FakeRemotePlanStore.inMemory()
        let world = try AccountWorld(remote: remote)
        let user = try await world.signIn(named: "traveller")
        _ = try await world.social.createPost(content: "Airport run", workoutType: .run)
        _ = try await world.plans.createPlan(TrainingPlan(name: "Trip", startDate: world.clock.now, endDate: world.clock.now, daysPerWeek: 2))
        _ = try await world.plans.sync()
        let progress = world.account.deletionProgress()
        remote.partition()
        try await world.account.deleteAccount(of: user.id)
        #expect(world.auth.currentUser == nil, "signed out at once")
        #expect(await progress.firstValue(where: { $0.phase == .failed })?.step == .plans)
        await #expect(throws: AccountError(.deletionIncomplete)) { try await world.account.purgeDueDeletions() }
        remote.heal()
        let report = try await world.account.purgeDueDeletions().first { $0.userID == user.id }
        let purged = try #require(report)
        #expect(purged.social.posts == 1, "the social step ran once, before the failure")
        #expect(purged.plans.remoteRecords == 1)
        #expect(remote.calls.count { $0.isCall(of: .erase) } == 3, "two failed erases, then the one that worked")
    }

    @Test("case 10, re-authentication: deleting ten minutes after signing in asks to sign in again, then succeeds")
    func reauthentication() async throws {
        let world = try AccountWorld()
        let user = try await world.signIn(named: "late")
        world.clock.advance(by: .seconds(600))
        let error = await #expect(throws: AccountError(.requiresRecentLogin)) { try await world.account.deleteAccount(of: user.id) }
        #expect(error?.recoverySuggestion == "Sign in again to continue.")
        world.apple.signIn(as: SimulatedIdentityProvider.Account(subject: "sub.late", email: "late@example.com"))
        _ = try await world.auth.reauthenticate(with: try await world.auth.requestCredential(from: .apple))
        #expect(try await world.deleteAndPurge(user.id).appleTokenRevocation == .revoked)
    }
}
