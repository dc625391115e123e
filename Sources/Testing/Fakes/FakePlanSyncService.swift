import Foundation
import TrainCore
import TrainSync

/// A scriptable `PlanSyncService` for unit tests of view models.
///
/// Calls are recorded; scripted results are returned. A fake made with
/// ``init(plans:clock:)`` is strict: a call nobody scripted records a test failure
/// naming the call and throws ``FakeError/unimplemented(_:)``. Its plans, each with a
/// status the test can set, show what the scripted calls did: a saved plan is queued
/// (`notSynced` or `pendingUpload`), a deleted one goes, a sync marks every queued plan
/// `synced`. A fake made with ``init(backedBy:clock:)`` passes every call nobody
/// scripted to that service, such as a `LocalPlanSyncService` in memory, and shows its
/// plans.
///
/// ```swift
/// let plans = FakePlanSyncService(plans: [plan])
/// plans.script(.sync, .throwing(SyncError(.remoteUnavailable)))
/// let model = PlansModel(plans: plans)
/// await model.refresh()
/// #expect(model.banner == "Your plans could not be synced right now.")
/// #expect(plans.calls == [.sync()])
/// ```
public final class FakePlanSyncService: PlanSyncService, ScriptableFake, BackedFake {
    /// A recorded call: the method, declared once below, applied to its arguments.
    public typealias Call = FakeCall<FakePlanSyncService>

    private struct State {
        var plans: [UUID: TrainingPlan] = [:]
        var statuses: [UUID: SyncStatus] = [:]
        var conflictLog: [SyncConflictRecord] = []
        var deadLetters: [DeadLetter] = []
    }

    /// Failure injection, latency, holding, scripts and left-overs.
    public let controls: FakeControls<Call>
    /// The service unscripted calls go to; nil for a strict fake.
    public let service: (any PlanSyncService)?
    private let state = Locked(State())
    private let changes = Broadcast<SyncStatusChange?>(initial: nil)
    private let planList = Broadcast<[TrainingPlan]>(initial: [])
    private let triggers = Broadcast<SyncTrigger?>(initial: nil)

    /// Creates a strict fake: every call but the reads of its plans needs a script.
    /// - Parameters:
    ///   - plans: The plans at the start, all `synced`.
    ///   - clock: The clock ``FakeControls/latency`` sleeps on.
    public init(plans: [TrainingPlan] = [], clock: (any DateClock)? = nil) {
        service = nil
        controls = FakeControls(fakeName: "FakePlanSyncService", clock: clock)
        state.withLock { state in
            for plan in plans {
                state.plans[plan.id] = plan
                state.statuses[plan.id] = .synced
            }
        }
        planList.replace(sortedPlans())
    }

    /// Creates a fake in front of `service`: calls nobody scripted go to it, and the
    /// plans are its.
    /// - Parameters:
    ///   - service: The service, such as a `LocalPlanSyncService` in memory.
    ///   - clock: The clock ``FakeControls/latency`` sleeps on.
    public init(backedBy service: any PlanSyncService, clock: (any DateClock)? = nil) {
        self.service = service
        controls = FakeControls(fakeName: "FakePlanSyncService", strict: false, clock: clock)
    }

    /// Whether unscripted calls fail the test.
    public var isStrict: Bool { controls.isStrict }

    /// Sets a strict fake's plan status and emits it on ``statusChanges()``, as a sync would.
    /// - Parameters:
    ///   - status: The status; nil removes the plan.
    ///   - id: The plan.
    public func setStatus(_ status: SyncStatus?, of id: UUID) {
        guard controls.ownsState("setStatus(_:of:)") else { return }
        show(status, of: id)
    }

    private func show(_ status: SyncStatus?, of id: UUID) {
        guard service == nil else { return }
        state.withLock { state in
            state.statuses[id] = status
            if status == nil { state.plans[id] = nil }
        }
        changes.send(SyncStatusChange(recordID: id, status: status))
        publishPlans()
    }

    /// Sends `SyncTrigger.remoteChange` on a strict fake's ``syncTriggers()``, as a remote
    /// signalling another device's commit would.
    public func signalRemoteChange() {
        guard controls.ownsState("signalRemoteChange()") else { return }
        triggers.send(.remoteChange)
    }

    /// Sets what a strict fake's ``conflictLog()`` and ``deadLetters()`` return.
    /// - Parameters:
    ///   - conflictLog: The losing values.
    ///   - deadLetters: The refused plans.
    public func setLogs(conflictLog: [SyncConflictRecord] = [], deadLetters: [DeadLetter] = []) {
        guard controls.ownsState("setLogs(conflictLog:deadLetters:)") else { return }
        state.withLock { state in
            state.conflictLog = conflictLog
            state.deadLetters = deadLetters
        }
    }

    /// Recorded; the service's plans, or a strict fake's.
    public func plans() throws -> [TrainingPlan] {
        controls.record(.plans())
        if let service { return try service.plans() }
        return sortedPlans()
    }

    /// Recorded as a subscription; the service's lists, or a strict fake's: the plans
    /// now, then the plans after each save, deletion or resolution.
    public func planUpdates() -> AsyncStream<[TrainingPlan]> {
        controls.recordSubscription(.planUpdates())
        return service?.planUpdates() ?? planList.subscribe()
    }

    /// Recorded as a subscription; the service's triggers, or a strict fake's:
    /// `SyncTrigger.localEdit` after each save or deletion, and `SyncTrigger.remoteChange`
    /// at each ``signalRemoteChange()``.
    public func syncTriggers() -> AsyncStream<SyncTrigger> {
        controls.recordSubscription(.syncTriggers())
        return service?.syncTriggers() ?? triggers.events()
    }

    private func sortedPlans() -> [TrainingPlan] {
        state.withLock { $0.plans.values.sorted { $0.id.uuidString < $1.id.uuidString } }
    }

    /// Sends a strict fake's plans on ``planUpdates()`` if they changed.
    private func publishPlans() {
        let plans = sortedPlans()
        if plans != planList.value { planList.send(plans) }
    }

    /// Recorded; the service's plan, or a strict fake's.
    public func plan(id: UUID) throws -> TrainingPlan? {
        controls.record(.plan(id))
        if let service { return try service.plan(id: id) }
        return state.withLock { $0.plans[id] }
    }

    /// Returns the scripted plan, or the service's; a strict fake queues it as `notSynced`.
    public func createPlan(_ plan: TrainingPlan) async throws -> TrainingPlan {
        let saved = try await perform(.createPlan, plan) { try await $0.createPlan(plan) }
        queue(saved, creating: true)
        return saved
    }

    /// Returns the scripted plan, or the service's; a strict fake queues it as
    /// `pendingUpload` (`notSynced` if never synced).
    public func updatePlan(_ plan: TrainingPlan) async throws -> TrainingPlan {
        let saved = try await perform(.updatePlan, plan) { try await $0.updatePlan(plan) }
        queue(saved, creating: false)
        return saved
    }

    /// Shows a plan a script saved in a strict fake's plans, queued.
    private func queue(_ saved: TrainingPlan, creating: Bool) {
        guard service == nil else { return }
        let status = state.withLock { state -> SyncStatus in
            state.plans[saved.id] = saved
            let status: SyncStatus = creating || state.statuses[saved.id] == .notSynced ? .notSynced : .pendingUpload
            state.statuses[saved.id] = status
            return status
        }
        changes.send(SyncStatusChange(recordID: saved.id, status: status))
        publishPlans()
        triggers.send(.localEdit)
    }

    /// Succeeds as scripted, or as the service does; a strict fake removes the plan.
    public func deletePlan(id: UUID) async throws {
        try await perform(.deletePlan, id) { try await $0.deletePlan(id: id) }
        show(nil, of: id)
        if service == nil { triggers.send(.localEdit) }
    }

    /// Recorded; the service's status, or a strict fake's.
    public func status(ofPlan id: UUID) throws -> SyncStatus? {
        controls.record(.status(id))
        if let service { return try service.status(ofPlan: id) }
        return state.withLock { $0.statuses[id] }
    }

    /// Recorded as a subscription; the service's changes, or what a strict fake's saves,
    /// syncs and ``setStatus(_:of:)`` change from now on.
    public func statusChanges() -> AsyncStream<SyncStatusChange> {
        controls.recordSubscription(.statusChanges())
        return service?.statusChanges() ?? changes.events()
    }

    /// Returns the scripted report, or the service's; after a scripted one a strict
    /// fake marks every queued plan `synced`.
    public func sync() async throws -> SyncReport {
        let report = try await perform(.sync) { try await $0.sync() }
        for id in queued() { show(.synced, of: id) }
        return report
    }

    /// Returns the scripted status, or the service's; a strict fake's plan takes it.
    public func uploadPlan(id: UUID) async throws -> SyncStatus? {
        let status = try await perform(.uploadPlan, id) { try await $0.uploadPlan(id: id) }
        show(status, of: id)
        return status
    }

    /// Returns the scripted report, or the service's.
    public func downloadPlans() async throws -> SyncReport {
        try await perform(.downloadPlans) { try await $0.downloadPlans() }
    }

    /// Returns the scripted plan, or the service's; a strict fake keeps it as `pendingUpload`.
    public func resolveConflict(planID id: UUID, keeping plan: TrainingPlan) async throws -> TrainingPlan {
        let kept = try await perform(.resolveConflict, id, plan) { try await $0.resolveConflict(planID: id, keeping: plan) }
        if service == nil {
            state.withLock { $0.plans[id] = kept }
            show(.pendingUpload, of: id)
        }
        return kept
    }

    /// Recorded; the service's log, or the one set on a strict fake.
    public func conflictLog() throws -> [SyncConflictRecord] {
        controls.record(.conflictLog())
        if let service { return try service.conflictLog() }
        return state.withLock { $0.conflictLog }
    }

    /// Recorded; the service's dead letters, or the ones set on a strict fake.
    public func deadLetters() throws -> [DeadLetter] {
        controls.record(.deadLetters())
        if let service { return try service.deadLetters() }
        return state.withLock { $0.deadLetters }
    }

    /// Returns the scripted report, or the service's; after a scripted one a strict fake
    /// has no plans left.
    public func deleteAccountData() async throws -> SyncDeletionReport {
        let report = try await perform(.deleteAccountData) { try await $0.deleteAccountData() }
        if service == nil {
            for id in state.withLock({ Array($0.plans.keys) }) { show(nil, of: id) }
        }
        return report
    }

    /// Returns the scripted report, or the service's.
    public func purgeAccountData(of userID: String) async throws -> SyncDeletionReport {
        try await perform(.purgeAccountData, userID) { try await $0.purgeAccountData(of: userID) }
    }

    private func queued() -> [UUID] {
        state.withLock { $0.statuses.filter { $0.value == .notSynced || $0.value == .pendingUpload }.keys.sorted { $0.uuidString < $1.uuidString } }
    }
}

extension FakeMethods where Fake == FakePlanSyncService {
    /// ``FakePlanSyncService/plans()``.
    public static var plans: FakeMethod<FakePlanSyncService, [TrainingPlan]> { .init("plans()") }

    /// ``FakePlanSyncService/plan(id:)``.
    public static var plan: FakeMethod<FakePlanSyncService, TrainingPlan?, UUID> { .init("plan(id:)") }

    /// ``FakePlanSyncService/createPlan(_:)``: the plan saved.
    public static var createPlan: FakeMethod<FakePlanSyncService, TrainingPlan, TrainingPlan> { .init("createPlan(_:)") }

    /// ``FakePlanSyncService/updatePlan(_:)``: the plan saved.
    public static var updatePlan: FakeMethod<FakePlanSyncService, TrainingPlan, TrainingPlan> { .init("updatePlan(_:)") }

    /// ``FakePlanSyncService/deletePlan(id:)``.
    public static var deletePlan: FakeMethod<FakePlanSyncService, Void, UUID> { .init("deletePlan(id:)") }

    /// ``FakePlanSyncService/status(ofPlan:)``.
    public static var status: FakeMethod<FakePlanSyncService, SyncStatus?, UUID> { .init("status(ofPlan:)") }

    /// ``FakePlanSyncService/statusChanges()``.
    public static var statusChanges: FakeMethod<FakePlanSyncService, AsyncStream<SyncStatusChange>> { .init("statusChanges()") }

    /// ``FakePlanSyncService/planUpdates()``.
    public static var planUpdates: FakeMethod<FakePlanSyncService, AsyncStream<[TrainingPlan]>> { .init("planUpdates()") }

    /// ``FakePlanSyncService/syncTriggers()``.
    public static var syncTriggers: FakeMethod<FakePlanSyncService, AsyncStream<SyncTrigger>> { .init("syncTriggers()") }

    /// ``FakePlanSyncService/sync()``: the report.
    public static var sync: FakeMethod<FakePlanSyncService, SyncReport> { .init("sync()") }

    /// ``FakePlanSyncService/uploadPlan(id:)``: the status after the upload.
    public static var uploadPlan: FakeMethod<FakePlanSyncService, SyncStatus?, UUID> { .init("uploadPlan(id:)") }

    /// ``FakePlanSyncService/downloadPlans()``: the report.
    public static var downloadPlans: FakeMethod<FakePlanSyncService, SyncReport> { .init("downloadPlans()") }

    /// ``FakePlanSyncService/resolveConflict(planID:keeping:)``: the plan kept.
    public static var resolveConflict: FakeMethod<FakePlanSyncService, TrainingPlan, UUID, TrainingPlan> { .init("resolveConflict(planID:keeping:)") }

    /// ``FakePlanSyncService/conflictLog()``.
    public static var conflictLog: FakeMethod<FakePlanSyncService, [SyncConflictRecord]> { .init("conflictLog()") }

    /// ``FakePlanSyncService/deadLetters()``.
    public static var deadLetters: FakeMethod<FakePlanSyncService, [DeadLetter]> { .init("deadLetters()") }

    /// ``FakePlanSyncService/deleteAccountData()``: the report.
    public static var deleteAccountData: FakeMethod<FakePlanSyncService, SyncDeletionReport> { .init("deleteAccountData()") }

    /// ``FakePlanSyncService/purgeAccountData(of:)``: the report.
    public static var purgeAccountData: FakeMethod<FakePlanSyncService, SyncDeletionReport, String> { .init("purgeAccountData(of:)") }
}
