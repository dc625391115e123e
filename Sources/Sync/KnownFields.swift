import Foundation

/// The top-level fields a `Decodable` type reads, found by decoding a value through a
/// decoder that notes every key asked for: what tells a field this version of the
/// app does not know (written by a newer one, to be kept) from one it knows and
/// leaves out (an optional set to nil, to be dropped).
struct KnownFields<Value: Decodable>: Decodable {
    /// The keys the type's decoder asked for, or nil if it asked for every key there is.
    let names: Set<String>?

    init(from decoder: any Decoder) throws {
        let log = KeyLog()
        // A value that does not decode still told the keys it asked for before failing.
        _ = try? Value(from: RecordingDecoder(base: decoder, log: log))
        names = log.names
    }
}

/// The keys a decoding asked for. Used by one decoding, on one thread.
private final class KeyLog {
    /// nil once the decoding asked for every key.
    var names: Set<String>? = []

    func note(_ key: some CodingKey) { names?.insert(key.stringValue) }
}

/// A decoder that passes everything to `base` and notes the keys of its top-level
/// keyed container.
private struct RecordingDecoder: Decoder {
    let base: any Decoder
    let log: KeyLog

    var codingPath: [any CodingKey] { base.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { base.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(RecordingContainer(base: try base.container(keyedBy: type), log: log))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { try base.unkeyedContainer() }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { try base.singleValueContainer() }
}

/// A keyed container that passes everything to `base` and notes each key asked for.
private struct RecordingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let base: KeyedDecodingContainer<Key>
    let log: KeyLog

    var codingPath: [any CodingKey] { base.codingPath }

    var allKeys: [Key] {
        log.names = nil
        return base.allKeys
    }

    func contains(_ key: Key) -> Bool {
        log.note(key)
        return base.contains(key)
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        log.note(key)
        return try base.decodeNil(forKey: key)
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        log.note(key)
        return try base.decode(type, forKey: key)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        log.note(key)
        return try base.decodeIfPresent(type, forKey: key)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        log.note(key)
        return try base.nestedContainer(keyedBy: type, forKey: key)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        log.note(key)
        return try base.nestedUnkeyedContainer(forKey: key)
    }

    func superDecoder() throws -> any Decoder { try base.superDecoder() }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        log.note(key)
        return try base.superDecoder(forKey: key)
    }
}
