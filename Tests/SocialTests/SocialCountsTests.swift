import Foundation
import Testing
import TrainAuth
import TrainCore
import TrainSocial
import TrainTesting

@Suite struct SocialCountsTests {
    static let users = ["ada", "bob", "cy", "dee"]

    /// Every count each user sees equals the list it counts: the likes and comments of
    /// every post in their discover feed, their own followers and following, and their
    /// like and follow notifications. Users
    /// whose deletion is scheduled are skipped; they see nothing but themselves.
    static func checkCountsMatchLists(_ harness: SocialHarness, seed: UInt64, step: String) async throws {
        let acting = harness.auth.currentUser
        defer { harness.auth.setCurrentUser(acting) }
        let scheduled = Set(try harness.auth.scheduledDeletions().map(\.userID))
        for user in users where !scheduled.contains(user) {
            harness.act(as: user)
            let social = harness.social
            let context = "seed \(seed), \(step), as \(user); replay with TRAINKIT_SEED=\(seed)"
            for post in try await harness.allPages(of: social.discoverFeed, limit: 20) {
                #expect(post.likeCount == (try await social.likes(on: post.id)).count, "\(context): likes of \(post.content)")
                #expect(post.commentCount == (try await social.comments(on: post.id)).count, "\(context): comments of \(post.content)")
            }
            // A notification counts the users its list shows, the recipient aside.
            var page = try await social.notifications(limit: 100, after: nil)
            var notifications = page.notifications
            while let next = page.nextCursor {
                page = try await social.notifications(limit: 100, after: next)
                notifications += page.notifications
            }
            for notification in notifications {
                switch notification.kind {
                case .like:
                    guard let post = notification.postID, let likers = try? await social.likes(on: post) else { continue }
                    #expect(notification.actorCount == likers.count { $0.id != user }, "\(context): like notification of \(post)")
                case .follow:
                    #expect(notification.actorCount == (try await social.followers()).count, "\(context): follow notification")
                case .comment, .mention:
                    #expect(notification.actorCount > 0, "\(context): an empty \(notification.kind) notification")
                }
            }
            guard let profile = try? await social.profile(user) else { continue }
            #expect(profile.followerCount == (try await social.followers()).count, "\(context): followers")
            #expect(profile.followingCount == (try await social.following()).count, "\(context): following")
        }
        #expect(try await harness.social.recount() == 0, "seed \(seed), \(step): stored counts differ from the relations")
    }

    @Test(
        "a block removes the likes and comments between the two users both ways, with the counts, and an unblock brings none back",
        arguments: SocialVariant.allCases)
    func blockRemovesInteractionsBothWays(variant: SocialVariant) async throws {
        let harness = try SocialHarness(variant)
        try await harness.join("dee", "cy", "bob", "ada")
        let adas = try await harness.post("ada's run", by: "ada")
        let bobs = try await harness.post("bob's ride", by: "bob")
        let cys = try await harness.post("cy's swim", by: "cy")
        for (user, post) in [("bob", adas), ("ada", bobs), ("bob", cys), ("ada", cys)] {
            harness.act(as: user)
            try await harness.social.like(post.id)
            _ = try await harness.social.comment(on: post.id, text: "nice, \(user)")
        }
        harness.act(as: "ada")
        try await harness.social.block("bob")
        try await harness.social.unblock("bob")

        for user in Self.users {
            harness.act(as: user)
            let feed = try await harness.allPages(of: harness.social.discoverFeed, limit: 20)
            let counts = Dictionary(uniqueKeysWithValues: feed.map { ($0.content, [$0.likeCount, $0.commentCount]) })
            #expect(counts == ["ada's run": [0, 0], "bob's ride": [0, 0], "cy's swim": [2, 2]], "as \(user)")
        }
        #expect(try await harness.social.likes(on: cys.id).map(\.id).sorted() == ["ada", "bob"])
        #expect(try await harness.social.likes(on: adas.id).isEmpty)
        #expect(try await harness.social.recount() == 0)
        try await Self.checkCountsMatchLists(harness, seed: 0, step: "after the unblock")
    }

    @Test(
        "a user hidden from a viewer is out of every count the viewer sees, and back in once no longer hidden",
        arguments: SocialVariant.allCases)
    func hiddenUsersAreOutOfCounts(variant: SocialVariant) async throws {
        let harness = try SocialHarness(variant)
        try await harness.join("cy", "bob", "ada", "dee")
        let adas = try await harness.post("ada's run", by: "ada")
        for user in ["bob", "cy"] {
            harness.act(as: user)
            try await harness.social.like(adas.id)
            _ = try await harness.social.comment(on: adas.id, text: "go \(user)")
            try await harness.social.follow("ada")
        }
        func seen(as user: String) async throws -> [Int] {
            harness.act(as: user)
            let post = try #require(try await harness.social.discoverFeed(limit: 20).first { $0.id == adas.id })
            let profile = try await harness.social.profile("ada")
            return [post.likeCount, post.commentCount, profile.followerCount]
        }
        // Dee blocks Bob: Dee no longer counts Bob; everyone else still does.
        harness.act(as: "dee")
        try await harness.social.block("bob")
        #expect(try await seen(as: "dee") == [1, 1, 1])
        #expect(try await seen(as: "cy") == [2, 2, 2])
        // Bob's deletion is scheduled: nobody counts him until it is cancelled.
        harness.auth.setScheduledDeletion(of: "bob", at: harness.clock.now.addingTimeInterval(86_400))
        #expect(try await seen(as: "cy") == [1, 1, 1])
        #expect(try await seen(as: "ada") == [1, 1, 1])
        #expect(try await harness.social.followers().map(\.id) == ["cy"])
        try await Self.checkCountsMatchLists(harness, seed: 0, step: "bob scheduled")
        harness.auth.setScheduledDeletion(of: "bob", at: nil)
        #expect(try await seen(as: "ada") == [2, 2, 2])
        #expect(try await seen(as: "dee") == [1, 1, 1])
        try await Self.checkCountsMatchLists(harness, seed: 0, step: "bob restored")
    }

    @Test(
        "through random follows, likes, comments with mentions, blocks, unblocks, reports, moderation, scheduled deletions, restores, purges and deletions, every count equals its list after every step",
        arguments: SocialVariant.allCases)
    func countsEqualListsAlways(variant: SocialVariant) async throws {
        for seed in SeededRandomNumberGenerator.seeds(default: variant == .inMemory ? 4 : 2) {
            var random = SeededRandomNumberGenerator(seed: seed)
            let policy = SocialPolicy(deletedUserComments: seed.isMultiple(of: 2) ? .anonymize : .delete, hideAfterReports: 2, moderators: ["dee"])
            let harness = try SocialHarness(variant, policy: policy)
            try await harness.join(Self.users[0], Self.users[1], Self.users[2], Self.users[3])
            var posts: [UUID] = []
            var comments: [UUID] = []
            for step in 0..<60 {
                let user = Self.users.randomElement(using: &random) ?? "ada"
                let other = Self.users.randomElement(using: &random) ?? "bob"
                harness.act(as: user)
                let social = harness.social
                let operation = Int.random(in: 0..<16, using: &random)
                let post = posts.randomElement(using: &random)
                let comment = comments.randomElement(using: &random)
                var name = "step \(step): \(user) "
                do {
                    switch operation {
                    case 0:
                        name += "posts"
                        posts.append(try await harness.post("\(user) \(step)", by: user).id)
                    case 1, 2:
                        name += "likes a post"
                        if let post { try await social.like(post) }
                    case 3:
                        name += "unlikes a post"
                        if let post { try await social.unlike(post) }
                    case 4, 5:
                        name += "comments, mentioning \(other)"
                        if let post { comments.append(try await social.comment(on: post, text: "c\(step) \(Mention.token(for: other))").id) }
                    case 6:
                        name += "follows \(other)"
                        try await social.follow(other)
                    case 7:
                        name += "blocks \(other)"
                        try await social.block(other)
                    case 8:
                        name += "unblocks \(other)"
                        try await social.unblock(other)
                    case 9:
                        name += "has their deletion scheduled"
                        harness.auth.setScheduledDeletion(of: user, at: harness.clock.now.addingTimeInterval(86_400))
                    case 10:
                        name += "is restored, or purged when due"
                        if Bool.random(using: &random) {
                            harness.auth.setScheduledDeletion(of: user, at: nil)
                        } else if try harness.auth.scheduledDeletion(of: user) != nil {
                            harness.auth.setScheduledDeletion(of: user, at: harness.clock.now)
                            _ = try await social.purgeAccountData(of: user)
                            harness.auth.setScheduledDeletion(of: user, at: nil)
                            _ = try await social.unlockFeed(workoutType: .run)
                        }
                    case 12:
                        name += "reports a post"
                        if let post { try await social.report(.post(post), reason: .spam) }
                    case 13:
                        name += "reports a comment"
                        if let comment { try await social.report(.comment(comment), reason: .harassment) }
                    case 14:
                        name += "reports \(other)"
                        try await social.report(.user(other), reason: .spam)
                    case 15:
                        let targets = posts.map(ReportTarget.post) + comments.map(ReportTarget.comment) + [.user(other)]
                        let action = ModerationAction.allCases.randomElement(using: &random) ?? .dismiss
                        let target = targets.randomElement(using: &random) ?? .user(other)
                        name = "step \(step): dee moderates: \(action) \(target)"
                        harness.act(as: "dee")
                        try await social.moderate(target, action: action, note: nil)
                    default:
                        name += "deletes their social data"
                        _ = try await social.deleteAccountData()
                        _ = try await social.unlockFeed(workoutType: .run)
                    }
                } catch let error as SocialError {
                    name += " (refused: \(error.code))"
                }
                try await Self.checkCountsMatchLists(harness, seed: seed, step: name)
            }
        }
    }
}
