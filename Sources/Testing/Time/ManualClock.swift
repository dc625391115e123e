import Foundation
import TrainCore

/// A clock for tests that starts at a fixed date and moves only when the test says
/// so.
///
/// ``advance(by:)`` and ``advance(to:)`` move the clock — its date and its
/// ``elapsed`` time together — and wake every sleeper whose deadline has been
/// reached, earliest deadline first (ties in the order they began to sleep). No real
/// time passes and nothing is polled: to wait until the code under test has started
/// sleeping, await ``waitForSleepers(_:)``. ``setDate(_:)`` changes the date alone, as
/// a user setting the device's clock does.
///
/// ```swift
/// let clock = ManualClock()
/// let reminder = Task { try await clock.sleep(for: .seconds(300)); return "due" }
/// await clock.waitForSleepers(1)
/// clock.advance(by: .seconds(300))
/// #expect(try await reminder.value == "due")
/// ```
public final class ManualClock: DateClock {
    /// The date a clock starts at when none is given: 2026-01-01T00:00:00Z.
    public static let defaultStart = Date(timeIntervalSince1970: 1_767_225_600)

    /// The clock's two times.
    private struct Time: Sendable {
        var date: Date
        var elapsed: Duration = .zero

        /// Where `deadline` falls on the elapsed time.
        func due(_ deadline: Deadline) -> Duration {
            switch deadline {
            case .date(let date): elapsed + .seconds(date.timeIntervalSince(self.date))
            case .elapsed(let elapsed): elapsed
            }
        }

        func isDue(_ deadline: Deadline) -> Bool {
            switch deadline {
            case .date(let date): date <= self.date
            case .elapsed(let elapsed): elapsed <= self.elapsed
            }
        }

        /// Moves both times forward by `duration`.
        mutating func pass(_ duration: Duration) {
            guard duration > .zero else { return }
            date = date.addingTimeInterval(duration.timeInterval)
            elapsed += duration
        }
    }

    /// What a sleeper waits for: a date, or an amount of elapsed time.
    private enum Deadline: Sendable {
        case date(Date)
        case elapsed(Duration)
    }

    /// Sleepers, each with its deadline; the context is the clock's two times.
    private let sleepers: WaitingRoom<Deadline, Time>

    /// Creates a clock standing at `start`.
    /// - Parameter start: The clock's first date.
    public init(start: Date = ManualClock.defaultStart) {
        sleepers = WaitingRoom(context: Time(date: start))
    }

    /// The clock's current date; it changes only through ``advance(by:)``,
    /// ``advance(to:)`` and ``setDate(_:)``.
    public var now: Date {
        sleepers.withContext { $0.date }
    }

    /// The time the clock has been advanced by since it was made; ``setDate(_:)``
    /// leaves it as it is.
    public var elapsed: Duration {
        sleepers.withContext { $0.elapsed }
    }

    /// The number of tasks sleeping on this clock.
    public var sleeperCount: Int { sleepers.count }

    /// The dates the sleeping tasks wake at, earliest first: a sleeper for an elapsed
    /// time wakes at today's date plus what is left of its wait.
    public var pendingDeadlines: [Date] {
        let time = sleepers.withContext { $0 }
        return sleepers.tickets.map { time.date.addingTimeInterval((time.due($0) - time.elapsed).timeInterval) }.sorted()
    }

    /// Suspends until the clock's date is advanced to `deadline` or beyond; returns at
    /// once if it already is.
    /// - Parameter deadline: The date to wake at.
    /// - Throws: `CancellationError` if the task is cancelled while it sleeps.
    public func sleep(until deadline: Date) async throws {
        try await sleepers.wait(.date(deadline), unless: { $0.isDue(.date(deadline)) })
    }

    /// Suspends until the clock's elapsed time reaches `deadline`: setting its date
    /// does not wake it.
    /// - Parameter deadline: The elapsed time to wake at.
    /// - Throws: `CancellationError` if the task is cancelled while it sleeps.
    public func sleep(untilElapsed deadline: Duration) async throws {
        try await sleepers.wait(.elapsed(deadline), unless: { $0.isDue(.elapsed(deadline)) })
    }

    /// Moves the clock forward by `duration` and wakes the sleepers whose deadline
    /// has been reached. A zero or negative duration wakes what is due and leaves the clock.
    /// - Parameter duration: How far to move.
    public func advance(by duration: Duration) {
        release { $0.pass(duration) }
    }

    /// Moves the clock's date to `date`, and its elapsed time by as much, and wakes the
    /// sleepers whose deadline has been reached, earliest deadline first. The clock
    /// never moves backwards: a `date` before ``now`` leaves it as it is.
    /// - Parameter date: The date to move to.
    public func advance(to date: Date) {
        release { $0.pass(.seconds(date.timeIntervalSince($0.date))) }
    }

    /// Sets the clock's date to `date`, forwards or backwards, and wakes no sleeper —
    /// as a user changing the device's time. ``elapsed`` stays as it is. A sleeper
    /// whose date is passed wakes at the next ``advance(by:)`` or ``advance(to:)``. Use
    /// it to test code against a clock that was set back, or to look at a later date
    /// while nothing else runs.
    /// - Parameter date: The new date.
    public func setDate(_ date: Date) {
        sleepers.withContext { $0.date = date }
    }

    /// Suspends until at least `count` tasks are sleeping on this clock, so a test can
    /// advance time knowing the code under test is waiting for it.
    /// - Parameter count: The number of sleepers to wait for.
    public func waitForSleepers(_ count: Int = 1) async {
        await sleepers.waitForCount(count)
    }

    /// Suspends until a task sleeps on this clock with a deadline at or before `date`:
    /// the handshake for code that reschedules a sleep it already began, such as a
    /// background task asked to run sooner.
    /// - Parameter date: The latest deadline to wait for.
    public func waitForSleeper(wakingBy date: Date) async {
        await sleepers.waitUntil { deadlines, time in
            deadlines.contains { time.date.addingTimeInterval((time.due($0) - time.elapsed).timeInterval) <= date }
        }
    }

    /// Changes the time and wakes the sleepers now due, earliest first.
    private func release(_ change: (inout Time) -> Void) {
        var after = Time(date: .distantPast)
        sleepers.release(
            updating: { time in
                change(&time)
                after = time
            }, where: { deadline, time in time.isDue(deadline) }, ordered: { after.due($0) < after.due($1) })
    }
}
