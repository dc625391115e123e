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
}
