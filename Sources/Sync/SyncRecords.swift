import Foundation
import TrainCore

/// The stored form of a device's sync data: one `RecordStore` schema, the same in
/// memory and in a file. Every key starts with the collection and the user, so each
/// user's records, queue and cursor are apart.
enum SyncRecords {
    static let schema = StoreSchema(
        name: "sync", migrations: [.createCollections(version: 1, ["records", "outbox", "deadLetters", "conflicts", "cursors", "meta"])])

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
    /// known yet, so a retry of that revision keeps its ID.
    struct OutboxEntry: Codable, Hashable, Sendable {
        var sequence: UInt64?
        var revision: UInt64 = 0
    }

    /// A download position.
    struct Cursor: Codable, Hashable, Sendable {
        var version: UInt64 = 0
        /// A full download started and has not finished.
        var needsResync = false
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
