import Foundation
import TrainCore
import TrainSync

/// A scriptable `PlanSyncService` for unit tests of view models: plans kept in
/// memory for one user, each with a status the test can set.
///
/// Calls are recorded; scripted results are returned; unscripted calls act on the
/// fake's plans — a save queues the plan (`notSynced` or `pendingUpload`), a sync
/// marks every queued plan `synced` — or, when the fake is strict, record a test
/// failure naming the call and throw ``FakeError/unimplemented(_:)``. ``controls``
/// inject failures, latency and holds.
///
/// ```swift
/// let plans = FakePlanSyncService(plans: [plan])
/// plans.script(.sync, .throwing(SyncError(.remoteUnavailable)))
/// let model = PlansModel(plans: plans)
/// await model.refresh()
/// #expect(model.banner == "Your plans could not be synced right now.")
/// #expect(plans.calls == [.sync])
/// ```
public final class FakePlanSyncService: PlanSyncService, ScriptableFake {
    /// A recorded call.
    public enum Call: Hashable, Sendable {
        /// ``plans()``.
        case plans
        /// ``plan(id:)``.
        case plan(UUID)
        /// ``createPlan(_:)``.
        case createPlan(TrainingPlan)
        /// ``updatePlan(_:)``.
        case updatePlan(TrainingPlan)
        /// ``deletePlan(id:)``.
        case deletePlan(UUID)
        /// ``status(ofPlan:)``.
        case status(UUID)
        /// ``statusChanges()``.
        case statusChanges
        /// ``planUpdates()``.
        case planUpdates
        /// ``syncTriggers()``.
        case syncTriggers
        /// ``sync()``.
        case sync
        /// ``uploadPlan(id:)``.
        case uploadPlan(UUID)
        /// ``downloadPlans()``.
        case downloadPlans
        /// ``resolveConflict(planID:keeping:)``.
        case resolveConflict(UUID, TrainingPlan)
        /// ``conflictLog()``.
        case conflictLog
        /// ``deadLetters()``.
        case deadLetters
        /// ``deleteAccountData()``.
        case deleteAccountData
        /// ``purgeAccountData(of:)``.
        case purgeAccountData(String)
    }

    private struct State {
        var plans: [UUID: TrainingPlan] = [:]
        var statuses: [UUID: SyncStatus] = [:]
        var conflictLog: [SyncConflictRecord] = []
        var deadLetters: [DeadLetter] = []
    }

    /// Failure injection, latency, holding, scripts and left-overs.
    public let controls: FakeControls<Call>
    /// The user the plans belong to.
    public let userID: String
    private let state = Locked(State())
    private let changes = Broadcast<SyncStatusChange?>(initial: nil)
    private let planList = Broadcast<[TrainingPlan]>(initial: [])
    private let triggers = Broadcast<SyncTrigger?>(initial: nil)

    /// Creates a fake.
    /// - Parameters:
    ///   - plans: The plans at the start, all `synced`.
    ///   - userID: The owner of the plans; `"user"` by default.
    ///   - strict: Whether a call nobody scripted fails the test (and throws) instead of acting on the plans.
    ///   - clock: The clock ``FakeControls/latency`` sleeps on.
    public init(plans: [TrainingPlan] = [], userID: String = "user", strict: Bool = false, clock: (any DateClock)? = nil) {
        self.userID = userID
        controls = FakeControls(fakeName: "FakePlanSyncService", strict: strict, clock: clock)
        state.withLock { state in
            for var plan in plans {
                plan.userID = userID
                state.plans[plan.id] = plan
                state.statuses[plan.id] = .synced
            }
        }
        planList.replace(sortedPlans())
    }

    /// Whether unscripted calls fail the test.
    public var isStrict: Bool { controls.isStrict }

    /// Sets a plan's status and emits it on ``statusChanges()``, as a sync would.
    /// - Parameters:
    ///   - status: The status; nil removes the plan.
    ///   - id: The plan.
    public func setStatus(_ status: SyncStatus?, of id: UUID) {
        state.withLock { state in
            state.statuses[id] = status
            if status == nil { state.plans[id] = nil }
        }
        changes.send(SyncStatusChange(recordID: id, status: status))
        publishPlans()
    }

    /// Sends `SyncTrigger.remoteChange` on ``syncTriggers()``, as a remote signalling
    /// another device's commit would.
    public func signalRemoteChange() {
        triggers.send(.remoteChange)
    }

    /// Sets what ``conflictLog()`` and ``deadLetters()`` return.
    /// - Parameters:
    ///   - conflictLog: The losing values.
    ///   - deadLetters: The refused plans.
    public func setLogs(conflictLog: [SyncConflictRecord] = [], deadLetters: [DeadLetter] = []) {
        state.withLock { state in
            state.conflictLog = conflictLog
            state.deadLetters = deadLetters
        }
    }

    public func plans() throws -> [TrainingPlan] {
        controls.record(.plans)
        return sortedPlans()
    }

    /// Recorded as a subscription; yields the plans now, then the plans after each
    /// save, deletion or resolution.
    public func planUpdates() -> AsyncStream<[TrainingPlan]> {
        controls.recordSubscription(.planUpdates)
        return planList.subscribe()
    }

    /// Recorded as a subscription; yields `SyncTrigger.localEdit` after each save or
    /// deletion, and `SyncTrigger.remoteChange` at each ``signalRemoteChange()``.
    public func syncTriggers() -> AsyncStream<SyncTrigger> {
        controls.recordSubscription(.syncTriggers)
        return triggers.events()
    }

    private func sortedPlans() -> [TrainingPlan] {
        state.withLock { $0.plans.values.sorted { $0.id.uuidString < $1.id.uuidString } }
    }

    /// Sends the plans on ``planUpdates()`` if they changed.
    private func publishPlans() {
        let plans = sortedPlans()
        if plans != planList.value { planList.send(plans) }
    }

    public func plan(id: UUID) throws -> TrainingPlan? {
        controls.record(.plan(id))
        return state.withLock { $0.plans[id] }
    }

    /// Saves the plan, validated and owned by ``userID``, as `notSynced`, unless scripted.
    public func createPlan(_ plan: TrainingPlan) async throws -> TrainingPlan {
        try await save(.createPlan(plan), plan, method: .createPlan, creating: true)
    }

    /// Saves the change as `pendingUpload` (`notSynced` if never synced), unless scripted.
    public func updatePlan(_ plan: TrainingPlan) async throws -> TrainingPlan {
        try await save(.updatePlan(plan), plan, method: .updatePlan, creating: false)
    }

    private func save(_ call: Call, _ plan: TrainingPlan, method: FakeMethod<FakePlanSyncService, TrainingPlan>, creating: Bool) async throws
        -> TrainingPlan
    {
        let saved = try await controls.perform(call, method: method.name) { () throws -> TrainingPlan in
            var plan = plan
            guard plan.userID.isEmpty || plan.userID == userID else { throw SyncError(.notAuthorized) }
            plan.userID = userID
            plan = try plan.validated()
            let exists = state.withLock { $0.plans[plan.id] != nil }
            if creating, exists { throw SyncError(.recordExists) }
            if !creating, !exists { throw SyncError(.recordNotFound) }
            return plan
        }
        let status = state.withLock { state -> SyncStatus in
            state.plans[saved.id] = saved
            let status: SyncStatus = creating || state.statuses[saved.id] == .notSynced ? .notSynced : .pendingUpload
            state.statuses[saved.id] = status
            return status
        }
        changes.send(SyncStatusChange(recordID: saved.id, status: status))
        publishPlans()
        triggers.send(.localEdit)
        return saved
    }

    /// Removes the plan, unless scripted; `recordNotFound` for an unknown ID.
    public func deletePlan(id: UUID) async throws {
        try await controls.perform(.deletePlan(id), method: FakeMethod<FakePlanSyncService, Void>.deletePlan.name) {
            guard state.withLock({ $0.plans[id] }) != nil else { throw SyncError(.recordNotFound) }
        }
        setStatus(nil, of: id)
        triggers.send(.localEdit)
    }

    public func status(ofPlan id: UUID) throws -> SyncStatus? {
        controls.record(.status(id))
        return state.withLock { $0.statuses[id] }
    }

    /// Recorded as a subscription; yields what saves, syncs and ``setStatus(_:of:)`` change from now on.
    public func statusChanges() -> AsyncStream<SyncStatusChange> {
        controls.recordSubscription(.statusChanges)
        return changes.events()
    }

    /// Marks every queued plan `synced` and returns the scripted report, or one that
    /// counts them as uploaded; a scripted error leaves them queued.
    public func sync() async throws -> SyncReport {
        let report = try await controls.perform(.sync, method: FakeMethod<FakePlanSyncService, SyncReport>.sync.name) {
            var report = SyncReport()
            report.uploaded = state.withLock { $0.statuses.values.filter { $0 == .notSynced || $0 == .pendingUpload }.count }
            return report
        }
        for id in queued() { setStatus(.synced, of: id) }
        return report
    }

    /// Returns the scripted status, or marks the plan `synced`.
    public func uploadPlan(id: UUID) async throws -> SyncStatus? {
        let status = try await controls.perform(.uploadPlan(id), method: FakeMethod<FakePlanSyncService, SyncStatus?>.uploadPlan.name) {
            guard state.withLock({ $0.plans[id] }) != nil else { throw SyncError(.recordNotFound) }
            return SyncStatus.synced
        }
        setStatus(status, of: id)
        return status
    }

    /// Returns the scripted report, or an empty one.
    public func downloadPlans() async throws -> SyncReport {
        try await controls.perform(.downloadPlans, method: FakeMethod<FakePlanSyncService, SyncReport>.downloadPlans.name) { SyncReport() }
    }

    /// Keeps `plan` as `pendingUpload` if the plan's status is `conflict`, else `noConflict`, unless scripted.
    public func resolveConflict(planID id: UUID, keeping plan: TrainingPlan) async throws -> TrainingPlan {
        let kept = try await controls.perform(.resolveConflict(id, plan), method: FakeMethod<FakePlanSyncService, TrainingPlan>.resolveConflict.name)
        {
            guard state.withLock({ $0.statuses[id] }) == .conflict else { throw SyncError(.noConflict) }
            var plan = plan
            plan.userID = userID
            return try plan.validated()
        }
        state.withLock { $0.plans[id] = kept }
        setStatus(.pendingUpload, of: id)
        return kept
    }

    public func conflictLog() throws -> [SyncConflictRecord] {
        controls.record(.conflictLog)
        return state.withLock { $0.conflictLog }
    }

    public func deadLetters() throws -> [DeadLetter] {
        controls.record(.deadLetters)
        return state.withLock { $0.deadLetters }
    }

    /// Removes every plan and returns the scripted report, or one counting them on both
    /// sides; a scripted error removes nothing.
    public func deleteAccountData() async throws -> SyncDeletionReport {
        let report = try await controls.perform(
            .deleteAccountData, method: FakeMethod<FakePlanSyncService, SyncDeletionReport>.deleteAccountData.name
        ) {
            let count = state.withLock { $0.plans.count }
            return SyncDeletionReport(localRecords: count, remoteRecords: count)
        }
        let ids = state.withLock { Array($0.plans.keys) }
        for id in ids { setStatus(nil, of: id) }
        return report
    }

    /// Returns the scripted report, or removes every plan of ``userID`` when asked
    /// for that user (nothing for another) and reports them. It does not check a
    /// schedule: script a failure to test a refusal.
    public func purgeAccountData(of userID: String) async throws -> SyncDeletionReport {
        let report = try await controls.perform(
            .purgeAccountData(userID), method: FakeMethod<FakePlanSyncService, SyncDeletionReport>.purgeAccountData.name
        ) {
            let count = userID == self.userID ? state.withLock { $0.plans.count } : 0
            return SyncDeletionReport(localRecords: count, remoteRecords: count)
        }
        if userID == self.userID {
            let ids = state.withLock { Array($0.plans.keys) }
            for id in ids { setStatus(nil, of: id) }
        }
        return report
    }

    private func queued() -> [UUID] {
        state.withLock { $0.statuses.filter { $0.value == .notSynced || $0.value == .pendingUpload }.keys.sorted { $0.uuidString < $1.uuidString } }
    }
}

extension FakeMethod where Fake == FakePlanSyncService, Output == TrainingPlan {
    /// ``FakePlanSyncService/createPlan(_:)``: the plan saved.
    public static var createPlan: Self { Self("createPlan(_:)") }
    /// ``FakePlanSyncService/updatePlan(_:)``: the plan saved.
    public static var updatePlan: Self { Self("updatePlan(_:)") }
    /// ``FakePlanSyncService/resolveConflict(planID:keeping:)``: the plan kept.
    public static var resolveConflict: Self { Self("resolveConflict(planID:keeping:)") }
}

extension FakeMethod where Fake == FakePlanSyncService, Output == Void {
    /// ``FakePlanSyncService/deletePlan(id:)``.
    public static var deletePlan: Self { Self("deletePlan(id:)") }
}

extension FakeMethod where Fake == FakePlanSyncService, Output == SyncReport {
    /// ``FakePlanSyncService/sync()``: the report.
    public static var sync: Self { Self("sync()") }
    /// ``FakePlanSyncService/downloadPlans()``: the report.
    public static var downloadPlans: Self { Self("downloadPlans()") }
}

extension FakeMethod where Fake == FakePlanSyncService, Output == SyncDeletionReport {
    /// ``FakePlanSyncService/deleteAccountData()``: the report.
    public static var deleteAccountData: Self { Self("deleteAccountData()") }
    /// ``FakePlanSyncService/purgeAccountData(of:)``: the report.
    public static var purgeAccountData: Self { Self("purgeAccountData(of:)") }
}

extension FakeMethod where Fake == FakePlanSyncService, Output == SyncStatus? {
    /// ``FakePlanSyncService/uploadPlan(id:)``: the status after the upload.
    public static var uploadPlan: Self { Self("uploadPlan(id:)") }
}
