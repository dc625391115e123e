import Foundation
import TrainCore

extension LocalAuthService {
    @discardableResult
    public func scheduleAccountDeletion(of userID: String, at date: Date) async throws -> AccountDeletionReceipt.TokenRevocation {
        let current = try requireSession(as: userID)
        try requireRecentLogin(current, before: "deleting your account")
        // A date that has come deletes at once, for good: whatever the clock says later.
        let purgeAt = date <= context.clock.now ? Date.distantPast : date
        try read { records in try Self.checkCanSchedule(userID, at: purgeAt, in: records) }
        // Apple's tokens are revoked now, while the user can authorize it: the purge runs without them.
        let revocation = try await revocation(for: current)
        try requireStillSignedIn(userID, during: "the Apple token was being revoked")
        let now = context.clock.now
        try write { records in
            try Self.checkCanSchedule(userID, at: purgeAt, in: records)
            try records.put(purgeAt, forKey: userID, in: AuthRecords.scheduledDeletions)
            // Every device of the user is signed out at its next read, and told why.
            try AuthRecords.endSessions(of: userID, because: .accountDeleted, at: now, in: records)
        }
        // Signed out here; signing in again before the date offers the restore.
        if users.value?.id == userID { try endSession(because: .accountDeleted) }
        return revocation
    }

    /// Whether `userID` may write to a backend of the world these accounts belong to:
    /// the account exists, is not disabled, and no deletion of it was asked for. A store
    /// that cannot be read answers no, so nothing is written on a guess.
    /// - Parameters:
    ///   - userID: The user, compared byte for byte.
    ///   - store: The accounts.
    /// - Returns: Whether the user's writes are accepted.
    package static func acceptsWrites(of userID: String, in store: RecordStore) -> Bool {
        guard (1...16_384).contains(userID.utf8.count) else { return false }
        let open = try? store.read { records -> Bool in
            guard let account = try records.value(forKey: userID, in: AuthRecords.accounts), !account.isDisabled else { return false }
            return try records.data(forKey: userID, in: AuthRecords.scheduledDeletions) == nil
        }
        return open ?? false
    }

    public func beginAccountPurge(of userID: String) async throws {
        let now = context.clock.now
        try write { records in
            guard try records.data(forKey: userID, in: AuthRecords.accounts) != nil else { return }
            guard try AuthRecords.isDeletionDue(userID, in: records, now: now) else {
                throw AuthenticationError(.operationNotAllowed, detail: "'\(userID)' has no scheduled deletion that is due.")
            }
            // Due from now on whatever the clock says: no sign-in, no restore.
            try records.put(Date.distantPast, forKey: userID, in: AuthRecords.scheduledDeletions)
            try AuthRecords.endSessions(of: userID, because: .accountDeleted, at: now, in: records)
        }
    }

    /// Throws `operationNotAllowed` unless `userID`'s deletion can be set for `date`:
    /// none is scheduled, or the one scheduled is later (a deletion can be brought
    /// forward, never put back).
    private static func checkCanSchedule(_ userID: String, at date: Date, in records: RecordReader) throws {
        if let scheduled = try records.value(forKey: userID, in: AuthRecords.scheduledDeletions), scheduled <= date {
            throw AuthenticationError(.operationNotAllowed, detail: "The account's deletion is already scheduled.")
        }
    }

    public func cancelScheduledDeletion(of userID: String) async throws {
        _ = try requireSession(as: userID)
        try write { records in
            guard let date = try records.value(forKey: userID, in: AuthRecords.scheduledDeletions) else {
                throw AuthenticationError(.operationNotAllowed, detail: "The account has no scheduled deletion to cancel.")
            }
            guard date > context.clock.now else {
                throw AuthenticationError(.operationNotAllowed, detail: "The account's deletion is due; it is being deleted.")
            }
            try records.removeValue(forKey: userID, in: AuthRecords.scheduledDeletions)
        }
    }

    /// The scheduled deletions, and the guests idle past the policy's lifetime, whose
    /// purge is due; a guest still in use is not listed.
    public nonisolated func scheduledDeletions() throws -> [AccountDeletionSchedule] {
        let now = context.clock.now
        return try read { records in
            var schedules = try records.entries(in: AuthRecords.scheduledDeletions).map { AccountDeletionSchedule(userID: $0.key, purgeAt: $0.value) }
            for guest in try records.entries(in: AuthRecords.guests) where now >= guest.value {
                if try records.value(forKey: guest.key, in: AuthRecords.scheduledDeletions) == nil {
                    schedules.append(AccountDeletionSchedule(userID: guest.key, purgeAt: guest.value))
                }
            }
            return schedules.sorted { $0.userID.utf8.lexicographicallyPrecedes($1.userID.utf8) }
        }
    }

    /// The scheduled deletion's date, or an idle guest's once it has come.
    public nonisolated func scheduledDeletion(of userID: String) throws -> Date? {
        let now = context.clock.now
        return try read { records in
            try records.value(forKey: userID, in: AuthRecords.scheduledDeletions) ?? AuthRecords.dueDate(of: userID, in: records, now: now)
        }
    }

    /// The signed-in account if it is `userID`, byte for byte: `userMismatch` when
    /// another user signed in since the caller looked.
    private func requireSession(as userID: String) throws(AuthenticationError) -> AuthRecords.Account {
        let current = try requireSession()
        guard current.user.id.utf8.elementsEqual(userID.utf8) else {
            throw AuthenticationError(.userMismatch, detail: "'\(userID)' is not the signed-in user; nothing was changed.")
        }
        return current
    }

    @discardableResult
    public func purgeScheduledAccount(_ userID: String) async throws -> AccountDeletionReceipt? {
        let now = context.clock.now
        let removed = try write { records -> (account: AuthRecords.Account, revocation: AuthRecords.Revocation?)? in
            // The device running the purge is done with the user: its own session's mark
            // goes, so a relaunch here does not take the deletion for one still to join.
            let ownMark = { () throws in
                if try records.value(forKey: self.sessionKey, in: AuthRecords.session)?.userID == userID {
                    try records.removeValue(forKey: self.sessionKey, in: AuthRecords.session)
                }
            }
            guard try records.value(forKey: userID, in: AuthRecords.accounts) != nil else {
                try ownMark()
                return nil
            }
            guard try AuthRecords.isDeletionDue(userID, in: records, now: now) else {
                throw AuthenticationError(.operationNotAllowed, detail: "'\(userID)' has no scheduled deletion that is due.")
            }
            let revocation = try records.value(forKey: userID, in: AuthRecords.revocations)
            let removed = try AuthRecords.removeAccount(userID, at: now, in: records).map { ($0, revocation) }
            try ownMark()
            return removed
        }
        guard let removed else { return nil }
        forget(userID: userID)
        // The tokens were revoked when the deletion was scheduled, with the user's fresh
        // authorization; an Apple sign-in since gave new ones that nobody can revoke now.
        let outcome: AccountDeletionReceipt.TokenRevocation
        if let kept = removed.revocation {
            outcome = kept.outcome
        } else if removed.account.user.isLinked(.apple) {
            outcome = .failed(
                AuthenticationError(
                    .requiresAppleReauthentication,
                    detail: "Apple was authorized again after the deletion was scheduled; those tokens need the user to revoke them."))
        } else {
            outcome = .notApplicable
        }
        return AccountDeletionReceipt(userID: userID, providers: removed.account.user.providers.map(\.provider), tokenRevocation: outcome)
    }
}
