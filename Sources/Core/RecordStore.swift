import Foundation
import Synchronization

/// The storage engine every service stands on: named collections of keyed
/// records, transactions that span several records and collections, and a schema
/// with ordered migrations — in memory, or in an SQLite file in WAL mode.
///
/// A service writes its logic once against `RecordStore`; its in-memory and
/// file-backed variants differ only in the store they are handed:
///
/// ```swift
/// let schema = StoreSchema(name: "notes", migrations: [.createCollections(version: 1, ["notes"])])
/// let notes = RecordCollection<String>("notes")
///
/// let store = try RecordStore(.file(directory.appendingPathComponent("app.sqlite")), schema: schema)
/// // or, for previews and tests: try RecordStore(.inMemory, schema: schema)
///
/// try store.write { records in
///     try records.put("Buy milk", forKey: "n1", in: notes)
///     try records.put("Call Ada", forKey: "n2", in: notes)   // commits with n1, or neither does
/// }
/// let first = try store.read { try $0.value(forKey: "n1", in: notes) }
/// ```
///
/// A store is safe to share between tasks and threads. Write transactions run one at
/// a time; read transactions run beside each other and beside a write, each on the
/// snapshot of the last commit before it began, so a long write never holds up a
/// reader (a UI reading on the main actor included). A transaction closure must not
/// call back into the same store (that throws ``TrainErrorCode/nestedTransaction``).
///
/// Records of a collection are ordered by the UTF-8 bytes of their keys, and read by
/// range in that order or its reverse (``RecordReader/records(in:range:direction:limit:)``);
/// ``RecordKey`` builds keys whose order is the order of their parts.
///
/// Keys are compared as their UTF-8 bytes in both variants: `"é"` written precomposed
/// and `"e\u{301}"` are two keys, and a key containing NUL is stored as it is. A
/// key is 1 to ``maximumKeyLength`` bytes.
///
/// Two stores on one file (an app and its extension, or two processes) see each
/// other's commits. A service that caches what it read compares
/// ``RecordReader/externalChangeCount`` with the value it cached at, inside the
/// transaction it is about to write in, to know when to read again.
public final class RecordStore: @unchecked Sendable {
    // Sendability: the mutable state is the writer, behind its lock, and the reader
    // pool, behind its own; each SQLite connection is opened with SQLITE_OPEN_NOMUTEX
    // because one thread at a time uses it (the writer's lock, or the pool's hand-off).
    /// How a file-backed store opens and writes.
    public struct Options: Sendable {
        /// What to do when the file is not a readable TrainKit store.
        public enum Recovery: Hashable, Sendable {
            /// Throw a ``CoreError`` naming the file; touch nothing. The default.
            case fail
            /// Move the file and its side files to `<name>.corrupt-<timestamp>` and
            /// start an empty store. Never applied to a file of a newer schema.
            case quarantine
        }

        /// How hard a commit works to survive a power loss.
        public enum Durability: Hashable, Sendable {
            /// `synchronous=FULL`: a commit that returned survives a crash and a power loss.
            case full
            /// `synchronous=NORMAL`: a commit survives a crash of the process; the last
            /// commits may be lost on power loss.
            case normal
        }

        /// What to do with a bad file.
        public var recovery: Recovery
        /// How durable each commit is.
        public var durability: Durability
        /// How long to wait for another connection's lock before throwing ``TrainErrorCode/busy``.
        public var busyTimeout: Duration
        /// Whether opening runs SQLite's `quick_check` over the whole file. Off by
        /// default: the check reads every page, so it costs the size of the store, and
        /// opening without it costs the same at a million records as at ten. A file that
        /// is not a store, or is cut short, is found from its header and schema either
        /// way; a damaged page is a ``TrainErrorCode/corrupt`` error naming the file on
        /// the read that reaches it. Turn it on, or call ``RecordStore/checkIntegrity()``,
        /// when there is a reason to look: a read reported `corrupt`, say, before
        /// reopening with ``Recovery/quarantine``.
        public var checksIntegrityOnOpen: Bool
        /// How many bytes of the file SQLite reads through a memory map instead of
        /// system calls; 0, the default, maps nothing, whatever default SQLite was built
        /// or configured with. A map makes reads of a large store faster (`train-bench`
        /// row ENGINE-SEEK-FILE-MAP), but a read of the mapped file that the system cannot
        /// serve ends the process with a bus error instead of throwing: on iOS, a file
        /// whose data protection keeps it locked while the device is, or a file another
        /// process cut short. Turn it on only for a file no other process shortens, with a
        /// protection class that allows reading whenever the app does. SQLite caps the
        /// size at a limit it was built with. A negative size is
        /// ``TrainErrorCode/invalidArgument``.
        public var memoryMapSize: Int
        /// The clock that timestamps a quarantined file's name.
        public var clock: any DateClock

        /// Creates options.
        /// - Parameters:
        ///   - recovery: What to do with a bad file; `.fail` unless the user agreed to start over.
        ///   - durability: How durable each commit is.
        ///   - busyTimeout: How long to wait for another connection's lock.
        ///   - checksIntegrityOnOpen: Whether opening checks every page; off by default.
        ///   - memoryMapSize: How many bytes of the file reads go through a memory map; none by default.
        ///   - clock: The clock that timestamps a quarantined file's name.
        public init(
            recovery: Recovery = .fail, durability: Durability = .full, busyTimeout: Duration = .seconds(5),
            checksIntegrityOnOpen: Bool = false, memoryMapSize: Int = 0, clock: any DateClock = SystemClock()
        ) {
            self.recovery = recovery
            self.durability = durability
            self.busyTimeout = busyTimeout
            self.checksIntegrityOnOpen = checksIntegrityOnOpen
            self.memoryMapSize = memoryMapSize
            self.clock = clock
        }
    }

    /// The schema this store was opened with.
    public let schema: StoreSchema
    /// The database file, or nil for an in-memory store.
    public let file: URL?
    /// Where a bad file was moved when the store was opened with `.quarantine`, or nil.
    public let quarantinedFile: URL?

    /// The longest key, in UTF-8 bytes: 16 KiB.
    public static let maximumKeyLength = 16_384

    /// The writing connection and what it has seen, behind the lock every write takes.
    private struct Writer {
        /// Nil once closed.
        var backend: (any StorageBackend)?
        /// The last `data_version` seen, and how often it changed: commits by other connections.
        var dataVersion: Int?
        var externalChanges: UInt64 = 0

        /// Reads the writer's data version and counts a change since the last one seen.
        /// The store's readers never commit, so every change is another store's commit.
        mutating func noteExternalChanges(_ backend: any StorageBackend) throws(CoreError) -> UInt64 {
            let version = try backend.dataVersion()
            if let seen = dataVersion, seen != version { externalChanges += 1 }
            dataVersion = version
            return externalChanges
        }
    }

    private let writer: Locked<Writer>
    private let readers: ReaderPool
    /// The writer's last count of external changes, for a read that finds it busy.
    private let lastExternalChanges = Atomic<UInt64>(0)
    private let commitCount = Atomic<UInt64>(0)
    /// Counts the write transactions committed through this store: a service that
    /// shows live state over the store — every device of a simulated world shares one —
    /// wakes on it and reads again. A commit through another store on the same file is
    /// not counted here (see ``externalChangeCount()``).
    public let commits = Broadcast<UInt64>(initial: 0)
    /// Why the store could not be set up, for a store made by ``inMemoryOrFailing(_:)``.
    private let failure: CoreError?
    /// The collections of this store's schema: name → name qualified by the schema.
    private let collections: [String: String]
    /// The threads inside one of this store's transactions, to refuse a nested call.
    private let threadsInTransactions = Locked([Int]())

    /// Opens a store: an empty one in memory, or the one in a file — created with
    /// owner-only permissions (and its directory) if it does not exist — and runs the
    /// migrations it has not seen.
    /// - Parameters:
    ///   - storage: In memory, or a file with its options.
    ///   - schema: The collections and their history.
    /// - Throws: ``TrainErrorCode/invalidMigrations`` for a bad migration list,
    ///   ``TrainErrorCode/migrationFailed`` if a migration throws, and for a file a
    ///   ``CoreError`` naming it: `notADatabase`, `corrupt`, `truncated`, `emptyFile`,
    ///   `foreignDatabase`, `newerSchema`, `busy` or `io`. A bad file is never replaced
    ///   unless its options say `.quarantine`.
    public convenience init(_ storage: StorageLocation, schema: StoreSchema) throws(CoreError) {
        try schema.validate()
        switch storage {
        case .inMemory:
            let database = MemoryDatabase()
            let backend = MemoryBackend(database)
            let collections = try Self.migrate(backend, schema: schema, file: nil)
            self.init(
                backend: backend, collections: collections, readers: ReaderPool(file: nil) { MemoryBackend(database) }, schema: schema,
                file: nil, quarantinedFile: nil)
        case .file(let file, let options):
            let opened = try StoreFile.open(file, options: options) { backend throws(CoreError) in
                try Self.migrate(backend, schema: schema, file: file)
            }
            let readers = ReaderPool(file: file) { () throws(CoreError) in try StoreFile.openReader(file, options: options) }
            self.init(
                backend: opened.backend, collections: opened.prepared, readers: readers, schema: schema, file: file,
                quarantinedFile: opened.quarantined)
        }
    }

    /// An in-memory store that cannot fail to open: if the schema is invalid or a
    /// migration throws, every call on the store throws that error instead. For
    /// services whose schema is their own, so that an in-memory service (a SwiftUI
    /// preview's) can be made without `try`.
    package static func inMemoryOrFailing(_ schema: StoreSchema) -> RecordStore {
        do {
            return try RecordStore(.inMemory, schema: schema)
        } catch {
            return RecordStore(failure: error, schema: schema)
        }
    }

    private init(
        backend: any StorageBackend, collections: [String: String], readers: ReaderPool, schema: StoreSchema, file: URL?,
        quarantinedFile: URL?
    ) {
        self.schema = schema
        self.file = file
        self.quarantinedFile = quarantinedFile
        self.failure = nil
        self.collections = collections
        self.readers = readers
        self.writer = Locked(Writer(backend: backend))
    }

    private init(failure: CoreError, schema: StoreSchema) {
        self.schema = schema
        self.file = nil
        self.quarantinedFile = nil
        self.failure = failure
        self.collections = [:]
        self.writer = Locked(Writer())
        self.readers = ReaderPool(file: nil) { () throws(CoreError) in throw failure }
    }

    deinit {
        close()
    }

    /// Runs the migrations newer than the stored version in one write transaction.
    private static func migrate(_ backend: any StorageBackend, schema: StoreSchema, file: URL?) throws(CoreError) -> [String: String] {
        // Most opens find nothing to migrate: read the catalog without taking the write lock.
        try backend.beginRead()
        let current: StorageCatalog
        do {
            current = try backend.catalog()
            backend.endRead()
        } catch {
            backend.endRead()
            throw error
        }
        if let stored = current.schemaVersions[schema.name], stored == schema.latestVersion {
            return collections(of: schema, in: current)
        }
        try backend.beginWrite()
        do throws(CoreError) {
            let catalog = try backend.catalog()
            let stored = catalog.schemaVersions[schema.name] ?? 0
            guard stored <= schema.latestVersion else {
                throw CoreError(
                    .newerSchema, file: file,
                    detail: "The schema '\(schema.name)' is at version \(stored); "
                        + "this version of the app knows up to \(schema.latestVersion).")
            }
            let writer = RecordWriter(
                backend: backend, schemaName: schema.name, file: file, collections: collections(of: schema, in: catalog),
                externalChangeCount: 0)
            defer { writer.isActive = false }
            for migration in schema.migrations where migration.version > stored {
                do {
                    try migration.apply(MigrationContext(records: writer))
                } catch let error as CoreError {
                    throw error
                } catch {
                    throw CoreError(
                        .migrationFailed, file: file,
                        detail: "Migration \(migration.version) of '\(schema.name)' (\(migration.summary)) failed: \(error).")
                }
                try backend.setVersion(migration.version, ofSchema: schema.name)
            }
            try backend.commitWrite()
            return writer.collections
        } catch {
            backend.rollbackWrite()
            throw error
        }
    }

    /// The collections of `schema` in `catalog`: name → name qualified by the schema.
    private static func collections(of schema: StoreSchema, in catalog: StorageCatalog) -> [String: String] {
        let prefix = schema.name + "/"
        var collections: [String: String] = [:]
        for name in catalog.collections where name.hasPrefix(prefix) { collections[String(name.dropFirst(prefix.count))] = name }
        return collections
    }

    /// Whether ``close()`` has been called.
    public var isClosed: Bool {
        writer.withLock { $0.backend == nil }
    }

    /// Reads records in one consistent snapshot: the last commit before the read
    /// began, whatever commits while `body` runs. Reads run beside each other and
    /// beside a write.
    /// - Parameter body: Reads through the reader it is given; must not call this store.
    /// - Returns: What `body` returns.
    /// - Throws: ``TrainErrorCode/closed`` after ``close()``, and whatever `body` throws.
    public func read<Result>(_ body: (RecordReader) throws -> Result) throws -> Result {
        try transaction { () throws -> Result in
            let backend = try readers.take()
            defer { readers.give(backend) }
            // Counted before the snapshot begins, so it never counts a commit the snapshot lacks.
            let externalChanges = try currentExternalChanges()
            try backend.beginRead()
            defer { backend.endRead() }
            let reader = RecordReader(
                backend: backend, schemaName: schema.name, file: file, collections: collections, externalChangeCount: externalChanges)
            defer { reader.isActive = false }
            return try body(reader)
        }
    }

    /// Reads and writes records in one atomic transaction: every change commits when
    /// `body` returns, or none does if it throws. Writes run one at a time; reads run
    /// beside them and see none of a write until it commits.
    /// - Parameter body: Reads and writes through the writer it is given; must not call this store.
    /// - Returns: What `body` returns.
    /// - Throws: ``TrainErrorCode/closed`` after ``close()``, ``TrainErrorCode/busy``
    ///   if another process holds the file locked past the busy timeout, and
    ///   whatever `body` throws (after rolling back).
    public func write<Result>(_ body: (RecordWriter) throws -> Result) throws -> Result {
        let result = try transaction { () throws -> Result in
            try writer.withLock { state throws -> Result in
                guard let backend = state.backend else { throw closedError }
                try backend.beginWrite()
                let writer: RecordWriter
                do {
                    let externalChanges = try state.noteExternalChanges(backend)
                    lastExternalChanges.store(externalChanges, ordering: .releasing)
                    writer = RecordWriter(
                        backend: backend, schemaName: schema.name, file: file, collections: collections,
                        externalChangeCount: externalChanges)
                } catch {
                    backend.rollbackWrite()
                    throw error
                }
                let result: Result
                do {
                    result = try body(writer)
                    writer.isActive = false
                } catch {
                    writer.isActive = false
                    backend.rollbackWrite()
                    throw error
                }
                try backend.commitWrite()
                return result
            }
        }
        commits.send(commitCount.wrappingAdd(1, ordering: .relaxed).newValue)
        return result
    }

    /// How many times this store has seen another connection — another store on the
    /// same file, in this process or another — commit changes, counted when this
    /// store starts a transaction or answers this call. Always 0 in memory.
    ///
    /// A service that caches state compares this with the count it cached at; inside
    /// a transaction, ``RecordReader/externalChangeCount`` gives the same count for
    /// the transaction's snapshot.
    /// - Returns: The count.
    /// - Throws: ``TrainErrorCode/closed`` after ``close()``, or a storage failure.
    public func externalChangeCount() throws(CoreError) -> UInt64 {
        if let failure { throw failure }
        guard file != nil else { return 0 }
        return try writer.withLock { state throws(CoreError) in
            guard let backend = state.backend else { throw closedError }
            let count = try state.noteExternalChanges(backend)
            lastExternalChanges.store(count, ordering: .releasing)
            return count
        }
    }

    /// ``externalChangeCount()`` without waiting: asked of the writer when it is free,
    /// else the count it last saw; 0 in memory, and for a store that cannot be read.
    /// For a check on every read of a value that other stores on the file may change.
    /// - Returns: The count.
    package func recentExternalChangeCount() -> UInt64 {
        (try? currentExternalChanges()) ?? lastExternalChanges.load(ordering: .acquiring)
    }

    /// Runs SQLite's `quick_check` over the whole file, beside other reads and writes.
    /// It reads every page, so it costs the size of the store; nothing to do in memory.
    /// - Throws: ``TrainErrorCode/corrupt`` naming the file if a page is damaged,
    ///   ``TrainErrorCode/closed`` after ``close()``, or a storage failure.
    public func checkIntegrity() throws(CoreError) {
        if let failure { throw failure }
        let backend = try readers.take()
        defer { readers.give(backend) }
        try backend.checkIntegrity()
    }

    /// Closes the store; later calls throw ``TrainErrorCode/closed``. Closing twice
    /// does nothing. A write in progress finishes first; a read in progress finishes
    /// on its snapshot.
    public func close() {
        readers.close()
        writer.withLock { state in
            state.backend?.close()
            state.backend = nil
        }
    }

    private var closedError: CoreError {
        CoreError(.closed, file: file, detail: "The store is closed.")
    }

    /// The external-change count for a read about to begin: asked of the writer when it
    /// is free; while a write holds it, the count that write saw, which is never ahead
    /// of what the read's snapshot holds (so a service comparing it reads again at
    /// worst once more than it needed, never once less).
    private func currentExternalChanges() throws(CoreError) -> UInt64 {
        guard file != nil else { return 0 }
        let fresh = try writer.withLockIfAvailable { state throws(CoreError) -> UInt64? in
            guard let backend = state.backend else { throw closedError }
            let count = try state.noteExternalChanges(backend)
            lastExternalChanges.store(count, ordering: .releasing)
            return count
        }
        return fresh.flatMap { $0 } ?? lastExternalChanges.load(ordering: .acquiring)
    }

    /// An identifier of the calling thread (cheaper than `Thread.current`).
    private static var currentThread: Int {
        Int(bitPattern: pthread_self())
    }

    /// Runs one transaction's `body`, refusing a call from inside another of this
    /// store's transactions on the same thread (which would deadlock, or read around
    /// its own uncommitted writes).
    private func transaction<Result>(_ body: () throws -> Result) throws -> Result {
        if let failure { throw failure }
        let thread = Self.currentThread
        // A short list rather than a set: a handful of threads at most, and no hashing.
        let entered = threadsInTransactions.withLock { threads in
            guard !threads.contains(thread) else { return false }
            threads.append(thread)
            return true
        }
        guard entered else {
            throw CoreError(
                .nestedTransaction, file: file,
                detail: "The store was called from inside one of its own transactions; use the reader or writer you were given.")
        }
        defer {
            threadsInTransactions.withLock { threads in
                guard let index = threads.firstIndex(of: thread) else { return }
                threads.swapAt(index, threads.count - 1)
                threads.removeLast()
            }
        }
        return try body()
    }
}

extension RecordStore {
    /// Reads as ``read(_:)`` does, throwing only a service's own error: one that `body`
    /// throws passes as is, and any other failure, the store's or `body`'s, becomes
    /// `failure(error)`, usually the service's storage code.
    /// - Parameters:
    ///   - failure: Makes the service's error of any other failure.
    ///   - body: Reads through the reader it is given; must not call this store.
    /// - Returns: What `body` returns.
    /// - Throws: `Failure`.
    public func read<Result, Failure: TrainError>(
        failingWith failure: (any Error) -> Failure, _ body: (RecordReader) throws -> Result
    ) throws(Failure) -> Result {
        do { return try read(body) } catch { throw error as? Failure ?? failure(error) }
    }

    /// Writes as ``write(_:)`` does, throwing only a service's own error: one that `body`
    /// throws passes as is, and any other failure, the store's or `body`'s, becomes
    /// `failure(error)`. Nothing is kept when it throws.
    /// - Parameters:
    ///   - failure: Makes the service's error of any other failure.
    ///   - body: Reads and writes through the writer it is given; must not call this store.
    /// - Returns: What `body` returns.
    /// - Throws: `Failure`.
    public func write<Result, Failure: TrainError>(
        failingWith failure: (any Error) -> Failure, _ body: (RecordWriter) throws -> Result
    ) throws(Failure) -> Result {
        do { return try write(body) } catch { throw error as? Failure ?? failure(error) }
    }
}
