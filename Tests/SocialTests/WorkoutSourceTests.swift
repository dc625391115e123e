import Foundation
import Testing
import TrainCore
import TrainSocial
import TrainTesting

/// The proof of a workout: a source of recorded workouts, a policy that asks for one
/// recorded today, and the summary an unlock and a post carry.
@Suite struct WorkoutSourceTests {
    static let requiring = SocialPolicy(unlockRequiresRecordedWorkout: true)
    /// 08:00 UTC, the harness's time zone: the local day began eight hours ago.
    static let morning = Date(timeIntervalSince1970: 1_780_358_400 + 8 * 3_600)

    /// A run of `minutes` that ended `before` seconds ago.
    static func run(_ harness: SocialHarness, endedAgo before: TimeInterval, minutes: Double = 30, meters: Double? = 5_000) -> WorkoutRecord {
        let end = harness.clock.now.addingTimeInterval(-before)
        return WorkoutRecord(type: .run, start: end.addingTimeInterval(-minutes * 60), end: end, distance: meters, source: "Apple Watch")
    }

    @Test(
        "under the policy only a workout of that type that ended today unlocks; yesterday's, another type's, a future one or none is workoutNotRecorded and unlocks nothing",
        arguments: SocialVariant.allCases)
    func policyNeedsAWorkoutRecordedToday(variant: SocialVariant) async throws {
        let harness = try SocialHarness(variant, policy: Self.requiring, start: Self.morning)
        harness.act(as: "ada")
        await #expect(throws: SocialError(.workoutNotRecorded)) { _ = try await harness.social.unlockFeed(workoutType: .run) }
        harness.workouts.record(Self.run(harness, endedAgo: 9 * 3_600)) // yesterday, 23:00
        harness.workouts.record(
            WorkoutRecord(type: .yoga, start: harness.clock.now.addingTimeInterval(-3_600), end: harness.clock.now, source: "Watch"))
        harness.workouts.record(Self.run(harness, endedAgo: -600)) // ends in ten minutes
        await #expect(throws: SocialError(.workoutNotRecorded)) { _ = try await harness.social.unlockFeed(workoutType: .run) }
        #expect(!harness.social.hasFeedUnlocked())

        let today = Self.run(harness, endedAgo: 3_600, minutes: 42, meters: 8_000)
        harness.workouts.record(today)
        let unlock = try await harness.social.unlockFeed(workoutType: .run)
        #expect(unlock.workout == WorkoutSummary(type: .run, duration: 42 * 60, distance: 8_000))
        #expect(harness.social.hasFeedUnlocked())
    }

    @Test("under the policy, denied access is workoutsUnavailable, and a service without a source refuses every unlock")
    func deniedOrMissingSource() async throws {
        let harness = try SocialHarness(policy: Self.requiring, start: Self.morning)
        harness.act(as: "ada")
        harness.workouts.record(Self.run(harness, endedAgo: 60))
        harness.workouts.setAccessDenied(true)
        await #expect(throws: SocialError(.workoutsUnavailable)) { _ = try await harness.social.unlockFeed(workoutType: .run) }
        harness.workouts.setAccessDenied(false)
        #expect(try await harness.social.unlockFeed(workoutType: .run).workout != nil)

        let sourceless = LocalSocialFeedService(
            auth: harness.auth, context: TrainContext(clock: harness.clock), configuration: SocialConfiguration(policy: Self.requiring))
        await #expect(throws: SocialError(.workoutsUnavailable)) { _ = try await sourceless.unlockFeed(workoutType: .run) }
    }

    @Test("records a source should not hold — negative or endless durations, negative distances — prove nothing")
    func implausibleRecordsProveNothing() async throws {
        let harness = try SocialHarness(policy: Self.requiring, start: Self.morning)
        harness.act(as: "ada")
        let end = harness.clock.now.addingTimeInterval(-60)
        for record in [
            WorkoutRecord(type: .run, start: end.addingTimeInterval(-600), end: end, duration: -5, source: "x"),
            WorkoutRecord(type: .run, start: end.addingTimeInterval(-600), end: end, duration: .infinity, source: "x"),
            WorkoutRecord(type: .run, start: end.addingTimeInterval(-600), end: end, distance: -1, source: "x"),
            WorkoutRecord(type: .run, start: end.addingTimeInterval(600), end: end, source: "x"),
        ] {
            harness.workouts.record(record)
        }
        await #expect(throws: SocialError(.workoutNotRecorded)) { _ = try await harness.social.unlockFeed(workoutType: .run) }
    }

    @Test(
        "a post carries the summary of the latest workout of its type recorded today, also after a relaunch; without one it carries none and the caller is trusted",
        arguments: SocialVariant.allCases)
    func postCarriesItsWorkout(variant: SocialVariant) async throws {
        let harness = try SocialHarness(variant, start: Self.morning)
        harness.act(as: "ada")
        _ = try await harness.social.unlockFeed(workoutType: .strength)
        let trusted = try await harness.social.createPost(content: "lifted", workoutType: .strength)
        #expect(trusted.workout == nil)

        harness.workouts.record(Self.run(harness, endedAgo: 7_200, minutes: 20, meters: 4_000))
        harness.workouts.record(Self.run(harness, endedAgo: 600, minutes: 45, meters: 10_000))
        let post = try await harness.social.createPost(content: "10k", workoutType: .run)
        let expected = WorkoutSummary(type: .run, duration: 45 * 60, distance: 10_000)
        #expect(post.workout == expected)
        #expect(try await harness.social.discoverFeed().map(\.workout) == [expected, nil])
        if variant == .file {
            harness.act(as: "ada")
            #expect(try await harness.reopened().discoverFeed().map(\.workout) == [expected, nil])
        }
    }

    @Test("the sample source holds a week of workouts and one this morning, so a preview unlocks under the policy")
    func samples() async throws {
        let harness = try SocialHarness(policy: Self.requiring, start: Self.morning)
        let samples = SimulatedWorkoutSource.samples(before: harness.clock.now, in: harness.zone.withLock { $0 })
        let week = DateInterval(start: harness.clock.now.addingTimeInterval(-8 * 86_400), end: harness.clock.now)
        let workouts = try await samples.workouts(endingIn: week)
        #expect(workouts.count == 8 && Set(workouts.map(\.type)).count >= 5)
        #expect(workouts.first?.type == .run && workouts.first?.distance == 10_000)
        let social = LocalSocialFeedService(
            auth: harness.auth, context: TrainContext(clock: harness.clock),
            configuration: SocialConfiguration(policy: Self.requiring, workouts: samples))
        harness.act(as: "ada")
        #expect(try await social.unlockFeed(workoutType: .run).workout?.distance == 10_000)
    }
}
