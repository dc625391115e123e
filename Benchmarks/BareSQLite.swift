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
