import Foundation
import Testing
import TrainCore
import TrainTesting

@Suite struct MemoryMapTests {
    /// A store of `count` notes at `file`, closed so that its records are in the main file.
    private func makeStore(at file: URL, count: Int) throws {
        let store = try RecordStore(.file(file), schema: notesSchema)
        try store.write { writer in
            for index in 0..<count {
                try writer.put(Note(text: "note \(index)", pinned: index.isMultiple(of: 3)), forKey: "n\(1_000 + index)", in: notes)
            }
        }
        store.close()
    }

    /// Whether this process maps `file` itself (not its `-shm` side file, which SQLite
    /// always maps in WAL mode). Nil where the system does not list its mappings.
    private func isMapped(_ file: URL) throws -> Bool? {
        #if os(Linux)
            // Read to the end: the file's size says 0, and a read of one page stops short.
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/maps"))
            defer { try? handle.close() }
            let maps = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
            return maps.split(separator: "\n").contains { $0.hasSuffix(" " + file.path) }
        #else
            return nil
        #endif
    }

    @Test("a store opened with a memory map reads its file through one and returns what a store without one returns")
    func mappedReads() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file("store.sqlite")
        try makeStore(at: file, count: 500)

        let plain = try RecordStore(.file(file), schema: notesSchema)
        let range = KeyRange(lower: .excluded("n1100"), upper: .included("n1300"))
        let expectedForward = try plain.read { try $0.records(in: notes, range: range, limit: 50) }
        let expectedReverse = try plain.read { try $0.records(in: notes, range: range, direction: .reverse, limit: 50) }
        if let mapped = try isMapped(file) { #expect(!mapped) }
        plain.close()

        let store = try RecordStore(.file(file, options: .init(memoryMapSize: 1 << 26)), schema: notesSchema)
        defer { store.close() }
        #expect(try store.read { try $0.records(in: notes, range: range, limit: 50) } == expectedForward)
        #expect(try store.read { try $0.records(in: notes, range: range, direction: .reverse, limit: 50) } == expectedReverse)
        #expect(try store.read { try $0.count(in: notes) } == 500)
        if let mapped = try isMapped(file) { #expect(mapped) }

        try store.write { try $0.put(Note(text: "new", pinned: true), forKey: "n9999", in: notes) }
        #expect(try store.read { try $0.value(forKey: "n9999", in: notes) } == Note(text: "new", pinned: true))
    }

    @Test("a negative memory map size is invalidArgument and creates no file")
    func negativeSize() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file("store.sqlite")
        let error = #expect(throws: CoreError.self) {
            try RecordStore(.file(file, options: .init(memoryMapSize: -1)), schema: notesSchema)
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.file == file)
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test("with a memory map, a damaged page is still corrupt on the read that reaches it, naming the file")
    func damagedPage() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file("store.sqlite")
        try makeStore(at: file, count: 400)
        var bytes = try Data(contentsOf: file)
        let pageSize = 4096
        for index in (bytes.count - pageSize)..<bytes.count { bytes[index] = UInt8(truncatingIfNeeded: index &* 13) }
        try bytes.write(to: file)

        let store = try RecordStore(.file(file, options: .init(memoryMapSize: 1 << 26)), schema: notesSchema)
        defer { store.close() }
        let error = #expect(throws: CoreError.self) { try store.read { try $0.records(in: notes) } }
        #expect(error?.code == .corrupt)
        #expect(error?.file == file)
    }
}
