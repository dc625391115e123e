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
    }

    deinit {
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
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        sqlite3_bind_text(insert, 1, key, -1, transient)
        _ = value.withUnsafeBytes { sqlite3_bind_blob(insert, 2, $0.baseAddress, Int32($0.count), transient) }
        let rc = sqlite3_step(insert)
        sqlite3_reset(insert)
        guard rc == SQLITE_DONE else { throw Failure(description: "insert failed: \(rc)") }
    }
}
