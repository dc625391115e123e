import Foundation
import Synchronization
import TrainCore

/// The error a strict fake throws for a call nobody scripted.
public enum FakeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The named call was made, but the test scripted no result for it.
    case unimplemented(String)

    /// A sentence naming the call.
    public var description: String {
        switch self {
        case .unimplemented(let call): "unimplemented: \(call) was called, but the test scripted no result for it"
        }
    }
}

/// What every TrainKit fake can do, shared by all of them (TEST-1): record each call
/// (readable synchronously), fail the next or the n-th call, add latency on a test
/// clock, and hold calls suspended until the test releases them.
///
/// ```swift
/// let fake = FakeAuthService(clock: clock)
/// fake.controls.holdCalls()
/// let signIn = Task { try await fake.signInWithApple() }
/// await fake.controls.waitForHeldCalls(1)      // the view model is now "loading"
/// signIn.cancel()                              // or: fake.controls.releaseHeldCalls()
/// ```
public final class FakeControls<Call: Sendable>: Sendable {
    private struct Held {
        let id: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct Waiter {
        let id: UInt64
        let count: Int
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var calls: [Call] = []
        var nextFailure: (any Error)?
        var numberedFailures: [Int: any Error] = [:]
        var latency: Duration?
        var holding = false
        var held: [Held] = []
        var cancelledHolds: Set<UInt64> = []
        var waiters: [Waiter] = []
        var nextID: UInt64 = 1

        mutating func readyWaiters() -> [Waiter] {
            let ready = waiters.filter { $0.count <= held.count }
            waiters.removeAll { $0.count <= held.count }
            return ready
        }
    }

    private let state = Mutex(State())
    /// The clock latency is measured on; usually a `ManualClock`.
    public let clock: (any DateClock)?

    /// Creates controls.
    /// - Parameter clock: The clock latency sleeps on; without one, ``latency`` is ignored.
    public init(clock: (any DateClock)? = nil) {
        self.clock = clock
    }

    /// Every call made so far, in order, including calls still held or sleeping.
    public var calls: [Call] { state.withLock { $0.calls } }

    /// Forgets the recorded calls.
    public func clearCalls() {
        state.withLock { $0.calls.removeAll() }
    }

    /// Makes the next call throw `error` (after any hold and latency).
    /// - Parameter error: The error.
    public func failNextCall(with error: any Error) {
        state.withLock { $0.nextFailure = error }
    }

    /// Makes the `number`-th call (counting from 1, all calls of this fake) throw `error`.
    /// - Parameters:
    ///   - number: The call's position.
    ///   - error: The error.
    public func failCall(number: Int, with error: any Error) {
        state.withLock { $0.numberedFailures[number] = error }
    }

    /// How long each call takes on ``clock``; nil for no latency.
    public var latency: Duration? {
        get { state.withLock { $0.latency } }
        set { state.withLock { $0.latency = newValue } }
    }

    /// From now on, calls suspend until ``releaseHeldCalls()``.
    public func holdCalls() {
        state.withLock { $0.holding = true }
    }

    /// Resumes every held call and stops holding new ones.
    public func releaseHeldCalls() {
        let held = state.withLock { state in
            state.holding = false
            defer { state.held.removeAll() }
            return state.held
        }
        held.forEach { $0.continuation.resume() }
    }

    /// The number of calls suspended by ``holdCalls()``.
    public var heldCallCount: Int { state.withLock { $0.held.count } }

    /// Suspends until at least `count` calls are held, or the waiting task is cancelled.
    /// - Parameter count: The number of held calls to wait for.
    public func waitForHeldCalls(_ count: Int = 1) async {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready: Bool = state.withLock { state in
                    if state.cancelledHolds.remove(id) != nil || state.held.count >= count { return true }
                    state.waiters.append(Waiter(id: id, count: count, continuation: continuation))
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            let waiter: Waiter? = state.withLock { state in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
                    state.cancelledHolds.insert(id)
                    return nil
                }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume()
        }
    }

    /// Records `call`, then applies hold, latency and any injected failure. Every
    /// method of a fake starts with this.
    /// - Parameters:
    ///   - call: The call.
    ///   - canFail: False for a method that cannot throw: injected failures are left
    ///     for the next call that can.
    /// - Throws: An injected failure, or `CancellationError` if cancelled while held or sleeping.
    public func record(_ call: Call, canFail: Bool = true) async throws {
        let (number, holding, id) = state.withLock { state in
            state.calls.append(call)
            defer { state.nextID += 1 }
            return (state.calls.count, state.holding, state.nextID)
        }
        if holding { try await hold(id: id) }
        if let latency, let clock { try await clock.sleep(for: latency) }
        guard canFail else { return }
        let failure: (any Error)? = state.withLock { state in
            if let numbered = state.numberedFailures.removeValue(forKey: number) { return numbered }
            // A numbered failure that fell on a call that cannot fail moves to the next one.
            if let missed = state.numberedFailures.keys.filter({ $0 < number }).min() {
                return state.numberedFailures.removeValue(forKey: missed)
            }
            defer { state.nextFailure = nil }
            return state.nextFailure
        }
        if let failure { throw failure }
    }

    /// Records a call of a method that cannot suspend or throw.
    /// - Parameter call: The call.
    public func recordSynchronously(_ call: Call) {
        state.withLock { $0.calls.append(call) }
    }

    private func hold(id: UInt64) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // nil: the task was cancelled before it could be held.
                let waiters: [Waiter]? = state.withLock { state in
                    if state.cancelledHolds.remove(id) != nil { return nil }
                    state.held.append(Held(id: id, continuation: continuation))
                    return state.readyWaiters()
                }
                if let waiters {
                    waiters.forEach { $0.continuation.resume() }
                } else {
                    continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let held: Held? = state.withLock { state in
                guard let index = state.held.firstIndex(where: { $0.id == id }) else {
                    state.cancelledHolds.insert(id)
                    return nil
                }
                return state.held.remove(at: index)
            }
            held?.continuation.resume(throwing: CancellationError())
        }
    }
}
