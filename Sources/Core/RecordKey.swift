import Foundation

/// A composite record key whose order is the order of its components: strings,
/// signed and unsigned 64-bit integers, dates to the millisecond and UUIDs, each
/// ascending or descending. Services build keys with it instead of formatting them
/// by hand, so that a range of keys is a range of tuples.
///
/// ```swift
/// // A user's posts, newest first: one forward scan of the user's range.
/// let key = try RecordKey(.string(post.userID), .descending(.date(post.createdAt)), .string(post.id))
/// try records.put(post, forKey: key.encoded, in: posts)
/// let page = try records.values(in: posts, range: try RecordKey(.string(userID)).range, limit: 20)
/// ```
///
/// Comparing two encoded keys as UTF-8 bytes (the order of a ``RecordStore``) gives
/// the order of their components, compared one after another: strings by the UTF-8
/// bytes of their text, whatever they contain (a string that is a prefix of another
/// sorts first), integers and dates numerically, UUIDs by their bytes; a descending
/// component reverses its own order. Components of different kinds at the same
/// position order by kind. A key made of some components is a prefix of every key
/// that starts with them, so ``range`` covers exactly those keys.
public struct RecordKey: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// One part of a key.
    public indirect enum Component: Hashable, Sendable {
        /// Text of any content, NUL and other control characters included.
        case string(String)
        /// A signed 64-bit integer.
        case int(Int64)
        /// An unsigned 64-bit integer.
        case uint(UInt64)
        /// A date, to the nearest millisecond, from `Date.distantPast` to the end of the
        /// year 9999 (before 1970 included).
        case date(Date)
        /// A UUID, ordered by its bytes.
        case uuid(UUID)
        /// The component in reverse order: the newest date first, the largest number first.
        case descending(Component)

        /// Whether two components are the same value; strings are the same when their
        /// UTF-8 bytes are (two spellings of one text are two keys, as in the store).
        /// - Parameters:
        ///   - lhs: A component.
        ///   - rhs: Another component.
        /// - Returns: Whether they encode to the same bytes.
        public static func == (lhs: Component, rhs: Component) -> Bool {
            switch (lhs, rhs) {
            case (.string(let a), .string(let b)): a.utf8.elementsEqual(b.utf8)
            case (.int(let a), .int(let b)): a == b
            case (.uint(let a), .uint(let b)): a == b
            case (.date(let a), .date(let b)): a == b
            case (.uuid(let a), .uuid(let b)): a == b
            case (.descending(let a), .descending(let b)): a == b
            default: false
            }
        }

        /// Hashes the component consistently with ``==(_:_:)``.
        /// - Parameter hasher: The hasher.
        public func hash(into hasher: inout Hasher) {
            switch self {
            case .string(var text):
                hasher.combine(0)
                text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
            case .int(let value):
                hasher.combine(1)
                hasher.combine(value)
            case .uint(let value):
                hasher.combine(2)
                hasher.combine(value)
            case .date(let value):
                hasher.combine(3)
                hasher.combine(value)
            case .uuid(let value):
                hasher.combine(4)
                hasher.combine(value)
            case .descending(let inner):
                hasher.combine(5)
                hasher.combine(inner)
            }
        }
    }

    /// The components, as decoded from ``encoded`` (dates to the millisecond).
    public let components: [Component]
    /// The key as stored: valid UTF-8 whose byte order is the components' order.
    public let encoded: String

    /// Builds a key from its components.
    /// - Parameter components: The components, most significant first.
    /// - Throws: ``TrainErrorCode/invalidArgument`` for a date before `Date.distantPast`
    ///   or after the year 9999, or a descending component inside a descending one.
    public init(_ components: Component...) throws(CoreError) {
        try self.init(components)
    }

    /// Builds a key from its components.
    /// - Parameter components: The components, most significant first.
    /// - Throws: ``TrainErrorCode/invalidArgument``, as ``init(_:)-(Component...)``.
    public init(_ components: [Component]) throws(CoreError) {
        // Bytes first, one String at the end: appending to a String scalar by scalar
        // cost more than everything else a write of a post does.
        var encoded: [UInt8] = []
        encoded.reserveCapacity(components.count * 24)
        var stored: [Component] = []
        stored.reserveCapacity(components.count)
        for component in components {
            stored.append(try Self.encode(component, descending: false, into: &encoded))
        }
        self.components = stored
        self.encoded = String(decoding: encoded, as: UTF8.self)
    }

    /// Decodes a key made by ``init(_:)-(Component...)``.
    /// - Parameter encoded: A key as stored.
    /// - Throws: ``TrainErrorCode/invalidArgument`` if `encoded` is not such a key.
    public init(encoded: String) throws(CoreError) {
        var reader = KeyReader(Array(encoded.utf8))
        var components: [Component] = []
        while !reader.isAtEnd { components.append(try reader.component()) }
        self.components = components
        self.encoded = encoded
    }

    /// The keys that start with this one's components — every key made of them and
    /// more — and the key itself.
    public var range: KeyRange { .prefix(encoded) }

    /// A new key with `component` after this one's.
    /// - Parameter component: The next component.
    /// - Returns: The longer key.
    /// - Throws: ``TrainErrorCode/invalidArgument``, as ``init(_:)-(Component...)``.
    public func appending(_ component: Component) throws(CoreError) -> RecordKey {
        try RecordKey(components + [component])
    }

    /// Whether two keys are the same bytes (two spellings of one text are two keys, as
    /// in the store).
    /// - Parameters:
    ///   - lhs: A key.
    ///   - rhs: Another key.
    /// - Returns: Whether their encodings are byte for byte equal.
    public static func == (lhs: RecordKey, rhs: RecordKey) -> Bool {
        lhs.encoded.utf8.elementsEqual(rhs.encoded.utf8)
    }

    /// Hashes the encoding's bytes, consistent with ``==(_:_:)``.
    /// - Parameter hasher: The hasher.
    public func hash(into hasher: inout Hasher) {
        var encoded = encoded
        encoded.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// Orders keys as the store does: by the UTF-8 bytes of ``encoded``.
    /// - Parameters:
    ///   - lhs: A key.
    ///   - rhs: Another key.
    /// - Returns: Whether `lhs` sorts first.
    public static func < (lhs: RecordKey, rhs: RecordKey) -> Bool {
        lhs.encoded.utf8.lexicographicallyPrecedes(rhs.encoded.utf8)
    }

    /// The components, for logs.
    public var description: String { "RecordKey\(components)" }

    // MARK: - Encoding

    // Each component is a kind letter, then its body. The letters order the kinds.
    // Ascending text is its UTF-8 bytes with NUL written as NUL + 0x01, ended by two
    // NULs, so a shorter text sorts before a longer one it starts. Numbers are 16
    // lowercase hex digits of their order-preserving 64 bits. Descending text is two
    // hex digits of each complemented byte, ended by '~', which sorts after any digit.
    // Descending numbers complement their 64 bits. Every key is ASCII but for the
    // bytes of ascending text, so it is valid UTF-8.
    private enum Kind: UInt8 {
        case string = 0x73 // s
        case int = 0x69 // i
        case uint = 0x75 // u
        case date = 0x64 // d
        case uuid = 0x67 // g
        case stringDown = 0x53 // S
        case intDown = 0x49 // I
        case uintDown = 0x55 // U
        case dateDown = 0x44 // D
        case uuidDown = 0x47 // G
    }

    /// Appends `component` and returns it as it decodes (a date to the millisecond).
    private static func encode(_ component: Component, descending: Bool, into key: inout [UInt8]) throws(CoreError) -> Component {
        switch component {
        case .descending(let inner):
            guard !descending else {
                throw CoreError(.invalidArgument, detail: "A key component cannot be descending twice.")
            }
            return .descending(try encode(inner, descending: true, into: &key))
        case .string(let text):
            if descending {
                key.append(Kind.stringDown.rawValue)
                for byte in text.utf8 { appendHex(UInt64(~byte), digits: 2, to: &key) }
                key.append(UInt8(ascii: "~"))
            } else {
                // A NUL byte is only ever the NUL character in UTF-8.
                key.append(Kind.string.rawValue)
                for byte in text.utf8 {
                    key.append(byte)
                    if byte == 0 { key.append(1) }
                }
                key.append(0)
                key.append(0)
            }
            return component
        case .int(let value):
            appendNumber(UInt64(bitPattern: value) ^ (1 << 63), kind: descending ? .intDown : .int, descending: descending, to: &key)
            return component
        case .uint(let value):
            appendNumber(value, kind: descending ? .uintDown : .uint, descending: descending, to: &key)
            return component
        case .date(let date):
            let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
            guard milliseconds.isFinite, (Self.earliestDate...Self.latestDate).contains(milliseconds) else {
                throw CoreError(
                    .invalidArgument,
                    detail:
                        "A date in a key lies between Date.distantPast and the end of the year 9999; this one is \(date.timeIntervalSince1970) s from 1970."
                )
            }
            let value = Int64(milliseconds)
            appendNumber(UInt64(bitPattern: value) ^ (1 << 63), kind: descending ? .dateDown : .date, descending: descending, to: &key)
            return .date(Date(timeIntervalSince1970: Double(value) / 1000))
        case .uuid(let uuid):
            key.append((descending ? Kind.uuidDown : Kind.uuid).rawValue)
            withUnsafeBytes(of: uuid.uuid) { bytes in
                for byte in bytes { appendHex(UInt64(descending ? ~byte : byte), digits: 2, to: &key) }
            }
            return component
        }
    }

    /// The milliseconds of `Date.distantPast` and of the end of the year 9999, relative
    /// to 1970: every millisecond between them survives the trip through `Date` exactly.
    private static let earliestDate = -62_135_769_600_000.0
    private static let latestDate = 253_402_300_799_999.0

    private static func appendNumber(_ bits: UInt64, kind: Kind, descending: Bool, to key: inout [UInt8]) {
        key.append(kind.rawValue)
        appendHex(descending ? ~bits : bits, digits: 16, to: &key)
    }

    /// Appends the low `digits` hex digits of `value`, most significant first, in lowercase.
    private static func appendHex(_ value: UInt64, digits: Int, to key: inout [UInt8]) {
        for index in stride(from: digits - 1, through: 0, by: -1) {
            let digit = UInt8(truncatingIfNeeded: (value >> (UInt64(index) * 4)) & 0xf)
            key.append(digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10)
        }
    }

    /// Reads components back from a key's bytes.
    private struct KeyReader {
        let bytes: [UInt8]
        var offset = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var isAtEnd: Bool { offset >= bytes.count }

        mutating func component() throws(CoreError) -> Component {
            guard let kind = Kind(rawValue: bytes[offset]) else { throw invalid() }
            offset += 1
            switch kind {
            case .string: return .string(try text())
            case .stringDown: return .descending(.string(try descendingText()))
            case .int: return .int(Int64(bitPattern: try hex(16) ^ (1 << 63)))
            case .intDown: return .descending(.int(Int64(bitPattern: ~(try hex(16)) ^ (1 << 63))))
            case .uint: return .uint(try hex(16))
            case .uintDown: return .descending(.uint(~(try hex(16))))
            case .date: return .date(Self.date(Int64(bitPattern: try hex(16) ^ (1 << 63))))
            case .dateDown: return .descending(.date(Self.date(Int64(bitPattern: ~(try hex(16)) ^ (1 << 63)))))
            case .uuid: return .uuid(try uuid(complemented: false))
            case .uuidDown: return .descending(.uuid(try uuid(complemented: true)))
            }
        }

        private static func date(_ milliseconds: Int64) -> Date {
            Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        }

        private mutating func text() throws(CoreError) -> String {
            var result: [UInt8] = []
            while true {
                guard offset < bytes.count else { throw invalid() }
                let byte = bytes[offset]
                offset += 1
                guard byte == 0 else {
                    result.append(byte)
                    continue
                }
                guard offset < bytes.count else { throw invalid() }
                let next = bytes[offset]
                offset += 1
                switch next {
                case 0: return String(decoding: result, as: UTF8.self)
                case 1: result.append(0)
                default: throw invalid()
                }
            }
        }

        private mutating func descendingText() throws(CoreError) -> String {
            var result: [UInt8] = []
            while true {
                guard offset < bytes.count else { throw invalid() }
                if bytes[offset] == UInt8(ascii: "~") {
                    offset += 1
                    guard let text = String(validating: result, as: UTF8.self) else { throw invalid() }
                    return text
                }
                result.append(~UInt8(try hex(2)))
            }
        }

        private mutating func uuid(complemented: Bool) throws(CoreError) -> UUID {
            var b = [UInt8]()
            for _ in 0..<16 {
                let byte = UInt8(try hex(2))
                b.append(complemented ? ~byte : byte)
            }
            return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
        }

        private mutating func hex(_ digits: Int) throws(CoreError) -> UInt64 {
            guard digits <= bytes.count - offset else { throw invalid() }
            var value: UInt64 = 0
            for _ in 0..<digits {
                let byte = bytes[offset]
                offset += 1
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): value = value << 4 | UInt64(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): value = value << 4 | UInt64(byte - UInt8(ascii: "a") + 10)
                default: throw invalid()
                }
            }
            return value
        }

        private func invalid() -> CoreError {
            CoreError(.invalidArgument, detail: "The key was not made by RecordKey.")
        }
    }
}
