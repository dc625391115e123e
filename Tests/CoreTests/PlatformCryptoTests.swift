import Foundation
import Testing
import TrainCore

// .ci/apple-paths builds with Apple's CommonCrypto and SQLite3 modules stood in for
// (.ci/apple): the Apple branches must be the ones compiled.
#if TRAINKIT_APPLE_STAND_INS
    #if !canImport(CommonCrypto) || !canImport(SQLite3)
        #error("The Apple-paths build did not find the stand-ins of CommonCrypto and SQLite3.")
    #endif
    import CommonCrypto
#endif

/// CORE-7: SHA-256, HMAC-SHA256 and PBKDF2-HMAC-SHA256 from the platform's library,
/// against the published vectors.
@Suite struct PlatformCryptoTests {
    private func sha256(_ data: some DataProtocol) throws -> String { PlatformCrypto.hex(try PlatformCrypto.sha256(data)) }

    @Test(
        "the FIPS 180-4 short vectors hash to their published digests",
        arguments: [
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            (
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
            ),
            (
                "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
                "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
            ),
        ])
    func shortVectors(message: String, expected: String) throws {
        #expect(try sha256(Data(message.utf8)) == expected)
    }

    @Test("one million 'a' hashes to the published digest")
    func millionA() throws {
        #expect(
            try sha256(Data(repeating: UInt8(ascii: "a"), count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("messages around the padding boundary (55, 56, 64 bytes) match their known digests")
    func paddingBoundaries() throws {
        // Digests of "a" repeated n times, from an independent implementation (sha256sum).
        let expected = [
            55: "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318",
            56: "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a",
            64: "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb",
        ]
        for (count, digest) in expected {
            #expect(try sha256(Data(repeating: UInt8(ascii: "a"), count: count)) == digest, "\(count) bytes")
        }
    }

    @Test("HMAC-SHA256 matches RFC 4231 test cases 1, 2, 4 and 6, keys longer than a block included")
    func hmacVectors() throws {
        func hmac(_ message: String, _ key: [UInt8]) throws -> String {
            PlatformCrypto.hex(try PlatformCrypto.hmacSHA256(key: key, message: Data(message.utf8)))
        }
        #expect(
            try hmac("Hi There", [UInt8](repeating: 0x0b, count: 20))
                == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(
            try hmac("what do ya want for nothing?", Array("Jefe".utf8))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        let case4 = PlatformCrypto.hex(try PlatformCrypto.hmacSHA256(key: Array(1...25), message: [UInt8](repeating: 0xcd, count: 50)))
        #expect(case4 == "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b")
        #expect(
            try hmac("Test Using Larger Than Block-Size Key - Hash Key First", [UInt8](repeating: 0xaa, count: 131))
                == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test("PBKDF2-HMAC-SHA256 matches RFC 7914: passwd/salt, 1 iteration, 64 bytes")
    func pbkdf2Short() throws {
        #expect(
            PlatformCrypto.hex(
                try PlatformCrypto.pbkdf2SHA256(
                    password: Data("passwd".utf8), salt: Data("salt".utf8),
                    iterations: 1, length: 64))
                == "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783")
    }

    @Test("PBKDF2-HMAC-SHA256 matches RFC 7914: Password/NaCl, 80,000 iterations, 64 bytes")
    func pbkdf2Long() throws {
        #expect(
            PlatformCrypto.hex(
                try PlatformCrypto.pbkdf2SHA256(
                    password: Data("Password".utf8), salt: Data("NaCl".utf8),
                    iterations: 80_000, length: 64))
                == "4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56a1d425a1225833549adb841b51c9b3176a272bdebba1d078478f62b397f33c8d")
    }

    @Test("PBKDF2 refuses out-of-range iterations, lengths and salts with a typed error; random bytes differ")
    func arguments() throws {
        let password = Data("p".utf8)
        #expect(throws: CoreError(.invalidArgument)) { try PlatformCrypto.pbkdf2SHA256(password: password, salt: [1], iterations: 0) }
        #expect(throws: CoreError(.invalidArgument)) {
            try PlatformCrypto.pbkdf2SHA256(password: password, salt: [1], iterations: Int(Int32.max) + 1)
        }
        #expect(throws: CoreError(.invalidArgument)) { try PlatformCrypto.pbkdf2SHA256(password: password, salt: [1], iterations: 1, length: 0) }
        #expect(throws: CoreError(.invalidArgument)) {
            try PlatformCrypto.pbkdf2SHA256(password: password, salt: [1], iterations: 1, length: Int.max)
        }
        #expect(throws: CoreError(.invalidArgument)) { try PlatformCrypto.pbkdf2SHA256(password: password, salt: [UInt8](), iterations: 1) }
        #expect(throws: CoreError(.invalidArgument)) { try PlatformCrypto.randomBytes(count: 0) }
        #expect(throws: CoreError(.invalidArgument)) { try PlatformCrypto.randomBytes(count: Int.max) }
        #expect(try PlatformCrypto.randomBytes(count: 16) != (try PlatformCrypto.randomBytes(count: 16)))
        #expect(try PlatformCrypto.randomBytes(count: 24).count == 24)
    }

    #if TRAINKIT_APPLE_STAND_INS
        @Test("through CommonCrypto, a message of 1 GiB and 1 byte goes to CC_SHA256_Update at most 1 GiB a call and hashes to its known digest")
        func commonCryptoTakesAtMostOneGiBACall() throws {
            TrainKitStandInResetSHA256Counts()
            // The digest of 2^30 + 1 'a's, from Python's hashlib.
            #expect(
                try sha256(Data(repeating: UInt8(ascii: "a"), count: (1 << 30) + 1))
                    == "293f56f48b4de073e74bde06398124c9b3c5fbbc9988c8703738bc05a8e655fe")
            // Other tests hash beside this one, each far less than 1 GiB: the largest call is this message's first piece.
            #expect(TrainKitStandInLargestSHA256Update() == 1 << 30 && TrainKitStandInSHA256UpdateCount() >= 2)
        }
    #endif

    @Test("bytes print as two lowercase hex digits each")
    func hex() {
        #expect(PlatformCrypto.hex([0x00, 0x0f, 0xa0, 0xff]) == "000fa0ff")
        #expect(PlatformCrypto.hex([UInt8]()).isEmpty)
    }
}
