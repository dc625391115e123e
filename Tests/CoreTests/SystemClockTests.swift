import Foundation
import Testing
import TrainCore

/// CORE-1: the production clock.
@Suite struct SystemClockTests {
    @Test("the system clock reads the system date")
    func now() {
        let before = Date()
        let now = SystemClock().now
        let after = Date()
        #expect(before <= now && now <= after)
    }

    @Test("sleeping until a past date returns at once")
    func pastDeadline() async throws {
        let clock = SystemClock()
        let started = ContinuousClock.now
        try await clock.sleep(until: clock.now.addingTimeInterval(-3600))
        #expect(ContinuousClock.now - started < .seconds(1))
    }

    @Test("a cancelled sleep throws CancellationError instead of waiting")
    func cancellation() async {
        let clock = SystemClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(3600)) }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }

    @Test("elapsed time never goes back, and a sleep for no time returns at once")
    func elapsed() async throws {
        let clock = SystemClock()
        let first = clock.elapsed
        try await clock.sleep(for: .zero)
        let second = clock.elapsed
        #expect(first <= second)
    }

    @Test("a duration converts to seconds with its fraction")
    func durationSeconds() {
        #expect(Duration.seconds(300).timeInterval == 300)
        #expect(Duration.milliseconds(1500).timeInterval == 1.5)
    }
}
