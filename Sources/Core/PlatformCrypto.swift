import Foundation

#if canImport(CommonCrypto)
    import CommonCrypto
#elseif canImport(CCrypto)
    import CCrypto
#endif

/// SHA-256, HMAC-SHA256 and PBKDF2-HMAC-SHA256 from the platform's optimized
/// library: CommonCrypto on Apple platforms, libcrypto (OpenSSL) elsewhere. This is
/// the only place TrainKit touches either; the published vectors (FIPS 180-4,
/// RFC 4231, RFC 7914) are its tests.
///
/// Every function throws ``TrainErrorCode/cryptography`` if the library reports a
/// failure (OpenSSL can, when its configuration or providers cannot be loaded), so a
/// failure is never mistaken for a result.
package enum PlatformCrypto {
    /// The length of a SHA-256 digest and of an HMAC-SHA256 code.
    package static let digestByteCount = 32
    /// The longest key or salt ``pbkdf2SHA256(password:salt:iterations:length:)`` and
    /// ``randomBytes(count:)`` make or take: 4,096 bytes.
    package static let maximumLength = 4096
    /// The most PBKDF2 iterations accepted: what both libraries can count.
    package static let maximumIterations = Int(Int32.max)

    /// The SHA-256 digest of `data`.
    package static func sha256(_ data: some DataProtocol) throws(CoreError) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: digestByteCount)
        let succeeded = withBytes(Array(data)) { input, count in
            digest.withUnsafeMutableBufferPointer { sha256(input, count: count, into: $0) }
        }
        guard succeeded else { throw failure("compute a SHA-256 digest") }
        return digest
    }

    /// The HMAC-SHA256 of `message` under `key`.
    package static func hmacSHA256(key: some DataProtocol, message: some DataProtocol) throws(CoreError) -> [UInt8] {
        var key = Array(key)
        // HMAC hashes a key longer than its 64-byte block first; doing it here keeps
        // every length within what a C `int` holds, with the same result.
        if key.count > 64 { key = try sha256(key) }
        var code = [UInt8](repeating: 0, count: digestByteCount)
        let succeeded = withBytes(key) { key, keyCount in
            withBytes(Array(message)) { message, messageCount in
                code.withUnsafeMutableBufferPointer {
                    hmacSHA256(key: key, keyCount: keyCount, message: message, messageCount: messageCount, into: $0)
                }
            }
        }
        guard succeeded else { throw failure("compute an HMAC-SHA256") }
        return code
    }

    /// Derives `length` bytes from `password` and `salt` with PBKDF2-HMAC-SHA256.
    /// - Throws: ``TrainErrorCode/invalidArgument`` for iterations outside
    ///   1...``maximumIterations``, a length or salt outside 1...``maximumLength``,
    ///   or a password longer than 1 MiB.
    package static func pbkdf2SHA256(
        password: some DataProtocol, salt: some DataProtocol, iterations: Int,
        length: Int = 32
    ) throws(CoreError) -> [UInt8] {
        let password = Array(password)
        let salt = Array(salt)
        guard (1...maximumIterations).contains(iterations), (1...maximumLength).contains(length),
            (1...maximumLength).contains(salt.count), password.count <= 1 << 20
        else {
            throw CoreError(
                .invalidArgument,
                detail: "PBKDF2 takes 1 to \(maximumIterations) iterations, a salt and a length of "
                    + "1 to \(maximumLength) bytes, and a password of at most 1 MiB.")
        }
        var key = [UInt8](repeating: 0, count: length)
        let succeeded = withBytes(password) { password, passwordCount in
            withBytes(salt) { salt, saltCount in
                key.withUnsafeMutableBufferPointer {
                    pbkdf2SHA256(
                        password: password, passwordCount: passwordCount, salt: salt, saltCount: saltCount,
                        iterations: iterations, into: $0)
                }
            }
        }
        guard succeeded else { throw failure("derive a key with PBKDF2") }
        return key
    }

    /// `count` bytes from the system's cryptographically secure generator.
    /// - Throws: ``TrainErrorCode/invalidArgument`` for a count outside 1...``maximumLength``.
    package static func randomBytes(count: Int) throws(CoreError) -> [UInt8] {
        guard (1...maximumLength).contains(count) else {
            throw CoreError(.invalidArgument, detail: "Random bytes come 1 to \(maximumLength) at a time.")
        }
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// Lowercase hexadecimal, two digits a byte.
    package static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static func failure(_ action: String) -> CoreError {
        CoreError(.cryptography, detail: "The platform's cryptographic library could not \(action).")
    }
}

// MARK: - The two libraries

extension PlatformCrypto {
    /// Calls `body` with a pointer to `bytes` and their count. The pointer is never
    /// null, even for no bytes (a trailing byte is added and not counted): both
    /// libraries read nothing through it then, but some refuse a null one.
    private static func withBytes(_ bytes: [UInt8], _ body: (UnsafePointer<UInt8>, Int) -> Bool) -> Bool {
        let padded = bytes + [0]
        return padded.withUnsafeBufferPointer { buffer in
            guard let start = buffer.baseAddress else { return false }
            return body(start, bytes.count)
        }
    }
}

#if canImport(CommonCrypto)
    extension PlatformCrypto {
        private static func sha256(_ input: UnsafePointer<UInt8>, count: Int, into output: UnsafeMutableBufferPointer<UInt8>) -> Bool {
            var context = CC_SHA256_CTX()
            CC_SHA256_Init(&context)
            var offset = 0
            repeat {
                // CC_SHA256_Update counts in 32 bits: feed it at most 1 GiB at a time.
                let piece = min(count - offset, 1 << 30)
                CC_SHA256_Update(&context, input + offset, CC_LONG(piece))
                offset += piece
            } while offset < count
            CC_SHA256_Final(output.baseAddress, &context)
            return true
        }

        private static func hmacSHA256(
            key: UnsafePointer<UInt8>, keyCount: Int, message: UnsafePointer<UInt8>, messageCount: Int,
            into output: UnsafeMutableBufferPointer<UInt8>
        ) -> Bool {
            CCHmac(CCHmacAlgorithm(kCCHmacAlgSHA256), key, keyCount, message, messageCount, output.baseAddress)
            return true
        }

        private static func pbkdf2SHA256(
            password: UnsafePointer<UInt8>, passwordCount: Int, salt: UnsafePointer<UInt8>, saltCount: Int,
            iterations: Int, into output: UnsafeMutableBufferPointer<UInt8>
        ) -> Bool {
            let status = password.withMemoryRebound(to: CChar.self, capacity: passwordCount + 1) { characters in
                CCKeyDerivationPBKDF(
                    CCPBKDFAlgorithm(kCCPBKDF2), characters, passwordCount, salt, saltCount,
                    CCPseudoRandomAlgorithm(kCCPRFHmacAlgSHA256), UInt32(iterations), output.baseAddress, output.count)
            }
            return status == Int32(kCCSuccess)
        }
    }
#else
    extension PlatformCrypto {
        private static func sha256(_ input: UnsafePointer<UInt8>, count: Int, into output: UnsafeMutableBufferPointer<UInt8>) -> Bool {
            SHA256(input, count, output.baseAddress) != nil
        }

        private static func hmacSHA256(
            key: UnsafePointer<UInt8>, keyCount: Int, message: UnsafePointer<UInt8>, messageCount: Int,
            into output: UnsafeMutableBufferPointer<UInt8>
        ) -> Bool {
            var length: UInt32 = 0
            let code = HMAC(EVP_sha256(), key, Int32(keyCount), message, messageCount, output.baseAddress, &length)
            return code != nil && Int(length) == output.count
        }

        private static func pbkdf2SHA256(
            password: UnsafePointer<UInt8>, passwordCount: Int, salt: UnsafePointer<UInt8>, saltCount: Int,
            iterations: Int, into output: UnsafeMutableBufferPointer<UInt8>
        ) -> Bool {
            password.withMemoryRebound(to: CChar.self, capacity: passwordCount + 1) { characters in
                PKCS5_PBKDF2_HMAC(
                    characters, Int32(passwordCount), salt, Int32(saltCount), Int32(iterations),
                    EVP_sha256(), Int32(output.count), output.baseAddress) == 1
            }
        }
    }
#endif
