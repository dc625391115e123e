import Foundation
import TrainAccount
import TrainAuth
import TrainCore
import TrainSocial
import TrainSubscription

/// An `AccountService` for tests of settings and account screens: it records each
/// call, returns scripted results, and otherwise behaves plausibly for its one user —
/// a deletion reports every step's progress and ends with an empty report, an export
/// holds the user and their consents, consents follow the policy versions given.
///
/// ```swift
/// let account = FakeAccountService(userID: "ada")
/// account.script(.deleteAccount, .throwing(AccountError(.requiresRecentLogin)))
/// await model.deleteTapped()
/// #expect(model.needsSignIn)
/// ```
public final class FakeAccountService: AccountService, ScriptableFake {
    /// A recorded call.
    public enum Call: Hashable, Sendable {
        /// ``deletionProgress()``.
        case deletionProgress
        /// ``pendingDeletion(of:)``.
        case pendingDeletion(String)
        /// ``deleteAccount(of:)``.
        case deleteAccount(String)
        /// ``exportData(of:)``.
        case exportData(String)
        /// ``consentHistory()``.
        case consentHistory
        /// ``documentsNeedingConsent()``.
        case documentsNeedingConsent
        /// ``accept(_:version:)``.
        case accept(ConsentDocument, version: Int)
        /// ``withdrawConsent(to:)``.
        case withdrawConsent(ConsentDocument)
        /// ``scheduleDeletion(of:)``.
        case scheduleDeletion(String)
        /// ``scheduledDeletion()``.
        case scheduledDeletion
        /// ``restoreAccount()``.
        case restoreAccount
        /// ``purgeDueDeletions()``.
        case purgeDueDeletions
    }

    private struct State {
        var consents: [ConsentRecord] = []
        var pending: AccountDeletionJournal?
        var scheduled: ScheduledAccountDeletion?
        var isDeleted = false
    }

    /// Failure injection, latency, holding, scripts and left-overs.
    public let controls: FakeControls<Call>
    /// The signed-in user the fake acts for.
    public let userID: String
    /// The policy versions in force.
    public let policies: ConsentPolicies
    private let state = Locked(State())
    private let progress = Broadcast<AccountDeletionProgress?>(initial: nil)

    /// Creates a fake.
    /// - Parameters:
    ///   - userID: The signed-in user.
    ///   - policies: The policy versions in force.
    ///   - strict: Whether a call nobody scripted fails the test (and throws) instead of behaving plausibly.
    ///   - clock: The clock that dates records and that ``FakeControls/latency`` sleeps on; without one, 2026-01-01.
    public init(userID: String = "user", policies: ConsentPolicies = ConsentPolicies(), strict: Bool = false, clock: (any DateClock)? = nil) {
        self.userID = userID
        self.policies = policies
        controls = FakeControls(fakeName: "FakeAccountService", strict: strict, clock: clock)
    }

    /// Whether unscripted calls fail the test.
    public var isStrict: Bool { controls.isStrict }

    private var now: Date { controls.clock?.now ?? ManualClock.defaultStart }

    /// Sets the deletion that ``pendingDeletion(of:)`` reports, as after a failed deletion.
    /// - Parameter journal: The journal, or nil for none.
    public func setPendingDeletion(_ journal: AccountDeletionJournal?) {
        state.withLock { $0.pending = journal }
    }

    /// Recorded as a subscription; yields the progress of unscripted deletions.
    public func deletionProgress() -> AsyncStream<AccountDeletionProgress> {
        controls.recordSubscription(.deletionProgress)
        return progress.events()
    }

    public func pendingDeletion(of userID: String) throws -> AccountDeletionJournal? {
        controls.record(.pendingDeletion(userID))
        return state.withLock { $0.pending?.userID == userID ? $0.pending : nil }
    }

    /// Returns the scripted report, or reports each step and returns an empty report;
    /// another user than ``userID`` is `notAuthorized`, a deleted one `notSignedIn`.
    public func deleteAccount(of userID: String) async throws -> AccountDeletionReport {
        let start = now
        let report = try await controls.perform(
            .deleteAccount(userID), method: FakeMethod<FakeAccountService, AccountDeletionReport>.deleteAccount.name
        ) {
            try checkUser(userID)
            var report = AccountDeletionReport(userID: userID, startedAt: start, appleTokenRevocation: .notApplicable)
            report.finishedAt = start
            return report
        }
        let steps = AccountDeletionStep.allCases
        for (index, step) in steps.enumerated() {
            progress.send(AccountDeletionProgress(userID: userID, step: step, phase: .started, finishedSteps: index))
            progress.send(AccountDeletionProgress(userID: userID, step: step, phase: .finished, finishedSteps: index + 1))
        }
        state.withLock { state in
            state.isDeleted = true
            state.pending = nil
            state.consents = []
        }
        return report
    }

    /// Returns the scripted export, or one with the user and their consents.
    public func exportData(of userID: String) async throws -> AccountExport {
        let date = now
        return try await controls.perform(.exportData(userID), method: FakeMethod<FakeAccountService, AccountExport>.exportData.name) {
            try checkUser(userID)
            return AccountExport(
                exportedAt: date, user: UserEntity(id: userID, createdAt: date, lastSignInAt: date), social: SocialExport(), plans: [],
                appAccountToken: try AppAccountToken.forUser(userID), entitlements: [], subscriptions: [],
                consents: state.withLock { $0.consents })
        }
    }

    public func consentHistory() throws -> [ConsentRecord] {
        controls.record(.consentHistory)
        return state.withLock { $0.consents }
    }

    public func documentsNeedingConsent() throws -> [ConsentDocument] {
        controls.record(.documentsNeedingConsent)
        return policies.documentsNeedingConsent(given: state.withLock { $0.consents })
    }

    /// Records the acceptance unless scripted; a version not in force is `unknownPolicyVersion`.
    @discardableResult
    public func accept(_ document: ConsentDocument, version: Int) async throws -> ConsentRecord {
        let date = now
        let record = try await controls.perform(
            .accept(document, version: version), method: FakeMethod<FakeAccountService, ConsentRecord>.accept.name
        ) {
            guard policies.versions[document] == version else { throw AccountError(.unknownPolicyVersion) }
            return ConsentRecord(document: document, version: version, action: .accepted, date: date)
        }
        state.withLock { $0.consents.append(record) }
        return record
    }

    /// Records the withdrawal unless scripted; nothing in force is `noConsent`.
    @discardableResult
    public func withdrawConsent(to document: ConsentDocument) async throws -> ConsentRecord {
        let date = now
        let record = try await controls.perform(
            .withdrawConsent(document), method: FakeMethod<FakeAccountService, ConsentRecord>.withdrawConsent.name
        ) {
            guard let latest = state.withLock({ $0.consents.last { $0.document == document } }), latest.action == .accepted else {
                throw AccountError(.noConsent)
            }
            return ConsentRecord(document: document, version: latest.version, action: .withdrawn, date: date)
        }
        state.withLock { $0.consents.append(record) }
        return record
    }

    /// Returns the scripted schedule, or schedules the user's deletion 30 days from
    /// now; one already scheduled is `deletionAlreadyScheduled`.
    @discardableResult
    public func scheduleDeletion(of userID: String) async throws -> ScheduledAccountDeletion {
        let date = now
        let scheduled = try await controls.perform(
            .scheduleDeletion(userID), method: FakeMethod<FakeAccountService, ScheduledAccountDeletion>.scheduleDeletion.name
        ) {
            try checkUser(userID)
            guard state.withLock({ $0.scheduled }) == nil else { throw AccountError(.deletionAlreadyScheduled) }
            return ScheduledAccountDeletion(
                userID: userID, scheduledAt: date, purgeAt: date.addingTimeInterval(30 * 86_400), appleTokenRevocation: .notApplicable)
        }
        state.withLock { $0.scheduled = scheduled }
        return scheduled
    }

    /// Sets the schedule that ``scheduledDeletion()`` reports, as after a sign-in during
    /// the grace period.
    /// - Parameter scheduled: The schedule, or nil for none.
    public func setScheduledDeletion(_ scheduled: ScheduledAccountDeletion?) {
        state.withLock { $0.scheduled = scheduled }
    }

    public func scheduledDeletion() throws -> ScheduledAccountDeletion? {
        controls.record(.scheduledDeletion)
        return state.withLock { $0.scheduled }
    }

    /// Clears the schedule unless scripted to fail; none is `noScheduledDeletion`.
    public func restoreAccount() async throws {
        try await controls.perform(.restoreAccount, method: FakeMethod<FakeAccountService, Void>.restoreAccount.name) {
            guard state.withLock({ $0.scheduled }) != nil else { throw AccountError(.noScheduledDeletion) }
        }
        state.withLock { $0.scheduled = nil }
    }

    /// Returns the scripted reports, or none: the fake's one user is never past a grace period.
    @discardableResult
    public func purgeDueDeletions() async throws -> [AccountDeletionReport] {
        try await controls.perform(.purgeDueDeletions, method: FakeMethod<FakeAccountService, [AccountDeletionReport]>.purgeDueDeletions.name) {
            []
        }
    }

    private func checkUser(_ userID: String) throws {
        guard !state.withLock({ $0.isDeleted }) else { throw AccountError(.notSignedIn) }
        guard userID == self.userID else { throw AccountError(.notAuthorized) }
    }
}

extension FakeMethod where Fake == FakeAccountService, Output == AccountDeletionReport {
    /// ``FakeAccountService/deleteAccount(of:)``: the report.
    public static var deleteAccount: Self { Self("deleteAccount(of:)") }
}

extension FakeMethod where Fake == FakeAccountService, Output == AccountExport {
    /// ``FakeAccountService/exportData(of:)``: the export.
    public static var exportData: Self { Self("exportData(of:)") }
}

extension FakeMethod where Fake == FakeAccountService, Output == ConsentRecord {
    /// ``FakeAccountService/accept(_:version:)``: the record.
    public static var accept: Self { Self("accept(_:version:)") }
    /// ``FakeAccountService/withdrawConsent(to:)``: the record.
    public static var withdrawConsent: Self { Self("withdrawConsent(to:)") }
}

extension FakeMethod where Fake == FakeAccountService, Output == ScheduledAccountDeletion {
    /// ``FakeAccountService/scheduleDeletion(of:)``: the schedule.
    public static var scheduleDeletion: Self { Self("scheduleDeletion(of:)") }
}

extension FakeMethod where Fake == FakeAccountService, Output == [AccountDeletionReport] {
    /// ``FakeAccountService/purgeDueDeletions()``: the reports.
    public static var purgeDueDeletions: Self { Self("purgeDueDeletions()") }
}

extension FakeMethod where Fake == FakeAccountService, Output == Void {
    /// ``FakeAccountService/restoreAccount()``.
    public static var restoreAccount: Self { Self("restoreAccount()") }
}
