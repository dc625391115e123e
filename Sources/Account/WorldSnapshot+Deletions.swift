import Foundation
import TrainAuth
import TrainCore

extension WorldSnapshot {
    /// An account deletion asked for and not purged yet. The user is hidden from every
    /// other user and their writes are refused. Until `purgeAt` they can sign in and
    /// restore the account (``AccountDeletion/restoreAccount()``); from `purgeAt` the
    /// stack purges their data in the background, as a relaunch continues a purge, and
    /// ``AccountDeletion/deletionCompletion(of:)`` awaits it. Left out, `purgeAt` is a
    /// purge that has begun: it runs to its end whatever the clock says, and nobody can
    /// sign in as the user meanwhile.
    public struct Deletion: Codable, Hashable, Sendable {
        /// The user.
        public var user: String
        /// When the grace period ends; nil for a purge that has begun.
        public var purgeAt: Date?

        /// Creates a deletion.
        /// - Parameters:
        ///   - user: The user.
        ///   - purgeAt: When the grace period ends; nil for a purge that has begun.
        public init(user: String, purgeAt: Date? = nil) {
            self.user = user
            self.purgeAt = purgeAt
        }
    }

    /// The deletions: one a user at most, of a user the snapshot holds; the user signed
    /// in at the import may have one in its grace period only.
    func resolveDeletions(users: Set<UserKey>, now: Date, signedIn: String?, into resolved: inout Resolved) throws(WorldSnapshotError) {
        var deleted: Set<UserKey> = []
        for (index, deletion) in deletions.enumerated() {
            var path: String { "deletions[\(index)]" }
            try Self.reference(deletion.user, in: users, path: "\(path).user")
            guard deleted.insert(UserKey(deletion.user)).inserted else {
                throw WorldSnapshotError(.duplicateID, path: "\(path).user", detail: "A user's deletion is listed once.")
            }
            if let signedIn, signedIn.utf8.elementsEqual(deletion.user.utf8), (deletion.purgeAt ?? .distantPast) <= now {
                throw WorldSnapshotError(
                    .invalidValue, path: "\(path).purgeAt",
                    detail: "The user signed in at the import is being purged; only a deletion in its grace period lets them sign in.")
            }
            resolved.auth.deletions.append(AccountDeletionSchedule(userID: deletion.user, purgeAt: deletion.purgeAt ?? .distantPast))
        }
    }
}
