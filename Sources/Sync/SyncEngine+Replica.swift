import Foundation
import TrainCore

/// A write the remote acknowledged in this launch and no download has confirmed yet:
/// what to undo if it turns out another record's.
struct Acknowledgement: Sendable {
    /// The record acknowledged.
    var recordID: UUID
    /// Its base before the acknowledgement.
    var previousBase: SyncRecords.RemoteVersion?
}

/// The acknowledgements of one scope not confirmed yet, by version, with an index by
/// record; at most ``limit``, the oldest dropped first.
struct AcknowledgementBook: Sendable {
    private(set) var byVersion: [UInt64: Acknowledgement] = [:]
    private var versions: [UUID: Set<UInt64>] = [:]
    static let limit = 10_000

    mutating func add(_ acknowledgement: Acknowledgement, at version: UInt64) {
        byVersion[version] = acknowledgement
        versions[acknowledgement.recordID, default: []].insert(version)
        if byVersion.count > Self.limit, let oldest = byVersion.keys.min() { remove(oldest) }
    }

    mutating func remove(_ version: UInt64) {
        guard let acknowledgement = byVersion.removeValue(forKey: version) else { return }
        versions[acknowledgement.recordID]?.remove(version)
        if versions[acknowledgement.recordID]?.isEmpty == true { versions[acknowledgement.recordID] = nil }
    }

    /// Drops the acknowledgements of record `id` at `version` or before: the change feed
    /// shows the record there, so they were the record's own.
    mutating func confirm(_ id: UUID, through version: UInt64) {
        for acknowledged in versions[id] ?? [] where acknowledged <= version { remove(acknowledged) }
    }
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
        replica.id = "\(context.ids.makeID()).\(UUID().uuidString.prefix(8).lowercased())"
        replica.nextSequence = 1
        try records.put(replica, forKey: SyncRecords.replicaKey, in: SyncRecords.meta)
    }

    /// Remembers that the remote acknowledged `id` at `version`, until a download
    /// shows the record at that version or later, or shows the acknowledgement false.
    func remember(_ version: UInt64, acknowledging id: UUID, previousBase: SyncRecords.RemoteVersion?, in scope: RemoteScope) {
        acknowledged.withLock {
            $0[scope, default: AcknowledgementBook()].add(Acknowledgement(recordID: id, previousBase: previousBase), at: version)
        }
    }

    /// Notes a record the change feed shows: its acknowledgements up to its version are
    /// confirmed. If the remote acknowledged another record at its version — a remote
    /// that keeps mutation IDs without what they wrote, while another device uses this
    /// replica ID — that record goes back in the queue on its earlier base, and its ID
    /// is returned.
    func check(_ record: RemoteRecord, in scope: RemoteScope, records: RecordWriter, replica: inout SyncRecords.Replica) throws -> UUID? {
        let wrong = acknowledged.withLock { book -> Acknowledgement? in
            book[scope]?.confirm(record.id, through: record.version)
            guard let acknowledgement = book[scope]?.byVersion[record.version], acknowledgement.recordID != record.id else { return nil }
            book[scope]?.remove(record.version)
            return acknowledgement
        }
        guard let wrong, try requeue(wrong, at: record.version, in: scope, records: records) else { return nil }
        if record.mutation.replicaID == replica.id { try changeReplica(&replica, in: records) }
        return wrong.recordID
    }

    /// After a download through `cursor`: every acknowledgement at or before it that the
    /// change feed did not confirm was false — the record never reached the remote at
    /// that version — and goes back in the queue, under a new replica ID. Returns the
    /// records queued again.
    func settleAcknowledgements(through cursor: UInt64, in scope: RemoteScope, records: RecordWriter) throws -> [UUID] {
        let unconfirmed = acknowledged.withLock { book -> [(UInt64, Acknowledgement)] in
            let due = (book[scope]?.byVersion ?? [:]).filter { $0.key <= cursor }
            for version in due.keys { book[scope]?.remove(version) }
            return due.map { ($0.key, $0.value) }
        }
        var requeued: [UUID] = []
        for (version, acknowledgement) in unconfirmed where try requeue(acknowledgement, at: version, in: scope, records: records) {
            requeued.append(acknowledgement.recordID)
        }
        if !requeued.isEmpty {
            var replica = try replica(in: records)
            try changeReplica(&replica, in: records)
        }
        return requeued
    }

    /// Forgets the acknowledgements of `scope`: a full download cannot tell them apart.
    func forgetAcknowledgements(in scope: RemoteScope) {
        acknowledged.withLock { $0[scope] = nil }
    }

    /// Puts a falsely acknowledged record back in the queue on its earlier base, if it
    /// still stands on the acknowledged version. Returns whether it did.
    private func requeue(_ acknowledgement: Acknowledgement, at version: UInt64, in scope: RemoteScope, records: RecordWriter) throws -> Bool {
        let key = try SyncRecords.key(scope, acknowledgement.recordID)
        guard var local = try records.value(forKey: key, in: SyncRecords.records), local.base?.version == version else { return false }
        local.base = acknowledgement.previousBase
        try records.put(local, forKey: key, in: SyncRecords.records)
        try records.put(SyncRecords.OutboxEntry(), forKey: key, in: SyncRecords.outbox)
        return true
    }
}
