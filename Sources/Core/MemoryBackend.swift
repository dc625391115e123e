import Foundation
import Synchronization

/// The records of an in-memory store, shared by its writing connection and its
/// reading ones, with the reads and writes of SQLite in WAL mode: a read sees the last
/// commit before it began, whatever commits while it runs, and never waits for a
/// write; one write at a time sees its own changes.
///
/// Each collection is a ``MemoryTree`` changed in place, and each record keeps its
/// versions (multi-version concurrency): a write stamps what it writes with its
/// version and keeps the value it replaced beside it; a read of snapshot `S` takes,
/// per record, the newest version at or below `S`. Committing is raising the committed
/// version (O(1)); rolling back puts back what the write replaced (O(what it wrote)).
/// Versions no read can ask for any more are dropped a few at a time by the writes
/// that follow, so a read never pays for them.
///
/// Chosen over SQLite's own in-memory database by measurement (`train-bench` rows
/// ENGINE-MEM-READ and ENGINE-MEM-PUT compare a point read and a single-record commit
/// with an in-memory SQLite database through the same store) and because an in-memory
/// SQLite database, without a write-ahead log, makes reads wait for a write. A
/// persistent (copy-on-write) tree was tried first: copying the path of every change
/// cost several microseconds a record at a million records, most of it reference
/// counting of the nodes and values each copy shares.
///
/// Every call holds one lock for the length of one operation, so a read waits at most
/// for one record's change, never for a transaction; a range read lets writes in every
/// ``MemoryBackend/entriesPerTurn`` entries, so a write waits at most for that many.
final class MemoryDatabase: Sendable {
    /// The one write transaction in progress.
    struct Write {
        /// The version its changes carry; committed, it becomes the committed version.
        var version: UInt64
        /// How many records it changed.
        var changes = 0
    }

    /// What the writing connection keeps of its write; it makes room for each change
    /// before taking the lock, so that growing the log never holds up a read.
    struct WriteLog {
        /// What puts back each change, in order.
        var undo: [Undo] = []
        /// The records changed that held a version before (or now hold a removal), to
        /// clean up once no read needs what they replaced; a record created needs none.
        var touched: [(collection: String, key: [UInt8])] = []
    }

    /// What puts back one change of a write transaction.
    enum Undo {
        /// The first change of a record: its slot and older versions before.
        case record(collection: String, key: [UInt8], slot: RecordSlot?, older: [RecordVersion]?)
        case created(String)
        case dropped(String, MemoryTree, [[UInt8]: [RecordVersion]]?)
        case version(String, Int?)
    }

    /// The snapshot a reading connection's read transaction holds, `UInt64.max` between
    /// reads. A read takes it under the lock (with its first operation) and gives it
    /// back without the lock: a write that misses the release only keeps a version a
    /// little longer.
    final class ReadSlot: Sendable {
        let snapshot = Atomic<UInt64>(.max)
    }

    struct State {
        var trees: [String: MemoryTree] = [:]
        var schemaVersions: [String: Int] = [:]
        /// The version of the last commit.
        var committed: UInt64 = 0
        /// The snapshot of each reading connection that has read.
        var readSlots: [ReadSlot] = []
        var write: Write?
        /// Versions older than a slot's previous one that a read still needs, by
        /// collection and key, oldest first.
        var older: [String: [[UInt8]: [RecordVersion]]] = [:]
        /// The records each commit changed, waiting until no read needs what they
        /// replaced, in commit order; `cleaned` counts those of the first commit already
        /// handled.
        var unsettled: [(version: UInt64, records: [(collection: String, key: [UInt8])])] = []
        var cleaned = 0
        /// Lists of records cleaned up, to be freed after the lock (freeing ten thousand
        /// keys takes long enough to hold up reads).
        var released: [[(collection: String, key: [UInt8])]] = []

        /// The oldest snapshot any read or future read may ask for.
        var horizon: UInt64 {
            readSlots.reduce(committed) { Swift.min($0, $1.snapshot.load(ordering: .acquiring)) }
        }

        /// Whether every record is settled: one version, at or below every snapshot (no
        /// read is older than the last commit), not a removal. Then a count is the
        /// tree's count.
        var isSettled: Bool { unsettled.isEmpty && (write?.changes ?? 0) == 0 && horizon == committed }
    }

    let state = Locked(State())
    /// Reads waiting for the lock. A write lets them in before it takes the lock again:
    /// a pthread mutex is not fair, and a write changing records back to back would
    /// otherwise take it again and again before a waiting read wakes.
    private let waitingReads = Atomic<Int>(0)

    /// How many times a read or a write tries the lock before it sleeps on it: an
    /// operation holds it for one record's change, a microsecond or two, while waking a
    /// thread that slept on a lock takes tens, and the system call that wakes it is paid
    /// by the thread that unlocks (a read, when the one asleep is a write).
    static let spins = 5_000

    /// Runs `body` under the lock, trying it ``spins`` times before sleeping on it.
    private func spinning<Result>(_ body: (inout State) -> Result) -> Result {
        for _ in 0..<Self.spins {
            if let result = state.withLockIfAvailable(body) { return result }
        }
        return state.withLock(body)
    }

    /// Runs a read's operation under the lock, ahead of a write's next change.
    func reading<Result>(_ body: (inout State) -> Result) -> Result {
        waitingReads.add(1, ordering: .relaxed)
        return spinning { state in
            waitingReads.subtract(1, ordering: .relaxed)
            return body(&state)
        }
    }

    /// Runs a write's operation under the lock once the reads waiting for it are in, or
    /// after a bounded wait: the reads' own turns are short, and the write tries the
    /// lock between them.
    func writing<Result>(_ body: (inout State) -> Result) -> Result {
        var yields = 0
        while waitingReads.load(ordering: .relaxed) > 0, yields < 1_000 {
            sched_yield()
            yields += 1
        }
        var released: [[(collection: String, key: [UInt8])]] = []
        let result = spinning { state in
            let result = body(&state)
            if !state.released.isEmpty { swap(&released, &state.released) }
            return result
        }
        released = [] // freed here, after the lock
        return result
    }

    /// How many records one change or commit cleans up at most: more than one, so
    /// cleaning keeps up with writing, and few, so that no operation holds the lock long.
    static let cleanupBatch = 4

    /// How many changes a rollback undoes under the lock at a time, letting reads in between.
    static let rollbackBatch = 256

    // MARK: - Versions

    /// The value of `slot` a read of `snapshot` sees, or nil if none. `older` is asked
    /// for the record's older versions only when neither kept in the slot will do.
    static func visible(_ slot: RecordSlot, at snapshot: UInt64, older: () -> [RecordVersion]?) -> Data? {
        if slot.current.version <= snapshot { return slot.current.value }
        if let previous = slot.previous, previous.version <= snapshot { return previous.value }
        return older()?.last { $0.version <= snapshot }?.value
    }

    /// Cleans up at most ``cleanupBatch`` records whose commits every read has passed:
    /// drops the versions no read can ask for, and the records whose last version is a
    /// removal.
    static func cleanUp(_ state: inout State) {
        let horizon = state.horizon
        var budget = cleanupBatch
        while budget > 0, let first = state.unsettled.first, first.version <= horizon {
            guard state.cleaned < first.records.count else {
                state.released.append(state.unsettled.removeFirst().records)
                state.cleaned = 0
                continue
            }
            let (collection, key) = first.records[state.cleaned]
            state.cleaned += 1
            budget -= 1
            if let tree = state.trees[collection] { prune(key, in: tree, collection: collection, horizon: horizon, &state.older) }
        }
        if let first = state.unsettled.first, state.cleaned == first.records.count {
            state.released.append(state.unsettled.removeFirst().records)
            state.cleaned = 0
        }
    }

    /// Keeps of `key`'s versions the newest at or below `horizon` (unless it is a
    /// removal) and every newer one; no read can ask for the others.
    static func prune(
        _ key: [UInt8], in tree: MemoryTree, collection: String, horizon: UInt64, _ older: inout [String: [[UInt8]: [RecordVersion]]]
    ) {
        key.withUnsafeBytes { bytes in
            tree.update(bytes) { slot in
                guard let current = slot else { return }
                guard let kept = older.isEmpty ? nil : older[collection]?[key] else {
                    // Only the two versions in the slot: the usual case, without allocating.
                    if current.current.version <= horizon {
                        slot = current.current.value == nil ? nil : RecordSlot(current: current.current, previous: nil)
                    } else if let previous = current.previous, previous.version <= horizon, previous.value == nil {
                        slot = RecordSlot(current: current.current, previous: nil)
                    }
                    return
                }
                var versions = kept
                if let previous = current.previous { versions.append(previous) }
                versions.append(current.current)
                if let kept = versions.lastIndex(where: { $0.version <= horizon }) {
                    versions.removeFirst(versions[kept].value == nil ? kept + 1 : kept)
                }
                if let last = versions.popLast() {
                    slot = RecordSlot(current: last, previous: versions.popLast())
                } else {
                    slot = nil
                }
                older[collection]?[key] = versions.isEmpty ? nil : versions
                if older[collection]?.isEmpty == true { older[collection] = nil }
            }
        }
    }
}

/// One connection to an in-memory store (see ``MemoryDatabase``): the store's writer,
/// or one of its readers. One thread uses it at a time (the store hands it out), so its
/// properties skip the runtime's exclusivity check.
final class MemoryBackend: StorageBackend {
    private let database: MemoryDatabase
    /// The snapshot this connection's read transaction sees, or its write's version.
    @exclusivity(unchecked) private var snapshot: UInt64 = 0
    /// Whether a read transaction began and has not taken its snapshot yet.
    @exclusivity(unchecked) private var snapshotPending = false
    /// Where this connection's read publishes its snapshot to writes.
    private let readSlot = MemoryDatabase.ReadSlot()
    /// Whether `readSlot` is among the database's.
    @exclusivity(unchecked) private var isRegistered = false
    /// The write in progress on this connection.
    @exclusivity(unchecked) private var log = MemoryDatabase.WriteLog()

    init(_ database: MemoryDatabase) {
        self.database = database
    }

    /// Runs a read operation under the lock with this connection's snapshot. The first
    /// operation of a read transaction takes the snapshot, in the same turn of the lock
    /// (as SQLite takes a read transaction's snapshot at its first read, not at `BEGIN`).
    private func reading<Result>(_ body: (inout MemoryDatabase.State, UInt64) -> Result) -> Result {
        let takes = snapshotPending
        snapshotPending = false
        return database.reading { state in
            if takes {
                if !isRegistered {
                    state.readSlots.append(readSlot)
                    isRegistered = true
                }
                readSlot.snapshot.store(state.committed, ordering: .releasing)
                snapshot = state.committed
            }
            return body(&state, snapshot)
        }
    }

    private func writing<Result>(_ body: (inout MemoryDatabase.State) -> Result) -> Result {
        database.writing(body)
    }

    func catalog() -> StorageCatalog {
        database.reading { StorageCatalog(collections: Set($0.trees.keys), schemaVersions: $0.schemaVersions) }
    }

    /// Nothing else can write to this memory.
    func dataVersion() -> Int { 0 }

    func beginRead() {
        snapshotPending = true
    }

    /// Ends a read, without the lock; what it kept alive is cleaned up by the writes
    /// that follow, so a read never pays for cleaning.
    func endRead() {
        snapshotPending = false
        readSlot.snapshot.store(.max, ordering: .releasing)
    }

    func beginWrite() {
        snapshot = writing { state in
            state.write = MemoryDatabase.Write(version: state.committed + 1)
            return state.committed + 1
        }
    }

    func commitWrite() {
        let touched = log.touched
        writing { state in
            guard let write = state.write.take() else { return }
            state.committed = write.version
            if !touched.isEmpty { state.unsettled.append((write.version, touched)) }
            MemoryDatabase.cleanUp(&state)
        }
        // The log is emptied after the lock, so freeing it holds up no read; a small
        // one keeps its room for the next write.
        log.touched = []
        if log.undo.capacity > 1_024 { log.undo = [] } else { log.undo.removeAll(keepingCapacity: true) }
    }

    /// Puts back everything the write changed, a batch at a time: no read sees the
    /// write's version, so reads may run between the batches. A record put back with
    /// versions to clean up (cleaning may have passed it while the write ran) waits to
    /// be cleaned again.
    func rollbackWrite() {
        var undo = log.undo
        log = MemoryDatabase.WriteLog()
        var restored: [(collection: String, key: [UInt8])] = []
        while !undo.isEmpty {
            let batch = undo.suffix(MemoryDatabase.rollbackBatch)
            undo.removeLast(batch.count)
            writing { state in Self.undo(batch.reversed(), &state, restored: &restored) }
        }
        writing { state in
            state.write = nil
            if !restored.isEmpty { state.unsettled.append((state.committed, restored)) }
        }
    }

    private static func undo(
        _ steps: some Sequence<MemoryDatabase.Undo>, _ state: inout MemoryDatabase.State, restored: inout [(collection: String, key: [UInt8])]
    ) {
        for step in steps {
            switch step {
            case .record(let collection, let key, let slot, let older):
                key.withUnsafeBytes { bytes in state.trees[collection]?.update(bytes) { $0 = slot } }
                state.older[collection, default: [:]][key] = older
                if let slot, slot.previous != nil || slot.current.value == nil || older != nil { restored.append((collection, key)) }
            case .created(let collection):
                state.trees[collection] = nil
                state.older[collection] = nil
            case .dropped(let collection, let tree, let older):
                state.trees[collection] = tree
                state.older[collection] = older
            case .version(let schema, let version):
                state.schemaVersions[schema] = version
            }
        }
    }

    // MARK: - Reading

    func value(forKey key: String, in collection: String) -> Data? {
        var key = key
        return key.withUTF8 { bytes in
            reading { state, snapshot in
                guard let slot = state.trees[collection]?.slot(forKey: UnsafeRawBufferPointer(bytes)) else { return nil }
                return MemoryDatabase.visible(slot, at: snapshot) { state.older[collection]?[Array(bytes)] }
            }
        }
    }

    /// How many entries a range read walks in one turn of the lock. A longer read lets
    /// writes in between its turns and goes on from the last key it walked, on the same
    /// snapshot, so a read of a whole collection never holds a write up for long.
    static let entriesPerTurn = 256

    /// Calls `body` with each record of `range` this connection sees, in `direction`, at most `limit`.
    private func forEachVisible(
        in collection: String, range: KeyRange, direction: ScanDirection, limit: Int, _ body: (UnsafeRawBufferPointer, Data) -> Void
    ) {
        var remaining = limit
        var range = ByteRange(range)
        while remaining > 0 {
            // The last key walked when the turn ended with more to walk, or nil at the end.
            let resumeAfter: [UInt8]? = reading { state, snapshot in
                guard let tree = state.trees[collection] else { return nil }
                var walked = 0
                var last: [UInt8]?
                tree.forEach(in: range, direction: direction) { key, slot in
                    walked += 1
                    if let value = MemoryDatabase.visible(slot, at: snapshot, older: { state.older[collection]?[Array(key)] }) {
                        body(key, value)
                        remaining -= 1
                        if remaining == 0 { return false }
                    }
                    if walked == Self.entriesPerTurn {
                        last = Array(key)
                        return false
                    }
                    return true
                }
                return last
            }
            guard let resumeAfter else { return }
            switch direction {
            case .forward: range.lower = .excluded(resumeAfter)
            case .reverse: range.upper = .excluded(resumeAfter)
            }
        }
    }

    func records(in collection: String, range: KeyRange, direction: ScanDirection, limit: Int) -> [StoredRecord] {
        var records: [StoredRecord] = []
        forEachVisible(in: collection, range: range, direction: direction, limit: limit) { key, value in
            records.append(StoredRecord(key: String(decoding: key, as: UTF8.self), data: value))
        }
        return records
    }

    func forEachRecord(
        in collection: String, range: KeyRange, direction: ScanDirection, limit: Int,
        _ body: (UnsafeBufferPointer<UInt8>, UnsafeRawBufferPointer) throws(CoreError) -> Void
    ) throws(CoreError) {
        // Listed first: the tree is walked under its lock, which `body` must not hold.
        for record in records(in: collection, range: range, direction: direction, limit: limit) {
            var key = record.key
            var failure: CoreError?
            key.withUTF8 { key in
                record.data.withUnsafeBytes { value in
                    do throws(CoreError) { try body(key, value) } catch { failure = error }
                }
            }
            if let failure { throw failure }
        }
    }

    func keys(in collection: String, range: KeyRange, direction: ScanDirection, limit: Int) -> [String] {
        var keys: [String] = []
        forEachVisible(in: collection, range: range, direction: direction, limit: limit) { key, _ in
            keys.append(String(decoding: key, as: UTF8.self))
        }
        return keys
    }

    func count(in collection: String, range: KeyRange) -> Int {
        let settled = reading { state, _ in state.isSettled ? state.trees[collection]?.count(in: ByteRange(range)) ?? 0 : nil }
        if let settled { return settled }
        var count = 0
        forEachVisible(in: collection, range: range, direction: .forward, limit: .max) { _, _ in count += 1 }
        return count
    }

    // MARK: - Writing

    func put(_ value: Data, forKey key: String, in collection: String) {
        write(value, forKey: key, in: collection)
    }

    func insert(_ value: Data, forKey key: String, in collection: String) -> Bool {
        guard self.value(forKey: key, in: collection) == nil else { return false }
        write(value, forKey: key, in: collection)
        return true
    }

    func removeValue(forKey key: String, in collection: String) {
        write(nil, forKey: key, in: collection)
    }

    /// Writes a version of `key` (nil: a removal) in this connection's write.
    private func write(_ value: Data?, forKey key: String, in collection: String) {
        let bytes = Array(key.utf8)
        // Room for this change in the log, made before the lock: growing the log under
        // it would hold up reads.
        if log.undo.count == log.undo.capacity { log.undo.reserveCapacity(Swift.max(16, log.undo.count * 2)) }
        if log.touched.count == log.touched.capacity { log.touched.reserveCapacity(Swift.max(16, log.touched.count * 2)) }
        writing { state in
            guard let tree = state.trees[collection], var write = state.write else { return }
            Self.change(bytes, to: value, in: tree, collection: collection, write: &write, log: &log, state: &state)
            state.write = write
            MemoryDatabase.cleanUp(&state)
        }
    }

    /// Gives `key` a new version of this write, remembering at its first change what
    /// puts it back, and keeping the version it replaces for the reads that may ask.
    private static func change(
        _ key: [UInt8], to value: Data?, in tree: MemoryTree, collection: String, write: inout MemoryDatabase.Write,
        log: inout MemoryDatabase.WriteLog, state: inout MemoryDatabase.State
    ) {
        key.withUnsafeBytes { bytes in
            tree.update(bytes) { slot in
                if let existing = slot, existing.current.version == write.version {
                    // Changed before in this write: only the newest value changes.
                    if value == nil, existing.previous == nil, state.older[collection]?[key] == nil {
                        slot = nil // created by this write and removed again: it never was
                    } else {
                        slot?.current.value = value
                    }
                    return
                }
                guard value != nil || slot?.current.value != nil else { return } // removing what is not there
                let older = state.older.isEmpty ? nil : state.older[collection]?[key]
                log.undo.append(.record(collection: collection, key: key, slot: slot, older: older))
                write.changes += 1
                guard let existing = slot else {
                    slot = RecordSlot(current: RecordVersion(value: value, version: write.version), previous: nil)
                    return
                }
                // A read in progress older than the replaced version may still need the one
                // before it; a read that begins later sees the replaced version or newer.
                if let previous = existing.previous, state.horizon < existing.current.version {
                    state.older[collection, default: [:]][key, default: []].append(previous)
                }
                slot = RecordSlot(current: RecordVersion(value: value, version: write.version), previous: existing.current)
                log.touched.append((collection, key))
            }
        }
    }

    /// Removes each record this write sees, one turn of the lock at a time, as that many
    /// removals would.
    func removeAll(in collection: String) {
        for key in keys(in: collection, range: .all, direction: .forward, limit: .max) {
            write(nil, forKey: key, in: collection)
        }
    }

    func createCollection(_ collection: String) {
        let created = writing { state in
            guard state.trees[collection] == nil else { return false }
            state.trees[collection] = MemoryTree()
            return true
        }
        if created { log.undo.append(.created(collection)) }
    }

    func dropCollection(_ collection: String) {
        let dropped = writing { state -> MemoryDatabase.Undo? in
            guard let tree = state.trees.removeValue(forKey: collection) else { return nil }
            return .dropped(collection, tree, state.older.removeValue(forKey: collection))
        }
        if let dropped { log.undo.append(dropped) }
    }

    func setVersion(_ version: Int, ofSchema schema: String) {
        let previous = writing { state in
            defer { state.schemaVersions[schema] = version }
            return state.schemaVersions[schema]
        }
        log.undo.append(.version(schema, previous))
    }

    /// Memory cannot be damaged the way a file can.
    func checkIntegrity() {}

    /// A reader or writer has nothing of its own to close: the database goes with the store.
    func close() {
        readSlot.snapshot.store(.max, ordering: .releasing)
        guard isRegistered else { return }
        isRegistered = false
        database.reading { state in state.readSlots.removeAll { $0 === readSlot } }
    }
}
