import Foundation
import TrainCore

/// The storage engine's rows: range reads at a million records, opening, reads beside
/// a long write, bulk writes in memory, and the in-memory engine against SQLite's own.
final class EngineRows {
    let directory: URL
    let quick: Bool

    static let schema = StoreSchema(name: "bench", migrations: [.createCollections(version: 1, ["records", "churn"])])
    static let records = RecordCollection<Data>.bytes("records")
    static let churn = RecordCollection<Data>.bytes("churn")
    /// How the collection is named in the file, for the bare SQLite baseline.
    static let qualifiedRecords = "bench/records"

    /// The same 256 bytes for every record.
    let payload = Data((0..<256).map { UInt8(truncatingIfNeeded: $0 &* 37) })
    /// The larger collection: a million records (100,000 with `--quick`).
    var large: Int { quick ? 100_000 : 1_000_000 }
    let small = 10_000

    init(directory: URL, quick: Bool) {
        self.directory = directory
        self.quick = quick
    }

    /// The keys of a feed as a service lays it out: an owner, then the post's date
    /// newest first, then its number.
    static func keys(_ count: Int) throws -> [String] {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        return try (0..<count).map { index in
            try RecordKey(.string("user-\(index % 1_000)"), .descending(.date(start.addingTimeInterval(Double(index)))), .uint(UInt64(index)))
                .encoded
        }
    }

    private var built: [String: (store: RecordStore, keys: [String])] = [:]

    /// A store of `count` records, in memory or in a file, made once per run.
    func store(_ count: Int, inMemory: Bool) throws -> (store: RecordStore, keys: [String]) {
        let name = "\(inMemory ? "memory" : "file")-\(count)"
        if let existing = built[name] { return existing }
        let storage: StorageLocation =
            inMemory ? .inMemory : .file(directory.appendingPathComponent("\(name).sqlite"), options: .init(durability: .normal))
        var store = try RecordStore(storage, schema: Self.schema)
        let keys = try Self.keys(count)
        for batch in stride(from: 0, to: count, by: 50_000) {
            try store.write { records in
                for key in keys[batch..<min(batch + 50_000, count)] { try records.put(payload, forKey: key, in: Self.records) }
            }
        }
        if !inMemory {
            // Closed and opened again, so that every record is in the main file, as in a
            // store an app opens (the write-ahead log is folded in when the last connection closes).
            store.close()
            store = try RecordStore(storage, schema: Self.schema)
        }
        built[name] = (store, keys)
        return (store, keys)
    }

    /// Seconds per page of 20 records from a random key, over `pages` pages.
    private func pageTime(_ fixture: (store: RecordStore, keys: [String]), pages: Int, random: inout SystemRandomNumberGenerator) throws -> Double {
        let starts = (0..<pages).map { _ in fixture.keys[Int.random(in: 0..<fixture.keys.count, using: &random)] }
        var read = 0
        let elapsed = try seconds {
            for start in starts {
                read += try fixture.store.read { try $0.records(in: Self.records, range: KeyRange(lower: .included(start)), limit: 20).count }
            }
        }
        guard read > 0 else { throw BenchError("the pages were empty") }
        return elapsed / Double(pages)
    }

    /// ENGINE-SEEK-MEM: a page at a million records against a page at 10,000, in memory.
    func seekMemory() throws -> BenchRow {
        try seekRow(id: "ENGINE-SEEK-MEM", in: "in memory", large: try store(large, inMemory: true), small: try store(small, inMemory: true))
    }

    /// ENGINE-SEEK-FILE-MAP: ENGINE-SEEK-FILE with the files read through a memory map
    /// (`RecordStore.Options.memoryMapSize`), each opened a second time with the option.
    func seekMapped() throws -> BenchRow {
        let options = RecordStore.Options(durability: .normal, memoryMapSize: 1 << 30)
        func mapped(_ count: Int) throws -> (store: RecordStore, keys: [String]) {
            let fixture = try store(count, inMemory: false)
            let file = directory.appendingPathComponent("file-\(count).sqlite")
            return (try RecordStore(.file(file, options: options), schema: Self.schema), fixture.keys)
        }
        let large = try mapped(large)
        let small = try mapped(small)
        defer {
            large.store.close()
            small.store.close()
        }
        return try seekRow(id: "ENGINE-SEEK-FILE-MAP", in: "file read through a memory map", large: large, small: small)
    }

    /// A row of pages of 20 records from random keys in `large` against the same in `small`.
    private func seekRow(
        id: String, in place: String, large: (store: RecordStore, keys: [String]), small: (store: RecordStore, keys: [String])
    ) throws -> BenchRow {
        var random = SystemRandomNumberGenerator()
        let pages = quick ? 500 : 2_000
        let (ours, baseline) = try interleaved(
            rounds: quick ? 3 : 9,
            ours: { try pageTime(large, pages: pages, random: &random) },
            baseline: { try pageTime(small, pages: pages, random: &random) })
        return BenchRow(
            id: id, workload: "page of 20 records from a random key, \(self.large / 1_000)k vs 10k records, \(place)",
            ours: ours * 1e6, baseline: baseline * 1e6, unit: "µs/page", target: "ratio <= 1.5")
    }

    /// ENGINE-SEEK-SQL: our file-backed page against the same query on the file with bare SQLite.
    func seekSQL() throws -> BenchRow {
        let fixture = try store(large, inMemory: false)
        let bare = try BareStoreReader(path: directory.appendingPathComponent("file-\(large).sqlite").path)
        var random = SystemRandomNumberGenerator()
        let pages = quick ? 500 : 2_000
        let (ours, baseline) = try interleaved(
            rounds: quick ? 3 : 9,
            ours: { try pageTime(fixture, pages: pages, random: &random) },
            baseline: { try barePageTime(bare, keys: fixture.keys, pages: pages, random: &random) })
        return BenchRow(
            id: "ENGINE-SEEK-SQL", workload: "page of 20 from a random key at \(large / 1_000)k records: ours vs the same query in bare SQLite",
            ours: ours * 1e6, baseline: baseline * 1e6, unit: "µs/page", target: "ratio <= 1.5")
    }

    /// PERF-9: how a file-backed page of 20 from a random key scales from 10,000 records
    /// to a million (the page at a million ÷ the page at 10,000), against how bare SQLite's
    /// same query scales on the same two files. Each round times all four, in an order
    /// that turns every round; each side's scaling is the median of its rounds' ratios.
    func seekScaling() throws -> BenchRow {
        let large = try store(large, inMemory: false)
        let small = try store(small, inMemory: false)
        let bareLarge = try BareStoreReader(path: directory.appendingPathComponent("file-\(self.large).sqlite").path)
        let bareSmall = try BareStoreReader(path: directory.appendingPathComponent("file-\(self.small).sqlite").path)
        var random = SystemRandomNumberGenerator()
        let pages = quick ? 500 : 2_000
        var scaling: (ours: [Double], bare: [Double]) = ([], [])
        for round in 0..<(quick ? 4 : 12) {
            var times = [Double](repeating: 0, count: 4)
            for turn in 0..<4 {
                let which = (turn + round) % 4
                times[which] =
                    switch which {
                    case 0: try pageTime(large, pages: pages, random: &random)
                    case 1: try pageTime(small, pages: pages, random: &random)
                    case 2: try barePageTime(bareLarge, keys: large.keys, pages: pages, random: &random)
                    default: try barePageTime(bareSmall, keys: small.keys, pages: pages, random: &random)
                    }
            }
            scaling.ours.append(times[0] / times[1])
            scaling.bare.append(times[2] / times[3])
        }
        return BenchRow(
            id: "PERF-9",
            workload: "page of 20 from a random key, file: scaling \(self.large / 1_000)k vs 10k records, ours vs bare SQLite's on the same files",
            ours: median(scaling.ours), baseline: median(scaling.bare), unit: "× (page at \(self.large / 1_000)k ÷ at 10k)", target: "ratio <= 1.1")
    }

    /// Seconds per page of 20 records from a random key read with bare SQLite, over `pages` pages.
    private func barePageTime(_ bare: BareStoreReader, keys: [String], pages: Int, random: inout SystemRandomNumberGenerator) throws -> Double {
        let starts = (0..<pages).map { _ in keys[Int.random(in: 0..<keys.count, using: &random)] }
        var read = 0
        let elapsed = seconds {
            for start in starts { read += bare.records(in: Self.qualifiedRecords, from: start, limit: 20).count }
        }
        guard read > 0 else { throw BenchError("the bare pages were empty") }
        return elapsed / Double(pages)
    }

    /// ENGINE-OPEN: opening a million-record file and reading one record, against bare SQLite.
    func open() throws -> BenchRow {
        let fixture = try store(large, inMemory: false)
        fixture.store.close()
        built["file-\(large)"] = nil
        let file = directory.appendingPathComponent("file-\(large).sqlite")
        var random = SystemRandomNumberGenerator()
        let (ours, baseline) = try interleaved(
            rounds: quick ? 9 : 41,
            ours: {
                let key = fixture.keys[Int.random(in: 0..<fixture.keys.count, using: &random)]
                var store: RecordStore?
                let elapsed = try seconds {
                    store = try RecordStore(.file(file), schema: Self.schema)
                    guard try store?.read({ try $0.data(forKey: key, in: Self.records) }) != nil else { throw BenchError("no record") }
                }
                store?.close()
                return elapsed
            },
            baseline: {
                let key = fixture.keys[Int.random(in: 0..<fixture.keys.count, using: &random)]
                var reader: BareStoreReader?
                let elapsed = try seconds {
                    reader = try BareStoreReader(path: file.path)
                    guard reader?.value(in: Self.qualifiedRecords, key: key) != nil else { throw BenchError("no bare record") }
                }
                reader = nil
                return elapsed
            })
        return BenchRow(
            id: "ENGINE-OPEN", workload: "open a \(large / 1_000)k-record file and read one record, vs bare SQLite",
            ours: ours * 1e3, baseline: baseline * 1e3, unit: "ms", target: "ratio <= 2")
    }

    /// ENGINE-READ-UNDER-WRITE(-MEM): the 99th percentile of point reads while another
    /// thread writes 10,000-record transactions back to back, against the same reads alone.
    func readUnderWrite(inMemory: Bool) throws -> BenchRow {
        let fixture = try store(large, inMemory: inMemory)
        let reads = quick ? 5_000 : 20_000
        var random = SystemRandomNumberGenerator()
        func latencies() throws -> [Double] {
            try (0..<reads).map { _ in
                let key = fixture.keys[Int.random(in: 0..<fixture.keys.count, using: &random)]
                return try seconds { _ = try fixture.store.read { try $0.data(forKey: key, in: Self.records) } }
            }
        }
        _ = try latencies() // warm up: the records' pages in the caches, the reader connections open
        let alone = try latencies()
        let stop = Locked(false)
        let writes = Locked(0)
        let writerDone = DispatchSemaphore(value: 0)
        let store = fixture.store
        let payload = payload
        let churnKeys = (0..<10_000).map { "churn-\($0)" }
        Thread.detachNewThread {
            while !stop.withLock({ $0 }) {
                try? store.write { records in
                    for key in churnKeys { try records.put(payload, forKey: key, in: Self.churn) }
                }
                writes.withLock { $0 += 1 }
            }
            writerDone.signal()
        }
        while writes.withLock({ $0 }) == 0 { usleep(1_000) } // the writer is under way
        let beside = try latencies()
        stop.withLock { $0 = true }
        writerDone.wait()
        guard writes.withLock({ $0 }) >= 2 else { throw BenchError("the writer finished fewer than two transactions during the reads") }
        return BenchRow(
            id: inMemory ? "ENGINE-READ-UNDER-WRITE-MEM" : "ENGINE-READ-UNDER-WRITE",
            workload: "p99 point read at \(large / 1_000)k records beside 10k-record writes, vs alone, \(inMemory ? "in memory" : "file")",
            ours: percentile(beside, 0.99) * 1e6, baseline: percentile(alone, 0.99) * 1e6, unit: "µs", target: "ratio <= 3")
    }

    /// ENGINE-BULK-MEM: 10,000 records in one transaction in memory, against SQLite's
    /// own in-memory database.
    func bulkMemory() throws -> BenchRow {
        let keys = (0..<10_000).map { "k-\($0)" }
        let (ours, baseline) = try interleaved(
            rounds: quick ? 3 : 9,
            ours: {
                let store = try RecordStore(.inMemory, schema: Self.schema)
                return try seconds { try store.write { records in for key in keys { try records.put(payload, forKey: key, in: Self.records) } } }
            },
            baseline: {
                let bare = try BareSQLite(path: ":memory:")
                return try seconds {
                    try bare.execute("BEGIN")
                    for key in keys { try bare.insert(key: key, value: payload) }
                    try bare.execute("COMMIT")
                }
            })
        return BenchRow(
            id: "ENGINE-BULK-MEM", workload: "write 10k records (256 B) in one transaction in memory, vs SQLite in memory",
            ours: ours * 1e3, baseline: baseline * 1e3, unit: "ms", target: "ratio <= 2.0")
    }

    /// ENGINE-MEM-READ / ENGINE-MEM-PUT: a point read, or a one-record commit, in the
    /// in-memory store at a million records, against SQLite's in-memory database.
    func memoryAgainstSQLite(put: Bool) throws -> BenchRow {
        let fixture = try store(large, inMemory: true)
        let bare = try BareSQLite(path: ":memory:")
        try bare.execute("BEGIN")
        for key in fixture.keys { try bare.insert(key: key, value: payload) }
        try bare.execute("COMMIT")
        let operations = quick ? 5_000 : 20_000
        var random = SystemRandomNumberGenerator()
        let payload = payload
        let (ours, baseline) = try interleaved(
            rounds: quick ? 3 : 9,
            ours: { try pointOperationTime(fixture, put: put, operations: operations, random: &random) },
            baseline: {
                let keys = (0..<operations).map { _ in fixture.keys[Int.random(in: 0..<fixture.keys.count, using: &random)] }
                return try seconds {
                    for key in keys {
                        if put { try bare.insert(key: key, value: payload) } else { _ = bare.value(key: key) }
                    }
                } / Double(operations)
            })
        return BenchRow(
            id: put ? "ENGINE-MEM-PUT" : "ENGINE-MEM-READ",
            workload: "\(put ? "one-record commit" : "point read") at \(large / 1_000)k records in memory, vs SQLite in memory",
            ours: ours * 1e6, baseline: baseline * 1e6, unit: put ? "µs/commit" : "µs/read", target: "ratio <= 1 (why the tree)")
    }
}

extension EngineRows {
    /// ENGINE-MEM-VS-DICT-READ / -PUT: a point read, or a one-record commit, in the
    /// in-memory store at a million records, against a Swift dictionary behind a lock
    /// (what the in-memory store was before it kept its records in order).
    func memoryAgainstDictionary(put: Bool) throws -> BenchRow {
        let fixture = try store(large, inMemory: true)
        let payload = payload
        let dictionary = Locked([String: Data](minimumCapacity: fixture.keys.count))
        dictionary.withLock { records in for key in fixture.keys { records[key] = payload } }
        let operations = quick ? 5_000 : 20_000
        var random = SystemRandomNumberGenerator()
        let (ours, baseline) = try interleaved(
            rounds: quick ? 3 : 9,
            ours: { try pointOperationTime(fixture, put: put, operations: operations, random: &random) },
            baseline: {
                let keys = (0..<operations).map { _ in fixture.keys[Int.random(in: 0..<fixture.keys.count, using: &random)] }
                var found = 0
                let elapsed = seconds {
                    for key in keys {
                        if put {
                            dictionary.withLock { $0[key] = payload }
                        } else {
                            found += dictionary.withLock { $0[key] } == nil ? 0 : 1
                        }
                    }
                }
                guard put || found == operations else { throw BenchError("the dictionary lost records") }
                return elapsed / Double(operations)
            })
        return BenchRow(
            id: put ? "ENGINE-MEM-VS-DICT-PUT" : "ENGINE-MEM-VS-DICT-READ",
            workload: "\(put ? "one-record commit" : "point read") at \(large / 1_000)k records in memory, vs a locked Swift dictionary",
            ours: ours * 1e6, baseline: baseline * 1e6, unit: put ? "µs/commit" : "µs/read",
            target: "shown: the price of order and snapshots")
    }
}

extension EngineRows {
    /// Seconds per point read, or per one-record commit, of random records of `fixture`.
    func pointOperationTime(
        _ fixture: (store: RecordStore, keys: [String]), put: Bool, operations: Int, random: inout SystemRandomNumberGenerator
    ) throws -> Double {
        let keys = (0..<operations).map { _ in fixture.keys[Int.random(in: 0..<fixture.keys.count, using: &random)] }
        return try seconds {
            for key in keys {
                if put {
                    try fixture.store.write { try $0.put(payload, forKey: key, in: Self.records) }
                } else {
                    _ = try fixture.store.read { try $0.data(forKey: key, in: Self.records) }
                }
            }
        } / Double(operations)
    }
}

/// The value below which `fraction` of `values` lie.
func percentile(_ values: [Double], _ fraction: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
}
