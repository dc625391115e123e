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

    @Test("a property test runs the default seeds, more when the environment asks, or the one it replays")
    func seedsFromTheEnvironment() {
        #expect(SeededRandomNumberGenerator.seeds(default: 3, environment: [:]) == [0, 1, 2])
        #expect(SeededRandomNumberGenerator.seeds(default: 3, environment: ["TRAINKIT_SEEDS": "5"]) == [0, 1, 2, 3, 4])
        #expect(SeededRandomNumberGenerator.seeds(default: 3, environment: ["TRAINKIT_SEED": "41", "TRAINKIT_SEEDS": "5"]) == [41])
        #expect(SeededRandomNumberGenerator.seeds(default: 3, environment: ["TRAINKIT_SEEDS": "many"]) == [0, 1, 2])
        #expect(SeededRandomNumberGenerator.seeds(default: 3, environment: ["TRAINKIT_SEEDS": "-4"]).isEmpty)
    }
}
