import Foundation

/// The connections a store's read transactions run on, beside its one writer: an idle
/// one is reused, a new one opened when all are busy, and at most
/// ``maximumIdle`` kept between reads.
final class ReaderPool: Sendable {
    /// The most idle connections kept open.
    static let maximumIdle = 4

    /// A connection in `idle` is used by no thread; `take()` hands it to one thread at a
    /// time and `give(_:)` takes it back, both under the lock.
    private struct State {
        var idle: [any StorageBackend] = []
        var isClosed = false
    }

    private let state = Locked(State())
    private let open: @Sendable () throws(CoreError) -> any StorageBackend
    private let file: URL?

    /// - Parameters:
    ///   - file: The store's file, for errors; nil in memory.
    ///   - open: Opens one more reading connection.
    init(file: URL?, open: @escaping @Sendable () throws(CoreError) -> any StorageBackend) {
        self.file = file
        self.open = open
    }

    /// A connection for one read transaction, used by the calling thread alone until it
    /// is given back.
    func take() throws(CoreError) -> any StorageBackend {
        let idle: (any StorageBackend)? = try state.withLock { state throws(CoreError) in
            guard !state.isClosed else { throw CoreError(.closed, file: file, detail: "The store is closed.") }
            return state.idle.popLast()
        }
        if let idle { return idle }
        return try open()
    }

    /// Takes back a connection from `take()`; closes it if the pool is closed or full.
    func give(_ backend: any StorageBackend) {
        let kept = state.withLock { state in
            guard !state.isClosed, state.idle.count < Self.maximumIdle else { return false }
            state.idle.append(backend)
            return true
        }
        if !kept { backend.close() }
    }

    /// Closes the idle connections; a connection in use is closed when it comes back.
    func close() {
        let idle = state.withLock { state in
            state.isClosed = true
            defer { state.idle = [] }
            return state.idle
        }
        for backend in idle { backend.close() }
    }
}
