import Foundation
import TrainAccount
import TrainCore
import TrainTesting

/// PERF-6-PURGE, PERF-6-PURGE-MEM and DELETE-READ-UNDER-PURGE: the background half of
/// a heavy user's account deletion against bare SQLite making the same changes, and a
/// friends page read while it runs.
struct PurgeRows {
    let directory: URL
    let quick: Bool

    /// Other users' posts beside the heavy user: a million (100,000 with `--quick`).
    var others: Int { quick ? 100_000 : 1_000_000 }

    /// PERF-6-PURGE / PERF-6-PURGE-MEM: from the deletion call until its background purge
    /// has finished, for a heavy user beside a million other users' posts. The baseline
    /// makes the same changes in one bare SQLite transaction: every record the deletion
    /// removed from the device's stores, deleted by key, and every record it rewrote (the
    /// counts and feeds of others), written — on a page-for-page copy of the file taken
    /// before the call, or in SQLite's in-memory database loaded with the same records.
    /// The changes are what the device's stores held before the call and after the purge,
    /// compared record by record. Median of three rounds, each with a new heavy user.
    func purge(inMemory: Bool) throws -> BenchRow {
        let (others, directory, quick) = (others, directory, quick)
        let (ours, baseline, changed) = try blocking {
            let folder = directory.appendingPathComponent("purge-\(inMemory ? "memory" : "file")")
            let stack = try await DeletionStack(others: others, file: inMemory ? nil : folder)
            var times: (ours: [Double], baseline: [Double]) = ([], [])
            var changed = (removed: 0, written: 0)
            for round in 0..<(quick ? 1 : 3) {
                let (heavy, _) = try await stack.makeHeavyUser()
                let before = try RecordAddress.snapshot(of: stack.services.deviceStores)
                let copy = folder.appendingPathComponent("copy-\(round).sqlite")
                defer { try? FileManager.default.removeItem(at: copy) }
                let bare =
                    try inMemory ? BareRecords(loading: before) : BareRecords(copying: folder.appendingPathComponent("trainkit.sqlite"), to: copy)

                let began = ContinuousClock.now
                try await stack.services.account.deleteAccount(of: heavy.id)
                let report = try await stack.services.account.deletionCompletion(of: heavy.id)
                times.ours.append(SocialRows.elapsed(ContinuousClock.now - began))
                try DeletionStack.check(report)

                let changes = RecordChanges(from: before, to: try RecordAddress.snapshot(of: stack.services.deviceStores))
                changed = (changes.removed.count, changes.written.count)
                times.baseline.append(try bare.apply(changes))
            }
            return (median(times.ours), median(times.baseline), changed)
        }
        return BenchRow(
            id: inMemory ? "PERF-6-PURGE-MEM" : "PERF-6-PURGE",
            workload:
                "deletion call to purge finished: heavy user (10k posts, 5k followers, 20k likes) among \(others / 1_000)k others' posts, "
                + "\(inMemory ? "memory" : "file"); vs one bare SQLite transaction on \(inMemory ? "SQLite in memory" : "a copy of the file"): "
                + "\(changed.removed) deletes by key, \(changed.written) writes; median of \(quick ? 1 : 3)",
            ours: ours * 1e3, baseline: baseline * 1e3, unit: "ms", target: inMemory ? "reported" : "ratio <= 2")
    }

    /// DELETE-READ-UNDER-PURGE: a reader's friends page (20 posts of the 100 users they
    /// follow, none of them the heavy user) read again and again on the same stack while
    /// a heavy user's purge runs, against as many pages read after it, in a file. Every
    /// page is read through the stack's own feed service, as the app would; the 99th
    /// percentile of three purges' pages is compared.
    func readUnderPurge() throws -> BenchRow {
        let (others, directory, quick) = (others, directory, quick)
        let (during, alone) = try blocking {
            let stack = try await DeletionStack(others: others, file: directory.appendingPathComponent("read-under-purge"))
            let reader = try await stack.signIn("reader", name: "Reader")
            try await stack.act(as: reader.id, name: "Reader", subject: "reader")
            for author in 0..<100 { try await stack.writer.follow("other-\(author * 50)") }
            _ = try await stack.services.social.unlockFeed(workoutType: .run)
            let social = stack.services.social
            func page() async throws -> Double {
                let began = ContinuousClock.now
                guard try await social.friendsFeed(limit: 20).count == 20 else { throw BenchError("the reader's friends page was short") }
                return SocialRows.elapsed(ContinuousClock.now - began)
            }
            for _ in 0..<200 { _ = try await page() } // warm up
            var times: (during: [Double], alone: [Double]) = ([], [])
            // Purges until enough pages were read during them: a loaded machine reads
            // fewer pages during one purge, and a purge is never stretched to fit.
            let needed = quick ? 100 : 300
            var purges = 0
            while times.during.count < needed {
                purges += 1
                guard purges <= 10 else { throw BenchError("ten purges gave \(times.during.count) pages; \(needed) are needed") }
                let (heavy, _) = try await stack.makeHeavyUser()
                try await stack.services.account.deleteAccount(of: heavy.id)
                try await stack.signIn("reader", name: "Reader")
                let (finished, account, heavyID) = (Locked(false), stack.services.account, heavy.id)
                let purge = Task {
                    defer { finished.withLock { $0 = true } }
                    return try await account.deletionCompletion(of: heavyID)
                }
                var during: [Double] = []
                while !finished.withLock({ $0 }) { during.append(try await page()) }
                try DeletionStack.check(try await purge.value)
                times.during += during
                for _ in during.indices { times.alone.append(try await page()) }
            }
            return (times.during, times.alone)
        }
        return BenchRow(
            id: "DELETE-READ-UNDER-PURGE",
            workload:
                "p99 friends page (20) while a heavy user's purge runs, vs after it, among \(others / 1_000)k others' posts, file; "
                + "\(during.count) pages each",
            ours: percentile(during, 0.99) * 1e6, baseline: percentile(alone, 0.99) * 1e6, unit: "µs", target: "ratio <= 3")
    }
}

/// Where a record is: its collection as named in the file, and its key.
struct RecordAddress: Hashable, Comparable {
    let collection: String
    let key: String

    static func < (lhs: RecordAddress, rhs: RecordAddress) -> Bool {
        (lhs.collection, lhs.key) < (rhs.collection, rhs.key)
    }

    /// Every record of `stores`, read through the engine.
    static func snapshot(of stores: [RecordStore]) throws -> [RecordAddress: Data] {
        var records: [RecordAddress: Data] = [:]
        for store in stores {
            try store.read { reader in
                for name in reader.collectionNames {
                    let collection = "\(store.schema.name)/\(name)"
                    for record in try reader.records(in: RecordCollection<Data>.bytes(name)) {
                        records[RecordAddress(collection: collection, key: record.key)] = record.data
                    }
                }
            }
        }
        return records
    }
}

/// The records one snapshot lacks or holds differently from another, in key order.
struct RecordChanges {
    var removed: [RecordAddress]
    var written: [(RecordAddress, Data)]

    init(removed: [RecordAddress], written: [(RecordAddress, Data)]) {
        self.removed = removed
        self.written = written
    }

    /// What turns `before` into `after`.
    init(from before: [RecordAddress: Data], to after: [RecordAddress: Data]) {
        removed = before.keys.filter { after[$0] == nil }.sorted()
        written = after.filter { before[$0.key] != $0.value }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}
