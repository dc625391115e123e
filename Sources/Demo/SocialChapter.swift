import Foundation
import TrainAccount
import TrainAuth
import TrainCore
import TrainSocial
import TrainTesting

/// The feed is locked until Ada completes a workout; then it is open until local
/// midnight. She posts a photo, reads her friends' posts page by page, sees one expire,
/// likes and comments, and blocks someone, who disappears; Bob reports a post.
@MainActor
struct SocialChapter {
    let services: TrainServices
    let session: UserSessionManager
    let clock: DemoClock
    let narrator: Narrator

    /// The first bytes of a JPEG, standing in for a photo from the camera.
    static let photo = Data([0xFF, 0xD8, 0xFF, 0xE0] + Array("a photo of the summit".utf8))

    /// Runs the chapter.
    /// - Returns: Bob's phone, for the chapters after; nil if the chapter could not go on.
    func run() async -> TrainServices? {
        guard let ada = session.currentUser else {
            await narrator.step("The feed needs a signed-in user") { "nobody is signed in" }
            return nil
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone.current
        let social = services.social
        var friends: (bob: TrainServices, cy: TrainServices)?
        await narrator.step("Bob and Cy join: each an account in the stack's world, signed in on a phone of their own") {
            func friend(_ name: String) async throws -> TrainServices {
                try services.makeDevice(for: try await services.addUser(named: name).id)
            }
            friends = (try await friend("Bob"), try await friend("Cy"))
            return nil
        }
        guard let (bobPhone, cyPhone) = friends, let bobID = bobPhone.auth.currentUser?.id, let cyID = cyPhone.auth.currentUser?.id else {
            return nil
        }
        let (bob, cy) = (bobPhone.social, cyPhone.social)

        // Cy posts in the evening; the story goes on the next morning.
        await narrator.step("Evening: Cy swims and posts") {
            try clock.advance(by: .seconds(Self.next(hour: 20, after: clock.now, in: calendar).timeIntervalSince(clock.now)))
            _ = try await cy.unlockFeed(workoutType: .swim)
            let post = try await cy.createPost(content: "Evening swim, 2 km", workoutType: .swim)
            narrator.say("Cy posted at \(Self.time(post.createdAt)); it expires at \(Self.time(post.expiresAt)).")
            return nil
        }
        await narrator.step("Next morning: Ada's feed is locked, an error and not an empty page") {
            try clock.advance(by: .seconds(Self.next(hour: 7, after: clock.now, in: calendar).timeIntervalSince(clock.now)))
            do {
                let page = try await social.friendsFeed(limit: 2)
                return "a locked feed returned \(page.count) posts"
            } catch let error as SocialError where error.code == .feedLocked {
                narrator.say("\(error.localizedDescription) \(error.recoverySuggestion ?? "")")
                return social.hasFeedUnlocked() ? "hasFeedUnlocked says yes" : nil
            }
        }
        await narrator.step("Bob runs and posts; Ada follows Bob and Cy") {
            _ = try await bob.unlockFeed(workoutType: .run)
            _ = try await bob.createPost(content: "Morning 10k, negative splits", workoutType: .run)
            try await social.follow(bobID)
            try await social.follow(cyID)
            return try await Set(social.following().map(\.id)) == [bobID, cyID] ? nil : "Ada does not follow both"
        }
        var midnight = Date.distantPast
        await narrator.step("Ada completes a strength workout: the feed is open until local midnight") {
            let unlock = try await social.unlockFeed(workoutType: .strength)
            midnight = unlock.expiresAt
            narrator.say("Unlocked until \(Self.time(unlock.expiresAt)) (\(unlock.timeZoneIdentifier)).")
            let expected = calendar.dateInterval(of: .day, for: clock.now)?.end
            guard await waitUntil({ session.feedUnlockedUntil == unlock.expiresAt }) else {
                return "the session does not show the feed unlocked until midnight"
            }
            return unlock.expiresAt == expected && social.hasFeedUnlocked() ? nil : "the unlock does not end at the next local midnight"
        }
        await narrator.step("Ada posts with a photo from her camera roll") {
            let photo = try await social.media.put(Self.photo, kind: .postPhoto, for: ada.id)
            let post = try await social.createPost(content: "Deadlift PR!", workoutType: .strength, mediaURL: social.media.url(for: photo))
            narrator.say("Posted; the photo is \(photo.contentType.mimeType) at \(photo.path).")
            return try await social.media.contains(photo) && post.mediaURL != nil ? nil : "the post lost its photo"
        }
        await narrator.step("Her friends feed, two posts a page") {
            let posts = try await Self.allPages(social)
            let authors = posts.map(\.userID)
            return Set(posts.map(\.id)).count == posts.count && authors.contains(bobID) && authors.contains(cyID) && authors.contains(ada.id)
                ? nil : "the pages miss a friend's post or repeat one"
        }
        await narrator.step("Evening again: Cy's post from yesterday has expired, Bob's has not") {
            try clock.advance(
                by: .seconds(Self.next(hour: 20, after: clock.now, in: calendar).addingTimeInterval(1_800).timeIntervalSince(clock.now)))
            let authors = try await Self.allPages(social).map(\.userID)
            guard clock.now < midnight else { return "the evening came after midnight" }
            return !authors.contains(cyID) && authors.contains(bobID) ? nil : "Cy's expired post is still there, or Bob's is gone"
        }
        var bobsPost: PostEntity?
        await narrator.step("Ada likes and comments on Bob's run") {
            guard let post = try await social.friendsFeed(limit: 20).first(where: { $0.userID == bobID }) else { return "no post of Bob's" }
            try await social.like(post.id)
            let comment = try await social.comment(on: post.id, text: "Great pacing!")
            bobsPost = post
            let liked = try await social.friendsFeed(limit: 20).first { $0.id == post.id }
            narrator.say("\(comment.displayName): \"\(comment.text)\" — \(liked?.likeCount ?? 0) like(s), \(liked?.commentCount ?? 0) comment(s).")
            return liked?.likeCount == post.likeCount + 1 && liked?.commentCount == post.commentCount + 1 ? nil : "the counts did not move"
        }
        await narrator.step("Cy posts again; Ada blocks Cy, and Cy disappears from her feeds and follows") {
            _ = try await cy.unlockFeed(workoutType: .run)
            let late = try await cy.createPost(content: "Late run, 5 km", workoutType: .run)
            let before = try await Self.allPages(social).contains { $0.id == late.id }
            try await social.block(cyID)
            let after = try await Self.allPages(social).contains { $0.id == late.id }
            let discover = try await social.discoverFeed(limit: 100).contains { $0.userID == cyID }
            let following = try await social.following().map(\.id)
            let cySeesAda = try await cy.discoverFeed(limit: 100).contains { $0.userID == ada.id }
            let bobsComments = try await cy.comments(on: bobsPost?.id ?? UUID()).map(\.userID)
            narrator.say("Ada now follows \(following.count) user(s), Bob among them; Cy sees none of her posts or comments.")
            return before && !after && !discover && !following.contains(cyID) && !cySeesAda && !bobsComments.contains(ada.id)
                ? nil : "Cy and Ada still see each other somewhere"
        }
        await narrator.step("Bob's like and a comment that mentions Ada reach her notifications, one per post and kind, with a badge") {
            guard let adas = try await bob.discoverFeed(limit: 100).first(where: { $0.userID == ada.id }) else { return "Bob sees no post of Ada's" }
            try await bob.like(adas.id)
            let comment = try await bob.comment(on: adas.id, text: "\(Mention.token(for: ada.id)) huge!")
            narrator.say("Bob: \"\(Mention.displayText(comment.text) { $0 == ada.id ? ada.displayName : nil })\"")
            let notifications = try await social.notifications(limit: 20).notifications
            let badge = try await social.unseenNotificationCount()
            for notification in notifications { narrator.say(notification.summary) }
            guard await waitUntil({ session.unseenNotificationCount == 3 }) else { return "the session's badge did not follow" }
            narrator.say("Badge: \(badge), as the session shows it.")
            try await social.markNotificationsSeen()
            let seen = await waitUntil { session.unseenNotificationCount == 0 }
            return notifications.count == 3 && badge == 3 && seen ? nil : "the notifications or the badge are wrong"
        }
        await narrator.step("Bob reports Cy's late run as spam: it leaves his feeds, and nobody else's") {
            guard let late = try await bob.discoverFeed(limit: 100).first(where: { $0.userID == cyID }) else { return "Bob sees no post of Cy's" }
            let report = try await bob.report(.post(late.id), reason: .spam, details: "Posted the same run three times")
            let bobSees = try await bob.discoverFeed(limit: 100).contains { $0.id == late.id }
            let cySees = try await cy.discoverFeed(limit: 100).contains { $0.id == late.id }
            narrator.say("Reported as \(report.reason); Bob sees it: \(bobSees), Cy sees it: \(cySees).")
            return !bobSees && cySees ? nil : "the report hid the post from the wrong people"
        }
        return bobPhone
    }

    /// Every page of the friends feed, two posts at a time, each printed.
    static func allPages(_ social: LocalSocialFeedService) async throws -> [PostEntity] {
        var posts: [PostEntity] = []
        var page = try await social.friendsFeed(limit: 2)
        while true {
            posts += page
            let hearts = page.map { "\($0.userName): \($0.content)\($0.isLikedByViewer ? " ♥" : "")" }
            print("   page: " + hearts.joined(separator: " | ") + (page.hasMore ? " →" : " (end)"))
            guard let next = page.nextCursor else { break }
            page = try await social.friendsFeed(limit: 2, after: next)
        }
        return posts
    }

    /// The next time after `date` that the local clock shows `hour`:00.
    static func next(hour: Int, after date: Date, in calendar: Calendar) throws -> Date {
        guard let next = calendar.nextDate(after: date, matching: DateComponents(hour: hour, minute: 0, second: 0), matchingPolicy: .nextTime)
        else { throw CocoaError(.formatting) }
        return next
    }

    /// A date and time as the demo prints them.
    static func time(_ date: Date) -> String {
        date.formatted(date: .abbreviated, time: .shortened)
    }
}
