import Foundation
import TrainCore

/// A write the remote acknowledged in this launch: what to undo if the change feed
/// shows its version belongs to another record.
struct Acknowledgement: Sendable {
    /// The record acknowledged.
    var recordID: UUID
    /// Its base before the acknowledgement.
    var previousBase: SyncRecords.RemoteVersion?
}

extension SyncEngine {
    /// Gives this device a new replica ID, because another device writes under the
    /// current one: the outbox entries in flight keep the old ID for their sends, and
    /// the next upload sends every queued edit again under the new one.
    func changeReplica(_ replica: inout SyncRecords.Replica, in records: RecordWriter) throws {
        let old = replica.id
        for entry in try records.entries(in: SyncRecords.outbox, range: .all) where entry.value.replicaID == nil && entry.value.sequence != nil {
            var named = entry.value
            named.replicaID = old
            try records.put(named, forKey: entry.key, in: SyncRecords.outbox)
        }
        // The generator's next ID and a random part: a generator that always gives the
        // same ID (a fixed one, or one restored from a backup) cannot collide again.
        replica.id = "\(configuration.ids.makeID()).\(UUID().uuidString.prefix(8).lowercased())"
        replica.nextSequence = 1
        try records.put(replica, forKey: SyncRecords.replicaKey, in: SyncRecords.meta)
    }

    /// Remembers that the remote acknowledged `id` at `version`, so a change feed that
    /// shows another record at that version reveals the acknowledgement as false.
    func remember(_ version: UInt64, acknowledging id: UUID, previousBase: SyncRecords.RemoteVersion?, in scope: RemoteScope) {
        acknowledged.withLock { $0[scope, default: [:]][version] = Acknowledgement(recordID: id, previousBase: previousBase) }
    }

    /// Forgets the acknowledgements remembered for `scope`, at the start of a sync.
    func forgetAcknowledgements(in scope: RemoteScope) {
        acknowledged.withLock { $0[scope] = nil }
    }

    /// If `record`, read from the change feed, shows that the remote acknowledged a
    /// write of another record of this device's at its version — a remote that keeps
    /// mutation IDs without what they wrote, while another device uses this replica
    /// ID — puts that record back in the queue on its earlier base and returns its ID.
    func undoFalseAcknowledgement(
        shownBy record: RemoteRecord, in scope: RemoteScope, records: RecordWriter, replica: inout SyncRecords.Replica
    ) throws -> UUID? {
        guard let acknowledgement = acknowledged.withLock({ $0[scope]?[record.version] }), acknowledgement.recordID != record.id else {
            return nil
        }
        acknowledged.withLock { _ = $0[scope]?.removeValue(forKey: record.version) }
        let key = try SyncRecords.key(scope, acknowledgement.recordID)
        guard var local = try records.value(forKey: key, in: SyncRecords.records), local.base?.version == record.version else { return nil }
        local.base = acknowledgement.previousBase
        try records.put(local, forKey: key, in: SyncRecords.records)
        try records.put(SyncRecords.OutboxEntry(), forKey: key, in: SyncRecords.outbox)
        if record.mutation.replicaID == replica.id { try changeReplica(&replica, in: records) }
        return acknowledgement.recordID
    }
}
