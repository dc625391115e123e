import Foundation
import TrainCore

/// The storage engine underneath every file-backed service: open, write across two
/// collections in one transaction, read back, reopen.
@MainActor
struct StorageChapter {
    struct Visit: Codable, Equatable {
        var run: Int
        var date: Date
    }

    static let schema = StoreSchema(name: "demo", migrations: [.createCollections(version: 1, ["visits", "counters"])])
    static let visits = RecordCollection<Visit>("visits")
    static let counters = RecordCollection<Int>("counters")

    let file: URL
    let narrator: Narrator

    func run() async {
        let existed = FileManager.default.fileExists(atPath: file.path)
        var store: RecordStore?
        var run = 0

        await narrator.step(existed ? "Open the store left by an earlier run" : "Create a new store (SQLite, WAL, owner-only file)") {
            store = try RecordStore(.file(file), schema: Self.schema)
            let previous = try store?.read { try $0.value(forKey: "runs", in: Self.counters) } ?? 0
            narrator.say(previous == 0 ? "No earlier runs are recorded." : "Earlier runs recorded: \(previous).")
            return existed == (previous > 0) ? nil : "the file \(existed ? "existed but held no runs" : "was new but held runs")"
        }
        guard let store else { return }

        await narrator.step("Record this run: a visit and the run counter, in one transaction") {
            run = try store.write { records in
                let run = (try records.value(forKey: "runs", in: Self.counters) ?? 0) + 1
                try records.put(run, forKey: "runs", in: Self.counters)
                try records.put(Visit(run: run, date: Date()), forKey: String(format: "run-%06d", run), in: Self.visits)
                return run
            }
            narrator.say("This is run \(run).")
            return nil
        }

        await narrator.step("Read it back") {
            let visit = try store.read { try $0.value(forKey: String(format: "run-%06d", run), in: Self.visits) }
            return visit?.run == run ? nil : "the visit of run \(run) is missing"
        }
        store.close()

        await narrator.step("Close, reopen, and find every run's visit still there") {
            let reopened = try RecordStore(.file(file), schema: Self.schema)
            defer { reopened.close() }
            let (runs, visits) = try reopened.read {
                (try $0.value(forKey: "runs", in: Self.counters) ?? 0, try $0.values(in: Self.visits))
            }
            narrator.say("\(visits.count) visit(s) on disk: runs \(visits.map { String($0.run) }.joined(separator: ", ")).")
            return runs == run && visits.map(\.run) == Array(1...run) ? nil : "expected runs 1...\(run), found \(visits.map(\.run))"
        }
    }
}
