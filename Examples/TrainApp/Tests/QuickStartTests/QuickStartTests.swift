import Testing
import TrainKit
import TrainTesting

@testable import QuickStart

@MainActor
@Test func aRefusedWorkoutSaysWhy() async {
    let social = FakeSocialFeedService() // strict: a call the test did not script fails it
    social.script(.unlockFeed, .throwing(SocialError(.feedLocked)))
    let model = WorkoutModel(social: social)
    await model.finished(.rest)
    #expect(model.message == SocialError(.feedLocked).localizedDescription)
    #expect(social.calls == [.unlockFeed(.rest)])
    social.finish()
}

@MainActor
@Test func theFirstSessionRuns() async throws {
    let directory = try TemporaryDirectory()
    let session = try await firstSession(in: directory.url)
    #expect(session.tier == .pro && session.isFeedUnlocked)
    session.stop()
}
