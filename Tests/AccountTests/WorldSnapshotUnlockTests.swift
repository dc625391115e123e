import Foundation
import Testing
import TrainAccount
import TrainCore
import TrainSocial
import TrainTesting

/// The feeds unlocked by a workout, and the workouts behind posts, in a world's snapshot.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct WorldSnapshotUnlockTests {

    let clock = ManualClock()
    let paris = TimeZone(identifier: "Europe/Paris") ?? .gmt
    var configuration: TrainServicesConfiguration {
        TrainServicesConfiguration(context: TrainContext(clock: clock, timeZone: { [paris] in paris }))
    }

    @Test("a fixture's unlock opens the user's feed until the start of the next day in the stack's time zone, as a workout would")
    func unlockOpensFeed() async throws {
        let json = #"""
            {"version": 1, "users": [{"id": "ada"}, {"id": "grace"}], "follows": [{"follower": "ada", "followee": "grace"}],
             "posts": [{"author": "grace", "content": "Intervals"}], "unlocks": [{"user": "ada", "workoutType": "run"}]}
            """#
        let services = try TrainServices.inMemory(from: try WorldSnapshot(json: Data(json.utf8)), signedIn: "ada", configuration: configuration)
        #expect(services.social.hasFeedUnlocked())
        #expect(try await services.social.friendsFeed(limit: 20).posts.map(\.content) == ["Intervals"])
        let unlock = try #require(try services.exportWorld().unlocks.first)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = paris
        #expect(unlock.timeZone == "Europe/Paris" && unlock.expiresAt == calendar.dateInterval(of: .day, for: clock.now)?.end)
        clock.advance(by: .seconds(86_400))
        #expect(!services.social.hasFeedUnlocked())
        await #expect(throws: SocialError(.feedLocked)) { try await services.social.friendsFeed(limit: 20) }
    }

    @Test("an unlock and a post with the workout behind them export and import to the same bytes")
    func workoutsRoundTrip() throws {
        let json = #"""
            {"version": 1, "users": [{"id": "ada"}],
             "posts": [{"author": "ada", "content": "Tempo", "workout": {"duration": 1800, "distance": 5000.5}}],
             "unlocks": [{"user": "ada", "workoutType": "run", "timeZone": "Asia/Tokyo", "workout": {"duration": 1800.25}}]}
            """#
        let first = try TrainServices.inMemory(from: try WorldSnapshot(json: Data(json.utf8)), configuration: configuration).exportWorld()
        #expect(first.posts.first?.workout == WorldSnapshot.Workout(duration: 1800, distance: 5000.5))
        #expect(first.unlocks.first?.workout == WorldSnapshot.Workout(duration: 1800.25) && first.unlocks.first?.timeZone == "Asia/Tokyo")
        let bytes = try first.encoded()
        #expect(try TrainServices.inMemory(from: try WorldSnapshot(json: bytes), configuration: configuration).exportWorld().encoded() == bytes)
    }

    @Test(
        "an unlock or a workout the feed would not have made is a typed error naming its path",
        arguments: [
            (#""unlocks": [{"user": "bob", "workoutType": "run"}]"#, "unlocks[0].user"),
            (#""unlocks": [{"user": "ada", "workoutType": "run"}, {"user": "ada", "workoutType": "yoga"}]"#, "unlocks[1].user"),
            (#""unlocks": [{"user": "ada", "workoutType": "run", "timeZone": "Mars/Olympus"}]"#, "unlocks[0].timeZone"),
            (
                #""unlocks": [{"user": "ada", "workoutType": "run", "unlockDate": "2020-01-02T00:00:00Z", "expiresAt": "2020-01-01T00:00:00Z"}]"#,
                "unlocks[0].expiresAt"
            ),
            (#""unlocks": [{"user": "ada", "workoutType": "run", "workout": {"duration": -1}}]"#, "unlocks[0].workout"),
            (#""unlocks": [{"user": "ada", "workoutType": "run", "expiresAt": "9999-01-01T00:00:00Z"}]"#, "unlocks[0].expiresAt"),
            (#""posts": [{"author": "ada", "content": "x", "workout": {"duration": 60, "distance": 1e300}}]"#, "posts[0].workout"),
        ])
    func refused(fields: String, path: String) throws {
        let json = #"{"version": 1, "users": [{"id": "ada"}], \#(fields)}"#
        let error = #expect(throws: WorldSnapshotError.self) {
            _ = try TrainServices.inMemory(from: try WorldSnapshot(json: Data(json.utf8)), configuration: configuration)
        }
        #expect(error?.path == path, "\(error?.detail ?? "")")
    }

    @Test("a rest day's unlock is refused when the social policy does not let a rest day unlock")
    func restDay() throws {
        var strict = configuration
        strict.socialPolicy.restUnlocksFeed = false
        let json = #"{"version": 1, "users": [{"id": "ada"}], "unlocks": [{"user": "ada", "workoutType": "rest"}]}"#
        let snapshot = try WorldSnapshot(json: Data(json.utf8))
        let error = #expect(throws: WorldSnapshotError.self) { try TrainServices.inMemory(from: snapshot, configuration: strict) }
        #expect(error?.path == "unlocks[0].workoutType")
        #expect(try TrainServices.inMemory(from: snapshot, signedIn: "ada", configuration: configuration).social.hasFeedUnlocked())
    }
}
