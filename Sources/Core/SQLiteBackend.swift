import Foundation

/// Records in one SQLite database file (WAL mode), for the file-backed variant of a
/// service. One table holds every record, keyed by (collection, key); two small
/// tables hold the catalog of collections and the version of each schema.
final class SQLiteBackend: StorageBackend {
    /// `PRAGMA application_id` of every TrainKit store: "TRK1".
    static let applicationID = 0x5452_4B31
    /// The engine's own file format, stored as `PRAGMA user_version`.
    static let formatVersion = 1

    static let bootstrapSQL = """
        BEGIN;
        CREATE TABLE train_records (collection TEXT NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL,
                                    PRIMARY KEY (collection, key)) WITHOUT ROWID;
        CREATE TABLE train_collections (name TEXT PRIMARY KEY NOT NULL) WITHOUT ROWID;
        CREATE TABLE train_schemas (name TEXT PRIMARY KEY NOT NULL, version INTEGER NOT NULL) WITHOUT ROWID;
        PRAGMA application_id = \(applicationID);
        PRAGMA user_version = \(formatVersion);
        COMMIT;
        """

    let connection: SQLiteConnection

    init(connection: SQLiteConnection) {
        self.connection = connection
    }

    func catalog() throws(CoreError) -> StorageCatalog {
        var catalog = StorageCatalog()
        let collections = try connection.statement("SELECT name FROM train_collections")
        defer { collections.reset() }
        while try collections.step() { catalog.collections.insert(collections.text(at: 0)) }
        let schemas = try connection.statement("SELECT name, version FROM train_schemas")
        defer { schemas.reset() }
        while try schemas.step() { catalog.schemaVersions[schemas.text(at: 0)] = schemas.integer(at: 1) }
        return catalog
    }

    func dataVersion() throws(CoreError) -> Int { try connection.integer("PRAGMA data_version") ?? 0 }

    func beginRead() throws(CoreError) { try connection.statement("BEGIN").run() }
    func endRead() { rollbackWrite() }
    func beginWrite() throws(CoreError) { try connection.statement("BEGIN IMMEDIATE").run() }

    func commitWrite() throws(CoreError) {
        do {
            try connection.statement("COMMIT").run()
        } catch {
            rollbackWrite()
            throw error
        }
    }

    func rollbackWrite() {
        if connection.isInTransaction { try? connection.statement("ROLLBACK").run() }
    }

    func value(forKey key: String, in collection: String) throws(CoreError) -> Data? {
        let statement = try connection.statement("SELECT value FROM train_records WHERE collection = ?1 AND key = ?2")
        defer { statement.reset() }
        try statement.bind(collection, at: 1)
        try statement.bind(key, at: 2)
        return try statement.step() ? statement.data(at: 0) : nil
    }

    func records(in collection: String, range: KeyRange, direction: ScanDirection, limit: Int) throws(CoreError) -> [StoredRecord] {
        var records: [StoredRecord] = []
        try forEachRecord(in: collection, range: range, direction: direction, limit: limit) { key, value in
            records.append(StoredRecord(key: String(decoding: key, as: UTF8.self), data: Data(value)))
        }
        return records
    }

    func forEachRecord(
        in collection: String, range: KeyRange, direction: ScanDirection, limit: Int,
        _ body: (UnsafeBufferPointer<UInt8>, UnsafeRawBufferPointer) throws(CoreError) -> Void
    ) throws(CoreError) {
        let statement = try rangeStatement("key, value", in: collection, range: range, direction: direction, limit: limit)
        defer { statement.reset() }
        while try statement.step() { try body(statement.textBytes(at: 0), statement.blobBytes(at: 1)) }
    }

    func keys(in collection: String, range: KeyRange, direction: ScanDirection, limit: Int) throws(CoreError) -> [String] {
        let statement = try rangeStatement("key", in: collection, range: range, direction: direction, limit: limit)
        defer { statement.reset() }
        var keys: [String] = []
        while try statement.step() { keys.append(statement.text(at: 0)) }
        return keys
    }

    func count(in collection: String, range: KeyRange) throws(CoreError) -> Int {
        let statement = try rangeStatement("count(*)", in: collection, range: range, direction: nil, limit: nil)
        defer { statement.reset() }
        return try statement.step() ? statement.integer(at: 0) : 0
    }

    /// The cached statement selecting `columns` of the records of collection `?1` in
    /// `range` — one statement per shape of range, bounds bound as `?2` and `?3` —
    /// walking the primary key in `direction`, at most `limit` (`?4`) rows.
    private func rangeStatement(_ columns: String, in collection: String, range: KeyRange, direction: ScanDirection?, limit: Int?) throws(CoreError)
        -> Statement
    {
        var sql = "SELECT \(columns) FROM train_records WHERE collection = ?1"
        switch range.lower {
        case .unbounded: break
        case .included: sql += " AND key >= ?2"
        case .excluded: sql += " AND key > ?2"
        }
        switch range.upper {
        case .unbounded: break
        case .included: sql += " AND key <= ?3"
        case .excluded: sql += " AND key < ?3"
        }
        switch direction {
        case .forward: sql += " ORDER BY key"
        case .reverse: sql += " ORDER BY key DESC"
        case nil: break
        }
        if limit != nil { sql += " LIMIT ?4" }
        let statement = try connection.statement(sql)
        do {
            try statement.bind(collection, at: 1)
            if let key = range.lower.key { try statement.bind(key, at: 2) }
            if let key = range.upper.key { try statement.bind(key, at: 3) }
            // SQLite reads a negative limit as none.
            if let limit { try statement.bind(limit == .max ? -1 : limit, at: 4) }
        } catch {
            statement.reset()
            throw error
        }
        return statement
    }

    func put(_ value: Data, forKey key: String, in collection: String) throws(CoreError) {
        let statement = try connection.statement(
            """
            INSERT INTO train_records (collection, key, value) VALUES (?1, ?2, ?3)
            ON CONFLICT (collection, key) DO UPDATE SET value = excluded.value
            """)
        try statement.bind(collection, at: 1)
        try statement.bind(key, at: 2)
        try statement.bind(value, at: 3)
        try statement.run()
    }

    func insert(_ value: Data, forKey key: String, in collection: String) throws(CoreError) -> Bool {
        let statement = try connection.statement("INSERT OR IGNORE INTO train_records (collection, key, value) VALUES (?1, ?2, ?3)")
        try statement.bind(collection, at: 1)
        try statement.bind(key, at: 2)
        try statement.bind(value, at: 3)
        try statement.run()
        return connection.changes == 1
    }

    func removeValue(forKey key: String, in collection: String) throws(CoreError) {
        let statement = try connection.statement("DELETE FROM train_records WHERE collection = ?1 AND key = ?2")
        try statement.bind(collection, at: 1)
        try statement.bind(key, at: 2)
        try statement.run()
    }

    func removeAll(in collection: String) throws(CoreError) {
        let statement = try connection.statement("DELETE FROM train_records WHERE collection = ?1")
        try statement.bind(collection, at: 1)
        try statement.run()
    }

    func createCollection(_ collection: String) throws(CoreError) {
        let statement = try connection.statement("INSERT OR IGNORE INTO train_collections (name) VALUES (?1)")
        try statement.bind(collection, at: 1)
        try statement.run()
    }

    func dropCollection(_ collection: String) throws(CoreError) {
        try removeAll(in: collection)
        let statement = try connection.statement("DELETE FROM train_collections WHERE name = ?1")
        try statement.bind(collection, at: 1)
        try statement.run()
    }

    func setVersion(_ version: Int, ofSchema schema: String) throws(CoreError) {
        let statement = try connection.statement(
            """
            INSERT INTO train_schemas (name, version) VALUES (?1, ?2)
            ON CONFLICT (name) DO UPDATE SET version = excluded.version
            """)
        try statement.bind(schema, at: 1)
        try statement.bind(version, at: 2)
        try statement.run()
    }

    func checkIntegrity() throws(CoreError) {
        let verdict = try connection.text("PRAGMA quick_check(1)")
        guard verdict == "ok" else {
            throw CoreError(.corrupt, file: connection.file, detail: "The database is corrupt: \(verdict ?? "no verdict").")
        }
    }

    func close() {
        connection.close()
    }
}
