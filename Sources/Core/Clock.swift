import Foundation

/// The source of time for every rule that depends on it: freshness windows, expiry,
/// renewals, daily unlocks, backoff.
///
/// Services take a clock in their initializer. Production code passes
/// ``SystemClock``; tests pass `ManualClock` from TrainTesting, which moves only
/// when the test says so.
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
}

extension DateClock {
    /// Suspends for `duration` of this clock's time.
    /// - Parameter duration: How long to wait; zero or negative returns at once.
    /// - Throws: `CancellationError` if the task is cancelled while it waits.
    public func sleep(for duration: Duration) async throws {
        try await sleep(until: now.addingTimeInterval(duration.timeInterval))
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
}

extension Duration {
    /// The duration in seconds, as a `TimeInterval`.
    public var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
