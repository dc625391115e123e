import Foundation
import Testing
import TrainCore
import TrainTesting

@Suite struct CheckpointCrashTests {
    /// A store whose checkpoint was cut off after writing page 1: the main file's
    /// header already counts the pages still waiting in the write-ahead log.
    @Test("a store caught mid-checkpoint opens with every record, and is not taken for truncated")
    func midCheckpoint() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file("store.sqlite")
        let store = try RecordStore(.file(file), schema: notesSchema)
        try store.write { writer in
            for index in 0..<300 { try writer.put(Note(text: String(repeating: "x", count: 200), pinned: false), forKey: "n\(index)", in: notes) }
        }
        let wal = try Data(contentsOf: URL(fileURLWithPath: file.path + "-wal"))
        var main = try Data(contentsOf: file)
        // WAL: a 32-byte header, then frames of a 24-byte header (page number first) and one page.
        let pageSize = Int(wal[8]) << 24 | Int(wal[9]) << 16 | Int(wal[10]) << 8 | Int(wal[11])
        var offset = 32
        var lastPageOne: Data?
        while offset + 24 + pageSize <= wal.count {
            let page = Int(wal[offset]) << 24 | Int(wal[offset + 1]) << 16 | Int(wal[offset + 2]) << 8 | Int(wal[offset + 3])
            if page == 1 { lastPageOne = wal.subdata(in: (offset + 24)..<(offset + 24 + pageSize)) }
            offset += 24 + pageSize
        }
        let pageOne = try #require(lastPageOne)
        main.replaceSubrange(0..<pageSize, with: pageOne)
        store.close()
        // Closing checkpointed everything; put back the state of the cut-off checkpoint:
        // only page 1 in the main file, every page in the log.
        try Data(main.prefix(pageSize)).write(to: file)
        try wal.write(to: URL(fileURLWithPath: file.path + "-wal"))
        let reopened = try RecordStore(.file(file), schema: notesSchema)
        #expect(try reopened.read { try $0.count(in: notes) } == 300)
    }
}
