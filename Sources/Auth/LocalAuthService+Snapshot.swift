import Foundation
import TrainCore

/// A world's accounts as a snapshot holds them: what a world's export reads from the
/// accounts' store and its import writes there.
package struct AuthWorld: Sendable {
    /// The accounts, ordered by ID.
    package var users: [UserEntity] = []
    /// The password hashes, by the bytes of the user's ID: "é" and "e\u{301}" are two users.
    package var passwords: [[UInt8]: PasswordHash] = [:]
    /// The ID tokens' signing key, if it is kept.
    package var signingKey: Data?
    /// The deletions asked for and not purged, ordered by ID; a purge that has begun
    /// is due at `Date.distantPast`, whatever the clock says.
    package var deletions: [AccountDeletionSchedule] = []

    package init() {}
}

extension LocalAuthService {
    /// Every account in `store`, with its password hash, the signing key and the
    /// deletions asked for: a world's snapshot being exported.
    /// - Throws: `CoreError`.
    package static func exportWorld(from store: RecordStore) throws -> AuthWorld {
        try store.read { records in
            var world = AuthWorld()
            world.users = try records.values(in: AuthRecords.accounts).map(\.user)
            for entry in try records.entries(in: AuthRecords.passwords) { world.passwords[Array(entry.key.utf8)] = entry.value }
            world.signingKey = try records.value(forKey: "signing", in: AuthRecords.tokenKeys)
            world.deletions = try records.entries(in: AuthRecords.scheduledDeletions).map {
                AccountDeletionSchedule(userID: $0.key, purgeAt: $0.value)
            }
            return world
        }
    }

    /// Adds every account of `world` as given, with its password and the signing key, in
    /// one transaction, into a store that holds none of them: a world's snapshot being
    /// imported. A password may be of an account the store holds already (the signed-in
    /// user the stack made). Its deletions are written by ``importDeletions(_:into:)``.
    /// - Throws: `CoreError`, or ``AuthenticationError`` if an ID, email or identity of a user is taken.
    package static func importWorld(_ world: AuthWorld, into store: RecordStore) throws {
        try store.write { records in
            for user in world.users {
                guard try records.data(forKey: user.id, in: AuthRecords.accounts) == nil else {
                    throw AuthenticationError(.emailAlreadyInUse, detail: "An account has the ID \(user.id.debugDescription).")
                }
                try insert(user, in: records)
            }
            for (userID, hash) in world.passwords {
                try records.put(hash, forKey: String(decoding: userID, as: UTF8.self), in: AuthRecords.passwords)
            }
            if let signingKey = world.signingKey { try records.put(signingKey, forKey: "signing", in: AuthRecords.tokenKeys) }
        }
    }

    /// Schedules `deletions` in one transaction: a world's import, once every other
    /// part is written, since the services refuse the writes of a user being deleted. A
    /// deletion only marks the user: their sessions are not ended, so a user signed in
    /// at the import stays signed in, as one who signed in during the grace period does.
    /// - Throws: `CoreError`.
    package static func importDeletions(_ deletions: [AccountDeletionSchedule], into store: RecordStore) throws {
        try store.write { records in
            for deletion in deletions { try records.put(deletion.purgeAt, forKey: deletion.userID, in: AuthRecords.scheduledDeletions) }
        }
    }
}
