import Foundation
import Testing
import TrainCore
import TrainTesting

@Suite struct StoreOptionsTests {
    @Test(
        "any busy timeout a caller passes is accepted, clamped to what SQLite takes",
        arguments: [
            Duration.seconds(Int64.max), .seconds(-5), .zero,
        ])
    func extremeBusyTimeout(timeout: Duration) throws {
        let directory = try TemporaryDirectory()
        let store = try RecordStore(.file(directory.file("s.sqlite"), options: .init(busyTimeout: timeout)), schema: notesSchema)
        try store.write { try $0.put(1, forKey: "a", in: counters) }
        #expect(try store.read { try $0.value(forKey: "a", in: counters) } == 1)
    }
}
