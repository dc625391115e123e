import Foundation
import Testing
import TrainCore

private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

/// HMAC-SHA256 (RFC 4231) and PBKDF2-HMAC-SHA256 (RFC 7914 §11) published vectors.
@Suite struct HMACAndPBKDF2Tests {
    @Test("HMAC-SHA256 matches RFC 4231 test cases 1, 2 and 6")
    func hmacVectors() {
        #expect(HMACSHA256.authenticationCode(for: Data("Hi There".utf8), key: [UInt8](repeating: 0x0b, count: 20)).hexString
                == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(HMACSHA256.authenticationCode(for: Data("what do ya want for nothing?".utf8), key: Data("Jefe".utf8)).hexString
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(HMACSHA256.authenticationCode(for: Data("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
                                              key: [UInt8](repeating: 0xaa, count: 131)).hexString
                == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test("PBKDF2-HMAC-SHA256 matches RFC 7914: passwd/salt, 1 iteration, 64 bytes")
    func pbkdf2Short() throws {
        #expect(hex(try PBKDF2.deriveKey(password: "passwd", salt: Array("salt".utf8), iterations: 1, length: 64))
                == "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783")
    }

    @Test("PBKDF2-HMAC-SHA256 matches RFC 7914: Password/NaCl, 80,000 iterations, 64 bytes")
    func pbkdf2Long() throws {
        #expect(hex(try PBKDF2.deriveKey(password: "Password", salt: Array("NaCl".utf8), iterations: 80_000, length: 64))
                == "4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56a1d425a1225833549adb841b51c9b3176a272bdebba1d078478f62b397f33c8d")
    }

    @Test("PBKDF2 refuses zero iterations or length; salts are random")
    func pbkdf2Arguments() throws {
        #expect(throws: CoreError.self) { try PBKDF2.deriveKey(password: "p", salt: [1], iterations: 0) }
        #expect(throws: CoreError.self) { try PBKDF2.deriveKey(password: "p", salt: [1], iterations: 1, length: 0) }
        #expect(throws: CoreError.self) { try PBKDF2.randomSalt(count: 0) }
        #expect(throws: CoreError.self) { try PBKDF2.randomSalt(count: Int.max) }
        #expect(throws: CoreError.self) { try PBKDF2.deriveKey(password: "p", salt: [1], iterations: 1, length: Int.max) }
        #expect(try PBKDF2.randomSalt() != (try PBKDF2.randomSalt()))
        #expect(try PBKDF2.randomSalt(count: 24).count == 24)
    }

    @Test("base64url round-trips every byte without padding and rejects foreign characters")
    func base64url() {
        for count in 0..<40 {
            let bytes = Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 53 &+ 251) })
            let text = Base64URL.encode(bytes)
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
            #expect(Base64URL.decode(text) == bytes)
        }
        #expect(Base64URL.decode("a+b/") == nil)
        #expect(Base64URL.decode("abcde") == nil)
        #expect(Base64URL.decode("é") == nil)
    }
}

/// The state-stream primitive: current value first, then every change, to every subscriber.
@Suite struct BroadcastTests {
    @Test("each subscriber gets the current value first, then each value sent, in order")
    func ordering() async {
        let broadcast = Broadcast(initial: 0)
        let first = broadcast.subscribe()
        broadcast.send(1)
        let second = broadcast.subscribe()
        broadcast.send(2)
        broadcast.finish()
        #expect(await collect(first) == [0, 1, 2])
        #expect(await collect(second) == [1, 2])
    }

    @Test("a cancelled subscriber is removed")
    func cancellation() async {
        let broadcast = Broadcast(initial: "a")
        let stream = broadcast.subscribe()
        let reader = Task { for await _ in stream {} }
        #expect(broadcast.subscriberCount == 1)
        reader.cancel()
        await reader.value
        #expect(broadcast.subscriberCount == 0)
        #expect(broadcast.value == "a")
    }
}

private func collect<Element>(_ stream: AsyncStream<Element>) async -> [Element] {
    var values: [Element] = []
    for await value in stream { values.append(value) }
    return values
}
