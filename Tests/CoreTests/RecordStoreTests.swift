import Foundation
import Testing
import TrainCore
import TrainTesting

struct Note: Codable, Equatable, Sendable {
    var text: String
    var pinned: Bool
}

let notes = RecordCollection<Note>("notes")
let counters = RecordCollection<Int>("counters")
let notesSchema = StoreSchema(name: "notes", migrations: [.createCollections(version: 1, ["notes", "counters"])])

/// The two storage variants every rule of the engine must hold for.
enum StoreVariant: String, CaseIterable, CustomTestStringConvertible {
    case inMemory, file

    var testDescription: String { rawValue }

    /// Opens a store of this variant; `directory` keeps the file alive for the test.
    func open(_ schema: StoreSchema = notesSchema, in directory: TemporaryDirectory) throws -> RecordStore {
        switch self {
        case .inMemory: try RecordStore(.inMemory, schema: schema)
        case .file: try RecordStore(.file(directory.file("store.sqlite")), schema: schema)
        }
    }
}

struct Boom: Error {}

/// CORE-3: the engine's behaviour, identical in memory and on disk.
@Suite struct RecordStoreTests {
    @Test("a written value reads back, and a missing key reads nil", arguments: StoreVariant.allCases)
    func roundTrip(variant: StoreVariant) throws {
        let directory = try TemporaryDirectory()
        let store = try variant.open(in: directory)
        try store.write { try $0.put(Note(text: "Buy milk", pinned: true), forKey: "n1", in: notes) }
        #expect(try store.read { try $0.value(forKey: "n1", in: notes) } == Note(text: "Buy milk", pinned: true))
        #expect(try store.read { try $0.value(forKey: "n2", in: notes) } == nil)
    }

    @Test("a transaction spanning two collections commits both or neither", arguments: StoreVariant.allCases)
    func atomicAcrossCollections(variant: StoreVariant) throws {
        let directory = try TemporaryDirectory()
        let store = try variant.open(in: directory)
        try store.write { records in
            try records.put(Note(text: "first", pinned: false), forKey: "n1", in: notes)
            try records.put(1, forKey: "total", in: counters)
        }
        #expect(throws: Boom.self) {
            try store.write { records in
                try records.put(Note(text: "second", pinned: false), forKey: "n2", in: notes)
                try records.put(2, forKey: "total", in: counters)
                try records.removeValue(forKey: "n1", in: notes)
                throw Boom()
            }
        }
        let (count, first, total) = try store.read { records in
            (try records.count(in: notes), try records.value(forKey: "n1", in: notes), try records.value(forKey: "total", in: counters))
        }
        #expect(count == 1)
        #expect(first?.text == "first")
        #expect(total == 1)
    }

    @Test("a transaction reads its own writes before committing", arguments: StoreVariant.allCases)
    func readYourWrites(variant: StoreVariant) throws {
        let directory = try TemporaryDirectory()
        let store = try variant.open(in: directory)
        let seen = try store.write { records in
            try records.put(41, forKey: "total", in: counters)
            try records.put((try records.value(forKey: "total", in: counters) ?? 0) + 1, forKey: "total", in: counters)
            return try records.value(forKey: "total", in: counters)
        }
        #expect(seen == 42)
    }

    @Test("records come back in key order, filtered by prefix", arguments: StoreVariant.allCases)
    func orderAndPrefix(variant: StoreVariant) throws {
        let directory = try TemporaryDirectory()
        let store = try variant.open(in: directory)
        let keys = ["user/2/b", "user/10/a", "user/2/a", "post/1", "user/2", "Zed", "émile"]
        try store.write { records in
            for key in keys { try records.put(Note(text: key, pinned: false), forKey: key, in: notes) }
        }
        let all = try store.read { try $0.records(in: notes).map(\.key) }
        #expect(all == keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        let prefixed = try store.read { try $0.values(in: notes, range: .prefix("user/2/")).map(\.text) }
        #expect(prefixed == ["user/2/a", "user/2/b"])
    }

    @Test("removing one record, a missing record and a whole collection", arguments: StoreVariant.allCases)
    func removal(variant: StoreVariant) throws {
        let directory = try TemporaryDirectory()
        let store = try variant.open(in: directory)
        try store.write { records in
            for index in 1...3 { try records.put(Note(text: "\(index)", pinned: false), forKey: "n\(index)", in: notes) }
            try records.put(7, forKey: "total", in: counters)
        }
        try store.write { records in
            try records.removeValue(forKey: "n2", in: notes)
            try records.removeValue(forKey: "never-there", in: notes)
        }
        #expect(try store.read { try $0.records(in: notes).map(\.key) } == ["n1", "n3"])
        try store.write { try $0.removeAll(in: notes) }
        #expect(try store.read { try $0.count(in: notes) } == 0)
        #expect(try store.read { try $0.value(forKey: "total", in: counters) } == 7)
    }

    @Test("raw bytes are stored byte for byte, including an empty value", arguments: StoreVariant.allCases)
    func rawBytes(variant: StoreVariant) throws {
        let directory = try TemporaryDirectory()
        let store = try variant.open(in: directory)
        let blobs = RecordCollection<Data>.bytes("notes")
        let bytes = Data((0...255).map(UInt8.init))
        try store.write { records in
            try records.put(bytes, forKey: "all", in: blobs)
            try records.put(Data(), forKey: "empty", in: blobs)
        }
        #expect(try store.read { try $0.value(forKey: "all", in: blobs) } == bytes)
        #expect(try store.read { try $0.value(forKey: "empty", in: blobs) } == Data())
    }

    @Test("an unknown collection is a typed error and writes nothing", arguments: StoreVariant.allCases)
    func unknownCollection(variant: StoreVariant) throws {
        let directory = try TemporaryDirectory()
        let store = try variant.open(in: directory)
        let error = #expect(throws: CoreError.self) {
            try store.write { records in
                try records.put(1, forKey: "total", in: counters)
                try records.put(1, forKey: "x", in: RecordCollection<Int>("missing"))
            }
        }
        #expect(error?.code == .unknownCollection)
        #expect(try store.read { try $0.count(in: counters) } == 0)
        #expect(try store.read { $0.collectionNames } == ["counters", "notes"])
    }

    @Test("an empty key is an invalid argument", arguments: StoreVariant.allCases)
    func emptyKey(variant: StoreVariant) throws {
        let directory = try TemporaryDirectory()
        let store = try variant.open(in: directory)
        let error = #expect(throws: CoreError.self) { try store.write { try $0.put(1, forKey: "", in: counters) } }
        #expect(error?.code == .invalidArgument)
    }

    @Test("a stored value that does not decode is a typed error naming the record", arguments: StoreVariant.allCases)
    func undecodable(variant: StoreVariant) throws {
        let directory = try TemporaryDirectory()
        let store = try variant.open(in: directory)
        try store.write { try $0.setData(Data("not json".utf8), forKey: "n1", in: "notes") }
        let error = #expect(throws: CoreError.self) { try store.read { try $0.value(forKey: "n1", in: notes) } }
        #expect(error?.code == .undecodable)
        #expect(error?.detail.contains("'n1'") == true)
        #expect(error?.detail.contains("not json") == false)
    }

    @Test("a closed store refuses every call with a typed error; closing twice is harmless", arguments: StoreVariant.allCases)
    func closed(variant: StoreVariant) throws {
        let directory = try TemporaryDirectory()
        let store = try variant.open(in: directory)
        store.close()
        store.close()
        #expect(store.isClosed)
        let readError = #expect(throws: CoreError.self) { try store.read { try $0.count(in: notes) } }
        let writeError = #expect(throws: CoreError.self) { try store.write { try $0.put(1, forKey: "a", in: counters) } }
        #expect(readError?.code == .closed)
        #expect(writeError?.code == .closed)
    }

    @Test("a transaction kept past its closure refuses to be used", arguments: StoreVariant.allCases)
    func escapedTransaction(variant: StoreVariant) throws {
        let directory = try TemporaryDirectory()
        let store = try variant.open(in: directory)
        let escaped = try store.write { $0 }
        let error = #expect(throws: CoreError.self) { try escaped.put(1, forKey: "a", in: counters) }
        #expect(error?.code == .transactionEnded)
        #expect(try store.read { try $0.count(in: counters) } == 0)
    }

    @Test("calling the store from inside its own transaction is refused, not a deadlock", arguments: StoreVariant.allCases)
    func nestedTransaction(variant: StoreVariant) throws {
        let directory = try TemporaryDirectory()
        let store = try variant.open(in: directory)
        let error = #expect(throws: CoreError.self) {
            try store.write { records in
                try records.put(1, forKey: "a", in: counters)
                _ = try store.read { try $0.count(in: counters) }
            }
        }
        #expect(error?.code == .nestedTransaction)
        #expect(try store.read { try $0.count(in: counters) } == 0)
    }

    @Test("concurrent writers lose no update", arguments: StoreVariant.allCases)
    func concurrentIncrements(variant: StoreVariant) async throws {
        let directory = try TemporaryDirectory()
        let store = try variant.open(in: directory)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<25 {
                        try store.write { records in
                            let total = try records.value(forKey: "total", in: counters) ?? 0
                            try records.put(total + 1, forKey: "total", in: counters)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try store.read { try $0.value(forKey: "total", in: counters) } == 200)
    }
}
