import Foundation

#if canImport(SQLite3)
    import SQLite3
#else
    import CSQLite
#endif

/// The baseline: SQLite used directly, the way a careful app would without TrainKit —
/// one WAL-mode file, `synchronous=FULL`, one prepared `INSERT` per record.
final class BareSQLite {
    private var db: OpaquePointer?
    private var insert: OpaquePointer?
    private var select: OpaquePointer?

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    init(path: String) throws {
        guard sqlite3_open(path, &db) == SQLITE_OK else { throw Failure(description: "cannot open \(path)") }
        try execute("PRAGMA journal_mode = WAL")
        try execute("PRAGMA synchronous = FULL")
        try execute("CREATE TABLE IF NOT EXISTS records (key TEXT PRIMARY KEY NOT NULL, value BLOB NOT NULL) WITHOUT ROWID")
        guard sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO records (key, value) VALUES (?1, ?2)", -1, &insert, nil) == SQLITE_OK else {
            throw Failure(description: "cannot prepare the insert")
        }
        guard sqlite3_prepare_v2(db, "SELECT value FROM records WHERE key = ?1", -1, &select, nil) == SQLITE_OK else {
            throw Failure(description: "cannot prepare the select")
        }
    }

    deinit {
        sqlite3_finalize(select)
        sqlite3_finalize(insert)
        sqlite3_close(db)
    }

    func execute(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw Failure(description: "\(sql): \(String(cString: sqlite3_errmsg(db)))")
        }
    }

    /// Inserts one record; outside an explicit transaction this is one durable commit.
    func insert(key: String, value: Data) throws {
        sqlite3_bind_text(insert, 1, key, Int32(key.utf8.count), transientDestructor)
        _ = value.withUnsafeBytes { sqlite3_bind_blob(insert, 2, $0.baseAddress, Int32($0.count), transientDestructor) }
        let rc = sqlite3_step(insert)
        sqlite3_reset(insert)
        guard rc == SQLITE_DONE else { throw Failure(description: "insert failed: \(rc)") }
    }

    /// The value stored under `key`, copied out as an app would.
    func value(key: String) -> Data? {
        sqlite3_bind_text(select, 1, key, Int32(key.utf8.count), transientDestructor)
        defer { sqlite3_reset(select) }
        guard sqlite3_step(select) == SQLITE_ROW else { return nil }
        return Data(bytes: sqlite3_column_blob(select, 0), count: Int(sqlite3_column_bytes(select, 0)))
    }
}

/// SQLite's `SQLITE_TRANSIENT`: SQLite copies what is bound. Text is bound with its
/// length in bytes, since keys may hold NUL.
let transientDestructor = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// The baseline for reads of a TrainKit store file: the same queries written directly
/// against SQLite, each row copied into a `String` and `Data` as an app would.
final class BareStoreReader {
    private var db: OpaquePointer?
    private var page: OpaquePointer?
    private var point: OpaquePointer?

    /// Opens the file and prepares the two queries.
    init(path: String) throws {
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
            throw BareSQLite.Failure(description: "cannot open \(path)")
        }
        let pageSQL = "SELECT key, value FROM train_records WHERE collection = ?1 AND key >= ?2 ORDER BY key LIMIT ?3"
        guard sqlite3_prepare_v2(db, pageSQL, -1, &page, nil) == SQLITE_OK,
            sqlite3_prepare_v2(db, "SELECT value FROM train_records WHERE collection = ?1 AND key = ?2", -1, &point, nil) == SQLITE_OK
        else {
            throw BareSQLite.Failure(description: "cannot prepare: \(String(cString: sqlite3_errmsg(db)))")
        }
    }

    deinit {
        sqlite3_finalize(page)
        sqlite3_finalize(point)
        sqlite3_close(db)
    }

    /// Up to `limit` records of `collection` from `key` on.
    func records(in collection: String, from key: String, limit: Int) -> [(String, Data)] {
        sqlite3_bind_text(page, 1, collection, Int32(collection.utf8.count), transientDestructor)
        sqlite3_bind_text(page, 2, key, Int32(key.utf8.count), transientDestructor)
        sqlite3_bind_int64(page, 3, Int64(limit))
        defer { sqlite3_reset(page) }
        var rows: [(String, Data)] = []
        while sqlite3_step(page) == SQLITE_ROW {
            let text = String(
                decoding: UnsafeBufferPointer(start: sqlite3_column_text(page, 0), count: Int(sqlite3_column_bytes(page, 0))), as: UTF8.self)
            rows.append((text, Data(bytes: sqlite3_column_blob(page, 1), count: Int(sqlite3_column_bytes(page, 1)))))
        }
        return rows
    }

    /// The value of one record.
    func value(in collection: String, key: String) -> Data? {
        sqlite3_bind_text(point, 1, collection, Int32(collection.utf8.count), transientDestructor)
        sqlite3_bind_text(point, 2, key, Int32(key.utf8.count), transientDestructor)
        defer { sqlite3_reset(point) }
        guard sqlite3_step(point) == SQLITE_ROW else { return nil }
        return Data(bytes: sqlite3_column_blob(point, 0), count: Int(sqlite3_column_bytes(point, 0)))
    }
}

/// The baseline of the purge rows: a device's records in the engine's own table, in a
/// copy of its file or in SQLite's in-memory database, changed by key in one transaction.
final class BareRecords {
    private var db: OpaquePointer?

    /// A page-for-page copy of the SQLite file at `source` (SQLite's backup API, which
    /// reads the write-ahead log too), written to `destination` and opened with
    /// `synchronous=FULL`, as the engine opens its files by default.
    init(copying source: URL, to destination: URL) throws {
        var from: OpaquePointer?
        defer { sqlite3_close(from) }
        guard sqlite3_open_v2(source.path, &from, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK,
            sqlite3_open(destination.path, &db) == SQLITE_OK
        else { throw BareSQLite.Failure(description: "cannot open \(source.path) or \(destination.path)") }
        let backup = sqlite3_backup_init(db, "main", from, "main")
        let stepped = sqlite3_backup_step(backup, -1)
        guard sqlite3_backup_finish(backup) == SQLITE_OK, stepped == SQLITE_DONE else {
            throw BareSQLite.Failure(description: "the copy of \(source.path) failed: \(stepped)")
        }
        try execute("PRAGMA journal_mode = WAL")
        try execute("PRAGMA synchronous = FULL")
    }

    /// An empty file at `path` with the engine's table, in WAL mode with
    /// `synchronous=FULL`, as the engine opens its files by default.
    init(emptyFile path: URL) throws {
        guard sqlite3_open(path.path, &db) == SQLITE_OK else { throw BareSQLite.Failure(description: "cannot open \(path.path)") }
        try execute("PRAGMA journal_mode = WAL")
        try execute("PRAGMA synchronous = FULL")
        try execute(
            "CREATE TABLE train_records (collection TEXT NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL, PRIMARY KEY (collection, key)) WITHOUT ROWID"
        )
    }

    /// SQLite's in-memory database holding `records` in the engine's table.
    init(loading records: [RecordAddress: Data]) throws {
        guard sqlite3_open(":memory:", &db) == SQLITE_OK else { throw BareSQLite.Failure(description: "cannot open an in-memory database") }
        try execute(
            "CREATE TABLE train_records (collection TEXT NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL, PRIMARY KEY (collection, key)) WITHOUT ROWID"
        )
        try apply(RecordChanges(removed: [], written: records.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
    }

    deinit { sqlite3_close(db) }

    private func execute(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw BareSQLite.Failure(description: "\(sql): \(String(cString: sqlite3_errmsg(db)))")
        }
    }

    /// Makes `changes` in one transaction — each removal a prepared `DELETE` by key that
    /// must find its record, each write a prepared `INSERT OR REPLACE` — and commits.
    /// - Returns: The seconds it took, statements prepared and commit included.
    @discardableResult
    func apply(_ changes: RecordChanges) throws -> Double {
        try seconds {
            var remove: OpaquePointer?
            var write: OpaquePointer?
            defer {
                sqlite3_finalize(remove)
                sqlite3_finalize(write)
            }
            guard sqlite3_prepare_v2(db, "DELETE FROM train_records WHERE collection = ?1 AND key = ?2", -1, &remove, nil) == SQLITE_OK,
                sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO train_records (collection, key, value) VALUES (?1, ?2, ?3)", -1, &write, nil)
                    == SQLITE_OK
            else { throw BareSQLite.Failure(description: "cannot prepare: \(String(cString: sqlite3_errmsg(db)))") }
            try execute("BEGIN")
            for address in changes.removed {
                bind(address, to: remove)
                let rc = sqlite3_step(remove)
                sqlite3_reset(remove)
                guard rc == SQLITE_DONE, sqlite3_changes(db) == 1 else {
                    throw BareSQLite.Failure(description: "no record \(address.collection) \(address.key) to delete: \(rc)")
                }
            }
            for (address, value) in changes.written {
                bind(address, to: write)
                _ = value.withUnsafeBytes { sqlite3_bind_blob(write, 3, $0.baseAddress, Int32($0.count), transientDestructor) }
                let rc = sqlite3_step(write)
                sqlite3_reset(write)
                guard rc == SQLITE_DONE else { throw BareSQLite.Failure(description: "the write of \(address.key) failed: \(rc)") }
            }
            try execute("COMMIT")
        }
    }

    private func bind(_ address: RecordAddress, to statement: OpaquePointer?) {
        sqlite3_bind_text(statement, 1, address.collection, Int32(address.collection.utf8.count), transientDestructor)
        sqlite3_bind_text(statement, 2, address.key, Int32(address.key.utf8.count), transientDestructor)
    }
}
