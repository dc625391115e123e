import Foundation
import Testing
import TrainTesting

@testable import TrainCore

/// The in-memory store's versions: reads that begin and end at random between the
/// changes, commits and rollbacks of writes each see exactly the last commit before
/// their first operation (as in SQLite), and once no read is left the writes that
/// follow drop every old version.
///
/// Each seed runs 600 steps; `TRAINKIT_SEEDS=<n>` runs more seeds and
/// `TRAINKIT_SEED=<seed>` replays one.
@Suite(.timeLimit(.minutes(2))) struct MemoryVersionTests {
    static let keys = (0..<120).map { index in ["a", "ab", "b/", "b/\0", "c\u{E9}", "~"][index % 6] + String(index / 6) }

    static func data(_ value: Int) -> Data { Data(String(value).utf8) }

    /// What a connection reads, to compare with the map it should see.
    static func problem(_ backend: MemoryBackend, sees expected: [String: Int], _ random: inout SeededRandomNumberGenerator) -> String? {
        let key = keys.randomElement(using: &random) ?? "a0"
        if backend.value(forKey: key, in: "c") != expected[key].map(data) { return "the value of \(key.debugDescription)" }
        let bounds = [keys.randomElement(using: &random) ?? "a", keys.randomElement(using: &random) ?? "b"].sorted {
            $0.utf8.lexicographicallyPrecedes($1.utf8)
        }
        let range = KeyRange(lower: .included(bounds[0]), upper: Bool.random(using: &random) ? .excluded(bounds[1]) : .unbounded)
        let direction: ScanDirection = Bool.random(using: &random) ? .forward : .reverse
        let limit = Int.random(in: 1...30, using: &random)
        var inRange = expected.keys.filter { range.contains($0) }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        if direction == .reverse { inRange.reverse() }
        let records = backend.records(in: "c", range: range, direction: direction, limit: limit)
        let wanted = inRange.prefix(limit).map { StoredRecord(key: $0, data: data(expected[$0] ?? 0)) }
        if records != Array(wanted) { return "records in \(range) \(direction): \(records.map(\.key)), expected \(wanted.map(\.key))" }
        if backend.count(in: "c", range: range) != inRange.count { return "the count in \(range)" }
        return nil
    }

    @Test("reads see the commit before their first operation, whatever writes commit or roll back meanwhile; old versions go once no read needs them")
    func randomInterleavings() throws {
        for seed in SeededRandomNumberGenerator.seeds(default: 20) {
            let failure = run(seed: seed)
            #expect(failure == nil, "seed \(seed): \(failure ?? ""); replay with TRAINKIT_SEED=\(seed)")
            if failure != nil { break }
        }
    }

    func run(seed: UInt64) -> String? {
        var random = SeededRandomNumberGenerator(seed: seed)
        let database = MemoryDatabase()
        let writer = MemoryBackend(database)
        writer.beginWrite()
        writer.createCollection("c")
        writer.commitWrite()
        var committed: [String: Int] = [:]
        var pending: [String: Int]?
        // What each read sees, from its first operation on.
        var reads: [(backend: MemoryBackend, sees: [String: Int]?)] = []
        for step in 0..<600 {
            switch Int.random(in: 0..<12, using: &random) {
            case 0:
                let reader = MemoryBackend(database)
                reader.beginRead()
                reads.append((reader, nil))
            case 1 where !reads.isEmpty:
                reads.remove(at: Int.random(in: 0..<reads.count, using: &random)).backend.endRead()
            case 2 where !reads.isEmpty, 3 where !reads.isEmpty:
                let index = Int.random(in: 0..<reads.count, using: &random)
                let sees = reads[index].sees ?? committed
                reads[index].sees = sees
                if let problem = Self.problem(reads[index].backend, sees: sees, &random) { return "step \(step): a read saw the wrong \(problem)" }
            case 4 where pending == nil:
                writer.beginWrite()
                pending = committed
            case 5, 6, 7:
                guard var changes = pending else { continue }
                for _ in 0..<Int.random(in: 1...8, using: &random) {
                    let key = Self.keys.randomElement(using: &random) ?? "a0"
                    if Int.random(in: 0..<3, using: &random) == 0 {
                        writer.removeValue(forKey: key, in: "c")
                        changes[key] = nil
                    } else {
                        let value = Int.random(in: 0..<1_000, using: &random)
                        writer.put(Self.data(value), forKey: key, in: "c")
                        changes[key] = value
                    }
                }
                pending = changes
                if let problem = Self.problem(writer, sees: changes, &random) { return "step \(step): the write saw the wrong \(problem)" }
            case 8, 9:
                guard let changes = pending else { continue }
                writer.commitWrite()
                committed = changes
                pending = nil
            case 10:
                guard pending != nil else { continue }
                writer.rollbackWrite()
                pending = nil
            default:
                break
            }
        }
        // Every read ends and the write commits: then nothing but the latest versions may remain.
        for read in reads { read.backend.endRead() }
        if pending != nil { writer.commitWrite() }
        for _ in 0..<100 { // the writes that follow clean up
            writer.beginWrite()
            writer.commitWrite()
        }
        return database.state.withLock { state -> String? in
            guard state.isSettled, state.older.values.allSatisfy(\.isEmpty) else { return "old versions were left behind" }
            var leftover = false
            state.trees["c"]?.forEach(in: ByteRange(.all), direction: .forward) { _, slot in
                leftover = leftover || slot.previous != nil || slot.current.value == nil
                return !leftover
            }
            return leftover ? "a replaced version or a removal was left in the tree" : nil
        }
    }
}
