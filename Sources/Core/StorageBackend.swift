import Foundation

/// What a ``RecordStore`` needs from the place it keeps records. The store's logic
/// (validation, transactions, migrations, codecs) is written once on top of this;
/// ``MemoryBackend`` and ``SQLiteBackend`` differ only in where the bytes live.
///
/// Every call happens while the store's mutex is held. Writes happen only between
/// `beginWrite()` and `commitWrite()` / `rollbackWrite()`, and a rollback undoes
/// every write since `beginWrite()`.
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
    private var collections: [String: [[UInt8]: Data]] = [:]
    private var schemaVersions: [String: Int] = [:]
    private var undo: [() -> Void] = []
    private var writing = false

    func catalog() -> StorageCatalog {
        StorageCatalog(collections: Set(collections.keys), schemaVersions: schemaVersions)
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
        for step in undo.reversed() { step() }
        undo.removeAll(keepingCapacity: true)
        writing = false
    }

    func value(forKey key: String, in collection: String) -> Data? {
        collections[collection]?[Array(key.utf8)]
    }

    func records(in collection: String, keyPrefix prefix: String) -> [StoredRecord] {
        guard let records = collections[collection] else { return [] }
        let prefix = Array(prefix.utf8)
        return records
            .filter { $0.key.starts(with: prefix) }
            .sorted { $0.key.lexicographicallyPrecedes($1.key) }
            .map { StoredRecord(key: String(decoding: $0.key, as: UTF8.self), data: $0.value) }
    }

    func count(in collection: String) -> Int {
        collections[collection]?.count ?? 0
    }

    func put(_ value: Data, forKey key: String, in collection: String) {
        let key = Array(key.utf8)
        let previous = collections[collection]?.updateValue(value, forKey: key)
        undo.append { [unowned self] in collections[collection]?[key] = previous }
    }

    func removeValue(forKey key: String, in collection: String) {
        let key = Array(key.utf8)
        guard let previous = collections[collection]?.removeValue(forKey: key) else { return }
        undo.append { [unowned self] in collections[collection]?[key] = previous }
    }

    func removeAll(in collection: String) {
        guard let previous = collections[collection] else { return }
        collections[collection] = [:]
        undo.append { [unowned self] in collections[collection] = previous }
    }

    func createCollection(_ collection: String) {
        guard collections[collection] == nil else { return }
        collections[collection] = [:]
        undo.append { [unowned self] in collections[collection] = nil }
    }

    func dropCollection(_ collection: String) {
        guard let previous = collections.removeValue(forKey: collection) else { return }
        undo.append { [unowned self] in collections[collection] = previous }
    }

    func setVersion(_ version: Int, ofSchema schema: String) {
        let previous = schemaVersions.updateValue(version, forKey: schema)
        undo.append { [unowned self] in schemaVersions[schema] = previous }
    }

    func close() {
        collections.removeAll()
    }
}
