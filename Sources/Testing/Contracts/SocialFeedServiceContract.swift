import Foundation
import TrainCore
import TrainSocial

/// What the ``SocialFeedServiceContract`` needs from the conformance under test.
public protocol SocialContractEnvironment: Sendable {
    /// Makes a service over an empty social store, and a way to choose who it acts as.
    /// - Returns: The service and its sign-in.
    func makeService() async throws -> SocialContractSession

    /// Makes a service over an empty social store that follows `policy` and reads
    /// workouts from `workouts`, for the checks of the word filter and the workout rule.
    /// - Parameters:
    ///   - policy: The rules the service follows.
    ///   - workouts: The workouts it reads.
    /// - Returns: The service and its sign-in.
    func makeService(policy: SocialPolicy, workouts: SimulatedWorkoutSource) async throws -> SocialContractSession
}

extension SocialContractEnvironment {
    /// Throws ``ContractViolation``: an environment that cannot set a policy fails the
    /// checks of the policy's rules instead of passing them unchecked.
    /// - Parameters:
    ///   - policy: The rules the service would follow.
    ///   - workouts: The workouts it would read.
    /// - Returns: Never.
    public func makeService(policy: SocialPolicy, workouts: SimulatedWorkoutSource) async throws -> SocialContractSession {
        throw ContractViolation(check: "makeService(policy:workouts:)", message: "This environment cannot make a service with a social policy.")
    }
}

/// A service under test and how to sign users in and out of it.
public struct SocialContractSession: Sendable {
    /// The service under test.
    public let service: any SocialFeedService
    /// Signs the user with this ID in (nil: signs out); the service's next calls act as them.
    public let signIn: @Sendable (String?) async throws -> Void

    /// Creates a session.
    /// - Parameters:
    ///   - service: The service under test.
    ///   - signIn: Signs a user in, or out with nil.
    public init(service: any SocialFeedService, signIn: @escaping @Sendable (String?) async throws -> Void) {
        self.service = service
        self.signIn = signIn
    }

    /// Signs `userID` in and unlocks their feed, as a user who just finished a workout.
    func join(_ userID: String) async throws {
        try await signIn(userID)
        _ = try await service.unlockFeed(workoutType: .run)
    }
}

/// A check of the ``SocialFeedServiceContract``.
public typealias SocialContractCheck = ContractCheck<any SocialContractEnvironment>

extension Expectations {
    func expectSocialError(_ code: SocialError.Code, _ what: String, _ body: () async throws -> Void) async throws {
        try await expectError(code, what, codeOf: { (error: SocialError) in error.code }, body)
    }
}

/// The public behavioural contract of `SocialFeedService`: locking, pages, relations, blocks, moderation, notifications and mentions,
/// the word filter and workout rules of its policy, authorization and input.
/// TrainKit runs it against `LocalSocialFeedService` in memory and on disk; an app
/// runs it against its own conformance, such as one over Firestore's emulator:
///
/// ```swift
/// @Test(arguments: SocialFeedServiceContract.checks)
/// func socialContract(_ check: SocialContractCheck) async throws {
///     try await check.run(in: MyFirestoreEnvironment())
/// }
/// ```
public enum SocialFeedServiceContract {
    /// Every check of the contract.
    public static let checks: [SocialContractCheck] = [
        SocialContractCheck(
            "a locked friends feed is feedLocked, not an empty page, and posting needs an unlocked feed", covers: SocialFeed.self, SocialPosting.self
        ) { environment, check in
            let session = try await environment.makeService()
            try await session.signIn("ada")
            try check.expect(!session.service.hasFeedUnlocked(), "a new user's feed starts locked")
            try await check.expectSocialError(.feedLocked, "a locked friends feed") { _ = try await session.service.friendsFeed(limit: 20) }
            try await check.expectSocialError(.feedLocked, "posting while locked") {
                _ = try await session.service.createPost(content: "hi", workoutType: .run)
            }
        },
        SocialContractCheck("a workout unlocks the feed, and the new post is first in the friends feed", covers: SocialFeed.self, SocialPosting.self)
        { environment, check in
            let session = try await environment.makeService()
            try await session.join("ada")
            try check.expect(session.service.hasFeedUnlocked(), "the feed is unlocked after a workout")
            let post = try await session.service.createPost(content: "  5 km  ", workoutType: .run)
            try check.expect(post.content == "5 km" && post.userID == "ada", "the post is trimmed and is Ada's")
            try check.expect(try await session.service.friendsFeed(limit: 20).first?.id == post.id, "the post leads the friends feed")
        },
        SocialContractCheck(
            "pages are newest first and, put together, hold each post once while posts are added between pages", covers: SocialFeed.self
        ) {
            environment, check in
            let session = try await environment.makeService()
            try await session.join("ada")
            var posted: [UUID] = []
            for number in 0..<5 { posted.append(try await session.service.createPost(content: "post \(number)", workoutType: .run).id) }
            var seen: [UUID] = []
            var page = try await session.service.friendsFeed(limit: 2)
            while let last = page.last {
                seen += page.map(\.id)
                _ = try await session.service.createPost(content: "between pages", workoutType: .run)
                page = try await session.service.friendsFeed(limit: 2, after: last.id)
            }
            try check.expect(seen == posted.reversed(), "the pages hold the five posts newest first, once each, and no later post")
        },
        SocialContractCheck("a limit outside 1...100 is invalidLimit and an unknown cursor is invalidCursor", covers: SocialFeed.self) {
            environment, check in
            let session = try await environment.makeService()
            try await session.join("ada")
            for limit in [0, 101] {
                try await check.expectSocialError(.invalidLimit, "a limit of \(limit)") { _ = try await session.service.friendsFeed(limit: limit) }
            }
            try await check.expectSocialError(.invalidCursor, "a cursor that never existed") {
                _ = try await session.service.discoverFeed(limit: 20, after: UUID())
            }
        },
        SocialContractCheck(
            "following twice leaves one follow counted once, and following yourself is cannotTargetSelf", covers: SocialRelations.self,
            SocialProfiles.self
        ) { environment, check in
            let session = try await environment.makeService()
            try await session.join("bob")
            try await session.join("ada")
            try await session.service.follow("bob")
            try await session.service.follow("bob")
            try check.expect(try await session.service.following().map(\.id) == ["bob"], "one follow")
            try check.expect(try await session.service.profile("bob").followerCount == 1, "Bob has one follower")
            try check.expect(try await session.service.profile("ada").followingCount == 1, "Ada follows one user")
            try await check.expectSocialError(.cannotTargetSelf, "following yourself") { try await session.service.follow("ada") }
        },
        SocialContractCheck(
            "a block ends follows both ways and hides each user's posts from the other", covers: SocialRelations.self, SocialFeed.self
        ) { environment, check in
            let session = try await environment.makeService()
            try await session.join("bob")
            let bobs = try await session.service.createPost(content: "bob's run", workoutType: .run)
            try await session.join("ada")
            let adas = try await session.service.createPost(content: "ada's swim", workoutType: .swim)
            try await session.service.follow("bob")
            try await session.signIn("bob")
            try await session.service.follow("ada")
            try await session.service.block("ada")
            try check.expect(try await session.service.following().isEmpty, "Bob no longer follows Ada")
            try check.expect(try await !session.service.discoverFeed(limit: 100).contains { $0.id == adas.id }, "Ada's post is hidden from Bob")
            try await session.signIn("ada")
            try check.expect(try await session.service.following().isEmpty, "Ada no longer follows Bob")
            try check.expect(try await !session.service.discoverFeed(limit: 100).contains { $0.id == bobs.id }, "Bob's post is hidden from Ada")
            try await check.expectSocialError(.blocked, "following someone who blocks you") { try await session.service.follow("bob") }
        },
        SocialContractCheck(
            "a block removes the likes and comments between the two users both ways, with their counts, and an unblock brings none back",
            covers: SocialRelations.self, SocialPosting.self
        ) {
            environment, check in
            let session = try await environment.makeService()
            try await session.join("cy")
            let cys = try await session.service.createPost(content: "cy's ride", workoutType: .run)
            try await session.join("ada")
            let adas = try await session.service.createPost(content: "ada's swim", workoutType: .swim)
            try await session.join("bob")
            for post in [adas.id, cys.id] {
                try await session.service.like(post)
                _ = try await session.service.comment(on: post, text: "nice")
            }
            try await session.signIn("ada")
            try await session.service.block("bob")
            try await session.service.unblock("bob")
            let seenByAda = try await session.service.discoverFeed(limit: 100)
            try check.expect(
                seenByAda.first { $0.id == adas.id }.map { [$0.likeCount, $0.commentCount] } == [0, 0], "Bob's like and comment left Ada's post")
            try check.expect(try await session.service.likes(on: adas.id).isEmpty, "Ada's post has no likers")
            try await session.signIn("cy")
            try await session.service.block("bob")
            try await session.signIn("ada")
            let cysSeenByAda = try await session.service.discoverFeed(limit: 100).first { $0.id == cys.id }
            try check.expect(
                cysSeenByAda.map { [$0.likeCount, $0.commentCount] } == [0, 0], "Cy's block removed Bob's like and comment on her post")
            try check.expect(try await session.service.recount() == 0, "recount finds nothing to fix")
        },
        SocialContractCheck(
            "a muted user's posts leave the muter's feeds and come back after unmuting; muting yourself is cannotTargetSelf",
            covers: SocialRelations.self, SocialFeed.self
        ) {
            environment, check in
            let session = try await environment.makeService()
            try await session.join("bob")
            let bobs = try await session.service.createPost(content: "bob's run", workoutType: .run)
            try await session.join("ada")
            try await session.service.follow("bob")
            try await session.service.mute("bob")
            try check.expect(try await !session.service.friendsFeed(limit: 100).contains { $0.id == bobs.id }, "Bob's post left Ada's friends feed")
            try check.expect(try await !session.service.discoverFeed(limit: 100).contains { $0.id == bobs.id }, "and her discover feed")
            try check.expect(try await session.service.following().map(\.id) == ["bob"], "Ada still follows Bob")
            try check.expect(try await session.service.mutedUsers().map(\.id) == ["bob"], "Bob is listed as muted")
            try await session.service.unmute("bob")
            try check.expect(try await session.service.friendsFeed(limit: 100).contains { $0.id == bobs.id }, "unmuting brings the post back")
            try await check.expectSocialError(.cannotTargetSelf, "muting yourself") { try await session.service.mute("ada") }
        },
        SocialContractCheck(
            "a reported post leaves its reporter's feeds and nobody else's; reporting twice is alreadyReported, one's own cannotTargetSelf; a user who is no moderator reads no queue",
            covers: SocialRelations.self, SocialModeration.self
        ) { environment, check in
            let session = try await environment.makeService()
            try await session.join("bob")
            let bobs = try await session.service.createPost(content: "bob's run", workoutType: .run)
            try await check.expectSocialError(.cannotTargetSelf, "reporting one's own post") {
                try await session.service.report(.post(bobs.id), reason: .spam)
            }
            try await session.join("cy")
            try await session.join("ada")
            let report = try await session.service.report(.post(bobs.id), reason: .spam)
            try check.expect(report.target == .post(bobs.id) && report.reporterID == "ada", "the report names its target and reporter")
            try check.expect(try await !session.service.discoverFeed(limit: 100).contains { $0.id == bobs.id }, "the post left Ada's feed")
            try await check.expectSocialError(.alreadyReported, "reporting twice") {
                try await session.service.report(.post(bobs.id), reason: .other)
            }
            try await check.expectSocialError(.notAuthorized, "reading the moderation queue") {
                _ = try await session.service.moderationQueue(limit: 10, after: nil)
            }
            try await check.expectSocialError(.notAuthorized, "taking a post down") {
                try await session.service.moderate(.post(bobs.id), action: .takeDown, note: nil)
            }
            try await session.signIn("cy")
            try check.expect(try await session.service.discoverFeed(limit: 100).contains { $0.id == bobs.id }, "Cy still sees the post")
        },
        SocialContractCheck(
            "a like notifies the post's author, counted once per user; an unlike takes it back; one's own like notifies nobody",
            covers: SocialPosting.self, SocialNotifications.self
        ) {
            environment, check in
            let session = try await environment.makeService()
            try await session.join("ada")
            let post = try await session.service.createPost(content: "ada's run", workoutType: .run)
            try await session.service.like(post.id)
            try check.expect(try await session.service.notifications(limit: 20, after: nil).notifications.isEmpty, "her own like notifies nobody")
            try await session.join("bob")
            try await session.service.like(post.id)
            try await session.service.like(post.id)
            try await session.signIn("ada")
            let notifications = try await session.service.notifications(limit: 20, after: nil).notifications
            try check.expect(
                notifications.map(\.kind) == [.like] && notifications.first?.actorCount == 1 && notifications.first?.postID == post.id,
                "one like notification counting Bob once")
            try check.expect(try await session.service.unseenNotificationCount() == 1, "the badge counts it")
            try await session.signIn("bob")
            try await session.service.unlike(post.id)
            try await session.signIn("ada")
            try check.expect(try await session.service.notifications(limit: 20, after: nil).notifications.isEmpty, "the unlike took it back")
        },
        SocialContractCheck(
            "a mention notifies the user it names and goes with its comment; a mention of a blocked user is blocked and posts nothing",
            covers: SocialPosting.self, SocialNotifications.self
        ) { environment, check in
            let session = try await environment.makeService()
            try await session.join("cy")
            try await session.join("bob")
            try await session.join("ada")
            let post = try await session.service.createPost(content: "ran with \(Mention.token(for: "bob"))", workoutType: .run)
            try check.expect(post.mentionedUserIDs == ["bob"], "the post names Bob")
            try await session.signIn("cy")
            let comment = try await session.service.comment(on: post.id, text: "\(Mention.token(for: "bob")) next time")
            try await session.signIn("bob")
            var mentions = try await session.service.notifications(limit: 20, after: nil).notifications
            try check.expect(
                mentions.map(\.kind) == [.mention] && mentions.first?.actorCount == 2 && mentions.first?.postID == post.id,
                "one mention notification of the post, counting Ada and Cy")
            try await session.signIn("cy")
            try await session.service.deleteComment(comment.id)
            try await session.signIn("bob")
            mentions = try await session.service.notifications(limit: 20, after: nil).notifications
            try check.expect(mentions.map(\.actorCount) == [1], "the deleted comment's mention went")
            try await session.service.block("cy")
            try await session.signIn("cy")
            try await check.expectSocialError(.blocked, "mentioning a user who blocks you") {
                _ = try await session.service.createPost(content: "hi \(Mention.token(for: "bob"))", workoutType: .run)
            }
            try check.expect(try await session.service.friendsFeed(limit: 20).isEmpty, "nothing was posted")
        },
        SocialContractCheck(
            "with a word filter, a post or comment that says a listed word is objectionableContent and stores nothing", covers: SocialPosting.self
        ) {
            environment, check in
            let policy = SocialPolicy(wordFilter: try WordFilter(["darn"]))
            let session = try await environment.makeService(policy: policy, workouts: SimulatedWorkoutSource())
            try await session.join("ada")
            try await check.expectSocialError(.objectionableContent, "a post saying DÁRN") {
                _ = try await session.service.createPost(content: "what a DÁRN hill", workoutType: .run)
            }
            try check.expect(try await session.service.friendsFeed(limit: 20).isEmpty, "nothing was posted")
            let post = try await session.service.createPost(content: "what a hill", workoutType: .run)
            try await check.expectSocialError(.objectionableContent, "a comment saying darn") {
                _ = try await session.service.comment(on: post.id, text: "darn right")
            }
            try check.expect(try await session.service.comments(on: post.id).isEmpty, "nothing was commented")
        },
        SocialContractCheck(
            "a walk of notification pages never skips one re-dated while it goes on; a notification names its newest remaining users",
            covers: SocialNotifications.self
        ) { environment, check in
            let session = try await environment.makeService()
            for user in ["amy", "zed", "yan", "ada"] { try await session.join(user) }
            var posts: [PostEntity] = []
            for number in 0..<6 { posts.append(try await session.service.createPost(content: "run \(number)", workoutType: .run)) }
            for liker in ["amy", "zed", "yan"] {
                try await session.signIn(liker)
                for post in posts { try await session.service.like(post.id) }
            }
            try await session.signIn("ada")
            let first = try await session.service.notifications(limit: 2, after: nil)
            try await session.signIn("yan")
            try await session.service.unlike(posts[0].id)
            try await session.signIn("amy")
            try await session.service.unlike(posts[0].id)
            try await session.service.like(posts[0].id) // Re-dated: above the walk's place now.
            try await session.signIn("ada")
            var walked = first.notifications.map(\.id)
            var cursor = first.nextCursor
            var pages = 1
            while let next = cursor, pages < 20 {
                let page = try await session.service.notifications(limit: 2, after: next)
                walked += page.notifications.map(\.id)
                cursor = page.nextCursor
                pages += 1
            }
            let all = try await session.service.notifications(limit: 20, after: nil).notifications
            try check.expect(Set(walked) == Set(all.map(\.id)) && all.count == 6, "the walk showed each of the six notifications")
            let oldest = all.first { $0.postID == posts[0].id }
            try check.expect(
                oldest?.latestActors.map(\.id) == ["amy", "zed"] && oldest?.actorCount == 2,
                "the re-dated notification names Amy, then Zed, who liked after the withdrawn Yan: \(oldest?.latestActors.map(\.id) ?? [])")
        },
        SocialContractCheck(
            "the word filter reads what people see: a listed word behind a zero-width joiner or in look-alike letters is objectionableContent; a word wholly in another script is not",
            covers: SocialPosting.self
        ) { environment, check in
            let policy = SocialPolicy(wordFilter: try WordFilter(["spam", "cop"]))
            let session = try await environment.makeService(policy: policy, workouts: SimulatedWorkoutSource())
            try await session.join("ada")
            for text in ["free sp\u{200D}am", "free \u{0455}\u{0440}\u{0430}m"] {
                try await check.expectSocialError(.objectionableContent, "a post saying \(text.unicodeScalars.map { String($0.value, radix: 16) })") {
                    _ = try await session.service.createPost(content: text, workoutType: .run)
                }
            }
            try check.expect(try await session.service.friendsFeed(limit: 20).isEmpty, "nothing was posted")
            // Russian for "the litter is cleared": its first word is Cyrillic letters that look like "cop".
            let russian = try await session.service.createPost(
                content: "\u{0421}\u{043E}\u{0440} \u{0443}\u{0431}\u{0440}\u{0430}\u{043D}", workoutType: .run)
            try check.expect(try await session.service.friendsFeed(limit: 20).map(\.id) == [russian.id], "the Russian post was posted")
        },
        SocialContractCheck(
            "a moderator acts on no moderator or admin and grants no role; an admin grants the role, logged; a suspension resolves the cases of the user's posts",
            covers: SocialModeration.self
        ) { environment, check in
            let policy = SocialPolicy(hideAfterReports: nil, moderators: ["mod"], admins: ["root"])
            let session = try await environment.makeService(policy: policy, workouts: SimulatedWorkoutSource())
            for user in ["root", "mod", "bob", "cy", "ada"] { try await session.join(user) }
            let post = try await session.service.createPost(content: "ada's run", workoutType: .run)
            try await session.signIn("bob")
            try await session.service.report(.post(post.id), reason: .spam, details: nil)
            try await session.signIn("mod")
            for target in [ReportTarget.user("root"), .user("mod"), .user("cy")] {
                let action: ModerationAction = target == .user("cy") ? .grantModerator : .suspend
                try await check.expectSocialError(
                    target == .user("mod") ? .cannotTargetSelf : .notAuthorized, "the moderator's \(action) of \(target)"
                ) {
                    try await session.service.moderate(target, action: action, note: nil)
                }
            }
            try await session.signIn("root")
            try await session.service.moderate(.user("cy"), action: .grantModerator, note: nil)
            try await session.signIn("cy")
            try await check.expectSocialError(.notAuthorized, "a moderator by grant suspending a moderator") {
                try await session.service.moderate(.user("mod"), action: .suspend, note: nil)
            }
            try await session.service.moderate(.user("ada"), action: .suspend, note: nil)
            try check.expect(
                try await session.service.moderationQueue(limit: 10, after: nil).isEmpty, "the suspension resolved the case of Ada's post")
            let log = try await session.service.moderationLog(limit: 10, after: nil)
            try check.expect(log.map(\.action) == [.suspend, .grantModerator], "the grant and the suspension are logged, once each, newest first")
        },
        SocialContractCheck(
            "when unlocking needs a recorded workout, an unlock with none recorded is workoutNotRecorded and the feed stays locked",
            covers: SocialFeed.self
        ) {
            environment, check in
            let session = try await environment.makeService(
                policy: SocialPolicy(unlockRequiresRecordedWorkout: true), workouts: SimulatedWorkoutSource())
            try await session.signIn("ada")
            try await check.expectSocialError(.workoutNotRecorded, "unlocking with no workout recorded") {
                _ = try await session.service.unlockFeed(workoutType: .run)
            }
            try check.expect(!session.service.hasFeedUnlocked(), "the feed stays locked")
        },
        SocialContractCheck(
            "a block removes the mentions between the two users for good: an unblock brings none back", covers: SocialRelations.self,
            SocialNotifications.self
        ) { environment, check in
            let session = try await environment.makeService()
            try await session.join("ada")
            try await session.join("bob")
            _ = try await session.service.createPost(content: "ran with \(Mention.token(for: "ada"))", workoutType: .run)
            try await session.signIn("ada")
            try await session.service.block("bob")
            try await session.service.unblock("bob")
            let left = try await session.service.notifications(limit: 20, after: nil).notifications.filter { $0.kind == .mention }
            try check.expect(left.isEmpty, "Bob's mention of Ada is gone after the block and the unblock")
            try check.expect(try await session.service.unseenNotificationCount() == 0, "the badge counts nothing of it")
        },
        SocialContractCheck("new posts reach a reader that reads late, every one in order", covers: SocialFeed.self) { environment, check in
            let session = try await environment.makeService()
            try await session.join("ada")
            let posts = session.service.newPosts()
            var made: [UUID] = []
            for number in 0..<150 { made.append(try await session.service.createPost(content: "post \(number)", workoutType: .run).id) }
            let read = await posts.collect(150, within: .seconds(30)).map(\.id)
            try check.expect(read == made, "the 150 posts made before the first read arrive in order: \(read.count) arrived")
        },
        SocialContractCheck(
            "a notification reader away while 25 notifications arrive finds each on an update's page or is told to reload",
            covers: SocialNotifications.self
        ) { environment, check in
            let session = try await environment.makeService()
            try await session.join("bob")
            try await session.join("ada")
            var posts: [PostEntity] = []
            for number in 0..<25 { posts.append(try await session.service.createPost(content: "run \(number)", workoutType: .run)) }
            let updates = session.service.notificationUpdates()
            _ = await updates.collect(1, within: Expectations.streamWait)
            try await session.signIn("bob")
            for post in posts { try await session.service.like(post.id) }
            try await session.signIn("ada")
            // Every update until the one that counts all 25, however many the conformance gives.
            let read = Locked((shown: Set<UUID>(), reload: false))
            let last = await updates.firstValue(
                where: { update in
                    guard update.userID == "ada" else { return false }
                    read.withLock { read in
                        read.shown.formUnion(update.page.notifications.compactMap(\.postID))
                        read.reload = read.reload || update.requiresReload
                    }
                    return update.unseenCount == 25
                }, within: .seconds(30))
            let (shown, reload) = read.withLock { $0 }
            try check.expect(last != nil, "an update counts the 25 new notifications")
            try check.expect(
                reload || shown == Set(posts.map(\.id)), "the 25 liked posts are each on a page, or an update asks for a reload: \(shown.count) shown"
            )
        },
        SocialContractCheck("only the author deletes a post", covers: SocialPosting.self) { environment, check in
            let session = try await environment.makeService()
            try await session.join("bob")
            let post = try await session.service.createPost(content: "mine", workoutType: .run)
            try await session.join("ada")
            try await check.expectSocialError(.notAuthorized, "deleting another user's post") { try await session.service.deletePost(post.id) }
            try await session.signIn("bob")
            try await session.service.deletePost(post.id)
            try check.expect(try await session.service.friendsFeed(limit: 20).isEmpty, "the author's delete removes it")
        },
        SocialContractCheck(
            "empty or 501-character posts, http media and one-character searches are refused with their codes", covers: SocialPosting.self,
            SocialProfiles.self
        ) {
            environment, check in
            let session = try await environment.makeService()
            try await session.join("ada")
            for content in ["   ", String(repeating: "x", count: 501)] {
                try await check.expectSocialError(.invalidContent, "a post of \(content.count) characters") {
                    _ = try await session.service.createPost(content: content, workoutType: .run)
                }
            }
            try await check.expectSocialError(.invalidMediaURL, "an http media URL") {
                _ = try await session.service.createPost(content: "photo", workoutType: .run, mediaURL: URL(string: "http://example.com/a.jpg"))
            }
            try await check.expectSocialError(.queryTooShort, "a one-character search") { _ = try await session.service.searchUsers("a", limit: 10) }
            try check.expect(try await session.service.friendsFeed(limit: 20).isEmpty, "nothing was posted")
        },
        SocialContractCheck("likes are a set: twice counts one, unliking twice counts none", covers: SocialPosting.self) { environment, check in
            let session = try await environment.makeService()
            try await session.join("ada")
            let post = try await session.service.createPost(content: "like me", workoutType: .run)
            try await session.service.like(post.id)
            try await session.service.like(post.id)
            try check.expect(try await session.service.friendsFeed(limit: 1).first?.likeCount == 1, "one like")
            try await session.service.unlike(post.id)
            try await session.service.unlike(post.id)
            try check.expect(try await session.service.friendsFeed(limit: 1).first?.likeCount == 0, "no like")
            try check.expect(try await session.service.recount() == 0, "recount finds nothing to fix")
        },
        SocialContractCheck("signed out, calls are notSignedIn and the feed is not unlocked", covers: SocialFeed.self, SocialPosting.self) {
            environment, check in
            let session = try await environment.makeService()
            try await session.join("ada")
            try await session.signIn(nil)
            try check.expect(!session.service.hasFeedUnlocked(), "no feed is unlocked when signed out")
            try await check.expectSocialError(.notSignedIn, "a feed page") { _ = try await session.service.friendsFeed(limit: 20) }
            try await check.expectSocialError(.notSignedIn, "a post") { _ = try await session.service.createPost(content: "hi", workoutType: .run) }
        },
        SocialContractCheck(
            "a user's copy holds their posts, likes and follows; deleting their data removes them with every count fixed, and again removes nothing",
            covers: SocialAccountData.self
        ) { environment, check in
            let session = try await environment.makeService()
            try await session.join("grace")
            let gracePost = try await session.service.createPost(content: "Grace's run", workoutType: .run)
            try await session.join("ada")
            let adaPost = try await session.service.createPost(content: "Ada's run", workoutType: .run)
            try await session.service.follow("grace")
            try await session.service.like(gracePost.id)
            let copy = try await session.service.exportAccountData()
            try check.expect(copy.posts.map(\.id) == [adaPost.id], "the copy holds Ada's post")
            try check.expect(copy.likedPostIDs == [gracePost.id] && copy.following == ["grace"], "the copy holds Ada's like and follow")
            let report = try await session.service.deleteAccountData()
            try check.expect(report.posts == 1 && report.likes == 1 && report.follows == 1, "the report counts one post, like and follow: \(report)")
            let again = try await session.service.deleteAccountData()
            try check.expect(again.posts == 0 && again.likes == 0 && again.follows == 0, "a second deletion removes nothing: \(again)")
            try await session.join("grace")
            let grace = try await session.service.profile("grace")
            try check.expect(grace.followerCount == 0, "Grace has no follower left")
            let feed = try await session.service.friendsFeed(limit: 20)
            try check.expect(feed.map(\.id) == [gracePost.id] && feed.first?.likeCount == 0, "Grace's post has no like left")
        },
        SocialContractCheck(
            "a purge of a user whose deletion is not due is notAuthorized and deletes nothing; a recount of a healthy store fixes nothing",
            covers: SocialAdministration.self
        ) { environment, check in
            let session = try await environment.makeService()
            try await session.join("ada")
            let post = try await session.service.createPost(content: "Ada's run", workoutType: .run)
            try await session.join("grace")
            try await check.expectSocialError(.notAuthorized, "purging Ada") { _ = try await session.service.purgeAccountData(of: "ada") }
            try check.expect(try await session.service.discoverFeed(limit: 20).map(\.id) == [post.id], "Ada's post is still there")
            try check.expect(try await session.service.recount() == 0, "no count was wrong")
        },
    ]
}
