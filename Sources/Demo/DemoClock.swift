import Foundation
import Synchronization
import TrainCore

/// The demo's clock: the real date plus the simulated time the story has skipped
/// ahead, kept in the data directory so a second run continues on the same timeline.
final class DemoClock: DateClock {
    private let file: URL
    private let offset: Mutex<TimeInterval>

    init(directory: URL) {
        file = directory.appendingPathComponent("demo-clock.json")
        let saved = (try? Data(contentsOf: file)).flatMap { try? JSONDecoder().decode(TimeInterval.self, from: $0) }
        offset = Mutex(saved ?? 0)
    }

    var now: Date { Date().addingTimeInterval(offset.withLock { $0 }) }

    /// Skips `duration` ahead, as if that much time had passed, and remembers it.
    func advance(by duration: Duration) throws {
        let total = offset.withLock { value in
            value += duration.timeInterval
            return value
        }
        try JSONEncoder().encode(total).write(to: file, options: .atomic)
    }

    func sleep(until deadline: Date) async throws {
        try await SystemClock().sleep(until: deadline.addingTimeInterval(-offset.withLock { $0 }))
    }
}
