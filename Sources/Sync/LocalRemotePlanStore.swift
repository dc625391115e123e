import Foundation
import TrainCore

/// The limits of a ``LocalRemotePlanStore`` and who may write, besides its context.
/// Each part has a default:
///
/// ```swift
/// var configuration = RemoteConfiguration()
/// configuration.maximumDocumentBytes = 64 << 10
/// ```
public struct RemoteConfiguration: Sendable {
    /// The most writes in one batch; 500, as Firestore's batched writes allow.
    public var maximumBatchCount = 500
    /// The most document bytes in one batch; 10 MiB.
    public var maximumBatchBytes = 10 << 20
    /// The largest document accepted, 1 MiB; a larger one is rejected for good.
    public var maximumDocumentBytes = 1 << 20
    /// How long a deletion is kept in the change feed, 30 days. A device whose cursor
    /// is older reads a snapshot instead, so it cannot bring a deleted record back.
    public var tombstoneRetention: Duration = .seconds(30 * 86_400)
    /// How often a remote in a file looks for commits made through another instance
    /// on the file, such as another process's, while a device follows its signals;
    /// 1 second, at least 1 millisecond.
    public var changePollInterval: Duration = .seconds(1) {
        didSet { changePollInterval = max(changePollInterval, .milliseconds(1)) }
    }
    /// Whether a user may still write, asked inside each write's transaction: a backend
    /// refuses the writes of an account that is being deleted or is gone, as its rules
    /// refuse a revoked token, so an upload that raced the deletion never outlives its
    /// purge. Everyone may by default; a `TrainServices` world refuses a user whose
    /// deletion was asked for, and one whose account is gone.
    public var acceptsWrites: @Sendable (_ userID: String) -> Bool = { _ in true }
    /// The clock given to the deprecated initializer, which overrides the context's.
    package var legacy = LegacyContext()

    /// Creates a configuration; `RemoteConfiguration()` has every default.
    /// - Parameters:
    ///   - maximumBatchCount: 500 writes.
    ///   - maximumBatchBytes: 10 MiB.
    ///   - maximumDocumentBytes: 1 MiB.
    ///   - tombstoneRetention: 30 days.
    ///   - changePollInterval: 1 second.
    ///   - acceptsWrites: Every user's writes are accepted.
    public init(
        maximumBatchCount: Int = 500, maximumBatchBytes: Int = 10 << 20, maximumDocumentBytes: Int = 1 << 20,
        tombstoneRetention: Duration = .seconds(30 * 86_400), changePollInterval: Duration = .seconds(1),
        acceptsWrites: @escaping @Sendable (_ userID: String) -> Bool = { _ in true }
    ) {
        self.acceptsWrites = acceptsWrites
        self.maximumBatchCount = maximumBatchCount
        self.maximumBatchBytes = maximumBatchBytes
        self.maximumDocumentBytes = maximumDocumentBytes
        self.tombstoneRetention = tombstoneRetention
        self.changePollInterval = max(changePollInterval, .milliseconds(1))
    }

    /// Creates a configuration with a clock of its own.
    /// - Parameters:
    ///   - maximumBatchCount: 500 writes.
    ///   - maximumBatchBytes: 10 MiB.
    ///   - maximumDocumentBytes: 1 MiB.
    ///   - tombstoneRetention: 30 days.
    ///   - clock: The remote's clock, in place of the context's.
    ///   - changePollInterval: 1 second.
    ///   - acceptsWrites: Every user's writes are accepted.
    @_disfavoredOverload
    @available(*, deprecated, message: "Pass the clock in the remote's context.")
    public init(
        maximumBatchCount: Int = 500, maximumBatchBytes: Int = 10 << 20, maximumDocumentBytes: Int = 1 << 20,
        tombstoneRetention: Duration = .seconds(30 * 86_400), clock: (any DateClock)? = nil, changePollInterval: Duration = .seconds(1),
        acceptsWrites: @escaping @Sendable (_ userID: String) -> Bool = { _ in true }
    ) {
        self.init(
            maximumBatchCount: maximumBatchCount, maximumBatchBytes: maximumBatchBytes, maximumDocumentBytes: maximumDocumentBytes,
            tombstoneRetention: tombstoneRetention, changePollInterval: changePollInterval, acceptsWrites: acceptsWrites)
        self.legacy = LegacyContext(clock: clock)
    }

    /// The clock given to the deprecated initializer, or the system's.
    @available(*, deprecated, message: "Pass the clock in the remote's context.")
    public var clock: any DateClock {
        get { legacy.clock ?? SystemClock() }
        set { legacy.clock = newValue }
    }
}

/// The limits of a ``LocalRemotePlanStore``: the name ``RemoteConfiguration`` had.
@available(*, deprecated, renamed: "RemoteConfiguration")
public typealias RemotePolicy = RemoteConfiguration

/// TrainKit's ``RemotePlanStore``: the server side of sync in memory or in a file,
/// with the same logic. Devices in a test or a prototype sync through one of these;
/// a file lets several processes (or two runs of a demo) share it.
///
/// Each scope keeps its records by ID, a change feed by version, the IDs of applied
/// mutations and the deletions by date; every call is one transaction. It signals each
/// commit to the devices that follow the scope (``changeSignals(for:)``); in a file,
/// also the commits other instances on the file make, other processes' included.
///
/// ```swift
/// let remote = try LocalRemotePlanStore(storage: .file(directory.appendingPathComponent("remote.sqlite")))
/// let phone = LocalPlanSyncService(auth: auth, remote: remote)
/// ```
public final class LocalRemotePlanStore: RemotePlanStore {
    /// The remote's clock: deletion times and the time in every answer.
    public let context: TrainContext
    /// Limits, retention and who may write.
    public let configuration: RemoteConfiguration
    let store: RecordStore
    /// The devices following each scope's commits.
    let listeners = Locked(ChangeListeners())

    /// Creates a remote that keeps its data in memory.
    /// - Parameters:
    ///   - context: The remote's clock; the live one by default.
    ///   - configuration: Limits, retention and who may write.
    public init(context: TrainContext = .live, configuration: RemoteConfiguration = RemoteConfiguration()) {
        let context = configuration.legacy.applied(to: context)
        self.context = context
        var shown = configuration
        shown.legacy = LegacyContext(context)
        self.configuration = shown
        self.store = .inMemoryOrFailing(RemoteRecords.schema)
    }

    /// Creates a remote whose data lives in `storage`.
    /// - Parameters:
    ///   - storage: In memory, or a file with its options.
    ///   - context: The remote's clock; the live one by default.
    ///   - configuration: Limits, retention and who may write.
    /// - Throws: `CoreError` naming the file if it cannot be opened.
    public init(storage: StorageLocation, context: TrainContext = .live, configuration: RemoteConfiguration = RemoteConfiguration()) throws {
        let context = configuration.legacy.applied(to: context)
        self.context = context
        var shown = configuration
        shown.legacy = LegacyContext(context)
        self.configuration = shown
        self.store = try RecordStore(storage, schema: RemoteRecords.schema)
    }

    /// Creates a remote that keeps its data in memory.
    /// - Parameter policy: Limits, retention and clock.
    @available(*, deprecated, renamed: "init(context:configuration:)")
    public convenience init(policy: RemoteConfiguration) {
        self.init(configuration: policy)
    }

    /// Creates a remote whose data lives in `storage`.
    /// - Parameters:
    ///   - storage: In memory, or a file with its options.
    ///   - policy: Limits, retention and clock.
    /// - Throws: `CoreError` naming the file if it cannot be opened.
    @available(*, deprecated, renamed: "init(storage:context:configuration:)")
    public convenience init(storage: StorageLocation, policy: RemoteConfiguration) throws {
        try self.init(storage: storage, configuration: policy)
    }

    /// Limits, retention and clock: the configuration.
    @available(*, deprecated, renamed: "configuration")
    public var policy: RemoteConfiguration { configuration }

    public func write(_ mutations: [RemoteMutation], in scope: RemoteScope) async throws(RemoteStoreError) -> RemoteWriteResponse {
        try writeNow(mutations, in: scope)
    }

    /// The configuration's ``RemoteConfiguration/maximumDocumentBytes``.
    public var maximumDocumentBytes: Int { configuration.maximumDocumentBytes }

    public func changes(in scope: RemoteScope, after cursor: UInt64, limit: Int) async throws(RemoteStoreError) -> RemotePage {
        try changesNow(in: scope, after: cursor, limit: limit)
    }

    public func snapshot(in scope: RemoteScope, after recordID: UUID?, limit: Int) async throws(RemoteStoreError) -> RemotePage {
        try snapshotNow(in: scope, after: recordID, limit: limit)
    }

    public func erase(_ scope: RemoteScope) async throws(RemoteStoreError) -> Int {
        try eraseNow(scope)
    }

    /// ``erase(_:)``, without suspending.
    package func eraseNow(_ scope: RemoteScope) throws(RemoteStoreError) -> Int {
        try Self.check(scope)
        let (live, head) = try transaction { records -> (Int, UInt64?) in
            let range = try RemoteRecords.range([.string(scope.collection), .string(scope.userID)])
            let live = try records.values(in: RemoteRecords.records, range: range).count { !$0.record.isDeleted }
            var removed = 0
            for collection in [
                RemoteRecords.records.collectionName, RemoteRecords.feed.collectionName, RemoteRecords.tombstones.collectionName,
                RemoteRecords.mutations.collectionName,
            ] {
                removed += try records.removeAll(in: collection, range: range)
            }
            // Erasing an empty scope changes nothing, so a retry keeps devices' cursors.
            guard removed > 0 else { return (0, nil) }
            // The head stays, moved past every version so far and all of them purged:
            // a device holding a cursor, even the latest, reads a snapshot next.
            let headKey = try RemoteRecords.key([.string(scope.collection), .string(scope.userID)])
            var head = try records.value(forKey: headKey, in: RemoteRecords.heads)
            if var moved = head {
                moved.version += 1
                moved.purgedThrough = moved.version
                try records.put(moved, forKey: headKey, in: RemoteRecords.heads)
                head = moved
            }
            return (live, head?.version)
        }
        if let head { signal(RemoteChangeSignal(version: head, writer: nil), in: scope) }
        return live
    }

    /// ``write(_:in:)``, without suspending: for a fake that runs it inside its own call.
    package func writeNow(_ mutations: [RemoteMutation], in scope: RemoteScope) throws(RemoteStoreError) -> RemoteWriteResponse {
        try Self.check(scope)
        guard mutations.count <= configuration.maximumBatchCount,
            mutations.reduce(0, { $0 + $1.document.count }) <= configuration.maximumBatchBytes
        else {
            throw RemoteStoreError(
                .tooLarge, detail: "A batch holds at most \(configuration.maximumBatchCount) writes and \(configuration.maximumBatchBytes) bytes.")
        }
        guard Set(mutations.map(\.recordID)).count == mutations.count else {
            throw RemoteStoreError(.invalidRequest, detail: "A batch writes each record once.")
        }
        let now = context.clock.now
        let (results, head) = try transaction { records in
            // Asked here, inside the transaction an erase also takes: a write either lands
            // before the purge's erase, which removes it, or sees the deletion and is refused.
            guard configuration.acceptsWrites(scope.userID) else {
                throw RemoteStoreError(.accountClosed, detail: "'\(scope.userID)' may not write: the account is being deleted or is gone.")
            }
            var head = try purge(scope, at: now, in: records)
            let before = head.version
            var results: [RemoteWriteResult] = []
            for mutation in mutations {
                results.append(try apply(mutation, in: scope, head: &head, at: now, records: records))
            }
            try records.put(head, forKey: RemoteRecords.key([.string(scope.collection), .string(scope.userID)]), in: RemoteRecords.heads)
            return (results, head.version > before ? head.version : nil)
        }
        if let head { signal(RemoteChangeSignal(version: head, writer: mutations.first?.id.replicaID), in: scope) }
        return RemoteWriteResponse(results: results, serverTime: now)
    }

    /// ``changes(in:after:limit:)``, without suspending.
    package func changesNow(in scope: RemoteScope, after cursor: UInt64, limit: Int) throws(RemoteStoreError) -> RemotePage {
        try Self.check(scope)
        guard limit >= 1 else { throw RemoteStoreError(.invalidRequest, detail: "A page holds 1 or more records, not \(limit).") }
        let now = context.clock.now
        let head = try transaction { records in try purge(scope, at: now, in: records) }
        // A device at cursor 0 may hold records from its own uploads: once deletions
        // have been purged, it too reads a snapshot.
        guard cursor >= head.purgedThrough, cursor <= head.version else {
            throw RemoteStoreError(
                .cursorExpired, detail: "Deletions up to version \(head.purgedThrough) are no longer kept; the cursor is \(cursor).")
        }
        return try read { records in
            let start = try RemoteRecords.key([.string(scope.collection), .string(scope.userID), .uint(cursor)])
            let range = try RemoteRecords.range([.string(scope.collection), .string(scope.userID)]).after(start)
            let limit = min(limit, 10_000)
            let entries = try records.entries(in: RemoteRecords.feed, range: range, limit: limit + 1)
            var page: [RemoteRecord] = []
            for entry in entries.prefix(limit) {
                guard let id = UUID(uuidString: String(decoding: entry.value, as: UTF8.self)),
                    let stored = try records.value(forKey: RemoteRecords.recordKey(scope, id), in: RemoteRecords.records)
                else { throw CoreError(.undecodable, detail: "A change-feed entry names no record.") }
                page.append(stored.record)
            }
            return RemotePage(
                records: page, cursor: page.last?.version ?? cursor, hasMore: entries.count > page.count, serverTime: now)
        }
    }

    /// ``snapshot(in:after:limit:)``, without suspending.
    package func snapshotNow(in scope: RemoteScope, after recordID: UUID?, limit: Int) throws(RemoteStoreError) -> RemotePage {
        try Self.check(scope)
        guard limit >= 1 else { throw RemoteStoreError(.invalidRequest, detail: "A page holds 1 or more records, not \(limit).") }
        let now = context.clock.now
        return try read { records in
            var range = try RemoteRecords.range([.string(scope.collection), .string(scope.userID)])
            if let recordID { range = range.after(try RemoteRecords.recordKey(scope, recordID)) }
            var page: [RemoteRecord] = []
            var hasMore = false
            while !hasMore {
                let batch = try records.entries(in: RemoteRecords.records, range: range, limit: 256)
                for entry in batch where !entry.value.record.isDeleted {
                    if page.count == limit {
                        hasMore = true
                        break
                    }
                    page.append(entry.value.record)
                }
                guard let last = batch.last, batch.count == 256 else { break }
                range = range.after(last.key)
            }
            let head = try records.value(forKey: RemoteRecords.key([.string(scope.collection), .string(scope.userID)]), in: RemoteRecords.heads)
            return RemotePage(records: page, cursor: head?.version ?? 0, hasMore: hasMore, serverTime: now)
        }
    }

    // MARK: - Writing

    /// Applies one mutation of a batch: once per mutation ID, and only on its base version.
    private func apply(
        _ mutation: RemoteMutation, in scope: RemoteScope, head: inout RemoteRecords.Head, at now: Date, records: RecordWriter
    ) throws -> RemoteWriteResult {
        let replica = mutation.id.replicaID
        guard !replica.isEmpty, replica.utf8.count <= 128, mutation.document.count <= configuration.maximumDocumentBytes else {
            return .rejected(
                reason: "A write needs a replica ID of 1 to 128 bytes and a document of at most \(configuration.maximumDocumentBytes) bytes.")
        }
        let applied = try RemoteRecords.key([.string(scope.collection), .string(scope.userID), .string(replica), .uint(mutation.id.sequence)])
        let digest = try SyncDocument.digest(mutation.document)
        if let earlier = try records.value(forKey: applied, in: RemoteRecords.mutations) {
            // A mutation ID kept by an earlier version answers by its version alone.
            guard earlier.recordID == nil || (earlier.recordID == mutation.recordID && earlier.digest == digest) else { return .mutationIDInUse }
            return .applied(version: earlier.version)
        }
        let key = try RemoteRecords.recordKey(scope, mutation.recordID)
        let current = try records.value(forKey: key, in: RemoteRecords.records)
        guard current?.record.version == mutation.baseVersion else { return .conflict(current: current?.record) }
        if let current { try forget(current, in: scope, records: records) }
        head.version += 1
        let record = RemoteRecord(
            id: mutation.recordID, version: head.version, isDeleted: mutation.isDeletion, mutation: mutation.id, document: mutation.document)
        let stored = RemoteRecords.Stored(record: record, deletedAt: mutation.isDeletion ? now : nil)
        try records.put(stored, forKey: key, in: RemoteRecords.records)
        try records.setData(
            Data(RemoteRecords.idText(record.id).utf8), forKey: try RemoteRecords.feedKey(scope, record.version), in: RemoteRecords.feed)
        if let deletedAt = stored.deletedAt {
            try records.setData(Data(), forKey: try RemoteRecords.tombstoneKey(scope, deletedAt, record.id), in: RemoteRecords.tombstones)
        }
        try records.put(
            RemoteRecords.Applied(version: head.version, recordID: mutation.recordID, digest: digest), forKey: applied, in: RemoteRecords.mutations)
        return .applied(version: head.version)
    }

    /// Removes a record's feed and deletion entries before it is replaced or purged.
    private func forget(_ stored: RemoteRecords.Stored, in scope: RemoteScope, records: RecordWriter) throws {
        try records.removeValue(forKey: try RemoteRecords.feedKey(scope, stored.record.version), in: RemoteRecords.feed)
        if let deletedAt = stored.deletedAt {
            try records.removeValue(forKey: try RemoteRecords.tombstoneKey(scope, deletedAt, stored.record.id), in: RemoteRecords.tombstones)
        }
    }

    /// Drops the scope's deletions older than the retention and returns its head.
    private func purge(_ scope: RemoteScope, at now: Date, in records: RecordWriter) throws -> RemoteRecords.Head {
        let headKey = try RemoteRecords.key([.string(scope.collection), .string(scope.userID)])
        var head = try records.value(forKey: headKey, in: RemoteRecords.heads) ?? RemoteRecords.Head()
        let retention = TimeInterval(configuration.tombstoneRetention.components.seconds)
        let cutoff = now.addingTimeInterval(-retention)
        let scopeRange = try RemoteRecords.range([.string(scope.collection), .string(scope.userID)])
        let expired = KeyRange(
            lower: scopeRange.lower, upper: .excluded(try RemoteRecords.key([.string(scope.collection), .string(scope.userID), .date(cutoff)])))
        let keys = try records.keys(in: RemoteRecords.tombstones, range: expired)
        guard !keys.isEmpty else { return head }
        for tombstone in keys {
            guard case .uuid(let id)? = try RecordKey(encoded: tombstone).components.last,
                let stored = try records.value(forKey: try RemoteRecords.recordKey(scope, id), in: RemoteRecords.records)
            else { throw CoreError(.undecodable, detail: "A deletion entry names no record.") }
            try forget(stored, in: scope, records: records)
            try records.removeValue(forKey: try RemoteRecords.recordKey(scope, id), in: RemoteRecords.records)
            head.purgedThrough = max(head.purgedThrough, stored.record.version)
        }
        try records.put(head, forKey: headKey, in: RemoteRecords.heads)
        return head
    }

    // MARK: - Transactions

    /// A scope's user and collection must be plausible names.
    private static func check(_ scope: RemoteScope) throws(RemoteStoreError) {
        guard !scope.userID.isEmpty, scope.userID.utf8.count <= 512, !scope.collection.isEmpty, scope.collection.utf8.count <= 128 else {
            throw RemoteStoreError(.invalidRequest, detail: "A scope needs a user ID of 1 to 512 bytes and a collection of 1 to 128.")
        }
    }

    func read<Result>(_ body: (RecordReader) throws -> Result) throws(RemoteStoreError) -> Result {
        do { return try store.read(body) } catch { throw RemoteStoreError(.unavailable, detail: "\(error)") }
    }

    private func transaction<Result>(_ body: (RecordWriter) throws -> Result) throws(RemoteStoreError) -> Result {
        do {
            return try store.write(body)
        } catch let error as RemoteStoreError {
            throw error
        } catch {
            throw RemoteStoreError(.unavailable, detail: "\(error)")
        }
    }
}

/// The stored form of a ``LocalRemotePlanStore``.
enum RemoteRecords {
    static let schema = StoreSchema(
        name: "remote", migrations: [.createCollections(version: 1, ["records", "feed", "tombstones", "mutations", "heads"])])

    /// (collection, user, record) → the record and when it was deleted.
    static let records = RecordCollection<Stored>.binary(
        "records", format: 1,
        encode: { stored, writer in
            writer.write(stored.record.id)
            writer.write(stored.record.version)
            writer.write(stored.record.mutation.replicaID)
            writer.write(stored.record.mutation.sequence)
            writer.write(stored.deletedAt)
            writer.write(stored.record.isDeleted)
            writer.write(stored.record.document)
        },
        decode: { reader throws(CoreError) in
            let id: UUID = try reader.read()
            let version: UInt64 = try reader.read()
            let replica: String = try reader.read()
            let sequence: UInt64 = try reader.read()
            let deletedAt: Date? = try reader.read()
            let isDeleted: Bool = try reader.read()
            let document: Data = try reader.read()
            return Stored(
                record: RemoteRecord(
                    id: id, version: version, isDeleted: isDeleted, mutation: MutationID(replicaID: replica, sequence: sequence), document: document),
                deletedAt: deletedAt)
        })
    /// (collection, user, version) → the ID of the record written at that version.
    static let feed = RecordCollection<Data>.bytes("feed")
    /// (collection, user, deletion date, record) → nothing: what purging walks.
    static let tombstones = RecordCollection<Data>.bytes("tombstones")
    /// (collection, user, replica, sequence) → the version the mutation was applied at,
    /// the record it wrote and a digest of its document.
    static let mutations = RecordCollection<Applied>.binary(
        "mutations", format: 1,
        encode: { applied, writer in
            writer.write(applied.version)
            writer.write(applied.recordID)
            writer.write(applied.digest.map { Data($0) } ?? Data())
        },
        decode: { reader throws(CoreError) in
            let version: UInt64 = try reader.read()
            let recordID: UUID? = try reader.read()
            let digest: Data = try reader.read()
            return Applied(version: version, recordID: recordID, digest: digest.isEmpty ? nil : digest)
        })
    /// (collection, user) → the scope's latest version and purge horizon.
    static let heads = RecordCollection<Head>("heads")

    /// A record with the time of its deletion, if it is a tombstone.
    struct Stored: Codable, Sendable {
        var record: RemoteRecord
        var deletedAt: Date?
    }

    /// What an applied mutation wrote. An earlier version kept the version alone, as a
    /// JSON number, which still reads.
    struct Applied: Codable, Hashable, Sendable {
        var version: UInt64
        var recordID: UUID?
        var digest: Data?

        init(version: UInt64, recordID: UUID?, digest: Data?) {
            self.version = version
            self.recordID = recordID
            self.digest = digest
        }

        init(from decoder: any Decoder) throws {
            self.init(version: try decoder.singleValueContainer().decode(UInt64.self), recordID: nil, digest: nil)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(version)
        }
    }

    /// A scope's counters.
    struct Head: Codable, Hashable, Sendable {
        /// The version of the latest write.
        var version: UInt64 = 0
        /// The newest version of a purged deletion: a cursor before it has missed one.
        var purgedThrough: UInt64 = 0
    }

    static func idText(_ id: UUID) -> String { id.uuidString.lowercased() }

    static func recordKey(_ scope: RemoteScope, _ id: UUID) throws -> String {
        try key([.string(scope.collection), .string(scope.userID), .uuid(id)])
    }

    static func feedKey(_ scope: RemoteScope, _ version: UInt64) throws -> String {
        try key([.string(scope.collection), .string(scope.userID), .uint(version)])
    }

    static func tombstoneKey(_ scope: RemoteScope, _ date: Date, _ id: UUID) throws -> String {
        try key([.string(scope.collection), .string(scope.userID), .date(date), .uuid(id)])
    }

    static func key(_ components: [RecordKey.Component]) throws -> String { try RecordKey(components).encoded }

    static func range(_ components: [RecordKey.Component]) throws -> KeyRange { try RecordKey(components).range }
}
