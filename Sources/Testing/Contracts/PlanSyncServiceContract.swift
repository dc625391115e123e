import Foundation
import TrainSync

/// What the ``PlanSyncServiceContract`` needs from the conformance under test.
public protocol PlanSyncContractEnvironment: Sendable {
    /// Makes `count` devices, each with its own local data, syncing through one empty remote.
    /// - Parameter count: How many devices.
    /// - Returns: The devices.
    func makeDevices(_ count: Int) async throws -> [PlanSyncContractDevice]

    /// Makes a device, with its own local data, whose service syncs through `remote`:
    /// a `FakeRemotePlanStore` the check sets to answer as a broken backend would.
    /// - Parameter remote: The remote to sync through.
    /// - Returns: The device, signed out.
    func makeDevice(syncingThrough remote: any RemotePlanStore) async throws -> PlanSyncContractDevice
}

/// One device under test and how to sign users in and out of it.
public struct PlanSyncContractDevice: Sendable {
    /// The service under test.
    public let service: any PlanSyncService
    /// Signs the user with this ID in (nil: signs out); the service's next calls act as them.
    public let signIn: @Sendable (String?) async throws -> Void

    /// Creates a device.
    /// - Parameters:
    ///   - service: The service under test.
    ///   - signIn: Signs a user in, or out with nil.
    public init(service: any PlanSyncService, signIn: @escaping @Sendable (String?) async throws -> Void) {
        self.service = service
        self.signIn = signIn
    }
}

extension PlanSyncContractEnvironment {
    /// Fails the check that asks for it: an environment whose service cannot sync
    /// through a given remote does not run the checks of a misbehaving remote.
    /// - Parameter remote: The remote.
    /// - Returns: Never.
    /// - Throws: ``ContractViolation``.
    public func makeDevice(syncingThrough remote: any RemotePlanStore) async throws -> PlanSyncContractDevice {
        throw ContractViolation(
            check: "makeDevice(syncingThrough:)",
            message: "this environment cannot make a device that syncs through a given remote; implement makeDevice(syncingThrough:)")
    }
}

/// A check of the ``PlanSyncServiceContract``.
public typealias PlanSyncContractCheck = ContractCheck<any PlanSyncContractEnvironment>

extension Expectations {
    func expectSyncError(_ code: SyncError.Code, _ what: String, _ body: () async throws -> Void) async throws {
        try await expectError(code, what, codeOf: { (error: SyncError) in error.code }, body)
    }
}

/// The public behavioural contract of `PlanSyncService`: local edits, statuses,
/// sync between devices, the default field merge, deletions, users kept apart, bad
/// input, and a remote that breaks its own contract refused with typed errors. TrainKit runs it against `LocalPlanSyncService` in memory and on disk;
/// an app runs it against its own conformance:
///
/// ```swift
/// @Test(arguments: PlanSyncServiceContract.checks)
/// func planSyncContract(_ check: PlanSyncContractCheck) async throws {
///     try await check.run(in: MyCloudKitPlansEnvironment())
/// }
/// ```
public enum PlanSyncServiceContract {
    static let start = Date(timeIntervalSince1970: 1_767_571_200)

    static func plan(_ name: String, notes: String = "", days: Int = 3) -> TrainingPlan {
        TrainingPlan(name: name, notes: notes, startDate: start, endDate: start.addingTimeInterval(56 * 86_400), daysPerWeek: days)
    }

    /// A remote where Ada has one plan and Grace one with private notes, and a new
    /// device of Ada's syncing through it, for a check to make the remote misbehave.
    static func hostileWorld(_ environment: any PlanSyncContractEnvironment) async throws -> (FakeRemotePlanStore, PlanSyncContractDevice, UUID) {
        let remote = FakeRemotePlanStore.inMemory()
        let phone = try await environment.makeDevice(syncingThrough: remote)
        try await phone.signIn("contract-ada")
        let adas = try await phone.service.createPlan(plan("Ada's"))
        try await phone.service.sync()
        try await phone.signIn("contract-grace")
        _ = try await phone.service.createPlan(plan("Grace's", notes: "Grace's private notes"))
        try await phone.service.sync()
        let tablet = try await environment.makeDevice(syncingThrough: remote)
        try await tablet.signIn("contract-ada")
        return (remote, tablet, adas.id)
    }

    /// A check that the remote's `misbehavior` ends a sync with `code`, stores nothing
    /// of the answer, and that the sync works once the remote behaves.
    static func refuses(_ misbehavior: FakeRemotePlanStore.Misbehavior, with code: SyncError.Code, _ what: String) -> PlanSyncContractCheck {
        PlanSyncContractCheck(
            "\(what) ends the sync \(code), stores nothing of the answer, and the next sync works once the remote behaves", covers: PlanSyncing.self
        ) {
            environment, check in
            let (remote, tablet, adas) = try await hostileWorld(environment)
            remote.misbehave(misbehavior)
            try await check.expectSyncError(code, what) { try await tablet.service.sync() }
            try check.expect(try tablet.service.plans().isEmpty, "nothing of the refused answer is stored")
            remote.behave()
            try await tablet.service.sync()
            try check.expect(try tablet.service.plans().map(\.id) == [adas], "Ada's plan arrives once the remote behaves, and only hers")
        }
    }

    /// Every check of the contract.
    public static let checks: [PlanSyncContractCheck] = [
        PlanSyncContractCheck(
            "a new plan belongs to the signed-in user, is listed, and is notSynced until a sync makes it synced", covers: PlanEditing.self,
            PlanSyncing.self
        ) {
            environment, check in
            let device = try check.unwrap(try await environment.makeDevices(1).first, "a device")
            try await device.signIn("contract-ada")
            let plan = try await device.service.createPlan(plan("Base"))
            try check.expect(plan.userID == "contract-ada", "the plan is Ada's")
            try check.expect(try device.service.plans().map(\.id) == [plan.id], "the plan is listed")
            try check.expect(try device.service.status(ofPlan: plan.id) == .notSynced, "a new plan is notSynced")
            try await device.service.sync()
            try check.expect(try device.service.status(ofPlan: plan.id) == .synced, "a sync makes it synced")
        },
        PlanSyncContractCheck("a plan made on one device reaches another, and so do its edit and its deletion", covers: PlanSyncing.self) {
            environment, check in
            let devices = try await environment.makeDevices(2)
            for device in devices { try await device.signIn("contract-ada") }
            var plan = try await devices[0].service.createPlan(plan("Shared"))
            try await devices[0].service.sync()
            try await devices[1].service.sync()
            try check.expect(try devices[1].service.plan(id: plan.id)?.name == "Shared", "the plan arrives")
            plan.notes = "Edited on the first device"
            _ = try await devices[0].service.updatePlan(plan)
            try await devices[0].service.sync()
            try await devices[1].service.sync()
            try check.expect(try devices[1].service.plan(id: plan.id)?.notes == plan.notes, "the edit arrives")
            try await devices[1].service.deletePlan(id: plan.id)
            try await devices[1].service.sync()
            try await devices[0].service.sync()
            try check.expect(try devices[0].service.plan(id: plan.id) == nil, "the deletion arrives")
        },
        PlanSyncContractCheck("edits to different fields on two devices both survive by default", covers: PlanSyncing.self) { environment, check in
            let devices = try await environment.makeDevices(2)
            for device in devices { try await device.signIn("contract-ada") }
            let plan = try await devices[0].service.createPlan(plan("Base", days: 3))
            try await devices[0].service.sync()
            try await devices[1].service.sync()
            var renamed = plan
            renamed.name = "Renamed"
            _ = try await devices[0].service.updatePlan(renamed)
            var busier = plan
            busier.daysPerWeek = 5
            _ = try await devices[1].service.updatePlan(busier)
            for device in devices + devices { try await device.service.sync() }
            for device in devices {
                let merged = try check.unwrap(try device.service.plan(id: plan.id), "the plan")
                try check.expect(merged.name == "Renamed" && merged.daysPerWeek == 5, "both edits survive, got \(merged.name), \(merged.daysPerWeek)")
            }
        },
        PlanSyncContractCheck(
            "workouts keep their places: one inserted between two on one device and one appended on the other stand where each was put",
            covers: PlanSyncing.self
        ) { environment, check in
            let devices = try await environment.makeDevices(2)
            for device in devices { try await device.signIn("contract-ada") }
            var base = plan("Week", days: 3)
            base.weeklyWorkouts = ["one", "three"].map { PlannedWorkout(title: $0, minutes: 30) }
            let plan = try await devices[0].service.createPlan(base)
            try await devices[0].service.sync()
            try await devices[1].service.sync()
            var inserted = plan
            inserted.weeklyWorkouts.insert(PlannedWorkout(title: "two", minutes: 30), at: 1)
            _ = try await devices[0].service.updatePlan(inserted)
            var appended = plan
            appended.weeklyWorkouts.append(PlannedWorkout(title: "four", minutes: 30))
            _ = try await devices[1].service.updatePlan(appended)
            for device in devices + devices { try await device.service.sync() }
            for device in devices {
                let titles = try check.unwrap(try device.service.plan(id: plan.id), "the plan").weeklyWorkouts.map(\.title)
                try check.expect(titles == ["one", "two", "three", "four"], "each workout where it was put, got \(titles)")
            }
        },
        PlanSyncContractCheck("one user's plans, queued or synced, never reach another user", covers: PlanSyncing.self) { environment, check in
            let devices = try await environment.makeDevices(2)
            try await devices[0].signIn("contract-ada")
            _ = try await devices[0].service.createPlan(plan("Ada's synced plan"))
            try await devices[0].service.sync()
            _ = try await devices[0].service.createPlan(plan("Ada's queued plan"))
            try await devices[0].signIn("contract-grace")
            try check.expect(try devices[0].service.plans().isEmpty, "Grace sees none of Ada's plans on Ada's device")
            try await devices[0].service.sync()
            try check.expect(try devices[0].service.plans().isEmpty, "nor after a sync")
            try await devices[1].signIn("contract-grace")
            try await devices[1].service.sync()
            try check.expect(try devices[1].service.plans().isEmpty, "nor on her own device")
        },
        PlanSyncContractCheck("invalid plans and unknown IDs are refused with typed errors and change nothing", covers: PlanEditing.self) {
            environment, check in
            let device = try check.unwrap(try await environment.makeDevices(1).first, "a device")
            try await device.signIn("contract-ada")
            let kept = try await device.service.createPlan(plan("Kept"))
            var empty = kept
            empty.name = "  "
            try await check.expectSyncError(.invalidRecord, "an empty name") { _ = try await device.service.updatePlan(empty) }
            var backwards = kept
            backwards.endDate = kept.startDate.addingTimeInterval(-86_400)
            try await check.expectSyncError(.invalidRecord, "an end before the start") { _ = try await device.service.updatePlan(backwards) }
            var eightDays = kept
            eightDays.daysPerWeek = 8
            try await check.expectSyncError(.invalidRecord, "8 days a week") { _ = try await device.service.updatePlan(eightDays) }
            try await check.expectSyncError(.recordNotFound, "an unknown plan") { _ = try await device.service.updatePlan(plan("Nobody's")) }
            try await check.expectSyncError(.recordNotFound, "deleting an unknown plan") { try await device.service.deletePlan(id: UUID()) }
            var theirs = kept
            theirs.userID = "contract-grace"
            try await check.expectSyncError(.notAuthorized, "a plan of another user") { _ = try await device.service.updatePlan(theirs) }
            try check.expect(try device.service.plans() == [kept], "the plan is unchanged")
        },
        PlanSyncContractCheck("signed out, calls are notSignedIn", covers: PlanEditing.self, PlanSyncing.self) { environment, check in
            let device = try check.unwrap(try await environment.makeDevices(1).first, "a device")
            try await device.signIn(nil)
            try await check.expectSyncError(.notSignedIn, "creating a plan") { _ = try await device.service.createPlan(plan("Anyone's")) }
            try await check.expectSyncError(.notSignedIn, "a sync") { try await device.service.sync() }
            try await check.expectSyncError(.notSignedIn, "listing plans") { _ = try device.service.plans() }
        },
        PlanSyncContractCheck(
            "the plans stream gives the plans now, then again after an edit here and after a download of another device's edit",
            covers: PlanEditing.self
        ) {
            environment, check in
            let devices = try await environment.makeDevices(2)
            for device in devices { try await device.signIn("contract-ada") }
            var first = try await devices[0].service.createPlan(plan("First"))
            let updates = devices[0].service.planUpdates()
            try check.expect(
                await updates.firstValue(where: { $0.map(\.name) == ["First"] }, within: Expectations.streamWait) != nil, "the plans now")
            first.name = "Renamed"
            _ = try await devices[0].service.updatePlan(first)
            try check.expect(
                await updates.firstValue(where: { $0.map(\.name) == ["Renamed"] }, within: Expectations.streamWait) != nil, "the plans after an edit")
            try await devices[0].service.sync()
            _ = try await devices[1].service.sync()
            _ = try await devices[1].service.createPlan(plan("Elsewhere"))
            try await devices[1].service.sync()
            try await devices[0].service.sync()
            try check.expect(
                await updates.firstValue(where: { Set($0.map(\.name)) == ["Renamed", "Elsewhere"] }, within: Expectations.streamWait) != nil,
                "the plans after a download")
        },
        PlanSyncContractCheck(
            "deleting the user's plan data removes their plans here and on the remote, so another device has none after a sync",
            covers: PlanSyncAccountData.self
        ) { environment, check in
            let devices = try await environment.makeDevices(2)
            for device in devices { try await device.signIn("contract-ada") }
            _ = try await devices[0].service.createPlan(plan("Synced"))
            try await devices[0].service.sync()
            _ = try await devices[0].service.createPlan(plan("Queued"))
            let report = try await devices[0].service.deleteAccountData()
            try check.expect(report.localRecords == 2 && report.remoteRecords == 1, "two plans here and one on the remote: \(report)")
            try check.expect(try devices[0].service.plans().isEmpty, "no plan is left here")
            try await devices[1].service.sync()
            try check.expect(try devices[1].service.plans().isEmpty, "the other device downloads no plan")
        },
        PlanSyncContractCheck(
            "a purge of a user whose deletion is not due is notAuthorized and deletes nothing", covers: PlanSyncAdministration.self
        ) { environment, check in
            let device = try check.unwrap(try await environment.makeDevices(1).first, "a device")
            try await device.signIn("contract-ada")
            let kept = try await device.service.createPlan(plan("Kept"))
            try await device.signIn("contract-grace")
            try await check.expectSyncError(.notAuthorized, "purging Ada") { _ = try await device.service.purgeAccountData(of: "contract-ada") }
            try await device.signIn("contract-ada")
            try check.expect(try device.service.plans() == [kept], "Ada's plan is still here")
        },
        refuses(.foreignRecords(ofUser: "contract-grace"), with: .foreignRecord, "a page with another user's plan"),
        refuses(.mismatchedRecordIDs, with: .mismatchedRecordID, "a record under another record's ID"),
        refuses(.unreadableDocuments, with: .unreadableRecord, "a document cut short"),
        refuses(.endlessChangeFeed, with: .stalledCursor, "a change feed whose cursor never moves on"),
    ]
}
