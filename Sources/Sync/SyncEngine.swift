import Foundation
import TrainAuth
import TrainCore

/// TrainKit's offline-first sync of one record type, over a `RecordStore` in memory
/// or in a file, with the same logic. ``LocalPlanSyncService`` is this engine for
/// training plans; another `Syncable` type (workouts, settings) reuses it as is.
///
/// Every local edit is saved with its upload queued in one transaction, so an edit
/// is never lost between the two. A sync uploads the queue in batches, each write
/// checked against the version the edit started from, then downloads the changes
/// after the stored cursor. An edit made while its upload is in flight stays queued;
/// a retried upload keeps its mutation ID, so the remote applies it once.
///
/// ```swift
/// let plans = try LocalPlanSyncService(auth: auth, remote: remote, storage: .file(directory.appendingPathComponent("sync.sqlite")))
/// let plan = try await plans.createPlan(TrainingPlan(name: "10k in May", startDate: start, endDate: end, daysPerWeek: 4))
/// try await plans.sync()
/// ```
public final class SyncEngine<Record: Syncable>: Sendable {
    /// Whose records are synced: the signed-in user.
    public let auth: any AuthService
    /// Where every device's edits meet.
    public let remote: any RemotePlanStore
    /// The device clock and the IDs of this device's replica.
    public let context: TrainContext
    /// Conflict policies, sizes and limits.
    public let configuration: SyncConfiguration<Record>
    let store: RecordStore
    let statuses = Broadcast<SyncStatusChange?>(initial: nil)
    /// Announces each edit saved on this device.
    let localEdits = Broadcast<SyncTrigger?>(initial: nil)
    /// Counts the write transactions that changed records on this device.
    let recordWrites = Broadcast<UInt64>(initial: 0)
    /// The upload batch size, halved while the remote answers "too large".
    let batchSize: Locked<Int>
    /// The scopes a full download is running for: one at a time each.
    let resyncing = Locked(Set<RemoteScope>())
    /// The syncs talking to the remote, by scope, and the scopes whose data is being
    /// deleted: a deletion closes its scope to new syncs and waits for those running
    /// to end, so that no upload or download in flight puts a record back after it.
    let activity = WaitingRoom<RemoteScope, SyncActivity>(context: SyncActivity())
    /// The remote's time at a moment of this launch, to carry the hybrid clock forward
    /// by elapsed time when the device's clock is set back.
    let anchor = Locked<TimeAnchor?>(nil)
    /// The writes the remote acknowledged that no download has confirmed yet, by scope.
    let acknowledged = Locked<[RemoteScope: AcknowledgementBook]>([:])

    /// Creates an engine that keeps this device's data in memory.
    /// - Parameters:
    ///   - auth: The auth service whose signed-in user's records sync.
    ///   - remote: The remote store.
    ///   - context: The device clock (corrected to the remote's for conflict order) and
    ///     the IDs of this device's replica; the live ones by default.
    ///   - configuration: Conflict policies, sizes and limits.
    public convenience init(
        auth: any AuthService, remote: any RemotePlanStore, context: TrainContext = .live,
        configuration: SyncConfiguration<Record> = SyncConfiguration()
    ) {
        self.init(auth: auth, remote: remote, store: .inMemoryOrFailing(SyncRecords.schema), context: context, configuration: configuration)
    }

    /// Creates an engine whose device data lives in `storage`.
    /// - Parameters:
    ///   - auth: The auth service whose signed-in user's records sync.
    ///   - remote: The remote store.
    ///   - storage: In memory, or a file (other services may share it) with its options.
    ///   - context: The device clock and the IDs of this device's replica; the live ones by default.
    ///   - configuration: Conflict policies, sizes and limits.
    /// - Throws: `CoreError` naming the file if it cannot be opened.
    public convenience init(
        auth: any AuthService, remote: any RemotePlanStore, storage: StorageLocation, context: TrainContext = .live,
        configuration: SyncConfiguration<Record> = SyncConfiguration()
    ) throws {
        self.init(
            auth: auth, remote: remote, store: try RecordStore(storage, schema: SyncRecords.schema), context: context, configuration: configuration)
    }

    /// The schema of the device's sync data, for a store a stack opens itself.
    package static var recordSchema: StoreSchema { SyncRecords.schema }

    /// Creates an engine on a store the caller opened.
    package init(
        auth: any AuthService, remote: any RemotePlanStore, store: RecordStore, context: TrainContext, configuration: SyncConfiguration<Record>
    ) {
        self.auth = auth
        self.remote = remote
        self.store = store
        let context = configuration.legacy.applied(to: context)
        self.context = context
        var shown = configuration
        shown.legacy = LegacyContext(context)
        self.configuration = shown
        self.batchSize = Locked(configuration.batchSize)
    }

    // MARK: - Reading

    /// The signed-in user's records on this device, by ID: deleted ones, and any this
    /// app version cannot read, left out.
    /// - Returns: The records.
    /// - Throws: ``SyncError`` — `notSignedIn`, `storage`.
    public func records() throws(SyncError) -> [Record] {
        let scope = try currentScope()
        let documents = try reading { try $0.values(in: SyncRecords.records, range: try SyncRecords.range(scope)).map(\.document) }
        // A record this app version cannot read (written by a newer one, or damaged
        // elsewhere) is left out rather than failing the whole list.
        return documents.compactMap { try? $0.record(as: Record.self) }
    }

    /// One of the signed-in user's records.
    /// - Parameter id: The record's ID.
    /// - Returns: The record, or nil if this device has no such record or it is deleted.
    /// - Throws: ``SyncError`` — `notSignedIn`, `storage`.
    public func record(id: UUID) throws(SyncError) -> Record? {
        let scope = try currentScope()
        return try reading { try $0.value(forKey: try SyncRecords.key(scope, id), in: SyncRecords.records) }?.document.record(as: Record.self)
    }

    /// Where one of the signed-in user's records stands.
    /// - Parameter id: The record's ID.
    /// - Returns: Its status; nil if this device has no such record, or it is deleted
    ///   and the deletion is synced.
    /// - Throws: ``SyncError`` — `notSignedIn`, `storage`.
    public func status(of id: UUID) throws(SyncError) -> SyncStatus? {
        let scope = try currentScope()
        return try reading { records in try status(of: id, in: scope, records: records) }
    }

    /// Status changes of records on this device, as they happen.
    /// - Returns: A stream that ends when the consumer stops.
    public func statusChanges() -> AsyncStream<SyncStatusChange> { statuses.events() }

    /// The values that lost conflicts for the signed-in user, oldest first.
    /// - Returns: The log.
    /// - Throws: ``SyncError`` — `notSignedIn`, `storage`.
    public func conflictLog() throws(SyncError) -> [SyncConflictRecord] {
        let scope = try currentScope()
        return try reading { try $0.values(in: SyncRecords.conflicts, range: try SyncRecords.range(scope)) }
    }

    /// The signed-in user's records the remote refused for good.
    /// - Returns: The dead letters, by record ID.
    /// - Throws: ``SyncError`` — `notSignedIn`, `storage`.
    public func deadLetters() throws(SyncError) -> [DeadLetter] {
        let scope = try currentScope()
        return try reading { try $0.values(in: SyncRecords.deadLetters, range: try SyncRecords.range(scope)) }
    }

    /// The number of the signed-in user's records waiting for upload.
    /// - Returns: The outbox's size.
    /// - Throws: ``SyncError`` — `notSignedIn`, `storage`.
    public func pendingCount() throws(SyncError) -> Int {
        let scope = try currentScope()
        return try reading { try $0.count(in: SyncRecords.outbox, range: try SyncRecords.range(scope)) }
    }

    // MARK: - Editing

    /// Saves a new record for the signed-in user and queues its upload.
    /// - Parameter record: The record; its `userID` is set to the signed-in user.
    /// - Returns: The record as saved.
    /// - Throws: ``SyncError`` — `notSignedIn`, `invalidRecord`, `notAuthorized` (another
    ///   user's ID in it), `recordExists`, `storage`.
    public func create(_ record: Record) async throws(SyncError) -> Record {
        try save(record, creating: true)
    }

    /// Saves a change to one of the signed-in user's records and queues its upload.
    /// - Parameter record: The record.
    /// - Returns: The record as saved.
    /// - Throws: ``SyncError`` — `notSignedIn`, `invalidRecord`, `notAuthorized`,
    ///   `recordNotFound`, `storage`.
    public func update(_ record: Record) async throws(SyncError) -> Record {
        try save(record, creating: false)
    }

    /// Deletes one of the signed-in user's records and queues the deletion.
    /// - Parameter id: The record's ID.
    /// - Throws: ``SyncError`` — `notSignedIn`, `recordNotFound`, `storage`.
    public func delete(id: UUID) async throws(SyncError) {
        let scope = try currentScope()
        let now = context.clock.now
        try writing(scope) { records, changes in
            let key = try SyncRecords.key(scope, id)
            guard var local = try records.value(forKey: key, in: SyncRecords.records), !local.document.isDeleted else {
                throw SyncError(.recordNotFound)
            }
            local.document = .tombstone(try tick(at: now, in: records))
            if let held = local.held {
                // Deleting is this device's answer to a held conflict.
                local.base = held
                local.held = nil
            }
            try queue(&local, key: key, id: id, in: scope, records: records, changes: &changes)
        }
        localEdits.send(.localEdit)
    }

    /// Chooses the version of a record whose conflict a custom policy held: the
    /// choice is uploaded over the remote's version.
    /// - Parameters:
    ///   - id: The record's ID.
    ///   - record: The version to keep: this device's, the remote's, or a blend.
    /// - Returns: The record as saved.
    /// - Throws: ``SyncError`` — `notSignedIn`, `noConflict`, `invalidRecord`, `storage`.
    public func resolveConflict(id: UUID, keeping record: Record) async throws(SyncError) -> Record {
        let scope = try currentScope()
        var kept = record
        kept.userID = scope.userID
        kept = try kept.validated()
        guard kept.id == id else { throw SyncError(.invalidRecord, detail: "The record kept must have the conflict's ID.") }
        let now = context.clock.now
        let resolved = kept
        try writing(scope) { records, changes in
            let key = try SyncRecords.key(scope, id)
            guard var local = try records.value(forKey: key, in: SyncRecords.records), let held = local.held else { throw SyncError(.noConflict) }
            local.document = try checked(try SyncDocument.of(resolved, previous: held.document, stamp: try tick(at: now, in: records)), of: resolved)
            local.base = held
            local.held = nil
            try queue(&local, key: key, id: id, in: scope, records: records, changes: &changes)
        }
        localEdits.send(.localEdit)
        return resolved
    }

    private func save(_ record: Record, creating: Bool) throws(SyncError) -> Record {
        let scope = try currentScope()
        var record = record
        guard record.userID.isEmpty || record.userID == scope.userID else {
            throw SyncError(.notAuthorized, detail: "The record names another user as its owner.")
        }
        record.userID = scope.userID
        let saved = try record.validated()
        let now = context.clock.now
        let isQueued = try writing(scope) { records, changes in
            let key = try SyncRecords.key(scope, saved.id)
            let existing = try records.value(forKey: key, in: SyncRecords.records)
            let isLive = existing.map { !$0.document.isDeleted } ?? false
            if creating, isLive { throw SyncError(.recordExists) }
            if !creating, !isLive { throw SyncError(.recordNotFound) }
            let document = try checked(try SyncDocument.of(saved, previous: existing?.document, stamp: try tick(at: now, in: records)), of: saved)
            guard document != existing?.document else { return false }
            var local = existing ?? SyncRecords.LocalRecord(document: document, revision: 0)
            local.document = document
            try queue(&local, key: key, id: saved.id, in: scope, records: records, changes: &changes)
            return true
        }
        if isQueued { localEdits.send(.localEdit) }
        return saved
    }

    /// `document`, the document of `record`, if the remote will take it: no larger
    /// than the remote's limit, in the bytes it counts, and with the record's owner and
    /// ID in the fields a download is checked by.
    func checked(_ document: SyncDocument, of record: Record) throws(SyncError) -> SyncDocument {
        let size = document.data.count
        guard size <= remote.maximumDocumentBytes else {
            throw SyncError(.recordTooLarge, detail: "The record is \(size) bytes as sent; the remote takes at most \(remote.maximumDocumentBytes).")
        }
        guard document.fields[Record.idField] == (try SyncDocument.json(.string(record.id.uuidString))),
            document.fields[Record.ownerField] == (try SyncDocument.json(.string(record.userID)))
        else {
            throw SyncError(
                .invalidRecord,
                detail: "\(Record.self) encodes its ID and owner under other names than '\(Record.idField)' and '\(Record.ownerField)': "
                    + "set its idField and ownerField to the names its coding keys use.")
        }
        return document
    }

    /// Stores a local change with its upload queued, in the caller's transaction.
    func queue(
        _ local: inout SyncRecords.LocalRecord, key: String, id: UUID, in scope: RemoteScope, records: RecordWriter, changes: inout [UUID]
    ) throws {
        local.revision += 1
        local.isStale = false
        try records.put(local, forKey: key, in: SyncRecords.records)
        let entry = try records.value(forKey: key, in: SyncRecords.outbox) ?? SyncRecords.OutboxEntry()
        try records.put(entry, forKey: key, in: SyncRecords.outbox)
        try records.removeValue(forKey: key, in: SyncRecords.deadLetters)
        changes.append(id)
    }

    // MARK: - Status

    func status(of id: UUID, in scope: RemoteScope, records: RecordReader) throws -> SyncStatus? {
        let key = try SyncRecords.key(scope, id)
        guard let local = try records.value(forKey: key, in: SyncRecords.records) else { return nil }
        if try local.held != nil || records.data(forKey: key, in: SyncRecords.deadLetters) != nil { return .conflict }
        if local.isStale { return .pendingDownload }
        if try records.data(forKey: key, in: SyncRecords.outbox) != nil { return local.base == nil ? .notSynced : .pendingUpload }
        return local.document.isDeleted ? nil : .synced
    }

    // MARK: - Transactions

    /// The signed-in user's scope, or `notSignedIn` — also when the user's scheduled
    /// deletion is due: from then on the purge may run, and nothing may be written in between.
    func currentScope() throws(SyncError) -> RemoteScope {
        guard let user = auth.currentUser else { throw SyncError(.notSignedIn) }
        let date: Date?
        do {
            date = try auth.scheduledDeletion(of: user.id)
        } catch {
            throw SyncError(.storage, detail: "The scheduled deletions could not be read: \(error)")
        }
        if let date, context.clock.now >= date { throw SyncError(.notSignedIn, detail: "The account's scheduled deletion is due.") }
        return RemoteScope(userID: user.id, collection: Record.recordType)
    }

    /// Throws `notSignedIn` unless `scope`'s user is still signed in: a sync checks
    /// this after every remote call, before it writes what the call returned.
    func checkStillSignedIn(_ scope: RemoteScope) throws(SyncError) {
        guard auth.currentUser?.id == scope.userID else {
            throw SyncError(.notSignedIn, detail: "The signed-in user changed during the sync.")
        }
    }

    func reading<Result>(_ body: (RecordReader) throws -> Result) throws(SyncError) -> Result {
        try store.read(failingWith: { SyncError(.storage, detail: "\($0)") }, body)
    }

    /// Runs `body` in one write transaction, then reports the status of each record
    /// it names in `changes`. Unless `signedIn` is false (a purge, whoever is signed in),
    /// the scope's user must still be signed in — asked inside the transaction, which a
    /// purge of their data takes too: a write that raced an account deletion lands before
    /// the purge, which removes it, or is refused.
    func writing<Result>(
        _ scope: RemoteScope, signedIn: Bool = true, _ body: (RecordWriter, inout [UUID]) throws -> Result
    ) throws(SyncError) -> Result {
        do {
            var changes: [UUID] = []
            let result = try store.write { records in
                if signedIn { try checkStillSignedIn(scope) }
                return try body(records, &changes)
            }
            if !changes.isEmpty { recordWrites.send(recordWrites.value &+ 1) }
            if !changes.isEmpty, statuses.subscriberCount > 0 {
                let updates = try store.read { records in
                    try changes.map { SyncStatusChange(recordID: $0, status: try status(of: $0, in: scope, records: records)) }
                }
                for update in updates { statuses.send(update) }
            }
            return result
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError(.storage, detail: "\(error)")
        }
    }

    /// This device's replica, made the first time.
    func replica(in records: RecordWriter) throws -> SyncRecords.Replica {
        if let replica = try records.value(forKey: SyncRecords.replicaKey, in: SyncRecords.meta) { return replica }
        let replica = SyncRecords.Replica(id: context.ids.makeID())
        try records.put(replica, forKey: SyncRecords.replicaKey, in: SyncRecords.meta)
        return replica
    }
}

/// The syncs of a ``SyncEngine`` running, and the deletions that closed their scope
/// to new ones, by scope.
struct SyncActivity: Sendable {
    var running: [RemoteScope: Int] = [:]
    var closing: [RemoteScope: Int] = [:]
}
