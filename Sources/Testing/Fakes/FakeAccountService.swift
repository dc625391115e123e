import Foundation
import TrainAccount
import TrainAuth
import TrainCore
import TrainSocial
import TrainSubscription

/// A scriptable `AccountService` for tests of settings and account screens.
///
/// Calls are recorded; scripted results are returned. A fake made with
/// ``init(policies:auth:clock:)`` is strict: a call nobody scripted records a test
/// failure naming the call and throws ``FakeError/unimplemented(_:)``. Its consents,
/// pending and scheduled deletion show what the scripted calls did; a scripted
/// deletion reports its first step and a scripted completion the purge's steps, and a
/// deletion or a schedule that succeeds signs out the `FakeAuthService` it was given. A fake made with
/// ``init(backedBy:auth:clock:)`` passes every call nobody scripted to that service,
/// such as the `LocalAccountService` of a stack in memory, and shows its state.
///
/// ```swift
/// let auth = FakeAuthService(currentUser: FakeAuthService.sampleUser)
/// let account = FakeAccountService(auth: auth)
/// account.script(.deleteAccount, .throwing(AccountError(.requiresRecentLogin)))
/// await model.deleteTapped()
/// #expect(model.needsSignIn)
/// ```
public final class FakeAccountService: AccountService, ScriptableFake, BackedFake {
    /// A recorded call: the method, declared once below, applied to its arguments.
    public typealias Call = FakeCall<FakeAccountService>

    private struct State {
        var consents: [ConsentRecord] = []
        var pending: AccountDeletionJournal?
        var scheduled: ScheduledAccountDeletion?
    }

    /// Failure injection, latency, holding, scripts and left-overs.
    public let controls: FakeControls<Call>
    /// The service unscripted calls go to; nil for a strict fake.
    public let service: (any AccountService)?
    /// The auth fake a deletion or a schedule signs out, if any.
    public let auth: FakeAuthService?
    /// The policy versions a strict fake's consents are checked against.
    public let policies: ConsentPolicies
    private let state = Locked(State())
    private let progress = Broadcast<AccountDeletionProgress?>(initial: nil)

    /// Creates a strict fake: every call but the reads of its state needs a script.
    /// - Parameters:
    ///   - policies: The policy versions in force.
    ///   - auth: The auth fake a deletion or a schedule that succeeds signs out.
    ///   - clock: The clock ``FakeControls/latency`` sleeps on.
    public init(policies: ConsentPolicies = ConsentPolicies(), auth: FakeAuthService? = nil, clock: (any DateClock)? = nil) {
        service = nil
        self.auth = auth
        self.policies = policies
        controls = FakeControls(fakeName: "FakeAccountService", clock: clock)
    }

    /// Creates a fake in front of `service`: calls nobody scripted go to it, and the
    /// state is its.
    /// - Parameters:
    ///   - service: The service, such as the `LocalAccountService` of a stack in memory.
    ///   - auth: The auth fake a deletion or a schedule that succeeds signs out, when it is strict.
    ///   - clock: The clock ``FakeControls/latency`` sleeps on.
    public init(backedBy service: any AccountService, auth: FakeAuthService? = nil, clock: (any DateClock)? = nil) {
        self.service = service
        self.auth = auth
        policies = ConsentPolicies()
        controls = FakeControls(fakeName: "FakeAccountService", strict: false, clock: clock)
    }

    /// Whether unscripted calls fail the test.
    public var isStrict: Bool { controls.isStrict }

    /// Sets the deletion that a strict fake's ``pendingDeletion(of:)`` reports, as after a failed deletion.
    /// - Parameter journal: The journal, or nil for none.
    public func setPendingDeletion(_ journal: AccountDeletionJournal?) {
        guard controls.ownsState("setPendingDeletion(_:)") else { return }
        state.withLock { $0.pending = journal }
    }

    /// Sets the schedule that a strict fake's ``scheduledDeletion()`` reports, as after a
    /// sign-in during the grace period.
    /// - Parameter scheduled: The schedule, or nil for none.
    public func setScheduledDeletion(_ scheduled: ScheduledAccountDeletion?) {
        guard controls.ownsState("setScheduledDeletion(_:)") else { return }
        state.withLock { $0.scheduled = scheduled }
    }

    /// Recorded as a subscription; the service's progress, or that of a strict fake's scripted deletions.
    public func deletionProgress() -> AsyncStream<AccountDeletionProgress> {
        controls.recordSubscription(.deletionProgress())
        return service?.deletionProgress() ?? progress.events()
    }

    /// Recorded; the service's pending deletion, or the one set on a strict fake.
    public func pendingDeletion(of userID: String) throws -> AccountDeletionJournal? {
        controls.record(.pendingDeletion(userID))
        if let service { return try service.pendingDeletion(of: userID) }
        return state.withLock { $0.pending?.userID == userID ? $0.pending : nil }
    }

    /// Recorded; the service's pending deletions, or the one set on a strict fake.
    public func pendingDeletions() throws -> [AccountDeletionJournal] {
        controls.record(.pendingDeletions())
        if let service { return try service.pendingDeletions() }
        return state.withLock { $0.pending.map { [$0] } ?? [] }
    }

    /// Returns the scripted deletion, or the service's. A strict fake reports the first
    /// step and forgets its state; either way the auth fake is signed out.
    @discardableResult
    public func deleteAccount(of userID: String) async throws -> ScheduledAccountDeletion {
        let deletion = try await perform(.deleteAccount, userID) { try await $0.deleteAccount(of: userID) }
        if service == nil {
            progress.send(AccountDeletionProgress(userID: userID, step: .appleRevocation, phase: .started, finishedSteps: 0))
            progress.send(AccountDeletionProgress(userID: userID, step: .appleRevocation, phase: .finished, finishedSteps: 1))
            state.withLock { $0 = State() }
        }
        auth?.endSession()
        return deletion
    }

    /// Returns the scripted report, or the service's. A strict fake reports the purge's
    /// steps before it returns.
    public func deletionCompletion(of userID: String) async throws -> AccountDeletionReport {
        let report = try await perform(.deletionCompletion, userID) { try await $0.deletionCompletion(of: userID) }
        if service == nil {
            for (index, step) in AccountDeletionStep.allCases.enumerated().dropFirst() {
                progress.send(AccountDeletionProgress(userID: userID, step: step, phase: .started, finishedSteps: index))
                progress.send(AccountDeletionProgress(userID: userID, step: step, phase: .finished, finishedSteps: index + 1))
            }
        }
        return report
    }

    /// Returns the scripted export, or the service's.
    public func exportData(of userID: String) async throws -> AccountExport {
        try await perform(.exportData, userID) { try await $0.exportData(of: userID) }
    }

    /// Recorded; the service's history, or a strict fake's scripted acceptances and withdrawals.
    public func consentHistory() throws -> [ConsentRecord] {
        controls.record(.consentHistory())
        if let service { return try service.consentHistory() }
        return state.withLock { $0.consents }
    }

    /// Recorded; the service's answer, or the documents a strict fake's consents leave
    /// unaccepted in their version in force.
    public func documentsNeedingConsent() throws -> [ConsentDocument] {
        controls.record(.documentsNeedingConsent())
        if let service { return try service.documentsNeedingConsent() }
        return policies.documentsNeedingConsent(given: state.withLock { $0.consents })
    }

    /// Returns the scripted record, or the service's; a strict fake keeps it.
    @discardableResult
    public func accept(_ document: ConsentDocument, version: Int) async throws -> ConsentRecord {
        let record = try await perform(.accept, document, version) { try await $0.accept(document, version: version) }
        if service == nil { state.withLock { $0.consents.append(record) } }
        return record
    }

    /// Returns the scripted record, or the service's; a strict fake keeps it.
    @discardableResult
    public func withdrawConsent(to document: ConsentDocument) async throws -> ConsentRecord {
        let record = try await perform(.withdrawConsent, document) { try await $0.withdrawConsent(to: document) }
        if service == nil { state.withLock { $0.consents.append(record) } }
        return record
    }

    /// Returns the scripted schedule, or the service's; a strict fake keeps it, and
    /// either way the auth fake is signed out.
    @discardableResult
    public func scheduleDeletion(of userID: String) async throws -> ScheduledAccountDeletion {
        let scheduled = try await perform(.scheduleDeletion, userID) { try await $0.scheduleDeletion(of: userID) }
        if service == nil { state.withLock { $0.scheduled = scheduled } }
        auth?.endSession()
        return scheduled
    }

    /// Recorded; the service's schedule, or the one a strict fake keeps.
    public func scheduledDeletion() throws -> ScheduledAccountDeletion? {
        controls.record(.scheduledDeletion())
        if let service { return try service.scheduledDeletion() }
        return state.withLock { $0.scheduled }
    }

    /// Succeeds as scripted, or as the service does; a strict fake forgets its schedule.
    public func restoreAccount() async throws {
        try await perform(.restoreAccount) { try await $0.restoreAccount() }
        if service == nil { state.withLock { $0.scheduled = nil } }
    }

    /// Returns the scripted reports, or the service's.
    @discardableResult
    public func purgeDueDeletions() async throws -> [AccountDeletionReport] {
        try await perform(.purgeDueDeletions) { try await $0.purgeDueDeletions() }
    }
}

extension FakeMethods where Fake == FakeAccountService {
    /// ``FakeAccountService/deletionProgress()``.
    public static var deletionProgress: FakeMethod<FakeAccountService, AsyncStream<AccountDeletionProgress>> { .init("deletionProgress()") }

    /// ``FakeAccountService/pendingDeletion(of:)``.
    public static var pendingDeletion: FakeMethod<FakeAccountService, AccountDeletionJournal?, String> { .init("pendingDeletion(of:)") }

    /// ``FakeAccountService/pendingDeletions()``.
    public static var pendingDeletions: FakeMethod<FakeAccountService, [AccountDeletionJournal]> { .init("pendingDeletions()") }

    /// ``FakeAccountService/deleteAccount(of:)``: the deletion.
    public static var deleteAccount: FakeMethod<FakeAccountService, ScheduledAccountDeletion, String> { .init("deleteAccount(of:)") }

    /// ``FakeAccountService/deletionCompletion(of:)``: the purge's report.
    public static var deletionCompletion: FakeMethod<FakeAccountService, AccountDeletionReport, String> { .init("deletionCompletion(of:)") }

    /// ``FakeAccountService/exportData(of:)``: the export.
    public static var exportData: FakeMethod<FakeAccountService, AccountExport, String> { .init("exportData(of:)") }

    /// ``FakeAccountService/consentHistory()``.
    public static var consentHistory: FakeMethod<FakeAccountService, [ConsentRecord]> { .init("consentHistory()") }

    /// ``FakeAccountService/documentsNeedingConsent()``.
    public static var documentsNeedingConsent: FakeMethod<FakeAccountService, [ConsentDocument]> { .init("documentsNeedingConsent()") }

    /// ``FakeAccountService/accept(_:version:)``: the record.
    public static var accept: FakeMethod<FakeAccountService, ConsentRecord, ConsentDocument, Int> { .init("accept(_:version:)") }

    /// ``FakeAccountService/withdrawConsent(to:)``: the record.
    public static var withdrawConsent: FakeMethod<FakeAccountService, ConsentRecord, ConsentDocument> { .init("withdrawConsent(to:)") }

    /// ``FakeAccountService/scheduleDeletion(of:)``: the schedule.
    public static var scheduleDeletion: FakeMethod<FakeAccountService, ScheduledAccountDeletion, String> { .init("scheduleDeletion(of:)") }

    /// ``FakeAccountService/scheduledDeletion()``.
    public static var scheduledDeletion: FakeMethod<FakeAccountService, ScheduledAccountDeletion?> { .init("scheduledDeletion()") }

    /// ``FakeAccountService/restoreAccount()``.
    public static var restoreAccount: FakeMethod<FakeAccountService, Void> { .init("restoreAccount()") }

    /// ``FakeAccountService/purgeDueDeletions()``: the reports.
    public static var purgeDueDeletions: FakeMethod<FakeAccountService, [AccountDeletionReport]> { .init("purgeDueDeletions()") }
}
