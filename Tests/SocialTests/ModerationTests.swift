import Foundation
import Testing
import TrainAuth
import TrainCore
import TrainTesting

@testable import TrainSocial

/// SOC-17: reports, content hidden after reports, the moderators' queue and audit
/// trail, suspensions, and the word filter over names.
@Suite struct ModerationTests {
    static let policy = SocialPolicy(hideAfterReports: 2, moderators: ["mod"])

    /// Ada posts and comments on her post; Bob, Cy, Dee and the moderator follow her.
    static func world(_ variant: SocialVariant) async throws -> (SocialHarness, post: PostEntity, comment: PostComment) {
        let harness = try SocialHarness(variant, policy: policy)
        try await harness.join("bob", "cy", "dee", "mod", "ada")
        let post = try await harness.post("ada's run", by: "ada")
        let comment = try await harness.social.comment(on: post.id, text: "felt great")
        for id in ["bob", "cy", "dee", "mod"] {
            harness.act(as: id)
            try await harness.social.follow("ada")
        }
        return (harness, post, comment)
    }

    @Test("a reported post leaves the reporter's feeds and lists, and nobody else's", arguments: SocialVariant.allCases)
    func reportedPostIsHiddenFromTheReporter(variant: SocialVariant) async throws {
        let (harness, post, _) = try await Self.world(variant)
        harness.act(as: "bob")
        let report = try await harness.social.report(.post(post.id), reason: .spam, details: "  buy my shoes  ")
        #expect(report.details == "buy my shoes" && report.reporterID == "bob")

        #expect(try await harness.allPages(of: harness.social.friendsFeed, limit: 5).isEmpty)
        #expect(try await harness.allPages(of: harness.social.discoverFeed, limit: 5).isEmpty)
        await #expect(throws: SocialError(.postNotFound)) { try await harness.social.likes(on: post.id) }
        await #expect(throws: SocialError(.postNotFound)) { try await harness.social.like(post.id) }
        harness.act(as: "cy")
        #expect(try await harness.social.friendsFeed().map(\.id) == [post.id], "one report hides nothing from others")
    }

    @Test("a reported comment leaves the reporter's list and the count on their page", arguments: SocialVariant.allCases)
    func reportedCommentIsHiddenFromTheReporter(variant: SocialVariant) async throws {
        let (harness, post, comment) = try await Self.world(variant)
        harness.act(as: "bob")
        _ = try await harness.social.comment(on: post.id, text: "nice")
        try await harness.social.report(.comment(comment.id), reason: .harassment)

        let page = try await harness.social.friendsFeed()
        let comments = try await harness.social.comments(on: post.id)
        #expect(comments.map(\.text) == ["nice"])
        #expect(page.first?.commentCount == comments.count, "the count equals the list")
        harness.act(as: "cy")
        #expect(try await harness.social.comments(on: post.id).count == 2)
        #expect(try await harness.social.friendsFeed().first?.commentCount == 2)
    }

    @Test("a reported user is hidden from the reporter as a blocked one is", arguments: SocialVariant.allCases)
    func reportedUserIsHiddenFromTheReporter(variant: SocialVariant) async throws {
        let (harness, _, _) = try await Self.world(variant)
        harness.act(as: "bob")
        try await harness.social.report(.user("ada"), reason: .harassment)
        await #expect(throws: SocialError(.userNotFound)) { try await harness.social.profile("ada") }
        #expect(try await harness.social.searchUsers("ada", limit: 5).isEmpty)
        #expect(try await harness.social.friendsFeed().isEmpty)
        #expect(try await harness.social.following().isEmpty)
        await #expect(throws: SocialError(.alreadyReported)) { try await harness.social.report(.user("ada"), reason: .spam) }
        try await harness.social.block("ada")
        harness.act(as: "cy")
        #expect(
            try await harness.social.profile("ada").followerCount == 3, "Bob's follow ended with his block; Cy sees Dee, the moderator and herself")
    }

    @Test("refused reports change nothing: one's own, twice, unknown, and details that are too long or hostile")
    func refusedReports() async throws {
        let (harness, post, comment) = try await Self.world(.inMemory)
        harness.act(as: "ada")
        await #expect(throws: SocialError(.cannotTargetSelf)) { try await harness.social.report(.post(post.id), reason: .spam) }
        await #expect(throws: SocialError(.cannotTargetSelf)) { try await harness.social.report(.comment(comment.id), reason: .spam) }
        await #expect(throws: SocialError(.cannotTargetSelf)) { try await harness.social.report(.user("ada"), reason: .spam) }
        harness.act(as: "bob")
        await #expect(throws: SocialError(.postNotFound)) { try await harness.social.report(.post(UUID()), reason: .spam) }
        await #expect(throws: SocialError(.commentNotFound)) { try await harness.social.report(.comment(UUID()), reason: .spam) }
        await #expect(throws: SocialError(.userNotFound)) { try await harness.social.report(.user("nobody"), reason: .spam) }
        for details in [String(repeating: "a", count: 1_000_000), "bad\u{0}bytes", "\u{202E}reversed", String(repeating: "é", count: 501)] {
            await #expect(throws: SocialError(.invalidReport)) { try await harness.social.report(.post(post.id), reason: .other, details: details) }
        }
        #expect(try await harness.social.exportAccountData().reports.isEmpty, "nothing was stored")
        #expect(try await harness.social.friendsFeed().map(\.id) == [post.id])

        try await harness.social.report(.post(post.id), reason: .other, details: "   ")
        await #expect(throws: SocialError(.alreadyReported)) { try await harness.social.report(.post(post.id), reason: .spam) }
        #expect(try await harness.social.exportAccountData().reports.map(\.details) == [nil], "blank details are none")
    }

    @Test(
        "a post reported by the policy's number of distinct users is hidden from everyone until a moderator restores it; later reports reopen the case without hiding it",
        arguments: SocialVariant.allCases)
    func postHiddenAfterReports(variant: SocialVariant) async throws {
        let (harness, post, _) = try await Self.world(variant)
        harness.act(as: "bob")
        try await harness.social.report(.post(post.id), reason: .spam)
        harness.act(as: "cy")
        #expect(try await harness.social.friendsFeed().map(\.id) == [post.id])
        try await harness.social.report(.post(post.id), reason: .nudity)
        harness.act(as: "dee")
        #expect(try await harness.social.friendsFeed().isEmpty, "hidden from everyone after two reports")
        await #expect(throws: SocialError(.postNotFound)) { try await harness.social.comments(on: post.id) }

        harness.act(as: "mod")
        let queue = try await harness.social.moderationQueue(limit: 10, after: nil)
        #expect(queue.map(\.target) == [.post(post.id)])
        #expect(queue.first?.status == .hidden && queue.first?.reportCount == 2 && queue.first?.ownerID == "ada")
        #expect(queue.first?.reasons == [.spam: 1, .nudity: 1] && queue.first?.content == "ada's run")
        try await harness.social.moderate(.post(post.id), action: .restore, note: "a running shoe, not spam")
        #expect(try await harness.social.moderationQueue(limit: 10, after: nil).isEmpty)
        harness.act(as: "dee")
        #expect(try await harness.social.friendsFeed().map(\.id) == [post.id])

        try await harness.social.report(.post(post.id), reason: .spam)
        harness.act(as: "mod")
        let reopened = try await harness.social.moderationQueue(limit: 10, after: nil)
        #expect(reopened.first?.status == .open && reopened.first?.reportCount == 3)
        harness.act(as: "ada")
        #expect(try await harness.social.friendsFeed().map(\.id) == [post.id], "a reviewed post is not hidden by reports alone")
    }

    @Test(
        "a comment hidden by reports or taken down leaves every list and count, recount agrees, and a restore brings it back",
        arguments: SocialVariant.allCases)
    func commentHiddenAndTakenDown(variant: SocialVariant) async throws {
        let (harness, post, comment) = try await Self.world(variant)
        for id in ["bob", "cy"] {
            harness.act(as: id)
            try await harness.social.report(.comment(comment.id), reason: .harassment)
        }
        harness.act(as: "dee")
        #expect(try await harness.social.comments(on: post.id).isEmpty)
        #expect(try await harness.social.friendsFeed().first?.commentCount == 0)
        #expect(try await harness.social.recount() == 0, "the stored count already left it out")

        harness.act(as: "mod")
        try await harness.social.moderate(.comment(comment.id), action: .takeDown, note: nil)
        harness.act(as: "dee")
        #expect(try await harness.social.comments(on: post.id).isEmpty)
        harness.act(as: "ada")
        #expect(try await harness.social.exportAccountData().comments.first?.isHiddenByModeration == true, "the author's export says so")

        harness.act(as: "mod")
        try await harness.social.moderate(.comment(comment.id), action: .restore, note: nil)
        harness.act(as: "dee")
        #expect(try await harness.social.comments(on: post.id).map(\.id) == [comment.id])
        #expect(try await harness.social.friendsFeed().first?.commentCount == 1)
        #expect(try await harness.social.recount() == 0)
    }

    @Test("a suspended user is hidden from everyone and writes nothing until unsuspended", arguments: SocialVariant.allCases)
    func suspension(variant: SocialVariant) async throws {
        let (harness, post, _) = try await Self.world(variant)
        harness.act(as: "mod")
        try await harness.social.moderate(.user("ada"), action: .suspend, note: "repeated spam")
        harness.act(as: "bob")
        #expect(try await harness.social.friendsFeed().isEmpty)
        await #expect(throws: SocialError(.userNotFound)) { try await harness.social.profile("ada") }
        harness.act(as: "ada")
        await #expect(throws: SocialError(.accountSuspended)) { try await harness.social.createPost(content: "again", workoutType: .run) }
        await #expect(throws: SocialError(.accountSuspended)) { try await harness.social.follow("bob") }
        await #expect(throws: SocialError(.accountSuspended)) { try await harness.social.report(.user("bob"), reason: .spam) }
        try await harness.social.mute("cy")
        try await harness.social.block("dee")
        #expect(try await harness.social.friendsFeed().map(\.id) == [post.id], "they still read")

        harness.act(as: "mod")
        try await harness.social.moderate(.user("ada"), action: .unsuspend, note: nil)
        harness.act(as: "bob")
        #expect(try await harness.social.friendsFeed().map(\.id) == [post.id])
        harness.clock.advance(by: .seconds(86_400))
        harness.act(as: "mod")
        try await harness.social.moderate(.user("ada"), action: .suspend, note: "again")
        harness.act(as: "ada")
        _ = try await harness.social.unlockFeed(workoutType: .run)
        #expect(harness.social.hasFeedUnlocked(), "a suspended user still unlocks the feed the next day")
        harness.act(as: "mod")
        try await harness.social.moderate(.user("ada"), action: .unsuspend, note: nil)
        harness.act(as: "mod")
        let log = try await harness.social.moderationLog(limit: 10, after: nil)
        #expect(log.map(\.action) == [.unsuspend, .suspend, .unsuspend, .suspend], "newest first")
        #expect(log.allSatisfy { $0.moderatorID == "mod" && $0.target == .user("ada") && $0.ownerID == "ada" })
        #expect(log.last?.note == "repeated spam")
        #expect(
            try await harness.social.moderationLog(limit: 2, after: log[1].id).map(\.action) == [.unsuspend, .suspend], "paged by the last entry")
    }

    @Test("moderation refuses non-moderators, actions that do not apply, a moderator's own content and hostile notes, and changes nothing")
    func moderationRefusals() async throws {
        let (harness, post, _) = try await Self.world(.inMemory)
        harness.act(as: "bob")
        await #expect(throws: SocialError(.notAuthorized)) { try await harness.social.moderationQueue(limit: 10, after: nil) }
        await #expect(throws: SocialError(.notAuthorized)) { try await harness.social.moderate(.post(post.id), action: .takeDown, note: nil) }
        await #expect(throws: SocialError(.notAuthorized)) { try await harness.social.moderationLog(limit: 10, after: nil) }
        harness.act(as: "\u{200B}mod")
        await #expect(throws: SocialError(.notAuthorized), "an ID that only looks like a moderator's") {
            try await harness.social.moderationLog(limit: 10, after: nil)
        }

        harness.act(as: "mod")
        let modsPost = try await harness.social.createPost(content: "mod's ride", workoutType: .cycle)
        await #expect(throws: SocialError(.invalidModerationAction)) {
            try await harness.social.moderate(.post(post.id), action: .suspend, note: nil)
        }
        await #expect(throws: SocialError(.invalidModerationAction)) { try await harness.social.moderate(.user("ada"), action: .takeDown, note: nil) }
        await #expect(throws: SocialError(.invalidModerationAction), "nothing to dismiss") {
            try await harness.social.moderate(.post(post.id), action: .dismiss, note: nil)
        }
        await #expect(throws: SocialError(.invalidModerationAction)) {
            try await harness.social.moderate(.post(post.id), action: .takeDown, note: "\u{202E}hidden")
        }
        await #expect(throws: SocialError(.cannotTargetSelf)) { try await harness.social.moderate(.post(modsPost.id), action: .takeDown, note: nil) }
        await #expect(throws: SocialError(.postNotFound)) { try await harness.social.moderate(.post(UUID()), action: .takeDown, note: nil) }
        #expect(try await harness.social.moderationLog(limit: 10, after: nil).isEmpty)
        harness.act(as: "bob")
        #expect(try await harness.social.friendsFeed().map(\.id) == [post.id])
    }

    @Test(
        "a post's comment count on a page equals its list when a comment taken down is by a user the viewer hides",
        arguments: SocialVariant.allCases)
    func takenDownCommentOfAHiddenUser(variant: SocialVariant) async throws {
        let (harness, post, _) = try await Self.world(variant)
        harness.act(as: "bob")
        let bobs = try await harness.social.comment(on: post.id, text: "first")
        harness.act(as: "cy")
        _ = try await harness.social.comment(on: post.id, text: "second")
        harness.act(as: "mod")
        try await harness.social.moderate(.comment(bobs.id), action: .takeDown, note: nil)
        harness.act(as: "dee")
        try await harness.social.block("bob")
        // As many users hidden from Dee as the post counts comments: the count reads the comments themselves.
        try await harness.social.block("mod")
        let comments = try await harness.social.comments(on: post.id)
        #expect(try await harness.social.friendsFeed().first?.commentCount == comments.count)
        #expect(comments.count == 2, "Ada's and Cy's")
    }

    @Test(
        "deleting reported content, or blocking its author, keeps its case waiting with what it said; a moderator closes it",
        arguments: SocialVariant.allCases)
    func removedContentStaysInTheQueue(variant: SocialVariant) async throws {
        let (harness, post, _) = try await Self.world(variant)
        harness.act(as: "bob")
        let bully = try await harness.social.comment(on: post.id, text: "you are slow")
        harness.act(as: "cy")
        try await harness.social.report(.comment(bully.id), reason: .harassment)
        harness.act(as: "ada")
        try await harness.social.report(.comment(bully.id), reason: .harassment)
        try await harness.social.block("bob")
        harness.act(as: "cy")
        #expect(try await harness.social.exportAccountData().reports.map(\.target) == [.comment(bully.id)], "Cy's report stays")

        harness.act(as: "mod")
        let waiting = try #require(try await harness.social.moderationQueue(limit: 10, after: nil).first)
        #expect(waiting.target == .comment(bully.id) && waiting.isContentRemoved && waiting.content == "you are slow")
        #expect(waiting.ownerID == "bob" && waiting.reportCount == 2)
        await #expect(throws: SocialError(.invalidModerationAction)) {
            try await harness.social.moderate(.comment(bully.id), action: .restore, note: nil)
        }
        try await harness.social.moderate(.comment(bully.id), action: .takeDown, note: "harassment")
        try await harness.social.moderate(.user("bob"), action: .suspend, note: "harassment")
        #expect(try await harness.social.moderationQueue(limit: 10, after: nil).isEmpty)
        #expect(try await harness.social.moderationLog(limit: 10, after: nil).map(\.ownerID) == ["bob", "bob"])
    }

    @Test("with no moderators, reports never hide anything: nobody could show it again; a threshold below 1 counts as 1")
    func hidingNeedsModerators() async throws {
        let harness = try SocialHarness(policy: SocialPolicy(hideAfterReports: 1))
        try await harness.join("bob", "ada")
        let post = try await harness.post("ada's run", by: "ada")
        harness.act(as: "bob")
        try await harness.social.report(.post(post.id), reason: .spam)
        harness.act(as: "ada")
        #expect(try await harness.social.discoverFeed().map(\.id) == [post.id])

        let strict = try SocialHarness(policy: SocialPolicy(hideAfterReports: -3, moderators: ["mod"]))
        try await strict.join("bob", "cy", "ada")
        let other = try await strict.post("ada's swim", by: "ada")
        strict.act(as: "bob")
        try await strict.social.report(.post(other.id), reason: .spam)
        strict.act(as: "cy")
        #expect(try await strict.social.discoverFeed().isEmpty)
    }

    @Test("a takedown stands when another moderator dismisses the reports afterwards")
    func dismissKeepsATakedown() async throws {
        var policy = Self.policy
        policy.moderators = ["mod", "mod2"]
        policy.admins = ["root"]
        let harness = try SocialHarness(policy: policy)
        try await harness.join("bob", "cy", "mod", "mod2", "root", "ada")
        let post = try await harness.post("ada's run", by: "ada")
        harness.act(as: "bob")
        try await harness.social.report(.post(post.id), reason: .spam)
        harness.act(as: "mod")
        try await harness.social.moderate(.post(post.id), action: .takeDown, note: nil)
        harness.act(as: "mod2")
        try await harness.social.moderate(.post(post.id), action: .dismiss, note: nil)
        harness.act(as: "cy")
        #expect(try await harness.social.discoverFeed().isEmpty)

        // A moderator suspended by an admin moderates no more.
        harness.act(as: "root")
        try await harness.social.moderate(.user("mod2"), action: .suspend, note: nil)
        harness.act(as: "mod2")
        await #expect(throws: SocialError(.accountSuspended)) { try await harness.social.moderate(.user("bob"), action: .suspend, note: nil) }
        await #expect(throws: SocialError(.accountSuspended)) { try await harness.social.moderationQueue(limit: 10, after: nil) }
    }

    @Test("a deleted account's ID leaves the audit trail, whose actions stay", arguments: SocialVariant.allCases)
    func auditTrailForgetsDeletedAccounts(variant: SocialVariant) async throws {
        var policy = Self.policy
        policy.moderators = ["mod", "mod2"]
        let harness = try SocialHarness(variant, policy: policy)
        try await harness.join("bob", "mod", "mod2")
        harness.act(as: "mod")
        try await harness.social.moderate(.user("bob"), action: .suspend, note: "spam")
        harness.act(as: "bob")
        _ = try await harness.social.deleteAccountData()
        harness.act(as: "mod")
        _ = try await harness.social.deleteAccountData()
        harness.act(as: "mod2")
        let entry = try #require(try await harness.social.moderationLog(limit: 10, after: nil).first)
        #expect(entry.moderatorID == nil && entry.ownerID == nil && entry.target == .user("") && entry.action == .suspend && entry.note == "spam")
    }

    @Test("the queue pages oldest first by the last case of the previous page")
    func queuePages() async throws {
        let (harness, post, comment) = try await Self.world(.inMemory)
        harness.act(as: "bob")
        try await harness.social.report(.post(post.id), reason: .spam)
        harness.clock.advance(by: .seconds(1))
        harness.act(as: "cy")
        try await harness.social.report(.comment(comment.id), reason: .spam)
        harness.clock.advance(by: .seconds(1))
        try await harness.social.report(.user("dee"), reason: .spam)
        harness.act(as: "mod")
        let first = try await harness.social.moderationQueue(limit: 2, after: nil)
        #expect(first.map(\.target) == [.post(post.id), .comment(comment.id)])
        // The moderator handles the page's last case before asking for the next page.
        try await harness.social.moderate(.comment(comment.id), action: .dismiss, note: nil)
        let second = try await harness.social.moderationQueue(limit: 2, after: first.last)
        #expect(second.map(\.target) == [.user("dee")])
    }

    @Test(
        "a display name the word filter matches is never stored or shown: posts, comments, likes and follows are refused; unlocking, blocking, muting and reporting are not"
    )
    func wordFilterOverNames() async throws {
        let harness = try SocialHarness(policy: SocialPolicy(wordFilter: try WordFilter(["spam"])))
        try await harness.join("bob")
        let bobs = try await harness.post("bob's run", by: "bob")
        harness.auth.setCurrentUser(UserEntity(id: "eve", displayName: "Free SPAM", createdAt: .now, lastSignInAt: .now))
        _ = try await harness.social.unlockFeed(workoutType: .run)
        await #expect(throws: SocialError(.objectionableContent)) { try await harness.social.createPost(content: "hi", workoutType: .run) }
        await #expect(throws: SocialError(.objectionableContent)) { _ = try await harness.social.comment(on: bobs.id, text: "hi") }
        await #expect(throws: SocialError(.objectionableContent)) { try await harness.social.like(bobs.id) }
        await #expect(throws: SocialError(.objectionableContent)) { try await harness.social.follow("bob") }
        try await harness.social.mute("bob")
        try await harness.social.report(.post(bobs.id), reason: .other)
        try await harness.social.block("bob")
        #expect(try await harness.social.exportAccountData().profile?.displayName == "Athlete", "the name is kept out")

        harness.auth.setCurrentUser(UserEntity(id: "eve", displayName: "Eve", createdAt: .now, lastSignInAt: .now))
        _ = try await harness.social.createPost(content: "renamed", workoutType: .run)
        #expect(try await harness.social.exportAccountData().profile?.displayName == "Eve")
        #expect(try await harness.social.searchUsers("spam", limit: 5).isEmpty)
    }

    @Test("reports, moderation and cursors naming an ID no user could have are typed errors, not storage failures")
    func hostileIDs() async throws {
        let (harness, _, _) = try await Self.world(.inMemory)
        let huge = String(repeating: "x", count: 1_000_000)
        for id in [huge, ""] {
            harness.act(as: "bob")
            await #expect(throws: SocialError(.userNotFound)) { try await harness.social.report(.user(id), reason: .spam) }
            harness.act(as: "mod")
            await #expect(throws: SocialError(.userNotFound)) { try await harness.social.moderate(.user(id), action: .suspend, note: nil) }
            let cursor = ModerationCase(target: .user(id), ownerID: id, content: "", status: .open, reportCount: 1, reasons: [:], openedAt: .now)
            await #expect(throws: SocialError(.invalidCursor)) { try await harness.social.moderationQueue(limit: 5, after: cursor) }
        }
    }

    @Test(
        "deleting an account removes its reports both ways and its content's cases; the export holds reports and mutes",
        arguments: SocialVariant.allCases)
    func accountDataAndExport(variant: SocialVariant) async throws {
        let (harness, post, _) = try await Self.world(variant)
        harness.act(as: "bob")
        try await harness.social.report(.post(post.id), reason: .spam)
        try await harness.social.report(.user("cy"), reason: .spam)
        try await harness.social.mute("dee")
        let export = try await harness.social.exportAccountData()
        #expect(export.reports.map(\.target) == [.post(post.id), .user("cy")] && export.muted == ["dee"])

        harness.act(as: "ada")
        _ = try await harness.social.deleteAccountData()
        harness.act(as: "bob")
        #expect(try await harness.social.exportAccountData().reports.map(\.target) == [.user("cy")], "the report of Ada's post went with it")
        _ = try await harness.social.deleteAccountData()
        harness.act(as: "mod")
        #expect(try await harness.social.moderationQueue(limit: 10, after: nil).isEmpty, "Bob's report of Cy went with his account")
        harness.act(as: "cy")
        #expect(try await harness.social.profile("dee").id == "dee")
    }
}
