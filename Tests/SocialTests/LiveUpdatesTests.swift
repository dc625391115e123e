import Foundation
import Testing
import TrainAuth
import TrainCore
import TrainTesting

@testable import TrainSocial

/// SOC-18's live streams over a file another process writes too: an app extension, or
/// a second service on the same file, commits through its own connection.
@Suite(.timeLimit(.minutes(1))) struct LiveUpdatesTests {
    @Test("a post and a like another service commits to the same file reach the streams at the next poll")
    func anotherConnectionsCommitsArrive() async throws {
        let harness = try SocialHarness(.file)
        try await harness.join("bob", "ada")
        let adas = try await harness.social.createPost(content: "ada's run", workoutType: .run)
        let bobsAuth = FakeAuthService()
        bobsAuth.setCurrentUser(UserEntity(id: "bob", displayName: "Bob", createdAt: harness.clock.now, lastSignInAt: harness.clock.now))
        let bobsPhone = try SocialHarness.service(
            .file, auth: bobsAuth, clock: harness.clock, zone: harness.zone, policy: harness.policy, media: harness.media,
            workouts: harness.workouts, file: harness.directory.file("social.sqlite"))

        let posts = harness.social.newPosts()
        let updates = harness.social.notificationUpdates()
        // Each stream looks at the file on the clock: both wait for the next poll.
        await harness.clock.waitForSleepers(2)
        let bobs = try await bobsPhone.createPost(content: "bob's ride", workoutType: .cycle)
        try await bobsPhone.like(adas.id)
        harness.clock.advance(by: .seconds(1))

        #expect(await posts.collect(1).map(\.id) == [bobs.id])
        let update = await updates.firstValue { $0.unseenCount == 1 }
        #expect(update?.page.notifications.first?.summary == "Bob liked your post")
    }

    @Test(
        "a reader that reads late gets every new post in order: 250 made before it reads the first, and none from before it asked",
        arguments: SocialVariant.allCases)
    func slowReaderMissesNothing(variant: SocialVariant) async throws {
        let harness = try SocialHarness(variant)
        try await harness.join("ada")
        _ = try await harness.social.createPost(content: "before the stream", workoutType: .run)
        let posts = harness.social.newPosts()
        var made: [UUID] = []
        for number in 0..<250 { made.append(try await harness.social.createPost(content: "post \(number)", workoutType: .run).id) }
        #expect(await posts.collect(250, within: .seconds(50)).map(\.id) == made)
        let later = try await harness.social.createPost(content: "after the reader caught up", workoutType: .run)
        #expect(await posts.collect(1).map(\.id) == [later.id])
    }

    @Test("the new-posts stream ends when its reader's task is cancelled")
    func cancelledReaderEnds() async throws {
        let harness = try SocialHarness()
        try await harness.join("ada")
        let posts = harness.social.newPosts()
        let reading = Task { await posts.first { _ in true } }
        reading.cancel()
        #expect(await reading.value == nil)
    }

    @Test("a reader that sleeps a second on the test clock after each post it reads gets every post in order, 30 made three a second")
    func readerSleepingOnTheClock() async throws {
        let harness = try SocialHarness()
        try await harness.join("ada")
        let posts = harness.social.newPosts()
        let clock = harness.clock
        let reader = Task {
            var read: [UUID] = []
            for await post in posts {
                read.append(post.id)
                try? await clock.sleep(for: .seconds(1))
                if read.count == 30 { break }
            }
            return read
        }
        var made: [UUID] = []
        for second in 0..<30 {
            if second < 10 {
                for number in 0..<3 { made.append(try await harness.social.createPost(content: "post \(second).\(number)", workoutType: .run).id) }
            }
            // The reader has read one more post and sleeps a second.
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(1))
        }
        #expect(await reader.value == made)
    }

    @Test("posts read ahead for one user are read again for the next user who signs in: a post of someone they block never reaches them")
    func readAheadFollowsTheSignedInUser() async throws {
        let harness = try SocialHarness()
        try await harness.join("cy", "dee", "bob", "ada")
        harness.act(as: "bob")
        try await harness.social.block("cy")
        harness.act(as: "ada")
        let posts = harness.social.newPosts()
        var made: [UUID] = []
        for number in 0..<3 { made.append(try await harness.post("cy's run \(number)", by: "cy").id) }
        harness.act(as: "ada")
        #expect(await posts.collect(1).map(\.id) == [made[0]], "Ada reads Cy's first post; two more were read ahead")
        let dees = try await harness.post("dee's ride", by: "dee")
        harness.act(as: "bob")
        #expect(await posts.collect(1).map(\.id) == [dees.id], "Bob never gets Cy's posts")
    }

    @Test(
        "a notification reader that sleeps on the test clock while 150 notifications arrive is told to reload, and the walk from its page finds all 150",
        arguments: SocialVariant.allCases)
    func sleepingNotificationReaderReloads(variant: SocialVariant) async throws {
        let harness = try SocialHarness(variant)
        try await harness.join("bob", "ada")
        var posts: [PostEntity] = []
        for number in 0..<150 { posts.append(try await harness.social.createPost(content: "run \(number)", workoutType: .run)) }
        let updates = harness.social.notificationUpdates()
        let clock = harness.clock
        let reader = Task {
            var read: [NotificationUpdate] = []
            for await update in updates {
                read.append(update)
                if read.count == 2 { break }
                try? await clock.sleep(for: .seconds(60))
            }
            return read
        }
        // The reader has its first update and sleeps; a file's change poll sleeps too.
        await clock.waitForSleepers(variant == .file ? 2 : 1)
        harness.act(as: "bob")
        for post in posts { try await harness.social.like(post.id) }
        harness.act(as: "ada")
        clock.advance(by: .seconds(60))
        let read = await reader.value
        #expect(read.map(\.requiresReload) == [true, true], "the first update and the one after 150 changes ask for a walk")
        #expect(read.last?.unseenCount == 150)
        let page = try #require(read.last?.page)
        #expect(page.notifications.count == NotificationUpdate.pageSize)
        let rest = try await NotificationTests.walk(harness, after: page, limit: 50)
        let liked = Set(posts.map { LocalSocialFeedService.group(.like, $0.id) })
        #expect(Set(page.notifications.map(\.id) + rest.ids) == liked, "every notification is on the page or the walk")
    }

    @Test(
        "a notification reader that keeps up gets each new like on its update's page with no reload asked; one the page showed going, or another user signed in, asks for one",
        arguments: SocialVariant.allCases)
    func notificationReaderThatKeepsUp(variant: SocialVariant) async throws {
        let harness = try SocialHarness(variant)
        try await harness.join("bob", "cy", "ada")
        var posts: [PostEntity] = []
        for number in 0..<25 { posts.append(try await harness.social.createPost(content: "run \(number)", workoutType: .run)) }
        var updates = harness.social.notificationUpdates().makeAsyncIterator()
        #expect(await updates.next()?.requiresReload == true)
        for (number, post) in posts.enumerated() {
            harness.act(as: "bob")
            try await harness.social.like(post.id)
            harness.act(as: "ada")
            let update = await updates.next()
            #expect(update?.requiresReload == false && update?.unseenCount == number + 1)
            #expect(update?.page.notifications.first?.postID == post.id, "the new like is at the top of the page")
        }
        // Two likes while the reader is away: both on the page, which is full but whose last is older.
        harness.act(as: "cy")
        try await harness.social.like(posts[0].id)
        try await harness.social.like(posts[1].id)
        harness.act(as: "ada")
        let both = await updates.next()
        #expect(both?.requiresReload == false)
        #expect(both?.page.notifications.prefix(2).compactMap(\.postID) == [posts[1].id, posts[0].id])
        // A notification the page showed goes: the reader's list is walked again.
        harness.act(as: "bob")
        try await harness.social.unlike(posts[10].id)
        harness.act(as: "ada")
        let unliked = await updates.next()
        #expect(unliked?.requiresReload == true && unliked?.page.notifications.contains { $0.postID == posts[10].id } == false)
        harness.act(as: "cy")
        try await harness.social.like(posts[5].id)
        harness.act(as: "ada")
        let pushing = await updates.next()
        #expect(pushing?.requiresReload == false, "a like pushes the page's last below it, which the reader still holds")
        // A like moves a notification from below to the top while the page's last is unliked: pushed off, and gone.
        let shown = try #require(pushing?.page.notifications)
        let last = try #require(shown.last?.postID)
        let below = try #require(posts.first { post in !shown.contains { $0.postID == post.id } })
        harness.act(as: "cy")
        try await harness.social.like(below.id)
        harness.act(as: "bob")
        try await harness.social.unlike(last)
        harness.act(as: "ada")
        let wentBelow = await updates.next()
        #expect(wentBelow?.requiresReload == true, "the page's last went off the page, not by a push alone")
        try await harness.social.markNotificationsSeen()
        #expect(await updates.next()?.requiresReload == true, "the list seen: what the reader holds below is seen too")
        harness.act(as: "bob")
        let bobs = await updates.next()
        #expect(bobs?.userID == "bob" && bobs?.requiresReload == true, "another user's list is walked anew")
    }
}
