import Foundation
import TrainCore

/// The stored form of a device's sync data: one `RecordStore` schema, the same in
/// memory and in a file. Every key starts with the collection and the user, so each
/// user's records, queue and cursor are apart.
enum SyncRecords {
    static let schema = StoreSchema(
        name: "sync",
        migrations: [
            .createCollections(version: 1, ["records", "outbox", "deadLetters", "conflicts", "cursors", "meta"]),
            .createCollections(version: 2, ["deletionTallies"]),
        ])

    /// (collection, user, record) → the record on this device.
    static let records = RecordCollection<LocalRecord>.binary(
        "records", format: 1,
        encode: { record, writer in
            // Synced, the base is the document itself: stored once.
            let base = record.base.map { base in (base.version, base.document == record.document ? nil : base.document.data) }
            write(document: record.document.data, revision: record.revision, base: base, held: record.held, isStale: record.isStale, to: &writer)
        },
        decode: { reader throws(CoreError) in
            let document = try SyncDocument(data: try reader.read())
            let revision: UInt64 = try reader.read()
            var base: RemoteVersion?
            if try reader.read() as Bool {
                let version: UInt64 = try reader.read()
                let isDocument: Bool = try reader.read()
                base = RemoteVersion(version: version, document: isDocument ? document : try SyncDocument(data: try reader.read()))
            }
            let held =
                try reader.read() as Bool ? RemoteVersion(version: try reader.read(), document: try SyncDocument(data: try reader.read())) : nil
            return LocalRecord(document: document, revision: revision, base: base, held: held, isStale: try reader.read())
        })
    /// (collection, user, record) → the queued upload of its latest local edit.
    static let outbox = RecordCollection<OutboxEntry>("outbox")
    /// (collection, user, record) → why the remote refused it for good.
    static let deadLetters = RecordCollection<DeadLetter>("deadLetters")
    /// (collection, user, date, entry) → a value that lost a conflict.
    static let conflicts = RecordCollection<SyncConflictRecord>("conflicts")
    /// (collection, user) → where the next download starts.
    static let cursors = RecordCollection<Cursor>("cursors")
    /// (collection, user) → what the attempts of a deletion of the user's data that
    /// failed later removed, committed with what they removed: the attempt that
    /// finishes reports it with its own and removes it.
    static let deletionTallies = RecordCollection<SyncDeletionReport>("deletionTallies")
    /// "replica" → this device's replica ID, mutation counter and hybrid clock.
    static let meta = RecordCollection<Replica>("meta")
    static let replicaKey = "replica"

    /// A local record's layout; a `base` document of nil is the record's own document.
    static func write(
        document: Data, revision: UInt64, base: (version: UInt64, document: Data?)?, held: RemoteVersion?, isStale: Bool,
        to writer: inout BinaryWriter
    ) {
        writer.write(document)
        writer.write(revision)
        writer.write(base != nil)
        if let base {
            writer.write(base.version)
            writer.write(base.document == nil)
            if let document = base.document { writer.write(document) }
        }
        writer.write(held != nil)
        if let held {
            writer.write(held.version)
            writer.write(held.document.data)
        }
        writer.write(isStale)
    }

    /// The stored bytes of a record downloaded as is: its document, synced at `version`.
    static func downloaded(_ document: Data, version: UInt64) -> Data {
        var writer = BinaryWriter(format: 1)
        write(document: document, revision: 0, base: (version, nil), held: nil, isStale: false, to: &writer)
        return writer.data
    }

    /// A record on this device.
    struct LocalRecord: Codable, Sendable {
        /// Its current document, with this device's edits.
        var document: SyncDocument
        /// Counts this device's changes to it; an upload is acknowledged for the revision it sent.
        var revision: UInt64
        /// The remote version this document descends from; nil if it never reached the remote.
        var base: RemoteVersion?
        /// The remote version a custom policy held a conflict against.
        var held: RemoteVersion?
        /// Whether a full download is checking it.
        var isStale = false
    }

    /// A record as the remote held it at a version.
    struct RemoteVersion: Codable, Sendable {
        var version: UInt64
        var document: SyncDocument
    }

    /// A queued upload: the mutation ID and revision of the send whose outcome is not
    /// known yet, so a retry of that revision keeps its ID; and the earlier sends of
    /// the record whose outcome was never known, which the remote may have applied.
    /// Each send is kept with a digest of the document sent, so this device tells its
    /// own writes from another device's that used the same replica ID.
    struct OutboxEntry: Codable, Hashable, Sendable {
        var sequence: UInt64?
        var revision: UInt64 = 0
        /// The replica whose sequence it is; nil in an entry of an earlier version,
        /// whose sequence is this device's replica's.
        var replicaID: String?
        /// A digest of the document sent under `sequence`; nil in an earlier version's entry.
        var digest: Data?
        /// Earlier sends of the record, newest last, whose outcome was never known.
        var unanswered: [Send]?

        /// A send of the record.
        struct Send: Codable, Hashable, Sendable {
            var id: MutationID
            var digest: Data?
        }

        /// The most earlier sends kept.
        static let unansweredLimit = 16

        /// The send in flight, if any, under `replica` when the entry does not name one.
        func current(replica: String) -> Send? {
            sequence.map { Send(id: MutationID(replicaID: replicaID ?? replica, sequence: $0), digest: digest) }
        }

        /// Whether the remote's write `id` of a document with `digest` is one of this
        /// device's sends of the record (an entry of an earlier version has no digest:
        /// its mutation ID alone tells).
        func sent(_ id: MutationID, digest: Data, replica: String) -> Bool {
            ([current(replica: replica)] + (unanswered ?? [])).contains { send in
                send?.id == id && (send?.digest == nil || send?.digest == digest)
            }
        }

        /// The entry for a new send of `revision` under `id`, the send in flight kept
        /// among the earlier ones.
        func sending(revision: UInt64, as id: MutationID, digest: Data, replica: String) -> OutboxEntry {
            var earlier = unanswered ?? []
            if let current = current(replica: replica) { earlier.append(current) }
            return OutboxEntry(
                sequence: id.sequence, revision: revision, replicaID: id.replicaID, digest: digest,
                unanswered: earlier.isEmpty ? nil : Array(earlier.suffix(Self.unansweredLimit)))
        }
    }

    /// A download position.
    struct Cursor: Codable, Hashable, Sendable {
        var version: UInt64 = 0
        /// A full download started and has not finished.
        var needsResync = false
        /// Where the full download stopped: the last record read and the change-feed
        /// position of its first page, so the next sync goes on from there.
        var snapshotAfter: UUID?
        var snapshotHead: UInt64?
    }

    /// This device's identity as a writer.
    struct Replica: Codable, Hashable, Sendable {
        var id: String
        var nextSequence: UInt64 = 1
        var clock = HybridClock()
    }

    static func key(_ scope: RemoteScope, _ id: UUID) throws -> String {
        try RecordKey(.string(scope.collection), .string(scope.userID), .uuid(id)).encoded
    }

    /// The key of record `id` after a scope's key: a key's components are encoded one
    /// after another, so this is ``key(_:_:)`` without encoding the scope again.
    static func key(after scopeKey: String, _ id: UUID) throws -> String {
        scopeKey + (try RecordKey(.uuid(id)).encoded)
    }

    /// The key of the next entry of `scope`'s conflict log, resolved at `date`: after
    /// the entries of that date already logged, as `replica` numbers its writes.
    static func conflictKey(_ scope: RemoteScope, at date: Date, replica: inout Replica) throws -> String {
        defer { replica.nextSequence += 1 }
        return try RecordKey(.string(scope.collection), .string(scope.userID), .date(date), .uint(replica.nextSequence)).encoded
    }

    static func scopeKey(_ scope: RemoteScope) throws -> String {
        try RecordKey(.string(scope.collection), .string(scope.userID)).encoded
    }

    static func range(_ scope: RemoteScope) throws -> KeyRange {
        try RecordKey(.string(scope.collection), .string(scope.userID)).range
    }

    /// The record ID at the end of a record key.
    static func recordID(_ key: String) -> UUID? {
        guard case .uuid(let id)? = try? RecordKey(encoded: key).components.last else { return nil }
        return id
    }
}
