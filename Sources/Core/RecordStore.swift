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
/// Calls are serialized: a store is safe to share between tasks and threads.
/// A transaction closure must not call back into the same store (that throws
/// ``CoreError/Code/nestedTransaction``).
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
    // Sendability: the only mutable state is `state`, behind its lock; the SQLite
    // connection the backend holds is opened with SQLITE_OPEN_NOMUTEX because that
    // lock serializes every use of it.
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
        public init(
            recovery: Recovery = .fail, durability: Durability = .full, busyTimeout: Duration = .seconds(5),
            checksIntegrityOnOpen: Bool = true, clock: any DateClock = SystemClock()
        ) {
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

    /// The longest key, in UTF-8 bytes: 16 KiB.
    public static let maximumKeyLength = 16_384

    /// What changes while the store is open, behind one lock.
    private struct State {
        /// The records' place; nil once closed.
        var backend: (any StorageBackend)?
        /// The last `data_version` seen, and how often it changed: commits by other connections.
        var dataVersion: Int?
        var externalChanges: UInt64 = 0

        /// Reads the backend's data version inside a transaction and counts a change
        /// since the last one seen.
        mutating func noteExternalChanges(_ backend: any StorageBackend) throws(CoreError) -> UInt64 {
            let version = try backend.dataVersion()
            if let seen = dataVersion, seen != version { externalChanges += 1 }
            dataVersion = version
            return externalChanges
        }
    }

    private let state: Locked<State>
    /// Why the store could not be set up, for a store made by ``inMemoryOrFailing(_:)``.
    private let failure: CoreError?
    /// The collections of this store's schema: name → name qualified by the schema.
    private let collections: [String: String]
    /// The thread inside a transaction closure, to refuse a nested call instead of deadlocking.
    private let owner = Atomic<Int>(0)

    /// Opens a store: an empty one in memory, or the one in a file — created with
    /// owner-only permissions (and its directory) if it does not exist — and runs the
    /// migrations it has not seen.
    /// - Parameters:
    ///   - storage: In memory, or a file with its options.
    ///   - schema: The collections and their history.
    /// - Throws: ``CoreError/Code/invalidMigrations`` for a bad migration list,
    ///   ``CoreError/Code/migrationFailed`` if a migration throws, and for a file a
    ///   ``CoreError`` naming it: `notADatabase`, `corrupt`, `truncated`, `emptyFile`,
    ///   `foreignDatabase`, `newerSchema`, `busy` or `io`. A bad file is never replaced
    ///   unless its options say `.quarantine`.
    public convenience init(_ storage: Storage, schema: StoreSchema) throws(CoreError) {
        try schema.validate()
        switch storage {
        case .inMemory:
            try self.init(backend: MemoryBackend(), schema: schema, file: nil, quarantinedFile: nil)
        case .file(let file, let options):
            let (backend, quarantined) = try StoreFile.open(file, options: options)
            try self.init(backend: backend, schema: schema, file: file, quarantinedFile: quarantined)
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

    private init(backend: any StorageBackend, schema: StoreSchema, file: URL?, quarantinedFile: URL?) throws(CoreError) {
        self.schema = schema
        self.file = file
        self.quarantinedFile = quarantinedFile
        self.failure = nil
        do {
            collections = try Self.migrate(backend, schema: schema, file: file)
            state = Locked(State(backend: backend))
        } catch {
            backend.close()
            throw error
        }
    }

    private init(failure: CoreError, schema: StoreSchema) {
        self.schema = schema
        self.file = nil
        self.quarantinedFile = nil
        self.failure = failure
        self.collections = [:]
        self.state = Locked(State())
    }

    deinit {
        state.withLock { $0.backend?.close() }
    }

    /// Runs the migrations newer than the stored version in one write transaction.
    private static func migrate(_ backend: any StorageBackend, schema: StoreSchema, file: URL?) throws(CoreError) -> [String: String] {
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
            let prefix = schema.name + "/"
            var existing: [String: String] = [:]
            for name in catalog.collections where name.hasPrefix(prefix) { existing[String(name.dropFirst(prefix.count))] = name }
            let writer = RecordWriter(
                backend: backend, schemaName: schema.name, file: file, collections: existing,
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

    /// Whether ``close()`` has been called.
    public var isClosed: Bool {
        state.withLock { $0.backend == nil }
    }

    /// Reads records in one consistent snapshot.
    /// - Parameter body: Reads through the reader it is given; must not call this store.
    /// - Returns: What `body` returns.
    /// - Throws: ``CoreError/Code/closed`` after ``close()``, and whatever `body` throws.
    public func read<Result>(_ body: (RecordReader) throws -> Result) throws -> Result {
        try withBackend { state, backend, collections in
            try backend.beginRead()
            defer { backend.endRead() }
            let reader = RecordReader(
                backend: backend, schemaName: schema.name, file: file, collections: collections,
                externalChangeCount: try state.noteExternalChanges(backend))
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
        try withBackend { state, backend, collections in
            try backend.beginWrite()
            let writer: RecordWriter
            do {
                writer = RecordWriter(
                    backend: backend, schemaName: schema.name, file: file, collections: collections,
                    externalChangeCount: try state.noteExternalChanges(backend))
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

    /// How many times this store has seen another connection — another store on the
    /// same file, in this process or another — commit changes, counted when this
    /// store starts a transaction or answers this call. Always 0 in memory.
    ///
    /// A service that caches state compares this with the count it cached at; inside
    /// a transaction, ``RecordReader/externalChangeCount`` gives the same count for
    /// the transaction's snapshot.
    /// - Returns: The count.
    /// - Throws: ``CoreError/Code/closed`` after ``close()``, or a storage failure.
    public func externalChangeCount() throws(CoreError) -> UInt64 {
        guard file != nil else { return 0 }
        do {
            return try withBackend { state, backend, _ in
                try backend.beginRead()
                defer { backend.endRead() }
                return try state.noteExternalChanges(backend)
            }
        } catch let error as CoreError {
            throw error
        } catch {
            throw CoreError(.sqlite, file: file, detail: "\(error)")
        }
    }

    /// Closes the store; later calls throw ``CoreError/Code/closed``. Closing twice does nothing.
    public func close() {
        state.withLock { state in
            state.backend?.close()
            state.backend = nil
        }
    }

    /// An identifier of the calling thread (cheaper than `Thread.current`).
    private static var currentThread: Int {
        Int(bitPattern: pthread_self())
    }

    private func withBackend<Result>(_ body: (inout State, any StorageBackend, [String: String]) throws -> Result) throws -> Result {
        let thread = Self.currentThread
        guard owner.load(ordering: .acquiring) != thread else {
            throw CoreError(
                .nestedTransaction, file: file,
                detail: "The store was called from inside one of its own transactions; use the reader or writer you were given.")
        }
        return try state.withLock { state throws -> Result in
            if let failure { throw failure }
            guard let backend = state.backend else {
                throw CoreError(.closed, file: file, detail: "The store is closed.")
            }
            owner.store(thread, ordering: .releasing)
            defer { owner.store(0, ordering: .releasing) }
            return try body(&state, backend, collections)
        }
    }
}
