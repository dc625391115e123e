import Testing
import TrainCore
import TrainTesting

/// CORE-2: deterministic IDs for tests.
@Suite(.timeLimit(.minutes(1))) struct SequentialIDGeneratorTests {
    @Test("IDs count up from 1 with their prefix, zero-padded so they sort in order")
    func sequence() {
        let ids = SequentialIDGenerator(prefix: "post-")
        let made = (0..<12).map { _ in ids.makeID() }
        #expect(made.first == "post-000001")
        #expect(made.last == "post-000012")
        #expect(made == made.sorted())
    }

    @Test("two generators made alike produce the same IDs")
    func deterministic() {
        let first: any IDGenerator = SequentialIDGenerator()
        let second: any IDGenerator = SequentialIDGenerator()
        #expect((0..<5).map { _ in first.makeID() } == (0..<5).map { _ in second.makeID() })
    }

    @Test("concurrent callers never get the same ID")
    func concurrent() async {
        let ids = SequentialIDGenerator()
        let made = await withTaskGroup(of: [String].self) { group in
            for _ in 0..<8 { group.addTask { (0..<100).map { _ in ids.makeID() } } }
            return await group.reduce(into: []) { $0 += $1 }
        }
        #expect(Set(made).count == 800)
    }
}
