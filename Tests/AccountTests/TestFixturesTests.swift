import Foundation
import Testing
import TrainAccount
import TrainAuth
import TrainCore
import TrainSocial
import TrainSync
import TrainTesting

/// The one-call fixtures of TrainTesting do what their names say.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct TestFixturesTests {
    let clock = ManualClock()

    func signedInStack() async throws -> (TrainServices, UserEntity) {
        let services = TrainServices.inMemory(configuration: TrainServicesConfiguration(context: .test(clock: clock)))
        services.appleID.signIn(as: .ada)
        return (services, try await services.auth.signInWithApple())
    }

    @Test("the Apple account fixtures sign in as the people they name")
    func appleAccounts() async throws {
        let (services, ada) = try await signedInStack()
        #expect(ada.email == "ada@example.com" && ada.displayName == "Ada Lovelace")
        try await services.auth.signOut()
        services.appleID.signIn(as: .grace)
        let grace = try await services.auth.signInWithApple()
        #expect(grace.email == "grace@example.com" && grace.id != ada.id)
    }

    @Test("a friend who posted a workout, in one call: followed by the signed-in user, their post in the friends feed")
    func friendWhoPosted() async throws {
        let (services, _) = try await signedInStack()
        _ = try await services.social.unlockFeed(workoutType: .run)
        let (grace, post) = try await services.addFriend(named: "Grace", posting: "5 km before breakfast", after: .cycle)
        #expect(post.userID == grace.id && post.content == "5 km before breakfast" && post.workoutType == .cycle)
        #expect(try await services.social.following().map(\.id) == [grace.id])
        #expect(try await services.social.friendsFeed(limit: 20).map(\.id) == [post.id])
    }

    @Test("waiting until background sync is idle returns once the sync it asked for has uploaded the edit")
    func backgroundSyncIdle() async throws {
        let (services, ada) = try await signedInStack()
        let plan = try await services.plans.createPlan(
            TrainingPlan(name: "Spring", startDate: clock.now, endDate: clock.now.addingTimeInterval(86_400 * 30), daysPerWeek: 3))
        #expect(try services.plans.status(ofPlan: plan.id) != .synced)
        services.backgroundSync.start()
        let status = await services.backgroundSync.syncAndWaitUntilIdle()
        #expect(status?.isIdle == true)
        #expect(try services.plans.status(ofPlan: plan.id) == .synced)
        let tablet = try services.makeDevice(for: ada.id)
        try await tablet.plans.sync()
        #expect(try tablet.plans.plans().map(\.id) == [plan.id])
        services.backgroundSync.stop()
    }

    @Test("a guest and an unlock for a fake's scripts are what they say")
    func guestAndUnlock() async throws {
        let auth = FakeAuthService()
        auth.script(.signInAnonymously, .returning(UserEntity.guest()))
        let guest = try await auth.signInAnonymously()
        #expect(guest.isAnonymous && guest.providers.isEmpty && guest.id == "guest-1")
        let unlock = FeedUnlock.unlocked(for: guest.id)
        #expect(unlock.isActive(at: clock.now))
        #expect(!unlock.isActive(at: clock.now.addingTimeInterval(86_400)))
        #expect(unlock.expiresAt > clock.now && unlock.expiresAt <= clock.now.addingTimeInterval(86_400))
    }
}
