import Foundation
import Testing
import TrainCore
import TrainSocial
import TrainTesting

@Suite struct AccountDeletionTests {
    /// Ada follows and is followed, likes, comments, blocks and is blocked, posts with a photo.
    static func busyAda(_ harness: SocialHarness) async throws -> (adaPost: PostEntity, bobPost: PostEntity) {
        try await harness.join("bob", "cy", "eve", "ada")
        let photo = try await harness.media.put(SocialHarness.jpeg(), kind: .postPhoto, for: "ada")
        _ = try await harness.media.put(SocialHarness.jpeg(), kind: .profilePhoto, for: "ada")
        let adaPost = try await harness.social.createPost(content: "ada's run", workoutType: .run, mediaURL: harness.media.url(for: photo))
        try await harness.social.follow("bob")
        try await harness.social.block("eve")
        let bobPost = try await harness.post("bob's swim", by: "bob")
        try await harness.social.follow("ada")
        try await harness.social.like(adaPost.id)
        _ = try await harness.social.comment(on: adaPost.id, text: "nice")
        harness.act(as: "cy")
        try await harness.social.follow("ada")
        try await harness.social.block("ada")
        harness.act(as: "ada")
        try await harness.social.like(bobPost.id)
        _ = try await harness.social.comment(on: bobPost.id, text: "go bob")
        _ = try await harness.social.comment(on: adaPost.id, text: "thanks")
        return (adaPost, bobPost)
    }

    @Test(
        "deleting a user's social data removes their posts, likes, follows, blocks, profile and photos, and fixes every count",
        arguments: SocialVariant.allCases)
    func deletesEverythingOfTheUser(variant: SocialVariant) async throws {
        let harness = try SocialHarness(variant)
        let (adaPost, bobPost) = try await Self.busyAda(harness)
        _ = try await harness.media.put(SocialHarness.jpeg(), kind: .postPhoto, for: "bob")

        let report = try await harness.social.deleteAccountData()
        // Ada → Bob and Bob → Ada (Cy's follow ended with Cy's block); Ada → Eve and Cy → Ada.
        #expect(report == SocialDeletionReport(posts: 1, likes: 1, follows: 2, blocks: 2, anonymizedComments: 1, media: 2))
        #expect(try await harness.media.list(for: "ada").isEmpty)
        #expect(try await harness.media.list(for: "bob").count == 1)

        harness.act(as: "bob")
        await #expect(throws: SocialError(.userNotFound)) { try await harness.social.profile("ada") }
        await #expect(throws: SocialError(.userNotFound)) { try await harness.social.follow("ada") }
        await #expect(throws: SocialError(.postNotFound)) { try await harness.social.like(adaPost.id) }
        let bob = try await harness.social.profile("bob")
        #expect(bob.followerCount == 0 && bob.followingCount == 0)
        #expect(try await harness.social.searchUsers("ada", limit: 10).isEmpty)
        #expect(try await harness.social.friendsFeed().map(\.id) == [bobPost.id])
        #expect(try await harness.social.discoverFeed().map(\.id) == [bobPost.id])
        #expect(try await harness.social.likes(on: bobPost.id).isEmpty)
        #expect(try await harness.social.discoverFeed().first?.likeCount == 0)
        harness.act(as: "cy")
        #expect(try await harness.social.blockedUsers().isEmpty)
        #expect(try await harness.social.profile("cy").followingCount == 0)
        #expect(try await harness.social.recount() == 0)
    }

    @Test(
        "after a deletion, a follower's friends feed pages past the deleted user's posts: full pages of the others' posts, newest first, none twice",
        arguments: SocialVariant.allCases)
    func followerPagesPastDeletedPosts(variant: SocialVariant) async throws {
        let harness = try SocialHarness(variant)
        try await harness.join("ada", "cy", "bob")
        try await harness.social.follow("ada")
        try await harness.social.follow("cy")
        var cyPosts: [UUID] = []
        for index in 0..<25 {
            harness.clock.advance(by: .seconds(60))
            try await harness.post("ada's run \(index)", by: "ada")
            harness.clock.advance(by: .seconds(60))
            cyPosts.append(try await harness.post("cy's swim \(index)", by: "cy").id)
        }
        harness.act(as: "ada")
        #expect(try await harness.social.deleteAccountData().posts == 25)

        harness.act(as: "bob")
        let pages = try await harness.allPages(of: harness.social.friendsFeed(limit:after:), limit: 10)
        #expect(pages.map(\.id) == cyPosts.reversed())
        #expect(try await harness.social.friendsFeed(limit: 10).count == 10, "the first page is full")
    }

    @Test(
        "a user's export holds their profile, posts, comments, likes, follows both ways, blocks and unlock, and no one else's",
        arguments: SocialVariant.allCases)
    func exportsEverythingOfTheUser(variant: SocialVariant) async throws {
        let harness = try SocialHarness(variant)
        let (adaPost, bobPost) = try await Self.busyAda(harness)
        let export = try await harness.social.exportAccountData()
        #expect(export.profile?.id == "ada")
        #expect(export.posts.map(\.id) == [adaPost.id])
        #expect(Set(export.comments.map(\.text)) == ["go bob", "thanks"])
        #expect(export.comments.allSatisfy { $0.userID == "ada" })
        #expect(export.likedPostIDs == [bobPost.id])
        #expect(export.following == ["bob"])
        #expect(export.followers == ["bob"], "Cy's follow ended with Cy's block")
        #expect(export.blocked == ["eve"])
        #expect(export.unlock != nil)
        harness.act(as: "bob")
        let bobs = try await harness.social.exportAccountData()
        #expect(bobs.posts.map(\.id) == [bobPost.id])
        #expect(bobs.comments.map(\.text) == ["nice"])
    }

    @Test("a deleted user's comments stay as \"[Deleted User]\" with no ID or name of theirs, by default")
    func commentsAreAnonymized() async throws {
        let harness = try SocialHarness()
        let (_, bobPost) = try await Self.busyAda(harness)
        _ = try await harness.social.deleteAccountData()
        harness.act(as: "bob")
        let comments = try await harness.social.comments(on: bobPost.id)
        #expect(comments.map(\.text) == ["go bob"])
        #expect(comments.map(\.displayName) == ["[Deleted User]"])
        #expect(comments.allSatisfy { $0.userID == nil && $0.userName == nil })
        #expect(try await harness.social.discoverFeed().first?.commentCount == 1)
        // The post's owner can still remove it.
        if let comment = comments.first { try await harness.social.deleteComment(comment.id) }
        #expect(try await harness.social.comments(on: bobPost.id).isEmpty)
        #expect(try await harness.social.recount() == 0)
    }

    @Test("under the delete policy a deleted user's comments go and the posts' comment counts follow")
    func commentsAreDeletedUnderThatPolicy() async throws {
        let harness = try SocialHarness(policy: SocialPolicy(deletedUserComments: .delete))
        let (_, bobPost) = try await Self.busyAda(harness)
        let report = try await harness.social.deleteAccountData()
        #expect(report.deletedComments == 1 && report.anonymizedComments == 0)
        harness.act(as: "bob")
        #expect(try await harness.social.comments(on: bobPost.id).isEmpty)
        #expect(try await harness.social.discoverFeed().first?.commentCount == 0)
        #expect(try await harness.social.recount() == 0)
    }

    @Test("a cursor on a deleted user's post continues from its position")
    func cursorsKeepWorking() async throws {
        let harness = try SocialHarness()
        let old = try await harness.post("oldest", by: "bob")
        harness.clock.advance(by: .seconds(1))
        let adas = try await harness.post("ada's", by: "ada")
        harness.clock.advance(by: .seconds(1))
        let newest = try await harness.post("newest", by: "bob")
        harness.act(as: "bob")
        #expect(try await harness.social.discoverFeed(limit: 2).map(\.id) == [newest.id, adas.id])
        harness.act(as: "ada")
        _ = try await harness.social.deleteAccountData()
        harness.act(as: "bob")
        #expect(try await harness.social.discoverFeed(limit: 2, after: adas.id).map(\.id) == [old.id])
    }

    @Test("after deletion and a relaunch the file holds no profile of the user and every count is right; a second call changes nothing")
    func survivesRelaunchAndRepeats() async throws {
        let harness = try SocialHarness(.file)
        _ = try await Self.busyAda(harness)
        _ = try await harness.social.deleteAccountData()
        #expect(try await harness.social.deleteAccountData() == SocialDeletionReport())
        let reopened = try harness.reopened()
        harness.act(as: "bob")
        await #expect(throws: SocialError(.userNotFound)) { try await reopened.profile("ada") }
        #expect(try await reopened.recount() == 0)
    }

    @Test("deleting one user's data leaves every other user's posts, follows and photos as they were")
    func othersAreUntouched() async throws {
        let harness = try SocialHarness()
        _ = try await Self.busyAda(harness)
        let bobPhoto = try await harness.media.put(SocialHarness.jpeg(), kind: .postPhoto, for: "bob")
        harness.act(as: "cy")
        try await harness.social.follow("bob")
        harness.act(as: "bob")
        let before = try await harness.social.profile("bob")
        harness.act(as: "ada")
        _ = try await harness.social.deleteAccountData()
        harness.act(as: "bob")
        let after = try await harness.social.profile("bob")
        #expect(after.followerCount == before.followerCount - 1)
        harness.act(as: "cy")
        #expect(try await harness.social.following().map(\.id) == ["bob"])
        #expect(try await harness.media.contains(bobPhoto))
    }

    @Test("signed out, deleting social data is notSignedIn and changes nothing")
    func signedOut() async throws {
        let harness = try SocialHarness()
        _ = try await Self.busyAda(harness)
        harness.auth.setCurrentUser(nil)
        await #expect(throws: SocialError(.notSignedIn)) { try await harness.social.deleteAccountData() }
        harness.act(as: "bob")
        #expect(try await harness.social.profile("ada").followerCount == 1)
    }
}
