import Foundation
import Testing
import TrainCore

/// CORE-7: the FIPS 180-4 / NIST example vectors.
@Suite struct SHA256Tests {
    @Test("the FIPS 180-4 short vectors hash to their published digests", arguments: [
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
    ])
    func shortVectors(message: String, expected: String) {
        #expect(SHA256.hash(data: Data(message.utf8)).hexString == expected)
    }

    @Test("one million 'a' hashes to the published digest")
    func millionA() {
        let message = Data(repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(SHA256.hash(data: message).hexString == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("hashing in pieces of any size equals hashing at once")
    func incremental() {
        let message = Data((0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let whole = SHA256.hash(data: message)
        for pieceSize in [1, 3, 63, 64, 65, 200] {
            var hasher = SHA256()
            var offset = 0
            while offset < message.count {
                let end = min(offset + pieceSize, message.count)
                hasher.update(data: message[offset..<end])
                offset = end
            }
            #expect(hasher.finalize() == whole, "pieces of \(pieceSize)")
        }
    }

    @Test("messages around the padding boundary (55, 56, 64 bytes) match their known digests")
    func paddingBoundaries() {
        // Digests of "a" repeated n times, computed with an independent implementation (sha256sum).
        let expected = [
            55: "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318",
            56: "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a",
            64: "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb",
        ]
        for (count, digest) in expected {
            #expect(SHA256.hash(data: Data(repeating: UInt8(ascii: "a"), count: count)).hexString == digest, "\(count) bytes")
        }
    }

    @Test("the digest has 32 bytes and describes itself in hex")
    func digestShape() {
        let digest = SHA256.hash(data: Data("abc".utf8))
        #expect(digest.bytes.count == SHA256.byteCount)
        #expect(digest.data.count == 32)
        #expect(digest.description == "SHA256 digest: " + digest.hexString)
    }
}

extension SHA256Tests {
    @Test("a digest can be rebuilt from its 32 bytes, and only from 32")
    func digestFromBytes() {
        let digest = SHA256.hash(data: Data("abc".utf8))
        #expect(SHA256Digest(bytes: digest.bytes) == digest)
        #expect(SHA256Digest(bytes: [1, 2, 3]) == nil)
    }
}
