import Foundation
import Observation
import TrainCore

/// Suspends until `condition` holds: it is checked now, and again each time an
/// observable value it reads changes (Observation's tracking, with no polling), with a
/// watchdog of real time so that a value that never changes fails the test instead of
/// hanging it.
///
/// ```swift
/// let session = services.makeSessionManager()
/// await session.start()
/// _ = try await services.social.unlockFeed(workoutType: .run)
/// #expect(await waitUntil { session.isFeedUnlocked })
/// ```
/// - Parameters:
///   - limit: The watchdog: how long to wait at most, in real time; 30 seconds by
///     default, as a main actor shared by a whole parallel test run can be slow to
///     come back to a waiting test.
///   - condition: What must hold, read on the main actor.
/// - Returns: Whether the condition held before the watchdog ended the wait.
@MainActor
@discardableResult
public func waitUntil(within limit: Duration = .seconds(30), _ condition: @escaping @MainActor () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + limit
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        // Read and registered in one step on the main actor, where the values are
        // changed: a change cannot fall between them.
        let waiter = ChangeWaiter()
        let watchdog = Task.detached {
            try? await Task.sleep(until: deadline, clock: .continuous)
            waiter.resume()
        }
        await withCheckedContinuation { (changed: CheckedContinuation<Void, Never>) in
            waiter.set(changed)
            withObservationTracking {
                _ = condition()
            } onChange: {
                waiter.resume()
            }
        }
        watchdog.cancel()
    }
    return true
}

/// A continuation resumed once, by a change or by the watchdog, whichever comes first.
private final class ChangeWaiter: Sendable {
    private enum State: Sendable {
        case waiting
        case armed(CheckedContinuation<Void, Never>)
        case fired
    }

    private let state = Locked(State.waiting)

    /// Arms the waiter, or resumes at once if it has fired already.
    func set(_ continuation: CheckedContinuation<Void, Never>) {
        let hasFired = state.withLock { state in
            if case .fired = state { return true }
            state = .armed(continuation)
            return false
        }
        if hasFired { continuation.resume() }
    }

    /// Fires: resumes the armed continuation once; later calls do nothing.
    func resume() {
        let armed = state.withLock { state -> CheckedContinuation<Void, Never>? in
            defer { state = .fired }
            if case .armed(let continuation) = state { return continuation }
            return nil
        }
        armed?.resume()
    }
}
