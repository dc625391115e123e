import Foundation
import Testing
import TrainAuth
import TrainSync
import TrainTesting

@Suite struct IsolationTests {
    @Test("signing out with queued edits never uploads them into the next user's account", arguments: SyncVariant.allCases)
    func queuedEditsStayWithTheirUser(_ variant: SyncVariant) async throws {
        let world = try SyncWorld(variant)
        let phone = try world.device("phone", user: "ada")
        let adas = try await phone.plans.createPlan(Fixture.plan("Ada's plan"))
        phone.auth.setCurrentUser(nil)
        await #expect(throws: SyncError(.notSignedIn)) { try await phone.plans.sync() }
        phone.signIn("grace")
        #expect(try phone.plans.plans().isEmpty)
        #expect(try phone.plans.pendingCount() == 0)
        _ = try await phone.plans.createPlan(Fixture.plan("Grace's plan"))
        _ = try await phone.plans.sync()
        #expect(try await world.remotePlans(of: "grace").map(\.name) == ["Grace's plan"])
        #expect(try await world.remotePlans(of: "ada").isEmpty)
        phone.signIn("ada")
        #expect(try phone.plans.status(ofPlan: adas.id) == .notSynced)
        _ = try await phone.plans.sync()
        #expect(try await world.remotePlans(of: "ada").map(\.name) == ["Ada's plan"])
        #expect(try await world.remotePlans(of: "grace").map(\.name) == ["Grace's plan"])
    }

    @Test("a user who signs in while a sync is waiting on the remote gets none of it: the sync stops")
    func userChangeMidSync() async throws {
        let world = try SyncWorld()
        let other = try world.device("laptop", user: "ada")
        _ = try await other.plans.createPlan(Fixture.plan("Ada's plan"))
        _ = try await other.plans.sync()
        let remote = InterposedRemote(world.remote)
        let phone = try world.device("phone", user: "ada", remote: remote)
        remote.onCall { call, _ in
            if call == .changes { phone.signIn("grace") }
            return .pass
        }
        await #expect(throws: SyncError(.notSignedIn)) { try await phone.plans.sync() }
        #expect(try phone.plans.plans().isEmpty)
        phone.signIn("ada")
        #expect(try phone.plans.plans().isEmpty)
        remote.onCall { _, _ in .pass }
        _ = try await phone.plans.sync()
        #expect(try phone.plans.plans().map(\.name) == ["Ada's plan"])
    }
}
