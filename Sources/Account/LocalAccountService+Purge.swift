import Foundation
import TrainAuth
import TrainCore
import TrainSocial
import TrainSync

/// The purge: the background half of every deletion. A deletion asked for on this
/// device starts it; a service made over a journal left by an earlier launch starts it
/// too. Rounds never overlap: each purges every due user once, writing the journal as
/// each step starts and finishes, and a user whose purge failed is tried again after a
/// backoff of elapsed time on the configuration's clock.
extension LocalAccountService {
    @discardableResult
    public func purgeDueDeletions() async throws(AccountError) -> [AccountDeletionReport] {
        // This call runs a round itself; the background loop is only made sure of.
        startPurging(waking: false)
        let round = await rounds.run { [self] in await purgeRound(honouringBackoff: false) }
        // What finished since the last call, in this round or in the background.
        let reports = unreported.withLock { reports in
            defer { reports = [] }
            return reports
        }
        if let failure = round.failure { throw failure }
        return reports
    }

    public func deletionCompletion(of userID: String) async throws(AccountError) -> AccountDeletionReport {
        // Subscribed before looking, so a purge that finishes in between is not missed.
        let reports = finished.subscribe(replayingCurrent: false)
        if let report = finishedReports.withLock({ $0[UserKey(userID)] }) { return report }
        let scheduled = try purgeDate(of: userID) != nil
        let journaled = try journal(of: userID).journal != nil
        guard scheduled || journaled else {
            // A purge that ended between the looks above kept its report before it let the
            // user go: a user let go has theirs kept by now, and one still held has it once
            // the rounds under way are over.
            let (reports, key) = (finishedReports, UserKey(userID))
            let held = running.withLock { $0.contains(key) }
            if let report = reports.withLock({ $0[key] }) { return report }
            if held, let report = await rounds.between({ reports.withLock { $0[key] } }) { return report }
            throw AccountError(.noScheduledDeletion, detail: "No deletion of '\(userID)' is waiting or running on this device.")
        }
        startPurging()
        for await report in reports where report.map({ Self.same($0.userID, userID) }) ?? false {
            if let report { return report }
        }
        if let report = finishedReports.withLock({ $0[UserKey(userID)] }) { return report }
        throw AccountError(.deletionIncomplete, detail: "Stopped waiting for the purge of '\(userID)': the task was cancelled. The purge goes on.")
    }

    /// Starts the background purge if it is not running, and wakes it.
    /// - Parameter waking: Whether a running loop looks again now.
    func startPurging(waking: Bool = true) {
        purger.withLock { purger in
            guard purger == nil else { return }
            let wakes = purgeWakes
            let clock = context.clock
            // The task reaches the service through a weak reference it loads for each
            // round only: passed as an argument, the service would live as long as the loop.
            let service: @Sendable () -> LocalAccountService? = { [weak self] in self }
            purger = Task { await Self.purgeInBackground(service, wakes: wakes, clock: clock) }
        }
        if waking { purgeWakes.send(purgeWakes.value &+ 1) }
    }

    /// Runs rounds for as long as the service lives: after each, it sleeps until the
    /// next grace period ends or the next retry is due, or until a deletion is asked for.
    /// The service is held only while a round runs.
    private static func purgeInBackground(
        _ service: @escaping @Sendable () -> LocalAccountService?, wakes: Broadcast<UInt64>, clock: any DateClock
    ) async {
        while !Task.isCancelled {
            let woken = wakes.subscribe(replayingCurrent: false)
            guard let round = await round(of: service()) else { return }
            let (nextDate, nextRetry) = (round.nextDate, round.nextRetry)
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await _ in woken { return }
                }
                if let nextDate { group.addTask { try? await clock.sleep(until: nextDate) } }
                if let nextRetry { group.addTask { try? await clock.sleep(untilElapsed: nextRetry) } }
                await group.next()
                group.cancelAll()
            }
        }
    }

    /// A background round of `service`, held for that long; nil once it is gone.
    private static func round(of service: LocalAccountService?) async -> PurgeRound? {
        guard let service else { return nil }
        return await service.rounds.run { await service.purgeRound(honouringBackoff: true) }
    }

    /// How often a device that joined a deletion asked for elsewhere looks whether the
    /// account is gone, in elapsed time.
    static let joinedPollInterval = Duration.seconds(60)

    /// What one round of purges did, and when the next is due.
    struct PurgeRound: Sendable {
        var failure: AccountError?
        /// The soonest grace period still running.
        var nextDate: Date?
        /// The soonest retry, in elapsed time.
        var nextRetry: Duration?
    }

    /// A user whose purge failed: how often, and when it may run again.
    struct PurgeRetry: Sendable {
        var failures: Int
        var notBefore: Duration

        /// 30 seconds after the first failure, doubling up to an hour.
        static func after(_ failures: Int, at elapsed: Duration) -> PurgeRetry {
            PurgeRetry(failures: failures, notBefore: elapsed + .seconds(min(30 * (1 << min(failures - 1, 7)), 3_600)))
        }
    }

    /// Purges every due user once; one failure does not stop the others. The due users
    /// are those the auth service has a due schedule for, those whose purge began here
    /// (whatever the clock says now), and those with a journal whose sign-in account is
    /// gone (only this device's data is left). A journal with none of these is stale —
    /// restored, here or elsewhere, or cut short before the hide — and is dropped.
    private func purgeRound(honouringBackoff: Bool) async -> PurgeRound {
        var round = PurgeRound()
        var due: [DuePurge] = []
        do {
            if !adoptedEarlierSchedules.withLock({ $0 }) {
                try adoptEarlierSchedules()
                adoptedEarlierSchedules.withLock { $0 = true }
            }
            let now = now
            let schedules = try scheduledDeletions()
            let journals = try pendingDeletions()
            for schedule in schedules {
                let journal = journals.first { Self.same($0.userID, schedule.userID) }
                // A deletion this device joined is the purge of the device that asked,
                // which deletes the shared data; this device purges its own once the
                // account is gone, looking again each minute — or now, when asked.
                if let journal, journal.joinedFrom != nil, !journal.hasPurgeBegun, honouringBackoff {
                    let poll = context.clock.elapsed + Self.joinedPollInterval
                    round.nextRetry = min(round.nextRetry ?? poll, poll)
                    if now < schedule.purgeAt { round.nextDate = min(round.nextDate ?? schedule.purgeAt, schedule.purgeAt) }
                    continue
                }
                // A purge that began runs to its end, whatever the clock says now.
                if now >= schedule.purgeAt || journal?.hasPurgeBegun == true {
                    let keptAside = journal == nil ? try hasUnreportedSetAside(schedule.userID) : false
                    due.append(DuePurge(userID: schedule.userID, journal: journal, purgeAt: schedule.purgeAt, setAside: keptAside))
                } else {
                    round.nextDate = min(round.nextDate ?? schedule.purgeAt, schedule.purgeAt)
                }
            }
            for journal in journals where !schedules.contains(where: { Self.same($0.userID, journal.userID) }) {
                // The account went — at this device's own step, or at another device's
                // purge: what this device holds of the user goes too.
                var gone = journal.finishedSteps.contains(.authAccount) || journal.runningStep == .authAccount
                if !gone { gone = try !accountExists(journal.userID) }
                if gone {
                    due.append(DuePurge(userID: journal.userID, journal: journal, purgeAt: journal.deletion.purgeAt, setAside: false))
                } else {
                    try dropIfStale(journal)
                }
            }
        } catch {
            round.failure = error
            round.nextRetry = context.clock.elapsed + .seconds(30)
            return round
        }
        for item in due {
            let elapsed = context.clock.elapsed
            if honouringBackoff, let retry = retries.withLock({ $0[UserKey(item.userID)] }), retry.notBefore > elapsed {
                round.nextRetry = min(round.nextRetry ?? retry.notBefore, retry.notBefore)
                continue
            }
            let claimed = claim(item.userID)
            guard claimed else { continue }
            defer { release(item.userID) }
            do {
                let report = try await purge(item)
                retries.withLock { _ = $0.removeValue(forKey: UserKey(item.userID)) }
                finishedReports.withLock { $0[UserKey(item.userID)] = report }
                unreported.withLock { $0.append(report) }
                finished.send(report)
            } catch {
                let retry = retries.withLock { retries in
                    let retry = PurgeRetry.after((retries[UserKey(item.userID)]?.failures ?? 0) + 1, at: elapsed)
                    retries[UserKey(item.userID)] = retry
                    return retry
                }
                round.nextRetry = min(round.nextRetry ?? retry.notBefore, retry.notBefore)
                round.failure = round.failure ?? error
            }
        }
        return round
    }

    /// Removes a journal whose user has no schedule. The list of schedules may have
    /// been read before a deletion being asked for now wrote its schedule, so the user
    /// is claimed — a request holds them until its schedule is written — and their
    /// schedule read again first.
    private func dropIfStale(_ journal: AccountDeletionJournal) throws(AccountError) {
        let claimed = claim(journal.userID)
        guard claimed else { return }
        defer { release(journal.userID) }
        guard try purgeDate(of: journal.userID) == nil, try accountExists(journal.userID) else { return }
        try writing { records in
            if try records.value(forKey: journal.userID, in: AccountRecords.deletions) == journal {
                try records.removeValue(forKey: journal.userID, in: AccountRecords.deletions)
            }
        }
    }

    /// A user whose purge is due: their journal, or when the auth service purges them
    /// and whether a record of theirs was set aside, to start a journal from.
    struct DuePurge {
        var userID: String
        var journal: AccountDeletionJournal?
        var purgeAt: Date
        var setAside: Bool
    }

    /// Runs the steps of a due purge not finished yet, writing the journal as each
    /// starts and finishes. Without a journal — scheduled on another device, or its
    /// record set aside — the purge starts from its first step.
    private func purge(_ due: DuePurge) async throws(AccountError) -> AccountDeletionReport {
        let userID = due.userID
        var journal = due.journal ?? freshJournal(for: due)
        var sealed = false
        for step in AccountDeletionStep.allCases where !journal.finishedSteps.contains(step) {
            journal.runningStep = step
            try save(journal)
            send(userID, step, .started, finished: journal.finishedSteps.count)
            do {
                // Before anything is deleted, the account is kept due for good: no clock
                // set back brings back a sign-in or a restore of a half-deleted account.
                if step != .appleRevocation, !sealed {
                    try await auth.beginAccountPurge(of: userID)
                    sealed = true
                }
                try await perform(step, of: userID, report: &journal.report)
            } catch {
                // Only a step cut short by a crash stays marked as running.
                journal.runningStep = nil
                try? save(journal)
                send(userID, step, .failed, finished: journal.finishedSteps.count)
                throw Self.failure(error, at: step)
            }
            journal.finishedSteps.append(step)
            journal.runningStep = nil
            // The last step deleted the journal with the user's other records.
            if step != .localData { try save(journal) }
            send(userID, step, .finished, finished: journal.finishedSteps.count)
        }
        journal.report.finishedAt = now
        return journal.report
    }

    /// The journal of a purge this device has no readable record of: the Apple tokens
    /// were revoked where the deletion was asked for.
    private func freshJournal(for due: DuePurge) -> AccountDeletionJournal {
        let now = now
        // A deletion due at once is kept as the distant past; its date here is unknown.
        let purgeAt = due.purgeAt == .distantPast ? now : due.purgeAt
        let deletion = ScheduledAccountDeletion(userID: due.userID, scheduledAt: purgeAt, purgeAt: purgeAt, appleTokenRevocation: .notApplicable)
        var report = AccountDeletionReport(userID: due.userID, startedAt: now, appleTokenRevocation: .notApplicable)
        if due.setAside { report.warnings.append(AccountDeletionReport.journalSetAsideWarning) }
        return AccountDeletionJournal(deletion: deletion, finishedSteps: [.appleRevocation], report: report)
    }

    /// One step of the purge; each can run again without harm.
    private func perform(_ step: AccountDeletionStep, of userID: String, report: inout AccountDeletionReport) async throws {
        switch step {
        case .appleRevocation:
            break
        case .socialData:
            report.social.add(try await social.purgeAccountData(of: userID))
        case .plans:
            report.plans.add(try await plans.purgeAccountData(of: userID))
        case .subscription:
            report.activeSubscriptions = max(report.activeSubscriptions, try await renewingSubscriptions(of: userID))
            if report.activeSubscriptions > 0, !report.warnings.contains(AccountDeletionReport.subscriptionWarning) {
                report.warnings.append(AccountDeletionReport.subscriptionWarning)
            }
        case .authAccount:
            if let receipt = try await auth.purgeScheduledAccount(userID) {
                report.providers = receipt.providers
                if report.appleTokenRevocation == .notApplicable { report.appleTokenRevocation = AppleTokenRevocation(receipt.tokenRevocation) }
            }
            if case .failed = report.appleTokenRevocation, !report.warnings.contains(AccountDeletionReport.revocationWarning) {
                report.warnings.insert(AccountDeletionReport.revocationWarning, at: 0)
            }
        case .localData:
            let now = now
            let saysSetAside = report.warnings.contains(AccountDeletionReport.journalSetAsideWarning)
            // The paywalls' exposures first: the journal goes with the consents, and a
            // purge that stops in between runs this step again.
            // Counted as each part is removed: an attempt that fails after the exposures
            // keeps their count in the journal for the attempt that finishes.
            report.localRecords += try await paywalls?.removeExposures(of: userID) ?? 0
            report.localRecords += try writing { records in
                let removed = try records.removeAll(in: AccountRecords.consents, range: AccountRecords.range(of: userID))
                try records.removeValue(forKey: userID, in: AccountRecords.deletions)
                if saysSetAside { try Self.markSetAsideReported(of: userID, at: now, in: records) }
                return removed
            }
        }
    }
}

/// Runs one purge round at a time, in the order asked.
actor PurgeRounds {
    private var last: Task<LocalAccountService.PurgeRound, Never>?

    /// Runs `round` once every round asked before has finished.
    /// - Parameter round: The round.
    /// - Returns: What it did.
    func run(_ round: @escaping @Sendable () async -> LocalAccountService.PurgeRound) async -> LocalAccountService.PurgeRound {
        let previous = last
        let next = Task {
            _ = await previous?.value
            return await round()
        }
        last = next
        return await next.value
    }

    /// Runs `body` between rounds: once every round asked before has finished, and
    /// before any round asked after starts. No round holds a user then.
    /// - Parameter body: What to run.
    /// - Returns: What it returned.
    func between<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
        let previous = last
        let outcome = Locked<Result?>(nil)
        let next = Task {
            _ = await previous?.value
            outcome.withLock { $0 = body() }
            return LocalAccountService.PurgeRound()
        }
        last = next
        _ = await next.value
        // The task ran `body` before it returned: the value is there.
        return outcome.withLock { $0 } ?? body()
    }
}
