import Foundation

/// What a ``RecordStore`` needs from the place it keeps records. The store's logic
/// (validation, transactions, migrations, codecs) is written once on top of this;
/// ``MemoryBackend`` and ``SQLiteBackend`` differ only in where the bytes live.
///
/// Every call happens while the store's mutex is held. Writes happen only between
/// `beginWrite()` and `commitWrite()` / `rollbackWrite()`, and a rollback undoes
/// every write since `beginWrite()`.
@usableFromInline
protocol StorageBackend: AnyObject {
    /// The collections that exist and the stored version of each schema.
    func catalog() throws(CoreError) -> StorageCatalog

    /// A number that differs from the one read in this backend's previous transaction
    /// when another connection committed in between (SQLite's `PRAGMA data_version`);
    /// called first in each transaction.
    func dataVersion() throws(CoreError) -> Int

    func beginRead() throws(CoreError)
    func endRead()
    func beginWrite() throws(CoreError)
    func commitWrite() throws(CoreError)
    func rollbackWrite()

    func value(forKey key: String, in collection: String) throws(CoreError) -> Data?
    /// The records of `collection` whose key starts with `prefix`, ordered by the
    /// UTF-8 bytes of their keys.
    func records(in collection: String, keyPrefix prefix: String) throws(CoreError) -> [StoredRecord]
    func count(in collection: String) throws(CoreError) -> Int

    func put(_ value: Data, forKey key: String, in collection: String) throws(CoreError)
    func removeValue(forKey key: String, in collection: String) throws(CoreError)
    func removeAll(in collection: String) throws(CoreError)
    func createCollection(_ collection: String) throws(CoreError)
    func dropCollection(_ collection: String) throws(CoreError)
    func setVersion(_ version: Int, ofSchema schema: String) throws(CoreError)

    func close()
}

/// What exists in a backend: collection names and schema versions.
@usableFromInline
struct StorageCatalog {
    var collections: Set<String> = []
    var schemaVersions: [String: Int] = [:]
}

/// One stored record: its key and its encoded bytes.
public struct StoredRecord: Hashable, Sendable {
    /// The record's key within its collection.
    public let key: String
    /// The record's encoded bytes.
    public let data: Data

    /// Creates a record.
    /// - Parameters:
    ///   - key: The record's key.
    ///   - data: The record's encoded bytes.
    public init(key: String, data: Data) {
        self.key = key
        self.data = data
    }
}

/// Records kept in dictionaries, for the in-memory variant of a service. A write
/// transaction keeps an undo log, so a rollback costs what the transaction wrote,
/// not the size of the store.
///
/// Records are keyed by the UTF-8 bytes of their keys, as SQLite compares them, not by
/// `String` equality (which treats canonically equivalent spellings as one).
final class MemoryBackend: StorageBackend {
    /// One collection's records; a class, so a write changes it in place.
    private final class Table {
        var rows: [KeyBytes: Data] = [:]
    }

    /// What undoes one write of a transaction.
    private enum Undo {
        case row(Table, KeyBytes, Data?)
        case rows(Table, [KeyBytes: Data])
        case table(String, Table?)
        case version(String, Int?)
    }

    private var tables: [String: Table] = [:]
    private var schemaVersions: [String: Int] = [:]
    private var undo: [Undo] = []
    private var writing = false

    func catalog() -> StorageCatalog {
        StorageCatalog(collections: Set(tables.keys), schemaVersions: schemaVersions)
    }

    /// Nothing else can write to memory.
    func dataVersion() -> Int { 0 }

    func beginRead() {}
    func endRead() {}

    func beginWrite() {
        undo.removeAll(keepingCapacity: true)
        writing = true
    }

    func commitWrite() {
        undo.removeAll(keepingCapacity: true)
        writing = false
    }

    func rollbackWrite() {
        for step in undo.reversed() {
            switch step {
            case .row(let table, let key, let previous): table.rows[key] = previous
            case .rows(let table, let previous): table.rows = previous
            case .table(let name, let previous): tables[name] = previous
            case .version(let schema, let previous): schemaVersions[schema] = previous
            }
        }
        undo.removeAll(keepingCapacity: true)
        writing = false
    }

    func value(forKey key: String, in collection: String) -> Data? {
        tables[collection]?.rows[KeyBytes(key)]
    }

    func records(in collection: String, keyPrefix prefix: String) -> [StoredRecord] {
        guard let table = tables[collection] else { return [] }
        let prefix = Array(prefix.utf8)
        return table.rows
            .filter { $0.key.bytes.starts(with: prefix) }
            .sorted { $0.key.bytes.lexicographicallyPrecedes($1.key.bytes) }
            .map { StoredRecord(key: String(decoding: $0.key.bytes, as: UTF8.self), data: $0.value) }
    }

    func count(in collection: String) -> Int {
        tables[collection]?.rows.count ?? 0
    }

    func put(_ value: Data, forKey key: String, in collection: String) {
        guard let table = tables[collection] else { return }
        let key = KeyBytes(key)
        undo.append(.row(table, key, table.rows.updateValue(value, forKey: key)))
    }

    func removeValue(forKey key: String, in collection: String) {
        let key = KeyBytes(key)
        guard let table = tables[collection], let previous = table.rows.removeValue(forKey: key) else { return }
        undo.append(.row(table, key, previous))
    }

    func removeAll(in collection: String) {
        guard let table = tables[collection] else { return }
        undo.append(.rows(table, table.rows))
        table.rows = [:]
    }

    func createCollection(_ collection: String) {
        guard tables[collection] == nil else { return }
        tables[collection] = Table()
        undo.append(.table(collection, nil))
    }

    func dropCollection(_ collection: String) {
        guard let previous = tables.removeValue(forKey: collection) else { return }
        undo.append(.table(collection, previous))
    }

    func setVersion(_ version: Int, ofSchema schema: String) {
        undo.append(.version(schema, schemaVersions.updateValue(version, forKey: schema)))
    }

    func close() {
        tables.removeAll()
    }
}

/// A key as its UTF-8 bytes, hashed in one pass over the bytes.
struct KeyBytes: Hashable {
    let bytes: [UInt8]

    init(_ key: String) {
        bytes = Array(key.utf8)
    }

    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}
