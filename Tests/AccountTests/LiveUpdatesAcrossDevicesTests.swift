import Foundation
import Testing
import TrainAccount
import TrainAuth
import TrainCore
import TrainSocial
import TrainTesting

/// SOC-18's live updates across the devices of one world.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct LiveUpdatesAcrossDevicesTests {
    @Test("a friend's like on another phone reaches the badge stream, and their new post the new-posts stream; a muted friend's does not")
    func notificationsAndNewPostsArriveLive() async throws {
        let clock = ManualClock(start: ManualClock.defaultStart.addingTimeInterval(8 * 3_600))
        let services = TrainServices.inMemory(configuration: TrainServicesConfiguration(context: TrainContext(clock: clock)))
        services.appleID.signIn(as: SimulatedIdentityProvider.Account.ada)
        _ = try await services.auth.signInWithApple()
        let bob = try services.makeDevice(for: try await services.addUser(named: "Bob").id)
        let cy = try services.makeDevice(for: try await services.addUser(named: "Cy").id)
        for device in [services, bob, cy] { _ = try await device.social.unlockFeed(workoutType: .run) }
        let post = try await services.social.createPost(content: "Morning 10k", workoutType: .run)
        try await services.social.mute(try #require(cy.auth.currentUser?.id))

        var updates = services.social.notificationUpdates().makeAsyncIterator()
        var posts = services.social.newPosts().makeAsyncIterator()
        #expect(await updates.next()?.unseenCount == 0)
        try await bob.social.like(post.id)
        var update = await updates.next()
        while update?.unseenCount == 0 { update = await updates.next() }
        #expect(update?.unseenCount == 1 && update?.page.notifications.first?.summary == "Bob liked your post")

        _ = try await cy.social.createPost(content: "Cy's swim", workoutType: .swim)
        let bobs = try await bob.social.createPost(content: "Bob's ride", workoutType: .cycle)
        #expect(await posts.next()?.id == bobs.id, "Cy is muted: her post never comes")

        try await services.social.markNotificationsSeen()
        while update?.unseenCount != 0 { update = await updates.next() }
        #expect(update?.page.notifications.first?.isSeen == true)
    }

    @Test("the session manager's badge follows a friend's like on another phone and the list being seen, and is zero signed out")
    func sessionBadge() async throws {
        let clock = ManualClock(start: ManualClock.defaultStart.addingTimeInterval(8 * 3_600))
        let services = TrainServices.inMemory(configuration: TrainServicesConfiguration(context: TrainContext(clock: clock)))
        let session = services.makeSessionManager()
        await session.start()
        services.appleID.signIn(as: SimulatedIdentityProvider.Account.ada)
        try await session.signInWithApple()
        let bob = try services.makeDevice(for: try await services.addUser(named: "Bob").id)
        _ = try await services.social.unlockFeed(workoutType: .run)
        let post = try await services.social.createPost(content: "Morning 10k", workoutType: .run)
        _ = try await bob.social.unlockFeed(workoutType: .run)

        try await bob.social.like(post.id)
        #expect(await waitUntil { session.unseenNotificationCount == 1 })
        try await services.social.markNotificationsSeen()
        #expect(await waitUntil { session.unseenNotificationCount == 0 })
        try await bob.social.follow(try #require(services.auth.currentUser?.id))
        #expect(await waitUntil { session.unseenNotificationCount == 1 })
        try await session.signOut()
        #expect(await waitUntil { session.unseenNotificationCount == 0 })
        session.stop()
    }
}
