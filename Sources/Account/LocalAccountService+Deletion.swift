import Foundation
import TrainAuth
import TrainCore
import TrainSocial
import TrainSubscription
import TrainSync

extension LocalAccountService {
    public func pendingDeletion(of userID: String) throws(AccountError) -> AccountDeletionJournal? {
        try reading { records in try records.value(forKey: userID, in: AccountRecords.deletions) }
    }

    /// Deletions that stopped, of any user: what an app looks at on launch.
    /// - Returns: Their journals, by user ID.
    /// - Throws: ``AccountError/Code/storage``.
    public func pendingDeletions() throws(AccountError) -> [AccountDeletionJournal] {
        try reading { records in try records.values(in: AccountRecords.deletions) }
    }

    public func deleteAccount(of requestedID: String) async throws(AccountError) -> AccountDeletionReport {
        // The signed-in user's own spelling of the ID keys everything from here on.
        let userID = try signedIn(as: requestedID).id
        let claimed = running.withLock { $0.insert(userID).inserted }
        guard claimed else { throw AccountError(.deletionInProgress) }
        defer { _ = running.withLock { $0.remove(userID) } }
        var journal: AccountDeletionJournal
        if var pending = try pendingDeletion(of: userID) {
            // Resuming asks again for what starting asked: a recent sign-in, and the
            // revocation of any Apple authorization given since.
            if !pending.finishedSteps.contains(.authAccount) {
                pending.report.appleTokenRevocation = try await authorize(userID)
                pending.report.warnings.removeAll { $0 == AccountDeletionReport.revocationWarning }
                if case .failed = pending.report.appleTokenRevocation {
                    pending.report.warnings.insert(AccountDeletionReport.revocationWarning, at: 0)
                }
                try save(pending)
            }
            journal = pending
        } else {
            journal = try await start(userID)
        }
        return try await run(&journal)
    }

    /// Finishes the deletions that stopped after the sign-in account was being
    /// deleted, whoever is signed in: their remaining steps need no sign-in. Call it on
    /// launch. Deletions that stopped earlier continue when their user signs in and
    /// calls ``deleteAccount(of:)`` again. A deletion cut short inside that step whose
    /// user is signed in on this launch, or was when the service was created, kept
    /// its account: it too waits for its user to call ``deleteAccount(of:)`` again.
    ///
    /// One deletion that fails does not stop the others; the first failure is thrown
    /// once every deletion has been tried.
    /// - Returns: The reports of the deletions finished.
    /// - Throws: ``AccountError`` — `deletionIncomplete`, `storage`.
    @discardableResult
    public func finishInterruptedDeletions() async throws(AccountError) -> [AccountDeletionReport] {
        var reports: [AccountDeletionReport] = []
        var firstFailure: AccountError?
        for userID in try reading({ records in try records.keys(in: AccountRecords.deletions) }) {
            let claimed = running.withLock { $0.insert(userID).inserted }
            guard claimed else { continue }
            defer { _ = running.withLock { $0.remove(userID) } }
            do {
                if let report = try await finishInterrupted(userID) { reports.append(report) }
            } catch {
                firstFailure = firstFailure ?? error
            }
        }
        if let firstFailure { throw firstFailure }
        return reports
    }

    /// Finishes one user's deletion if it stopped inside or after the sign-in account
    /// step and that account is gone.
    private func finishInterrupted(_ userID: String) async throws(AccountError) -> AccountDeletionReport? {
        guard var journal = try pendingDeletion(of: userID) else { return nil }
        let signedIn = auth.currentUser?.id == userID || restoredUserID == userID
        if !journal.finishedSteps.contains(.authAccount) {
            guard journal.runningStep == .authAccount else { return nil }
            guard !signedIn else {
                // A session outlived the step, so the account did too.
                journal.runningStep = nil
                try save(journal)
                return nil
            }
            // The account went with its session: nobody is signed in as this user any more.
            journal.finishedSteps.append(.authAccount)
        }
        return try await run(&journal)
    }

    /// The first step: checks the recent sign-in and revokes the Apple tokens. Nothing
    /// is written before it succeeds; then the journal starts.
    private func start(_ userID: String) async throws(AccountError) -> AccountDeletionJournal {
        send(userID, .appleRevocation, .started, finished: 0)
        let revocation: AppleTokenRevocation
        do {
            revocation = try await authorize(userID)
        } catch {
            send(userID, .appleRevocation, .failed, finished: 0)
            throw error
        }
        var report = AccountDeletionReport(userID: userID, startedAt: now, appleTokenRevocation: revocation)
        if case .failed = report.appleTokenRevocation { report.warnings.append(AccountDeletionReport.revocationWarning) }
        let journal = AccountDeletionJournal(finishedSteps: [.appleRevocation], report: report)
        try save(journal)
        send(userID, .appleRevocation, .finished, finished: 1)
        return journal
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

    /// Runs the steps not finished, writing the journal after each. Right before the
    /// sign-in account goes, the data steps run once more, without progress events:
    /// the user is signed in until then and may have written something since their
    /// step ran, in this attempt or an earlier one.
    private func run(_ journal: inout AccountDeletionJournal) async throws(AccountError) -> AccountDeletionReport {
        let userID = journal.userID
        var steps = AccountDeletionStep.allCases.filter { !journal.finishedSteps.contains($0) }.map { (step: $0, sweep: false) }
        if let auth = steps.firstIndex(where: { $0.step == .authAccount }) {
            steps.insert(contentsOf: AccountDeletionStep.dataSteps.map { (step: $0, sweep: true) }, at: auth)
        }
        for (step, sweep) in steps {
            if !sweep {
                journal.runningStep = step
                try save(journal)
                send(userID, step, .started, finished: journal.finishedSteps.count)
            }
            do {
                try Task.checkCancellation()
                if step != .localData { try checkStillSignedIn(userID) }
                try await perform(step, of: userID, report: &journal.report)
                if step < .authAccount { try checkStillSignedIn(userID) }
            } catch {
                // Only a step cut short by a crash stays marked as running.
                journal.runningStep = nil
                try? save(journal)
                send(userID, step, .failed, finished: journal.finishedSteps.count)
                throw Self.failure(error, at: step)
            }
            guard !sweep else { continue }
            journal.finishedSteps.append(step)
            journal.runningStep = nil
            if step != .localData { try save(journal) }
            send(userID, step, .finished, finished: journal.finishedSteps.count)
        }
        journal.report.finishedAt = now
        return journal.report
    }

    /// One step; each can run again without harm.
    private func perform(_ step: AccountDeletionStep, of userID: String, report: inout AccountDeletionReport) async throws {
        switch step {
        case .appleRevocation:
            break
        case .socialData:
            report.social.add(try await social.deleteAccountData())
        case .plans:
            report.plans.add(try await plans.deleteAccountData())
        case .subscription:
            // Run again after the unbinding, the count cannot drop to what is no longer bound.
            report.activeSubscriptions = max(report.activeSubscriptions, try await renewingSubscriptions(of: userID))
            if report.activeSubscriptions > 0, !report.warnings.contains(AccountDeletionReport.subscriptionWarning) {
                report.warnings.append(AccountDeletionReport.subscriptionWarning)
            }
            await subscriptions.setAppAccountToken(nil)
        case .biometricSetting:
            try await auth.setBiometricLock(enabled: false, reason: "")
        case .authAccount:
            report.providers = try await auth.deleteAccount().providers
        case .localData:
            report.localRecords = try writing { records in
                let removed = try records.removeAll(in: AccountRecords.consents, range: AccountRecords.range(of: userID))
                try records.removeValue(forKey: userID, in: AccountRecords.scheduled)
                try records.removeValue(forKey: userID, in: AccountRecords.deletions)
                return removed
            }
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

    private func save(_ journal: AccountDeletionJournal) throws(AccountError) {
        try writing { records in try records.put(journal, forKey: journal.userID, in: AccountRecords.deletions) }
    }

    private func send(_ userID: String, _ step: AccountDeletionStep, _ phase: AccountDeletionProgress.Phase, finished: Int) {
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

extension SocialDeletionReport {
    /// Adds the counts of a later attempt: a resumed deletion deletes what was made since.
    mutating func add(_ later: SocialDeletionReport) {
        posts += later.posts
        likes += later.likes
        follows += later.follows
        blocks += later.blocks
        anonymizedComments += later.anonymizedComments
        deletedComments += later.deletedComments
        media += later.media
    }
}

extension SyncDeletionReport {
    /// Adds the counts of a later attempt.
    mutating func add(_ later: SyncDeletionReport) {
        localRecords += later.localRecords
        remoteRecords += later.remoteRecords
    }
}
