import Foundation
import TrainCore

/// A record the sync engine can keep in step across devices: a `Codable` value with a
/// UUID, owned by one user. Each top-level property is a field: two devices that
/// change different fields of one record both keep their change.
///
/// ```swift
/// struct Workout: Syncable {
///     static let recordType = "workouts"
///     var id: UUID
///     var userID: String
///     var title: String
///     func validated() throws(SyncError) -> Workout {
///         guard !title.isEmpty else { throw SyncError(.invalidRecord, detail: "A workout needs a title.") }
///         return self
///     }
/// }
/// ```
public protocol Syncable: Codable, Hashable, Sendable, Identifiable where ID == UUID {
    /// The name of the remote collection records of this type live in, such as `"plans"`.
    static var recordType: String { get }
    /// The user who owns the record; the engine sets it to the signed-in user.
    var userID: String { get set }
    /// The record as it may be stored, or ``SyncError`` with code `invalidRecord`.
    func validated() throws(SyncError) -> Self

    /// The name of the field that holds the record's `id` in its encoding:
    /// `"id"`, unless its coding keys rename it. A download is checked against it.
    static var idField: String { get }
    /// The name of the field that holds ``userID`` in the record's encoding:
    /// `"userID"`, unless its coding keys rename it. A download is checked against it.
    static var ownerField: String { get }
}

extension Syncable {
    /// `"id"`.
    public static var idField: String { "id" }
    /// `"userID"`.
    public static var ownerField: String { "userID" }
}

/// One workout of a plan's week. Its ID lets two devices that change different
/// workouts of one plan at once both keep their change.
public struct PlannedWorkout: Codable, Hashable, Sendable, Identifiable {
    /// The workout's identifier, the same on every device.
    public let id: UUID
    /// What to do, such as "Easy run".
    public var title: String
    /// How long it takes, in minutes.
    public var minutes: Int

    /// Creates a planned workout.
    /// - Parameters:
    ///   - id: The identifier; a new one by default.
    ///   - title: What to do.
    ///   - minutes: How long it takes.
    public init(id: UUID = UUID(), title: String, minutes: Int) {
        self.id = id
        self.title = title
        self.minutes = minutes
    }

    private enum CodingKeys: String, CodingKey {
        case id, title, minutes
    }

    /// Reads a workout. One saved by an earlier version, without an ID, gets one made
    /// from its place in the list and its content, the same on every device.
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError` if the title or minutes are missing.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decode(String.self, forKey: .title)
        minutes = try container.decode(Int.self, forKey: .minutes)
        if let id = try container.decodeIfPresent(UUID.self, forKey: .id) {
            self.id = id
        } else {
            id = Self.derivedID(position: decoder.codingPath.last?.intValue ?? 0, title: title, minutes: minutes)
        }
    }

    /// The ID of a workout saved without one: a name-based UUID (version 8) from the
    /// SHA-256 of its position, title and minutes.
    static func derivedID(position: Int, title: String, minutes: Int) -> UUID {
        var bytes = (try? PlatformCrypto.sha256(Data("PlannedWorkout\u{0}\(position)\u{0}\(title)\u{0}\(minutes)".utf8))) ?? []
        bytes += [UInt8](repeating: 0, count: max(0, 16 - bytes.count))
        bytes[6] = bytes[6] & 0x0F | 0x80
        bytes[8] = bytes[8] & 0x3F | 0x80
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9], bytes[10], bytes[11], bytes[12],
                bytes[13], bytes[14], bytes[15]
            ))
    }
}

/// A training plan: a name, a date range, how many days a week, and the week's workouts.
public struct TrainingPlan: Syncable {
    /// Plans live in the remote collection `plans`.
    public static let recordType = "plans"

    /// The plan's identifier, the same on every device.
    public let id: UUID
    /// The owner; set to the signed-in user when the plan is saved.
    public var userID: String
    /// The plan's name, 1 to 200 characters.
    public var name: String
    /// Free notes, at most 10,000 characters.
    public var notes: String
    /// The first day of the plan.
    public var startDate: Date
    /// The last day of the plan; not before `startDate`.
    public var endDate: Date
    /// Training days a week, 1...7.
    public var daysPerWeek: Int
    /// Whether the athlete finished the plan.
    public var isCompleted: Bool
    /// The week's workouts, at most 50, each once. Two devices that add, change or
    /// remove different workouts at once both keep their change.
    public var weeklyWorkouts: [PlannedWorkout]
    /// When this device last saved the plan, for display only: sync never orders
    /// edits by device time.
    public var lastModified: Date

    /// Creates a plan.
    /// - Parameters:
    ///   - id: The identifier; a new one by default.
    ///   - userID: The owner; the service sets it to the signed-in user.
    ///   - name: The name.
    ///   - notes: Notes; none by default.
    ///   - startDate: The first day.
    ///   - endDate: The last day.
    ///   - daysPerWeek: Training days a week.
    ///   - isCompleted: Whether it is finished; no by default.
    ///   - weeklyWorkouts: The week's workouts; none by default.
    ///   - lastModified: When it was last saved; the service sets it.
    public init(
        id: UUID = UUID(), userID: String = "", name: String, notes: String = "", startDate: Date, endDate: Date, daysPerWeek: Int,
        isCompleted: Bool = false, weeklyWorkouts: [PlannedWorkout] = [], lastModified: Date = Date(timeIntervalSince1970: 0)
    ) {
        self.id = id
        self.userID = userID
        self.name = name
        self.notes = notes
        self.startDate = startDate
        self.endDate = endDate
        self.daysPerWeek = daysPerWeek
        self.isCompleted = isCompleted
        self.weeklyWorkouts = weeklyWorkouts
        self.lastModified = lastModified
    }

    /// The plan if its name is 1 to 200 visible characters, its notes at most 10,000,
    /// `endDate` not before `startDate`, `daysPerWeek` in 1...7 and at most 50 workouts
    /// each with a title, 1 to 1,440 minutes and an ID no other workout of the plan has.
    public func validated() throws(SyncError) -> TrainingPlan {
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, name.count <= 200, !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw SyncError(.invalidRecord, detail: "A plan's name is 1 to 200 characters without control characters.")
        }
        guard notes.count <= 10_000, !notes.contains("\u{0}") else {
            throw SyncError(.invalidRecord, detail: "A plan's notes are at most 10,000 characters, without NUL.")
        }
        guard startDate.timeIntervalSince1970.isFinite, endDate.timeIntervalSince1970.isFinite, endDate >= startDate else {
            throw SyncError(.invalidRecord, detail: "A plan ends on or after the day it starts.")
        }
        guard (1...7).contains(daysPerWeek) else {
            throw SyncError(.invalidRecord, detail: "A plan has 1 to 7 training days a week, not \(daysPerWeek).")
        }
        guard weeklyWorkouts.count <= 50,
            weeklyWorkouts.allSatisfy({
                !$0.title.trimmingCharacters(in: .whitespaces).isEmpty && $0.title.count <= 200 && (1...1_440).contains($0.minutes)
            })
        else {
            throw SyncError(.invalidRecord, detail: "A plan has at most 50 workouts, each with a title and 1 to 1,440 minutes.")
        }
        guard Set(weeklyWorkouts.map(\.id)).count == weeklyWorkouts.count else {
            throw SyncError(.invalidRecord, detail: "A plan lists each workout once.")
        }
        var plan = self
        plan.name = name
        return plan
    }
}

/// Where a record stands between this device and the remote.
public enum SyncStatus: String, Codable, Hashable, Sendable, CaseIterable {
    /// Made on this device and never uploaded.
    case notSynced
    /// The same here as on the remote, as far as the last sync knows.
    case synced
    /// Changed on this device since the last upload; queued.
    case pendingUpload
    /// To be read again from the remote: this device was offline longer than the
    /// remote keeps deletions, and a full download is under way or failed.
    case pendingDownload
    /// Waiting for the app to choose between this device's and the remote's version
    /// (a custom conflict policy held it), or refused by the remote for good.
    case conflict
}

/// A change of a record's ``SyncStatus``, as the status stream delivers it.
public struct SyncStatusChange: Hashable, Sendable {
    /// The record.
    public let recordID: UUID
    /// Its status now; nil when it no longer exists on this device.
    public let status: SyncStatus?

    /// Creates a status change.
    /// - Parameters:
    ///   - recordID: The record.
    ///   - status: Its status now.
    public init(recordID: UUID, status: SyncStatus?) {
        self.recordID = recordID
        self.status = status
    }
}

/// What deleting a user's synced records removed.
public struct SyncDeletionReport: Codable, Hashable, Sendable {
    /// Records removed from this device, not counting deleted ones awaiting upload.
    public var localRecords: Int
    /// Records the remote erased, not counting deletions it kept.
    public var remoteRecords: Int

    /// Creates a report.
    /// - Parameters:
    ///   - localRecords: Records removed from this device.
    ///   - remoteRecords: Records the remote erased.
    public init(localRecords: Int = 0, remoteRecords: Int = 0) {
        self.localRecords = localRecords
        self.remoteRecords = remoteRecords
    }
}

/// What one sync did.
public struct SyncReport: Hashable, Sendable {
    /// Records the remote accepted from this device.
    public var uploaded: Int = 0
    /// Records changed on this device by remote changes.
    public var downloaded: Int = 0
    /// Conflicts found and resolved (or held for the app).
    public var conflicts: Int = 0
    /// Records the remote refused for good, now in the dead-letter list.
    public var rejected: Int = 0
    /// Calls made to the remote.
    public var remoteCalls: Int = 0
    /// Whether this device read everything again because it was offline longer than
    /// the remote keeps deletions.
    public var didFullResync: Bool = false
    /// Times the remote told a time, or sent an edit stamped with one, further from
    /// this device's clock than ``SyncConfiguration/maximumClockDrift``: readings the
    /// sync did not use.
    public var ignoredClockReadings: Int = 0

    /// Creates an empty report.
    public init() {}
}

extension SyncDeletionReport {
    /// Adds the counts of another attempt of the same deletion: one that resumed what
    /// an earlier one left.
    /// - Parameter other: The other attempt's counts.
    public mutating func add(_ other: SyncDeletionReport) {
        localRecords += other.localRecords
        remoteRecords += other.remoteRecords
    }
}
