import Foundation
import Testing
import TrainCore
import TrainSocial
import TrainTesting

@Suite struct FeedUnlockTests {
    /// A date from its parts in a time zone.
    static func date(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int = 0, in zone: String) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: zone) ?? .gmt
        return calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute)) ?? .distantPast
    }

    @Test(
        "an unlock lasts until the next local midnight",
        arguments: [
            // A 23-hour day (New York springs forward on 2026-03-08): midnight is 22 h after 01:00 local.
            ("America/New_York", date(2026, 3, 8, 1, in: "America/New_York"), date(2026, 3, 9, 0, in: "America/New_York"), 22.0),
            // A 25-hour day (New York falls back on 2026-11-01): from 00:30 local, midnight is 24.5 h away.
            ("America/New_York", date(2026, 11, 1, 0, 30, in: "America/New_York"), date(2026, 11, 2, 0, in: "America/New_York"), 24.5),
            ("Pacific/Kiritimati", date(2026, 5, 1, 23, 59, in: "Pacific/Kiritimati"), date(2026, 5, 2, 0, in: "Pacific/Kiritimati"), 1.0 / 60),
            ("Etc/GMT+12", date(2026, 5, 1, 0, 0, in: "Etc/GMT+12"), date(2026, 5, 2, 0, in: "Etc/GMT+12"), 24.0),
        ])
    func unlockEndsAtLocalMidnight(zone: String, completed: Date, midnight: Date, hours: Double) async throws {
        let harness = try SocialHarness(start: completed)
        harness.setTimeZone(zone)
        harness.act(as: "ada")
        let unlock = try await harness.social.unlockFeed(workoutType: .strength)
        #expect(unlock.expiresAt == midnight)
        #expect(abs(unlock.expiresAt.timeIntervalSince(completed) - hours * 3600) < 0.001)
        #expect(unlock.timeZoneIdentifier == zone)
        harness.clock.advance(to: midnight.addingTimeInterval(-0.001))
        #expect(harness.social.hasFeedUnlocked())
        harness.clock.advance(to: midnight)
        #expect(!harness.social.hasFeedUnlocked())
    }

    @Test(
        "a clock corrected back within the workout's local day keeps the feed open until that day ends; before the day, it is locked",
        arguments: SocialVariant.allCases)
    func clockCorrectedBackWithinTheDay(variant: SocialVariant) async throws {
        let workout = Self.date(2026, 6, 1, 8, in: "Europe/Paris")
        let harness = try SocialHarness(variant, start: workout)
        harness.setTimeZone("Europe/Paris")
        try await harness.join("bob", "ada")
        _ = try await harness.post("bob's run", by: "bob")
        harness.act(as: "ada")
        try await harness.social.follow("bob")
        let unlock = try await harness.social.unlockFeed(workoutType: .run)
        #expect(unlock.dayStart == Self.date(2026, 6, 1, 0, in: "Europe/Paris"))

        harness.clock.setDate(workout.addingTimeInterval(-60))
        #expect(harness.social.hasFeedUnlocked())
        #expect(try await harness.social.friendsFeed(limit: 20).map(\.content) == ["bob's run"])
        if variant == .file { #expect(try harness.reopened().hasFeedUnlocked()) }
        harness.clock.setDate(Self.date(2026, 6, 1, 0, in: "Europe/Paris"))
        #expect(harness.social.hasFeedUnlocked())

        harness.clock.setDate(Self.date(2026, 6, 1, 0, in: "Europe/Paris").addingTimeInterval(-1))
        #expect(!harness.social.hasFeedUnlocked())
        await #expect(throws: SocialError(.feedLocked)) { _ = try await harness.social.friendsFeed(limit: 20) }

        harness.clock.setDate(Self.date(2026, 6, 1, 23, 59, in: "Europe/Paris"))
        #expect(harness.social.hasFeedUnlocked())
        harness.clock.setDate(Self.date(2026, 6, 2, 0, in: "Europe/Paris"))
        #expect(!harness.social.hasFeedUnlocked())
    }

    @Test("a traveller's unlock ends at midnight where the workout was, and a second workout never shortens it")
    func traveller() async throws {
        let tokyoEvening = Self.date(2026, 6, 1, 22, in: "Asia/Tokyo")
        let harness = try SocialHarness(start: tokyoEvening)
        harness.setTimeZone("Asia/Tokyo")
        harness.act(as: "ada")
        let first = try await harness.social.unlockFeed(workoutType: .run)
        #expect(first.expiresAt == Self.date(2026, 6, 2, 0, in: "Asia/Tokyo"))
        // She flies to Los Angeles, where it is still the morning of June 1.
        harness.setTimeZone("America/Los_Angeles")
        harness.clock.advance(by: .seconds(3600))
        let second = try await harness.social.unlockFeed(workoutType: .yoga)
        #expect(second.expiresAt == Self.date(2026, 6, 2, 0, in: "America/Los_Angeles"))
        // Another workout on Tokyo time would end at Tokyo's midnight, earlier: the later unlock stays.
        harness.setTimeZone("Asia/Tokyo")
        let third = try await harness.social.unlockFeed(workoutType: .run)
        #expect(third == second)
        harness.clock.advance(to: Self.date(2026, 6, 2, 0, in: "Asia/Tokyo"))
        #expect(harness.social.hasFeedUnlocked())
    }

    @Test("rest unlocks the feed by default, and not when the policy says so")
    func restPolicy() async throws {
        let open = try SocialHarness()
        open.act(as: "ada")
        _ = try await open.social.unlockFeed(workoutType: .rest)
        #expect(open.social.hasFeedUnlocked())

        let strict = try SocialHarness(policy: SocialPolicy(restUnlocksFeed: false))
        strict.act(as: "ada")
        await #expect(throws: SocialError(.feedLocked)) { try await strict.social.unlockFeed(workoutType: .rest) }
        #expect(!strict.social.hasFeedUnlocked())
    }

    @Test("a locked feed is an error, never an empty page, and posting needs an unlocked feed")
    func lockedIsNotEmpty() async throws {
        let harness = try SocialHarness()
        try await harness.post("morning run", by: "bob")
        harness.act(as: "ada")
        await #expect(throws: SocialError(.feedLocked)) { try await harness.social.friendsFeed() }
        await #expect(throws: SocialError(.feedLocked)) { try await harness.social.discoverFeed() }
        await #expect(throws: SocialError(.feedLocked)) { try await harness.social.createPost(content: "hi", workoutType: .run) }
        _ = try await harness.social.unlockFeed(workoutType: .run)
        #expect(try await harness.social.discoverFeed().map(\.content) == ["morning run"])
    }

    @Test("the discover feed stays open when the policy says so")
    func discoverOpenByPolicy() async throws {
        let harness = try SocialHarness(policy: SocialPolicy(discoverRequiresUnlock: false))
        try await harness.post("morning run", by: "bob")
        harness.act(as: "ada")
        #expect(try await harness.social.discoverFeed().count == 1)
        await #expect(throws: SocialError(.feedLocked)) { try await harness.social.friendsFeed() }
    }

    @Test("signed out, calls are notSignedIn and the feed is not unlocked")
    func signedOut() async throws {
        let harness = try SocialHarness()
        #expect(!harness.social.hasFeedUnlocked())
        await #expect(throws: SocialError(.notSignedIn)) { try await harness.social.unlockFeed(workoutType: .run) }
        await #expect(throws: SocialError(.notSignedIn)) { try await harness.social.friendsFeed() }
    }

    @Test(
        "an app's own workout type unlocks the feed and posts with it read back; a malformed one is invalidWorkoutType and changes nothing",
        arguments: SocialVariant.allCases)
    func appWorkoutType(_ variant: SocialVariant) async throws {
        let climbing = WorkoutType("climbing")
        let harness = try SocialHarness(variant)
        harness.act(as: "ada")
        for bad in ["", "rock climbing", "climb\u{0}", "é", String(repeating: "x", count: 65)] {
            await #expect(throws: SocialError(.invalidWorkoutType)) { try await harness.social.unlockFeed(workoutType: WorkoutType(bad)) }
        }
        #expect(!harness.social.hasFeedUnlocked())
        let unlock = try await harness.social.unlockFeed(workoutType: climbing)
        #expect(unlock.workoutType == climbing)
        await #expect(throws: SocialError(.invalidWorkoutType)) {
            try await harness.social.createPost(content: "up", workoutType: WorkoutType("a b"))
        }
        let post = try await harness.social.createPost(content: "Sent my first 6a", workoutType: climbing)
        #expect(post.workoutType.id == "climbing")
        let service = variant == .file ? try harness.reopened() : harness.social
        #expect(try await service.discoverFeed().map(\.workoutType) == [climbing], "read back as stored")
    }

    @Test("the unlock stream tells every workout's unlock ending, even one that ended before the stream looked")
    func unlockStreamTellsALateEnd() async throws {
        // The stream's task and the caller race: the clock may pass midnight before the
        // stream sees the write. Each round is one chance at that order. The watchdog is
        // long: alone under the thread sanitizer the suite takes under half a second, but
        // in the whole sanitized run on two cores, with other suites busy on the
        // cooperative pool's two threads, one wait once passed 30 s.
        for round in 0..<20 {
            let harness = try SocialHarness()
            harness.act(as: "ada")
            let updates = harness.social.feedUnlockUpdates()
            #expect(await updates.firstValue(where: { $0 == nil }, within: .seconds(120)) == .some(nil), "locked at first")
            _ = try await harness.social.unlockFeed(workoutType: .run)
            harness.clock.advance(by: .seconds(48 * 3_600))
            #expect(await updates.firstValue(where: { $0 == nil }, within: .seconds(120)) == .some(nil), "round \(round): the end was told")
        }
    }
}
