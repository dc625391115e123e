import Foundation

/// A compact binary encoding for records read and written on a hot path, where JSON
/// (several microseconds a record with Foundation on Linux) would dominate. Fields
/// are written in a fixed order after a format byte; a record type owns its layout.
///
/// ```swift
/// var writer = BinaryWriter(format: 1)
/// writer.write(transaction.id)
/// writer.write(transaction.productID)
/// let data = writer.data
///
/// let id: UInt64 = try BinaryReader.reading(data, formats: [1]) { reader throws(CoreError) in try reader.read() }
/// ```
package struct BinaryWriter {
    /// The bytes written so far.
    package private(set) var bytes: [UInt8]
    /// The record's layout, its first byte.
    package var format: UInt8 { bytes[0] }

    /// Starts a record of layout `format`.
    package init(format: UInt8) {
        // One allocation with room for a whole record, as growing the buffer copies it:
        // a renewal's server notification, with its transaction and subscription, takes
        // 559 bytes; the transaction alone 275.
        bytes = []
        bytes.reserveCapacity(1_024)
        bytes.append(format)
    }

    /// The record's bytes.
    package var data: Data { Data(bytes) }

    package mutating func write(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    package mutating func write(_ value: Int) { write(UInt64(bitPattern: Int64(value))) }

    package mutating func write(_ value: Bool) { bytes.append(value ? 1 : 0) }

    package mutating func write(_ value: Double) { write(value.bitPattern) }

    /// A date, exactly (its `timeIntervalSinceReferenceDate` bits).
    package mutating func write(_ value: Date) { write(value.timeIntervalSinceReferenceDate) }

    package mutating func write(_ value: String) {
        // A native string's bytes are read in place; copying the string to reach them
        // would retain and release it.
        if value.utf8.withContiguousStorageIfAvailable({ write(utf8: $0) }) != nil { return }
        var value = value
        value.withUTF8 { write(utf8: $0) }
    }

    /// The byte count, then the bytes.
    private mutating func write(utf8: UnsafeBufferPointer<UInt8>) {
        write(utf8.count)
        bytes.append(contentsOf: utf8)
    }

    package mutating func write(_ value: UUID) {
        withUnsafeBytes(of: value.uuid) { bytes.append(contentsOf: $0) }
    }

    /// The fields another writer wrote, after its format byte, as they are: a record
    /// nested in this one, read back field by field in the same order.
    package mutating func writeFields(of record: Data) {
        record.withUnsafeBytes { buffer in bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer.dropFirst())) }
    }

    /// The byte count, then the bytes.
    package mutating func write(_ value: Data) {
        write(value.count)
        bytes.append(contentsOf: value)
    }

    /// An unsigned integer in as few bytes as it needs: seven bits a byte, low bits
    /// first, the high bit set on every byte but the last (LEB128).
    package mutating func writeCompact(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// A signed integer in as few bytes as its size needs (zigzag, then LEB128).
    package mutating func writeCompact(_ value: Int64) {
        writeCompact(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    /// Bytes after their count, written compactly.
    package mutating func writeCompact<Bytes: Collection<UInt8>>(bytes value: Bytes) {
        writeCompact(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    /// A string's UTF-8 after its byte count, written compactly.
    package mutating func writeCompact(_ value: String) {
        writeCompact(bytes: Array(value.utf8))
    }

    /// A presence byte, then the value if there is one.
    package mutating func write(_ value: Date?) {
        write(value != nil)
        if let value { write(value) }
    }

    /// A presence byte, then the value if there is one.
    package mutating func write(_ value: String?) {
        write(value != nil)
        if let value { write(value) }
    }

    /// A presence byte, then the value if there is one.
    package mutating func write(_ value: UUID?) {
        write(value != nil)
        if let value { write(value) }
    }
}

/// Reads what a ``BinaryWriter`` wrote, in the same order. Every read checks that the
/// bytes are there, and ``finish()`` that none are left after the last field: a
/// cut-off, overlong or foreign record is a ``TrainErrorCode/undecodable``.
///
/// A reader reads the record's bytes in place, so it lives only inside
/// ``reading(_:formats:_:)``, as do the byte buffers it returns: a feed
/// page's twenty posts, or an export's 100k, are read without a copy of each.
package struct BinaryReader {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var offset = 1
    /// The record's layout, its first byte.
    package let format: UInt8

    /// A reader of `bytes`, whose layout must be one of `formats`.
    private init(_ bytes: UnsafeBufferPointer<UInt8>, formats: Set<UInt8>) throws(CoreError) {
        guard let first = bytes.first, formats.contains(first) else {
            throw CoreError(.undecodable, detail: "The record is not in a known binary layout.")
        }
        self.init(bytes, format: first)
    }

    /// A reader of `bytes`, whose first byte, `format`, the caller has checked.
    fileprivate init(_ bytes: UnsafeBufferPointer<UInt8>, format: UInt8) {
        self.bytes = bytes
        self.format = format
    }

    /// Reads the record `data` holds, whose layout must be one of `formats`, with
    /// `body`: the reader and the buffers it returns are valid only inside it.
    package static func reading<Value>(
        _ data: Data, formats: Set<UInt8>, _ body: (inout BinaryReader) throws(CoreError) -> Value
    ) throws(CoreError) -> Value {
        let result: Result<Value, CoreError> = data.withUnsafeBytes { raw in
            Result { () throws(CoreError) in
                var reader = try BinaryReader(raw.assumingMemoryBound(to: UInt8.self), formats: formats)
                return try body(&reader)
            }
        }
        return try result.get()
    }

    /// Checks that the record ends after the last field read: bytes left over mean the
    /// record is not what its layout says — cut from a longer one, or damaged.
    package func finish() throws(CoreError) {
        guard bytesLeft == 0 else {
            throw CoreError(.undecodable, detail: "The record has \(bytesLeft) bytes after its last field.")
        }
    }

    /// The bytes after the fields read so far.
    package var bytesLeft: Int { bytes.count - offset }

    private mutating func take(_ count: Int) throws(CoreError) -> UnsafeBufferPointer<UInt8> {
        guard count >= 0, count <= bytesLeft else {
            throw CoreError(.undecodable, detail: "The record ends early.")
        }
        defer { offset += count }
        return UnsafeBufferPointer(rebasing: bytes[offset..<offset + count])
    }

    /// Eight bytes, least significant first.
    package mutating func read() throws(CoreError) -> UInt64 {
        UInt64(littleEndian: UnsafeRawBufferPointer(try take(8)).loadUnaligned(as: UInt64.self))
    }

    package mutating func read() throws(CoreError) -> Int { Int(Int64(bitPattern: try read())) }

    package mutating func read() throws(CoreError) -> Bool {
        switch try take(1).first {
        case 0: false
        case 1: true
        default: throw CoreError(.undecodable, detail: "A flag is neither 0 nor 1.")
        }
    }

    package mutating func read() throws(CoreError) -> Double { Double(bitPattern: try read()) }

    package mutating func read() throws(CoreError) -> Date { Date(timeIntervalSinceReferenceDate: try read()) }

    package mutating func read() throws(CoreError) -> String {
        let count: Int = try read()
        return String(decoding: try take(count), as: UTF8.self)
    }

    /// Skips a length-prefixed value (a string or bytes) without copying it.
    package mutating func skipValue() throws(CoreError) {
        let count: Int = try read()
        _ = try take(count)
    }

    package mutating func read() throws(CoreError) -> Data {
        let count: Int = try read()
        return Data(try take(count))
    }

    /// A length-prefixed value's bytes, in place: valid only inside the `reading` call.
    package mutating func readBytes() throws(CoreError) -> UnsafeBufferPointer<UInt8> {
        let count: Int = try read()
        return try take(count)
    }

    /// An unsigned integer written compactly by a `BinaryWriter`; one
    /// longer than ten bytes, or with bits past 64, is undecodable.
    package mutating func readCompact() throws(CoreError) -> UInt64 {
        var value: UInt64 = 0
        for shift in stride(from: UInt64(0), to: 70, by: 7) {
            guard let byte = try take(1).first else { break }
            guard shift < 63 || byte & 0x7F <= 1 else { throw CoreError(.undecodable, detail: "A number is over 64 bits.") }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
        }
        throw CoreError(.undecodable, detail: "A number runs over ten bytes.")
    }

    /// A signed integer written compactly by a `BinaryWriter`.
    package mutating func readCompactSigned() throws(CoreError) -> Int64 {
        let raw = try readCompact()
        return Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
    }

    /// A count written compactly, at most `limit`.
    package mutating func readCompactCount(atMost limit: Int) throws(CoreError) -> Int {
        let count = try readCompact()
        guard count <= UInt64(max(limit, 0)) else { throw CoreError(.undecodable, detail: "A count of \(count) is over \(limit).") }
        return Int(count)
    }

    /// Bytes after a compact count, in place: valid only inside the `reading` call.
    package mutating func readCompactBytes() throws(CoreError) -> UnsafeBufferPointer<UInt8> {
        try take(try readCompactCount(atMost: bytesLeft))
    }

    /// A string written compactly by a `BinaryWriter`.
    package mutating func readCompactString() throws(CoreError) -> String {
        String(decoding: try readCompactBytes(), as: UTF8.self)
    }

    /// Sixteen bytes, read in place.
    package mutating func read() throws(CoreError) -> UUID {
        UUID(uuid: UnsafeRawBufferPointer(try take(16)).loadUnaligned(as: uuid_t.self))
    }

    package mutating func read() throws(CoreError) -> Date? {
        try read() as Bool ? try read() as Date : nil
    }

    package mutating func read() throws(CoreError) -> String? {
        try read() as Bool ? try read() as String : nil
    }

    package mutating func read() throws(CoreError) -> UUID? {
        try read() as Bool ? try read() as UUID : nil
    }

    /// An optional enumeration value stored by its raw string.
    package mutating func read<Value: RawRepresentable>(_ type: Value?.Type) throws(CoreError) -> Value? where Value.RawValue == String {
        try read() as Bool ? try read(Value.self) : nil
    }

    /// A value of an enumeration stored by its raw string.
    package mutating func read<Value: RawRepresentable>(_ type: Value.Type) throws(CoreError) -> Value where Value.RawValue == String {
        let raw: String = try read()
        guard let value = Value(rawValue: raw) else {
            throw CoreError(.undecodable, detail: "'\(raw)' is not a \(Value.self).")
        }
        return value
    }
}

extension RecordCollection where Value: Codable & Sendable {
    /// A collection whose records are written in a binary layout and read from it, or
    /// from the JSON an earlier version wrote.
    /// - Parameters:
    ///   - name: The collection's name within its schema.
    ///   - format: The layout's format byte, first in every record written.
    ///   - earlierFormats: Older layouts still read; `decode` tells them apart by the
    ///     reader's `format`.
    ///   - encode: Writes a value's fields in order.
    ///   - decode: Reads them back in the same order.
    /// - Returns: The collection reference.
    package static func binary(
        _ name: String, format: UInt8, earlierFormats: Set<UInt8> = [], encode: @escaping @Sendable (Value, inout BinaryWriter) -> Void,
        decode: @escaping @Sendable (inout BinaryReader) throws(CoreError) -> Value
    ) -> RecordCollection<Value> {
        let formats = LayoutBits(earlierFormats.union([format]))
        // Bytes in place: binary when they start with a known layout, else the JSON the
        // collection held before.
        let decodeBytes: @Sendable (UnsafeRawBufferPointer) throws -> Value = { raw in
            let bytes = raw.assumingMemoryBound(to: UInt8.self)
            guard let first = bytes.first, formats.contains(first) else { return try JSONDecoder().decode(Value.self, from: Data(raw)) }
            var reader = BinaryReader(bytes, format: first)
            let value = try decode(&reader)
            try reader.finish()
            return value
        }
        return RecordCollection(
            name,
            encode: { value in
                var writer = BinaryWriter(format: format)
                encode(value, &writer)
                return writer.data
            },
            decode: { data in try data.withUnsafeBytes(decodeBytes) },
            decodeBytes: decodeBytes)
    }
}

/// A set of record layouts as 256 bits: what tells each record read apart without
/// hashing its first byte.
private struct LayoutBits: Sendable {
    private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    init(_ layouts: Set<UInt8>) {
        for layout in layouts {
            let bit = UInt64(1) << UInt64(layout & 63)
            switch layout >> 6 {
            case 0: words.0 |= bit
            case 1: words.1 |= bit
            case 2: words.2 |= bit
            default: words.3 |= bit
            }
        }
    }

    func contains(_ layout: UInt8) -> Bool {
        let bit = UInt64(1) << UInt64(layout & 63)
        switch layout >> 6 {
        case 0: return words.0 & bit != 0
        case 1: return words.1 & bit != 0
        case 2: return words.2 & bit != 0
        default: return words.3 & bit != 0
        }
    }
}
