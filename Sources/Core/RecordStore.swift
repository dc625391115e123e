import Foundation
import Synchronization

/// The storage engine every service stands on (CORE-3): named collections of keyed
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
/// let store = try RecordStore(fileAt: directory.appendingPathComponent("app.sqlite"), schema: schema)
/// // or, for previews and tests: try RecordStore(inMemory: schema)
///
/// try store.write { records in
///     try records.put("Buy milk", forKey: "n1", in: notes)
///     try records.put("Call Ada", forKey: "n2", in: notes)   // commits with n1, or neither does
/// }
/// let first = try store.read { try $0.value(forKey: "n1", in: notes) }
/// ```
///
/// Calls are serialized: a store is safe to share between tasks and threads.
/// A transaction closure must not call back into the same store (that throws
/// ``CoreError/Code/nestedTransaction``).
public final class RecordStore: @unchecked Sendable {
    // Sendability: `backend` is the only mutable state. It is read and written only
    // inside `lock.withLock`, and the SQLite connection it holds is opened with
    // SQLITE_OPEN_NOMUTEX because this lock serializes every use of it.
    /// How a file-backed store opens and writes.
    public struct Options: Sendable {
        /// What to do when the file is not a readable TrainKit store (CORE-4).
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
        /// How long to wait for another connection's lock before throwing ``CoreError/Code/busy``.
        public var busyTimeout: Duration
        /// Whether opening runs SQLite's `quick_check` over the whole file. It reads
        /// every page; turn it off for very large stores that open often.
        public var checksIntegrityOnOpen: Bool
        /// The clock that timestamps a quarantined file's name.
        public var clock: any DateClock

        /// Creates options.
        /// - Parameters:
        ///   - recovery: What to do with a bad file; `.fail` unless the user agreed to start over.
        ///   - durability: How durable each commit is.
        ///   - busyTimeout: How long to wait for another connection's lock.
        ///   - checksIntegrityOnOpen: Whether opening checks every page.
        ///   - clock: The clock that timestamps a quarantined file's name.
        public init(recovery: Recovery = .fail, durability: Durability = .full, busyTimeout: Duration = .seconds(5),
                    checksIntegrityOnOpen: Bool = true, clock: any DateClock = SystemClock()) {
            self.recovery = recovery
            self.durability = durability
            self.busyTimeout = busyTimeout
            self.checksIntegrityOnOpen = checksIntegrityOnOpen
            self.clock = clock
        }
    }

    /// The schema this store was opened with.
    public let schema: StoreSchema
    /// The database file, or nil for an in-memory store.
    public let file: URL?
    /// Where a bad file was moved when the store was opened with `.quarantine`, or nil.
    public let quarantinedFile: URL?

    private let lock = Mutex(())
    private var backend: (any StorageBackend)?
    private let collections: Set<String>
    /// The thread inside a transaction closure, to refuse a nested call instead of deadlocking.
    private let owner = Atomic<Int>(0)

    /// Creates an empty store in memory and runs the schema's migrations.
    /// - Parameter schema: The collections and their history.
    /// - Throws: ``CoreError/Code/invalidMigrations`` for a bad migration list,
    ///   ``CoreError/Code/migrationFailed`` if a migration throws.
    public convenience init(inMemory schema: StoreSchema) throws(CoreError) {
        try schema.validate()
        try self.init(backend: MemoryBackend(), schema: schema, file: nil, quarantinedFile: nil)
    }

    /// Opens the store in `file`, creating it (and its directory) with owner-only
    /// permissions if it does not exist, and runs the migrations it has not seen.
    /// - Parameters:
    ///   - file: The database file; the caller chooses one file per service or one per app.
    ///   - schema: The collections and their history.
    ///   - options: Recovery, durability, busy timeout and integrity check.
    /// - Throws: A ``CoreError`` naming the file: `notADatabase`, `corrupt`,
    ///   `truncated`, `emptyFile`, `foreignDatabase`, `newerSchema`, `busy`, `io`,
    ///   `invalidMigrations` or `migrationFailed`. A bad file is never replaced
    ///   unless `options.recovery` is `.quarantine`.
    public convenience init(fileAt file: URL, schema: StoreSchema, options: Options = Options()) throws(CoreError) {
        try schema.validate()
        let (backend, quarantined) = try StoreFile.open(file, options: options)
        try self.init(backend: backend, schema: schema, file: file, quarantinedFile: quarantined)
    }

    private init(backend: any StorageBackend, schema: StoreSchema, file: URL?, quarantinedFile: URL?) throws(CoreError) {
        self.schema = schema
        self.file = file
        self.quarantinedFile = quarantinedFile
        do {
            collections = try Self.migrate(backend, schema: schema, file: file)
            self.backend = backend
        } catch {
            backend.close()
            throw error
        }
    }

    deinit {
        backend?.close()
    }

    /// Runs the migrations newer than the stored version in one write transaction.
    private static func migrate(_ backend: any StorageBackend, schema: StoreSchema, file: URL?) throws(CoreError) -> Set<String> {
        try backend.beginWrite()
        do throws(CoreError) {
            let catalog = try backend.catalog()
            let stored = catalog.schemaVersions[schema.name] ?? 0
            guard stored <= schema.latestVersion else {
                throw CoreError(.newerSchema, file: file, detail: "The schema '\(schema.name)' is at version \(stored); "
                                + "this version of the app knows up to \(schema.latestVersion).")
            }
            let writer = RecordWriter(backend: backend, schemaName: schema.name, file: file, collections: catalog.collections)
            defer { writer.isActive = false }
            for migration in schema.migrations where migration.version > stored {
                do {
                    try migration.apply(MigrationContext(records: writer))
                } catch let error as CoreError {
                    throw error
                } catch {
                    throw CoreError(.migrationFailed, file: file,
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

    /// Whether ``close()`` has been called.
    public var isClosed: Bool {
        lock.withLock { _ in backend == nil }
    }

    /// Reads records in one consistent snapshot.
    /// - Parameter body: Reads through the reader it is given; must not call this store.
    /// - Returns: What `body` returns.
    /// - Throws: ``CoreError/Code/closed`` after ``close()``, and whatever `body` throws.
    public func read<Result>(_ body: (RecordReader) throws -> Result) throws -> Result {
        try withBackend { backend, collections in
            try backend.beginRead()
            defer { backend.endRead() }
            let reader = RecordReader(backend: backend, schemaName: schema.name, file: file, collections: collections)
            defer { reader.isActive = false }
            return try body(reader)
        }
    }

    /// Reads and writes records in one atomic transaction: every change commits when
    /// `body` returns, or none does if it throws.
    /// - Parameter body: Reads and writes through the writer it is given; must not call this store.
    /// - Returns: What `body` returns.
    /// - Throws: ``CoreError/Code/closed`` after ``close()``, ``CoreError/Code/busy``
    ///   if another process holds the file locked past the busy timeout, and
    ///   whatever `body` throws (after rolling back).
    public func write<Result>(_ body: (RecordWriter) throws -> Result) throws -> Result {
        try withBackend { backend, collections in
            try backend.beginWrite()
            let writer = RecordWriter(backend: backend, schemaName: schema.name, file: file, collections: collections)
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

    /// Closes the store; later calls throw ``CoreError/Code/closed``. Closing twice does nothing.
    public func close() {
        lock.withLock { _ in
            backend?.close()
            backend = nil
        }
    }

    private func withBackend<Result>(_ body: (any StorageBackend, Set<String>) throws -> Result) throws -> Result {
        let thread = ObjectIdentifier(Thread.current).hashValue
        guard owner.load(ordering: .acquiring) != thread else {
            throw CoreError(.nestedTransaction, file: file,
                            detail: "The store was called from inside one of its own transactions; use the reader or writer you were given.")
        }
        return try lock.withLock { _ throws -> Result in
            guard let backend else {
                throw CoreError(.closed, file: file, detail: "The store is closed.")
            }
            owner.store(thread, ordering: .releasing)
            defer { owner.store(0, ordering: .releasing) }
            return try body(backend, collections)
        }
    }
}
