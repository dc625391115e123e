import Foundation

/// Something that names a collection: a plain `String`, or a typed ``RecordCollection``.
public protocol CollectionName {
    /// The collection's name within its schema.
    var collectionName: String { get }
}

/// A string names a collection by itself.
extension String: CollectionName {
    /// The string itself.
    public var collectionName: String { self }
}

/// A named collection whose records are values of one type, with the codec that
/// turns them into bytes (JSON by default).
///
/// ```swift
/// struct Profile: Codable { var name: String }
/// let profiles = RecordCollection<Profile>("profiles")
/// try store.write { try $0.put(Profile(name: "Ada"), forKey: "u1", in: profiles) }
/// let ada = try store.read { try $0.value(forKey: "u1", in: profiles) }
/// ```
public struct RecordCollection<Value>: CollectionName, Sendable {
    /// The collection's name within its schema.
    public let name: String
    @usableFromInline let encoder: @Sendable (Value) throws -> Data
    @usableFromInline let decoder: @Sendable (Data) throws -> Value
    /// Decodes bytes in place, for a codec that can: a scan decodes each record so
    /// without copying it into `Data` first.
    @usableFromInline let bytesDecoder: (@Sendable (UnsafeRawBufferPointer) throws -> Value)?

    /// Creates a collection reference with a codec of your own.
    /// - Parameters:
    ///   - name: The collection's name within its schema.
    ///   - encode: Turns a value into the bytes to store.
    ///   - decode: Turns stored bytes back into a value.
    public init(
        _ name: String,
        encode: @escaping @Sendable (Value) throws -> Data,
        decode: @escaping @Sendable (Data) throws -> Value
    ) {
        self.name = name
        self.encoder = encode
        self.decoder = decode
        self.bytesDecoder = nil
    }

    /// A collection whose codec also decodes bytes in place, `decodeBytes` as `decode` does.
    package init(
        _ name: String, encode: @escaping @Sendable (Value) throws -> Data, decode: @escaping @Sendable (Data) throws -> Value,
        decodeBytes: @escaping @Sendable (UnsafeRawBufferPointer) throws -> Value
    ) {
        self.name = name
        self.encoder = encode
        self.decoder = decode
        self.bytesDecoder = decodeBytes
    }

    /// The collection's name.
    public var collectionName: String { name }

    @inlinable
    func encode(_ value: Value, key: String) throws(CoreError) -> Data {
        do {
            return try encoder(value)
        } catch {
            throw CoreError(.unencodable, detail: "The value for '\(key)' in '\(name)' could not be encoded as \(Value.self): \(error).")
        }
    }

    @inlinable
    func decode(_ data: Data, key: String, file: URL?) throws(CoreError) -> Value {
        do {
            return try decoder(data)
        } catch {
            throw undecodable(key: key, file: file, error)
        }
    }

    /// A record's value from its bytes in place; its key is made into a string only
    /// for an error.
    func decode(_ bytes: UnsafeRawBufferPointer, key: UnsafeBufferPointer<UInt8>, file: URL?) throws(CoreError) -> Value {
        do {
            if let bytesDecoder { return try bytesDecoder(bytes) }
            return try decoder(Data(bytes))
        } catch {
            throw undecodable(key: String(decoding: key, as: UTF8.self), file: file, error)
        }
    }

    /// The error for a record that does not decode, naming it without quoting it.
    @usableFromInline
    func undecodable(key: String, file: URL?, _ error: any Error) -> CoreError {
        CoreError(
            .undecodable, file: file,
            detail: "The record '\(key)' in '\(name)' could not be decoded as \(Value.self): \(Self.describe(error)).")
    }

    /// Names where decoding failed without quoting stored content.
    @usableFromInline
    static func describe(_ error: any Error) -> String {
        guard let decodingError = error as? DecodingError else { return "\(type(of: error))" }
        switch decodingError {
        case .dataCorrupted(let context), .keyNotFound(_, let context),
            .typeMismatch(_, let context), .valueNotFound(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? "the data is not valid" : "a problem at '\(path)'"
        @unknown default:
            return "the data is not valid"
        }
    }
}

extension RecordCollection where Value: Codable & Sendable {
    /// Creates a collection reference whose values are stored as JSON.
    /// - Parameter name: The collection's name within its schema.
    public init(_ name: String) {
        self.init(
            name,
            encode: { value in
                let encoder = JSONEncoder()
                encoder.outputFormatting = .sortedKeys
                return try encoder.encode(value)
            },
            decode: { data in
                try JSONDecoder().decode(Value.self, from: data)
            })
    }
}

extension RecordCollection where Value == Data {
    /// A collection whose values are stored byte for byte.
    /// - Parameter name: The collection's name within its schema.
    /// - Returns: The collection reference.
    public static func bytes(_ name: String) -> RecordCollection<Data> {
        RecordCollection(name, encode: { $0 }, decode: { $0 })
    }
}

/// A record's key and its decoded value, as ``RecordReader/entries(in:range:direction:limit:)`` returns them.
public struct RecordEntry<Value> {
    /// The record's key.
    public let key: String
    /// The record's value.
    public let value: Value

    /// Creates an entry.
    /// - Parameters:
    ///   - key: The record's key.
    ///   - value: The record's value.
    public init(key: String, value: Value) {
        self.key = key
        self.value = value
    }
}

extension RecordEntry: Sendable where Value: Sendable {}
extension RecordEntry: Equatable where Value: Equatable {}
extension RecordEntry: Hashable where Value: Hashable {}

/// Reads records inside ``RecordStore/read(_:)`` or ``RecordStore/write(_:)``.
///
/// A reader is valid only inside the closure it was passed to; kept and used
/// later, every call throws ``TrainErrorCode/transactionEnded``.
public class RecordReader {
    @usableFromInline let backend: any StorageBackend
    let schemaName: String
    @usableFromInline let file: URL?
    /// The collections of the schema: name → name qualified by the schema.
    var collections: [String: String]
    var isActive = true
    /// How many commits of other connections the store had seen when this transaction began.
    public let externalChangeCount: UInt64

    init(backend: any StorageBackend, schemaName: String, file: URL?, collections: [String: String], externalChangeCount: UInt64) {
        self.backend = backend
        self.schemaName = schemaName
        self.file = file
        self.collections = collections
        self.externalChangeCount = externalChangeCount
    }

    /// The names of the collections of this store's schema, sorted.
    public var collectionNames: [String] {
        collections.keys.sorted()
    }

    /// The stored bytes of one record.
    /// - Parameters:
    ///   - key: The record's key.
    ///   - collection: The collection to look in.
    /// - Returns: The bytes, or nil if there is no such record.
    /// - Throws: ``CoreError`` for an unknown collection, an empty key or a storage failure.
    public func data(forKey key: String, in collection: some CollectionName) throws(CoreError) -> Data? {
        let name = try qualified(collection)
        try check(key: key)
        return try backend.value(forKey: key, in: name)
    }

    /// One record, decoded.
    /// - Parameters:
    ///   - key: The record's key.
    ///   - collection: The collection to look in, with its codec.
    /// - Returns: The value, or nil if there is no such record.
    /// - Throws: ``TrainErrorCode/undecodable`` if the stored bytes do not decode,
    ///   and the errors of ``data(forKey:in:)``.
    @inlinable
    public func value<Value>(forKey key: String, in collection: RecordCollection<Value>) throws(CoreError) -> Value? {
        guard let data = try data(forKey: key, in: collection) else { return nil }
        return try collection.decode(data, key: key, file: file)
    }

    /// The records of a collection in a range of keys, in the UTF-8 byte order of
    /// their keys or its reverse, at most `limit` of them. Costs O(log n + k) for k
    /// records returned.
    ///
    /// ```swift
    /// let newest = try records.records(in: posts, range: .prefix("ada/"), direction: .reverse, limit: 20)
    /// if let last = newest.last {
    ///     let older = try records.records(in: posts, range: .prefix("ada/").before(last.key), direction: .reverse, limit: 20)
    /// }
    /// ```
    /// - Parameters:
    ///   - collection: The collection to read.
    ///   - range: The keys to read; every key by default. A range whose lower bound
    ///     is above its upper bound holds nothing.
    ///   - direction: Ascending key order (the default) or descending.
    ///   - limit: The most records to return; nil for all. 0 returns none.
    /// - Returns: The records, in `direction`.
    /// - Throws: ``TrainErrorCode/invalidArgument`` for a negative limit, and
    ///   ``CoreError`` for an unknown collection or a storage failure.
    public func records(
        in collection: some CollectionName, range: KeyRange = .all, direction: ScanDirection = .forward, limit: Int? = nil
    ) throws(CoreError) -> [StoredRecord] {
        let name = try qualified(collection)
        guard let limit = try scanLimit(limit), !range.isEmpty else { return [] }
        return try backend.records(in: name, range: range, direction: direction, limit: limit)
    }

    /// The values of a collection in a range of keys, decoded, in key order or its
    /// reverse, at most `limit` of them.
    /// - Parameters:
    ///   - collection: The collection to read, with its codec.
    ///   - range: The keys to read; every key by default.
    ///   - direction: Ascending key order (the default) or descending.
    ///   - limit: The most values to return; nil for all.
    /// - Returns: The decoded values, in `direction`.
    /// - Throws: ``TrainErrorCode/undecodable`` if a stored value does not decode, and
    ///   the errors of ``records(in:range:direction:limit:)``.
    public func values<Value>(
        in collection: RecordCollection<Value>, range: KeyRange = .all, direction: ScanDirection = .forward, limit: Int? = nil
    ) throws(CoreError) -> [Value] {
        // A codec that reads only `Data` gets the records' own: the in-memory store holds them so.
        guard collection.bytesDecoder != nil else {
            return try records(in: collection, range: range, direction: direction, limit: limit).map { record throws(CoreError) in
                try collection.decode(record.data, key: record.key, file: file)
            }
        }
        let name = try qualified(collection)
        guard let limit = try scanLimit(limit), !range.isEmpty else { return [] }
        var values: [Value] = []
        try backend.forEachRecord(in: name, range: range, direction: direction, limit: limit) { key, bytes throws(CoreError) in
            values.append(try collection.decode(bytes, key: key, file: file))
        }
        return values
    }

    /// The records of a collection in a range of keys, each key with its decoded
    /// value: the last entry's key is where the next page starts (``KeyRange/init(after:)``).
    /// - Parameters:
    ///   - collection: The collection to read, with its codec.
    ///   - range: The keys to read; every key by default.
    ///   - direction: Ascending key order (the default) or descending.
    ///   - limit: The most entries to return; nil for all.
    /// - Returns: The entries, in `direction`.
    /// - Throws: ``TrainErrorCode/undecodable`` if a stored value does not decode, and
    ///   the errors of ``records(in:range:direction:limit:)``.
    public func entries<Value>(
        in collection: RecordCollection<Value>, range: KeyRange = .all, direction: ScanDirection = .forward, limit: Int? = nil
    ) throws(CoreError) -> [RecordEntry<Value>] {
        guard collection.bytesDecoder != nil else {
            return try records(in: collection, range: range, direction: direction, limit: limit).map { record throws(CoreError) in
                RecordEntry(key: record.key, value: try collection.decode(record.data, key: record.key, file: file))
            }
        }
        let name = try qualified(collection)
        guard let limit = try scanLimit(limit), !range.isEmpty else { return [] }
        var entries: [RecordEntry<Value>] = []
        try backend.forEachRecord(in: name, range: range, direction: direction, limit: limit) { key, bytes throws(CoreError) in
            entries.append(RecordEntry(key: String(decoding: key, as: UTF8.self), value: try collection.decode(bytes, key: key, file: file)))
        }
        return entries
    }

    /// The keys of a collection in a range, without reading their values.
    /// - Parameters:
    ///   - collection: The collection to read.
    ///   - range: The keys to read; every key by default.
    ///   - direction: Ascending key order (the default) or descending.
    ///   - limit: The most keys to return; nil for all.
    /// - Returns: The keys, in `direction`.
    /// - Throws: The errors of ``records(in:range:direction:limit:)``.
    public func keys(
        in collection: some CollectionName, range: KeyRange = .all, direction: ScanDirection = .forward, limit: Int? = nil
    ) throws(CoreError) -> [String] {
        let name = try qualified(collection)
        guard let limit = try scanLimit(limit), !range.isEmpty else { return [] }
        return try backend.keys(in: name, range: range, direction: direction, limit: limit)
    }

    /// The smallest key of a collection in a range, in O(log n).
    /// - Parameters:
    ///   - collection: The collection to read.
    ///   - range: The keys to consider; every key by default.
    /// - Returns: The key, or nil if the range holds none.
    /// - Throws: ``CoreError`` for an unknown collection or a storage failure.
    public func firstKey(in collection: some CollectionName, range: KeyRange = .all) throws(CoreError) -> String? {
        try keys(in: collection, range: range, limit: 1).first
    }

    /// The largest key of a collection in a range, in O(log n).
    /// - Parameters:
    ///   - collection: The collection to read.
    ///   - range: The keys to consider; every key by default.
    /// - Returns: The key, or nil if the range holds none.
    /// - Throws: ``CoreError`` for an unknown collection or a storage failure.
    public func lastKey(in collection: some CollectionName, range: KeyRange = .all) throws(CoreError) -> String? {
        try keys(in: collection, range: range, direction: .reverse, limit: 1).first
    }

    /// The number of records of a collection in a range, without reading their values.
    /// - Parameters:
    ///   - collection: The collection to count.
    ///   - range: The keys to count; every key by default.
    /// - Returns: How many records lie in the range.
    /// - Throws: ``CoreError`` for an unknown collection or a storage failure.
    public func count(in collection: some CollectionName, range: KeyRange = .all) throws(CoreError) -> Int {
        let name = try qualified(collection)
        guard !range.isEmpty else { return 0 }
        return try backend.count(in: name, range: range)
    }

    /// `limit` as a backend takes it (`Int.max` for none), or nil when there is nothing to read.
    private func scanLimit(_ limit: Int?) throws(CoreError) -> Int? {
        guard let limit else { return .max }
        guard limit >= 0 else {
            throw CoreError(.invalidArgument, file: file, detail: "A read's limit is 0 or more; this one is \(limit).")
        }
        return limit == 0 ? nil : limit
    }

    @usableFromInline
    func qualified(_ collection: some CollectionName) throws(CoreError) -> String {
        guard isActive else {
            throw CoreError(.transactionEnded, file: file, detail: "A transaction was used after its closure returned.")
        }
        guard let name = collections[collection.collectionName] else {
            throw CoreError(
                .unknownCollection, file: file,
                detail: "The schema '\(schemaName)' has no collection '\(collection.collectionName)'.")
        }
        return name
    }

    @usableFromInline
    func check(key: String) throws(CoreError) {
        guard !key.isEmpty, key.utf8.count <= RecordStore.maximumKeyLength else {
            throw CoreError(
                .invalidArgument, file: file,
                detail: "A record key has 1 to \(RecordStore.maximumKeyLength) bytes; this one has \(key.utf8.count).")
        }
    }
}

/// Reads and writes records inside ``RecordStore/write(_:)``. Every change commits
/// together when the closure returns, or none does if it throws.
public final class RecordWriter: RecordReader {
    /// Stores bytes under `key`, replacing any record there.
    /// - Parameters:
    ///   - data: The bytes to store.
    ///   - key: The record's key, non-empty.
    ///   - collection: The collection to write to.
    /// - Throws: ``CoreError`` for an unknown collection, an empty key or a storage failure.
    public func setData(_ data: Data, forKey key: String, in collection: some CollectionName) throws(CoreError) {
        let name = try qualified(collection)
        try check(key: key)
        try backend.put(data, forKey: key, in: name)
    }

    /// Stores bytes under `key` unless a record is there, in one step: what a caller
    /// that writes many new records uses instead of reading each key first.
    /// - Parameters:
    ///   - data: The bytes to store.
    ///   - key: The record's key, non-empty.
    ///   - collection: The collection to write to.
    /// - Returns: Whether the bytes were stored; false leaves the record there as it was.
    /// - Throws: ``CoreError`` for an unknown collection, an empty key or a storage failure.
    public func setDataIfAbsent(_ data: Data, forKey key: String, in collection: some CollectionName) throws(CoreError) -> Bool {
        let name = try qualified(collection)
        try check(key: key)
        return try backend.insert(data, forKey: key, in: name)
    }

    /// Encodes and stores a value under `key`, replacing any record there.
    /// - Parameters:
    ///   - value: The value to store.
    ///   - key: The record's key, non-empty.
    ///   - collection: The collection to write to, with its codec.
    /// - Throws: ``TrainErrorCode/unencodable`` if the value does not encode, and the
    ///   errors of ``setData(_:forKey:in:)``.
    @inlinable
    public func put<Value>(_ value: Value, forKey key: String, in collection: RecordCollection<Value>) throws(CoreError) {
        let name = try qualified(collection)
        try check(key: key)
        try backend.put(collection.encode(value, key: key), forKey: key, in: name)
    }

    /// Deletes the record under `key`; deleting a missing record does nothing.
    /// - Parameters:
    ///   - key: The record's key.
    ///   - collection: The collection to delete from.
    /// - Throws: ``CoreError`` for an unknown collection, an empty key or a storage failure.
    public func removeValue(forKey key: String, in collection: some CollectionName) throws(CoreError) {
        let name = try qualified(collection)
        try check(key: key)
        try backend.removeValue(forKey: key, in: name)
    }

    /// Deletes every record of a collection; the collection itself stays.
    /// - Parameter collection: The collection to empty.
    /// - Throws: ``CoreError`` for an unknown collection or a storage failure.
    public func removeAll(in collection: some CollectionName) throws(CoreError) {
        try backend.removeAll(in: qualified(collection))
    }

    /// Deletes the records of a collection whose keys are in `range`, such as every
    /// record of one user under a ``RecordKey`` prefix; O(log n + k) for k records.
    /// - Parameters:
    ///   - collection: The collection to delete from.
    ///   - range: The keys to delete.
    /// - Returns: How many records were deleted.
    /// - Throws: ``CoreError`` for an unknown collection or a storage failure.
    @discardableResult
    public func removeAll(in collection: some CollectionName, range: KeyRange) throws(CoreError) -> Int {
        let name = try qualified(collection)
        var removed = 0
        var remaining = range
        while !remaining.isEmpty {
            let batch = try backend.keys(in: name, range: remaining, direction: .forward, limit: 512)
            for key in batch { try backend.removeValue(forKey: key, in: name) }
            removed += batch.count
            guard let last = batch.last, batch.count == 512 else { break }
            remaining = remaining.after(last)
        }
        return removed
    }

    func createCollection(_ name: String) throws(CoreError) {
        guard isActive else {
            throw CoreError(.transactionEnded, file: file, detail: "A migration was used after it returned.")
        }
        guard !name.isEmpty, name.utf8.allSatisfy(StoreSchema.isNameByte) else {
            throw CoreError(.invalidArgument, file: file, detail: "A collection name is one or more ASCII letters, digits, '-', '_' or '.'.")
        }
        let qualifiedName = "\(schemaName)/\(name)"
        try backend.createCollection(qualifiedName)
        collections[name] = qualifiedName
    }

    func dropCollection(_ name: String) throws(CoreError) {
        let qualifiedName = try qualified(name)
        try backend.dropCollection(qualifiedName)
        collections[name] = nil
    }
}
