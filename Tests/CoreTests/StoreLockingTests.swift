import Foundation
import Testing
import TrainCore
import TrainTesting

#if canImport(SQLite3)
    import SQLite3
#else
    import CSQLite
#endif

/// CORE-3 / CORE-5: WAL mode, and a lock held past the busy timeout is a typed error.
@Suite struct StoreLockingTests {
    @Test("a file-backed store runs in WAL mode")
    func walMode() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file("store.sqlite")
        try RecordStore(.file(file), schema: notesSchema).close()
        var db: OpaquePointer?
        sqlite3_open(file.path, &db)
        defer { sqlite3_close(db) }
        var statement: OpaquePointer?
        sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        #expect(sqlite3_step(statement) == SQLITE_ROW)
        #expect(String(cString: sqlite3_column_text(statement, 0)) == "wal")
    }

    @Test("a write lock held by another connection past the busy timeout is a busy error that changes nothing")
    func busy() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file("store.sqlite")
        let store = try RecordStore(.file(file, options: .init(busyTimeout: .milliseconds(50))), schema: notesSchema)
        var other: OpaquePointer?
        sqlite3_open(file.path, &other)
        defer { sqlite3_close(other) }
        #expect(sqlite3_exec(other, "BEGIN IMMEDIATE", nil, nil, nil) == SQLITE_OK)

        let error = #expect(throws: CoreError.self) { try store.write { try $0.put(1, forKey: "total", in: counters) } }
        #expect(error?.code == .busy)
        #expect(error?.file == file)

        sqlite3_exec(other, "ROLLBACK", nil, nil, nil)
        #expect(try store.read { try $0.value(forKey: "total", in: counters) } == nil)
        try store.write { try $0.put(2, forKey: "total", in: counters) }
        #expect(try store.read { try $0.value(forKey: "total", in: counters) } == 2)
    }
}
