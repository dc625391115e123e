import Foundation
import TrainCore

/// A clock for tests that starts at a fixed date and moves only when the test says
/// so.
///
/// ``advance(by:)`` and ``advance(to:)`` move the clock and wake every sleeper whose
/// deadline has been reached, earliest deadline first (ties in the order they began
/// to sleep). No real time passes and nothing is polled: to wait until the code
/// under test has started sleeping, await ``waitForSleepers(_:)``.
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

    /// Sleepers, each with its deadline; the context is the clock's date.
    private let sleepers: WaitingRoom<Date, Date>

    /// Creates a clock standing at `start`.
    /// - Parameter start: The clock's first date.
    public init(start: Date = ManualClock.defaultStart) {
        sleepers = WaitingRoom(context: start)
    }

    /// The clock's current date; it changes only through ``advance(by:)`` and ``advance(to:)``.
    public var now: Date {
        sleepers.withContext { $0 }
    }

    /// The number of tasks sleeping on this clock.
    public var sleeperCount: Int { sleepers.count }

    /// The deadlines of the sleeping tasks, earliest first.
    public var pendingDeadlines: [Date] { sleepers.tickets.sorted() }

    /// Suspends until the clock is advanced to `deadline` or beyond; returns at once
    /// if it already is.
    /// - Parameter deadline: The date to wake at.
    /// - Throws: `CancellationError` if the task is cancelled while it sleeps.
    public func sleep(until deadline: Date) async throws {
        try await sleepers.wait(deadline, unless: { now in deadline <= now })
    }

    /// Moves the clock forward by `duration` and wakes the sleepers whose deadline
    /// has been reached. A zero or negative duration wakes what is due and leaves the date.
    /// - Parameter duration: How far to move.
    public func advance(by duration: Duration) {
        let seconds = max(0, duration.timeInterval)
        sleepers.release(updating: { $0 = $0.addingTimeInterval(seconds) }, where: { deadline, now in deadline <= now }, ordered: <)
    }

    /// Moves the clock to `date` and wakes the sleepers whose deadline has been
    /// reached, earliest deadline first. The clock never moves backwards: a `date`
    /// before ``now`` leaves the date as it is.
    /// - Parameter date: The date to move to.
    public func advance(to date: Date) {
        sleepers.release(updating: { $0 = max($0, date) }, where: { deadline, now in deadline <= now }, ordered: <)
    }

    /// Sets the clock to `date`, forwards or backwards, and wakes no sleeper — as a user
    /// changing the device's time. A sleeper whose deadline is passed wakes at the next
    /// ``advance(by:)`` or ``advance(to:)``. Use it to test code against a clock that
    /// was set back, or to look at a later date while nothing else runs.
    /// - Parameter date: The new date.
    public func setDate(_ date: Date) {
        sleepers.withContext { $0 = date }
    }

    /// Suspends until at least `count` tasks are sleeping on this clock, so a test can
    /// advance time knowing the code under test is waiting for it.
    /// - Parameter count: The number of sleepers to wait for.
    public func waitForSleepers(_ count: Int = 1) async {
        await sleepers.waitForCount(count)
    }
}
