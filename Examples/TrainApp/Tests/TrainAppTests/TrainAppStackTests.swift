import Foundation
import Testing
import TrainKit
import TrainTesting

@testable import TrainApp

/// The view models on the real stack, in memory and in files, as the app runs them.
@MainActor
@Suite struct TrainAppStackTests {
    static let ada = SimulatedIdentityProvider.Account(subject: "001.ada", email: "ada@example.com")

    @Test func aFriendsPostReachesTheFeedAndTakesALike() async throws {
        let services = TrainServices.inMemory(configuration: TrainServicesConfiguration(context: .test()))
        services.appleID.signIn(as: Self.ada)
        let app = AppModel(session: services.makeSessionManager())
        await app.launch()
        await app.signInTapped()
        #expect(app.screen == .home)

        let grace = try await services.addUser(named: "Grace")
        let gracePhone = try services.makeDevice(for: grace.id)
        _ = try await gracePhone.social.unlockFeed(workoutType: .run)
        _ = try await gracePhone.social.createPost(content: "Intervals done", workoutType: .run, mediaURL: nil)
        try await services.social.follow(grace.id)

        let feed = FeedModel(session: app.session)
        await feed.loadMore()
        #expect(feed.posts.isEmpty, "locked until a workout")
        await feed.logWorkout(.strength)
        #expect(feed.posts.map(\.content) == ["Intervals done"])
        await feed.like(try #require(feed.posts.first))
        await feed.like(try #require(feed.posts.first))
        #expect(feed.posts.first?.likeCount == 1, "a second tap on a filled heart counts nothing")
        await feed.reload()
        #expect(feed.posts.first.map { [$0.likeCount, $0.isLikedByViewer ? 1 : 0] } == [1, 1], "the page says the heart is filled")
        app.session.stop()
    }

    /// A small world written by hand, as a team checks one into its repository.
    static let friends = #"""
        {"version": 1,
         "users": [{"id": "ada", "displayName": "Ada"}, {"id": "grace", "displayName": "Grace"}],
         "follows": [{"follower": "ada", "followee": "grace"}],
         "posts": [{"author": "grace", "content": "Intervals done"}],
         "purchases": [{"user": "ada", "product": "com.train.pro.monthly"}]}
        """#

    @Test func aWorldFromAFileOpensOnAFriendsPostWithPro() async throws {
        let world = try WorldSnapshot(json: Data(Self.friends.utf8))
        let services = try TrainServices.inMemory(from: world, signedIn: "ada", configuration: TrainServicesConfiguration(context: .test()))
        let app = AppModel(session: services.makeSessionManager())
        await app.launch()
        #expect(app.screen == .home, "Ada is signed in")
        #expect(app.session.tier == .pro)
        let feed = FeedModel(session: app.session)
        await feed.logWorkout(.run)
        #expect(feed.posts.map(\.content) == ["Intervals done"])
        app.session.stop()
    }

    @Test func plansFollowEachEditAndSync() async throws {
        let services = TrainServices.inMemory(configuration: TrainServicesConfiguration(context: .test()))
        services.appleID.signIn(as: Self.ada)
        let session = services.makeSessionManager()
        await session.start()
        _ = try await session.signInWithApple()
        let plans = PlansModel(session: session, plans: services.plans)
        plans.start()
        await plans.create(name: "10k", weeks: 8, daysPerWeek: 3)
        #expect(await waitUntil { plans.plans.map(\.name) == ["10k"] })
        await plans.rename(try #require(plans.plans.first), to: "Spring 10k")
        #expect(await waitUntil { plans.plans.map(\.name) == ["Spring 10k"] })
        _ = try await services.plans.sync()
        #expect(try services.plans.status(ofPlan: try #require(plans.plans.first).id) == .synced)
        plans.stop()
        session.stop()
    }

    @Test func inFilesTheSessionAndPlansOutliveARelaunch() async throws {
        let directory = try TemporaryDirectory()
        let configuration = TrainServicesConfiguration(context: .test())
        do {
            let services = try TrainServices.files(in: directory.url, configuration: configuration)
            services.appleID.signIn(as: Self.ada)
            let app = AppModel(session: services.makeSessionManager())
            await app.launch()
            await app.signInTapped()
            let plans = PlansModel(session: app.session, plans: services.plans)
            await plans.create(name: "Marathon", weeks: 16, daysPerWeek: 5)
            app.session.stop()
        }
        let relaunched = try TrainServices.files(in: directory.url, configuration: configuration)
        let app = AppModel(session: relaunched.makeSessionManager())
        await app.launch()
        #expect(app.screen == .home, "the session is remembered")
        let plans = PlansModel(session: app.session, plans: relaunched.plans)
        plans.start()
        #expect(await waitUntil { plans.plans.map(\.name) == ["Marathon"] })
        plans.stop()
        app.session.stop()
    }
}
