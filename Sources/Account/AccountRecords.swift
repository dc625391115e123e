import Foundation
import TrainCore

/// The stored form of TrainAccount's data: one `RecordStore` schema, the same in
/// memory and in a file. Every key starts with the user.
enum AccountRecords {
    static let schema = StoreSchema(
        name: "account",
        migrations: [
            .createCollections(version: 1, ["deletions", "consents"]), .createCollections(version: 2, ["scheduled"]),
            .createCollections(version: 3, ["setAside"]),
        ])

    /// user → the deletion asked for and not purged yet, as JSON.
    static let deletions = RecordCollection<AccountDeletionJournal>("deletions")
    /// The same records as stored, for reading one that may not decode.
    static let deletionBytes = RecordCollection<Data>.bytes("deletions")
    /// (user, sequence) → an acceptance or withdrawal.
    static let consents = RecordCollection<ConsentRecord>("consents")
    /// user → a deletion scheduled by an earlier version, which kept it apart from the
    /// journal; read once and turned into a journal.
    static let scheduled = RecordCollection<Scheduled>("scheduled")
    /// (user, sequence) → a journal record that could not be read, kept for diagnosis.
    static let setAside = RecordCollection<SetAsideDeletionRecord>("setAside")

    /// A scheduled deletion as an earlier version kept it.
    struct Scheduled: Codable, Hashable, Sendable {
        var deletion: ScheduledAccountDeletion
        /// Whether a purge went as far as deleting the sign-in account.
        var reachedAccountStep = false
    }

    static func range(of userID: String) throws -> KeyRange {
        try RecordKey(.string(userID)).range
    }

    static func sequenceKey(_ userID: String, _ sequence: UInt64) throws -> String {
        try RecordKey(.string(userID), .uint(sequence)).encoded
    }

    /// The user's next (user, sequence) key in `collection`.
    static func nextKey(_ userID: String, in collection: some CollectionName, of records: RecordReader) throws -> String {
        let last = try records.lastKey(in: collection, range: range(of: userID))
        if let last, case .uint(let previous)? = try RecordKey(encoded: last).components.last {
            return try sequenceKey(userID, previous + 1)
        }
        return try sequenceKey(userID, 0)
    }
}
