import Foundation
import Testing
import TrainCore
import TrainTesting

/// CORE-8: random puts, removes, rolled-back transactions and range reads give the
/// same results in memory, on disk and in a plain sorted array.
///
/// Each seed runs 250 operations; `TRAINKIT_SEEDS=<n>` runs more seeds and
/// `TRAINKIT_SEED=<seed>` replays one.
@Suite(.timeLimit(.minutes(5))) struct RangePropertyTests {
    /// The reference: every record in an array kept sorted by the UTF-8 bytes of the keys.
    struct Reference {
        var records: [(key: [UInt8], value: Int)] = []

        /// The index of the first record whose key is not below `key` (or, if
        /// `orAbove`, not at or below it).
        func index(of key: String, orAbove: Bool = false) -> Int {
            let key = Array(key.utf8)
            var low = 0
            var high = records.count
            while low < high {
                let middle = (low + high) / 2
                let below = records[middle].key.lexicographicallyPrecedes(key) || (orAbove && records[middle].key == key)
                if below { low = middle + 1 } else { high = middle }
            }
            return low
        }

        mutating func set(_ key: String, _ value: Int?) {
            let index = index(of: key)
            let exists = index < records.count && records[index].key == Array(key.utf8)
            switch (value, exists) {
            case (let value?, true): records[index].value = value
            case (let value?, false): records.insert((Array(key.utf8), value), at: index)
            case (nil, true): records.remove(at: index)
            case (nil, false): break
            }
        }

        func read(_ range: KeyRange, _ direction: ScanDirection, _ limit: Int?) -> [StoredRecord] {
            let start: Int
            switch range.lower {
            case .unbounded: start = 0
            case .included(let key): start = index(of: key)
            case .excluded(let key): start = index(of: key, orAbove: true)
            }
            let end: Int
            switch range.upper {
            case .unbounded: end = records.count
            case .included(let key): end = index(of: key, orAbove: true)
            case .excluded(let key): end = index(of: key)
            }
            guard start < end else { return [] }
            var selected = Array(records[start..<end])
            if direction == .reverse { selected.reverse() }
            if let limit { selected = Array(selected.prefix(limit)) }
            return selected.map { StoredRecord(key: String(decoding: $0.key, as: UTF8.self), data: Self.encode($0.value)) }
        }

        static func encode(_ value: Int) -> Data { Data(String(value).utf8) }
    }

    static let values = RecordCollection<Data>.bytes("counters")

    /// Random keys from pieces that stress byte order: NUL, a combining mark and its
    /// precomposed twin, the highest code point, a separator.
    struct Keys {
        static let pieces = ["a", "b", "/", "\0", "e\u{301}", "\u{E9}", "\u{10FFFF}", "~", "z", "0", "9"]
        var universe: [String]

        init(count: Int, random: inout SeededRandomNumberGenerator) {
            var keys = Set<[UInt8]>()
            var universe: [String] = []
            while universe.count < count {
                let length = Int.random(in: 1...5, using: &random)
                let key = (0..<length).map { _ in Self.pieces.randomElement(using: &random) ?? "a" }.joined()
                if keys.insert(Array(key.utf8)).inserted { universe.append(key) }
            }
            self.universe = universe
        }

        func key(_ random: inout SeededRandomNumberGenerator) -> String {
            universe.randomElement(using: &random) ?? "a"
        }

        /// A bound that is a stored key half the time, any string otherwise.
        func bound(_ random: inout SeededRandomNumberGenerator) -> KeyRange.Bound {
            let key = Bool.random(using: &random) ? self.key(&random) : Keys(count: 1, random: &random).universe[0]
            switch Int.random(in: 0..<5, using: &random) {
            case 0: return .unbounded
            case 1, 2: return .included(key)
            default: return .excluded(key)
            }
        }
    }

    @Test("random operations agree in memory, on disk and in a sorted array")
    func randomOperations() async throws {
        for seed in SeededRandomNumberGenerator.seeds(default: 12) {
            let failure = try await run(seed: seed)
            #expect(failure == nil, "seed \(seed): \(failure ?? ""); replay with TRAINKIT_SEED=\(seed)")
            if failure != nil { break }
        }
    }

    /// Runs one seed; returns the first disagreement, or nil. It yields after each
    /// step, so the tests beside it keep their share of the threads.
    func run(seed: UInt64) async throws -> String? {
        var random = SeededRandomNumberGenerator(seed: seed)
        let directory = try TemporaryDirectory()
        let memory = try RecordStore(.inMemory, schema: notesSchema)
        let file = try RecordStore(.file(directory.file("store.sqlite"), options: .init(durability: .normal)), schema: notesSchema)
        let stores = [("memory", memory), ("file", file)]
        // Half the seeds hold thousands of keys, so the in-memory tree has several levels to split and merge.
        let keys = Keys(count: seed % 4 >= 2 ? 4_000 : 300, random: &random)
        var reference = Reference()

        for step in 0..<250 {
            await Task.yield()
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<4:
                // A transaction of puts and removes that commits, or (one time in three) throws and rolls back.
                let count = Int.random(in: 1...(keys.universe.count > 1_000 ? 400 : 30), using: &random)
                var changes: [(String, Int?)] = []
                // Half the seeds grow the collection, then mostly remove, so nodes empty out and merge.
                let removeChance = seed % 2 == 0 && step >= 125 ? 0.85 : 0.25
                for _ in 0..<count {
                    changes.append(
                        (keys.key(&random), Double.random(in: 0..<1, using: &random) < removeChance ? nil : Int.random(in: 0..<1_000, using: &random))
                    )
                }
                let rollsBack = Int.random(in: 0..<3, using: &random) == 0
                for (_, store) in stores {
                    do {
                        try store.write { records in
                            for (key, value) in changes {
                                if let value {
                                    try records.setData(Reference.encode(value), forKey: key, in: Self.values)
                                } else {
                                    try records.removeValue(forKey: key, in: Self.values)
                                }
                            }
                            if rollsBack { throw Boom() }
                        }
                    } catch is Boom {}
                }
                if !rollsBack {
                    for (key, value) in changes { reference.set(key, value) }
                }
            case 4:
                // Reads inside a write see its changes before it rolls back.
                let key = keys.key(&random)
                let range = KeyRange(lower: keys.bound(&random), upper: keys.bound(&random))
                var inside = reference
                inside.set(key, 7)
                let expected = inside.read(range, .forward, nil)
                for (name, store) in stores {
                    let seen: [StoredRecord] = try {
                        do {
                            try store.write { records in
                                try records.setData(Reference.encode(7), forKey: key, in: Self.values)
                                throw Seen(records: try records.records(in: Self.values, range: range))
                            }
                        } catch let seen as Seen {
                            return seen.records
                        }
                        return []
                    }()
                    if seen != expected {
                        return "step \(step): \(name) inside a write read \(range): \(seen.map(\.key)), expected \(expected.map(\.key))"
                    }
                }
            default:
                let range = KeyRange(lower: keys.bound(&random), upper: keys.bound(&random))
                let direction: ScanDirection = Bool.random(using: &random) ? .forward : .reverse
                let limit: Int? = Bool.random(using: &random) ? nil : Int.random(in: 0...40, using: &random)
                let expected = reference.read(range, direction, limit)
                let all = reference.read(range, .forward, nil)
                for (name, store) in stores {
                    let (records, keysRead, count, first, last) = try store.read { reader in
                        (
                            try reader.records(in: Self.values, range: range, direction: direction, limit: limit),
                            try reader.keys(in: Self.values, range: range, direction: direction, limit: limit),
                            try reader.count(in: Self.values, range: range),
                            try reader.firstKey(in: Self.values, range: range),
                            try reader.lastKey(in: Self.values, range: range)
                        )
                    }
                    let context = "step \(step): \(name) read \(range) \(direction) limit \(limit.map(String.init) ?? "none")"
                    if records != expected { return "\(context): \(records.map(\.key)), expected \(expected.map(\.key))" }
                    if keysRead != expected.map(\.key) { return "\(context): keys \(keysRead)" }
                    if count != all.count { return "\(context): count \(count), expected \(all.count)" }
                    if first != all.first?.key || last != all.last?.key {
                        return "\(context): first/last \(String(describing: first))/\(String(describing: last))"
                    }
                }
            }
        }
        return nil
    }

    /// Carries what a write read out of a transaction that then rolls back.
    struct Seen: Error {
        let records: [StoredRecord]
    }
}
