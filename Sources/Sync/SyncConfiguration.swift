import Foundation
import TrainCore

/// How a conflict between this device's edit and the remote's newer version is
/// resolved. Every policy but ``custom(_:)`` gives the same result on every device.
public enum ConflictPolicy<Record: Syncable>: Sendable {
    /// Each field keeps the side that changed it; a field both sides changed keeps
    /// the later edit by hybrid clock, and the other value goes to the conflict log.
    case fieldMerge
    /// The whole record of the later edit by hybrid clock wins.
    case lastWriterWins
    /// This device's version wins.
    case localWins
    /// The remote's version wins.
    case remoteWins
    /// The closure decides: keep a record (one of the two, or a blend), or hold the
    /// conflict for the app to resolve with `resolveConflict`.
    case custom(@Sendable (SyncConflict<Record>) -> ConflictDecision<Record>)
}

/// A conflict a ``ConflictPolicy/custom(_:)`` policy decides.
public struct SyncConflict<Record: Syncable>: Sendable {
    /// This device's version.
    public let local: Record
    /// The remote's version.
    public let remote: Record
    /// The version both started from, if this device knows it.
    public let base: Record?

    /// Creates a conflict.
    /// - Parameters:
    ///   - local: This device's version.
    ///   - remote: The remote's version.
    ///   - base: The common version.
    public init(local: Record, remote: Record, base: Record?) {
        self.local = local
        self.remote = remote
        self.base = base
    }
}

/// What a custom policy decided.
public enum ConflictDecision<Record: Syncable>: Sendable {
    /// Keep this record: it is uploaded over the remote's version.
    case keep(Record)
    /// Keep this device's version out of uploads until the app resolves the conflict.
    case hold
}

/// Which side wins when one device deletes a record another edited.
public enum DeleteConflictPolicy: String, Codable, Hashable, Sendable, CaseIterable {
    /// The record stays deleted; the edit goes to the conflict log.
    case deleteWins
    /// The edited record comes back.
    case editWins
}

/// Everything a ``SyncEngine`` is built from besides its context: how conflicts are
/// resolved, batch and page sizes, and the limits a remote cannot push past, each with
/// a default:
///
/// ```swift
/// var configuration = SyncConfiguration<TrainingPlan>()
/// configuration.conflictPolicy = .editWins
/// ```
public struct SyncConfiguration<Record: Syncable>: Sendable {
    /// How edit conflicts are resolved; ``ConflictPolicy/fieldMerge`` by default.
    public var conflictPolicy: ConflictPolicy<Record> = .fieldMerge
    /// How a deletion against an edit is resolved; ``DeleteConflictPolicy/deleteWins`` by default.
    public var deletePolicy: DeleteConflictPolicy = .deleteWins
    /// The most records sent in one upload, halved while the remote answers "too
    /// large"; 500 by default, at least 1.
    public var batchSize = 500 {
        didSet { batchSize = max(1, batchSize) }
    }
    /// The most records read in one download call; 500 by default, at least 1.
    public var pageSize = 500 {
        didSet { pageSize = max(1, pageSize) }
    }
    /// The most calls one sync makes to the remote; 1,000 by default (half a million
    /// records in pages of 500), at least 1. A sync that reaches it stops with
    /// ``TrainCore/TrainErrorCode/tooManyRemoteCalls``, keeping what it finished, so a
    /// remote that never stops answering cannot hold it; the next sync goes on from there.
    public var maximumRemoteCalls = 1_000 {
        didSet { maximumRemoteCalls = max(1, maximumRemoteCalls) }
    }
    /// How far the remote's clock may be from this device's for the sync to take its
    /// time; a day by default, at least zero. A device clock is often minutes off and
    /// sometimes hours (a time zone set by hand); within this drift the device corrects
    /// its edits' times to the remote's. A reading beyond it is not used and is counted
    /// in ``SyncReport/ignoredClockReadings``, so a remote that lies about the time
    /// moves this device's edits at most this far ahead. A device whose own clock is
    /// further off than this keeps its own time until its clock is set right.
    public var maximumClockDrift: Duration = .seconds(86_400) {
        didSet { maximumClockDrift = max(.zero, maximumClockDrift) }
    }
    /// Whether a sync checks the remote's answers before storing them; off only to
    /// measure what the checks cost.
    package var checksAnswers = true
    /// The clock and IDs given to the deprecated initializer, which override the context's.
    package var legacy = LegacyContext()

    /// Creates a configuration; `SyncConfiguration()` has every default.
    /// - Parameters:
    ///   - conflictPolicy: ``ConflictPolicy/fieldMerge`` by default.
    ///   - deletePolicy: ``DeleteConflictPolicy/deleteWins`` by default.
    ///   - batchSize: 500 by default; at least 1.
    ///   - pageSize: 500 by default; at least 1.
    ///   - maximumRemoteCalls: 1,000 by default; at least 1.
    ///   - maximumClockDrift: A day by default; at least zero.
    public init(
        conflictPolicy: ConflictPolicy<Record> = .fieldMerge, deletePolicy: DeleteConflictPolicy = .deleteWins, batchSize: Int = 500,
        pageSize: Int = 500, maximumRemoteCalls: Int = 1_000, maximumClockDrift: Duration = .seconds(86_400)
    ) {
        self.conflictPolicy = conflictPolicy
        self.deletePolicy = deletePolicy
        self.batchSize = max(1, batchSize)
        self.pageSize = max(1, pageSize)
        self.maximumRemoteCalls = max(1, maximumRemoteCalls)
        self.maximumClockDrift = max(.zero, maximumClockDrift)
    }

    /// Creates a configuration with a clock or IDs of its own.
    /// - Parameters:
    ///   - clock: The device clock, in place of the context's.
    ///   - ids: The ID generator, in place of the context's.
    ///   - conflictPolicy: ``ConflictPolicy/fieldMerge`` by default.
    ///   - deletePolicy: ``DeleteConflictPolicy/deleteWins`` by default.
    ///   - batchSize: 500 by default; at least 1.
    ///   - pageSize: 500 by default; at least 1.
    ///   - maximumRemoteCalls: 1,000 by default; at least 1.
    ///   - maximumClockDrift: A day by default; at least zero.
    @_disfavoredOverload
    @available(*, deprecated, message: "Pass the clock and IDs in the engine's context.")
    public init(
        clock: (any DateClock)? = nil, ids: (any IDGenerator)? = nil, conflictPolicy: ConflictPolicy<Record> = .fieldMerge,
        deletePolicy: DeleteConflictPolicy = .deleteWins, batchSize: Int = 500, pageSize: Int = 500, maximumRemoteCalls: Int = 1_000,
        maximumClockDrift: Duration = .seconds(86_400)
    ) {
        self.init(
            conflictPolicy: conflictPolicy, deletePolicy: deletePolicy, batchSize: batchSize, pageSize: pageSize,
            maximumRemoteCalls: maximumRemoteCalls, maximumClockDrift: maximumClockDrift)
        self.legacy = LegacyContext(clock: clock, ids: ids)
    }

    /// The clock given to the deprecated initializer, or the system's.
    @available(*, deprecated, message: "Pass the clock in the engine's context.")
    public var clock: any DateClock {
        get { legacy.clock ?? SystemClock() }
        set { legacy.clock = newValue }
    }
    /// The ID generator given to the deprecated initializer, or random IDs.
    @available(*, deprecated, message: "Pass the ID generator in the engine's context.")
    public var ids: any IDGenerator {
        get { legacy.ids ?? RandomIDGenerator() }
        set { legacy.ids = newValue }
    }
}

/// A value that lost a conflict, kept so the app can show or restore it.
public struct SyncConflictRecord: Codable, Hashable, Sendable {
    /// The record.
    public let recordID: UUID
    /// The field, the name of the record's property.
    public let field: String
    /// The losing value as JSON; `null` if the losing side had no such field.
    public let losingValue: Data
    /// The winning value as JSON; `null` when the record was deleted.
    public let winningValue: Data
    /// When this device resolved the conflict, by its clock.
    public let resolvedAt: Date

    /// Creates a log entry.
    /// - Parameters:
    ///   - recordID: The record.
    ///   - field: The field.
    ///   - losingValue: The losing value as JSON.
    ///   - winningValue: The winning value as JSON.
    ///   - resolvedAt: When it was resolved.
    public init(recordID: UUID, field: String, losingValue: Data, winningValue: Data, resolvedAt: Date) {
        self.recordID = recordID
        self.field = field
        self.losingValue = losingValue
        self.winningValue = winningValue
        self.resolvedAt = resolvedAt
    }

    /// The losing value decoded, such as the notes text that lost.
    /// - Parameter type: The field's type.
    /// - Returns: The value.
    /// - Throws: `DecodingError` if the value is not of that type.
    public func losingValue<Value: Decodable>(as type: Value.Type) throws -> Value {
        try JSONDecoder().decode(Value.self, from: losingValue)
    }
}

/// A record the remote refused for good, kept out of uploads until it is edited again.
public struct DeadLetter: Codable, Hashable, Sendable {
    /// The record.
    public let recordID: UUID
    /// The remote's reason.
    public let reason: String
    /// When it was refused, by this device's clock.
    public let date: Date

    /// Creates a dead letter.
    /// - Parameters:
    ///   - recordID: The record.
    ///   - reason: The reason.
    ///   - date: When.
    public init(recordID: UUID, reason: String, date: Date) {
        self.recordID = recordID
        self.reason = reason
        self.date = date
    }
}
