import Foundation
import TrainAuth
import TrainCore

extension LocalAccountService {
    @discardableResult
    public func scheduleDeletion(of requestedID: String) async throws(AccountError) -> ScheduledAccountDeletion {
        let userID = try signedIn(as: requestedID).id
        let claimed = running.withLock { $0.insert(userID).inserted }
        guard claimed else { throw AccountError(.deletionInProgress) }
        defer { _ = running.withLock { $0.remove(userID) } }
        guard try pendingDeletion(of: userID) == nil else {
            throw AccountError(.deletionInProgress, detail: "A deletion of this account started; finish it with deleteAccount(of:).")
        }
        guard try purgeDate(of: userID) == nil else { throw AccountError(.deletionAlreadyScheduled) }
        let scheduledAt = now
        let purgeAt = scheduledAt.addingTimeInterval(configuration.gracePeriod)
        var warnings: [String] = []
        if (try? await renewingSubscriptions(of: userID)) ?? 0 > 0 { warnings.append(AccountDeletionReport.subscriptionWarning) }
        try checkStillSignedIn(userID)
        // Written first, so that a schedule never exists without this device's record of it;
        // a record the auth service has no schedule for is dropped by the next purge round.
        var record = AccountRecords.Scheduled(
            deletion: ScheduledAccountDeletion(userID: userID, scheduledAt: scheduledAt, purgeAt: purgeAt, appleTokenRevocation: .notApplicable))
        try save(record)
        let revocation: AppleTokenRevocation
        do {
            revocation = AppleTokenRevocation(try await auth.scheduleAccountDeletion(of: userID, at: purgeAt))
        } catch {
            try? writing { records in try records.removeValue(forKey: userID, in: AccountRecords.scheduled) }
            if let error = error as? AuthenticationError, error.code == .operationNotAllowed {
                throw AccountError(.deletionAlreadyScheduled, detail: error.detail)
            }
            throw Self.failure(error, at: .appleRevocation)
        }
        if case .failed = revocation { warnings.insert(AccountDeletionReport.revocationWarning, at: 0) }
        record.deletion = ScheduledAccountDeletion(
            userID: userID, scheduledAt: scheduledAt, purgeAt: purgeAt, appleTokenRevocation: revocation, warnings: warnings)
        try save(record)
        await subscriptions.setAppAccountToken(nil)
        return record.deletion
    }

    public func scheduledDeletion() throws(AccountError) -> ScheduledAccountDeletion? {
        let userID = try signedInUser().id
        guard let purgeAt = try purgeDate(of: userID) else { return nil }
        // This device's record, unless the deletion was scheduled again elsewhere since.
        if let kept = try reading({ records in try records.value(forKey: userID, in: AccountRecords.scheduled) }), kept.deletion.purgeAt == purgeAt {
            return kept.deletion
        }
        return ScheduledAccountDeletion(
            userID: userID, scheduledAt: purgeAt.addingTimeInterval(-configuration.gracePeriod), purgeAt: purgeAt,
            appleTokenRevocation: .notApplicable)
    }

    public func restoreAccount() async throws(AccountError) {
        let userID = try signedInUser().id
        guard try purgeDate(of: userID) != nil else { throw AccountError(.noScheduledDeletion) }
        do {
            try await auth.cancelScheduledDeletion(of: userID)
        } catch let error as AuthenticationError where error.code == .operationNotAllowed {
            throw AccountError(.noScheduledDeletion, detail: error.detail)
        } catch let error as AuthenticationError where [.notSignedIn, .userMismatch, .userDisabled].contains(error.code) {
            throw AccountError(.notSignedIn, detail: error.detail)
        } catch {
            throw AccountError(.storage, detail: "The scheduled deletion could not be cancelled: \(error)")
        }
        try writing { records in try records.removeValue(forKey: userID, in: AccountRecords.scheduled) }
    }

    @discardableResult
    public func purgeDueDeletions() async throws(AccountError) -> [AccountDeletionReport] {
        let round = try await purgeRound()
        if let failure = round.failure { throw failure }
        return round.reports
    }

    /// Runs ``purgeDueDeletions()`` now, and again whenever a grace period ends on the
    /// configuration's clock, until the task is cancelled. A purge that fails, or
    /// waits for a deletion of the same user running here, is tried again within an
    /// hour. Run it in a task for as long as the app runs.
    public func purgeWhenDue() async {
        let grace = configuration.gracePeriod
        while !Task.isCancelled {
            let round = try? await purgeRound()
            let retrySoon = round.map { $0.failure != nil || $0.skipped } ?? true
            let now = now
            // A deletion scheduled from now on is due no sooner than a grace period from now.
            var next = now.addingTimeInterval(retrySoon ? min(grace, 3_600) : grace)
            if let soonest = (try? scheduledDeletions())?.map(\.purgeAt).filter({ $0 > now }).min() { next = min(next, soonest) }
            do { try await configuration.clock.sleep(until: next) } catch { return }
        }
    }

    /// What one round of purges did.
    private struct PurgeRound {
        var reports: [AccountDeletionReport] = []
        var failure: AccountError?
        /// Whether a due purge waited for a deletion of the same user running here.
        var skipped = false
    }

    /// Purges every due user once; one failure does not stop the others.
    private func purgeRound() async throws(AccountError) -> PurgeRound {
        let now = now
        let schedules = try scheduledDeletions()
        let kept = try reading { records in try records.entries(in: AccountRecords.scheduled) }
        func record(of userID: String) -> AccountRecords.Scheduled? { kept.first { Self.same($0.key, userID) }?.value }
        var due: [(userID: String, accountLeft: Bool, record: AccountRecords.Scheduled?)] = []
        for schedule in schedules where now >= schedule.purgeAt {
            due.append((schedule.userID, true, record(of: schedule.userID)))
        }
        for entry in kept where !schedules.contains(where: { Self.same($0.userID, entry.key) }) {
            if entry.value.reachedAccountStep {
                // The sign-in account went and the purge stopped before this device's data.
                due.append((entry.key, false, entry.value))
            } else {
                // Restored, here or on another device: the record is stale.
                try writing { records in try records.removeValue(forKey: entry.key, in: AccountRecords.scheduled) }
            }
        }
        var round = PurgeRound()
        for item in due {
            let claimed = running.withLock { $0.insert(item.userID).inserted }
            guard claimed else {
                round.skipped = true
                continue
            }
            defer { _ = running.withLock { $0.remove(item.userID) } }
            do {
                round.reports.append(try await purge(item.userID, accountLeft: item.accountLeft, record: item.record))
            } catch {
                round.failure = round.failure ?? error
            }
        }
        return round
    }

    /// Deletes everything of a user whose grace period ended, as the deletion does but
    /// with nobody signed in: social data, plans, the sign-in account, then this
    /// device's records. Each step can run again; a purge that stopped runs again.
    private func purge(_ userID: String, accountLeft: Bool, record: AccountRecords.Scheduled?) async throws(AccountError)
        -> AccountDeletionReport
    {
        let scheduled = record?.deletion
        var report = AccountDeletionReport(userID: userID, startedAt: now, appleTokenRevocation: scheduled?.appleTokenRevocation ?? .notApplicable)
        report.warnings = scheduled?.warnings ?? []
        if accountLeft {
            do {
                report.social = try await social.purgeAccountData(of: userID)
            } catch {
                throw Self.failure(error, at: .socialData)
            }
            do {
                report.plans = try await plans.purgeAccountData(of: userID)
            } catch {
                throw Self.failure(error, at: .plans)
            }
            // Marked first: once the account is gone, only this record says the purge reached it.
            var reached =
                record
                ?? AccountRecords.Scheduled(
                    deletion: ScheduledAccountDeletion(userID: userID, scheduledAt: now, purgeAt: now, appleTokenRevocation: .notApplicable))
            reached.reachedAccountStep = true
            try save(reached)
            do {
                if let receipt = try await auth.purgeScheduledAccount(userID) {
                    report.providers = receipt.providers
                    report.appleTokenRevocation = AppleTokenRevocation(receipt.tokenRevocation)
                }
            } catch {
                throw Self.failure(error, at: .authAccount)
            }
        }
        if case .failed = report.appleTokenRevocation, !report.warnings.contains(AccountDeletionReport.revocationWarning) {
            report.warnings.insert(AccountDeletionReport.revocationWarning, at: 0)
        }
        report.localRecords = try writing { records in
            let removed = try records.removeAll(in: AccountRecords.consents, range: AccountRecords.range(of: userID))
            try records.removeValue(forKey: userID, in: AccountRecords.deletions)
            try records.removeValue(forKey: userID, in: AccountRecords.scheduled)
            return removed
        }
        report.finishedAt = now
        return report
    }

    private func save(_ record: AccountRecords.Scheduled) throws(AccountError) {
        try writing { records in try records.put(record, forKey: record.deletion.userID, in: AccountRecords.scheduled) }
    }

    /// The auth service's scheduled deletions.
    func scheduledDeletions() throws(AccountError) -> [AccountDeletionSchedule] {
        do {
            return try auth.scheduledDeletions()
        } catch {
            throw AccountError(.storage, detail: "The scheduled deletions could not be read: \(error)")
        }
    }

    /// When the auth service purges `userID`, if their deletion is scheduled.
    func purgeDate(of userID: String) throws(AccountError) -> Date? {
        do {
            return try auth.scheduledDeletion(of: userID)
        } catch {
            throw AccountError(.storage, detail: "The scheduled deletion could not be read: \(error)")
        }
    }

    /// Whether two user IDs are the same bytes: a canonically equivalent spelling is another user.
    static func same(_ lhs: String, _ rhs: String) -> Bool { lhs.utf8.elementsEqual(rhs.utf8) }
}
