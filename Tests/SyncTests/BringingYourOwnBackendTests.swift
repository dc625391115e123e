import Foundation
import Testing
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
