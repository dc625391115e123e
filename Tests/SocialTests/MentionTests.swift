import Foundation
import Testing
import TrainAuth
import TrainCore
import TrainTesting

@testable import TrainSocial

/// SOC-18: a mention in a post or comment notifies the user it names, one notification
/// per post; a mention the author may not make is refused with nothing stored, and a
/// mention's notification goes with the post or comment it is in.
@Suite struct MentionTests {
    static let policy = SocialPolicy(moderators: ["mod"])

    /// Ada, Bob, Cy, Dee and a moderator join; Ada is signed in.
    static func world(_ variant: SocialVariant) async throws -> SocialHarness {
        let harness = try SocialHarness(variant, policy: policy)
        try await harness.join("bob", "cy", "dee", "mod", "ada")
        return harness
    }

    /// The signed-in user's mention notifications.
    static func mentions(_ harness: SocialHarness) async throws -> [SocialNotification] {
        try await NotificationTests.all(harness).filter { $0.kind == .mention }
    }

    @Test("the text's mentions, each once and in order; a combining mark after one does not hide it")
    func parsing() {
        let text = "run with <@bob> and <@cy>\u{301}, <@bob> again; not <@>, <@a b>, <@<@dee>, @cy or <@\(String(repeating: "x", count: 513))>"
        #expect(Mention.userIDs(in: text) == ["bob", "cy", "dee"])
        #expect(Mention.token(for: "bob") == "<@bob>")
        let shown = Mention.displayText("hi <@bob> and <@gone>!") { $0 == "bob" ? "Bob" : nil }
        #expect(shown == "hi @Bob and @someone!")
        #expect(Mention.displayText("no mention", name: { _ in "x" }) == "no mention")
    }

    @Test("a post mentioning two users notifies each; a comment's mention joins its post's notification", arguments: SocialVariant.allCases)
    func mentionsNotify(variant: SocialVariant) async throws {
        let harness = try await Self.world(variant)
        let post = try await harness.social.createPost(content: "ran with <@bob>, <@cy> and <@ada>", workoutType: .run)
        #expect(post.mentionedUserIDs == ["bob", "cy", "ada"])
        harness.clock.advance(by: .seconds(60))
        harness.act(as: "dee")
        let comment = try await harness.social.comment(on: post.id, text: "<@bob> you were fast")
        #expect(comment.mentionedUserIDs == ["bob"])

        harness.act(as: "bob")
        let bobs = try await Self.mentions(harness)
        #expect(bobs.count == 1 && bobs.first?.postID == post.id && bobs.first?.latestActors.map(\.id) == ["dee", "ada"])
        #expect(bobs.first?.summary == "Dee and Ada mentioned you")
        #expect(try await harness.social.unseenNotificationCount() == 1)
        harness.act(as: "cy")
        #expect(try await Self.mentions(harness).map(\.summary) == ["Ada mentioned you"])
        harness.act(as: "ada")
        #expect(try await Self.mentions(harness).isEmpty, "mentioning oneself notifies nobody")
    }

    @Test("a mention of a blocked, unknown or hidden user, or of too many, is refused and stores nothing", arguments: SocialVariant.allCases)
    func refusedMentions(variant: SocialVariant) async throws {
        let harness = try await Self.world(variant)
        let post = try await harness.social.createPost(content: "morning run", workoutType: .run)
        try await harness.social.block("bob")
        harness.act(as: "cy")
        try await harness.social.block("ada")
        harness.auth.setScheduledDeletion(of: "dee", at: harness.clock.now.addingTimeInterval(86_400))
        harness.act(as: "ada")

        let refused: [(String, SocialError)] = [
            ("<@bob> keep up", SocialError(.blocked)),
            ("<@cy> keep up", SocialError(.blocked)),
            ("<@nobody> keep up", SocialError(.userNotFound)),
            ("<@dee> keep up", SocialError(.userNotFound)),
            ((0...Mention.maximumPerText).map { Mention.token(for: "user\($0)") }.joined(separator: " "), SocialError(.invalidContent)),
        ]
        for (text, error) in refused {
            await #expect(throws: error, "\(text.prefix(20))") { try await harness.social.createPost(content: text, workoutType: .run) }
            await #expect(throws: error, "\(text.prefix(20)) as a photo post") {
                try await harness.social.createPost(content: text, workoutType: .run, photo: SocialHarness.jpeg())
            }
            let commentError = error.code == .invalidContent ? SocialError(.invalidComment) : error
            await #expect(throws: commentError, "\(text.prefix(20)) as a comment") { try await harness.social.comment(on: post.id, text: text) }
        }
        #expect(try await harness.social.discoverFeed().map(\.id) == [post.id])
        #expect(try await harness.social.comments(on: post.id).isEmpty)
        #expect(try await harness.media.list(for: "ada").isEmpty, "a refused photo post uploads nothing")
        harness.act(as: "mod")
        #expect(try await Self.mentions(harness).isEmpty)
    }

    @Test(
        "a mention's notification goes with its comment, its post, its takedown and its author's account; a muted author notifies nobody",
        arguments: SocialVariant.allCases)
    func removedWithTheirCause(variant: SocialVariant) async throws {
        let harness = try await Self.world(variant)
        let first = try await harness.social.createPost(content: "tempo with <@bob>", workoutType: .run)
        let second = try await harness.social.createPost(content: "intervals with <@bob>", workoutType: .run)
        harness.act(as: "cy")
        let comment = try await harness.social.comment(on: first.id, text: "<@bob> next time me too")
        harness.act(as: "dee")
        _ = try await harness.social.comment(on: second.id, text: "<@bob> same")
        harness.act(as: "bob")
        try await harness.social.mute("dee")
        harness.act(as: "dee")
        _ = try await harness.social.createPost(content: "<@bob> look", workoutType: .run)

        harness.act(as: "bob")
        #expect(
            try await Self.mentions(harness).map(\.actorCount) == [1, 2],
            "Dee, muted since, leaves Ada alone on the second post; Ada and Cy on the first")

        harness.act(as: "cy")
        try await harness.social.deleteComment(comment.id)
        harness.act(as: "bob")
        #expect(try await Self.mentions(harness).map(\.summary) == ["Ada mentioned you", "Ada mentioned you"])

        harness.act(as: "mod")
        try await harness.social.moderate(.post(second.id), action: .takeDown, note: nil)
        harness.act(as: "bob")
        #expect(try await Self.mentions(harness).map(\.postID) == [first.id], "a taken-down post's mention went with it")

        harness.act(as: "ada")
        try await harness.social.deletePost(first.id)
        harness.act(as: "bob")
        #expect(try await Self.mentions(harness).isEmpty)

        harness.act(as: "cy")
        let third = try await harness.social.createPost(content: "long run", workoutType: .run)
        harness.act(as: "ada")
        _ = try await harness.social.comment(on: third.id, text: "<@bob> join us")
        _ = try await harness.social.deleteAccountData()
        harness.act(as: "bob")
        #expect(try await Self.mentions(harness).isEmpty, "the comment stays, anonymized, and its mention went with Ada's account")
        harness.act(as: "cy")
        #expect(try await harness.social.comments(on: third.id).map(\.userID) == [nil])
    }

    @Test(
        "a mention is left out while its post is taken down or hidden by reports, and when the recipient blocks or reported the post's author",
        arguments: SocialVariant.allCases)
    func onlyOfPostsTheRecipientSees(variant: SocialVariant) async throws {
        let harness = try SocialHarness(variant, policy: SocialPolicy(hideAfterReports: 2, moderators: ["mod"]))
        try await harness.join("bob", "cy", "dee", "eve", "mod", "ada")
        let taken = try await harness.social.createPost(content: "morning run", workoutType: .run)
        let reported = try await harness.social.createPost(content: "evening run", workoutType: .run)
        harness.act(as: "cy")
        _ = try await harness.social.comment(on: taken.id, text: "<@bob> you should come")
        _ = try await harness.social.comment(on: reported.id, text: "<@bob> and this one")
        harness.act(as: "mod")
        try await harness.social.moderate(.post(taken.id), action: .takeDown, note: nil)
        for reporter in ["dee", "eve"] {
            harness.act(as: reporter)
            _ = try await harness.social.report(.post(reported.id), reason: .spam)
        }
        harness.act(as: "bob")
        #expect(try await Self.mentions(harness).isEmpty)
        #expect(try await harness.social.unseenNotificationCount() == 0)
        harness.act(as: "mod")
        try await harness.social.moderate(.post(taken.id), action: .restore, note: nil)
        harness.act(as: "bob")
        #expect(try await Self.mentions(harness).map(\.postID) == [taken.id], "restored, the post's mention is back")

        try await harness.social.block("ada")
        harness.act(as: "cy")
        let cys = try await harness.social.createPost(content: "cy's ride", workoutType: .cycle)
        harness.act(as: "dee")
        _ = try await harness.social.comment(on: cys.id, text: "<@bob> look at this")
        harness.act(as: "bob")
        #expect(try await Self.mentions(harness).map(\.postID) == [cys.id], "Ada's post is out: Bob blocks her")
        _ = try await harness.social.report(.post(cys.id), reason: .spam)
        #expect(try await Self.mentions(harness).isEmpty, "Bob reported Cy's post")
    }

    @Test("a locked feed is feedLocked for a text post and a photo post alike, before any mention is looked at")
    func lockedFeedComesFirst() async throws {
        let harness = try SocialHarness()
        try await harness.join("bob")
        harness.act(as: "zed")
        try await harness.social.block("bob")
        await #expect(throws: SocialError(.feedLocked)) { try await harness.social.createPost(content: "<@bob>", workoutType: .run) }
        await #expect(throws: SocialError(.feedLocked)) {
            try await harness.social.createPost(content: "<@bob>", workoutType: .run, photo: SocialHarness.jpeg())
        }
    }

    @Test("a block removes the mentions made before it, both ways and for good: an unblock brings none back", arguments: SocialVariant.allCases)
    func blockRemovesEarlierMentions(variant: SocialVariant) async throws {
        let harness = try await Self.world(variant)
        let adas = try await harness.social.createPost(content: "with <@bob> and <@cy>", workoutType: .run)
        harness.act(as: "bob")
        _ = try await harness.social.createPost(content: "with <@ada>", workoutType: .run)
        _ = try await harness.social.comment(on: adas.id, text: "thanks <@ada>")
        harness.act(as: "cy")
        _ = try await harness.social.comment(on: adas.id, text: "and <@ada> too")
        harness.act(as: "bob")
        try await harness.social.block("ada")
        #expect(try await Self.mentions(harness).isEmpty)
        #expect(try await harness.social.unseenNotificationCount() == 0)
        harness.act(as: "ada")
        #expect(try await Self.mentions(harness).map(\.actorCount) == [1], "Cy's mention stays")
        harness.act(as: "bob")
        try await harness.social.unblock("ada")
        #expect(try await Self.mentions(harness).isEmpty, "an unblock brings nothing back")
        #expect(try await harness.social.unseenNotificationCount() == 0)
        harness.act(as: "ada")
        let left = try await Self.mentions(harness)
        #expect(left.map(\.actorCount) == [1] && left.first?.latestActors.map(\.id) == ["cy"])
        let listed = try await NotificationTests.all(harness)
        #expect(try await harness.social.unseenNotificationCount() == listed.filter { !$0.isSeen }.count, "the badge counts the list")
        #expect(listed.allSatisfy { !$0.latestActors.map(\.id).contains("bob") }, "nothing of Bob's is left")
    }
}
