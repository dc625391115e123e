import Foundation
import Testing
import TrainCore
import TrainTesting

/// Two stores on one file see each other's commits, and can tell when the other wrote.
@Suite struct ExternalChangeTests {
    @Test("a commit by another store on the file is counted; a store's own commits are not")
    func countsOtherConnections() throws {
        let directory = try TemporaryDirectory()
        let app = try StoreVariant.file.open(in: directory)
        let widget = try StoreVariant.file.open(in: directory)
        let start = try app.externalChangeCount()
        try app.write { try $0.put(1, forKey: "a", in: counters) }
        #expect(try app.externalChangeCount() == start, "its own commit")
        try widget.write { try $0.put(2, forKey: "b", in: counters) }
        let afterWidget = try app.read { $0.externalChangeCount }
        #expect(afterWidget == start + 1, "the other store's commit")
        #expect(try app.read { try $0.value(forKey: "b", in: counters) } == 2)
        #expect(try app.externalChangeCount() == afterWidget, "nothing new since")
        try widget.write { try $0.put(3, forKey: "b", in: counters) }
        #expect(try app.write { $0.externalChangeCount } == afterWidget + 1, "seen at the start of a write too")
    }

    @Test("an in-memory store has no other connection: the count stays 0")
    func inMemory() throws {
        let store = try StoreVariant.inMemory.open(in: try TemporaryDirectory())
        try store.write { try $0.put(1, forKey: "a", in: counters) }
        #expect(try store.externalChangeCount() == 0)
        #expect(try store.read { $0.externalChangeCount } == 0)
    }
}
