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
    private struct State {
        var calls: [Call] = []
        var nextFailure: (any Error)?
        var numberedFailures: [Int: any Error] = [:]
        var latency: Duration?
    }

    private let state = Mutex(State())
    /// Held calls; the context is whether new calls are held.
    private let held = WaitingRoom<Void, Bool>(context: false)
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
        held.withContext { $0 = true }
    }

    /// Resumes every held call and stops holding new ones.
    public func releaseHeldCalls() {
        held.release(updating: { $0 = false }, where: { _, _ in true }, ordered: { _, _ in false })
    }

    /// The number of calls suspended by ``holdCalls()``.
    public var heldCallCount: Int { held.count }

    /// Suspends until at least `count` calls are held, or the waiting task is cancelled.
    /// - Parameter count: The number of held calls to wait for.
    public func waitForHeldCalls(_ count: Int = 1) async {
        await held.waitForCount(count)
    }

    /// Records `call`, then applies hold, latency and any injected failure. Every
    /// method of a fake starts with this.
    /// - Parameters:
    ///   - call: The call.
    ///   - canFail: False for a method that cannot throw: injected failures are left
    ///     for the next call that can.
    /// - Throws: An injected failure, or `CancellationError` if cancelled while held or sleeping.
    public func record(_ call: Call, canFail: Bool = true) async throws {
        let number = state.withLock { state in
            state.calls.append(call)
            return state.calls.count
        }
        if held.withContext({ $0 }) {
            // Registered only if calls are still held by the time it gets the lock.
            try await held.wait((), unless: { holding in !holding })
        }
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
}
