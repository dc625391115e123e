import Foundation
import TrainCore

/// Why a sync is worth running now.
public enum SyncTrigger: Hashable, Sendable {
    /// An edit was saved on this device and waits for its upload.
    case localEdit
    /// The remote signalled a change made elsewhere.
    case remoteChange
}

extension SyncEngine {
    /// Each reason to sync as it happens: an edit saved on this device, or a commit
    /// the remote signals from another device to the signed-in user's records (one
    /// this device has downloaded already is not news). ``BackgroundSyncManager``
    /// follows it. The subscription exists when this returns.
    /// - Returns: A stream that ends when the consumer stops.
    public func syncTriggers() -> AsyncStream<SyncTrigger> {
        let (stream, continuation) = AsyncStream<SyncTrigger>.makeStream(bufferingPolicy: .bufferingNewest(8))
        let edits = localEdits.events()
        let users = auth.authStateChanges()
        var following = auth.currentUser.map { follow($0.id, into: continuation) }
        let followed = Locked(auth.currentUser?.id)
        let forwarding = Task {
            for await trigger in edits { continuation.yield(trigger) }
        }
        let switching = Task { [self] in
            for await user in users {
                let isNew = followed.withLock { followed in
                    defer { followed = user?.id }
                    return followed != user?.id
                }
                guard isNew else { continue }
                following?.cancel()
                following = user.map { follow($0.id, into: continuation) }
            }
            following?.cancel()
        }
        continuation.onTermination = { _ in
            forwarding.cancel()
            switching.cancel()
        }
        return stream
    }

    /// Forwards the remote's signals for `userID`'s records that are news to this
    /// device as ``SyncTrigger/remoteChange``, until cancelled.
    private func follow(_ userID: String, into continuation: AsyncStream<SyncTrigger>.Continuation) -> Task<Void, Never> {
        let scope = RemoteScope(userID: userID, collection: Record.recordType)
        let signals = remote.changeSignals(for: scope)
        return Task { [self] in
            for await signal in signals where isNews(signal, in: scope) { continuation.yield(.remoteChange) }
        }
    }

    /// Whether `signal` tells of a commit this device did not make and has not downloaded.
    private func isNews(_ signal: RemoteChangeSignal, in scope: RemoteScope) -> Bool {
        guard
            let (replica, cursor) = try? store.read({ records in
                (
                    try records.value(forKey: SyncRecords.replicaKey, in: SyncRecords.meta)?.id,
                    try records.value(forKey: try SyncRecords.scopeKey(scope), in: SyncRecords.cursors)?.version ?? 0
                )
            })
        else { return true }
        if let writer = signal.writer, writer == replica { return false }
        return signal.version == 0 || signal.version > cursor
    }

    /// The signed-in user's records now, then again each time they change on this
    /// device — an edit, a download, a deletion — or another user signs in; none while
    /// nobody is signed in. A list equal to the last one is not sent again.
    /// - Returns: A stream that ends when the consumer stops.
    public func recordUpdates() -> AsyncStream<[Record]> {
        // A consumer that reads slowly gets the latest list, not every one in between.
        let (stream, continuation) = AsyncStream<[Record]>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let writes = recordWrites.subscribe(replayingCurrent: false)
        let users = auth.authStateChanges()
        let last = Locked<[Record]?>(nil)
        let send: @Sendable () -> Void = { [weak self] in
            // Read and sent under one lock, so a list read earlier is never sent after a later one.
            last.withLock { last in
                let records = (try? self?.records()) ?? []
                guard last != records else { return }
                last = records
                continuation.yield(records)
            }
        }
        send()
        let following = Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await _ in writes { send() }
                }
                group.addTask {
                    for await _ in users { send() }
                }
            }
        }
        continuation.onTermination = { _ in following.cancel() }
        return stream
    }
}
