import Foundation
import Testing
import TrainCore
import TrainTesting

// The code of TrainCore.docc/GettingStarted.md, kept compiling and correct here.
// When you change one, change the other.

private struct Workout: Codable, Equatable, Sendable {
    var name: String
    var minutes: Int
}

private let schema = StoreSchema(
    name: "workouts",
    migrations: [
        .createCollections(version: 1, ["workouts", "totals"])
    ])
private let workouts = RecordCollection<Workout>("workouts")
private let totals = RecordCollection<Int>("totals")

private func logWorkout(in directory: URL) throws -> Int {
    let store = try RecordStore(.file(directory.appendingPathComponent("workouts.sqlite")), schema: schema)
    // In a preview or a test: let store = try RecordStore(.inMemory, schema: schema)
    defer { store.close() }

    try store.write { records in
        try records.put(Workout(name: "Intervals", minutes: 30), forKey: "w1", in: workouts)
        let minutes = try records.value(forKey: "minutes", in: totals) ?? 0
        try records.put(minutes + 30, forKey: "minutes", in: totals) // commits with w1, or neither does
    }
    return try store.read { try $0.value(forKey: "minutes", in: totals) ?? 0 }
}

private func openKeepingData(at file: URL, userAgreedToStartOver: Bool) throws -> RecordStore {
    let options = RecordStore.Options(recovery: userAgreedToStartOver ? .quarantine : .fail)
    return try RecordStore(.file(file, options: options), schema: schema)
}

@Suite struct GettingStartedTests {
    @Test("the getting-started article's code runs and does what it says")
    func article() throws {
        let directory = try TemporaryDirectory()
        #expect(try logWorkout(in: directory.url) == 30)
        #expect(try logWorkout(in: directory.url) == 60, "the total survives a reopen")

        let damaged = directory.file("damaged.sqlite")
        try Data("not a store".utf8).write(to: damaged)
        #expect(throws: CoreError.self) { try openKeepingData(at: damaged, userAgreedToStartOver: false) }
        let fresh = try openKeepingData(at: damaged, userAgreedToStartOver: true)
        #expect(fresh.quarantinedFile != nil)
    }
}
