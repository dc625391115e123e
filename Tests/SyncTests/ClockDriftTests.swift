import Foundation
import Testing
import TrainCore
import TrainSync
import TrainTesting

@testable import TrainSync

/// SYNC-11: a remote's time is taken within a maximum drift, a reading beyond it is
/// ignored and reported, and within one launch elapsed time keeps the hybrid clock
/// moving when the device's clock is set back.
@Suite struct ClockDriftTests {
    static let fiftyYears: Duration = .seconds(50 * 365 * 86_400)
    static let scope = RemoteScope(userID: "ada", collection: "plans")

    /// Two devices with one synced plan and one remote: the phone syncs through a fake,
    /// which may misbehave, the tablet through the fake's honest remote underneath.
    static func pair(_ variant: SyncVariant) async throws -> (SyncWorld, FakeRemotePlanStore, Device, Device, TrainingPlan) {
        let world = try SyncWorld(variant)
        let local = LocalRemotePlanStore(context: TrainContext(clock: world.remoteClock))
        let fake = FakeRemotePlanStore(backedBy: local, clock: world.remoteClock)
        let phone = try world.device("phone", remote: fake)
        let tablet = try world.device("tablet", remote: fake.remote)
        let plan = try await phone.plans.createPlan(Fixture.plan(notes: "first"))
        try await phone.plans.sync()
        try await tablet.plans.sync()
        return (world, fake, phone, tablet, plan)
    }

    /// The phone edits the notes, then, later, the tablet does; both sync twice.
    static func editPhoneThenTablet(_ world: SyncWorld, _ phone: Device, _ tablet: Device, _ plan: TrainingPlan) async throws {
        var mine = plan
        mine.notes = "phone, earlier"
        _ = try await phone.plans.updatePlan(mine)
        world.advance(by: 60)
        var theirs = plan
        theirs.notes = "tablet, later"
        _ = try await tablet.plans.updatePlan(theirs)
        for device in [phone, tablet, phone, tablet] { try await device.plans.sync() }
    }

    @Test(
        "one answer with a server time 50 years ahead is ignored and reported, and the next edit does not beat a later one",
        arguments: SyncVariant.allCases)
    func lyingServerTime(_ variant: SyncVariant) async throws {
        let (world, fake, phone, tablet, plan) = try await Self.pair(variant)
        fake.misbehave(.serverTimeOffset(Self.fiftyYears))
        let report = try await phone.plans.sync()
        #expect(report.ignoredClockReadings == 1)
        fake.behave()
        try await Self.editPhoneThenTablet(world, phone, tablet, plan)
        for device in [phone, tablet] { #expect(try device.plans.plan(id: plan.id)?.notes == "tablet, later") }
        let log = try phone.plans.conflictLog() + tablet.plans.conflictLog()
        #expect(try log.map { try $0.losingValue(as: String.self) } == ["phone, earlier"])
    }

    @Test("a server time within the drift corrects a device clock that is hours behind, and one beyond a drift set lower is ignored")
    func driftIsConfigurable() async throws {
        let world = try SyncWorld()
        // Three hours behind: within the default day, the remote's time is taken.
        let behind = try world.device("behind", skew: -3 * 3_600)
        let tablet = try world.device("tablet")
        let plan = try await behind.plans.createPlan(Fixture.plan(notes: "first"))
        #expect(try await behind.plans.sync().ignoredClockReadings == 0)
        try await tablet.plans.sync()
        try await Self.editPhoneThenTablet(world, tablet, behind, plan)
        #expect(try tablet.plans.plan(id: plan.id)?.notes == "tablet, later", "the device behind made the later edit, and it wins")
        // With a drift of an hour, the same device keeps its own time and says so.
        let strict = try LocalPlanSyncService(
            auth: behind.auth, remote: world.remote, storage: .inMemory, context: TrainContext(clock: behind.clock),
            configuration: SyncConfiguration(maximumClockDrift: .seconds(3_600)))
        #expect(try await strict.sync().ignoredClockReadings >= 1)
    }

    @Test("a downloaded edit stamped 50 years ahead does not carry this device's next edit there", arguments: SyncVariant.allCases)
    func futureStampInDocument(_ variant: SyncVariant) async throws {
        let (world, fake, phone, tablet, plan) = try await Self.pair(variant)
        try await Self.renameFromTheFuture(plan, on: try #require(fake.remote), world: world)
        let report = try await phone.plans.sync()
        #expect(report.ignoredClockReadings >= 1)
        #expect(try phone.plans.plan(id: plan.id)?.name == "From the future")
        try await tablet.plans.sync()
        try await Self.editPhoneThenTablet(world, phone, tablet, plan)
        for device in [phone, tablet] { #expect(try device.plans.plan(id: plan.id)?.notes == "tablet, later") }
    }

    @Test("a device clock set back a day after the last sync does not make the next edit lose to an earlier one", arguments: SyncVariant.allCases)
    func clockSetBack(_ variant: SyncVariant) async throws {
        let (world, _, phone, tablet, plan) = try await Self.pair(variant)
        var theirs = plan
        theirs.notes = "tablet, earlier"
        _ = try await tablet.plans.updatePlan(theirs)
        world.advance(by: 60)
        phone.clock.setDate(phone.clock.now.addingTimeInterval(-86_400))
        var mine = plan
        mine.notes = "phone, later"
        _ = try await phone.plans.updatePlan(mine)
        for device in [tablet, phone, tablet, phone] { try await device.plans.sync() }
        for device in [phone, tablet] { #expect(try device.plans.plan(id: plan.id)?.notes == "phone, later") }
    }

    @Test("under last writer wins, a field stamped 50 years ahead that neither side changed does not decide: the later edit wins")
    func lastWriterWinsAfterFutureStamp() async throws {
        let world = try SyncWorld()
        let phone = try world.device("phone", conflictPolicy: .lastWriterWins)
        let tablet = try world.device("tablet", conflictPolicy: .lastWriterWins)
        let plan = try await phone.plans.createPlan(Fixture.plan(notes: "first"))
        try await phone.plans.sync()
        try await Self.renameFromTheFuture(plan, on: world.local, world: world)
        try await phone.plans.sync()
        try await tablet.plans.sync()
        let current = try #require(try phone.plans.plan(id: plan.id))
        try await Self.editPhoneThenTablet(world, phone, tablet, current)
        for device in [phone, tablet] { #expect(try device.plans.plan(id: plan.id)?.notes == "tablet, later") }
    }

    /// Another device, its clock 50 years ahead, renames `plan` "From the future" on `remote`.
    static func renameFromTheFuture(_ plan: TrainingPlan, on remote: LocalRemotePlanStore, world: SyncWorld) async throws {
        let document = try SyncDocument.of(plan, previous: nil, stamp: HybridTimestamp(milliseconds: 1, counter: 0, replicaID: "old"))
        var renamed = plan
        renamed.name = "From the future"
        let future = HybridTimestamp(
            milliseconds: Int64(world.remoteClock.now.addingTimeInterval(fiftyYears.timeInterval).timeIntervalSince1970 * 1000),
            counter: 0, replicaID: "future")
        let head = try #require(try await remote.changes(in: scope, after: 0, limit: 10).records.first)
        let write = RemoteMutation(
            id: MutationID(replicaID: "future", sequence: 1), recordID: plan.id, baseVersion: head.version, isDeletion: false,
            document: try SyncDocument.of(renamed, previous: document, stamp: future).data)
        _ = try await remote.write([write], in: scope)
    }
}
