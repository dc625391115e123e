import Foundation
import TrainCore

/// The devices following a ``LocalRemotePlanStore``'s commits, by scope, and the watch
/// over its file for commits made through other instances.
struct ChangeListeners: Sendable {
    var streams: [RemoteScope: [Int: AsyncStream<RemoteChangeSignal>.Continuation]] = [:]
    var nextID = 0
    /// The latest version signalled for each followed scope.
    var versions: [RemoteScope: UInt64] = [:]
    /// Watches the file while any scope is followed.
    var watch: Task<Void, Never>?
}

extension LocalRemotePlanStore {
    /// Signals each commit to `scope` through this store, with the replica that wrote;
    /// in a file, also each commit through another instance on the file — another
    /// process's — found within ``RemoteConfiguration/changePollInterval`` on the remote's
    /// clock, without the writer.
    /// - Parameter scope: The user and collection to follow.
    /// - Returns: A stream that ends when the consumer stops.
    public func changeSignals(for scope: RemoteScope) -> AsyncStream<RemoteChangeSignal> {
        let (stream, continuation) = AsyncStream<RemoteChangeSignal>.makeStream(bufferingPolicy: .bufferingNewest(16))
        // Registered before anything is read, so no commit after this call goes unsignalled.
        let id = listeners.withLock { listeners in
            let id = listeners.nextID
            listeners.nextID += 1
            listeners.streams[scope, default: [:]][id] = continuation
            listeners.versions[scope] = listeners.versions[scope] ?? 0
            if store.file != nil, listeners.watch == nil {
                // The file's commit count now: a commit by another process from here on is found.
                let seen = try? store.externalChangeCount()
                listeners.watch = Task { [weak self] in await self?.watchFile(from: seen) }
            }
            return id
        }
        let version = (try? headVersion(of: scope)) ?? 0
        listeners.withLock { listeners in
            if let known = listeners.versions[scope] { listeners.versions[scope] = max(known, version) }
        }
        continuation.onTermination = { [weak self] _ in
            self?.listeners.withLock { listeners in
                listeners.streams[scope]?[id] = nil
                if listeners.streams[scope]?.isEmpty == true {
                    listeners.streams[scope] = nil
                    listeners.versions[scope] = nil
                }
                if listeners.streams.isEmpty {
                    listeners.watch?.cancel()
                    listeners.watch = nil
                }
            }
        }
        return stream
    }

    /// Tells the devices following `scope` about a commit.
    func signal(_ signal: RemoteChangeSignal, in scope: RemoteScope) {
        let streams = listeners.withLock { listeners -> [AsyncStream<RemoteChangeSignal>.Continuation] in
            guard let followers = listeners.streams[scope] else { return [] }
            listeners.versions[scope] = max(listeners.versions[scope] ?? 0, signal.version)
            return Array(followers.values)
        }
        for stream in streams { stream.yield(signal) }
    }

    /// Looks, every poll interval, whether another connection committed to the file,
    /// and if so signals each followed scope whose version moved.
    private func watchFile(from count: UInt64?) async {
        var seen = count
        while !Task.isCancelled {
            do {
                try await context.clock.sleep(for: configuration.changePollInterval)
            } catch {
                return
            }
            guard let count = try? store.externalChangeCount(), count != seen else { continue }
            seen = count
            for scope in listeners.withLock({ Array($0.versions.keys) }) {
                guard let version = try? headVersion(of: scope) else { continue }
                let moved = listeners.withLock { listeners in (listeners.versions[scope]).map { version > $0 } ?? false }
                if moved { signal(RemoteChangeSignal(version: version, writer: nil), in: scope) }
            }
        }
    }

    /// The latest version of `scope`.
    private func headVersion(of scope: RemoteScope) throws -> UInt64 {
        try store.read { records in
            try records.value(forKey: RemoteRecords.key([.string(scope.collection), .string(scope.userID)]), in: RemoteRecords.heads)?.version ?? 0
        }
    }
}
