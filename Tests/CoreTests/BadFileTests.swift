import Foundation
import Testing
import TrainCore
import TrainTesting

#if canImport(SQLite3)
    import SQLite3
#else
    import CSQLite
#endif

/// REL-2 / CORE-4: a file that is not a readable store is a typed error naming the
/// file, never a silent fresh start; quarantine only when asked. CORE-6: permissions.
@Suite struct BadFileTests {
    /// A kind of damage done to a file at `url`, and the error it must give.
    enum Damage: String, CaseIterable, CustomTestStringConvertible {
        case notADatabase, corruptPages, truncated, truncatedHeader, zeroLength, foreignDatabase

        var testDescription: String { rawValue }

        var expected: CoreError.Code {
            switch self {
            case .notADatabase: .notADatabase
            case .corruptPages: .corrupt
            case .truncated, .truncatedHeader: .truncated
            case .zeroLength: .emptyFile
            case .foreignDatabase: .foreignDatabase
            }
        }

        /// Leaves a damaged file at `url`.
        func apply(to url: URL) throws {
            switch self {
            case .notADatabase:
                try Data("These are somebody's notes, not a database.\n".utf8).write(to: url)
            case .corruptPages:
                try makeStore(at: url, records: 400)
                var bytes = try Data(contentsOf: url)
                let pageSize = 4096
                // Overwrite the b-tree pages after the first two with garbage, keeping the header intact.
                for index in (pageSize * 2)..<min(bytes.count, pageSize * 6) { bytes[index] = UInt8(truncatingIfNeeded: index &* 7) }
                try bytes.write(to: url)
            case .truncated:
                try makeStore(at: url, records: 400)
                let bytes = try Data(contentsOf: url)
                try bytes.prefix(bytes.count / 2).write(to: url)
            case .truncatedHeader:
                try makeStore(at: url, records: 1)
                try Data(contentsOf: url).prefix(10).write(to: url)
            case .zeroLength:
                try Data().write(to: url)
            case .foreignDatabase:
                var db: OpaquePointer?
                sqlite3_open(url.path, &db)
                sqlite3_exec(db, "CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('Ada');", nil, nil, nil)
                sqlite3_close(db)
            }
        }

        /// A store with `records` records, checkpointed into the main file.
        func makeStore(at url: URL, records: Int) throws {
            let store = try RecordStore(.file(url), schema: notesSchema)
            try store.write { writer in
                for index in 0..<records {
                    try writer.put(Note(text: String(repeating: "x", count: 100), pinned: false), forKey: "n\(index)", in: notes)
                }
            }
            store.close()
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        }
    }

    @Test("a damaged file is a typed error that names the file and leaves it untouched", arguments: Damage.allCases)
    func damagedFile(damage: Damage) throws {
        let directory = try TemporaryDirectory()
        let file = directory.file("store.sqlite")
        try damage.apply(to: file)
        let before = try Data(contentsOf: file)
        let error = #expect(throws: CoreError.self) { try RecordStore(.file(file), schema: notesSchema) }
        #expect(error?.code == damage.expected)
        #expect(error?.file == file)
        #expect(error?.errorDescription?.contains(file.path) == true)
        #expect(error?.recoverySuggestion != nil)
        #expect(try Data(contentsOf: file) == before, "the file must not change")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        #expect(!leftovers.contains { $0.contains(".corrupt-") }, "nothing is moved aside without the option")
    }

    @Test("with the quarantine option a damaged file is moved aside and a new store starts", arguments: Damage.allCases)
    func quarantine(damage: Damage) throws {
        let directory = try TemporaryDirectory()
        let file = directory.file("store.sqlite")
        try damage.apply(to: file)
        let before = try Data(contentsOf: file)
        let clock = ManualClock()
        let store = try RecordStore(.file(file, options: .init(recovery: .quarantine, clock: clock)), schema: notesSchema)
        let moved = try #require(store.quarantinedFile)
        #expect(moved.lastPathComponent == "store.sqlite.corrupt-20260101T000000Z")
        #expect(try Data(contentsOf: moved) == before, "the damaged bytes are kept, not deleted")
        #expect(try store.read { try $0.count(in: notes) } == 0)
        try store.write { try $0.put(Note(text: "fresh", pinned: false), forKey: "n1", in: notes) }
        store.close()
        let reopened = try RecordStore(.file(file), schema: notesSchema)
        #expect(reopened.quarantinedFile == nil)
        #expect(try reopened.read { try $0.value(forKey: "n1", in: notes)?.text } == "fresh")
    }

    @Test("a damaged page that opening does not read is corrupt on the read that reaches it, and the check finds it when asked")
    func damageBeyondOpen() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file("store.sqlite")
        try Damage.corruptPages.makeStore(at: file, records: 400)
        var bytes = try Data(contentsOf: file)
        let pageSize = 4096
        // The last page holds records, not the header, schema or catalog that opening reads.
        for index in (bytes.count - pageSize)..<bytes.count { bytes[index] = UInt8(truncatingIfNeeded: index &* 13) }
        try bytes.write(to: file)

        let store = try RecordStore(.file(file), schema: notesSchema)
        let readError = #expect(throws: CoreError.self) { try store.read { try $0.records(in: notes) } }
        #expect(readError?.code == .corrupt)
        #expect(readError?.file == file)
        let checkError = #expect(throws: CoreError.self) { try store.checkIntegrity() }
        #expect(checkError?.code == .corrupt)
        #expect(checkError?.file == file)
        store.close()

        let openError = #expect(throws: CoreError.self) {
            try RecordStore(.file(file, options: .init(checksIntegrityOnOpen: true)), schema: notesSchema)
        }
        #expect(openError?.code == .corrupt)
        let fresh = try RecordStore(.file(file, options: .init(recovery: .quarantine, checksIntegrityOnOpen: true)), schema: notesSchema)
        #expect(fresh.quarantinedFile != nil)
        #expect(try fresh.read { try $0.count(in: notes) } == 0)
        try fresh.checkIntegrity()
    }

    @Test("a file of a newer storage format is refused with newerSchema")
    func newerFormat() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file("store.sqlite")
        try RecordStore(.file(file), schema: notesSchema).close()
        var db: OpaquePointer?
        sqlite3_open(file.path, &db)
        sqlite3_exec(db, "PRAGMA user_version = 99", nil, nil, nil)
        sqlite3_close(db)
        let error = #expect(throws: CoreError.self) { try RecordStore(.file(file), schema: notesSchema) }
        #expect(error?.code == .newerSchema)
        #expect(error?.file == file)
    }

    @Test("a store that was never damaged opens without quarantine")
    func healthyFileIsKept() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file("store.sqlite")
        let first = try RecordStore(.file(file), schema: notesSchema)
        try first.write { try $0.put(Note(text: "kept", pinned: true), forKey: "n1", in: notes) }
        first.close()
        let second = try RecordStore(.file(file, options: .init(recovery: .quarantine)), schema: notesSchema)
        #expect(second.quarantinedFile == nil)
        #expect(try second.read { try $0.value(forKey: "n1", in: notes)?.text } == "kept")
    }

    @Test("the store file and its write-ahead log are owner-only (0600), in a directory created for it")
    func permissions() throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("nested/deeper/store.sqlite")
        let store = try RecordStore(.file(file), schema: notesSchema)
        try store.write { try $0.put(Note(text: "secret", pinned: false), forKey: "n1", in: notes) }
        for path in [file.path, file.path + "-wal"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            let mode = try #require(attributes[.posixPermissions] as? NSNumber).intValue
            #expect(mode & 0o777 == 0o600, "\(path) has mode \(String(mode, radix: 8))")
        }
        let folderAttributes = try FileManager.default.attributesOfItem(atPath: file.deletingLastPathComponent().path)
        #expect(try #require(folderAttributes[.posixPermissions] as? NSNumber).intValue & 0o077 == 0)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path)
        #expect(!leftovers.contains { $0.contains(".creating-") }, "no temporary file is left behind")
    }

    @Test("a directory path that names a file is an io error")
    func directoryIsAFile() throws {
        let directory = try TemporaryDirectory()
        let blocker = directory.file("blocker")
        try Data("x".utf8).write(to: blocker)
        let error = #expect(throws: CoreError.self) {
            try RecordStore(.file(blocker.appendingPathComponent("store.sqlite")), schema: notesSchema)
        }
        #expect(error?.code == .io)
    }
}
