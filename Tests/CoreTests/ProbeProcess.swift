import Foundation
import TrainCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The schema and collections `train-store-probe` writes with.
enum Probe {
    static let schema = StoreSchema(name: "probe", migrations: [.createCollections(version: 1, ["acks", "counters"])])
    static let acks = RecordCollection<Data>.bytes("acks")
    static let counters = RecordCollection<Int>("counters")

    struct NotFound: Error, CustomStringConvertible {
        var description: String { "train-store-probe was not found next to the test bundle" }
    }

    /// The helper executable, built next to the test bundle by `swift test`.
    static func executable() throws -> URL {
        var directories = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
        directories += Bundle.allBundles.map(\.bundleURL).filter { $0.pathExtension == "xctest" }.map { $0.deletingLastPathComponent() }
        for directory in directories {
            let candidate = directory.appendingPathComponent("train-store-probe")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw NotFound()
    }
}

/// A running `train-store-probe write FILE COUNT TAG`, whose acknowledged keys are
/// read line by line from its standard output.
final class ProbeProcess {
    let process = Process()
    private let output = Pipe()
    private let errors = Pipe()
    private var buffer = Data()
    private(set) var lines: [String] = []
    private var finished = false

    init(file: URL, count: Int, tag: String) throws {
        process.executableURL = try Probe.executable()
        process.arguments = ["write", file.path, String(count), tag]
        process.standardOutput = output
        process.standardError = errors
        try process.run()
    }

    /// The acknowledged keys so far (every complete line but "ready").
    var acknowledged: [String] { lines.filter { $0 != "ready" } }

    /// Blocks until `count` complete lines have arrived or the output ends.
    func waitForLines(_ count: Int) {
        while lines.count < count && !finished {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { finished = true } else { absorb(chunk) }
        }
    }

    /// Kills the process with SIGKILL, waits for it, and collects every line it had written.
    func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        drain()
    }

    /// Waits for a normal exit and collects the rest of the output.
    /// - Returns: The exit status and whatever the process wrote to standard error.
    func wait() -> (status: Int32, errors: String) {
        drain()
        process.waitUntilExit()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (process.terminationStatus, message)
    }

    private func drain() {
        absorb(output.fileHandleForReading.readDataToEndOfFile())
        finished = true
    }

    private func absorb(_ chunk: Data) {
        buffer.append(chunk)
        while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
            buffer = Data(buffer[buffer.index(after: newline)...])
        }
        // A line cut off by the kill has no newline: it was never acknowledged.
    }
}
