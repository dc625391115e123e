import Foundation
import Testing
import TrainAccount
import TrainAuth
import TrainCore
import TrainSocial
import TrainSubscription
import TrainSync
import TrainTesting

/// Every service built by hand takes its clock and IDs from the context it is given,
/// by one route; a configuration made with the deprecated `clock:` still sets them.
@Suite(.timeLimit(.minutes(1))) struct ServiceContextTests {
    static let photo = Data([0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 7, count: 60))

    @Test("auth, plans, the App Store, subscriptions, media and the account service date and name what they make by their context")
    func servicesReadTheirContext() async throws {
        let clock = ManualClock()
        clock.advance(by: .seconds(3_600))
        func context(_ prefix: String) -> TrainContext { .test(clock: clock, ids: SequentialIDGenerator(prefix: prefix)) }

        let auth = LocalAuthService(context: context("user-"), configuration: AuthConfiguration(policy: AuthPolicy(passwordIterations: 1_000)))
        let ada = try await auth.createUser(email: "ada@example.com", password: "correct horse 1")
        #expect(ada.id == "user-000001")
        #expect(ada.createdAt == clock.now)

        let remote = LocalRemotePlanStore(context: context("remote-"))
        let plans = LocalPlanSyncService(auth: auth, remote: remote, context: context("replica-"))
        let start = clock.now
        let plan = try await plans.createPlan(
            TrainingPlan(name: "10k", startDate: start, endDate: start.addingTimeInterval(86_400), daysPerWeek: 3))
        #expect(plan.lastModified == clock.now)

        let store = SimulatedAppStore(context: context("store-"))
        let subscriptions = LocalSubscriptionService(store: store, context: store.context)
        guard case .success(let result) = try await subscriptions.purchase("com.train.pro.yearly") else {
            Issue.record("the purchase did not go through")
            return
        }
        #expect(result.unsafePayloadValue.purchaseDate == clock.now)

        let media = LocalMediaStore(auth: auth, context: context("media-"))
        let reference = try await media.put(Self.photo, kind: .postPhoto, for: ada.id)
        #expect(media.url(for: reference).path.hasPrefix("/trainkit-memory-media/media-000001/"))

        let social = LocalSocialFeedService(auth: auth, media: media, context: context("social-"))
        let account = LocalAccountService(auth: auth, social: social, plans: plans, subscriptions: subscriptions, context: context("account-"))
        clock.advance(by: .seconds(60))
        let consent = try await account.accept(.privacyPolicy, version: 1)
        #expect(consent.date == clock.now)
    }

    @Test("a configuration made with the deprecated clock and IDs still sets the service's, over its context")
    func deprecatedClockStillApplies() async throws {
        let clock = ManualClock()
        clock.advance(by: .seconds(86_400))
        // Through a protocol, so this test calls the deprecated initializer without a warning.
        let legacy: any LegacyAuthMaking.Type = LegacyAuth.self
        let auth = legacy.auth(clock: clock)
        let ada = try await auth.createUser(email: "ada@example.com", password: "correct horse 1")
        #expect(ada.id == "legacy-000001")
        #expect(ada.createdAt == clock.now)
    }

}

/// Makes an auth service the way an app built on the earlier names does.
private protocol LegacyAuthMaking {
    static func auth(clock: ManualClock) -> LocalAuthService
}

private enum LegacyAuth: LegacyAuthMaking {
    @available(*, deprecated, message: "Calls the initializer kept for apps built on the earlier names.")
    static func auth(clock: ManualClock) -> LocalAuthService {
        LocalAuthService(
            context: .live,
            configuration: AuthConfiguration(
                clock: clock, ids: SequentialIDGenerator(prefix: "legacy-"), policy: AuthPolicy(passwordIterations: 1_000)))
    }
}
