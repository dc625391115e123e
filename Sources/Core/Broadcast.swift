/// A value that many subscribers follow as an `AsyncStream`: each subscriber gets
/// the current value first, then every value sent after it subscribed, in order.
/// Cancelling a subscriber's task (or dropping its stream) removes it.
///
/// Services use it for their state streams (the signed-in user, the subscription
/// tier, the sync status).
///
/// ```swift
/// let tier = Broadcast(initial: "free")
/// let updates = tier.subscribe()      // yields "free" first
/// tier.send("pro")                    // every subscriber gets "pro"
/// ```
public final class Broadcast<Element: Sendable>: Sendable {
    private struct State {
        var current: Element
        var subscribers: [Int: AsyncStream<Element>.Continuation] = [:]
        /// Set by `finish()`: a later subscriber's stream ends at once.
        var isFinished = false
        var nextID = 0
        /// Tasks waiting for a number of subscribers.
        var waiters: [(id: Int, count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        /// Waiters cancelled before they could wait.
        var cancelledWaiters: Set<Int> = []

        /// Removes and returns the waiters that now see enough subscribers.
        mutating func satisfiedWaiters() -> [CheckedContinuation<Void, Never>] {
            let ready = waiters.filter { $0.count <= subscribers.count }
            waiters.removeAll { $0.count <= subscribers.count }
            return ready.map(\.continuation)
        }
    }

    private let state: Locked<State>
    /// Held while a value is handed over, never with `state` taken first.
    /// Counts the values handed over. Not `Locked(())`: a stored property of no size
    /// shares its address with the lock's pointer, and the thread sanitizer takes the
    /// unlocked read of the pointer for a race with the locked write of the value.
    private let delivery = Locked<UInt64>(0)

    /// Creates a broadcast holding `initial`.
    /// - Parameter initial: The value new subscribers receive first.
    public init(initial: Element) {
        state = Locked(State(current: initial))
    }

    /// The latest value.
    public var value: Element {
        state.withLock { $0.current }
    }

    /// The number of live subscribers.
    public var subscriberCount: Int {
        state.withLock { $0.subscribers.count }
    }

    /// Returns a stream that yields the current value (unless `replayingCurrent` is
    /// false), then every value sent later.
    /// - Parameter replayingCurrent: Whether the stream starts with the current value.
    /// - Returns: A stream that ends when ``finish()`` is called; subscribed after
    ///   `finish()`, it yields the current value (if asked) and ends at once.
    public func subscribe(replayingCurrent: Bool = true) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: .unbounded)
        let id: Int = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>]? in
            if replayingCurrent { continuation.yield(state.current) }
            guard !state.isFinished else { return nil }
            state.subscribers[id] = continuation
            return state.satisfiedWaiters()
        }
        // Finished outside the lock: finishing runs `onTermination`, which takes it.
        guard let ready else {
            continuation.finish()
            return stream
        }
        for waiter in ready { waiter.resume() }
        return stream
    }

    /// Suspends until at least `count` subscribers are subscribed, or the waiting task
    /// is cancelled — so a test can send a value knowing the code under test listens.
    /// - Parameter count: The number of subscribers to wait for.
    public func waitForSubscribers(_ count: Int = 1) async {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready: Bool = state.withLock { state in
                    if state.cancelledWaiters.remove(id) != nil || state.subscribers.count >= count { return true }
                    state.waiters.append((id, count, continuation))
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
                    state.cancelledWaiters.insert(id)
                    return nil
                }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume()
        }
    }

    /// Makes `value` the current value and delivers it to every subscriber.
    /// - Parameter value: The new value.
    public func send(_ value: Element) {
        send(value, if: { _ in true })
    }

    /// Makes `value` the current value and delivers it, if the current value passes
    /// `condition` — checked and replaced in one step, so no other send comes between.
    /// - Parameters:
    ///   - value: The new value.
    ///   - condition: Whether the current value may be replaced. It runs under the
    ///     broadcast's locks: it must not use this broadcast.
    /// - Returns: Whether `value` was sent.
    @discardableResult
    public func send(_ value: Element, if condition: (Element) -> Bool) -> Bool {
        // Values are handed over outside the state lock: handing one over resumes the
        // subscriber's task, and a task being cancelled at that moment holds its own lock
        // while its stream's termination takes the state lock. The delivery lock keeps
        // concurrent sends in one order for every subscriber.
        delivery.withLock { delivered in
            let subscribers = state.withLock { state -> [AsyncStream<Element>.Continuation]? in
                guard condition(state.current) else { return nil }
                state.current = value
                return Array(state.subscribers.values)
            }
            guard let subscribers else { return false }
            delivered &+= 1
            for continuation in subscribers { continuation.yield(value) }
            return true
        }
    }

    /// Makes `value` the current value that new subscribers receive first, without
    /// delivering it to the existing ones (for a refresh that is not a change).
    /// - Parameter value: The new current value.
    public func replace(_ value: Element) {
        state.withLock { $0.current = value }
    }

    /// Ends every subscriber's stream, and the stream of anyone who subscribes later.
    public func finish() {
        let subscribers = state.withLock { state in
            state.isFinished = true
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }
}

extension Broadcast {
    /// The non-nil values sent from now on, for a broadcast of optional values used to
    /// announce events (a revocation, a renewal) rather than to hold a state. The
    /// subscription exists from the moment this returns.
    /// - Returns: A stream that ends when ``finish()`` is called or its consumer is cancelled.
    public func events<Wrapped: Sendable>() -> AsyncStream<Wrapped> where Element == Wrapped? {
        let source = subscribe(replayingCurrent: false)
        return AsyncStream { continuation in
            let forward = Task {
                for await value in source {
                    if let value { continuation.yield(value) }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in forward.cancel() }
        }
    }
}
