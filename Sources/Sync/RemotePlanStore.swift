import Foundation
import TrainCore

/// The server side of sync: where every device of a user sends its edits and reads
/// the others'. Each user's records of one type form a ``RemoteScope``; in it every
/// accepted write gets the next version number, and the change feed lists records in
/// version order.
///
/// TrainKit's conformance is ``LocalRemotePlanStore``, in memory or in a file, so
/// several simulated devices sync through one remote in a test or a prototype. An app
/// writes its own over Firestore (a transaction that checks the stored version) or
/// CloudKit (a save that checks the record change tag) and runs the
/// `RemotePlanStoreContract` suite of TrainTesting against it.
///
/// ```swift
/// let scope = RemoteScope(userID: "ada", collection: "plans")
/// let page = try await remote.changes(in: scope, after: 0, limit: 500)
/// for record in page.records { print(record.id, record.version, record.isDeleted) }
/// ```
public protocol RemotePlanStore: Sendable {
    /// Applies each mutation if the record's version is still its base version
    /// (compare-and-set). A mutation whose ID was applied before is not applied again:
    /// its answer is the version it was applied at — if it writes the same record
    /// with the same document; a mutation ID applied before to another write is
    /// ``RemoteWriteResult/mutationIDInUse``, never "applied".
    /// - Parameters:
    ///   - mutations: The writes, at most the store's batch limit, each to a
    ///     different record.
    ///   - scope: The user and collection written.
    /// - Returns: One result per mutation, in order, and the remote's time.
    /// - Throws: ``RemoteStoreError`` — `tooLarge` for a batch over the limit (nothing
    ///   applied), `unavailable` when the outcome is unknown. A sync treats any other
    ///   error as `unavailable`.
    func write(_ mutations: [RemoteMutation], in scope: RemoteScope) async throws -> RemoteWriteResponse

    /// The records changed after `cursor`, in version order, each in its latest state
    /// (deletions included while the remote keeps them).
    /// - Parameters:
    ///   - scope: The user and collection read.
    ///   - cursor: The ``RemotePage/cursor`` of the previous page; 0 for the start.
    ///   - limit: The most records to return, 1 or more.
    /// - Returns: The page, the cursor to continue from and whether more follow.
    /// - Throws: ``RemoteStoreError`` — `cursorExpired` when deletions after `cursor`
    ///   are no longer kept, also for cursor 0 once any deletion was dropped (read a
    ///   ``snapshot(in:after:limit:)`` instead), `unavailable`.
    func changes(in scope: RemoteScope, after cursor: UInt64, limit: Int) async throws -> RemotePage

    /// The records that exist now, in ID order: what a device reads again after being
    /// offline longer than deletions are kept.
    /// - Parameters:
    ///   - scope: The user and collection read.
    ///   - recordID: The last record of the previous page; nil for the first page.
    ///   - limit: The most records to return, 1 or more.
    /// - Returns: The page, with the change-feed cursor to continue from once every
    ///   page is read.
    /// - Throws: ``RemoteStoreError`` — `unavailable`.
    func snapshot(in scope: RemoteScope, after recordID: UUID?, limit: Int) async throws -> RemotePage

    /// Erases everything the remote keeps for a scope — its records, its deletions and
    /// the IDs of the mutations applied to it — as part of deleting the user's account.
    /// A device that synced the scope before reads a snapshot next. Erasing a scope
    /// that holds nothing does nothing, so a retry is safe.
    /// - Parameter scope: The user and collection to erase.
    /// - Returns: How many records that were not deleted it held.
    /// - Throws: ``RemoteStoreError`` — `unavailable` when the outcome is unknown
    ///   (erase again).
    func erase(_ scope: RemoteScope) async throws -> Int

    /// The largest document the remote accepts, in bytes of ``RemoteMutation/document``:
    /// an edit whose document is larger is refused on the device, and a larger
    /// document in an answer is refused as unreadable. 1 MiB by default, Firestore's
    /// limit for a document.
    var maximumDocumentBytes: Int { get }

    /// The commits to `scope` as they happen, so a device syncs soon after another
    /// one writes: Firestore's snapshot listener, CloudKit's push notifications. A
    /// signal only says that something changed; the device reads what through
    /// ``changes(in:after:limit:)``. A remote that cannot tell returns a stream that
    /// ends at once (the default): devices then sync on their schedule only.
    /// - Parameter scope: The user and collection to follow.
    /// - Returns: A stream that ends when the consumer stops or the remote cannot tell.
    func changeSignals(for scope: RemoteScope) -> AsyncStream<RemoteChangeSignal>
}

extension RemotePlanStore {
    /// 1 MiB.
    public var maximumDocumentBytes: Int { 1 << 20 }

    /// A stream that ends at once: this remote does not signal its changes.
    /// - Parameter scope: The user and collection.
    /// - Returns: An empty stream.
    public func changeSignals(for scope: RemoteScope) -> AsyncStream<RemoteChangeSignal> {
        AsyncStream { $0.finish() }
    }
}

/// A commit the remote signals to the devices that follow its scope.
public struct RemoteChangeSignal: Hashable, Sendable {
    /// The scope's latest version after the commit; 0 if the remote does not say.
    public let version: UInt64
    /// The replica whose writes the commit applied; nil if the remote does not know,
    /// such as for a commit another process made to the same file.
    public let writer: String?

    /// Creates a signal.
    /// - Parameters:
    ///   - version: The scope's latest version.
    ///   - writer: The replica that wrote, if known.
    public init(version: UInt64, writer: String?) {
        self.version = version
        self.writer = writer
    }
}

/// One user's records of one type on the remote, such as `plans` of user `ada`.
public struct RemoteScope: Codable, Hashable, Sendable, CustomStringConvertible {
    /// The owner.
    public let userID: String
    /// The record type's collection, such as `plans`.
    public let collection: String

    /// Creates a scope.
    /// - Parameters:
    ///   - userID: The owner.
    ///   - collection: The collection.
    public init(userID: String, collection: String) {
        self.userID = userID
        self.collection = collection
    }

    /// `collection/userID`.
    public var description: String { "\(collection)/\(userID)" }
}

/// The identity of one write: the device's replica ID and its own sequence number.
/// A retried write keeps its ID, so the remote applies it at most once.
public struct MutationID: Codable, Hashable, Sendable, CustomStringConvertible {
    /// The device's replica.
    public let replicaID: String
    /// The device's count of writes it has sent.
    public let sequence: UInt64

    /// Creates a mutation ID.
    /// - Parameters:
    ///   - replicaID: The replica.
    ///   - sequence: Its sequence number.
    public init(replicaID: String, sequence: UInt64) {
        self.replicaID = replicaID
        self.sequence = sequence
    }

    /// `replica#sequence`.
    public var description: String { "\(replicaID)#\(sequence)" }
}

/// A record as the remote holds it.
public struct RemoteRecord: Codable, Hashable, Sendable {
    /// The record's ID.
    public let id: UUID
    /// The version the last write gave it; versions grow with every write in a scope.
    public let version: UInt64
    /// Whether the last write deleted it (a tombstone).
    public let isDeleted: Bool
    /// The write that made this version.
    public let mutation: MutationID
    /// The record's document, opaque to the remote.
    public let document: Data

    /// Creates a record.
    /// - Parameters:
    ///   - id: The ID.
    ///   - version: The version.
    ///   - isDeleted: Whether it is a tombstone.
    ///   - mutation: The write that made it.
    ///   - document: The document.
    public init(id: UUID, version: UInt64, isDeleted: Bool, mutation: MutationID, document: Data) {
        self.id = id
        self.version = version
        self.isDeleted = isDeleted
        self.mutation = mutation
        self.document = document
    }
}

/// A write sent to the remote.
public struct RemoteMutation: Codable, Hashable, Sendable {
    /// The write's identity, kept across retries.
    public let id: MutationID
    /// The record written.
    public let recordID: UUID
    /// The version the device's edit is based on; nil when the device knows no
    /// version (a new record). The write applies only if it is still the record's version.
    public let baseVersion: UInt64?
    /// Whether the write deletes the record.
    public let isDeletion: Bool
    /// The record's new document.
    public let document: Data

    /// Creates a mutation.
    /// - Parameters:
    ///   - id: The write's identity.
    ///   - recordID: The record.
    ///   - baseVersion: The version it is based on.
    ///   - isDeletion: Whether it deletes.
    ///   - document: The new document.
    public init(id: MutationID, recordID: UUID, baseVersion: UInt64?, isDeletion: Bool, document: Data) {
        self.id = id
        self.recordID = recordID
        self.baseVersion = baseVersion
        self.isDeletion = isDeletion
        self.document = document
    }
}

/// What the remote did with one mutation.
public enum RemoteWriteResult: Hashable, Sendable {
    /// Applied (now or by an earlier delivery of the same mutation) at this version.
    case applied(version: UInt64)
    /// Not applied: the record's version is not the base version. `current` is the
    /// record as the remote holds it; nil if it does not exist (never did, or its
    /// deletion is no longer kept).
    case conflict(current: RemoteRecord?)
    /// Refused for good (too large, malformed); retrying will not help.
    case rejected(reason: String)
    /// Not applied: the mutation ID was applied before to another write — another
    /// record, or the same record with another document. Another device writes with
    /// the same replica ID (a backup restored on a second device, a fixed ID
    /// generator); the sending device takes a new replica ID and sends the write again.
    case mutationIDInUse
}

/// The remote's answer to a batch of writes.
public struct RemoteWriteResponse: Hashable, Sendable {
    /// One result per mutation, in order.
    public let results: [RemoteWriteResult]
    /// The remote's clock when it answered.
    public let serverTime: Date

    /// Creates a response.
    /// - Parameters:
    ///   - results: The results.
    ///   - serverTime: The remote's time.
    public init(results: [RemoteWriteResult], serverTime: Date) {
        self.results = results
        self.serverTime = serverTime
    }
}

/// A page of the change feed, or of the records that exist now.
public struct RemotePage: Hashable, Sendable {
    /// The records: in version order in the change feed, in ID order (none deleted) in
    /// a snapshot.
    public let records: [RemoteRecord]
    /// The change-feed cursor to continue from: after this page in the change feed;
    /// after the last page in a snapshot, where every later change is newer than the
    /// first page's read. Store it with the changes it covers.
    public let cursor: UInt64
    /// Whether more records follow.
    public let hasMore: Bool
    /// The remote's clock when it answered.
    public let serverTime: Date

    /// Creates a page.
    /// - Parameters:
    ///   - records: The records.
    ///   - cursor: The change-feed cursor.
    ///   - hasMore: Whether more follow.
    ///   - serverTime: The remote's time.
    public init(records: [RemoteRecord], cursor: UInt64, hasMore: Bool, serverTime: Date) {
        self.records = records
        self.cursor = cursor
        self.hasMore = hasMore
        self.serverTime = serverTime
    }
}

/// Why a remote call failed.
public struct RemoteStoreError: TrainError {
    /// What went wrong; new codes can be added without breaking callers.
    public typealias Code = TrainErrorCode<RemoteStoreError>

    /// What went wrong.
    public let code: Code
    /// A detail for developers and logs.
    public let detail: String

    /// Creates an error.
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - detail: A detail for developers; defaults to the code's sentence.
    public init(_ code: Code, detail: String? = nil) {
        self.code = code
        self.detail = detail ?? code.message
    }
}

/// The codes of ``RemoteStoreError``.
extension TrainErrorCode where Failure == RemoteStoreError {
    /// The remote could not be reached, or the answer was lost: the call may or
    /// may not have taken effect. Retry with the same mutation IDs.
    public static var unavailable: Self {
        Self("unavailable", message: "The server could not be reached.", recoverySuggestion: "Try again with the same changes.")
    }
    /// The batch is over the remote's limit of writes or bytes; nothing was applied.
    public static var tooLarge: Self {
        Self("tooLarge", message: "Too many changes were sent at once.", recoverySuggestion: "Send them in smaller batches.")
    }
    /// The cursor is older than the deletions the remote keeps.
    public static var cursorExpired: Self {
        Self("cursorExpired", message: "The server no longer has the changes since this point.", recoverySuggestion: "Read everything again.")
    }
    /// The request is malformed (a limit below 1, two writes to one record).
    public static var invalidRequest: Self { Self("invalidRequest", message: "The request is not valid.") }
    /// The scope's user may not write: their account is being deleted, or is gone.
    /// Nothing was applied.
    public static var accountClosed: Self { Self("accountClosed", message: "This account is closed.") }
}
