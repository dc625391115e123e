import Foundation
import TrainCore

/// The stored form of TrainAccount's data: one `RecordStore` schema, the same in
/// memory and in a file. Every key starts with the user.
enum AccountRecords {
    static let schema = StoreSchema(
        name: "account", migrations: [.createCollections(version: 1, ["deletions", "consents"]), .createCollections(version: 2, ["scheduled"])])

    /// user → the deletion that started and has not finished.
    static let deletions = RecordCollection<AccountDeletionJournal>("deletions")
    /// (user, sequence) → an acceptance or withdrawal.
    static let consents = RecordCollection<ConsentRecord>("consents")
    /// user → the deletion scheduled on this device, until it is restored or purged.
    static let scheduled = RecordCollection<Scheduled>("scheduled")

    /// A scheduled deletion as this device keeps it.
    struct Scheduled: Codable, Hashable, Sendable {
        var deletion: ScheduledAccountDeletion
        /// Whether a purge went as far as deleting the sign-in account: then the user's
        /// data on this device goes too, though the auth service no longer lists them.
        var reachedAccountStep = false
    }

    static func range(of userID: String) throws -> KeyRange {
        try RecordKey(.string(userID)).range
    }

    static func consentKey(_ userID: String, _ sequence: UInt64) throws -> String {
        try RecordKey(.string(userID), .uint(sequence)).encoded
    }
}
