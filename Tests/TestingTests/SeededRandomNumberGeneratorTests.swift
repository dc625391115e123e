import Testing
import TrainCore
import TrainTesting

@Suite(.timeLimit(.minutes(1))) struct SeededRandomNumberGeneratorTests {
    @Test("the same seed gives the same sequence; another seed another one")
    func deterministic() {
        var first = SeededRandomNumberGenerator(seed: 7)
        var second = SeededRandomNumberGenerator(seed: 7)
        var other = SeededRandomNumberGenerator(seed: 8)
        let a = (0..<5).map { _ in first.next() }
        #expect(a == (0..<5).map { _ in second.next() })
        #expect(a != (0..<5).map { _ in other.next() })
        #expect(Set(a).count == 5)
    }
}
