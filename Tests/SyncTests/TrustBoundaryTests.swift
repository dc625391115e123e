import Foundation
import Testing
import TrainCore
import TrainSync
import TrainTesting

@testable import TrainSync

/// SYNC-10: every answer of the remote is checked before anything of it is stored.
/// Ada's phone fills a remote that behaves; her tablet then syncs through it while
/// it misbehaves, and must refuse the answer with a typed error, store nothing of
/// it, return, and sync normally once the remote behaves again.
@Suite struct TrustBoundaryTests {
    /// A world whose devices sync through one fake remote.
    struct Setup {
        let world: SyncWorld
        let remote: FakeRemotePlanStore
        let phone: Device
        let tablet: Device
        let plans: [TrainingPlan]

        /// The tablet's plans, by name.
        func tabletNames() throws -> [String] { try tablet.plans.plans().map(\.name).sorted() }
    }

    /// Ada's phone makes `count` plans and syncs them; Grace has one plan with private notes.
    static func setup(_ variant: SyncVariant, plans count: Int = 2, pageSize: Int = 500) async throws -> Setup {
        let world = try SyncWorld(variant)
        let local = LocalRemotePlanStore(context: TrainContext(clock: world.remoteClock))
        let remote = FakeRemotePlanStore(backedBy: local, clock: world.remoteClock)
        let phone = try world.device("phone", remote: remote)
        let tablet = try world.device("tablet", pageSize: pageSize, remote: remote)
        var plans: [TrainingPlan] = []
        for index in 0..<count { plans.append(try await phone.plans.createPlan(Fixture.plan("Plan \(index)"))) }
        try await phone.plans.sync()
        let grace = try world.device("graces-phone", user: "grace", remote: remote)
        _ = try await grace.plans.createPlan(Fixture.plan("Grace's", notes: "Grace's private notes"))
        try await grace.plans.sync()
        return Setup(world: world, remote: remote, phone: phone, tablet: tablet, plans: plans)
    }

    /// Syncs the tablet through the misbehaving remote, expecting `code`, then checks
    /// nothing was stored and that a sync once the remote behaves brings Ada's plans.
    static func expectRefusal(_ setup: Setup, _ code: SyncError.Code) async throws {
        await #expect(throws: SyncError(code)) { try await setup.tablet.plans.sync() }
        #expect(try setup.tablet.plans.plans().isEmpty, "nothing of the refused answer is stored")
        for plan in setup.plans { #expect(try setup.tablet.plans.status(ofPlan: plan.id) == nil) }
        setup.remote.behave()
        try await setup.tablet.plans.sync()
        #expect(try setup.tabletNames() == setup.plans.map(\.name).sorted(), "the cursor did not move past the refused page")
    }

    @Test("a change feed that answers more to follow with the same cursor forever ends the sync stalledCursor", arguments: SyncVariant.allCases)
    func endlessChangeFeed(_ variant: SyncVariant) async throws {
        let setup = try await Self.setup(variant)
        setup.remote.misbehave(.endlessChangeFeed)
        setup.remote.controls.clearCalls()
        await #expect(throws: SyncError(.stalledCursor)) { try await setup.tablet.plans.sync() }
        #expect(setup.remote.controls.calls.count == 1, "one call, not one until a cap")
        try await Self.expectRefusal(setup, .stalledCursor)
    }

    @Test("a snapshot whose pages repeat ends the sync stalledCursor, and the stale plans it was checking stay", arguments: SyncVariant.allCases)
    func repeatingSnapshot(_ variant: SyncVariant) async throws {
        let setup = try await Self.setup(variant, plans: 3, pageSize: 1)
        try await setup.tablet.plans.sync()
        // The tablet is told its cursor is too old, so it reads everything again.
        setup.remote.script(.changes, .once(.failure(RemoteStoreError(.cursorExpired))))
        setup.remote.misbehave(.repeatingSnapshot)
        await #expect(throws: SyncError(.stalledCursor)) { try await setup.tablet.plans.sync() }
        #expect(try setup.tabletNames() == ["Plan 0", "Plan 1", "Plan 2"], "nothing is swept away by a refused snapshot")
        setup.remote.behave()
        let report = try await setup.tablet.plans.sync()
        #expect(report.didFullResync)
        #expect(try setup.tabletNames() == ["Plan 0", "Plan 1", "Plan 2"])
        #expect(try setup.tablet.plans.plans().allSatisfy { try setup.tablet.plans.status(ofPlan: $0.id) == .synced })
    }

    @Test("a page with another user's plan ends the sync foreignRecord; her notes never reach the device", arguments: SyncVariant.allCases)
    func foreignRecord(_ variant: SyncVariant) async throws {
        let setup = try await Self.setup(variant)
        setup.remote.misbehave(.foreignRecords(ofUser: "grace"))
        await #expect(throws: SyncError(.foreignRecord)) { try await setup.tablet.plans.sync() }
        #expect(try setup.tablet.plans.plans().contains { $0.notes == "Grace's private notes" } == false)
        try await Self.expectRefusal(setup, .foreignRecord)
        #expect(try setup.tablet.plans.plans().allSatisfy { $0.userID == "ada" })
    }

    @Test("a record whose document is another record's ends the sync mismatchedRecordID", arguments: SyncVariant.allCases)
    func mismatchedRecordID(_ variant: SyncVariant) async throws {
        let setup = try await Self.setup(variant)
        setup.remote.misbehave(.mismatchedRecordIDs)
        try await Self.expectRefusal(setup, .mismatchedRecordID)
    }

    @Test("a document cut short ends the sync unreadableRecord", arguments: SyncVariant.allCases)
    func unreadableDocument(_ variant: SyncVariant) async throws {
        let setup = try await Self.setup(variant)
        setup.remote.misbehave(.unreadableDocuments)
        try await Self.expectRefusal(setup, .unreadableRecord)
    }

    @Test("a page with more records than asked ends the sync oversizedPage", arguments: SyncVariant.allCases)
    func oversizedPage(_ variant: SyncVariant) async throws {
        let setup = try await Self.setup(variant, plans: 3, pageSize: 1)
        setup.remote.misbehave(.oversizedPages)
        try await Self.expectRefusal(setup, .oversizedPage)
    }

    @Test("a document over the remote's own size limit ends the sync unreadableRecord")
    func documentOverLimit() async throws {
        let world = try SyncWorld()
        let local = LocalRemotePlanStore(context: TrainContext(clock: world.remoteClock))
        let remote = FakeRemotePlanStore(backedBy: local, clock: world.remoteClock)
        let phone = try world.device("phone", remote: remote)
        let plan = try await phone.plans.createPlan(Fixture.plan())
        try await phone.plans.sync()
        var page = try await local.changes(in: RemoteScope(userID: "ada", collection: "plans"), after: 0, limit: 10)
        let record = try #require(page.records.first)
        // The same record, padded past the 1 MiB the remote declares.
        page = RemotePage(
            records: [
                RemoteRecord(
                    id: record.id, version: record.version, isDeleted: false, mutation: record.mutation,
                    document: record.document + Data(count: remote.maximumDocumentBytes))
            ], cursor: page.cursor, hasMore: false, serverTime: page.serverTime)
        remote.script(.changes, .once(.success(page)))
        let tablet = try world.device("tablet", remote: remote)
        await #expect(throws: SyncError(.unreadableRecord)) { try await tablet.plans.sync() }
        #expect(try tablet.plans.plan(id: plan.id) == nil)
    }

    @Test(
        "a write answered with a result count other than the writes sent, or applied at a version not after its base, is malformedAnswer and acknowledges nothing"
    )
    func malformedWriteAnswers() async throws {
        let world = try SyncWorld()
        let local = LocalRemotePlanStore(context: TrainContext(clock: world.remoteClock))
        let remote = FakeRemotePlanStore(backedBy: local, clock: world.remoteClock)
        let phone = try world.device("phone", remote: remote)
        let plan = try await phone.plans.createPlan(Fixture.plan())
        remote.script(.write, .once(.success(RemoteWriteResponse(results: [], serverTime: world.remoteClock.now))))
        await #expect(throws: SyncError(.malformedAnswer)) { try await phone.plans.sync() }
        #expect(try phone.plans.status(ofPlan: plan.id) == .notSynced)
        try await phone.plans.sync()
        var edited = plan
        edited.notes = "edited"
        _ = try await phone.plans.updatePlan(edited)
        let synced = try #require(
            try await local.changes(in: RemoteScope(userID: "ada", collection: "plans"), after: 0, limit: 10).records.first)
        remote.script(.write, .once(.success(RemoteWriteResponse(results: [.applied(version: synced.version)], serverTime: world.remoteClock.now))))
        await #expect(throws: SyncError(.malformedAnswer)) { try await phone.plans.sync() }
        #expect(try phone.plans.status(ofPlan: plan.id) == .pendingUpload)
        try await phone.plans.sync()
        #expect(try await world.remotePlans(from: remote).map(\.notes) == ["edited"])
    }

    @Test("a conflict answered with another record, or with another user's, refuses the whole answer")
    func conflictWithAnotherRecord() async throws {
        let world = try SyncWorld()
        let local = LocalRemotePlanStore(context: TrainContext(clock: world.remoteClock))
        let remote = FakeRemotePlanStore(backedBy: local, clock: world.remoteClock)
        let phone = try world.device("phone", remote: remote)
        let plan = try await phone.plans.createPlan(Fixture.plan())
        let other = try await phone.plans.createPlan(Fixture.plan("other"))
        try await phone.plans.sync()
        let records = try await local.changes(in: RemoteScope(userID: "ada", collection: "plans"), after: 0, limit: 10).records
        let otherRecord = try #require(records.first { $0.id == other.id })
        var edited = plan
        edited.notes = "edited"
        _ = try await phone.plans.updatePlan(edited)
        remote.script(.write, .once(.success(RemoteWriteResponse(results: [.conflict(current: otherRecord)], serverTime: world.remoteClock.now))))
        await #expect(throws: SyncError(.mismatchedRecordID)) { try await phone.plans.sync() }
        let grace = try world.device("graces-phone", user: "grace", remote: remote)
        let graces = try await grace.plans.createPlan(Fixture.plan("Grace's", id: plan.id))
        try await grace.plans.sync()
        let graceRecord = try #require(
            try await local.changes(in: RemoteScope(userID: "grace", collection: "plans"), after: 0, limit: 10).records.first)
        #expect(graceRecord.id == graces.id)
        // Her record, under a version of Ada's record the phone has not seen.
        let foreign = RemoteRecord(id: plan.id, version: 99, isDeleted: false, mutation: graceRecord.mutation, document: graceRecord.document)
        remote.script(.write, .once(.success(RemoteWriteResponse(results: [.conflict(current: foreign)], serverTime: world.remoteClock.now))))
        await #expect(throws: SyncError(.foreignRecord)) { try await phone.plans.sync() }
        #expect(try phone.plans.plan(id: plan.id)?.notes == "edited")
        #expect(try phone.plans.status(ofPlan: plan.id) == .pendingUpload)
        #expect(try phone.plans.conflictLog().isEmpty)
    }

    /// A remote whose change feed always has one more version of the same record.
    final class EverAdvancingRemote: RemotePlanStore {
        let inner: LocalRemotePlanStore
        let calls = Locked(0)
        /// The cursor each change-feed call asked after.
        let cursors = Locked([UInt64]())
        init(_ inner: LocalRemotePlanStore) { self.inner = inner }
        func write(_ mutations: [RemoteMutation], in scope: RemoteScope) async throws -> RemoteWriteResponse {
            try await inner.write(mutations, in: scope)
        }
        func changes(in scope: RemoteScope, after cursor: UInt64, limit: Int) async throws -> RemotePage {
            calls.withLock { $0 += 1 }
            cursors.withLock { $0.append(cursor) }
            let record = try #require(try await inner.changes(in: scope, after: 0, limit: 1).records.first)
            let next = RemoteRecord(id: record.id, version: cursor + 1, isDeleted: false, mutation: record.mutation, document: record.document)
            return RemotePage(records: [next], cursor: cursor + 1, hasMore: true, serverTime: Date())
        }
        func snapshot(in scope: RemoteScope, after recordID: UUID?, limit: Int) async throws -> RemotePage {
            try await inner.snapshot(in: scope, after: recordID, limit: limit)
        }
        func erase(_ scope: RemoteScope) async throws -> Int { try await inner.erase(scope) }
    }

    @Test("a sync makes at most maximumRemoteCalls calls, keeps what it read, and the next one goes on", arguments: SyncVariant.allCases)
    func boundedCalls(_ variant: SyncVariant) async throws {
        let world = try SyncWorld(variant)
        let phone = try world.device("phone")
        _ = try await phone.plans.createPlan(Fixture.plan())
        try await phone.plans.sync()
        let remote = EverAdvancingRemote(world.local)
        let tablet = try world.device("tablet", remote: remote)
        let limited = try LocalPlanSyncService(
            auth: tablet.auth, remote: remote, storage: variant == .file ? .file(world.directory.file("limited.sqlite")) : .inMemory,
            context: TrainContext(clock: tablet.clock), configuration: SyncConfiguration(maximumRemoteCalls: 25))
        await #expect(throws: SyncError(.tooManyRemoteCalls)) { try await limited.sync() }
        #expect(remote.calls.withLock { $0 } == 25)
        #expect(try limited.plans().count == 1, "what the sync read is kept")
        await #expect(throws: SyncError(.tooManyRemoteCalls)) { try await limited.sync() }
        #expect(remote.calls.withLock { $0 } == 50)
        #expect(remote.cursors.withLock { $0[25] } == 25, "the second sync went on from the first one's cursor")
    }

    /// Syncs until a sync ends without reaching its call limit, at most 6 times; returns how many it took.
    static func syncs(_ plans: LocalPlanSyncService) async -> Int {
        for attempt in 1...6 {
            do {
                try await plans.sync()
                return attempt
            } catch {
                #expect(error.code == .tooManyRemoteCalls)
            }
        }
        return 7
    }

    @Test(
        "a full download that needs more calls than a sync may make goes on where it stopped at the next sync, and finishes",
        arguments: SyncVariant.allCases)
    func resyncOverTheCallLimit(_ variant: SyncVariant) async throws {
        let world = try SyncWorld(variant, configuration: RemoteConfiguration(tombstoneRetention: .seconds(1)))
        let phone = try world.device("phone")
        for index in 0..<7 { _ = try await phone.plans.createPlan(Fixture.plan("Plan \(index)")) }
        let doomed = try await phone.plans.createPlan(Fixture.plan("doomed"))
        try await phone.plans.sync()
        let tablet = try world.device("tablet")
        let limited = try LocalPlanSyncService(
            auth: tablet.auth, remote: world.remote, storage: variant == .file ? .file(world.directory.file("limited.sqlite")) : .inMemory,
            context: TrainContext(clock: tablet.clock), configuration: SyncConfiguration(pageSize: 1, maximumRemoteCalls: 4))
        #expect(await Self.syncs(limited) <= 3, "8 pages of 1, 4 calls a sync")
        #expect(try limited.plans().count == 8)
        // The tablet's cursor is older than a deletion the remote no longer keeps: it reads everything again.
        try await phone.plans.deletePlan(id: doomed.id)
        try await phone.plans.sync()
        world.advance(by: 10)
        try await phone.plans.sync()
        let attempts = await Self.syncs(limited)
        #expect(attempts <= 3, "7 pages of 1 in syncs of at most 4 calls take 2 or 3 syncs, took \(attempts)")
        #expect(try limited.plans().count == 7)
        #expect(try limited.plan(id: doomed.id) == nil, "the deleted plan is swept once the snapshot is read")
    }

    @Test("the background manager's status shows the refusal, with its code")
    func statusShowsRefusal() async throws {
        let setup = try await Self.setup(.inMemory)
        setup.remote.misbehave(.foreignRecords(ofUser: "grace"))
        let manager = BackgroundSyncManager(
            service: setup.tablet.plans, context: TrainContext(clock: setup.tablet.clock), configuration: BackgroundSyncConfiguration(jitter: { 0.5 })
        )
        let failed = Task {
            await manager.statusUpdates().firstValue(where: { status in
                if case .failed = status { true } else { false }
            })
        }
        manager.start()
        let status = await failed.value
        manager.stop()
        guard case .failed(let error, _, _, _)? = status else {
            Issue.record("no failure status: \(String(describing: status))")
            return
        }
        #expect(error.code == .foreignRecord)
        #expect(error.code.isRemoteViolation)
        #expect(error.errorDescription == "Your plans could not be synced: the server's answer was refused.")
    }

    @Test("a document's ID field matches a record ID only as that ID's uuidString in quotes")
    func idFieldComparison() {
        var random = SeededRandomNumberGenerator(seed: 7)
        for _ in 0..<200 {
            let id = UUID(uuid: ChaosSyncTests.uuid(&random))
            let json = Array("\"\(id.uuidString)\"".utf8)
            #expect(AnswerCheck<TrainingPlan>.json(json, is: id))
            #expect(
                !AnswerCheck<TrainingPlan>.json(Array("\"\(id.uuidString.lowercased())\"".utf8), is: id)
                    || !id.uuidString.contains { $0.isLetter })
            #expect(!AnswerCheck<TrainingPlan>.json(Array(id.uuidString.utf8), is: id), "without quotes")
            var other = json
            other[1 + Int.random(in: 0..<36, using: &random)] = UInt8(ascii: "G")
            #expect(!AnswerCheck<TrainingPlan>.json(other, is: id), "one character changed")
            #expect(!AnswerCheck<TrainingPlan>.json(json, is: UUID(uuid: ChaosSyncTests.uuid(&random))), "another ID")
        }
    }
}
