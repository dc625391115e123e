import Foundation
import TrainCore

extension SyncEngine {
    /// Deletes the signed-in user's records of this type from this device — records,
    /// queued uploads, conflicts, dead letters and the download cursor — and then from
    /// the remote, as part of deleting the account. It waits for syncs of the user that
    /// are running to end, and refuses new ones until it returns, so that no upload or
    /// download in flight puts a record back. Calling it again finishes what a failure
    /// left, and its report counts what the failed calls removed too.
    ///
    /// Ask the user to sign in again before calling it, as for deleting the account.
    /// - Returns: How many records were deleted on each side.
    /// - Throws: ``SyncError`` — `notSignedIn`, `cancelled` (while it waited for a
    ///   sync; nothing was deleted), `remoteUnavailable` (this device's records are gone
    ///   already; call again to erase the remote's), `storage`.
    public func deleteAccountData() async throws(SyncError) -> SyncDeletionReport {
        let scope = try currentScope()
        return try await deleteData(in: scope) { () throws(SyncError) in try checkStillSignedIn(scope) }
    }

    /// Deletes a user's records of this type as ``deleteAccountData()`` does, whoever
    /// is signed in, once the auth service's scheduled deletion of that user is due, or
    /// their account is gone: the purge a backend runs when the grace period ends, and
    /// each device runs for what it holds of the user.
    /// - Parameter userID: The user.
    /// - Returns: How many records were deleted on each side.
    /// - Throws: ``SyncError`` — `notAuthorized` (no scheduled deletion of the user is
    ///   due; nothing is deleted), `cancelled`, `remoteUnavailable`, `storage`.
    public func purgeAccountData(of userID: String) async throws(SyncError) -> SyncDeletionReport {
        let scope = RemoteScope(userID: userID, collection: Record.recordType)
        try checkPurgeIsDue(userID)
        return try await deleteData(in: scope) { () throws(SyncError) in try checkPurgeIsDue(userID) }
    }

    private func checkPurgeIsDue(_ userID: String) throws(SyncError) {
        let due: Bool
        do {
            due = try auth.isPurgeDue(of: userID, at: context.clock.now)
        } catch {
            throw SyncError(.storage, detail: "The scheduled deletions could not be read: \(error)")
        }
        guard due else {
            throw SyncError(.notAuthorized, detail: "'\(userID)' has no scheduled deletion that is due.")
        }
    }

    /// Deletes `scope`'s records here and on the remote once no sync of it runs;
    /// `stillAllowed` is checked after the wait, before anything is deleted.
    private func deleteData(
        in scope: RemoteScope, stillAllowed: () throws(SyncError) -> Void
    ) async throws(SyncError) -> SyncDeletionReport {
        activity.withContext { $0.closing[scope, default: 0] += 1 }
        defer {
            activity.withContext { activity in
                activity.closing[scope, default: 1] -= 1
                if activity.closing[scope] == 0 { activity.closing[scope] = nil }
            }
        }
        do {
            try await activity.wait(scope) { $0.running[scope] == nil }
        } catch {
            throw SyncError(.cancelled, detail: "The deletion was cancelled while a sync ran; nothing was deleted.")
        }
        try stillAllowed()
        try writing(scope, signedIn: false) { records, changes in
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
            let scopeKey = try SyncRecords.scopeKey(scope)
            try records.removeValue(forKey: scopeKey, in: SyncRecords.cursors)
            // Counted with the deletion, so an attempt that fails later still counts.
            var tally = try records.value(forKey: scopeKey, in: SyncRecords.deletionTallies) ?? SyncDeletionReport()
            tally.localRecords += live
            try records.put(tally, forKey: scopeKey, in: SyncRecords.deletionTallies)
        }
        let remoteRecords: Int
        do {
            remoteRecords = try await remote.erase(scope)
        } catch {
            throw SyncError(.remoteUnavailable, detail: "The remote's records could not be erased: \(error)")
        }
        // This attempt's report holds what the attempts before it removed too.
        let tally = try writing(scope, signedIn: false) { records, _ in
            let scopeKey = try SyncRecords.scopeKey(scope)
            let tally = try records.value(forKey: scopeKey, in: SyncRecords.deletionTallies) ?? SyncDeletionReport()
            try records.removeValue(forKey: scopeKey, in: SyncRecords.deletionTallies)
            return tally
        }
        return SyncDeletionReport(localRecords: tally.localRecords, remoteRecords: tally.remoteRecords + remoteRecords)
    }
}
