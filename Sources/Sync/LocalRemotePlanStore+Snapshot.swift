import Foundation
import TrainCore

/// A world's plans as a snapshot reads and writes them: the live plans of each user on
/// the remote, and plans written as their owners' first versions.
extension LocalRemotePlanStore {
    /// The replica that writes imported plans: a device downloads them as another
    /// device's writes, and its own later edits, stamped later, win over them.
    package static let importReplica = "world-import"

    /// The plans each of `userIDs` holds on this remote, deleted ones left out, in the
    /// order of their record keys: by user, then by ID. One read of the whole collection.
    /// - Throws: `unavailable` when the store cannot be read or a document does not
    ///   decode as a plan.
    package func plans(of userIDs: [String]) throws(RemoteStoreError) -> [TrainingPlan] {
        // By the IDs' bytes, as the remote tells users apart.
        let wanted = Set(userIDs.map { Array($0.utf8) })
        let entries = try read { records in
            try records.entries(in: RemoteRecords.records, range: RemoteRecords.range([.string(TrainingPlan.recordType)]))
        }
        var plans: [TrainingPlan] = []
        for entry in entries where !entry.value.record.isDeleted {
            guard let components = try? RecordKey(encoded: entry.key).components, components.count == 3, case .string(let userID) = components[1]
            else { throw RemoteStoreError(.unavailable, detail: "A record's key has another layout.") }
            guard wanted.contains(Array(userID.utf8)) else { continue }
            guard let plan = try? SyncDocument(data: entry.value.record.document).record(as: TrainingPlan.self) else {
                throw RemoteStoreError(
                    .unavailable, detail: "The plan \(entry.value.record.id.uuidString) of \(userID.debugDescription) does not decode.")
            }
            plans.append(plan)
        }
        return plans
    }

    /// The bytes of `plan`'s document as a device or an import sends it, its stamps
    /// written by the longest replica ID a device has: what a remote's
    /// `maximumDocumentBytes` is held against.
    /// - Throws: `invalidRecord` for a plan that has no document.
    package static func documentBytes(of plan: TrainingPlan) throws(SyncError) -> Int {
        let stamp = HybridTimestamp(milliseconds: 0, counter: 0, replicaID: String(repeating: "0", count: 36))
        return try SyncDocument.of(plan, previous: nil, stamp: stamp).data.count
    }

    /// The record the remote holds under each of `keys` — a tombstone included — or nil:
    /// what a world's export and import read of the plans a device edited.
    /// - Throws: `unavailable` when the store cannot be read.
    package func records(at keys: [(userID: String, id: UUID)]) throws(RemoteStoreError) -> [RemoteRecord?] {
        try read { records in
            try keys.map { key in
                let scope = RemoteScope(userID: key.userID, collection: TrainingPlan.recordType)
                return try records.value(forKey: RemoteRecords.recordKey(scope, key.id), in: RemoteRecords.records)?.record
            }
        }
    }

    /// Writes `plans`, none of which the remote holds, as their owners' first versions:
    /// each an upload from ``importReplica`` with every field stamped at the plan's
    /// `lastModified`, in batches the configuration allows.
    /// - Throws: `invalidRequest` naming the plan the remote did not apply; what the
    ///   write throws.
    package func insert(_ plans: [TrainingPlan]) throws(RemoteStoreError) {
        var sequence: UInt64 = 0
        // By the IDs' bytes, as the remote tells users apart: "é" and "e\u{301}" are two.
        var byUser: [[UInt8]: [TrainingPlan]] = [:]
        var order: [String] = []
        for plan in plans {
            if byUser[Array(plan.userID.utf8)] == nil { order.append(plan.userID) }
            byUser[Array(plan.userID.utf8), default: []].append(plan)
        }
        for userID in order {
            let scope = RemoteScope(userID: userID, collection: TrainingPlan.recordType)
            var batch: [RemoteMutation] = []
            var bytes = 0
            for plan in byUser[Array(userID.utf8)] ?? [] {
                sequence += 1
                let stamp = HybridTimestamp(milliseconds: HybridClock.milliseconds(plan.lastModified) ?? 0, counter: 0, replicaID: Self.importReplica)
                let document: Data
                do {
                    document = try SyncDocument.of(plan, previous: nil, stamp: stamp).data
                } catch {
                    throw RemoteStoreError(.invalidRequest, detail: "The plan \(plan.id.uuidString) cannot be written: \(error.detail)")
                }
                if batch.count == configuration.maximumBatchCount || bytes + document.count > configuration.maximumBatchBytes {
                    try writeImported(batch, in: scope)
                    batch = []
                    bytes = 0
                }
                batch.append(
                    RemoteMutation(
                        id: MutationID(replicaID: Self.importReplica, sequence: sequence), recordID: plan.id, baseVersion: nil, isDeletion: false,
                        document: document))
                bytes += document.count
            }
            try writeImported(batch, in: scope)
        }
    }

    /// Writes one batch of imported plans, each of which the remote must apply.
    private func writeImported(_ batch: [RemoteMutation], in scope: RemoteScope) throws(RemoteStoreError) {
        guard !batch.isEmpty else { return }
        let response = try writeNow(batch, in: scope)
        for (mutation, result) in zip(batch, response.results) {
            guard case .applied = result else {
                throw RemoteStoreError(.invalidRequest, detail: "The remote did not apply the plan \(mutation.recordID.uuidString): \(result).")
            }
        }
    }
}
