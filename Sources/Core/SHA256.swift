import Foundation

/// SHA-256 as specified by FIPS 180-4 (CORE-7), with the shape of CryptoKit's API so
/// code written against it reads the same.
///
/// ```swift
/// let digest = SHA256.hash(data: Data("abc".utf8))
/// digest.hexString // "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
/// ```
///
/// For input that arrives in pieces, create a value, ``update(data:)`` it as often
/// as needed and call ``finalize()``.
public struct SHA256: Sendable {
    /// The size of one compressed block, in bytes.
    public static let blockByteCount = 64
    /// The size of a digest, in bytes.
    public static let byteCount = 32

    private var state: [UInt32] = [
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a,
        0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]
    private var pending: [UInt8] = []
    private var byteLength: UInt64 = 0

    /// Creates a hash function with nothing hashed yet.
    public init() {
        pending.reserveCapacity(Self.blockByteCount)
    }

    /// Hashes `data` in one call.
    /// - Parameter data: The bytes to hash.
    /// - Returns: The digest of `data`.
    public static func hash<D: DataProtocol>(data: D) -> SHA256Digest {
        var hasher = SHA256()
        hasher.update(data: data)
        return hasher.finalize()
    }

    /// Adds `data` to the bytes hashed so far.
    /// - Parameter data: The next bytes of the message.
    public mutating func update<D: DataProtocol>(data: D) {
        for region in data.regions {
            region.withUnsafeBytes { update(bufferPointer: $0) }
        }
    }

    /// Adds the bytes in `bufferPointer` to the bytes hashed so far.
    /// - Parameter bufferPointer: The next bytes of the message.
    public mutating func update(bufferPointer: UnsafeRawBufferPointer) {
        byteLength &+= UInt64(bufferPointer.count)
        var input = bufferPointer[...]
        if !pending.isEmpty {
            let take = min(Self.blockByteCount - pending.count, input.count)
            pending.append(contentsOf: input.prefix(take))
            input = input.dropFirst(take)
            guard pending.count == Self.blockByteCount else { return }
            pending.withUnsafeBytes { compress(blocks: $0) }
            pending.removeAll(keepingCapacity: true)
        }
        let whole = input.count - input.count % Self.blockByteCount
        if whole > 0 {
            compress(blocks: UnsafeRawBufferPointer(rebasing: input.prefix(whole)))
        }
        pending.append(contentsOf: input.dropFirst(whole))
    }

    /// Pads the message and returns its digest. The value itself is left unchanged,
    /// so more data may still be added to it.
    /// - Returns: The SHA-256 digest of every byte added so far.
    public func finalize() -> SHA256Digest {
        var copy = self
        let bitLength = byteLength &* 8
        var tail = pending
        tail.append(0x80)
        while tail.count % Self.blockByteCount != 56 { tail.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) {
            tail.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
        }
        tail.withUnsafeBytes { copy.compress(blocks: $0) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.byteCount)
        for word in copy.state {
            bytes.append(contentsOf: [UInt8(word >> 24), UInt8(truncatingIfNeeded: word >> 16),
                                      UInt8(truncatingIfNeeded: word >> 8), UInt8(truncatingIfNeeded: word)])
        }
        return SHA256Digest(digest: bytes)
    }

    private mutating func compress(blocks: UnsafeRawBufferPointer) {
        state.withUnsafeMutableBufferPointer { h in
            Self.roundConstants.withUnsafeBufferPointer { k in
                withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
                    var offset = 0
                    while offset < blocks.count {
                        for t in 0..<16 {
                            let base = offset + t * 4
                            w[t] = UInt32(blocks[base]) << 24 | UInt32(blocks[base + 1]) << 16
                                | UInt32(blocks[base + 2]) << 8 | UInt32(blocks[base + 3])
                        }
                        for t in 16..<64 {
                            let s0 = w[t - 15].rotatedRight(7) ^ w[t - 15].rotatedRight(18) ^ (w[t - 15] >> 3)
                            let s1 = w[t - 2].rotatedRight(17) ^ w[t - 2].rotatedRight(19) ^ (w[t - 2] >> 10)
                            w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
                        }
                        var a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7]
                        for t in 0..<64 {
                            let sum1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
                            let choice = (e & f) ^ (~e & g)
                            let t1 = hh &+ sum1 &+ choice &+ k[t] &+ w[t]
                            let sum0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
                            let majority = (a & b) ^ (a & c) ^ (b & c)
                            let t2 = sum0 &+ majority
                            hh = g; g = f; f = e; e = d &+ t1
                            d = c; c = b; b = a; a = t1 &+ t2
                        }
                        h[0] &+= a; h[1] &+= b; h[2] &+= c; h[3] &+= d
                        h[4] &+= e; h[5] &+= f; h[6] &+= g; h[7] &+= hh
                        offset += Self.blockByteCount
                    }
                }
            }
        }
    }

    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]
}

/// The 32-byte result of ``SHA256``.
public struct SHA256Digest: Hashable, Sendable, CustomStringConvertible {
    /// The digest's bytes, most significant first.
    public let bytes: [UInt8]

    /// Wraps 32 bytes as a digest, such as one read back from storage.
    /// - Parameter bytes: The digest's bytes.
    /// - Returns: nil unless there are exactly ``SHA256/byteCount`` bytes.
    public init?(bytes: [UInt8]) {
        guard bytes.count == SHA256.byteCount else { return nil }
        self.bytes = bytes
    }

    init(digest bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The digest as 64 lowercase hexadecimal characters.
    public var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var characters: [UInt8] = []
        characters.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            characters.append(digits[Int(byte >> 4)])
            characters.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: characters, as: UTF8.self)
    }

    /// The digest's bytes as `Data`.
    public var data: Data { Data(bytes) }

    /// `"SHA256 digest: "` followed by the hexadecimal digest.
    public var description: String { "SHA256 digest: \(hexString)" }
}

extension UInt32 {
    @inline(__always)
    fileprivate func rotatedRight(_ count: UInt32) -> UInt32 {
        (self >> count) | (self << (32 - count))
    }
}
