import Foundation
import Testing
import TrainCore
import TrainTesting

/// CORE-5 and REL-1, with real processes.
@Suite(.serialized) struct MultiProcessTests {
    @Test("two processes writing one store at once both succeed and every write is kept")
    func twoWriters() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.file("shared.sqlite")
        let first = try ChildProcess(file: file, count: 150, tag: "first")
        let second = try ChildProcess(file: file, count: 150, tag: "second")
        // This process writes too, while both children do.
        let local = try RecordStore(.file(file, options: .init(busyTimeout: .seconds(30))), schema: Probe.schema)
        for index in 1...50 {
            try local.write { records in
                try records.setData(Data([UInt8(index)]), forKey: "local-\(index)", in: Probe.acks)
                try records.put((try records.value(forKey: "total", in: Probe.counters) ?? 0) + 1, forKey: "total", in: Probe.counters)
            }
        }
        let results = [await first.wait(), await second.wait()]
        for result in results { #expect(result.status == 0, "child failed: \(result.errors)") }
        #expect(first.acknowledged.count == 150)
        #expect(second.acknowledged.count == 150)
        let (count, total) = try local.read { (try $0.count(in: Probe.acks), try $0.value(forKey: "total", in: Probe.counters)) }
        #expect(count == 350)
        #expect(total == 350, "no increment was lost between processes")
    }

    @Test("REL-1: 200+ SIGKILLs at random points lose no acknowledged write and never break the store")
    func crashSafety() async throws {
        let directory = try TemporaryDirectory()
        var generator = SystemRandomNumberGenerator()
        var kills = 0
        var acknowledged: Set<String> = []
        let file = directory.file("crash.sqlite")
        // Every tenth round also kills a child opening a brand-new store, mid-creation.
        for round in 0..<210 {
            let target = round % 10 == 9 ? directory.file("fresh-\(round).sqlite") : file
            let child = try ChildProcess(file: target, count: 0, tag: "r\(round)")
            let linesBeforeKill = round % 10 == 9 ? Int.random(in: 0...1, using: &generator) : Int.random(in: 1...12, using: &generator)
            await child.waitForLines(linesBeforeKill)
            await child.kill()
            kills += 1
            let acked = child.acknowledged
            let store = try RecordStore(.file(target), schema: Probe.schema)
            let (keys, total) = try store.read {
                (Set(try $0.records(in: Probe.acks).map(\.key)), try $0.value(forKey: "total", in: Probe.counters) ?? 0)
            }
            store.close()
            let missing = acked.filter { !keys.contains($0) }
            #expect(missing.isEmpty, "round \(round): acknowledged but lost: \(missing)")
            #expect(total == keys.count, "round \(round): the counter and the records committed apart")
            if target == file {
                acknowledged.formUnion(acked)
                #expect(acknowledged.isSubset(of: keys), "round \(round): an earlier acknowledged write is gone")
            }
        }
        #expect(kills >= 200)
        #expect(acknowledged.count > 200, "the children acknowledged writes before being killed")
    }
}
