// A helper process for the crash-safety (REL-1) and two-process (CORE-5) tests.
//
//     train-store-probe write FILE COUNT TAG
//
// Opens the store at FILE with the probe schema, prints "ready", then writes COUNT
// records (0: until killed), one transaction each, keyed TAG-000001, TAG-000002, …
// After each commit returns it prints the key on its own line: a printed key is an
// acknowledged write. Exits 0 when done, 1 with the error on standard error.

import Foundation
import TrainCore

let schema = StoreSchema(name: "probe", migrations: [.createCollections(version: 1, ["acks", "counters"])])
let acks = RecordCollection<Data>.bytes("acks")
let counters = RecordCollection<Int>("counters")

func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = CommandLine.arguments
guard arguments.count == 5, arguments[1] == "write", let count = Int(arguments[3]), count >= 0 else {
    FileHandle.standardError.write(Data("usage: train-store-probe write FILE COUNT TAG\n".utf8))
    exit(2)
}
let file = URL(fileURLWithPath: arguments[2])
let tag = arguments[4]

do {
    let store = try RecordStore(.file(file, options: .init(busyTimeout: .seconds(30))), schema: schema)
    emit("ready")
    var written = 0
    while count == 0 || written < count {
        written += 1
        let key = tag + "-" + String(format: "%06d", written)
        // Each record spans two collections: the payload and a running counter.
        try store.write { records in
            try records.setData(Data(repeating: UInt8(written % 251), count: 64 + written % 512), forKey: key, in: acks)
            let total = try records.value(forKey: "total", in: counters) ?? 0
            try records.put(total + 1, forKey: "total", in: counters)
        }
        emit(key)
    }
    store.close()
} catch {
    FileHandle.standardError.write(Data("train-store-probe: \(error)\n".utf8))
    exit(1)
}
