import Foundation
import Testing
import TrainCore

@Suite struct CoreErrorTests {
    @Test("errors compare equal by code whatever their file and detail")
    func equalByCode() {
        let store = try? RecordStore(.inMemory, schema: StoreSchema(name: "notes", migrations: [.createCollections(version: 1, ["notes"])]))
        #expect(throws: CoreError(.unknownCollection)) { try store?.read { try $0.count(in: "missing") } }
        #expect(CoreError(.busy, file: URL(fileURLWithPath: "/a"), detail: "x") == CoreError(.busy, detail: "y"))
        #expect(CoreError(.busy, detail: "x") != CoreError(.io, detail: "x"))
    }
}
