import Foundation

#if canImport(SQLite3)
    import SQLite3
#else
    import CSQLite
#endif

/// One SQLite connection with a cache of prepared statements. Not thread-safe: the
/// owner (``SQLiteBackend`` inside ``RecordStore``'s mutex) serializes every call.
final class SQLiteConnection {
    let file: URL
    private var handle: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]

    /// Opens an existing database file for reading and writing; never creates one.
    init(file: URL, busyTimeout: Duration) throws(CoreError) {
        self.file = file
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(file.path, &db, flags, nil)
        handle = db
        guard rc == SQLITE_OK, db != nil else {
            let error = Self.error(rc, db: db, file: file, doing: "open the store")
            sqlite3_close_v2(db)
            handle = nil
            throw error
        }
        sqlite3_extended_result_codes(db, 1)
        // Clamped to what SQLite takes (an Int32 of milliseconds), whatever the caller passes.
        let seconds = min(max(busyTimeout.components.seconds, 0), Int64(Int32.max / 1000))
        let milliseconds = seconds * 1000 + max(busyTimeout.components.attoseconds, 0) / 1_000_000_000_000_000
        sqlite3_busy_timeout(db, Int32(clamping: milliseconds))
    }

    deinit { close() }

    /// Finalizes every statement and closes the connection; safe to call twice.
    func close() {
        for statement in statements.values { sqlite3_finalize(statement) }
        statements.removeAll()
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    /// Runs one or more statements that return no rows the caller needs.
    func execute(_ sql: String) throws(CoreError) {
        let rc = sqlite3_exec(try db(), sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw error(rc, doing: "run \(sql.prefix(40))") }
    }

    /// Returns the cached prepared statement for `sql`, reset and with no bindings.
    func statement(_ sql: String) throws(CoreError) -> Statement {
        if let cached = statements[sql] { return Statement(handle: cached, connection: self) }
        var prepared: OpaquePointer?
        let rc = sqlite3_prepare_v3(try db(), sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, nil)
        guard rc == SQLITE_OK, let prepared else { throw error(rc, doing: "prepare \(sql.prefix(40))") }
        statements[sql] = prepared
        return Statement(handle: prepared, connection: self)
    }

    /// Runs `sql` and returns the first column of its first row as text, if any.
    func text(_ sql: String) throws(CoreError) -> String? {
        let statement = try statement(sql)
        defer { statement.reset() }
        return try statement.step() ? statement.text(at: 0) : nil
    }

    /// Runs `sql` and returns the first column of its first row as an integer, if any.
    func integer(_ sql: String) throws(CoreError) -> Int? {
        let statement = try statement(sql)
        defer { statement.reset() }
        return try statement.step() ? statement.integer(at: 0) : nil
    }

    /// The rows the last finished statement inserted, changed or deleted.
    var changes: Int {
        guard let handle else { return 0 }
        return Int(sqlite3_changes(handle))
    }

    var isInTransaction: Bool {
        guard let handle else { return false }
        return sqlite3_get_autocommit(handle) == 0
    }

    private func db() throws(CoreError) -> OpaquePointer {
        guard let handle else { throw CoreError(.closed, file: file, detail: "The store is closed.") }
        return handle
    }

    func error(_ rc: Int32, doing action: String) -> CoreError {
        Self.error(rc, db: handle, file: file, doing: action)
    }

    /// Maps an SQLite result code to the ``CoreError`` a caller can act on.
    static func error(_ rc: Int32, db: OpaquePointer?, file: URL, doing action: String) -> CoreError {
        let message = db.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(rc))
        let detail = "Could not \(action): \(message) (SQLite code \(rc))."
        switch rc & 0xff {
        case SQLITE_NOTADB: return CoreError(.notADatabase, file: file, detail: "The file is not a database. \(detail)")
        case SQLITE_CORRUPT: return CoreError(.corrupt, file: file, detail: "The database is corrupt. \(detail)")
        case SQLITE_BUSY, SQLITE_LOCKED: return CoreError(.busy, file: file, detail: "The store is locked by another connection. \(detail)")
        case SQLITE_IOERR, SQLITE_CANTOPEN, SQLITE_FULL, SQLITE_READONLY, SQLITE_PERM:
            return CoreError(.io, file: file, detail: detail)
        default: return CoreError(.sqlite, file: file, detail: detail)
        }
    }
}

/// A prepared statement borrowed from a ``SQLiteConnection``'s cache.
struct Statement {
    let handle: OpaquePointer
    unowned let connection: SQLiteConnection

    /// Binds text to the 1-based parameter `index`, every UTF-8 byte of it: a NUL
    /// inside is kept, not taken for the end.
    func bind(_ text: String, at index: Int32) throws(CoreError) {
        var bytes = Array(text.utf8)
        let count = bytes.count
        bytes.append(0) // never an empty buffer: a null pointer would bind SQL NULL
        let rc = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { characters in
                sqlite3_bind_text64(
                    handle, index, characters.baseAddress, sqlite3_uint64(count), SQLITE_TRANSIENT_DESTRUCTOR,
                    UInt8(SQLITE_UTF8))
            }
        }
        guard rc == SQLITE_OK else { throw connection.error(rc, doing: "bind a parameter") }
    }

    /// Binds bytes to the 1-based parameter `index`.
    func bind(_ data: Data, at index: Int32) throws(CoreError) {
        let rc = data.withUnsafeBytes { bytes in
            // A zero-length blob still needs a non-null pointer, or SQLite stores NULL.
            sqlite3_bind_blob64(
                handle, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), sqlite3_uint64(bytes.count), SQLITE_TRANSIENT_DESTRUCTOR)
        }
        guard rc == SQLITE_OK else { throw connection.error(rc, doing: "bind a parameter") }
    }

    /// Binds an integer to the 1-based parameter `index`.
    func bind(_ value: Int, at index: Int32) throws(CoreError) {
        let rc = sqlite3_bind_int64(handle, index, sqlite3_int64(value))
        guard rc == SQLITE_OK else { throw connection.error(rc, doing: "bind a parameter") }
    }

    /// Advances to the next row; returns false when the statement is done.
    func step() throws(CoreError) -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            sqlite3_reset(handle)
            throw connection.error(rc, doing: "run a statement")
        }
    }

    /// Runs a statement that returns no rows, then resets it.
    func run() throws(CoreError) {
        defer { reset() }
        _ = try step()
    }

    /// The column's text, every byte of it (a NUL inside included).
    func text(at column: Int32) -> String {
        String(decoding: textBytes(at: column), as: UTF8.self)
    }

    /// A text column's UTF-8 in place, valid until the next step or reset.
    func textBytes(at column: Int32) -> UnsafeBufferPointer<UInt8> {
        guard let bytes = sqlite3_column_text(handle, column) else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, column)))
    }

    /// A blob column's bytes in place, valid until the next step or reset.
    func blobBytes(at column: Int32) -> UnsafeRawBufferPointer {
        let bytes = sqlite3_column_blob(handle, column)
        return UnsafeRawBufferPointer(start: bytes, count: bytes == nil ? 0 : Int(sqlite3_column_bytes(handle, column)))
    }

    func data(at column: Int32) -> Data {
        Data(blobBytes(at: column))
    }

    func integer(at column: Int32) -> Int {
        Int(sqlite3_column_int64(handle, column))
    }

    /// Resets the statement and clears its bindings so it can be reused.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }
}

/// SQLite's `SQLITE_TRANSIENT`: the library copies bound values before the call returns.
private var SQLITE_TRANSIENT_DESTRUCTOR: sqlite3_destructor_type {
    unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
