import Foundation
import Synchronization
import TrainCore

/// A clock for tests that starts at a fixed date and moves only when the test says
/// so (CORE-1).
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

    private struct Sleeper {
        let id: UInt64
        let deadline: Date
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct Waiter {
        let id: UInt64
        let count: Int
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var now: Date
        var sleepers: [Sleeper] = []
        var waiters: [Waiter] = []
        var cancelled: Set<UInt64> = []
        var nextID: UInt64 = 1

        mutating func makeID() -> UInt64 {
            defer { nextID += 1 }
            return nextID
        }

        /// Removes and returns the waiters that now see enough sleepers.
        mutating func satisfiedWaiters() -> [Waiter] {
            let ready = waiters.filter { $0.count <= sleepers.count }
            waiters.removeAll { $0.count <= sleepers.count }
            return ready
        }
    }

    private let state: Mutex<State>

    /// Creates a clock standing at `start`.
    /// - Parameter start: The clock's first date.
    public init(start: Date = ManualClock.defaultStart) {
        state = Mutex(State(now: start))
    }

    /// The clock's current date; it changes only through ``advance(by:)`` and ``advance(to:)``.
    public var now: Date {
        state.withLock { $0.now }
    }

    /// The number of tasks sleeping on this clock.
    public var sleeperCount: Int {
        state.withLock { $0.sleepers.count }
    }

    /// The deadlines of the sleeping tasks, earliest first.
    public var pendingDeadlines: [Date] {
        state.withLock { $0.sleepers.map(\.deadline).sorted() }
    }

    /// Suspends until the clock is advanced to `deadline` or beyond; returns at once
    /// if it already is.
    /// - Parameter deadline: The date to wake at.
    /// - Throws: `CancellationError` if the task is cancelled while it sleeps.
    public func sleep(until deadline: Date) async throws {
        let id = state.withLock { $0.makeID() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome { case wake, cancel, sleep([Waiter]) }
                let outcome: Outcome = state.withLock { state in
                    if state.cancelled.remove(id) != nil { return .cancel }
                    if deadline <= state.now { return .wake }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return .sleep(state.satisfiedWaiters())
                }
                switch outcome {
                case .wake: continuation.resume()
                case .cancel: continuation.resume(throwing: CancellationError())
                case .sleep(let waiters): waiters.forEach { $0.continuation.resume() }
                }
            }
        } onCancel: {
            let sleeper: Sleeper? = state.withLock { state in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
                    state.cancelled.insert(id)
                    return nil
                }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward by `duration` and wakes the sleepers whose deadline
    /// has been reached. A zero or negative duration wakes what is due and leaves the date.
    /// - Parameter duration: How far to move.
    public func advance(by duration: Duration) {
        let target = state.withLock { $0.now.addingTimeInterval(max(0, duration.timeInterval)) }
        advance(to: target)
    }

    /// Moves the clock to `date` and wakes the sleepers whose deadline has been
    /// reached, earliest deadline first. The clock never moves backwards: a `date`
    /// before ``now`` leaves the date as it is.
    /// - Parameter date: The date to move to.
    public func advance(to date: Date) {
        let due: [Sleeper] = state.withLock { state in
            state.now = max(state.now, date)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due.sorted { ($0.deadline, $0.id) < ($1.deadline, $1.id) }
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Suspends until at least `count` tasks are sleeping on this clock, so a test can
    /// advance time knowing the code under test is waiting for it.
    /// - Parameter count: The number of sleepers to wait for.
    public func waitForSleepers(_ count: Int = 1) async {
        let id = state.withLock { $0.makeID() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready: Bool = state.withLock { state in
                    if state.cancelled.remove(id) != nil || state.sleepers.count >= count { return true }
                    state.waiters.append(Waiter(id: id, count: count, continuation: continuation))
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            let waiter: Waiter? = state.withLock { state in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
                    state.cancelled.insert(id)
                    return nil
                }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume()
        }
    }
}
