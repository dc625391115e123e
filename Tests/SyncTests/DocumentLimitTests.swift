import Foundation
import Testing
import TrainAuth
import TrainCore
import TrainSync
import TrainTesting

/// SYNC-13: a plan whose document is over the remote's limit is refused when it is
/// saved, with a typed error, and never queued; the limit counts what the remote counts.
@Suite struct DocumentLimitTests {
    @Test(
        "a plan whose notes are one character and a million combining marks is refused recordTooLarge when saved, and nothing is queued",
        arguments: SyncVariant.allCases)
    func combiningMarks(_ variant: SyncVariant) async throws {
        let world = try SyncWorld(variant)
        let phone = try world.device("phone")
        let notes = "e" + String(repeating: "\u{301}", count: 1_000_000)
        #expect(notes.count == 1)
        await #expect(throws: SyncError(.recordTooLarge)) { _ = try await phone.plans.createPlan(Fixture.plan(notes: notes)) }
        #expect(try phone.plans.plans().isEmpty)
        let plan = try await phone.plans.createPlan(Fixture.plan(notes: "short"))
        try await phone.plans.sync()
        var edited = plan
        edited.notes = notes
        await #expect(throws: SyncError(.recordTooLarge)) { _ = try await phone.plans.updatePlan(edited) }
        #expect(try phone.plans.plan(id: plan.id)?.notes == "short")
        #expect(try phone.plans.pendingCount() == 0)
        #expect(try phone.plans.status(ofPlan: plan.id) == .synced)
    }

    @Test("the device's limit is the remote's: the largest plan the device takes is uploaded, and a byte more is refused")
    func limitIsTheRemotes() async throws {
        let world = try SyncWorld(configuration: RemoteConfiguration(maximumDocumentBytes: 3_000))
        let phone = try world.device("phone")
        let id = UUID()
        // The longest notes the device takes: each length tried on a new plan of one ID.
        var longest = 0
        for length in stride(from: 2_000, through: 3_000, by: 1) {
            do {
                let plan = try await phone.plans.createPlan(Fixture.plan(id: id, notes: String(repeating: "x", count: length)))
                try await phone.plans.deletePlan(id: plan.id)
                longest = length
            } catch {
                #expect(error.code == .recordTooLarge)
                break
            }
        }
        #expect(longest > 2_000 && longest < 3_000)
        let plan = try await phone.plans.createPlan(Fixture.plan(notes: String(repeating: "x", count: longest)))
        let report = try await phone.plans.sync()
        #expect(report.rejected == 0)
        #expect(try phone.plans.deadLetters().isEmpty)
        #expect(try phone.plans.status(ofPlan: plan.id) == .synced)
        #expect(try await world.remotePlans().contains { $0.id == plan.id })
    }

    /// A record whose coding keys rename its owner to `owner`.
    struct Note: Syncable {
        static let recordType = "notes"
        var id: UUID
        var userID: String
        var text: String
        enum CodingKeys: String, CodingKey {
            case id
            case userID = "owner"
            case text
        }
        func validated() throws(SyncError) -> Note { self }
    }

    /// The same record, saying where its owner is.
    struct NamedNote: Syncable {
        static let recordType = "notes"
        static var ownerField: String { "owner" }
        var id: UUID
        var userID: String
        var text: String
        enum CodingKeys: String, CodingKey {
            case id
            case userID = "owner"
            case text
        }
        func validated() throws(SyncError) -> NamedNote { self }
    }

    @Test("a record whose coding keys rename its owner is refused until its ownerField names them, then syncs with its downloads checked")
    func renamedOwner() async throws {
        let world = try SyncWorld()
        let auth = FakeAuthService()
        auth.setCurrentUser(UserEntity(id: "ada", displayName: "Ada", createdAt: world.remoteClock.now, lastSignInAt: world.remoteClock.now))
        let unnamed = SyncEngine<Note>(auth: auth, remote: world.local, context: TrainContext(clock: world.remoteClock))
        await #expect(throws: SyncError(.invalidRecord)) { _ = try await unnamed.create(Note(id: UUID(), userID: "", text: "hi")) }
        let phone = SyncEngine<NamedNote>(auth: auth, remote: world.local, context: TrainContext(clock: world.remoteClock))
        let note = try await phone.create(NamedNote(id: UUID(), userID: "", text: "hi"))
        try await phone.sync()
        let tablet = SyncEngine<NamedNote>(auth: auth, remote: world.local, context: TrainContext(clock: world.remoteClock))
        try await tablet.sync()
        #expect(try tablet.records() == [note])
        // Another user's note, put in Ada's records by a remote, is still refused.
        let remote = FakeRemotePlanStore.inMemory(clock: world.remoteClock)
        let grace = FakeAuthService()
        grace.setCurrentUser(UserEntity(id: "grace", displayName: "Grace", createdAt: world.remoteClock.now, lastSignInAt: world.remoteClock.now))
        let gracesPhone = SyncEngine<NamedNote>(auth: grace, remote: remote, context: TrainContext(clock: world.remoteClock))
        _ = try await gracesPhone.create(NamedNote(id: UUID(), userID: "", text: "Grace's"))
        try await gracesPhone.sync()
        remote.misbehave(.foreignRecords(ofUser: "grace"))
        let adasTablet = SyncEngine<NamedNote>(auth: auth, remote: remote, context: TrainContext(clock: world.remoteClock))
        await #expect(throws: SyncError(.foreignRecord)) { try await adasTablet.sync() }
    }
}
