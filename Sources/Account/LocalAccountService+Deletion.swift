import Foundation
import TrainAuth
import TrainCore
import TrainSocial
import TrainSubscription
import TrainSync

/// Asking for a deletion: at once or with a grace period, one mechanism. The call
/// checks the recent sign-in, revokes the Apple tokens, writes the journal, then
/// signs the user out and hides them from every reader in one step — the auth
/// service's schedule, which every other service reads — and returns. The purge runs
/// in the background (LocalAccountService+Purge.swift).
extension LocalAccountService {
    @discardableResult
    public func deleteAccount(of requestedID: String) async throws(AccountError) -> ScheduledAccountDeletion {
        try await requestDeletion(of: requestedID, gracePeriod: nil)
    }

    @discardableResult
    public func scheduleDeletion(of requestedID: String) async throws(AccountError) -> ScheduledAccountDeletion {
        try await requestDeletion(of: requestedID, gracePeriod: configuration.gracePeriod)
    }

    public func scheduledDeletion() throws(AccountError) -> ScheduledAccountDeletion? {
        let userID = try signedInUser().id
        guard let purgeAt = try purgeDate(of: userID) else { return nil }
        // This device's journal, unless the deletion was scheduled again elsewhere since.
        if let kept = try journal(of: userID).journal, kept.deletion.purgeAt == purgeAt {
            return kept.deletion
        }
        return ScheduledAccountDeletion(
            userID: userID, scheduledAt: purgeAt.addingTimeInterval(-configuration.gracePeriod), purgeAt: purgeAt,
            appleTokenRevocation: .notApplicable)
    }

    public func restoreAccount() async throws(AccountError) {
        let userID = try signedInUser().id
        var claimed = claim(userID)
        if !claimed {
            // A background round holds the user for a moment when it checks their journal
            // (as at a sign-in): the restore claims them between rounds, as a deletion
            // request does, when no round holds anyone.
            claimed = await rounds.between { [self] in claim(userID) }
        }
        guard claimed else { throw AccountError(.deletionInProgress) }
        defer { release(userID) }
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
        try writing { records in try records.removeValue(forKey: userID, in: AccountRecords.deletions) }
    }

    /// Checks, revokes, journals and hides; `gracePeriod` nil deletes at once.
    private func requestDeletion(of requestedID: String, gracePeriod: TimeInterval?) async throws(AccountError) -> ScheduledAccountDeletion {
        let userID = try signedIn(as: requestedID).id
        var claimed = claim(userID)
        if !claimed {
            // A background round holds the user for a moment when it checks a journal a
            // crash left: the request claims them between rounds, when no round holds
            // anyone, so only another request or a restore stops it.
            claimed = await rounds.between { [self] in claim(userID) }
        }
        guard claimed else { throw AccountError(.deletionInProgress) }
        let deletion: ScheduledAccountDeletion
        do {
            defer { release(userID) }
            deletion = try await requestClaimed(userID, gracePeriod: gracePeriod)
        }
        // Woken once the user is released: a round that found them held would skip them.
        startPurging()
        return deletion
    }

    /// The request, with the user claimed: a due deletion is left to the purge, one in
    /// its grace period brought forward, otherwise the user is revoked, journaled and hidden.
    private func requestClaimed(_ userID: String, gracePeriod: TimeInterval?) async throws(AccountError) -> ScheduledAccountDeletion {
        if let purgeAt = try purgeDate(of: userID) {
            // A session that outlived the hide (cut short by a crash) of a deletion that is due.
            if purgeAt <= now {
                return try journal(of: userID).journal?.deletion
                    ?? ScheduledAccountDeletion(userID: userID, scheduledAt: now, purgeAt: now, appleTokenRevocation: .notApplicable)
            }
            // In its grace period: it can be brought forward to now, not scheduled again.
            if gracePeriod != nil { throw AccountError(.deletionAlreadyScheduled) }
        }
        let (previous, setAside) = try journal(of: userID)
        // A completion awaited from now on is this deletion's, not an earlier one's.
        finishedReports.withLock { _ = $0.removeValue(forKey: UserKey(userID)) }

        send(userID, .appleRevocation, .started, finished: 0)
        let deletion: ScheduledAccountDeletion
        do {
            deletion = try await hide(userID, gracePeriod: gracePeriod, previous: previous, setAside: setAside)
        } catch {
            send(userID, .appleRevocation, .failed, finished: 0)
            throw error
        }
        send(userID, .appleRevocation, .finished, finished: 1)
        return deletion
    }

    /// The part of a request that changes anything: nothing is written before the
    /// recent sign-in and the revocation succeed, and a failure after the journal is
    /// written puts the journal back as it was.
    private func hide(_ userID: String, gracePeriod: TimeInterval?, previous: AccountDeletionJournal?, setAside: Bool) async throws(AccountError)
        -> ScheduledAccountDeletion
    {
        let revocation = try await authorize(userID)
        let scheduledAt = now
        var warnings: [String] = []
        if case .failed = revocation { warnings.append(AccountDeletionReport.revocationWarning) }
        if (try? await renewingSubscriptions(of: userID)) ?? 0 > 0 { warnings.append(AccountDeletionReport.subscriptionWarning) }
        try checkStillSignedIn(userID)
        let deletion = ScheduledAccountDeletion(
            userID: userID, scheduledAt: scheduledAt, purgeAt: scheduledAt.addingTimeInterval(gracePeriod ?? 0), appleTokenRevocation: revocation,
            warnings: warnings)
        var report = AccountDeletionReport(userID: userID, startedAt: scheduledAt, appleTokenRevocation: revocation)
        report.warnings = warnings + (setAside ? [AccountDeletionReport.journalSetAsideWarning] : [])
        // Written first: a user hidden here always has this device's journal.
        try save(AccountDeletionJournal(deletion: deletion, finishedSteps: [.appleRevocation], report: report))
        do {
            _ = try await auth.scheduleAccountDeletion(of: userID, at: deletion.purgeAt)
        } catch {
            try? writing { records in
                if let previous {
                    try records.put(previous, forKey: userID, in: AccountRecords.deletions)
                } else {
                    try records.removeValue(forKey: userID, in: AccountRecords.deletions)
                }
            }
            if let error = error as? AuthenticationError, error.code == .operationNotAllowed {
                throw AccountError(.deletionAlreadyScheduled, detail: error.detail)
            }
            throw Self.failure(error, at: .appleRevocation)
        }
        // Signed out now: the subscription service, following the auth service, no longer
        // counts their purchases on this device as theirs.
        return deletion
    }

    /// Checks the recent sign-in and revokes the Apple tokens (or finds them revoked).
    private func authorize(_ userID: String) async throws(AccountError) -> AppleTokenRevocation {
        do {
            let revocation = try await auth.revokeAppleToken()
            try checkStillSignedIn(userID)
            return AppleTokenRevocation(revocation)
        } catch {
            throw Self.failure(error, at: .appleRevocation)
        }
    }

    /// How many of the user's App Store subscriptions still renew: they stay active
    /// until the user cancels them in Settings, whatever happens to the account.
    func renewingSubscriptions(of userID: String) async throws -> Int {
        let token = try Self.token(for: userID)
        return try await subscriptions.subscriptionStatuses().count { status in
            status.transaction.unsafePayloadValue.appAccountToken == token && status.state != .expired && status.state != .revoked
                && status.renewalInfo.unsafePayloadValue.willAutoRenew
        }
    }

    /// The auth service's scheduled deletions: the users hidden from every reader.
    func scheduledDeletions() throws(AccountError) -> [AccountDeletionSchedule] {
        do {
            return try auth.scheduledDeletions()
        } catch {
            throw AccountError(.storage, detail: "The scheduled deletions could not be read: \(error)")
        }
    }

    /// Journals the deletion that ended this device's session, asked for on another
    /// device or before a relaunch, unless this device journals or purged it already: the
    /// background purge then removes what this device holds of the user — its plans and
    /// their queued uploads, its consents — once the account is gone (the device that
    /// asked purged the shared data), looking each minute, or when
    /// ``purgeDueDeletions()`` is called once the deletion is due; it forgets the journal
    /// if the account was restored instead.
    func joinDeletionThatEndedTheSession() {
        guard let end = auth.lastSessionEnd, end.reason == .accountDeleted, !(auth.currentUser.map { Self.same($0.id, end.userID) } ?? false)
        else { return }
        let userID = end.userID
        guard finishedReports.withLock({ $0[UserKey(userID)] == nil }) else { return }
        let claimed = claim(userID)
        guard claimed else { return }
        defer { release(userID) }
        let now = now
        // A deletion due already, or whose account is gone, is purged at once.
        let purgeAt = ((try? purgeDate(of: userID)) ?? nil).map { $0 <= now ? end.date : $0 } ?? end.date
        let deletion = ScheduledAccountDeletion(userID: userID, scheduledAt: end.date, purgeAt: purgeAt, appleTokenRevocation: .notApplicable)
        let journal = AccountDeletionJournal(
            deletion: deletion, finishedSteps: [.appleRevocation],
            report: AccountDeletionReport(userID: userID, startedAt: now, appleTokenRevocation: .notApplicable), joinedFrom: end)
        let added = try? writing { records -> Bool in
            guard try records.data(forKey: userID, in: AccountRecords.deletionBytes) == nil else { return false }
            try records.put(journal, forKey: userID, in: AccountRecords.deletions)
            return true
        }
        if added == true { startPurging() }
    }

    /// Whether `userID` still has an account with the auth service.
    func accountExists(_ userID: String) throws(AccountError) -> Bool {
        do {
            return try auth.accountExists(userID)
        } catch {
            throw AccountError(.storage, detail: "Whether the account exists could not be read: \(error)")
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

    func send(_ userID: String, _ step: AccountDeletionStep, _ phase: AccountDeletionProgress.Phase, finished: Int) {
        progress.send(AccountDeletionProgress(userID: userID, step: step, phase: phase, finishedSteps: finished))
    }

    /// The error a step's failure is reported as: the sign-in codes as they are, and
    /// anything else as `deletionIncomplete` at the step.
    static func failure(_ error: any Error, at step: AccountDeletionStep) -> AccountError {
        if let error = error as? AccountError {
            return AccountError(error.code, step: step, detail: error.detail, message: error.message)
        }
        if let error = error as? AuthenticationError {
            switch error.code {
            case .requiresRecentLogin: return AccountError(.requiresRecentLogin, step: step, detail: error.detail, message: error.errorDescription)
            case .requiresAppleReauthentication: return AccountError(.requiresAppleReauthentication, step: step, detail: error.detail)
            case .notSignedIn, .userMismatch: return AccountError(.notSignedIn, step: step, detail: error.detail)
            default: break
            }
        }
        if error is CancellationError {
            return AccountError(.deletionIncomplete, step: step, detail: "The deletion was cancelled at \(step).")
        }
        return AccountError(.deletionIncomplete, step: step, detail: "\(step) failed: \(error)")
    }

    /// Whether two user IDs are the same bytes: a canonically equivalent spelling is another user.
    static func same(_ lhs: String, _ rhs: String) -> Bool { lhs.utf8.elementsEqual(rhs.utf8) }

    /// Claims `userID` for a request, restore or purge in this instance.
    /// - Returns: False if one is running already.
    func claim(_ userID: String) -> Bool {
        running.withLock { $0.insert(UserKey(userID)).inserted }
    }

    /// Ends a claim of ``claim(_:)``.
    func release(_ userID: String) {
        _ = running.withLock { $0.remove(UserKey(userID)) }
    }
}

/// A user ID as its bytes, to key what this instance keeps per user: a canonically
/// equivalent spelling is another user.
struct UserKey: Hashable, Sendable {
    let bytes: [UInt8]

    init(_ userID: String) { bytes = Array(userID.utf8) }
}

extension AccountDeletionStep: Comparable {
    /// Steps compare by the order they run in.
    /// - Parameters:
    ///   - lhs: A step.
    ///   - rhs: Another step.
    /// - Returns: Whether `lhs` runs first.
    public static func < (lhs: AccountDeletionStep, rhs: AccountDeletionStep) -> Bool {
        (allCases.firstIndex(of: lhs) ?? 0) < (allCases.firstIndex(of: rhs) ?? 0)
    }
}
