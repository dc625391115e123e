import Foundation
import Testing

@testable import TrainCore

/// A record with a string, a number and an optional date, in a binary layout.
private struct Workout: Codable, Equatable, Sendable {
    var name: String
    var minutes: Int
    var finishedAt: Date?
}

private let workouts = RecordCollection<Workout>.binary(
    "workouts", format: 1,
    encode: { workout, writer in
        writer.write(workout.name)
        writer.write(workout.minutes)
        writer.write(workout.finishedAt)
    },
    decode: { reader throws(CoreError) in
        Workout(name: try reader.read(), minutes: try reader.read(), finishedAt: try reader.read())
    })

/// The binary record layout: what it reads back, and what it refuses.
@Suite struct BinaryCodingTests {
    private static func store() throws -> RecordStore {
        try RecordStore(.inMemory, schema: StoreSchema(name: "binary", migrations: [.createCollections(version: 1, ["workouts"])]))
    }

    @Test("a binary record reads back as written, a missing date included")
    func roundTrip() throws {
        let store = try Self.store()
        let run = Workout(name: "Easy run, 5 km", minutes: 31, finishedAt: Date(timeIntervalSince1970: 1_800_000_000.125))
        let swim = Workout(name: "", minutes: -1, finishedAt: nil)
        try store.write { records in
            try records.put(run, forKey: "run", in: workouts)
            try records.put(swim, forKey: "swim", in: workouts)
        }
        #expect(try store.read { try $0.value(forKey: "run", in: workouts) } == run)
        #expect(try store.read { try $0.value(forKey: "swim", in: workouts) } == swim)
    }

    @Test("a binary record with bytes after its last field, or cut short, is undecodable", arguments: [[0], [0, 0, 0, 0], []])
    func leftOverOrShort(extra: [UInt8]) throws {
        let store = try Self.store()
        try store.write { try $0.put(Workout(name: "Row", minutes: 20, finishedAt: nil), forKey: "row", in: workouts) }
        let written = try #require(try store.read { try $0.data(forKey: "row", in: workouts) })
        let damaged = extra.isEmpty ? written.dropLast() : written + extra
        try store.write { try $0.setData(Data(damaged), forKey: "row", in: workouts) }
        #expect(throws: CoreError(.undecodable)) { try store.read { try $0.value(forKey: "row", in: workouts) } }
    }

    @Test("compact numbers read back at every size, signed ones too, and an overlong or over-64-bit number is undecodable")
    func compactNumbers() throws {
        let unsigned: [UInt64] = [0, 1, 127, 128, 300, 16_383, 16_384, UInt64(UInt32.max), .max - 1, .max]
        let signed: [Int64] = [0, -1, 1, -64, 64, .min, .max, -1_767_571_200_000]
        var writer = BinaryWriter(format: 1)
        for value in unsigned { writer.writeCompact(value) }
        for value in signed { writer.writeCompact(value) }
        writer.writeCompact("é\u{0}🏃")
        try BinaryReader.reading(writer.data, formats: [1]) { reader throws(CoreError) in
            for value in unsigned { #expect(try reader.readCompact() == value) }
            for value in signed { #expect(try reader.readCompactSigned() == value) }
            #expect(try reader.readCompactString() == "é\u{0}🏃")
            try reader.finish()
        }
        #expect(Array(BinaryWriter(format: 1).data) == [1])
        var small = BinaryWriter(format: 1)
        small.writeCompact(UInt64(127))
        #expect(small.data.count == 2, "a number under 128 takes one byte")
        // Eleven bytes of continuation, and a tenth byte carrying more than the 64th bit.
        for bad in [[UInt8](repeating: 0x80, count: 11), [UInt8](repeating: 0xFF, count: 9) + [0x02]] {
            #expect(throws: CoreError(.undecodable)) {
                try BinaryReader.reading(Data([1] + bad), formats: [1]) { reader throws(CoreError) in try reader.readCompact() }
            }
        }
        var counted = BinaryWriter(format: 1)
        counted.writeCompact(UInt64(5))
        #expect(throws: CoreError(.undecodable)) {
            try BinaryReader.reading(counted.data, formats: [1]) { reader throws(CoreError) in try reader.readCompactCount(atMost: 4) }
        }
    }
}
