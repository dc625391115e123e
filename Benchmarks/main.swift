// train-bench: TrainKit's performance targets (SPEC §9), each measured against a
// baseline in the same run. `swift run -c release train-bench [--json] [--quick]`.

import Foundation

var options = Array(CommandLine.arguments.dropFirst())
var onlyRow: String?
if let index = options.firstIndex(of: "--row"), index + 1 < options.count {
    onlyRow = options[index + 1]
    options.removeSubrange(index...index + 1)
}
let arguments = Set(options)
let unknown = arguments.subtracting(["--json", "--quick", "--help"])
if arguments.contains("--help") || !unknown.isEmpty {
    print(
        """
        usage: train-bench [--json] [--quick] [--row ID]
          --json    print the rows as a JSON array
          --quick   fewer rounds, for a smoke test
          --row ID  run only the row with this id (its first column)
        """)
    exit(unknown.isEmpty ? 0 : 2)
}

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("train-bench-\(UUID().uuidString)")
do {
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let quick = arguments.contains("--quick")
    let engine = EngineRows(directory: directory, quick: quick)
    // The spec's rows first, then the engine's, whose million-record stores stay
    // alive until the last of them.
    let first: [(id: String, run: () throws -> BenchRow)] = [
        ("PERF-3", { try StoreRows(directory: directory, quick: quick).durableCommit() }),
        ("PERF-7", { try EntitlementRow(quick: quick).run() }),
        ("PERF-7-DUE", { try EntitlementRow(quick: quick).dueRead() }),
        ("SUB-JUMP", { try EntitlementRow(quick: quick).jump() }),
    ]
    let storeChanges: [(id: String, run: () throws -> BenchRow)] = StoreChangeRows.controls.map { control in
        (control.id, { try StoreChangeRows(quick: quick).run(control) })
    }
    let rest: [(id: String, run: () throws -> BenchRow)] = [
        ("PERF-1-MEM", { try SocialRows(directory: directory, quick: quick).friendsPage(inMemory: true) }),
        ("PERF-1-FILE", { try SocialRows(directory: directory, quick: quick).friendsPage(inMemory: false) }),
        ("PERF-1-BARE", { try SocialRows(directory: directory, quick: quick).barePage() }),
        ("PERF-2", { try SocialRows(directory: directory, quick: quick).open() }),
        ("SOC-WRITE", { try SocialRows(directory: directory, quick: quick).like() }),
        ("SOC-NOTIFY", { try NotificationRows(directory: directory, quick: quick).like() }),
        ("NOTIFY-PAGE", { try NotificationRows(directory: directory, quick: quick).firstPage() }),
        ("NOTIFY-WALK", { try NotificationRows(directory: directory, quick: quick).walk() }),
        ("PERF-6-MEM", { try AccountRows(directory: directory, quick: quick).deletion(inMemory: true) }),
        ("PERF-6-FILE", { try AccountRows(directory: directory, quick: quick).deletion(inMemory: false) }),
        ("PERF-6-PURGE", { try PurgeRows(directory: directory, quick: quick).purge(inMemory: false) }),
        ("PERF-6-PURGE-MEM", { try PurgeRows(directory: directory, quick: quick).purge(inMemory: true) }),
        ("DELETE-READ-UNDER-PURGE", { try PurgeRows(directory: directory, quick: quick).readUnderPurge() }),
        ("PERF-8", { try AccountRows(directory: directory, quick: quick).concurrentCallers() }),
        ("AUTH-SIGNIN", { try AuthRows(directory: directory, quick: quick).signIn() }),
        ("AUTH-ENUM", { try AuthRows(directory: directory, quick: quick).enumeration() }),
        ("AUTH-ENUM-RAISED", { try AuthRows(directory: directory, quick: quick).enumerationAfterRaise() }),
        ("AUTH-RESET", { try AuthRows(directory: directory, quick: quick).reset() }),
        ("PERF-4", { try SyncRows(directory: directory, quick: quick).delta() }),
        ("PERF-4-NOOP", { try SyncRows(directory: directory, quick: quick).noop() }),
        ("PERF-5", { try SyncRows(directory: directory, quick: quick).apply() }),
        ("SYNC-CHECK", { try SyncRows(directory: directory, quick: quick).checks() }),
        ("WORLD-IMPORT", { try WorldRows(directory: directory, quick: quick).importing() }),
        ("WORLD-EXPORT", { try WorldRows(directory: directory, quick: quick).exporting() }),
        ("ENGINE-BULK", { try StoreRows(directory: directory, quick: quick).bulkWrite() }),
        ("ENGINE-BULK-MEM", { try engine.bulkMemory() }),
        ("ENGINE-SEEK-MEM", { try engine.seekMemory() }),
        ("ENGINE-MEM-READ", { try engine.memoryAgainstSQLite(put: false) }),
        ("ENGINE-MEM-PUT", { try engine.memoryAgainstSQLite(put: true) }),
        ("ENGINE-MEM-VS-DICT-READ", { try engine.memoryAgainstDictionary(put: false) }),
        ("ENGINE-MEM-VS-DICT-PUT", { try engine.memoryAgainstDictionary(put: true) }),
        ("ENGINE-READ-UNDER-WRITE-MEM", { try engine.readUnderWrite(inMemory: true) }),
        ("PERF-9", { try engine.seekScaling() }),
        ("ENGINE-SEEK-FILE-MAP", { try engine.seekMapped() }),
        ("ENGINE-SEEK-SQL", { try engine.seekSQL() }),
        ("ENGINE-READ-UNDER-WRITE", { try engine.readUnderWrite(inMemory: false) }),
        ("ENGINE-OPEN", { try engine.open() }),
    ]
    let json = arguments.contains("--json")
    if !json { printHeader() }
    var rows: [BenchRow] = []
    for row in (first + storeChanges + rest) where onlyRow == nil || row.id == onlyRow {
        // A row's name on standard error as it starts, and the table's line as it ends, so
        // a log read while the run goes on, or after it was stopped, shows where it is.
        FileHandle.standardError.write(Data("train-bench: \(row.id)\n".utf8))
        let measured = try row.run()
        if !json { printLine(measured) }
        rows.append(measured)
    }
    if json {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        print(String(decoding: try encoder.encode(rows), as: UTF8.self))
    }
} catch {
    FileHandle.standardError.write(Data("train-bench: \(error)\n".utf8))
    exit(1)
}

func pad(_ text: String, _ width: Int) -> String { text.padding(toLength: max(width, text.count), withPad: " ", startingAt: 0) }

/// The table's header.
func printHeader() {
    print(
        [pad("id", 12), pad("workload", 62), pad("ours", 10), pad("baseline", 10), pad("unit", 10), pad("ratio", 7), "target"].joined(separator: " "))
    fflush(nil) // every output stream; Swift 6 refuses a reference to the global `stdout`
}

/// One row of the table, written out at once.
func printLine(_ row: BenchRow) {
    func format(_ value: Double) -> String { String(format: value < 10 ? "%.3f" : "%.1f", value) }
    print(
        [
            pad(row.id, 12), pad(row.workload, 62), pad(format(row.ours), 10), pad(format(row.baseline), 10),
            pad(row.unit, 10), pad(String(format: row.ratio < 0.01 ? "%.4f" : "%.2f", row.ratio), 7), row.target,
        ].joined(separator: " "))
    fflush(nil) // every output stream; Swift 6 refuses a reference to the global `stdout`
}
