import Foundation
import TrainAccount
import TrainAuth
import TrainCore
import TrainSocial
import TrainTesting

/// The feed is locked until Ada completes a workout; then it is open until local
/// midnight. She posts a photo, reads her friends' posts page by page, sees one expire,
/// likes and comments, and blocks someone, who disappears.
@MainActor
struct SocialChapter {
    let services: TrainServices
    let session: UserSessionManager
    let file: URL
    let clock: DemoClock
    let narrator: Narrator

    /// The first bytes of a JPEG, standing in for a photo from the camera.
    static let photo = Data([0xFF, 0xD8, 0xFF, 0xE0] + Array("a photo of the summit".utf8))

    func run() async {
        guard let ada = session.currentUser else {
            await narrator.step("The feed needs a signed-in user") { "nobody is signed in" }
            return
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone.current
        let social = services.social
        var friends: (bob: LocalSocialFeedService, cy: LocalSocialFeedService)?
        await narrator.step("Bob and Cy use the feed on their phones: the same store file and photo folder as the stack's") {
            func friend(_ id: String, _ name: String) throws -> LocalSocialFeedService {
                let friend = FakeAuthService(currentUser: UserEntity(id: id, displayName: name, createdAt: clock.now, lastSignInAt: clock.now))
                return try LocalSocialFeedService(
                    auth: friend, storage: .file(file), media: services.media, configuration: SocialConfiguration(clock: clock))
            }
            friends = (try friend("bob", "Bob"), try friend("cy", "Cy"))
            return nil
        }
        guard let (bob, cy) = friends else { return }

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
            try await social.unblock("cy") // from an earlier run of the demo
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
            try await social.follow("bob")
            try await social.follow("cy")
            return try await social.following().map(\.id).sorted() == ["bob", "cy"] ? nil : "Ada does not follow both"
        }
        var midnight = Date.distantPast
        await narrator.step("Ada completes a strength workout: the feed is open until local midnight") {
            let unlock = try await social.unlockFeed(workoutType: .strength)
            midnight = unlock.expiresAt
            narrator.say("Unlocked until \(Self.time(unlock.expiresAt)) (\(unlock.timeZoneIdentifier)).")
            let expected = calendar.dateInterval(of: .day, for: clock.now)?.end
            session.refresh()
            guard session.isFeedUnlocked else { return "the session does not show the feed unlocked" }
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
            return Set(posts.map(\.id)).count == posts.count && authors.contains("bob") && authors.contains("cy") && authors.contains(ada.id)
                ? nil : "the pages miss a friend's post or repeat one"
        }
        await narrator.step("Evening again: Cy's post from yesterday has expired, Bob's has not") {
            try clock.advance(
                by: .seconds(Self.next(hour: 20, after: clock.now, in: calendar).addingTimeInterval(1_800).timeIntervalSince(clock.now)))
            let authors = try await Self.allPages(social).map(\.userID)
            guard clock.now < midnight else { return "the evening came after midnight" }
            return !authors.contains("cy") && authors.contains("bob") ? nil : "Cy's expired post is still there, or Bob's is gone"
        }
        var bobsPost: PostEntity?
        await narrator.step("Ada likes and comments on Bob's run") {
            guard let post = try await social.friendsFeed(limit: 20).first(where: { $0.userID == "bob" }) else { return "no post of Bob's" }
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
            try await social.block("cy")
            let after = try await Self.allPages(social).contains { $0.id == late.id }
            let discover = try await social.discoverFeed(limit: 100).contains { $0.userID == "cy" }
            let following = try await social.following().map(\.id)
            let cySeesAda = try await cy.discoverFeed(limit: 100).contains { $0.userID == ada.id }
            let bobsComments = try await cy.comments(on: bobsPost?.id ?? UUID()).map(\.userID)
            narrator.say("Ada now follows \(following.joined(separator: ", ")); Cy sees none of her posts or comments.")
            return before && !after && !discover && !following.contains("cy") && !cySeesAda && !bobsComments.contains(ada.id)
                ? nil : "Cy and Ada still see each other somewhere"
        }
    }

    /// Every page of the friends feed, two posts at a time, each printed.
    static func allPages(_ social: LocalSocialFeedService) async throws -> [PostEntity] {
        var posts: [PostEntity] = []
        var page = try await social.friendsFeed(limit: 2)
        while !page.isEmpty {
            posts += page
            print("   page: " + page.map { "\($0.userName): \($0.content)" }.joined(separator: " | "))
            guard let last = page.last else { break }
            page = try await social.friendsFeed(limit: 2, after: last.id)
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
