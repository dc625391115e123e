import Foundation
import Testing
import TrainAuth
import TrainCore
import TrainTesting

@testable import TrainSocial

/// SOC-18: likes, comments and follows notify their recipient, one notification per
/// post and kind, paged newest first, with seen and read state and a badge; never from
/// blocked, muted or hidden users, and gone when their cause goes.
@Suite struct NotificationTests {
    /// Every notification of the signed-in user, page by page.
    static func all(_ harness: SocialHarness, limit: Int = 20) async throws -> [SocialNotification] {
        var page = try await harness.social.notifications(limit: limit, after: nil)
        var notifications = page.notifications
        while let next = page.nextCursor {
            #expect(page.notifications.count == limit, "a page with more after it is full")
            page = try await harness.social.notifications(limit: limit, after: next)
            notifications += page.notifications
        }
        return notifications
    }

    /// Ada posts; Bob, Cy and Dee join.
    static func world(_ variant: SocialVariant) async throws -> (SocialHarness, post: PostEntity) {
        let harness = try SocialHarness(variant)
        try await harness.join("bob", "cy", "dee", "ada")
        return (harness, try await harness.post("ada's run", by: "ada"))
    }

    @Test("likes of one post are one notification, as are its comments and every follow; newest first", arguments: SocialVariant.allCases)
    func aggregatedPerPostAndKind(variant: SocialVariant) async throws {
        let (harness, post) = try await Self.world(variant)
        for id in ["bob", "cy", "dee"] {
            harness.clock.advance(by: .seconds(60))
            harness.act(as: id)
            try await harness.social.like(post.id)
        }
        harness.clock.advance(by: .seconds(60))
        _ = try await harness.social.comment(on: post.id, text: "nice")
        _ = try await harness.social.comment(on: post.id, text: "really nice")
        harness.clock.advance(by: .seconds(60))
        try await harness.social.follow("ada")
        harness.act(as: "ada")
        try await harness.social.like(post.id)

        let notifications = try await Self.all(harness)
        #expect(notifications.map(\.kind) == [.follow, .comment, .like])
        let like = try #require(notifications.last)
        #expect(like.actorCount == 3 && like.latestActors.map(\.id) == ["dee", "cy"] && like.postID == post.id, "her own like is no notification")
        #expect(like.summary == "Dee and 2 others liked your post")
        #expect(notifications[1].actorCount == 1 && notifications[1].summary == "Dee commented on your post", "one commenter, two comments")
        #expect(notifications[0].summary == "Dee started following you")
    }

    @Test(
        "a notification leaves with its cause: an unlike, a deleted comment, an unfollow, a deleted post, a deleted account",
        arguments: SocialVariant.allCases)
    func removedWhenTheCauseGoes(variant: SocialVariant) async throws {
        let (harness, post) = try await Self.world(variant)
        harness.act(as: "bob")
        try await harness.social.like(post.id)
        let comment = try await harness.social.comment(on: post.id, text: "nice")
        try await harness.social.follow("ada")
        harness.act(as: "cy")
        try await harness.social.like(post.id)
        try await harness.social.follow("ada")

        harness.act(as: "bob")
        try await harness.social.unlike(post.id)
        try await harness.social.deleteComment(comment.id)
        try await harness.social.unfollow("ada")
        harness.act(as: "ada")
        var notifications = try await Self.all(harness)
        #expect(notifications.map { [$0.actorCount] + $0.latestActors.map(\.id).map { $0 == "cy" ? 1 : 0 } } == [[1, 1], [1, 1]])

        harness.act(as: "cy")
        _ = try await harness.social.deleteAccountData()
        harness.act(as: "ada")
        #expect(try await Self.all(harness).isEmpty, "Cy's like and follow went with her account")

        harness.act(as: "dee")
        try await harness.social.like(post.id)
        harness.act(as: "ada")
        try await harness.social.deletePost(post.id)
        notifications = try await Self.all(harness)
        #expect(notifications.isEmpty, "the post's notifications went with it")
        #expect(try await harness.social.recount() == 0)
    }

    @Test(
        "a badge over more notifications than one read batch counts each changed one, and stops at the first seen", arguments: SocialVariant.allCases)
    func badgeAcrossBatches(variant: SocialVariant) async throws {
        let harness = try SocialHarness(variant)
        try await harness.join("bob", "ada")
        var posts: [PostEntity] = []
        for index in 0..<40 { posts.append(try await harness.post("run \(index)", by: "ada")) }
        harness.act(as: "bob")
        for post in posts.prefix(5) { try await harness.social.like(post.id) }
        harness.act(as: "ada")
        try await harness.social.markNotificationsSeen()
        harness.act(as: "bob")
        for post in posts.dropFirst(5) { try await harness.social.like(post.id) }
        harness.act(as: "ada")
        #expect(try await harness.social.unseenNotificationCount() == 35)
        #expect(try await Self.all(harness).count { !$0.isSeen } == 35)
    }

    @Test("a post moderation takes down has no notifications until it is restored", arguments: SocialVariant.allCases)
    func hiddenPostsNotificationsAreLeftOut(variant: SocialVariant) async throws {
        let harness = try SocialHarness(variant, policy: SocialPolicy(moderators: ["mod"]))
        try await harness.join("bob", "mod", "ada")
        let post = try await harness.post("ada's run", by: "ada")
        harness.act(as: "bob")
        try await harness.social.like(post.id)
        _ = try await harness.social.comment(on: post.id, text: "nice")
        harness.act(as: "mod")
        try await harness.social.moderate(.post(post.id), action: .takeDown, note: nil)
        harness.act(as: "ada")
        #expect(try await Self.all(harness).isEmpty)
        #expect(try await harness.social.unseenNotificationCount() == 0)
        harness.act(as: "mod")
        try await harness.social.moderate(.post(post.id), action: .restore, note: nil)
        harness.act(as: "ada")
        #expect(try await Self.all(harness).map(\.kind) == [.comment, .like])
    }

    @Test("never from a user the recipient blocks or mutes, who blocks them, or who is hidden from them", arguments: SocialVariant.allCases)
    func neverFromUsersLeftOut(variant: SocialVariant) async throws {
        let (harness, post) = try await Self.world(variant)
        for id in ["bob", "cy", "dee"] {
            harness.act(as: id)
            try await harness.social.like(post.id)
        }
        harness.act(as: "ada")
        try await harness.social.mute("cy")
        try await harness.social.block("dee")
        harness.auth.setScheduledDeletion(of: "bob", at: harness.clock.now.addingTimeInterval(86_400))
        #expect(try await Self.all(harness).isEmpty, "Cy is muted, Dee blocked and Bob hidden")
        #expect(try await harness.social.unseenNotificationCount() == 0)

        harness.auth.setScheduledDeletion(of: "bob", at: nil)
        try await harness.social.unmute("cy")
        let back = try await Self.all(harness)
        #expect(back.first?.actorCount == 2 && Set(back.first?.latestActors.map(\.id) ?? []) == ["bob", "cy"], "Dee's like went with the block")

        try await harness.social.mute("cy")
        harness.act(as: "cy")
        try await harness.social.unlike(post.id)
        try await harness.social.like(post.id)
        harness.act(as: "ada")
        try await harness.social.unmute("cy")
        #expect(try await Self.all(harness).first?.actorCount == 1, "a like made while muted never notifies")
    }

    @Test(
        "pages follow their cursor newest first, each notification once; a cursor of another user's is invalidCursor",
        arguments: SocialVariant.allCases)
    func pages(variant: SocialVariant) async throws {
        let (harness, first) = try await Self.world(variant)
        var posts = [first]
        for index in 1..<25 { posts.append(try await harness.post("run \(index)", by: "ada")) }
        harness.act(as: "bob")
        for post in posts {
            harness.clock.advance(by: .seconds(1))
            try await harness.social.like(post.id)
        }
        harness.act(as: "ada")
        let all = try await Self.all(harness, limit: 10)
        #expect(all.compactMap(\.postID) == posts.reversed().map(\.id))
        let page = try await harness.social.notifications(limit: 10, after: nil)
        harness.act(as: "bob")
        await #expect(throws: SocialError(.invalidCursor)) { try await harness.social.notifications(limit: 10, after: page.nextCursor) }
        await #expect(throws: SocialError(.invalidCursor)) { try await harness.social.notifications(limit: 10, after: "\u{0}nonsense") }
        await #expect(throws: SocialError(.invalidLimit)) { try await harness.social.notifications(limit: 0, after: nil) }
    }

    @Test("the badge counts what changed since the list was seen; a change makes a read notification unread again", arguments: SocialVariant.allCases)
    func seenReadAndBadge(variant: SocialVariant) async throws {
        let (harness, post) = try await Self.world(variant)
        harness.act(as: "bob")
        try await harness.social.like(post.id)
        try await harness.social.follow("ada")
        harness.act(as: "ada")
        #expect(try await harness.social.unseenNotificationCount() == 2)
        try await harness.social.markNotificationsSeen()
        #expect(try await harness.social.unseenNotificationCount() == 0)
        #expect(try await Self.all(harness).allSatisfy { $0.isSeen && !$0.isRead })

        harness.clock.advance(by: .seconds(60))
        harness.act(as: "cy")
        try await harness.social.like(post.id)
        harness.act(as: "ada")
        #expect(try await harness.social.unseenNotificationCount() == 1)
        let like = try #require(try await Self.all(harness).first)
        #expect(like.kind == .like && !like.isSeen, "the changed notification is first, and unseen")
        try await harness.social.markNotificationRead(like.id)
        #expect(try await Self.all(harness).first?.isRead == true)
        #expect(try await harness.social.unseenNotificationCount() == 0, "reading one sees it")

        harness.clock.advance(by: .seconds(60))
        harness.act(as: "dee")
        try await harness.social.like(post.id)
        harness.act(as: "ada")
        #expect(try await Self.all(harness).first?.isRead == false)
        await #expect(throws: SocialError(.notificationNotFound)) { try await harness.social.markNotificationRead("like:nothing") }
        await #expect(throws: SocialError(.notificationNotFound)) {
            try await harness.social.markNotificationRead(String(repeating: "\u{202E}", count: 10_000))
        }
    }

    @Test("a clock set back never leaves a seen list with a badge")
    func clockSetBack() async throws {
        let (harness, post) = try await Self.world(.inMemory)
        harness.act(as: "bob")
        try await harness.social.like(post.id)
        harness.clock.setDate(harness.clock.now.addingTimeInterval(-3_600))
        harness.act(as: "ada")
        try await harness.social.markNotificationsSeen()
        #expect(try await harness.social.unseenNotificationCount() == 0)
    }

    @Test(
        "a notification names its newest remaining users after likes are withdrawn, not the users whose IDs sort first",
        arguments: SocialVariant.allCases)
    func sampleIsTheNewestRemaining(variant: SocialVariant) async throws {
        let harness = try SocialHarness(variant)
        try await harness.join("amy", "zed", "yan", "bob", "ada")
        let post = try await harness.post("ada's run", by: "ada")
        for liker in ["amy", "zed", "yan", "bob"] {
            harness.act(as: liker)
            try await harness.social.like(post.id)
            harness.clock.advance(by: .seconds(1))
        }
        func sample() async throws -> (ids: [String], count: Int?) {
            harness.act(as: "ada")
            let like = try await Self.all(harness).first { $0.kind == .like }
            return (like?.latestActors.map(\.id) ?? [], like?.actorCount)
        }
        #expect(try await sample() == (["bob", "yan"], 4))
        harness.act(as: "bob")
        try await harness.social.unlike(post.id)
        #expect(try await sample() == (["yan", "zed"], 3), "Zed liked after Amy")
        harness.act(as: "yan")
        try await harness.social.unlike(post.id)
        #expect(try await sample() == (["zed", "amy"], 2))
        harness.act(as: "ada")
        try await harness.social.block("zed")
        #expect(try await sample() == (["amy"], 1))
    }

    @Test(
        "a walk of the pages never skips a notification re-dated or made while it goes on: each comes on a later page, and the walk ends",
        arguments: SocialVariant.allCases)
    func walkNeverSkips(variant: SocialVariant) async throws {
        let harness = try SocialHarness(variant)
        try await harness.join("bob", "cy", "ada")
        var posts: [PostEntity] = []
        for number in 0..<30 {
            posts.append(try await harness.post("run \(number)", by: "ada"))
            harness.act(as: "bob")
            try await harness.social.like(posts[number].id)
            harness.clock.advance(by: .seconds(1))
        }
        harness.act(as: "ada")
        let page = try await harness.social.notifications(limit: 10, after: nil)
        var walked = page.notifications.map(\.id)
        #expect(walked.count == 10)
        // Below the walk's place: the likes on Ada's oldest posts move them to the top of her list.
        let redated = [posts[0], posts[5]]
        var made: [PostEntity] = []
        harness.act(as: "cy")
        for post in redated { try await harness.social.like(post.id) }
        for number in 0..<25 {
            made.append(try await harness.post("new \(number)", by: "ada"))
            harness.act(as: "cy")
            try await harness.social.like(made[number].id)
        }
        harness.act(as: "ada")
        let rest = try await Self.walk(harness, after: page, limit: 10)
        walked += rest.ids
        #expect(rest.ended, "the walk ends")
        let expected = Set((posts + made).map { LocalSocialFeedService.group(.like, $0.id) })
        #expect(Set(walked) == expected, "every notification, none skipped")
        #expect(walked.count == expected.count, "each once: the re-dated ones were below the walk's place when they changed")
        #expect(try await harness.social.unseenNotificationCount() == Self.unseen(try await Self.all(harness)), "the badge counts the list")
    }

    @Test("1,000 notifications arriving during a walk of 100 are each shown once more pages are read, and the walk still ends")
    func floodDuringAWalk() async throws {
        let harness = try SocialHarness()
        try await harness.join("bob", "ada")
        var posts: [PostEntity] = []
        for number in 0..<1_100 { posts.append(try await harness.post("run \(number)", by: "ada")) }
        harness.act(as: "bob")
        for post in posts.prefix(100) { try await harness.social.like(post.id) }
        harness.act(as: "ada")
        let page = try await harness.social.notifications(limit: 20, after: nil)
        var walked = page.notifications.map(\.id)
        harness.act(as: "bob")
        for post in posts.dropFirst(100) { try await harness.social.like(post.id) }
        harness.act(as: "ada")
        let rest = try await Self.walk(harness, after: page, limit: 20)
        walked += rest.ids
        #expect(rest.ended && rest.pages == 54, "the walk ends after 1,100 notifications in pages of 20")
        #expect(walked.count == 1_100 && Set(walked) == Set(posts.map { LocalSocialFeedService.group(.like, $0.id) }))
    }

    @Test(
        "a cursor of the earlier form, without a watermark, still continues the walk; one with a watermark no key can hold is invalidCursor, not a storage error"
    )
    func handWrittenCursors() async throws {
        let (harness, post) = try await Self.world(.inMemory)
        harness.act(as: "bob")
        try await harness.social.like(post.id)
        try await harness.social.follow("ada")
        harness.act(as: "ada")
        let first = try await harness.social.notifications(limit: 1, after: nil)
        let shown = try #require(first.notifications.first)
        let earlier = try LocalSocialFeedService.orderKey("ada", shown.updatedAt, shown.id)
        let rest = try await harness.social.notifications(limit: 10, after: earlier)
        #expect(rest.notifications.map(\.id) == [LocalSocialFeedService.group(.like, post.id)])
        await #expect(throws: SocialError(.invalidCursor)) { try await harness.social.notifications(limit: 10, after: "bob" + earlier) }

        let cursor = try #require(first.nextCursor)
        guard case .date(let watermark) = try RecordKey(encoded: cursor).components[1] else {
            Issue.record("the cursor holds its watermark second")
            return
        }
        let written = try RecordKey(.date(watermark)).encoded
        let forged = cursor.replacingOccurrences(of: written, with: String(written.prefix(1)) + String(repeating: "f", count: 16))
        #expect(forged != cursor)
        await #expect(throws: SocialError(.invalidCursor)) { try await harness.social.notifications(limit: 10, after: forged) }
    }

    /// The notifications of the pages after `first`, up to 200 pages, and whether the walk ended.
    static func walk(_ harness: SocialHarness, after first: NotificationPage, limit: Int) async throws -> (ids: [String], pages: Int, ended: Bool) {
        var (page, ids, pages) = (first, [String](), 0)
        while let next = page.nextCursor, pages < 200 {
            page = try await harness.social.notifications(limit: limit, after: next)
            ids += page.notifications.map(\.id)
            pages += 1
        }
        return (ids, pages, page.nextCursor == nil)
    }

    /// How many of `notifications` are unseen.
    static func unseen(_ notifications: [SocialNotification]) -> Int { notifications.filter { !$0.isSeen }.count }
}
