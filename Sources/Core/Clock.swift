import Foundation

/// The source of time for every rule that depends on it: freshness windows, expiry,
/// renewals, daily unlocks, backoff.
///
/// Services take a clock in their initializer. Production code passes
/// ``SystemClock``; tests pass `ManualClock` from TrainTesting, which moves only
/// when the test says so.
///
/// A clock tells two times: ``now``, the date — which the user can set back or
/// forward — and ``elapsed``, time counted by a source that never goes back, for
/// what must keep moving when the date jumps (a retry in 30 seconds, a sync every 5
/// minutes).
///
/// ```swift
/// struct TokenCheck {
///     let clock: any DateClock
///     func isExpired(_ expiry: Date) -> Bool { clock.now > expiry }
/// }
/// let check = TokenCheck(clock: SystemClock())
/// ```
public protocol DateClock: Sendable {
    /// The current date.
    var now: Date { get }

    /// Suspends until the clock reaches `deadline`; returns at once if it has.
    /// - Parameter deadline: The date to wake at.
    /// - Throws: `CancellationError` if the task is cancelled while it waits.
    func sleep(until deadline: Date) async throws

    /// Time passed since a moment fixed for the life of the process, counted by a
    /// source that never goes back: setting the date back or forward does not change
    /// it. It starts again in the next process, so it orders events within one launch only.
    var elapsed: Duration { get }

    /// Suspends until ``elapsed`` reaches `deadline`; returns at once if it has. A
    /// change of the date while it waits neither shortens nor lengthens the wait.
    /// - Parameter deadline: The elapsed time to wake at.
    /// - Throws: `CancellationError` if the task is cancelled while it waits.
    func sleep(untilElapsed deadline: Duration) async throws
}

/// The moment ``SystemClock/elapsed`` counts from.
private let processStart = ContinuousClock.now

extension DateClock {
    /// The system's continuous time since the process began.
    public var elapsed: Duration { ContinuousClock.now - processStart }

    /// Sleeps until the date that is `deadline` minus ``elapsed`` from ``now``: a
    /// clock of your own that can tell elapsed time should implement it.
    /// - Parameter deadline: The elapsed time to wake at.
    /// - Throws: `CancellationError` if the task is cancelled while it waits.
    public func sleep(untilElapsed deadline: Duration) async throws {
        try await sleep(until: now.addingTimeInterval((deadline - elapsed).timeInterval))
    }

    /// Suspends for `duration` of ``elapsed`` time: a change of the date while it
    /// waits neither shortens nor lengthens the wait.
    /// - Parameter duration: How long to wait; zero or negative returns at once.
    /// - Throws: `CancellationError` if the task is cancelled while it waits.
    public func sleep(for duration: Duration) async throws {
        try await sleep(untilElapsed: elapsed + max(duration, .zero))
    }
}

/// The real clock: the system date, and sleeps that take real time.
public struct SystemClock: DateClock {
    /// Creates the system clock.
    public init() {}

    /// The system's current date.
    public var now: Date { Date() }

    /// Sleeps in real time until `deadline`.
    /// - Parameter deadline: The date to wake at.
    /// - Throws: `CancellationError` if the task is cancelled while it waits.
    public func sleep(until deadline: Date) async throws {
        let interval = deadline.timeIntervalSince(Date())
        guard interval > 0 else {
            try Task.checkCancellation()
            return
        }
        try await Task.sleep(for: .seconds(interval))
    }

    /// Sleeps on the system's continuous clock until ``elapsed`` reaches `deadline`,
    /// whatever happens to the date.
    /// - Parameter deadline: The elapsed time to wake at.
    /// - Throws: `CancellationError` if the task is cancelled while it waits.
    public func sleep(untilElapsed deadline: Duration) async throws {
        try await Task.sleep(until: processStart + deadline, clock: .continuous)
    }
}

/// Conversions of durations to Foundation's time intervals.
extension Duration {
    /// The duration in seconds, as a `TimeInterval`.
    public var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
