import Foundation

/// The signed-in user's training plans on this device: read at once, edited offline,
/// and current without a refresh.
///
/// A capability of ``PlanSyncService``; a view model that lists and edits plans can
/// depend on this protocol alone.
public protocol PlanEditing: Sendable {
    /// The signed-in user's plans on this device, by ID.
    /// - Returns: The plans.
    /// - Throws: ``SyncError`` — `notSignedIn`, `storage`.
    func plans() throws -> [TrainingPlan]

    /// One of the signed-in user's plans.
    /// - Parameter id: The plan's ID.
    /// - Returns: The plan, or nil if there is none on this device.
    /// - Throws: ``SyncError`` — `notSignedIn`, `storage`.
    func plan(id: UUID) throws -> TrainingPlan?

    /// Saves a new plan on this device and queues its upload.
    /// - Parameter plan: The plan.
    /// - Returns: The plan as saved, owned by the signed-in user.
    /// - Throws: ``SyncError`` — `notSignedIn`, `invalidRecord`, `notAuthorized`, `recordExists`.
    func createPlan(_ plan: TrainingPlan) async throws -> TrainingPlan

    /// Saves a change to a plan on this device and queues its upload.
    /// - Parameter plan: The plan.
    /// - Returns: The plan as saved.
    /// - Throws: ``SyncError`` — `notSignedIn`, `invalidRecord`, `notAuthorized`, `recordNotFound`.
    func updatePlan(_ plan: TrainingPlan) async throws -> TrainingPlan

    /// Deletes a plan on this device and queues the deletion.
    /// - Parameter id: The plan's ID.
    /// - Throws: ``SyncError`` — `notSignedIn`, `recordNotFound`.
    func deletePlan(id: UUID) async throws

    /// The signed-in user's plans now, then again each time they change on this
    /// device — an edit, a download, a deletion — or another user signs in: what a
    /// view model shows, current without a refresh.
    /// - Returns: A stream that ends when the consumer stops.
    func planUpdates() -> AsyncStream<[TrainingPlan]>
}

/// Sync with the remote: each plan's status, the sync itself, conflicts and what the
/// remote refused.
///
/// A capability of ``PlanSyncService``.
public protocol PlanSyncing: Sendable {
    /// Where a plan stands between this device and the remote.
    /// - Parameter id: The plan's ID.
    /// - Returns: The status, or nil if there is no such plan here.
    /// - Throws: ``SyncError`` — `notSignedIn`, `storage`.
    func status(ofPlan id: UUID) throws -> SyncStatus?

    /// Status changes of plans, as they happen.
    /// - Returns: A stream that ends when the consumer stops.
    func statusChanges() -> AsyncStream<SyncStatusChange>

    /// Each reason to sync as it happens: an edit saved on this device, or a change
    /// the remote signals from another device. ``BackgroundSyncManager`` follows it.
    /// - Returns: A stream that ends when the consumer stops.
    func syncTriggers() -> AsyncStream<SyncTrigger>

    /// Uploads the queued edits and downloads the changes made elsewhere.
    /// - Returns: What the sync did.
    /// - Throws: ``SyncError`` — `notSignedIn`, `remoteUnavailable`, `cancelled`.
    @discardableResult
    func sync() async throws -> SyncReport

    /// Uploads one plan's queued edit now.
    /// - Parameter id: The plan's ID.
    /// - Returns: Its status afterwards.
    /// - Throws: ``SyncError`` — `notSignedIn`, `recordNotFound`, `remoteUnavailable`.
    @discardableResult
    func uploadPlan(id: UUID) async throws -> SyncStatus?

    /// Downloads the changes made elsewhere, without uploading.
    /// - Returns: What the download did.
    /// - Throws: ``SyncError`` — `notSignedIn`, `remoteUnavailable`, `cancelled`.
    @discardableResult
    func downloadPlans() async throws -> SyncReport

    /// Chooses the version of a plan whose conflict is held for the app.
    /// - Parameters:
    ///   - id: The plan's ID.
    ///   - plan: The version to keep.
    /// - Returns: The plan as saved.
    /// - Throws: ``SyncError`` — `notSignedIn`, `noConflict`, `invalidRecord`.
    func resolveConflict(planID id: UUID, keeping plan: TrainingPlan) async throws -> TrainingPlan

    /// The values that lost conflicts, oldest first: what the app can show or restore.
    /// - Returns: The log.
    /// - Throws: ``SyncError`` — `notSignedIn`, `storage`.
    func conflictLog() throws -> [SyncConflictRecord]

    /// The plans the remote refused for good.
    /// - Returns: The dead letters.
    /// - Throws: ``SyncError`` — `notSignedIn`, `storage`.
    func deadLetters() throws -> [DeadLetter]
}

/// The deletion of the signed-in user's plans, which the account service runs as a
/// step of an account deletion.
///
/// A capability of ``PlanSyncService``.
public protocol PlanSyncAccountData: Sendable {
    /// Deletes the signed-in user's plans from this device and from the remote, with
    /// their queued uploads, conflicts and dead letters, as part of deleting the
    /// account. Calling it again finishes what a failure left.
    /// - Returns: How many plans were deleted on each side.
    /// - Throws: ``SyncError`` — `notSignedIn`, `remoteUnavailable`, `storage`.
    func deleteAccountData() async throws -> SyncDeletionReport
}

/// The purge a backend runs when a deleted user's grace period ends.
///
/// A capability of ``PlanSyncService`` that no view model needs.
public protocol PlanSyncAdministration: Sendable {
    /// Deletes a user's plans on this device and on the remote, whoever is signed in,
    /// once the auth service's scheduled deletion of that user is due: the purge a
    /// backend runs when the grace period ends.
    /// - Parameter userID: The user.
    /// - Returns: How many plans were deleted on each side.
    /// - Throws: ``SyncError`` — `notAuthorized` (no scheduled deletion of the user is
    ///   due; nothing is deleted), `remoteUnavailable`, `storage`.
    func purgeAccountData(of userID: String) async throws -> SyncDeletionReport
}

/// Training plans that work offline and sync across the user's devices: every edit
/// is saved on the device first and uploaded by ``PlanSyncing/sync()``; edits made elsewhere
/// arrive with it. Every call acts as the signed-in user.
///
/// TrainKit's conformance is ``LocalPlanSyncService`` (the ``SyncEngine`` for plans),
/// in memory or in a file; `FakePlanSyncService` in TrainTesting is a scriptable double.
///
/// ```swift
/// func rename(_ id: UUID, to name: String, plans: any PlanSyncService) async throws {
///     guard var plan = try plans.plan(id: id) else { return }
///     plan.name = name
///     _ = try await plans.updatePlan(plan)     // saved here, queued for upload
///     try await plans.sync()                   // uploaded when the network allows
/// }
/// ```
public protocol PlanSyncService: PlanEditing, PlanSyncing, PlanSyncAccountData, PlanSyncAdministration {}

/// TrainKit's ``PlanSyncService``: the ``SyncEngine`` for training plans.
public typealias LocalPlanSyncService = SyncEngine<TrainingPlan>

extension SyncEngine: PlanSyncService where Record == TrainingPlan {}

extension SyncEngine: PlanEditing where Record == TrainingPlan {
    public func plans() throws(SyncError) -> [TrainingPlan] { try records() }

    public func plan(id: UUID) throws(SyncError) -> TrainingPlan? { try record(id: id) }

    public func createPlan(_ plan: TrainingPlan) async throws(SyncError) -> TrainingPlan {
        try await create(stamped(plan))
    }

    public func updatePlan(_ plan: TrainingPlan) async throws(SyncError) -> TrainingPlan {
        try await update(stamped(plan))
    }

    public func deletePlan(id: UUID) async throws(SyncError) { try await delete(id: id) }

    public func planUpdates() -> AsyncStream<[TrainingPlan]> { recordUpdates() }

    /// `plan` with `lastModified` set to now, to the millisecond.
    private func stamped(_ plan: TrainingPlan) -> TrainingPlan {
        var plan = plan
        plan.lastModified = Date(timeIntervalSince1970: (context.clock.now.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
        return plan
    }
}

extension SyncEngine: PlanSyncing where Record == TrainingPlan {
    public func status(ofPlan id: UUID) throws(SyncError) -> SyncStatus? { try status(of: id) }

    @discardableResult
    public func uploadPlan(id: UUID) async throws(SyncError) -> SyncStatus? { try await upload(id: id) }

    @discardableResult
    public func downloadPlans() async throws(SyncError) -> SyncReport { try await download() }

    public func resolveConflict(planID id: UUID, keeping plan: TrainingPlan) async throws(SyncError) -> TrainingPlan {
        try await resolveConflict(id: id, keeping: stamped(plan))
    }
}

extension SyncEngine: PlanSyncAccountData where Record == TrainingPlan {}

extension SyncEngine: PlanSyncAdministration where Record == TrainingPlan {}

extension PlanEditing where Self: PlanSyncing {
    /// The plans now, then again after each status change: for a conformance of your
    /// own that has no stream of its plans.
    /// - Returns: A stream that ends when the consumer stops.
    public func planUpdates() -> AsyncStream<[TrainingPlan]> {
        let (stream, continuation) = AsyncStream<[TrainingPlan]>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let changes = statusChanges()
        continuation.yield((try? plans()) ?? [])
        let following = Task {
            for await _ in changes { continuation.yield((try? plans()) ?? []) }
            continuation.finish()
        }
        continuation.onTermination = { _ in following.cancel() }
        return stream
    }
}

extension PlanSyncing {
    /// ``SyncTrigger/localEdit`` at each plan that becomes queued for upload: for a
    /// conformance of your own whose remote does not signal its changes.
    /// - Returns: A stream that ends when the consumer stops.
    public func syncTriggers() -> AsyncStream<SyncTrigger> {
        let (stream, continuation) = AsyncStream<SyncTrigger>.makeStream(bufferingPolicy: .bufferingNewest(8))
        let changes = statusChanges()
        let following = Task {
            for await change in changes where change.status == .notSynced || change.status == .pendingUpload {
                continuation.yield(.localEdit)
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in following.cancel() }
        return stream
    }
}
