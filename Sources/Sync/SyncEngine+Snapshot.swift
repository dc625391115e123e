import Foundation
import TrainCore

/// An edit a device has not uploaded yet, as a world's snapshot holds it: the record as
/// the device has it, or its deletion.
package struct QueuedEdit<Record: Syncable>: Sendable {
    package var userID: String
    package var id: UUID
    /// The record; nil for a deletion.
    package var record: Record?
    /// When a deletion was made; nil for a record.
    package var deletedAt: Date?
    /// The remote's version the edit was made on, if it was made on one: its upload
    /// replaces that version, and its fields the version holds keep their stamps.
    package var base: RemoteRecord?

    package init(userID: String, id: UUID, record: Record?, deletedAt: Date?, base: RemoteRecord? = nil) {
        self.userID = userID
        self.id = id
        self.record = record
        self.deletedAt = deletedAt
        self.base = base
    }
}

extension SyncEngine {
    /// Every user's edits on this device whose upload is queued, in the order of their
    /// keys — by user, then by record ID: a world's export reads them. A record whose
    /// document this version cannot read is left out.
    /// - Throws: `storage`.
    package func queuedEdits() throws(SyncError) -> [QueuedEdit<Record>] {
        try reading { records in
            var edits: [QueuedEdit<Record>] = []
            for key in try records.keys(in: SyncRecords.outbox, range: try RecordKey(.string(Record.recordType)).range) {
                guard let components = try? RecordKey(encoded: key).components, components.count == 3, case .string(let userID) = components[1],
                    case .uuid(let id) = components[2], let local = try records.value(forKey: key, in: SyncRecords.records)
                else { continue }
                if let deleted = local.document.deleted {
                    let date = Date(timeIntervalSince1970: Double(deleted.milliseconds) / 1_000)
                    edits.append(QueuedEdit(userID: userID, id: id, record: nil, deletedAt: date))
                } else if let record = try? local.document.record(as: Record.self) {
                    edits.append(QueuedEdit(userID: userID, id: id, record: record, deletedAt: nil))
                }
            }
            return edits
        }
    }

    /// Writes `edits` into this device, which holds none of their records, as edits
    /// made on it and queued for upload, in one transaction: a record's fields that
    /// differ from its base stamped by this device's replica at `savedAt(record)` — after
    /// the base's stamps — a deletion at its date. An edit with a base is pending upload
    /// over that version, which it replaces at the next sync unless the remote moved on;
    /// one without is merged with the remote's version, if there is one, field by
    /// field, the later stamp winning.
    /// - Throws: `recordExists` for a record the device holds; `recordTooLarge` or
    ///   `invalidRecord` for one the remote would not take; `storage`.
    package func importEdits(_ edits: [QueuedEdit<Record>], savedAt: (Record) -> Date) throws(SyncError) {
        let now = context.clock.now
        do {
            try store.write { records in
                var replica = try replica(in: records)
                var changes: [UUID] = []
                for edit in edits {
                    let scope = RemoteScope(userID: edit.userID, collection: Record.recordType)
                    let key = try SyncRecords.key(scope, edit.id)
                    guard try records.data(forKey: key, in: SyncRecords.records) == nil else {
                        throw SyncError(.recordExists, detail: "The device holds the record \(edit.id.uuidString) already.")
                    }
                    let date = edit.record.map(savedAt) ?? edit.deletedAt ?? now
                    let base = try edit.base.map { SyncRecords.RemoteVersion(version: $0.version, document: try SyncDocument(data: $0.document)) }
                    // At its date, and after the base's stamps, as an edit made after downloading it is.
                    var stamp = HybridTimestamp(milliseconds: HybridClock.milliseconds(date) ?? 0, counter: 0, replicaID: replica.id)
                    if let seen = base?.document.modified, !(seen < stamp), seen.counter < .max {
                        stamp = HybridTimestamp(milliseconds: seen.milliseconds, counter: seen.counter + 1, replicaID: replica.id)
                    }
                    // The device's clock runs on from the latest stamp: its next edit is later.
                    replica.clock.observe(stamp)
                    let document = try edit.record.map { record throws(SyncError) in
                        try checked(try SyncDocument.of(record, previous: base?.document, stamp: stamp), of: record)
                    }
                    var local = SyncRecords.LocalRecord(document: document ?? .tombstone(stamp), revision: 0, base: base)
                    try queue(&local, key: key, id: edit.id, in: scope, records: records, changes: &changes)
                }
                try records.put(replica, forKey: SyncRecords.replicaKey, in: SyncRecords.meta)
            }
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError(.storage, detail: "\(error)")
        }
        localEdits.send(.localEdit)
    }

    /// Every user's log of the values that lost conflicts on this device, by user, then
    /// oldest first: a world's export reads it.
    /// - Throws: `storage`.
    package func conflictLogs() throws(SyncError) -> [(userID: String, entry: SyncConflictRecord)] {
        try reading { records in
            var logs: [(userID: String, entry: SyncConflictRecord)] = []
            for stored in try records.entries(in: SyncRecords.conflicts, range: try RecordKey(.string(Record.recordType)).range) {
                guard let components = try? RecordKey(encoded: stored.key).components, components.count >= 2, case .string(let userID) = components[1]
                else { continue }
                logs.append((userID, stored.value))
            }
            return logs
        }
    }

    /// Adds `entries` to the conflict logs of their users on this device, each after
    /// the ones logged at its date already, in the order given, in one transaction.
    /// - Throws: `storage`.
    package func importConflictLogs(_ entries: [(userID: String, entry: SyncConflictRecord)]) throws(SyncError) {
        guard !entries.isEmpty else { return }
        do {
            try store.write { records in
                var replica = try replica(in: records)
                for (userID, entry) in entries {
                    let scope = RemoteScope(userID: userID, collection: Record.recordType)
                    let key = try SyncRecords.conflictKey(scope, at: entry.resolvedAt, replica: &replica)
                    try records.put(entry, forKey: key, in: SyncRecords.conflicts)
                }
                try records.put(replica, forKey: SyncRecords.replicaKey, in: SyncRecords.meta)
            }
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError(.storage, detail: "\(error)")
        }
    }
}
