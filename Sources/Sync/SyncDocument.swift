import Foundation
import TrainCore

/// A record as the engine stores and sends it: each top-level property as JSON, with
/// the hybrid clock reading of the edit that last set it; a deletion is a document
/// with a deletion reading and no fields.
struct SyncDocument: Hashable, Sendable {
    /// Each field's JSON (object keys sorted, so equal values have equal bytes).
    var fields: [String: Data] { didSet { encoded = nil } }
    /// The reading of the edit that last set each field.
    var stamps: [String: HybridTimestamp] { didSet { encoded = nil } }
    /// The reading of the deletion, if the record is deleted.
    var deleted: HybridTimestamp? { didSet { encoded = nil } }
    /// The bytes the document was read from, until it changes: a downloaded document is
    /// stored without being written out again.
    private var encoded: Data?

    static func == (lhs: SyncDocument, rhs: SyncDocument) -> Bool {
        if let left = lhs.encoded, let right = rhs.encoded, left == right { return true }
        return lhs.fields == rhs.fields && lhs.stamps == rhs.stamps && lhs.deleted == rhs.deleted
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(fields)
        hasher.combine(stamps)
        hasher.combine(deleted)
    }

    /// The latest reading in the document: the time of its last edit.
    var modified: HybridTimestamp? {
        let latest = stamps.values.max()
        guard let deleted else { return latest }
        return latest.map { max($0, deleted) } ?? deleted
    }

    var isDeleted: Bool { deleted != nil }

    /// A deletion made at `stamp`.
    static func tombstone(_ stamp: HybridTimestamp) -> SyncDocument {
        SyncDocument(fields: [:], stamps: [:], deleted: stamp)
    }

    // MARK: - Records

    /// The document of `record`, each field stamped with the reading in `previous`
    /// when its value is unchanged, else with `stamp`. A field of `previous` that this
    /// version of the record does not know — added by a newer version of the app — is
    /// kept as it is, with its reading.
    static func of<Record: Syncable>(_ record: Record, previous: SyncDocument?, stamp: HybridTimestamp) throws(SyncError) -> SyncDocument {
        var fields = try fields(of: record)
        var stamps: [String: HybridTimestamp] = [:]
        for (name, value) in fields {
            if let previous, previous.deleted == nil, previous.fields[name] == value, let old = previous.stamps[name] {
                stamps[name] = old
            } else {
                stamps[name] = stamp
            }
        }
        guard let previous, previous.deleted == nil else { return SyncDocument(fields: fields, stamps: stamps, deleted: nil) }
        let missing = Set(previous.fields.keys).subtracting(fields.keys)
        if !missing.isEmpty {
            for name in missing.subtracting(previous.knownFields(of: Record.self)) {
                fields[name] = previous.fields[name]
                stamps[name] = previous.stamps[name]
            }
        }
        return SyncDocument(fields: fields, stamps: stamps, deleted: nil)
    }

    /// The fields of this document that `Record` reads: all of them if its decoder
    /// asks for every key there is; if it cannot be read as JSON, none.
    func knownFields<Record: Syncable>(of type: Record.Type) -> Set<String> {
        guard let json = try? object(), let known = try? JSONDecoder().decode(KnownFields<Record>.self, from: json) else { return [] }
        return known.names ?? Set(fields.keys)
    }

    /// Each top-level property of `record` as JSON.
    static func fields<Record: Syncable>(of record: Record) throws(SyncError) -> [String: Data] {
        do {
            let object = try JSONDecoder().decode([String: JSONValue].self, from: try JSONEncoder().encode(record))
            var fields: [String: Data] = [:]
            for (name, value) in object { fields[name] = try json(value) }
            return fields
        } catch {
            throw SyncError(.invalidRecord, detail: "\(Record.self) does not encode as a JSON object: \(error)")
        }
    }

    /// The first 16 bytes of the SHA-256 of a document's bytes: what tells a retried
    /// write from another write under the same mutation ID, on the remote and here.
    static func digest(_ data: Data) throws(SyncError) -> Data {
        do {
            return Data(try PlatformCrypto.sha256(data).prefix(16))
        } catch {
            throw SyncError(.storage, detail: "A document's digest could not be made: \(error)")
        }
    }

    /// A field's JSON as every device writes it: object keys sorted, slashes as they
    /// are, so equal values have equal bytes.
    static func json(_ value: JSONValue) throws(SyncError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(value)
        } catch {
            throw SyncError(.invalidRecord, detail: "A value does not encode as JSON: \(error)")
        }
    }

    /// The record the fields describe, or nil for a deletion.
    func record<Record: Syncable>(as type: Record.Type) throws(SyncError) -> Record? {
        guard deleted == nil else { return nil }
        do {
            return try JSONDecoder().decode(Record.self, from: try object())
        } catch {
            throw SyncError(.storage, detail: "A stored \(Record.self) does not decode: \(error)")
        }
    }

    /// The fields as one JSON object, each field's JSON read on its own first, so a
    /// field's bytes can only ever be that field's value.
    private func object() throws -> Data {
        var object: [String: JSONValue] = [:]
        for (name, data) in fields { object[name] = try JSONDecoder().decode(JSONValue.self, from: data) }
        return try JSONEncoder().encode(object)
    }

    // MARK: - Bytes

    /// The document's bytes: what is stored on this device and sent to the remote.
    /// The replicas that made its readings come first, each once; a reading names its
    /// replica by position.
    var data: Data {
        if let encoded { return encoded }
        var writer = BinaryWriter(format: 1)
        let replicas = Array(Set(stamps.values.map(\.replicaID) + (deleted.map { [$0.replicaID] } ?? []))).sorted()
        let positions = Dictionary(uniqueKeysWithValues: replicas.enumerated().map { ($1, $0) })
        writer.write(replicas.count)
        for replica in replicas { writer.write(replica) }
        writer.write(fields.count)
        for name in fields.keys.sorted() {
            writer.write(name)
            writer.write(fields[name] ?? Data())
            Self.write(stamps[name], positions, to: &writer)
        }
        Self.write(deleted, positions, to: &writer)
        return writer.data
    }

    /// Reads a document's bytes.
    init(data: Data) throws(CoreError) {
        var reader = try BinaryReader(data, formats: [1])
        let (replicas, count) = try Self.readHeader(&reader, size: data.count)
        fields = Dictionary(minimumCapacity: count)
        stamps = Dictionary(minimumCapacity: count)
        for _ in 0..<count {
            let name: String = try reader.read()
            fields[name] = try reader.read() as Data
            stamps[name] = try Self.readStamp(&reader, replicas)
        }
        deleted = try Self.readStamp(&reader, replicas)
        try reader.finish()
        encoded = data
    }

    /// What a download needs of a document, read in one pass over its bytes without
    /// building it: its latest reading, whether it is a deletion, and the JSON of the
    /// two fields `first` and `second` names.
    /// - Throws: `CoreError` if the bytes are not a document.
    static func inspect(_ data: Data, fields first: [UInt8], _ second: [UInt8]) throws(CoreError) -> Inspection {
        var reader = try BinaryReader(data, formats: [1])
        let (replicas, count) = try Self.readHeader(&reader, size: data.count)
        var inspection = Inspection()
        for _ in 0..<count {
            let name = try reader.readBytes()
            let value = try reader.readBytes()
            if name.elementsEqual(first) {
                inspection.first = value
            } else if name.elementsEqual(second) {
                inspection.second = value
            }
            if let stamp = try readStamp(&reader, replicas), inspection.latest.map({ $0 < stamp }) ?? true { inspection.latest = stamp }
        }
        if let stamp = try readStamp(&reader, replicas) {
            inspection.isDeleted = true
            if inspection.latest.map({ $0 < stamp }) ?? true { inspection.latest = stamp }
        }
        try reader.finish()
        return inspection
    }

    /// What ``inspect(_:fields:_:)`` read.
    struct Inspection {
        /// The latest reading in the document.
        var latest: HybridTimestamp?
        /// Whether the document is a deletion.
        var isDeleted = false
        /// The JSON of the first field asked for, if the document has it.
        var first: ArraySlice<UInt8>?
        /// The JSON of the second field asked for, if the document has it.
        var second: ArraySlice<UInt8>?
    }

    init(fields: [String: Data], stamps: [String: HybridTimestamp], deleted: HybridTimestamp?) {
        self.fields = fields
        self.stamps = stamps
        self.deleted = deleted
    }

    /// Reads the replicas a document names and the number of its fields.
    private static func readHeader(_ reader: inout BinaryReader, size: Int) throws(CoreError) -> (replicas: [String], fields: Int) {
        let replicaCount: Int = try reader.read()
        guard replicaCount >= 0, replicaCount <= size else {
            throw CoreError(.undecodable, detail: "A sync document names \(replicaCount) replicas.")
        }
        var replicas: [String] = []
        for _ in 0..<replicaCount { replicas.append(try reader.read()) }
        let count: Int = try reader.read()
        guard count >= 0, count <= size else { throw CoreError(.undecodable, detail: "A sync document has \(count) fields.") }
        return (replicas, count)
    }

    private static func write(_ stamp: HybridTimestamp?, _ replicas: [String: Int], to writer: inout BinaryWriter) {
        writer.write(stamp != nil)
        guard let stamp else { return }
        writer.write(Int(stamp.milliseconds))
        writer.write(Int(stamp.counter))
        writer.write(replicas[stamp.replicaID] ?? 0)
    }

    private static func readStamp(_ reader: inout BinaryReader, _ replicas: [String]) throws(CoreError) -> HybridTimestamp? {
        guard try reader.read() as Bool else { return nil }
        let milliseconds: Int = try reader.read()
        let counter: Int = try reader.read()
        let replica: Int = try reader.read()
        guard let counter = UInt32(exactly: counter), replicas.indices.contains(replica) else {
            throw CoreError(.undecodable, detail: "A clock reading is out of range.")
        }
        return HybridTimestamp(milliseconds: Int64(milliseconds), counter: counter, replicaID: replicas[replica])
    }
}

/// Any JSON value, decoded without loss so a field can be stored and compared as bytes.
enum JSONValue: Codable, Hashable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

extension SyncDocument: Codable {
    init(from decoder: any Decoder) throws {
        try self.init(data: try decoder.singleValueContainer().decode(Data.self))
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(data)
    }
}
