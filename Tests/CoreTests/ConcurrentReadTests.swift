import Dispatch
import Foundation
import Testing
import TrainCore
import TrainTesting

/// Reads run beside a write and beside each other, each on one snapshot, in memory
/// and on disk.
@Suite(.timeLimit(.minutes(2))) struct ConcurrentReadTests {
    /// Waits for `semaphore`, recording a failure instead of hanging if it never comes.
    static func wait(_ semaphore: DispatchSemaphore, for what: String) -> Bool {
        guard semaphore.wait(timeout: .now() + 20) == .success else {
            Issue.record("timed out waiting until \(what)")
            return false
        }
        return true
    }

    @Test("a read runs while a write is in progress and sees none of it", arguments: StoreVariant.allCases)
    func readBesideWrite(variant: StoreVariant) throws {
        let directory = try TemporaryDirectory()
        let store = try variant.open(in: directory)
        try store.write { try $0.put(1, forKey: "k", in: counters) }
        let writing = DispatchSemaphore(value: 0)
        let readDone = DispatchSemaphore(value: 0)
        let writeDone = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            try? store.write { records in
                try records.put(2, forKey: "k", in: counters)
                try records.put(2, forKey: "k2", in: counters)
                writing.signal()
                _ = Self.wait(readDone, for: "the read finished")
            }
            writeDone.signal()
        }
        guard Self.wait(writing, for: "the write began") else { return }
        let seen = try store.read { records in (try records.value(forKey: "k", in: counters), try records.count(in: counters)) }
        readDone.signal()
        #expect(seen.0 == 1)
        #expect(seen.1 == 1)
        guard Self.wait(writeDone, for: "the write committed") else { return }
        #expect(try store.read { try $0.value(forKey: "k", in: counters) } == 2)
    }

    @Test("a read that began before a commit sees the same snapshot to its end", arguments: StoreVariant.allCases)
    func snapshotHolds(variant: StoreVariant) throws {
        let directory = try TemporaryDirectory()
        let store = try variant.open(in: directory)
        try store.write { records in
            for key in ["a", "b", "c"] { try records.put(1, forKey: key, in: counters) }
        }
        let reading = DispatchSemaphore(value: 0)
        let committed = DispatchSemaphore(value: 0)
        let result = Locked<(before: [String], after: [String], value: Int?)?>(nil)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let seen = try? store.read { records in
                let before = try records.keys(in: counters)
                reading.signal()
                _ = Self.wait(committed, for: "the write committed")
                return (before, try records.keys(in: counters), try records.value(forKey: "a", in: counters))
            }
            result.withLock { $0 = seen }
            done.signal()
        }
        guard Self.wait(reading, for: "the read began") else { return }
        try store.write { records in
            try records.removeValue(forKey: "b", in: counters)
            try records.put(5, forKey: "a", in: counters)
            try records.put(5, forKey: "d", in: counters)
        }
        committed.signal()
        guard Self.wait(done, for: "the read ended") else { return }
        let seen = try #require(result.withLock { $0 })
        #expect(seen.before == ["a", "b", "c"])
        #expect(seen.after == ["a", "b", "c"], "the commit is not seen inside the read")
        #expect(seen.value == 1)
        #expect(try store.read { try $0.keys(in: counters) } == ["a", "c", "d"])
    }

    @Test("readers never see half a transaction while a writer moves amounts between records", arguments: StoreVariant.allCases)
    func atomicSnapshots(variant: StoreVariant) throws {
        let directory = try TemporaryDirectory()
        let store = try variant.open(in: directory)
        try store.write { records in
            try records.put(100, forKey: "left", in: counters)
            try records.put(0, forKey: "right", in: counters)
        }
        let torn = Locked(0)
        let reads = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for step in 0..<150 {
                if worker == 0 {
                    try? store.write { records in
                        let left = try records.value(forKey: "left", in: counters) ?? 0
                        let right = try records.value(forKey: "right", in: counters) ?? 0
                        let amount = step % 2 == 0 ? 7 : -3
                        try records.put(left - amount, forKey: "left", in: counters)
                        try records.put(right + amount, forKey: "right", in: counters)
                        try records.put(step, forKey: "step-\(step % 10)", in: counters)
                    }
                } else {
                    let total = try? store.read { records in
                        (try records.value(forKey: "left", in: counters) ?? 0) + (try records.value(forKey: "right", in: counters) ?? 0)
                    }
                    reads.withLock { $0 += 1 }
                    if total != 100 { torn.withLock { $0 += 1 } }
                }
            }
        }
        #expect(torn.withLock { $0 } == 0)
        #expect(reads.withLock { $0 } == 450)
        #expect(try store.read { try $0.count(in: counters) } == 12)
    }

    @Test(
        "a read of a whole collection sees one snapshot while writes commit during it, forward, in reverse and with a limit",
        arguments: StoreVariant.allCases)
    func longReadsBesideWrites(variant: StoreVariant) throws {
        let directory = try TemporaryDirectory()
        let store = try variant.open(in: directory)
        let keys = (0..<2_000).map { String(format: "r%04d", $0) }
        try store.write { records in
            for key in keys { try records.put(1, forKey: key, in: counters) }
            try records.put(0, forKey: "s0", in: counters)
        }
        let problems = Locked<[String]>([])
        let reads = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 3) { worker in
            for step in 0..<60 {
                if worker == 0 {
                    // Moves one unit between two records and replaces a third with a new key:
                    // the total and the number of records stay the same.
                    try? store.write { records in
                        let from = keys[(step * 37) % keys.count]
                        let to = keys[(step * 91 + 5) % keys.count]
                        try records.put((try records.value(forKey: from, in: counters) ?? 0) - 1, forKey: from, in: counters)
                        try records.put((try records.value(forKey: to, in: counters) ?? 0) + 1, forKey: to, in: counters)
                        guard let gone = try records.firstKey(in: counters, range: KeyRange(lower: .included("s"))) else { return }
                        try records.removeValue(forKey: gone, in: counters)
                        try records.put(0, forKey: "s\(step + 1)", in: counters)
                    }
                } else {
                    let direction: ScanDirection = (step + worker).isMultiple(of: 2) ? .forward : .reverse
                    guard
                        let (all, limited) = try? store.read({ records in
                            (
                                try records.entries(in: counters, direction: direction),
                                try records.keys(in: counters, direction: direction, limit: 700)
                            )
                        })
                    else {
                        problems.withLock { $0.append("a read failed") }
                        continue
                    }
                    reads.withLock { $0 += 1 }
                    let total = all.reduce(0) { $0 + $1.value }
                    let inOrder = zip(all, all.dropFirst()).allSatisfy { direction == .forward ? $0.key < $1.key : $0.key > $1.key }
                    if total != 2_000 || all.count != 2_001 || !inOrder || Set(all.map(\.key)).count != all.count {
                        problems.withLock { $0.append("\(direction): \(all.count) records, total \(total), in order \(inOrder)") }
                    }
                    if limited.count != 700 { problems.withLock { $0.append("\(direction): \(limited.count) keys of a limit of 700") } }
                }
            }
        }
        #expect(problems.withLock { $0 } == [])
        #expect(reads.withLock { $0 } == 120)
    }

    @Test("a store called from inside its own transaction refuses, whichever kinds they are", arguments: StoreVariant.allCases)
    func nested(variant: StoreVariant) throws {
        let directory = try TemporaryDirectory()
        let store = try variant.open(in: directory)
        #expect(throws: CoreError(.nestedTransaction)) { try store.read { _ in try store.read { _ in 1 } } }
        #expect(throws: CoreError(.nestedTransaction)) { try store.write { _ in try store.read { _ in 1 } } }
        #expect(throws: CoreError(.nestedTransaction)) { try store.read { _ in try store.write { _ in 1 } } }
        #expect(try store.read { _ in 1 } == 1, "the store works after refusing")
    }

    @Test("closing while a read is in progress lets it finish on its snapshot; later calls throw closed", arguments: StoreVariant.allCases)
    func closeDuringRead(variant: StoreVariant) throws {
        let directory = try TemporaryDirectory()
        let store = try variant.open(in: directory)
        try store.write { try $0.put(1, forKey: "k", in: counters) }
        let reading = DispatchSemaphore(value: 0)
        let closed = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let result = Locked<Int?>(nil)
        DispatchQueue.global().async {
            let value = try? store.read { records in
                reading.signal()
                _ = Self.wait(closed, for: "the store closed")
                return try records.value(forKey: "k", in: counters)
            }
            result.withLock { $0 = value ?? nil }
            done.signal()
        }
        guard Self.wait(reading, for: "the read began") else { return }
        store.close()
        closed.signal()
        guard Self.wait(done, for: "the read ended") else { return }
        #expect(result.withLock { $0 } == 1)
        #expect(store.isClosed)
        #expect(throws: CoreError(.closed)) { try store.read { try $0.count(in: counters) } }
        #expect(throws: CoreError(.closed)) { try store.write { try $0.put(2, forKey: "k", in: counters) } }
    }

    @Test("a read beside this store's write counts another store's commit, as the write did")
    func externalChangesDuringWrite() throws {
        let directory = try TemporaryDirectory()
        let app = try StoreVariant.file.open(in: directory)
        let widget = try StoreVariant.file.open(in: directory)
        let start = try app.externalChangeCount()
        try widget.write { try $0.put(2, forKey: "widget", in: counters) }
        let writing = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let counted = Locked<UInt64?>(nil)
        DispatchQueue.global().async {
            try? app.write { records in
                counted.withLock { $0 = records.externalChangeCount }
                writing.signal()
                _ = Self.wait(release, for: "the test released the write")
                try records.put(1, forKey: "app", in: counters)
            }
            done.signal()
        }
        guard Self.wait(writing, for: "the app's write began") else { return }
        // No other connection can commit while the app holds the file's write lock.
        let during = try app.read { ($0.externalChangeCount, try $0.value(forKey: "widget", in: counters)) }
        release.signal()
        guard Self.wait(done, for: "the app's write committed") else { return }
        #expect(counted.withLock { $0 } == start + 1)
        #expect(during.0 == start + 1)
        #expect(during.1 == 2)
        #expect(try app.read { $0.externalChangeCount } == start + 1, "its own commit is not counted")
    }
}
