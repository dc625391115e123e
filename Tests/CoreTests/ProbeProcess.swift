import Foundation
import TrainCore
import TrainTesting

/// The schema and collections `train-store-probe` writes with.
enum Probe {
    static let schema = StoreSchema(name: "probe", migrations: [.createCollections(version: 1, ["acks", "counters"])])
    static let acks = RecordCollection<Data>.bytes("acks")
    static let counters = RecordCollection<Int>("counters")
}

extension ChildProcess {
    /// Starts `train-store-probe write FILE COUNT TAG`.
    convenience init(file: URL, count: Int, tag: String) throws {
        try self.init("train-store-probe", arguments: ["write", file.path, String(count), tag])
    }

    /// The acknowledged keys so far (every complete line but "ready").
    var acknowledged: [String] { lines.filter { $0 != "ready" } }
}
