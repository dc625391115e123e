import Foundation
import Testing
import TrainCore
import TrainTesting

/// `setDataIfAbsent`: one step that stores a new record and leaves an existing one.
@Suite struct InsertIfAbsentTests {
    @Test("stores a new record, leaves an existing one as it was, and is undone with its transaction", arguments: StoreVariant.allCases)
    func insertIfAbsent(variant: StoreVariant) throws {
        let directory = try TemporaryDirectory()
        let store = try variant.open(in: directory)
        let first = try store.write { try $0.setDataIfAbsent(Data("one".utf8), forKey: "k\u{0}1", in: "notes") }
        let second = try store.write { try $0.setDataIfAbsent(Data("two".utf8), forKey: "k\u{0}1", in: "notes") }
        #expect(first && !second)
        #expect(try store.read { try $0.data(forKey: "k\u{0}1", in: "notes") } == Data("one".utf8))
        #expect(throws: Boom.self) {
            try store.write { records in
                #expect(try records.setDataIfAbsent(Data("three".utf8), forKey: "k2", in: "notes"))
                #expect(try records.data(forKey: "k2", in: "notes") == Data("three".utf8))
                throw Boom()
            }
        }
        #expect(try store.read { try $0.data(forKey: "k2", in: "notes") } == nil)
        #expect(throws: CoreError(.invalidArgument)) { try store.write { try $0.setDataIfAbsent(Data(), forKey: "", in: "notes") } }
    }
}
