import Foundation
import Testing
import TrainCore
import TrainTesting

/// CORE-1: the manual clock moves only when told and wakes exactly the sleepers that are due.
@Suite(.timeLimit(.minutes(1))) struct ManualClockTests {
    @Test("the clock starts at its fixed date and stays there until advanced")
    func startsFixed() {
        let clock = ManualClock()
        #expect(clock.now == ManualClock.defaultStart)
        #expect(clock.now == clock.now)
        let custom = Date(timeIntervalSince1970: 1000)
        #expect(ManualClock(start: custom).now == custom)
    }

    @Test("advance(by:) and advance(to:) move the date; the clock never moves backwards")
    func advancing() {
        let clock = ManualClock()
        clock.advance(by: .seconds(90))
        #expect(clock.now == ManualClock.defaultStart.addingTimeInterval(90))
        clock.advance(to: ManualClock.defaultStart.addingTimeInterval(3600))
        #expect(clock.now == ManualClock.defaultStart.addingTimeInterval(3600))
        clock.advance(to: ManualClock.defaultStart)
        clock.advance(by: .seconds(-10))
        #expect(clock.now == ManualClock.defaultStart.addingTimeInterval(3600))
    }

    @Test("a sleeper wakes when its deadline is reached, not a moment before")
    func wakesAtDeadline() async throws {
        let clock = ManualClock()
        let sleeper = Task {
            try await clock.sleep(for: .seconds(300))
            return clock.now
        }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(299))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(1))
        #expect(clock.sleeperCount == 0)
        #expect(try await sleeper.value == ManualClock.defaultStart.addingTimeInterval(300))
    }

    @Test("one advance wakes exactly the due sleepers and keeps the later ones asleep")
    func wakesOnlyDue() async throws {
        let clock = ManualClock()
        let start = clock.now
        let early = Task { try await clock.sleep(until: start.addingTimeInterval(10)) }
        let middle = Task { try await clock.sleep(until: start.addingTimeInterval(20)) }
        let late = Task { try await clock.sleep(until: start.addingTimeInterval(60)) }
        await clock.waitForSleepers(3)
        #expect(clock.pendingDeadlines == [10, 20, 60].map { start.addingTimeInterval($0) })
        clock.advance(by: .seconds(30))
        try await early.value
        try await middle.value
        #expect(clock.pendingDeadlines == [start.addingTimeInterval(60)])
        clock.advance(by: .seconds(30))
        try await late.value
        #expect(clock.sleeperCount == 0)
    }

    @Test("advancing to each pending deadline in turn wakes sleepers earliest deadline first")
    func deadlineOrder() async throws {
        let clock = ManualClock()
        let start = clock.now
        // Each sleeper, once woken, hands over to the next through a stream that keeps order.
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        var sleepers: [Task<Void, any Error>] = []
        for offset in [50, 10, 40, 20, 30] {
            sleepers.append(
                Task {
                    try await clock.sleep(until: start.addingTimeInterval(TimeInterval(offset)))
                    continuation.yield(offset)
                })
            await clock.waitForSleepers(sleepers.count)
        }
        // Wake them one deadline at a time: the order is fixed by the clock, not by scheduling.
        var order: [Int] = []
        for deadline in clock.pendingDeadlines {
            clock.advance(to: deadline)
            if let woken = await stream.collect(1).first { order.append(woken) }
        }
        #expect(order == [10, 20, 30, 40, 50])
        for sleeper in sleepers { try await sleeper.value }
    }

    @Test("a deadline already passed returns without advancing")
    func pastDeadline() async throws {
        let clock = ManualClock()
        try await clock.sleep(until: clock.now)
        try await clock.sleep(until: clock.now.addingTimeInterval(-5))
        #expect(clock.sleeperCount == 0)
    }

    @Test("cancelling a sleeper removes it and throws CancellationError")
    func cancellation() async {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(60)) }
        await clock.waitForSleepers(1)
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test("a sleep started in a cancelled task throws at once")
    func cancelledBeforeSleeping() async {
        let clock = ManualClock()
        let sleeper = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(for: .seconds(60))
        }
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test("setDate moves the date either way and wakes nobody; the next advance wakes the sleepers it passed")
    func setDate() async throws {
        let clock = ManualClock()
        let start = clock.now
        let sleeper = Task { try await clock.sleep(for: .seconds(10)) }
        await clock.waitForSleepers(1)
        clock.setDate(start.addingTimeInterval(60))
        #expect(clock.now == start.addingTimeInterval(60))
        #expect(clock.sleeperCount == 1, "a date set by hand wakes no one")
        clock.setDate(start.addingTimeInterval(-3600))
        #expect(clock.now == start.addingTimeInterval(-3600), "the clock can be set back")
        clock.advance(by: .seconds(3610))
        try await sleeper.value
        #expect(clock.sleeperCount == 0)
    }

    @Test("elapsed time moves with advance and not with setDate, and a sleep for a duration wakes by it whatever the date does")
    func elapsedTime() async throws {
        let clock = ManualClock()
        let start = clock.now
        #expect(clock.elapsed == .zero)
        clock.advance(by: .seconds(5))
        clock.advance(to: start.addingTimeInterval(8))
        #expect(clock.elapsed == .seconds(8))
        let sleeper = Task { try await clock.sleep(for: .seconds(300)) }
        await clock.waitForSleepers(1)
        clock.setDate(start.addingTimeInterval(-86_400))
        #expect(clock.elapsed == .seconds(8), "setting the date leaves elapsed time")
        #expect(clock.pendingDeadlines == [clock.now.addingTimeInterval(300)], "the wait is still 300 s from now")
        clock.advance(by: .seconds(299))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(1))
        try await sleeper.value
        let late = Task { try await clock.sleep(for: .seconds(60)) }
        await clock.waitForSleepers(1)
        clock.setDate(clock.now.addingTimeInterval(86_400))
        clock.advance(by: .zero)
        #expect(clock.sleeperCount == 1, "a date set forward does not end a wait for elapsed time")
        clock.advance(by: .seconds(60))
        try await late.value
    }

    @Test("sleepers for a date and for a duration wake at their own deadlines, listed earliest first")
    func mixedSleepers() async throws {
        let clock = ManualClock()
        let byDate = Task { try await clock.sleep(until: clock.now.addingTimeInterval(20)) }
        await clock.waitForSleepers(1)
        let byDuration = Task { try await clock.sleep(for: .seconds(10)) }
        await clock.waitForSleepers(2)
        #expect(clock.pendingDeadlines == [clock.now.addingTimeInterval(10), clock.now.addingTimeInterval(20)])
        clock.advance(by: .seconds(10))
        try await byDuration.value
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(10))
        try await byDate.value
        #expect(clock.sleeperCount == 0)
    }
}
