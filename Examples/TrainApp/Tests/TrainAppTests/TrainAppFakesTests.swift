import Foundation
import Testing
import TrainKit
import TrainTesting

@testable import TrainApp

/// The view models on TrainTesting's fakes over a stack in memory: what a test scripts
/// is answered by the script, everything else by the real services.
@MainActor
@Suite struct TrainAppFakesTests {
    let clock = ManualClock()
    let fakes: FakeServices
    let session: UserSessionManager

    init() throws {
        var configuration = TrainServicesConfiguration(context: .test(clock: clock))
        try configuration.setTimeZone(identifier: "Europe/Paris")
        fakes = FakeServices(configuration: configuration)
        session = fakes.makeSessionManager()
    }

    @Test func theRootFollowsTheSession() async {
        let app = AppModel(session: session)
        #expect(app.screen == .launching)
        await app.launch()
        #expect(app.screen == .home)
        await app.signOutTapped()
        #expect(app.screen == .signIn)
        fakes.auth.script(.signInWithApple, .throwing(AuthenticationError(.cancelled)))
        await app.signInTapped()
        #expect(app.screen == .signIn && app.errorMessage != nil)
        fakes.finish()
    }

    @Test func thePaywallOffersTheTrialOnceAndUnlocksAnalytics() async {
        await session.start()
        let paywall = PaywallModel(session: session)
        await paywall.load()
        #expect(paywall.options.first { $0.id == "com.train.pro.monthly" }?.freeTrialDays == 7)
        #expect(!paywall.canUse(.analytics))
        await paywall.buy("com.train.pro.monthly")
        #expect(paywall.tier == .pro && paywall.canUse(.analytics))
        #expect(paywall.message == "Welcome to Pro.")
        #expect(paywall.options.allSatisfy { $0.freeTrialDays == nil }, "the Apple ID has had its trial")
        session.stop()
    }

    @Test func aFailedPurchaseSaysWhyAndGrantsNothing() async {
        await session.start()
        fakes.subscriptions.script(.purchase, .throwing(SubscriptionError(.networkError)))
        let paywall = PaywallModel(session: session)
        await paywall.buy("com.train.pro.monthly")
        #expect(paywall.message == SubscriptionError(.networkError).localizedDescription)
        #expect(paywall.tier == .free && !paywall.isPurchasing)
        session.stop()
        fakes.finish()
    }

    @Test func theFeedOpensWithAWorkoutAndLocksAtLocalMidnight() async throws {
        await session.start()
        let feed = FeedModel(session: session)
        #expect(!feed.isUnlocked)
        await feed.logWorkout(.run)
        #expect(feed.isUnlocked && feed.errorMessage == nil)
        // 2026-01-01 00:00 UTC is 01:00 in Paris: the feed locks at 23:00 UTC.
        #expect(await waitUntil { feed.unlockedUntil == Date(timeIntervalSince1970: 1_767_308_400) })
        clock.advance(by: .seconds(23 * 3_600))
        #expect(await waitUntil { !feed.isUnlocked })
        session.stop()
    }

    @Test func deletingAsksForAFreshSignInWhenTheAccountServiceDoes() async {
        await session.start()
        fakes.account.script(.deleteAccount, .throwing(AccountError(.requiresRecentLogin)))
        let settings = SettingsModel(session: session)
        await settings.deleteTapped()
        #expect(settings.needsSignIn)
        #expect(session.authState == .authenticated, "nothing was deleted")
        session.stop()
        fakes.finish()
    }

    @Test func deletingSignsOutAndLeavesNoData() async throws {
        await session.start()
        let settings = SettingsModel(session: session)
        await settings.exportTapped()
        #expect(settings.exported != nil)
        await settings.deleteTapped()
        #expect(settings.message == "Your account is deleted.")
        #expect(fakes.auth.currentUser == nil && session.authState == .unauthenticated)
        session.stop()
    }
}
