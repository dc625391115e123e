import Foundation
import TrainCore

extension SyncEngine {
    /// Uploads the signed-in user's queued edits, then downloads the changes made
    /// elsewhere; if a download merged into a queued edit, uploads once more.
    /// - Returns: What the sync did.
    /// - Throws: ``SyncError`` — `notSignedIn` (also when the user changes during the
    ///   sync), `remoteUnavailable`, `cancelled`, `storage`. What finished before the
    ///   error is kept; the rest stays queued.
    @discardableResult
    public func sync() async throws(SyncError) -> SyncReport {
        let scope = try currentScope()
        let answers = try answerCheck(scope)
        return try await syncing(scope) { () async throws(SyncError) -> SyncReport in
            var report = SyncReport()
            try await push(answers, only: nil, report: &report)
            if try await pull(answers, report: &report) {
                try await push(answers, only: nil, report: &report)
            }
            return report
        }
    }

    /// Uploads one record's queued edit now.
    /// - Parameter id: The record's ID.
    /// - Returns: Its status after the upload.
    /// - Throws: ``SyncError`` — as ``sync()``, and `recordNotFound`.
    @discardableResult
    public func upload(id: UUID) async throws(SyncError) -> SyncStatus? {
        let scope = try currentScope()
        guard try reading({ try $0.data(forKey: try SyncRecords.key(scope, id), in: SyncRecords.records) }) != nil else {
            throw SyncError(.recordNotFound)
        }
        let answers = try answerCheck(scope)
        return try await syncing(scope) { () async throws(SyncError) -> SyncStatus? in
            var report = SyncReport()
            try await push(answers, only: id, report: &report)
            return try status(of: id)
        }
    }

    /// Downloads the changes made elsewhere since the last download, without uploading.
    /// - Returns: What the download did.
    /// - Throws: ``SyncError`` — as ``sync()``.
    @discardableResult
    public func download() async throws(SyncError) -> SyncReport {
        let scope = try currentScope()
        let answers = try answerCheck(scope)
        return try await syncing(scope) { () async throws(SyncError) -> SyncReport in
            var report = SyncReport()
            _ = try await pull(answers, report: &report)
            return report
        }
    }

    /// Runs `body` as a sync of `scope`, which a deletion of the scope's data waits for;
    /// refused while such a deletion runs.
    private func syncing<Result>(_ scope: RemoteScope, _ body: () async throws(SyncError) -> Result) async throws(SyncError) -> Result {
        let open = activity.withContext { activity in
            guard activity.closing[scope] == nil else { return false }
            activity.running[scope, default: 0] += 1
            return true
        }
        guard open else { throw SyncError(.notSignedIn, detail: "The account's data is being deleted.") }
        defer {
            activity.release(
                updating: { activity in
                    activity.running[scope, default: 1] -= 1
                    if activity.running[scope] == 0 { activity.running[scope] = nil }
                }, where: { scope, activity in activity.running[scope] == nil }, ordered: { _, _ in false })
        }
        return try await body()
    }

    // MARK: - Upload

    /// A queued edit as sent.
    struct Sent {
        let key: String
        let mutation: RemoteMutation
        let document: SyncDocument
    }

    /// Uploads the queue in batches; records that met a conflict are merged and sent
    /// again, up to three more passes.
    private func push(_ answers: AnswerCheck<Record>, only: UUID?, report: inout SyncReport) async throws(SyncError) {
        let scope = answers.scope
        var after: String?
        var passes = 0
        var conflicted = false
        while true {
            guard !Task.isCancelled else { throw SyncError(.cancelled) }
            let (batch, last) = try prepareBatch(scope, after: after, only: only)
            guard let last else {
                guard conflicted, passes < 3 else { return }
                passes += 1
                conflicted = false
                after = nil
                continue
            }
            guard !batch.isEmpty else {
                after = last
                continue
            }
            let response: RemoteWriteResponse
            try countCall(&report)
            do {
                response = try await remote.write(batch.map(\.mutation), in: scope)
            } catch let error as RemoteStoreError where error.code == .tooLarge && batch.count > 1 {
                batchSize.withLock { $0 = max(1, batch.count / 2) }
                continue
            } catch RemoteStoreError.tooLarge {
                try writing(scope) { records, changes in
                    try deadLetter(batch[0], reason: "The remote refused the record as too large.", in: scope, records: records, changes: &changes)
                }
                report.rejected += 1
                after = last
                continue
            } catch {
                throw Self.failure(error)
            }
            try checkStillSignedIn(scope)
            try answers.writes(response, for: batch.map(\.mutation))
            if try acknowledge(batch, response, in: scope, report: &report) { conflicted = true }
            SyncProgress.observer?(report)
            after = last
        }
    }

    /// Gives each queued edit after `after` its mutation ID — the same as its last
    /// send if the record has not changed since — and returns the batch and the last
    /// outbox key looked at (nil when none is left).
    private func prepareBatch(_ scope: RemoteScope, after: String?, only: UUID?) throws(SyncError) -> ([Sent], String?) {
        let size = batchSize.withLock { $0 }
        return try writing(scope) { records, _ in
            var range = try SyncRecords.range(scope)
            if let only { range = try RecordKey(encoded: try SyncRecords.key(scope, only)).range }
            if let after { range = range.after(after) }
            let entries = try records.entries(in: SyncRecords.outbox, range: range, limit: size)
            var replica = try replica(in: records)
            var batch: [Sent] = []
            for entry in entries {
                guard let id = SyncRecords.recordID(entry.key), let local = try records.value(forKey: entry.key, in: SyncRecords.records) else {
                    try records.removeValue(forKey: entry.key, in: SyncRecords.outbox)
                    continue
                }
                guard local.held == nil else { continue }
                var queued = entry.value
                if queued.sequence == nil || queued.revision != local.revision || (queued.replicaID ?? replica.id) != replica.id {
                    let send = MutationID(replicaID: replica.id, sequence: replica.nextSequence)
                    replica.nextSequence += 1
                    queued = queued.sending(
                        revision: local.revision, as: send, digest: try SyncDocument.digest(local.document.data), replica: replica.id)
                    try records.put(queued, forKey: entry.key, in: SyncRecords.outbox)
                }
                let mutation = RemoteMutation(
                    id: MutationID(replicaID: queued.replicaID ?? replica.id, sequence: queued.sequence ?? 0), recordID: id,
                    baseVersion: local.base?.version, isDeletion: local.document.isDeleted, document: local.document.data)
                batch.append(Sent(key: entry.key, mutation: mutation, document: local.document))
            }
            try records.put(replica, forKey: SyncRecords.replicaKey, in: SyncRecords.meta)
            return (batch, entries.last?.key)
        }
    }

    /// Applies the remote's answers: an acknowledged revision leaves the queue, a
    /// conflict is merged and queued again, a refusal goes to the dead letters, and a
    /// mutation ID in use by another device gives this one a new replica ID.
    /// Returns whether any write is to be sent again.
    private func acknowledge(_ batch: [Sent], _ response: RemoteWriteResponse, in scope: RemoteScope, report: inout SyncReport) throws(SyncError)
        -> Bool
    {
        let now = context.clock.now
        var conflicted = false
        var counts = report
        try writing(scope) { records, changes in
            var replica = try replica(in: records)
            learnTime(response.serverTime, at: now, replica: &replica, report: &counts)
            try records.put(replica, forKey: SyncRecords.replicaKey, in: SyncRecords.meta)
            let downloaded = try records.value(forKey: try SyncRecords.scopeKey(scope), in: SyncRecords.cursors)?.version ?? 0
            for (sent, result) in zip(batch, response.results) {
                guard let entry = try records.value(forKey: sent.key, in: SyncRecords.outbox),
                    entry.current(replica: replica.id)?.id == sent.mutation.id,
                    var local = try records.value(forKey: sent.key, in: SyncRecords.records)
                else { continue }
                switch result {
                case .applied(let version) where version <= downloaded:
                    // A write applied now gets a version after all this device has
                    // downloaded: this one is another device's, under this replica ID.
                    conflicted = true
                    if replica.id == sent.mutation.id.replicaID { try changeReplica(&replica, in: records) }
                    var again = entry
                    again.sequence = nil
                    again.digest = nil
                    try records.put(again, forKey: sent.key, in: SyncRecords.outbox)
                case .applied(let version):
                    remember(version, acknowledging: sent.mutation.recordID, previousBase: local.base, in: scope)
                    local.base = SyncRecords.RemoteVersion(version: version, document: sent.document)
                    try records.put(local, forKey: sent.key, in: SyncRecords.records)
                    if local.revision == entry.revision {
                        try records.removeValue(forKey: sent.key, in: SyncRecords.outbox)
                    } else {
                        try records.put(SyncRecords.OutboxEntry(), forKey: sent.key, in: SyncRecords.outbox)
                    }
                    counts.uploaded += 1
                case .conflict(let current):
                    conflicted = true
                    try reconcile(&local, key: sent.key, with: current, in: scope, records: records, report: &counts)
                case .rejected(let reason):
                    try deadLetter(sent, reason: reason, in: scope, records: records, changes: &changes)
                    counts.rejected += 1
                case .mutationIDInUse:
                    // Another device writes under this replica ID: the write goes again
                    // under a new one; the remote applied nothing under the old.
                    conflicted = true
                    if replica.id == sent.mutation.id.replicaID { try changeReplica(&replica, in: records) }
                    var again = entry
                    again.sequence = nil
                    again.digest = nil
                    try records.put(again, forKey: sent.key, in: SyncRecords.outbox)
                }
                changes.append(sent.mutation.recordID)
            }
        }
        report = counts
        return conflicted
    }

    private func deadLetter(_ sent: Sent, reason: String, in scope: RemoteScope, records: RecordWriter, changes: inout [UUID]) throws {
        try records.removeValue(forKey: sent.key, in: SyncRecords.outbox)
        let letter = DeadLetter(recordID: sent.mutation.recordID, reason: reason, date: context.clock.now)
        try records.put(letter, forKey: sent.key, in: SyncRecords.deadLetters)
        changes.append(sent.mutation.recordID)
    }

    // MARK: - Download

    /// Downloads the changes after the stored cursor, page by page, each page with
    /// its cursor in one transaction. Returns whether a merge left edits to upload.
    private func pull(_ answers: AnswerCheck<Record>, report: inout SyncReport) async throws(SyncError) -> Bool {
        let scope = answers.scope
        let cursorKey = try scopeKey(scope)
        var cursor = try reading { try $0.value(forKey: cursorKey, in: SyncRecords.cursors) } ?? SyncRecords.Cursor()
        if cursor.needsResync { return try await resync(answers, report: &report) }
        var queued = false
        while true {
            guard !Task.isCancelled else { throw SyncError(.cancelled) }
            let page: RemotePage
            try countCall(&report)
            do {
                page = try await remote.changes(in: scope, after: cursor.version, limit: configuration.pageSize)
            } catch RemoteStoreError.cursorExpired {
                return try await resync(answers, report: &report)
            } catch {
                throw Self.failure(error)
            }
            try checkStillSignedIn(scope)
            let inspections = try answers.changes(page, after: cursor.version, limit: configuration.pageSize)
            let now = context.clock.now
            var counts = report
            cursor = try writing(scope) { records, changes in
                if try applyPage(page, inspections, at: now, in: scope, records: records, changes: &changes, report: &counts) { queued = true }
                var stored = try records.value(forKey: cursorKey, in: SyncRecords.cursors) ?? SyncRecords.Cursor()
                stored.version = max(stored.version, page.cursor)
                try records.put(stored, forKey: cursorKey, in: SyncRecords.cursors)
                return stored
            }
            report = counts
            SyncProgress.observer?(report)
            if !page.hasMore || page.records.isEmpty {
                let through = cursor.version
                let requeued = try writing(scope) { records, changes in
                    let ids = try settleAcknowledgements(through: through, in: scope, records: records)
                    changes += ids
                    return !ids.isEmpty
                }
                return queued || requeued
            }
        }
    }

    /// Reads every record the remote holds, after this device was offline longer
    /// than the remote keeps deletions: records it no longer holds are removed here
    /// instead of uploaded again. Queued edits are kept and reconciled on upload.
    private func resync(_ answers: AnswerCheck<Record>, report: inout SyncReport) async throws(SyncError) -> Bool {
        let scope = answers.scope
        // Another sync of this engine is reading everything already; its sweep must
        // not remove what this one marks.
        guard resyncing.withLock({ $0.insert(scope).inserted }) else { return false }
        defer { _ = resyncing.withLock { $0.remove(scope) } }
        report.didFullResync = true
        let cursorKey = try scopeKey(scope)
        // A full download a sync left unfinished goes on where it stopped; its records
        // not read yet are still marked stale.
        let resumed = try writing(scope) { records, changes -> SyncRecords.Cursor in
            var cursor = try records.value(forKey: cursorKey, in: SyncRecords.cursors) ?? SyncRecords.Cursor()
            if cursor.needsResync, cursor.snapshotHead != nil { return cursor }
            for entry in try records.entries(in: SyncRecords.records, range: try SyncRecords.range(scope))
            where try records.data(forKey: entry.key, in: SyncRecords.outbox) == nil
                && records.data(forKey: entry.key, in: SyncRecords.deadLetters) == nil
            {
                var local = entry.value
                local.isStale = true
                try records.put(local, forKey: entry.key, in: SyncRecords.records)
                if let id = SyncRecords.recordID(entry.key) { changes.append(id) }
            }
            cursor.needsResync = true
            cursor.snapshotAfter = nil
            cursor.snapshotHead = nil
            try records.put(cursor, forKey: cursorKey, in: SyncRecords.cursors)
            return cursor
        }
        var after = resumed.snapshotAfter
        var head = resumed.snapshotHead
        var queued = false
        var seen = Set<UUID>()
        while true {
            guard !Task.isCancelled else { throw SyncError(.cancelled) }
            let page: RemotePage
            try countCall(&report)
            do {
                page = try await remote.snapshot(in: scope, after: after, limit: configuration.pageSize)
            } catch {
                throw Self.failure(error)
            }
            try checkStillSignedIn(scope)
            let inspections = try answers.snapshot(page, limit: configuration.pageSize, seen: &seen)
            let start = head ?? page.cursor
            head = start
            let now = context.clock.now
            var counts = report
            try writing(scope) { records, changes in
                if try applyPage(page, inspections, at: now, in: scope, records: records, changes: &changes, report: &counts) { queued = true }
                var cursor = try records.value(forKey: cursorKey, in: SyncRecords.cursors) ?? SyncRecords.Cursor()
                cursor.snapshotAfter = page.records.last?.id ?? cursor.snapshotAfter
                cursor.snapshotHead = start
                try records.put(cursor, forKey: cursorKey, in: SyncRecords.cursors)
            }
            report = counts
            SyncProgress.observer?(report)
            guard page.hasMore, let last = page.records.last?.id else { break }
            after = last
        }
        try writing(scope) { records, changes in
            for entry in try records.entries(in: SyncRecords.records, range: try SyncRecords.range(scope))
            where try entry.value.isStale && records.data(forKey: entry.key, in: SyncRecords.outbox) == nil {
                try records.removeValue(forKey: entry.key, in: SyncRecords.records)
                if let id = SyncRecords.recordID(entry.key) { changes.append(id) }
            }
            try records.put(SyncRecords.Cursor(version: head ?? 0), forKey: cursorKey, in: SyncRecords.cursors)
        }
        forgetAcknowledgements(in: scope)
        return queued
    }

    /// Applies a downloaded page in the caller's transaction: learns the remote's time,
    /// moves the hybrid clock past every edit on the page, then applies each record.
    /// Returns whether an edit stays queued.
    private func applyPage(
        _ page: RemotePage, _ inspections: [SyncDocument.Inspection?], at now: Date, in scope: RemoteScope, records: RecordWriter,
        changes: inout [UUID], report: inout SyncReport
    ) throws -> Bool {
        var replica = try replica(in: records)
        learnTime(page.serverTime, at: now, replica: &replica, report: &report)
        var known: [(RemoteRecord, SyncDocument)] = []
        var requeued = false
        let scopeKey = try SyncRecords.scopeKey(scope)
        for (record, inspection) in zip(page.records, inspections) {
            // Only with the checks off: a document this version cannot read is left out.
            guard let inspection else { continue }
            if let undone = try check(record, in: scope, records: records, replica: &replica) {
                changes.append(undone)
                requeued = true
            }
            let key = try SyncRecords.key(after: scopeKey, record.id)
            // New here: stored as it came, without building the document.
            if try records.setDataIfAbsent(SyncRecords.downloaded(record.document, version: record.version), forKey: key, in: SyncRecords.records) {
                // Written under this device's replica ID, yet new here: another device uses the ID.
                if record.mutation.replicaID == replica.id { try changeReplica(&replica, in: records) }
                if let latest = inspection.latest { observe(latest, at: now, replica: &replica, report: &report) }
                changes.append(record.id)
                if !record.isDeleted { report.downloaded += 1 }
                continue
            }
            if record.mutation.replicaID == replica.id, try !isOwnWrite(record, key: key, records: records, replica: replica.id) {
                try changeReplica(&replica, in: records)
            }
            if let document = try? SyncDocument(data: record.document) {
                if let modified = document.modified { observe(modified, at: now, replica: &replica, report: &report) }
                known.append((record, document))
            }
        }
        try records.put(replica, forKey: SyncRecords.replicaKey, in: SyncRecords.meta)
        var queued = requeued
        for (record, document) in known
        where try apply(record, document: document, in: scope, records: records, changes: &changes, report: &report) {
            queued = true
        }
        return queued
    }

    /// Whether `record`, under this device's replica ID, is this device's own write of
    /// it: one it knows already, or one of its sends whose answer it never had.
    private func isOwnWrite(_ record: RemoteRecord, key: String, records: RecordWriter, replica: String) throws -> Bool {
        if let base = try records.value(forKey: key, in: SyncRecords.records)?.base, base.version >= record.version { return true }
        guard let entry = try records.value(forKey: key, in: SyncRecords.outbox) else { return false }
        return entry.sent(record.mutation, digest: try SyncDocument.digest(record.document), replica: replica)
    }

    /// Applies one downloaded record: taken as is when nothing is queued for it here,
    /// else reconciled with the queued edit. Returns whether an edit stays queued.
    private func apply(
        _ record: RemoteRecord, document: SyncDocument, in scope: RemoteScope, records: RecordWriter, changes: inout [UUID],
        report: inout SyncReport
    ) throws -> Bool {
        let key = try SyncRecords.key(scope, record.id)
        let local = try records.value(forKey: key, in: SyncRecords.records)
        if var known = local, let base = known.base, base.version >= record.version {
            if known.isStale {
                known.isStale = false
                try records.put(known, forKey: key, in: SyncRecords.records)
            }
            return try records.data(forKey: key, in: SyncRecords.outbox) != nil
        }
        changes.append(record.id)
        let remoteVersion = SyncRecords.RemoteVersion(version: record.version, document: document)
        guard var existing = local, try records.data(forKey: key, in: SyncRecords.outbox) != nil || existing.held != nil else {
            if local == nil || local?.document != document { report.downloaded += 1 }
            let adopted = SyncRecords.LocalRecord(document: document, revision: local?.revision ?? 0, base: remoteVersion)
            try records.put(adopted, forKey: key, in: SyncRecords.records)
            return false
        }
        existing.isStale = false
        try reconcile(&existing, key: key, with: record, in: scope, records: records, report: &report)
        return try records.data(forKey: key, in: SyncRecords.outbox) != nil
    }

    // MARK: - Conflicts

    /// Reconciles a record with a queued edit (or a held conflict) and the remote's
    /// newer version, and stores the outcome: the remote's version when it was this
    /// device's own write, else the policy's resolution, queued if it differs from
    /// the remote's.
    func reconcile(
        _ local: inout SyncRecords.LocalRecord, key: String, with remote: RemoteRecord?, in scope: RemoteScope, records: RecordWriter,
        report: inout SyncReport
    ) throws {
        let now = context.clock.now
        var replica = try replica(in: records)
        let entry = try records.value(forKey: key, in: SyncRecords.outbox)
        guard let remote else {
            // The remote no longer holds the record: its deletion outlived retention.
            // A record made again after that deletion, or an edit under edit-wins, is
            // uploaded as new; an edit under delete-wins goes, logged.
            let isRecreated = local.base?.document.isDeleted == true
            if !local.document.isDeleted, isRecreated || configuration.deletePolicy == .editWins {
                local.base = nil
                try records.put(local, forKey: key, in: SyncRecords.records)
                try records.put(SyncRecords.OutboxEntry(), forKey: key, in: SyncRecords.outbox)
                return
            }
            report.conflicts += 1
            let losses = ConflictResolver<Record>.changedFields(local.document, since: local.base?.document).map {
                (field: $0, losing: local.document.fields[$0] ?? ConflictResolver<Record>.null, winning: ConflictResolver<Record>.null)
            }
            try log(losses, of: SyncRecords.recordID(key), in: scope, at: now, records: records)
            try records.removeValue(forKey: key, in: SyncRecords.records)
            try records.removeValue(forKey: key, in: SyncRecords.outbox)
            return
        }
        guard let remoteDocument = try? SyncDocument(data: remote.document) else {
            // Written by a newer app version: the edit stays queued, untouched, until
            // this device can read the remote's version.
            if entry != nil { try records.put(SyncRecords.OutboxEntry(), forKey: key, in: SyncRecords.outbox) }
            return
        }
        if let modified = remoteDocument.modified {
            var replica = try self.replica(in: records)
            observe(modified, at: now, replica: &replica, report: &report)
            try records.put(replica, forKey: SyncRecords.replicaKey, in: SyncRecords.meta)
        }
        let remoteVersion = SyncRecords.RemoteVersion(version: remote.version, document: remoteDocument)
        let isOwn = try entry?.sent(remote.mutation, digest: SyncDocument.digest(remote.document), replica: replica.id) ?? false
        // Another device's write under this device's replica ID: it takes a new one.
        if !isOwn, remote.mutation.replicaID == replica.id { try changeReplica(&replica, in: records) }
        if isOwn {
            // This device's own earlier write (its answer was lost): the local record descends from it.
            local.base = remoteVersion
            try records.put(local, forKey: key, in: SyncRecords.records)
            if local.document == remoteDocument || (entry?.current(replica: replica.id)?.id == remote.mutation && entry?.revision == local.revision) {
                try records.removeValue(forKey: key, in: SyncRecords.outbox)
            } else {
                try records.put(SyncRecords.OutboxEntry(), forKey: key, in: SyncRecords.outbox)
            }
            return
        }
        report.conflicts += 1
        if local.held != nil {
            local.held = remoteVersion
            try records.put(local, forKey: key, in: SyncRecords.records)
            return
        }
        let stamp = try tick(at: now, in: records)
        let maximumBytes = self.remote.maximumDocumentBytes
        let resolver = ConflictResolver<Record>(
            policy: configuration.conflictPolicy, deletePolicy: configuration.deletePolicy, tick: { stamp },
            accepts: { document in
                guard document.data.count <= maximumBytes else { return false }
                // A record this version cannot read is a newer version's to judge.
                guard let record = try? document.record(as: Record.self) else { return true }
                return (try? record.validated()) != nil
            })
        let resolution = try resolver.resolve(local: local.document, remote: remoteDocument, base: local.base?.document)
        try log(resolution.losses, of: remote.id, in: scope, at: now, records: records)
        if resolution.isHeld {
            local.held = remoteVersion
            try records.put(local, forKey: key, in: SyncRecords.records)
            try records.put(SyncRecords.OutboxEntry(), forKey: key, in: SyncRecords.outbox)
            return
        }
        local.base = remoteVersion
        if resolution.document != local.document {
            local.document = resolution.document
            local.revision += 1
        }
        try records.put(local, forKey: key, in: SyncRecords.records)
        if local.document == remoteDocument {
            try records.removeValue(forKey: key, in: SyncRecords.outbox)
        } else {
            try records.put(SyncRecords.OutboxEntry(), forKey: key, in: SyncRecords.outbox)
        }
    }

    // MARK: - Helpers

    /// The checks of the remote's answers for a sync of `scope`.
    private func answerCheck(_ scope: RemoteScope) throws(SyncError) -> AnswerCheck<Record> {
        try AnswerCheck(scope: scope, maximumDocumentBytes: remote.maximumDocumentBytes, isEnabled: configuration.checksAnswers)
    }

    /// Counts a remote call the sync is about to make, or ends the sync at its limit.
    private func countCall(_ report: inout SyncReport) throws(SyncError) {
        guard report.remoteCalls < configuration.maximumRemoteCalls else {
            throw SyncError(
                .tooManyRemoteCalls, detail: "The sync made \(report.remoteCalls) remote calls, its limit; the next sync goes on from here.")
        }
        report.remoteCalls += 1
    }

    /// A remote call's error as the sync reports it: `cancelled` for a cancellation,
    /// else `remoteUnavailable`, with what the remote said.
    private static func failure(_ error: any Error) -> SyncError {
        if error is CancellationError { return SyncError(.cancelled) }
        if let error = error as? RemoteStoreError, error.code == .accountClosed {
            // Kept queued: a deletion restored in its grace period uploads them after all.
            return SyncError(.notAuthorized, detail: "The remote refused the account's writes: \(error.detail)")
        }
        return SyncError(.remoteUnavailable, detail: "\(error)")
    }

    private func scopeKey(_ scope: RemoteScope) throws(SyncError) -> String {
        do { return try SyncRecords.scopeKey(scope) } catch { throw SyncError(.storage, detail: "\(error)") }
    }

    /// Adds the values that lost a conflict to the log, in the order they are met.
    private func log(_ losses: [Loss], of id: UUID?, in scope: RemoteScope, at date: Date, records: RecordWriter) throws {
        guard let id, !losses.isEmpty else { return }
        var replica = try replica(in: records)
        for loss in losses {
            let key = try SyncRecords.conflictKey(scope, at: date, replica: &replica)
            let entry = SyncConflictRecord(recordID: id, field: loss.field, losingValue: loss.losing, winningValue: loss.winning, resolvedAt: date)
            try records.put(entry, forKey: key, in: SyncRecords.conflicts)
        }
        try records.put(replica, forKey: SyncRecords.replicaKey, in: SyncRecords.meta)
    }
}
