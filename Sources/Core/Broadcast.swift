import Synchronization

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
        var nextID = 0
    }

    private let state: Mutex<State>

    /// Creates a broadcast holding `initial`.
    /// - Parameter initial: The value new subscribers receive first.
    public init(initial: Element) {
        state = Mutex(State(current: initial))
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
    /// - Returns: A stream that ends when ``finish()`` is called.
    public func subscribe(replayingCurrent: Bool = true) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: .unbounded)
        let id: Int = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        state.withLock { state in
            state.subscribers[id] = continuation
            if replayingCurrent { continuation.yield(state.current) }
        }
        return stream
    }

    /// Makes `value` the current value and delivers it to every subscriber.
    /// - Parameter value: The new value.
    public func send(_ value: Element) {
        state.withLock { state in
            state.current = value
            for continuation in state.subscribers.values { continuation.yield(value) }
        }
    }

    /// Makes `value` the current value that new subscribers receive first, without
    /// delivering it to the existing ones (for a refresh that is not a change).
    /// - Parameter value: The new current value.
    public func replace(_ value: Element) {
        state.withLock { $0.current = value }
    }

    /// Ends every subscriber's stream.
    public func finish() {
        let subscribers = state.withLock { state in
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        subscribers.forEach { $0.finish() }
    }
}
