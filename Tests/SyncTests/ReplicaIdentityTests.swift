import Foundation
import Testing
import TrainAuth
import TrainCore
import TrainSync
import TrainTesting

/// SYNC-12: two devices that share a replica ID lose nothing. The remote never
/// acknowledges a write of one record as another's; a device that finds its ID in use
/// takes a new one and uploads what it holds.
@Suite struct ReplicaIdentityTests {
    /// Gives every device the same ID, as a generator restored from a backup or fixed in code.
    struct FixedIDGenerator: IDGenerator {
        func makeID() -> String { "device" }
    }

    /// A phone and a tablet with one replica ID, on a remote that acknowledges a reused
    /// mutation ID as applied.
    static func devicesOnALyingRemote() throws -> (world: SyncWorld, remote: FakeRemotePlanStore, phone: Device, tablet: Device) {
        let world = try SyncWorld()
        let remote = FakeRemotePlanStore.inMemory(clock: world.remoteClock)
        remote.misbehave(.acknowledgesReusedMutationIDs)
        return (
            world, remote, try world.device("phone", remote: remote, ids: FixedIDGenerator()),
            try world.device("tablet", remote: remote, ids: FixedIDGenerator())
        )
    }

    /// Every plan each device made is on both devices and on the remote, and nothing is queued.
    static func expectNothingLost(_ made: [TrainingPlan], devices: [Device], world: SyncWorld, remote: (any RemotePlanStore)? = nil) async throws {
        for _ in 0..<2 {
            for device in devices { try await device.plans.sync() }
        }
        let expected = Set(made.map(\.id))
        #expect(Set(try await world.remotePlans(from: remote).map(\.id)) == expected)
        for device in devices {
            #expect(Set(try device.plans.plans().map(\.id)) == expected, "\(device.name) holds every plan")
            #expect(try device.plans.pendingCount() == 0, "\(device.name) has nothing queued")
        }
    }

    @Test("two devices whose ID generator gives one ID keep every plan they make, each uploaded in its own sync", arguments: SyncVariant.allCases)
    func fixedGenerator(_ variant: SyncVariant) async throws {
        let world = try SyncWorld(variant)
        let phone = try world.device("phone", ids: FixedIDGenerator())
        let tablet = try world.device("tablet", ids: FixedIDGenerator())
        var made: [TrainingPlan] = []
        made.append(try await phone.plans.createPlan(Fixture.plan("phone's first")))
        try await phone.plans.sync()
        made.append(try await tablet.plans.createPlan(Fixture.plan("tablet's first")))
        let report = try await tablet.plans.sync()
        #expect(report.uploaded == 1)
        #expect(try tablet.plans.status(ofPlan: made[1].id) == .synced)
        #expect(try await world.remotePlans().map(\.name).sorted() == ["phone's first", "tablet's first"])
        for index in 0..<3 {
            made.append(try await phone.plans.createPlan(Fixture.plan("phone's \(index)")))
            made.append(try await tablet.plans.createPlan(Fixture.plan("tablet's \(index)")))
            try await tablet.plans.sync()
            try await phone.plans.sync()
        }
        try await Self.expectNothingLost(made, devices: [phone, tablet], world: world)
    }

    @Test("a device restored from another's file takes a new replica ID when it meets the other's writes, and neither loses a plan or an edit")
    func restoredBackup() async throws {
        let world = try SyncWorld(.file)
        let original = world.directory.file("phone.sqlite")
        var made: [TrainingPlan] = []
        var shared = Fixture.plan("shared")
        do {
            let phone = try world.device("phone", file: original)
            shared = try await phone.plans.createPlan(shared)
            made.append(shared)
            try await phone.plans.sync()
            // An edit queued when the backup is taken: both devices will send it.
            shared.notes = "queued at backup"
            shared = try await phone.plans.updatePlan(shared)
        }
        // The backup is the phone's files; the phone goes on with its own.
        let restored = world.directory.file("tablet.sqlite")
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: original.path + suffix) {
            try FileManager.default.copyItem(atPath: original.path + suffix, toPath: restored.path + suffix)
        }
        let phone = try world.device("phone again", file: original)
        let tablet = try world.device("tablet", file: restored)
        for device in [phone, tablet] { #expect(try device.plans.status(ofPlan: shared.id) == .pendingUpload) }
        try await phone.plans.sync()
        try await tablet.plans.sync()
        made.append(try await phone.plans.createPlan(Fixture.plan("phone's new")))
        try await phone.plans.sync()
        // The tablet's first new plan takes the sequence the phone just used.
        made.append(try await tablet.plans.createPlan(Fixture.plan("tablet's new")))
        var edited = shared
        edited.daysPerWeek = 6
        _ = try await tablet.plans.updatePlan(edited)
        try await tablet.plans.sync()
        try await Self.expectNothingLost(made, devices: [phone, tablet], world: world)
        for device in [phone, tablet] {
            let plan = try #require(try device.plans.plan(id: shared.id))
            #expect(plan.notes == "queued at backup" && plan.daysPerWeek == 6)
        }
    }

    @Test(
        "with a remote that acknowledges a reused mutation ID as applied, the device finds the false acknowledgement in the change feed and uploads the plan"
    )
    func falseAcknowledgement() async throws {
        let (world, remote, phone, tablet) = try Self.devicesOnALyingRemote()
        var made = [try await phone.plans.createPlan(Fixture.plan("phone's"))]
        try await phone.plans.sync()
        made.append(try await tablet.plans.createPlan(Fixture.plan("tablet's")))
        try await tablet.plans.sync()
        #expect(try await world.remotePlans(from: remote.remote).map(\.name).sorted() == ["phone's", "tablet's"])
        try await Self.expectNothingLost(made, devices: [phone, tablet], world: world, remote: remote.remote)
    }

    @Test("a remote answers a mutation ID used again for another record, or for the same record with another document, mutationIDInUse")
    func remoteRefusesReuse() async throws {
        let remote = LocalRemotePlanStore()
        let scope = RemoteScope(userID: "ada", collection: "plans")
        let id = MutationID(replicaID: "device", sequence: 1)
        let (first, second) = (UUID(), UUID())
        let write = RemoteMutation(id: id, recordID: first, baseVersion: nil, isDeletion: false, document: Data("one".utf8))
        #expect(try await remote.write([write], in: scope).results == [.applied(version: 1)])
        #expect(try await remote.write([write], in: scope).results == [.applied(version: 1)], "a retry of the same write is applied once")
        let other = RemoteMutation(id: id, recordID: second, baseVersion: nil, isDeletion: false, document: Data("one".utf8))
        let changed = RemoteMutation(id: id, recordID: first, baseVersion: nil, isDeletion: false, document: Data("two".utf8))
        #expect(try await remote.write([other], in: scope).results == [.mutationIDInUse])
        #expect(try await remote.write([changed], in: scope).results == [.mutationIDInUse])
        #expect(try await remote.changes(in: scope, after: 0, limit: 10).records.map(\.id) == [first])
    }

    @Test("a false acknowledgement whose version the change feed no longer shows, having been written again, is still found and the plan uploaded")
    func falseAcknowledgementSuperseded() async throws {
        let (world, remote, phone, tablet) = try Self.devicesOnALyingRemote()
        var made = [try await phone.plans.createPlan(Fixture.plan("phone's"))]
        try await phone.plans.sync()
        made[0].notes = "again"
        made[0] = try await phone.plans.updatePlan(made[0])
        try await phone.plans.sync() // the version the tablet will be answered with is no longer in the feed
        made.append(try await tablet.plans.createPlan(Fixture.plan("tablet's")))
        try await tablet.plans.sync()
        #expect(Set(try await world.remotePlans(from: remote.remote).map(\.name)) == ["phone's", "tablet's"])
        try await Self.expectNothingLost(made, devices: [phone, tablet], world: world, remote: remote.remote)
    }

    @Test("a false acknowledgement of an upload made alone is found by the next download")
    func falseAcknowledgementOfAnUpload() async throws {
        let (world, remote, phone, tablet) = try Self.devicesOnALyingRemote()
        var made = [try await phone.plans.createPlan(Fixture.plan("phone's"))]
        try await phone.plans.sync()
        made.append(try await tablet.plans.createPlan(Fixture.plan("tablet's")))
        #expect(try await tablet.plans.uploadPlan(id: made[1].id) == .synced, "the remote's answer looks true")
        try await tablet.plans.downloadPlans()
        #expect(try tablet.plans.status(ofPlan: made[1].id) == .notSynced, "the download shows it never reached the remote")
        try await Self.expectNothingLost(made, devices: [phone, tablet], world: world, remote: remote.remote)
    }

    @Test(
        "a write answered as applied at a version the device has downloaded already is not taken as acknowledged, and goes again under a new replica ID"
    )
    func acknowledgedAtKnownVersion() async throws {
        let world = try SyncWorld()
        let remote = FakeRemotePlanStore.inMemory(clock: world.remoteClock)
        let phone = try world.device("phone", remote: remote)
        let laptop = try world.device("laptop", remote: remote)
        let made = [try await phone.plans.createPlan(Fixture.plan("phone's"))]
        try await phone.plans.sync()
        try await laptop.plans.downloadPlans()
        remote.controls.clearCalls()
        let mine = try await laptop.plans.createPlan(Fixture.plan("laptop's"))
        // A write applied now gets a version after everything the laptop downloaded: 1 is not one.
        remote.script(.write, .once(.success(RemoteWriteResponse(results: [.applied(version: 1)], serverTime: world.remoteClock.now))))
        #expect(try await laptop.plans.uploadPlan(id: mine.id) == .synced)
        let writes = remote.calls.compactMap { $0.arguments(of: .write) }.compactMap { mutations, _ in mutations.first?.id }
        #expect(writes.count == 2, "sent again")
        #expect(writes.first?.replicaID != writes.last?.replicaID, "under a new replica ID")
        try await Self.expectNothingLost(made + [mine], devices: [phone, laptop], world: world, remote: remote.remote)
    }
}
