import Foundation
import TrainCore

/// The demo's clock: the real date plus the simulated time the story has skipped
/// ahead, kept in the data directory so a second run continues on the same timeline.
final class DemoClock: DateClock {
    private let file: URL
    private let offset: Locked<TimeInterval>

    init(directory: URL) {
        file = directory.appendingPathComponent("demo-clock.json")
        let saved = (try? Data(contentsOf: file)).flatMap { try? JSONDecoder().decode(TimeInterval.self, from: $0) }
        offset = Locked(saved ?? 0)
    }

    var now: Date { Date().addingTimeInterval(offset.withLock { $0 }) }

    /// The system's elapsed time plus the time skipped ahead: a skip is time passing.
    var elapsed: Duration { SystemClock().elapsed + .seconds(offset.withLock { $0 }) }

    /// Skips `duration` ahead, as if that much time had passed, and remembers it in a
    /// file only the owner can read, as the store's are.
    func advance(by duration: Duration) throws {
        let total = offset.withLock { value in
            value += duration.timeInterval
            return value
        }
        let temporary = file.deletingLastPathComponent().appendingPathComponent(".\(file.lastPathComponent).\(UUID().uuidString)")
        guard
            FileManager.default.createFile(
                atPath: temporary.path, contents: try JSONEncoder().encode(total),
                attributes: [.posixPermissions: 0o600])
        else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary.path])
        }
        guard rename(temporary.path, file.path) == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path])
        }
    }

    func sleep(until deadline: Date) async throws {
        try await SystemClock().sleep(until: deadline.addingTimeInterval(-offset.withLock { $0 }))
    }
}
