import Foundation
import TrainCore

extension SyncEngine {
    /// Deletes the signed-in user's records of this type from this device — records,
    /// queued uploads, conflicts, dead letters and the download cursor — and then from
    /// the remote, as part of deleting the account. Stop background syncing first, so
    /// that no sync runs in between. Calling it again finishes what a failure left.
    ///
    /// Ask the user to sign in again before calling it, as for deleting the account.
    /// - Returns: How many records were deleted on each side.
    /// - Throws: ``SyncError`` — `notSignedIn`, `remoteUnavailable` (this device's
    ///   records are gone already; call again to erase the remote's), `storage`.
    public func deleteAccountData() async throws(SyncError) -> SyncDeletionReport {
        let scope = try currentScope()
        let local = try writing(scope) { records, changes in
            let range = try SyncRecords.range(scope)
            var live = 0
            for entry in try records.records(in: SyncRecords.records, range: range) {
                guard let id = SyncRecords.recordID(entry.key) else { continue }
                changes.append(id)
                // A record this version cannot read is deleted all the same.
                if let record = try? records.value(forKey: entry.key, in: SyncRecords.records), !record.document.isDeleted { live += 1 }
            }
            try records.removeAll(in: SyncRecords.records, range: range)
            for collection in [SyncRecords.outbox.collectionName, SyncRecords.deadLetters.collectionName, SyncRecords.conflicts.collectionName] {
                try records.removeAll(in: collection, range: range)
            }
            try records.removeValue(forKey: try SyncRecords.scopeKey(scope), in: SyncRecords.cursors)
            return live
        }
        let remoteRecords: Int
        do {
            remoteRecords = try await remote.erase(scope)
        } catch {
            throw SyncError(.remoteUnavailable, detail: "The remote's records could not be erased: \(error)")
        }
        return SyncDeletionReport(localRecords: local, remoteRecords: remoteRecords)
    }
}
