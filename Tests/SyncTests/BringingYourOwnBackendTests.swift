import Foundation
import Testing
import TrainAuth
import TrainSync
import TrainTesting

// The code of TrainSync.docc/BringingYourOwnBackend.md, kept compiling and correct here.
// When you change one, change the other.

struct MyRemoteEnvironment: RemoteStoreContractEnvironment {
    func makeRemote() async throws -> any RemotePlanStore {
        LocalRemotePlanStore() // your conformance, over a fresh emulator project
    }
}

@Test("the article's contract test runs every check of the remote contract", arguments: RemotePlanStoreContract.checks)
func remoteContract(_ check: RemoteStoreContractCheck) async throws {
    try await check.run(in: MyRemoteEnvironment())
}

/// An auth service with `user` signed in, as the article's test has one.
private func signedIn(_ user: String) throws -> FakeAuthService {
    let auth = FakeAuthService()
    auth.setCurrentUser(UserEntity(id: user, displayName: user, createdAt: ManualClock.defaultStart, lastSignInAt: ManualClock.defaultStart))
    return auth
}

@Test("the article's test of a misbehaving remote: another user's plan is refused and nothing is stored")
func aForeignPlanIsRefused() async throws {
    let remote = FakeRemotePlanStore.inMemory()
    let grace = LocalPlanSyncService(auth: try signedIn("grace"), remote: remote)
    _ = try await grace.createPlan(TrainingPlan(name: "Grace's", startDate: .now, endDate: .now, daysPerWeek: 3))
    try await grace.sync()
    remote.misbehave(.foreignRecords(ofUser: "grace")) // her plans come in Ada's pages too
    let plans = LocalPlanSyncService(auth: try signedIn("ada"), remote: remote)
    await #expect(throws: SyncError(.foreignRecord)) { try await plans.sync() }
    #expect(try plans.plans().isEmpty)
}
