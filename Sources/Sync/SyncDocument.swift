import Foundation
import TrainCore

/// A record as the engine stores and sends it: each top-level property as JSON, with
/// the hybrid clock reading of the edit that last set it; a deletion is a document
/// with a deletion reading and no fields. A field whose value is a list of objects
/// with distinct `id`s also has a reading for each element, and for each element
/// removed from it (a tombstone), so two devices' changes merge element by element.
struct SyncDocument: Hashable, Sendable {
    /// Each field's JSON (object keys sorted, so equal values have equal bytes).
    var fields: [String: Data] { didSet { encoded = nil } }
    /// The reading of the edit that last set each field.
    var stamps: [String: HybridTimestamp] { didSet { encoded = nil } }
    /// The reading of the deletion, if the record is deleted.
    var deleted: HybridTimestamp? { didSet { encoded = nil } }
    /// For each list field, by the JSON of an element's ID: the reading of the edit
    /// that last set or removed the element.
    var elements: [String: [String: ElementStamp]] = [:] { didSet { encoded = nil } }
    /// The bytes the document was read from, until it changes: a downloaded document is
    /// stored without being written out again.
    private var encoded: Data?

    static func == (lhs: SyncDocument, rhs: SyncDocument) -> Bool {
        if let left = lhs.encoded, let right = rhs.encoded, left == right { return true }
        return lhs.fields == rhs.fields && lhs.stamps == rhs.stamps && lhs.deleted == rhs.deleted && lhs.elements == rhs.elements
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(fields)
        hasher.combine(stamps)
        hasher.combine(deleted)
        hasher.combine(elements)
    }

    /// The latest reading in the document: the time of its last edit.
    var modified: HybridTimestamp? {
        let readings = stamps.values.max().map { [$0] } ?? []
        let elementReadings = elements.values.compactMap { $0.values.map(\.stamp).max() }
        return (readings + elementReadings + (deleted.map { [$0] } ?? [])).max()
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
        // A field this version sees unchanged keeps its stored bytes, with what a newer
        // version wrote inside them (a key of a list's elements this version ignores).
        let differs = fields.contains { name, value in previous?.fields[name].map { $0 != value } ?? false }
        if let previous, previous.deleted == nil, differs, let seen = (try? previous.record(as: Record.self)).flatMap({ try? Self.fields(of: $0) }) {
            for (name, value) in fields where seen[name] == value {
                if let stored = previous.fields[name] { fields[name] = stored }
            }
        }
        var stamps: [String: HybridTimestamp] = [:]
        for (name, value) in fields {
            if let previous, previous.deleted == nil, previous.fields[name] == value, let old = previous.stamps[name] {
                stamps[name] = old
            } else {
                stamps[name] = stamp
            }
        }
        let previous = previous?.deleted == nil ? previous : nil
        var kept: [String: [String: ElementStamp]] = [:]
        if let previous {
            let missing = Set(previous.fields.keys).subtracting(fields.keys)
            if !missing.isEmpty {
                for name in missing.subtracting(previous.knownFields(of: Record.self)) {
                    fields[name] = previous.fields[name]
                    stamps[name] = previous.stamps[name]
                    kept[name] = previous.elements[name]
                }
            }
        }
        var document = SyncDocument(fields: fields, stamps: stamps, deleted: nil)
        for (name, value) in fields where kept[name] == nil && value.first == UInt8(ascii: "[") {
            if let list = elementStamps(of: name, value: value, previous: previous, stamp: stamp, as: Record.self), !list.isEmpty {
                document.elements[name] = list
            }
        }
        for (name, list) in kept { document.elements[name] = list }
        return document
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

    /// The document's bytes: what is stored on this device and sent to the remote, in
    /// layout 3. The replicas that made its readings come first, each once; a reading
    /// names its replica by position; then the fields, each with its reading; the
    /// deletion's reading; and the readings of list elements, each with its position
    /// and the reading that placed it there. Numbers and lengths take as few bytes as
    /// they need. A document with no positions is written in layout 2, which has none,
    /// so an earlier version reads it. Layout 1, with eight bytes for each and no
    /// element readings, is still read.
    var data: Data {
        if let encoded { return encoded }
        let positioned = elements.values.contains { $0.values.contains { $0.position.map(ListPosition.isValid) == true && $0.placed != nil } }
        var writer = BinaryWriter(format: positioned ? 3 : 2)
        var all = Array(stamps.values) + (deleted.map { [$0] } ?? [])
        for list in elements.values { all += list.values.flatMap { [$0.stamp] + ($0.placed.map { [$0] } ?? []) } }
        let replicas = Array(Set(all.map(\.replicaID))).sorted()
        let positions = Dictionary(uniqueKeysWithValues: replicas.enumerated().map { ($1, $0) })
        writer.writeCompact(UInt64(replicas.count))
        for replica in replicas { writer.writeCompact(replica) }
        writer.writeCompact(UInt64(fields.count))
        for name in fields.keys.sorted() {
            writer.writeCompact(name)
            writer.writeCompact(bytes: fields[name] ?? Data())
            Self.write(stamps[name], positions, to: &writer)
        }
        Self.write(deleted, positions, to: &writer)
        writer.writeCompact(UInt64(elements.count))
        for name in elements.keys.sorted() {
            let list = elements[name] ?? [:]
            writer.writeCompact(name)
            writer.writeCompact(UInt64(list.count))
            for id in list.keys.sorted() {
                writer.writeCompact(id)
                Self.write(list[id]?.stamp, positions, to: &writer)
                writer.write(list[id]?.isRemoved ?? false)
                if positioned {
                    // An element of a document stored before positions has none: it reads back without one.
                    if let position = list[id]?.position, ListPosition.isValid(position), let placed = list[id]?.placed {
                        writer.write(true)
                        writer.writeCompact(position)
                        Self.write(placed, positions, to: &writer)
                    } else {
                        writer.write(false)
                    }
                }
            }
        }
        return writer.data
    }

    /// Reads a document's bytes.
    init(data: Data) throws(CoreError) {
        self = try BinaryReader.reading(data, formats: [1, 2, 3]) { reader throws(CoreError) in try Self(reading: &reader, data: data) }
    }

    /// Reads the document `reader` is at, whose bytes are `data`.
    private init(reading reader: inout BinaryReader, data: Data) throws(CoreError) {
        let replicas = try Self.readReplicas(&reader)
        let count = try Self.readCount(&reader)
        fields = Dictionary(minimumCapacity: count)
        stamps = Dictionary(minimumCapacity: count)
        for _ in 0..<count {
            let name = String(decoding: try Self.readBytes(&reader), as: UTF8.self)
            fields[name] = Data(try Self.readBytes(&reader))
            stamps[name] = try Self.readStamp(&reader, replicas)
        }
        deleted = try Self.readStamp(&reader, replicas)
        if reader.format >= 2 {
            for _ in 0..<(try Self.readCount(&reader)) {
                let name = try reader.readCompactString()
                var list: [String: ElementStamp] = [:]
                for _ in 0..<(try Self.readCount(&reader)) {
                    let id = try reader.readCompactString()
                    guard let stamp = try Self.readStamp(&reader, replicas) else {
                        throw CoreError(.undecodable, detail: "A list element has no clock reading.")
                    }
                    var element = ElementStamp(stamp: stamp, isRemoved: try reader.read())
                    if reader.format == 3, let place = try Self.readPlace(&reader, replicas) { (element.position, element.placed) = place }
                    list[id] = element
                }
                elements[name] = list
            }
        }
        try reader.finish()
        encoded = data
    }

    /// What a download needs of a document, read in one pass over its bytes without
    /// building it: its latest reading, whether it is a deletion, and the JSON of the
    /// two fields `first` and `second` names.
    /// - Throws: `CoreError` if the bytes are not a document.
    static func inspect(_ data: Data, fields first: [UInt8], _ second: [UInt8]) throws(CoreError) -> Inspection {
        try BinaryReader.reading(data, formats: [1, 2, 3]) { reader throws(CoreError) in try inspect(&reader, fields: first, second) }
    }

    /// ``inspect(_:fields:_:)`` of the document `reader` is at.
    private static func inspect(_ reader: inout BinaryReader, fields first: [UInt8], _ second: [UInt8]) throws(CoreError) -> Inspection {
        let replicas = try readReplicas(&reader)
        var inspection = Inspection()
        func note(_ stamp: HybridTimestamp?) {
            if let stamp, inspection.latest.map({ $0 < stamp }) ?? true { inspection.latest = stamp }
        }
        for _ in 0..<(try readCount(&reader)) {
            let name = try readBytes(&reader)
            let value = try readBytes(&reader)
            if name.elementsEqual(first) {
                inspection.first = Array(value)
            } else if name.elementsEqual(second) {
                inspection.second = Array(value)
            }
            note(try readStamp(&reader, replicas))
        }
        if let stamp = try readStamp(&reader, replicas) {
            inspection.isDeleted = true
            note(stamp)
        }
        if reader.format >= 2 {
            for _ in 0..<(try readCount(&reader)) {
                _ = try reader.readCompactBytes()
                for _ in 0..<(try readCount(&reader)) {
                    _ = try reader.readCompactBytes()
                    note(try readStamp(&reader, replicas))
                    _ = try reader.read() as Bool
                    if reader.format == 3 { note(try readPlace(&reader, replicas)?.placed) }
                }
            }
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
        var first: [UInt8]?
        /// The JSON of the second field asked for, if the document has it.
        var second: [UInt8]?
    }

    init(fields: [String: Data], stamps: [String: HybridTimestamp], deleted: HybridTimestamp?) {
        self.fields = fields
        self.stamps = stamps
        self.deleted = deleted
    }

    /// A count of entries that follow, each at least a byte: no more than the bytes left.
    private static func readCount(_ reader: inout BinaryReader) throws(CoreError) -> Int {
        guard reader.format == 1 else { return try reader.readCompactCount(atMost: reader.bytesLeft) }
        let count: Int = try reader.read()
        guard count >= 0, count <= reader.bytesLeft else { throw CoreError(.undecodable, detail: "A sync document counts \(count) entries.") }
        return count
    }

    /// A length-prefixed value's bytes, in the reader's layout.
    private static func readBytes(_ reader: inout BinaryReader) throws(CoreError) -> UnsafeBufferPointer<UInt8> {
        reader.format == 1 ? try reader.readBytes() : try reader.readCompactBytes()
    }

    /// The replicas a document's readings name, by position.
    private static func readReplicas(_ reader: inout BinaryReader) throws(CoreError) -> [String] {
        var replicas: [String] = []
        for _ in 0..<(try readCount(&reader)) { replicas.append(String(decoding: try readBytes(&reader), as: UTF8.self)) }
        return replicas
    }

    private static func write(_ stamp: HybridTimestamp?, _ replicas: [String: Int], to writer: inout BinaryWriter) {
        writer.write(stamp != nil)
        guard let stamp else { return }
        writer.writeCompact(stamp.milliseconds)
        writer.writeCompact(UInt64(stamp.counter))
        writer.writeCompact(UInt64(replicas[stamp.replicaID] ?? 0))
    }

    /// An element's position and the reading that placed it, as layout 3 keeps them, or
    /// nil for an element kept from a document stored before positions; a position
    /// that is not a ``ListPosition`` this version writes is refused.
    private static func readPlace(_ reader: inout BinaryReader, _ replicas: [String]) throws(CoreError) -> (
        position: String, placed: HybridTimestamp
    )? {
        guard try reader.read() as Bool else { return nil }
        let position = try reader.readCompactString()
        guard ListPosition.isValid(position) else {
            throw CoreError(.undecodable, detail: "A list element's position is not 1 to \(ListPosition.maximumLength) base-62 digits.")
        }
        guard let placed = try readStamp(&reader, replicas) else { throw CoreError(.undecodable, detail: "A list element has no placing reading.") }
        return (position, placed)
    }

    private static func readStamp(_ reader: inout BinaryReader, _ replicas: [String]) throws(CoreError) -> HybridTimestamp? {
        guard try reader.read() as Bool else { return nil }
        let milliseconds: Int64
        let counter: UInt64
        let replica: UInt64
        if reader.format == 1 {
            milliseconds = Int64(try reader.read() as Int)
            counter = UInt64(bitPattern: Int64(try reader.read() as Int))
            replica = UInt64(bitPattern: Int64(try reader.read() as Int))
        } else {
            milliseconds = try reader.readCompactSigned()
            counter = try reader.readCompact()
            replica = try reader.readCompact()
        }
        guard let counter = UInt32(exactly: counter), replica < UInt64(replicas.count) else {
            throw CoreError(.undecodable, detail: "A clock reading is out of range.")
        }
        return HybridTimestamp(milliseconds: milliseconds, counter: counter, replicaID: replicas[Int(replica)])
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
