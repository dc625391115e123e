import Foundation
import Testing
import TrainCore
import TrainTesting

/// CORE-7 (nonces) and CORE-2 (injected identity).
@Suite struct NonceAndIDTests {
    @Test("a nonce has the asked length and only URL-safe characters")
    func nonceShape() throws {
        let nonce = try Nonce.random(length: 48)
        #expect(nonce.count == 48)
        #expect(nonce.allSatisfy(Nonce.alphabet.contains))
        #expect(try Nonce.random().count == Nonce.defaultLength)
    }

    @Test("system nonces do not repeat")
    func nonceUniqueness() throws {
        let nonces = try (0..<1000).map { _ in try Nonce.random() }
        #expect(Set(nonces).count == 1000)
    }

    @Test("a seeded generator gives the same nonce twice, and different seeds differ")
    func seededNonce() throws {
        var first = SeededRandomNumberGenerator(seed: 42)
        var second = SeededRandomNumberGenerator(seed: 42)
        var other = SeededRandomNumberGenerator(seed: 43)
        let a = try Nonce.random(length: 32, using: &first)
        #expect(a == (try Nonce.random(length: 32, using: &second)))
        #expect(a != (try Nonce.random(length: 32, using: &other)))
    }

    @Test("every character of the alphabet is drawn", .tags(.statistics))
    func alphabetCoverage() throws {
        var generator = SeededRandomNumberGenerator(seed: 7)
        let text = try Nonce.random(length: Nonce.maximumLength, using: &generator)
        #expect(Set(text) == Set(Nonce.alphabet))
    }

    @Test(
        "a nonce shorter than one character or longer than the maximum is an invalid argument", arguments: [0, -1, Nonce.maximumLength + 1, Int.max])
    func invalidLength(length: Int) {
        #expect(throws: CoreError.self) { try Nonce.random(length: length) }
        do {
            _ = try Nonce.random(length: length)
        } catch {
            #expect(error.code == .invalidArgument)
        }
    }

    @Test("random IDs are distinct lowercase UUIDs")
    func randomIDs() {
        let generator: any IDGenerator = RandomIDGenerator()
        let ids = (0..<1000).map { _ in generator.makeID() }
        #expect(Set(ids).count == 1000)
        #expect(ids.allSatisfy { UUID(uuidString: $0) != nil && $0 == $0.lowercased() })
    }
}

extension Tag {
    @Tag static var statistics: Self
}
