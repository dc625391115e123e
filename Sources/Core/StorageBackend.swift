import Foundation

/// What a ``RecordStore`` needs from the place it keeps records: one connection to
/// it. The store's logic (validation, transactions, migrations, codecs) is written
/// once on top of this; ``MemoryBackend`` and ``SQLiteBackend`` differ only in where
/// the bytes live.
///
/// A store has one writing connection, used by one write transaction at a time, and
/// reading connections, each used by one read transaction at a time; a connection is
/// never used by two threads at once. A read transaction (`beginRead()` to
/// `endRead()`) sees one snapshot, whatever commits beside it. Writes happen only
/// between `beginWrite()` and `commitWrite()` / `rollbackWrite()`, and a rollback
/// undoes every write since `beginWrite()`.
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
    /// At most `limit` records of `collection` in `range`, in the UTF-8 byte order of
    /// their keys or its reverse.
    func records(in collection: String, range: KeyRange, direction: ScanDirection, limit: Int) throws(CoreError) -> [StoredRecord]
    /// Calls `body` with each record's key and value bytes, as ``records(in:range:direction:limit:)``
    /// would list them, the bytes valid only during the call: a scan that decodes each
    /// record makes no key or `Data` of its own.
    func forEachRecord(
        in collection: String, range: KeyRange, direction: ScanDirection, limit: Int,
        _ body: (UnsafeBufferPointer<UInt8>, UnsafeRawBufferPointer) throws(CoreError) -> Void
    ) throws(CoreError)
    /// The keys `records(in:range:direction:limit:)` would return, without the values.
    func keys(in collection: String, range: KeyRange, direction: ScanDirection, limit: Int) throws(CoreError) -> [String]
    /// How many records of `collection` lie in `range`.
    func count(in collection: String, range: KeyRange) throws(CoreError) -> Int

    func put(_ value: Data, forKey key: String, in collection: String) throws(CoreError)
    /// Stores `value` unless `key` holds a record; returns whether it stored it.
    func insert(_ value: Data, forKey key: String, in collection: String) throws(CoreError) -> Bool
    func removeValue(forKey key: String, in collection: String) throws(CoreError)
    func removeAll(in collection: String) throws(CoreError)
    func createCollection(_ collection: String) throws(CoreError)
    func dropCollection(_ collection: String) throws(CoreError)
    func setVersion(_ version: Int, ofSchema schema: String) throws(CoreError)

    /// Reads every page looking for damage; throws ``TrainErrorCode/corrupt`` if any.
    func checkIntegrity() throws(CoreError)

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
