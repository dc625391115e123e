import Foundation
import Testing
import TrainCore

/// A module's error as an app's own module would declare it: the foundation gives it
/// the rest.
private struct NoteError: TrainError {
    let code: TrainErrorCode<NoteError>
    let detail: String
    init(_ code: TrainErrorCode<NoteError>, detail: String? = nil) {
        self.code = code
        self.detail = detail ?? code.message
    }
}

extension TrainErrorCode where Failure == NoteError {
    fileprivate static var tooLong: Self { Self("tooLong", message: "This note is too long.", recoverySuggestion: "Shorten it.") }
    fileprivate static var busy: Self { Self("busy", message: "Notes are busy.") }
}

/// Another error with a code of the same name, which must never match the first's.
private struct TagError: TrainError {
    let code: TrainErrorCode<TagError>
    let detail: String
}

extension TrainErrorCode where Failure == TagError {
    fileprivate static var tooLong: Self { Self("tooLong", message: "This tag is too long.") }
}

@Suite struct TrainErrorTests {
    @Test("errors compare equal and hash alike by code, whatever their detail")
    func equalityByCode() {
        #expect(NoteError(.tooLong, detail: "a") == NoteError(.tooLong, detail: "b"))
        #expect(NoteError(.tooLong) != NoteError(.busy))
        #expect(Set([NoteError(.tooLong, detail: "a"), NoteError(.tooLong, detail: "b"), NoteError(.busy)]).count == 2)
        #expect(CoreError(.busy, file: URL(fileURLWithPath: "/a"), detail: "x") == CoreError(.busy, detail: "y"))
        #expect(CoreError(.busy, detail: "x") != CoreError(.io, detail: "x"))
    }

    @Test("a catch clause names the code: the right code of the right type matches, nothing else does")
    func catchByCode() {
        func outcome(of error: any Error) -> String {
            do { throw error } catch NoteError.busy { return "busy" } catch NoteError.tooLong { return "note too long" } catch {
                return "other"
            }
        }
        #expect(outcome(of: NoteError(.tooLong, detail: "x")) == "note too long")
        #expect(outcome(of: NoteError(.busy)) == "busy")
        #expect(outcome(of: TagError(code: .tooLong, detail: "")) == "other")
        #expect(outcome(of: CoreError(.busy)) == "other")
    }

    @Test("a store's error is caught by its code as any module's is")
    func catchStoreError() throws {
        let store = try RecordStore(.inMemory, schema: StoreSchema(name: "notes", migrations: [.createCollections(version: 1, ["notes"])]))
        #expect(throws: CoreError(.unknownCollection)) { try store.read { try $0.count(in: "missing") } }
        do {
            _ = try store.read { try $0.count(in: "missing") }
            Issue.record("An unknown collection was read.")
        } catch CoreError.unknownCollection {
        } catch {
            Issue.record("Caught \(error) instead of unknownCollection.")
        }
    }

    @Test("the user is shown the code's sentence and suggestion; a log shows the type, code and detail")
    func messages() {
        let error = NoteError(.tooLong, detail: "312 characters")
        #expect(error.localizedDescription == "This note is too long.")
        #expect(error.recoverySuggestion == "Shorten it.")
        #expect(NoteError(.busy).recoverySuggestion == nil)
        #expect(error.description == "NoteError.tooLong: 312 characters")
        #expect(NoteError(.busy).detail == "Notes are busy.")
    }

    @Test("a store helper passes the service's own error and turns any other failure into the service's")
    func storeHelpers() throws {
        let store = try RecordStore(.inMemory, schema: StoreSchema(name: "notes", migrations: [.createCollections(version: 1, ["notes"])]))
        let wrap: (any Error) -> NoteError = { NoteError(.busy, detail: "\($0)") }
        #expect(throws: NoteError(.tooLong)) { try store.write(failingWith: wrap) { _ in throw NoteError(.tooLong) } }
        #expect(throws: NoteError(.busy)) { try store.read(failingWith: wrap) { try $0.count(in: "missing") } }
        #expect(throws: NoteError(.busy)) { try store.write(failingWith: wrap) { _ in throw TagError(code: .tooLong, detail: "") } }
        #expect(try store.read(failingWith: wrap) { try $0.count(in: "notes") } == 0)
    }
}
