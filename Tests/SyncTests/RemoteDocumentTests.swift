import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainSync

/// Remote documents a device cannot take as they are: dropped deletions, newer layouts,
/// fields that are not a plan, bytes past the end, and clock readings at the end of time.
@Suite struct RemoteDocumentTests {
    static let scope = RemoteScope(userID: "ada", collection: "plans")

    static func head(_ world: SyncWorld) async throws -> [RemoteRecord] {
        try await world.local.changes(in: scope, after: 0, limit: 1000).records
    }

    /// Writes `document` for `id` as another replica would, on top of the remote's current version.
    static func rogueWrite(_ world: SyncWorld, id: UUID, document: Data, sequence: UInt64 = 1) async throws {
        let current = try await head(world).first { $0.id == id }
        let response = try await world.local.write(
            [
                RemoteMutation(
                    id: MutationID(replicaID: "rogue", sequence: sequence), recordID: id, baseVersion: current?.version, isDeletion: false,
                    document: document)
            ],
            in: scope)
        guard case .applied = response.results[0] else { throw SyncError(.remoteUnavailable, detail: "rogue write not applied \(response)") }
    }

    @Test("a plan deleted, synced, and made again with the same ID after the remote dropped the deletion survives")
    func recreateAfterRetention() async throws {
        let world = try SyncWorld(configuration: RemoteConfiguration(tombstoneRetention: .seconds(86_400)))
        let phone = try world.device("phone")
        let plan = try await phone.plans.createPlan(Fixture.plan())
        _ = try await phone.plans.sync()
        try await phone.plans.deletePlan(id: plan.id)
        _ = try await phone.plans.sync()
        world.advance(by: 2 * 86_400)
        var again = plan
        again.name = "Back again"
        _ = try await phone.plans.createPlan(again)
        _ = try await phone.plans.sync()
        #expect(try phone.plans.plan(id: plan.id)?.name == "Back again")
        #expect(try await world.remotePlans().map(\.name) == ["Back again"])
    }

    @Test("a remote version in a layout this version cannot read ends the sync unreadableRecord; the local plan keeps its queued edit")
    func newerFormatIsRefused() async throws {
        let world = try SyncWorld()
        let phone = try world.device("phone")
        let plan = try await phone.plans.createPlan(Fixture.plan())
        _ = try await phone.plans.sync()
        // A newer app version writes format 9.
        var writer = BinaryWriter(format: 9)
        writer.write(0)
        try await Self.rogueWrite(world, id: plan.id, document: writer.data)
        var edited = plan
        edited.notes = "my edit"
        _ = try await phone.plans.updatePlan(edited)
        await #expect(throws: SyncError(.unreadableRecord)) { try await phone.plans.sync() }
        #expect(try phone.plans.plan(id: plan.id)?.notes == "my edit")
        #expect(try phone.plans.status(ofPlan: plan.id) == .pendingUpload)
        #expect(try phone.plans.conflictLog().isEmpty)
    }

    @Test("a downloaded document whose fields are not a plan ends the sync unreadableRecord, and nothing of its page is stored")
    func undecodableFieldsAreRefused() async throws {
        let world = try SyncWorld()
        let phone = try world.device("phone")
        _ = try await phone.plans.createPlan(Fixture.plan("good"))
        _ = try await phone.plans.sync()
        let id = UUID()
        let stamp = HybridTimestamp(milliseconds: 1, counter: 0, replicaID: "rogue")
        let document = SyncDocument(fields: ["id": Data("\"\(id.uuidString)\"".utf8)], stamps: ["id": stamp], deleted: nil)
        try await Self.rogueWrite(world, id: id, document: document.data)
        await #expect(throws: SyncError(.unreadableRecord)) { try await phone.plans.sync() }
        #expect(try phone.plans.plans().map(\.name) == ["good"])
        #expect(try phone.plans.status(ofPlan: id) == nil)
        // The cursor did not move past it: the next sync meets it again.
        await #expect(throws: SyncError(.unreadableRecord)) { try await phone.plans.sync() }
    }

    @Test("a document's bytes with a byte after its end are undecodable, and so is the clock reading read from them")
    func leftOverBytes() throws {
        let stamp = HybridTimestamp(milliseconds: 1, counter: 0, replicaID: "phone")
        let document = SyncDocument(fields: ["name": Data("\"Legs\"".utf8)], stamps: ["name": stamp], deleted: nil)
        #expect(try SyncDocument(data: document.data) == document)
        #expect(try SyncDocument.inspect(document.data, fields: [], []).latest == stamp)
        #expect(throws: CoreError(.undecodable)) { try SyncDocument(data: document.data + [0]) }
        #expect(throws: CoreError(.undecodable)) { try SyncDocument.inspect(document.data + [0], fields: [], []) }
    }

    @Test("a remote clock reading at the end of time does not trap the next local edit")
    func clockOverflow() async throws {
        let world = try SyncWorld()
        let phone = try world.device("phone")
        let id = UUID()
        var plan = Fixture.plan(id: id)
        plan.userID = "ada"
        let document = try SyncDocument.of(plan, previous: nil, stamp: HybridTimestamp(milliseconds: .max, counter: .max, replicaID: "rogue"))
        try await Self.rogueWrite(world, id: id, document: document.data)
        _ = try await phone.plans.sync()
        let made = try await phone.plans.createPlan(Fixture.plan("after the end of time"))
        #expect(try phone.plans.plan(id: made.id) != nil)
    }

    @Test("a device whose only contact was an upload still learns of a deletion the remote has since dropped")
    func cursorZeroNeverResyncs() async throws {
        let world = try SyncWorld(configuration: RemoteConfiguration(tombstoneRetention: .seconds(86_400)))
        let phone = try world.device("phone")
        let tablet = try world.device("tablet")
        let plan = try await phone.plans.createPlan(Fixture.plan())
        _ = try await phone.plans.uploadPlan(id: plan.id)
        _ = try await tablet.plans.sync()
        try await tablet.plans.deletePlan(id: plan.id)
        _ = try await tablet.plans.sync()
        world.advance(by: 2 * 86_400)
        _ = try await tablet.plans.sync()
        #expect(try await phone.plans.sync().didFullResync)
        #expect(try await world.remotePlans().isEmpty)
        #expect(try phone.plans.plans().isEmpty)
    }

    @Test("a full download keeps a plan the remote refused for good")
    func resyncDropsDeadLetter() async throws {
        // The remote takes 3,000 bytes without saying so (see BatchingTests.deadLetter).
        let world = try SyncWorld(
            configuration: RemoteConfiguration(maximumDocumentBytes: 3_000, tombstoneRetention: .seconds(86_400)), wrap: { InterposedRemote($0) })
        let phone = try world.device("phone")
        let tablet = try world.device("tablet")
        let gone = try await phone.plans.createPlan(Fixture.plan("gone"))
        _ = try await phone.plans.sync()
        let big = try await phone.plans.createPlan(Fixture.plan("big", notes: String(repeating: "x", count: 5_000)))
        _ = try await phone.plans.sync()
        #expect(try phone.plans.deadLetters().count == 1)
        _ = try await tablet.plans.sync()
        try await tablet.plans.deletePlan(id: gone.id)
        _ = try await tablet.plans.sync()
        world.advance(by: 2 * 86_400)
        _ = try await tablet.plans.sync()
        #expect(try await phone.plans.sync().didFullResync)
        #expect(try phone.plans.plan(id: big.id) != nil)
        #expect(try phone.plans.plan(id: gone.id) == nil)
        #expect(try phone.plans.deadLetters().map(\.recordID) == [big.id])
    }

    @Test("deleting a plan whose conflict is held uploads the deletion")
    func heldThenDeleted() async throws {
        let (world, phone, tablet, plan) = try await ConflictTests.pair(policy: .custom { _ in .hold })
        var a = plan
        a.name = "Phone's"
        var b = plan
        b.name = "Tablet's"
        _ = try await phone.plans.updatePlan(a)
        _ = try await tablet.plans.updatePlan(b)
        _ = try await phone.plans.sync()
        _ = try await tablet.plans.sync()
        try await tablet.plans.deletePlan(id: plan.id)
        for device in [tablet, phone, tablet, phone] { _ = try await device.plans.sync() }
        #expect(try await world.remotePlans().isEmpty)
        #expect(try phone.plans.plan(id: plan.id) == nil)
        #expect(try tablet.plans.pendingCount() == 0)
    }

    @Test("with edit-wins, an edit made while a full download runs is kept and uploaded")
    func editDuringResync() async throws {
        let world = try SyncWorld(configuration: RemoteConfiguration(tombstoneRetention: .seconds(86_400)))
        let interposed = InterposedRemote(world.local)
        let phone = try world.device("phone", deletePolicy: .editWins, remote: interposed)
        let tablet = try world.device("tablet", deletePolicy: .editWins)
        let plan = try await phone.plans.createPlan(Fixture.plan())
        let other = try await phone.plans.createPlan(Fixture.plan("other"))
        _ = try await phone.plans.sync()
        _ = try await tablet.plans.sync()
        try await tablet.plans.deletePlan(id: plan.id)
        try await tablet.plans.deletePlan(id: other.id)
        _ = try await tablet.plans.sync()
        world.advance(by: 2 * 86_400)
        _ = try await tablet.plans.sync()
        var draft = plan
        draft.notes = "edited during resync"
        let edited = draft
        interposed.onCall { call, _ in
            if call == .snapshot { _ = try? await phone.plans.updatePlan(edited) }
            return .pass
        }
        _ = try await phone.plans.sync()
        interposed.onCall { _, _ in .pass }
        _ = try await phone.plans.sync()
        #expect(try await world.remotePlans().map(\.notes) == ["edited during resync"])
        #expect(try phone.plans.plan(id: plan.id)?.notes == "edited during resync")
    }
}
