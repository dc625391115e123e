import Foundation
import TrainCore

/// PERF-3 and the bulk-write row: the engine against bare SQLite on the same bytes.
struct StoreRows {
    let directory: URL
    let quick: Bool

    static let schema = StoreSchema(name: "bench", migrations: [.createCollections(version: 1, ["records"])])
    static let records = RecordCollection<Data>.bytes("records")

    /// The same 256 bytes for every record on both sides.
    let payload = Data((0..<256).map { UInt8(truncatingIfNeeded: $0 &* 37) })

    /// PERF-3: one durable single-record commit, engine vs a bare SQLite WAL commit.
    /// Single commits alternate between the two files and each is timed on its own,
    /// so drift in the disk's flush time reaches both sides alike; the row reports medians.
    func durableCommit() throws -> BenchRow {
        let store = try RecordStore(.file(directory.appendingPathComponent("perf3-ours.sqlite")), schema: Self.schema)
        let bare = try BareSQLite(path: directory.appendingPathComponent("perf3-bare.sqlite").path)
        defer { store.close() }
        var next = 0
        func key() -> String {
            next += 1
            return "k-\(next)"
        }
        let (ours, baseline) = try interleaved(
            rounds: quick ? 200 : 2000,
            ours: {
                let key = key()
                return try seconds { try store.write { try $0.put(payload, forKey: key, in: Self.records) } }
            },
            baseline: {
                let key = key()
                return try seconds { try bare.insert(key: key, value: payload) }
            })
        return BenchRow(
            id: "PERF-3", workload: "durable single-record commit (256 B, WAL, synchronous=FULL)",
            ours: ours * 1e6, baseline: baseline * 1e6, unit: "µs/commit", target: "ratio <= 1.2")
    }

    /// 10,000 records in one transaction, engine vs bare SQLite.
    func bulkWrite() throws -> BenchRow {
        let count = 10_000
        let keys = (0..<count).map { "k-\($0)" }
        var round = 0
        let (ours, baseline) = try interleaved(
            rounds: quick ? 3 : 7,
            ours: {
                round += 1
                let store = try RecordStore(.file(directory.appendingPathComponent("bulk-ours-\(round).sqlite")), schema: Self.schema)
                defer { store.close() }
                return try seconds {
                    try store.write { records in
                        for key in keys { try records.put(payload, forKey: key, in: Self.records) }
                    }
                }
            },
            baseline: {
                let bare = try BareSQLite(path: directory.appendingPathComponent("bulk-bare-\(round).sqlite").path)
                return try seconds {
                    try bare.execute("BEGIN IMMEDIATE")
                    for key in keys { try bare.insert(key: key, value: payload) }
                    try bare.execute("COMMIT")
                }
            })
        return BenchRow(
            id: "ENGINE-BULK", workload: "write 10k records (256 B) in one transaction",
            ours: ours * 1e3, baseline: baseline * 1e3, unit: "ms", target: "ratio <= 2.0")
    }
}
