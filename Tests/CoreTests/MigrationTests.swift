import Foundation
import Testing
import TrainCore
import TrainTesting

/// CORE-3: ordered migrations with a stored schema version.
@Suite struct MigrationTests {
    static let v1 = StoreMigration.createCollections(version: 1, ["notes"])
    static let v2 = StoreMigration(version: 2, summary: "Pin every note") { migration in
        try migration.createCollection("counters")
        for record in try migration.records.records(in: "notes") {
            var note = try JSONDecoder().decode(Note.self, from: record.data)
            note.pinned = true
            try migration.records.put(note, forKey: record.key, in: notes)
        }
        try migration.records.put(try migration.records.count(in: "notes"), forKey: "migrated", in: counters)
    }

    @Test("reopening with a longer list runs only the new migrations, in order, on the stored data")
    func upgrade() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file("notes.sqlite")
        let first = try RecordStore(.file(file), schema: StoreSchema(name: "notes", migrations: [Self.v1]))
        try first.write { try $0.put(Note(text: "a", pinned: false), forKey: "a", in: notes) }
        first.close()

        let upgraded = try RecordStore(.file(file), schema: StoreSchema(name: "notes", migrations: [Self.v1, Self.v2]))
        #expect(try upgraded.read { try $0.value(forKey: "a", in: notes) } == Note(text: "a", pinned: true))
        #expect(try upgraded.read { try $0.value(forKey: "migrated", in: counters) } == 1)
        upgraded.close()

        // A third open finds version 2 stored and runs nothing again.
        let again = try RecordStore(.file(file), schema: StoreSchema(name: "notes", migrations: [Self.v1, Self.v2]))
        try again.write { try $0.put(Note(text: "b", pinned: false), forKey: "b", in: notes) }
        again.close()
        let last = try RecordStore(.file(file), schema: StoreSchema(name: "notes", migrations: [Self.v1, Self.v2]))
        #expect(try last.read { try $0.value(forKey: "b", in: notes)?.pinned } == false)
    }

    @Test(
        "a migration list out of order, with a gap, or empty is a typed error",
        arguments: [
            [2, 1], [1, 3], [0], [Int](), [1, 1],
        ])
    func invalidLists(versions: [Int]) throws {
        let migrations = versions.map { StoreMigration.createCollections(version: $0, ["c\($0)"]) }
        let error = #expect(throws: CoreError.self) {
            try RecordStore(.inMemory, schema: StoreSchema(name: "bad", migrations: migrations))
        }
        #expect(error?.code == .invalidMigrations)
    }

    @Test("an invalid schema name or collection name is an invalid argument", arguments: ["", "a/b", "with space"])
    func invalidNames(name: String) throws {
        let badSchema = #expect(throws: CoreError.self) {
            try RecordStore(.inMemory, schema: StoreSchema(name: name, migrations: [Self.v1]))
        }
        #expect(badSchema?.code == .invalidArgument)
        if !name.contains(" ") {
            let badCollection = #expect(throws: CoreError.self) {
                try RecordStore(.inMemory, schema: StoreSchema(name: "ok", migrations: [.createCollections(version: 1, [name])]))
            }
            #expect(badCollection?.code == .invalidArgument)
        }
    }

    @Test("a failing migration leaves the file at its previous version with its data")
    func failingMigration() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file("notes.sqlite")
        let first = try RecordStore(.file(file), schema: StoreSchema(name: "notes", migrations: [Self.v1]))
        try first.write { try $0.put(Note(text: "a", pinned: false), forKey: "a", in: notes) }
        first.close()

        let failing = StoreMigration(version: 2, summary: "Fails halfway") { migration in
            try migration.records.removeAll(in: "notes")
            throw Boom()
        }
        let error = #expect(throws: CoreError.self) {
            try RecordStore(.file(file), schema: StoreSchema(name: "notes", migrations: [Self.v1, failing]))
        }
        #expect(error?.code == .migrationFailed)
        let reopened = try RecordStore(.file(file), schema: StoreSchema(name: "notes", migrations: [Self.v1, Self.v2]))
        #expect(try reopened.read { try $0.value(forKey: "a", in: notes) } == Note(text: "a", pinned: true))
    }

    @Test("a file written by a newer schema version is refused, even with the quarantine option")
    func newerSchema() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file("notes.sqlite")
        try RecordStore(.file(file), schema: StoreSchema(name: "notes", migrations: [Self.v1, Self.v2])).close()
        let before = try Data(contentsOf: file)
        for recovery in [RecordStore.Options.Recovery.fail, .quarantine] {
            let error = #expect(throws: CoreError.self) {
                try RecordStore(.file(file, options: .init(recovery: recovery)), schema: StoreSchema(name: "notes", migrations: [Self.v1]))
            }
            #expect(error?.code == .newerSchema)
            #expect(error?.file == file)
            #expect(error?.errorDescription?.contains(file.path) == true)
        }
        #expect(try Data(contentsOf: file) == before)
    }

    @Test("two schemas share one file without seeing each other's collections")
    func sharedFile() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file("app.sqlite")
        let auth = try RecordStore(.file(file), schema: StoreSchema(name: "auth", migrations: [.createCollections(version: 1, ["users"])]))
        let social = try RecordStore(
            .file(file), schema: StoreSchema(name: "social", migrations: [.createCollections(version: 1, ["users", "posts"])]))
        let users = RecordCollection<String>("users")
        try auth.write { try $0.put("auth user", forKey: "u1", in: users) }
        try social.write { try $0.put("social user", forKey: "u1", in: users) }
        #expect(try auth.read { try $0.value(forKey: "u1", in: users) } == "auth user")
        #expect(try social.read { try $0.value(forKey: "u1", in: users) } == "social user")
        let error = #expect(throws: CoreError.self) { try auth.read { try $0.count(in: "posts") } }
        #expect(error?.code == .unknownCollection)
    }
}
