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
        guard try scheduledDates()[userID] == nil else { throw AccountError(.deletionAlreadyScheduled) }
        let scheduledAt = now
        let purgeAt = scheduledAt.addingTimeInterval(configuration.deletionGracePeriod.timeInterval)
        var warnings: [String] = []
        if (try? await renewingSubscriptions()) ?? 0 > 0 { warnings.append(AccountDeletionReport.subscriptionWarning) }
        try checkStillSignedIn(userID)
        let revocation: AppleTokenRevocation
        do {
            revocation = AppleTokenRevocation(try await auth.scheduleAccountDeletion(at: purgeAt))
        } catch let error as AuthError where error.code == .operationNotAllowed {
            throw AccountError(.deletionAlreadyScheduled, detail: error.detail)
        } catch {
            throw Self.failure(error, at: .appleRevocation)
        }
        if case .failed = revocation { warnings.insert(AccountDeletionReport.revocationWarning, at: 0) }
        let scheduled = ScheduledAccountDeletion(
            userID: userID, scheduledAt: scheduledAt, purgeAt: purgeAt, appleTokenRevocation: revocation, warnings: warnings)
        try writing { records in try records.put(scheduled, forKey: userID, in: AccountRecords.scheduled) }
        await subscriptions.setAppAccountToken(nil)
        return scheduled
    }

    public func scheduledDeletion() throws(AccountError) -> ScheduledAccountDeletion? {
        let userID = try signedInUser().id
        guard let purgeAt = try scheduledDates()[userID] else { return nil }
        let kept = try reading { records in try records.value(forKey: userID, in: AccountRecords.scheduled) }
        return kept
            ?? ScheduledAccountDeletion(
                userID: userID, scheduledAt: purgeAt.addingTimeInterval(-configuration.deletionGracePeriod.timeInterval), purgeAt: purgeAt,
                appleTokenRevocation: .notApplicable)
    }

    public func restoreAccount() async throws(AccountError) {
        let userID = try signedInUser().id
        guard try scheduledDates()[userID] != nil else { throw AccountError(.noScheduledDeletion) }
        do {
            try await auth.cancelScheduledDeletion()
        } catch let error as AuthError where error.code == .operationNotAllowed {
            throw AccountError(.noScheduledDeletion, detail: error.detail)
        } catch let error as AuthError where error.code == .notSignedIn || error.code == .userDisabled {
            throw AccountError(.notSignedIn, detail: error.detail)
        } catch {
            throw AccountError(.storage, detail: "The scheduled deletion could not be cancelled: \(error)")
        }
        try writing { records in try records.removeValue(forKey: userID, in: AccountRecords.scheduled) }
    }

    @discardableResult
    public func purgeDueDeletions() async throws(AccountError) -> [AccountDeletionReport] {
        let now = now
        let dates = try scheduledDates()
        let kept = try reading { records in try records.entries(in: AccountRecords.scheduled) }
        var due = Set(dates.filter { now >= $0.value }.keys)
        var records: [String: ScheduledAccountDeletion] = [:]
        for entry in kept {
            records[entry.key] = entry.value
            guard dates[entry.key] == nil else { continue }
            if entry.value.purgeAt <= now {
                // The sign-in account went and the purge stopped before this device's data.
                due.insert(entry.key)
            } else {
                // Restored on another device.
                try writing { records in try records.removeValue(forKey: entry.key, in: AccountRecords.scheduled) }
            }
        }
        var reports: [AccountDeletionReport] = []
        var firstFailure: AccountError?
        for userID in due.sorted() {
            let claimed = running.withLock { $0.insert(userID).inserted }
            guard claimed else { continue }
            defer { _ = running.withLock { $0.remove(userID) } }
            do {
                reports.append(try await purge(userID, accountLeft: dates[userID] != nil, scheduled: records[userID]))
            } catch {
                firstFailure = firstFailure ?? error
            }
        }
        if let firstFailure { throw firstFailure }
        return reports
    }

    /// Runs ``purgeDueDeletions()`` now, and again whenever a grace period ends on the
    /// configuration's clock, until the task is cancelled. A purge that fails is tried
    /// again an hour later. Run it in a task for as long as the app runs.
    public func purgeWhenDue() async {
        let grace = configuration.deletionGracePeriod.timeInterval
        while !Task.isCancelled {
            let failed = (try? await purgeDueDeletions()) == nil
            let now = now
            // A deletion scheduled from now on is due no sooner than a grace period from now.
            var next = now.addingTimeInterval(failed ? min(grace, 3_600) : grace)
            if let dates = try? scheduledDates(), let soonest = dates.values.filter({ $0 > now }).min() { next = min(next, soonest) }
            do { try await configuration.clock.sleep(until: next) } catch { return }
        }
    }

    /// Deletes everything of a user whose grace period ended, as the deletion does but
    /// with nobody signed in: social data, plans, the sign-in account, then this
    /// device's records. Each step can run again; a purge that stopped runs again.
    private func purge(_ userID: String, accountLeft: Bool, scheduled: ScheduledAccountDeletion?) async throws(AccountError)
        -> AccountDeletionReport
    {
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

    /// The auth service's scheduled deletions, by user.
    func scheduledDates() throws(AccountError) -> [String: Date] {
        do {
            return try auth.scheduledDeletions()
        } catch {
            throw AccountError(.storage, detail: "The scheduled deletions could not be read: \(error)")
        }
    }
}
