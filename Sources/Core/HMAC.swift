import Foundation

/// HMAC-SHA256 (RFC 2104, FIPS 198-1) on ``SHA256``.
///
/// ```swift
/// let tag = HMACSHA256.authenticationCode(for: Data("message".utf8), key: Data("key".utf8))
/// ```
public struct HMACSHA256: Sendable {
    private var inner: SHA256
    private var outer: SHA256

    /// Starts a MAC computation with `key`. Keys longer than a block are hashed first.
    /// - Parameter key: The secret key.
    public init<Key: DataProtocol>(key: Key) {
        var block = Array(key)
        if block.count > SHA256.blockByteCount { block = SHA256.hash(data: block).bytes }
        block += Array(repeating: 0, count: SHA256.blockByteCount - block.count)
        inner = SHA256()
        inner.update(data: block.map { $0 ^ 0x36 })
        outer = SHA256()
        outer.update(data: block.map { $0 ^ 0x5c })
    }

    /// Adds `data` to the message.
    /// - Parameter data: The next bytes of the message.
    public mutating func update<D: DataProtocol>(data: D) {
        inner.update(data: data)
    }

    /// Returns the MAC of everything added so far.
    /// - Returns: The 32-byte authentication code.
    public func finalize() -> SHA256Digest {
        var outer = outer
        outer.update(data: inner.finalize().bytes)
        return outer.finalize()
    }

    /// Computes the MAC of `data` under `key` in one call.
    /// - Parameters:
    ///   - data: The message.
    ///   - key: The secret key.
    /// - Returns: The 32-byte authentication code.
    public static func authenticationCode<D: DataProtocol, Key: DataProtocol>(for data: D, key: Key) -> SHA256Digest {
        var mac = HMACSHA256(key: key)
        mac.update(data: data)
        return mac.finalize()
    }
}

/// PBKDF2 with HMAC-SHA256 (RFC 8018), for storing passwords as salted, iterated hashes.
///
/// ```swift
/// let salt = try PBKDF2.randomSalt()
/// let hash = try PBKDF2.deriveKey(password: "correct horse", salt: salt, iterations: 600_000)
/// ```
public enum PBKDF2 {
    /// The longest key or salt these functions make: 4,096 bytes.
    public static let maximumLength = 4096

    /// Derives a key of `length` bytes from `password` and `salt`.
    /// - Parameters:
    ///   - password: The password, as UTF-8.
    ///   - salt: A random salt, unique per password.
    ///   - iterations: The work factor, 1 or more.
    ///   - length: The key length in bytes, 1 or more (32 by default).
    /// - Returns: The derived key.
    /// - Throws: ``CoreError/Code/invalidArgument`` for a non-positive iteration count, or a length
    ///   outside 1...``maximumLength``.
    public static func deriveKey(password: String, salt: [UInt8], iterations: Int, length: Int = 32) throws(CoreError) -> [UInt8] {
        try deriveKey(password: Array(password.utf8), salt: salt, iterations: iterations, length: length)
    }

    /// Derives a key of `length` bytes from raw password bytes and `salt`.
    /// - Parameters:
    ///   - password: The password bytes.
    ///   - salt: A random salt, unique per password.
    ///   - iterations: The work factor, 1 or more.
    ///   - length: The key length in bytes, 1 or more.
    /// - Returns: The derived key.
    /// - Throws: ``CoreError/Code/invalidArgument`` for a non-positive iteration count, or a length
    ///   outside 1...``maximumLength``.
    public static func deriveKey(password: [UInt8], salt: [UInt8], iterations: Int, length: Int) throws(CoreError) -> [UInt8] {
        guard iterations > 0, (1...maximumLength).contains(length) else {
            throw CoreError(.invalidArgument, detail: "PBKDF2 needs at least one iteration and 1 to \(maximumLength) bytes of output.")
        }
        let keyed = HMACSHA256(key: password)
        var derived: [UInt8] = []
        derived.reserveCapacity(length)
        var blockIndex: UInt32 = 1
        while derived.count < length {
            var mac = keyed
            mac.update(data: salt)
            mac.update(data: [UInt8(blockIndex >> 24), UInt8(truncatingIfNeeded: blockIndex >> 16),
                              UInt8(truncatingIfNeeded: blockIndex >> 8), UInt8(truncatingIfNeeded: blockIndex)])
            var u = mac.finalize().bytes
            var block = u
            for _ in 1..<max(iterations, 1) {
                var next = keyed
                next.update(data: u)
                u = next.finalize().bytes
                for index in 0..<block.count { block[index] ^= u[index] }
            }
            derived += block.prefix(length - derived.count)
            blockIndex += 1
        }
        return derived
    }

    /// Returns `count` random bytes from the system's secure generator, for a salt.
    /// - Parameter count: The number of bytes, 1 to ``maximumLength`` (16 by default).
    /// - Returns: The salt.
    /// - Throws: ``CoreError/Code/invalidArgument`` for a count outside that range.
    public static func randomSalt(count: Int = 16) throws(CoreError) -> [UInt8] {
        guard (1...maximumLength).contains(count) else {
            throw CoreError(.invalidArgument, detail: "A salt has 1 to \(maximumLength) bytes.")
        }
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}
