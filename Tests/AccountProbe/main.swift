// A helper process for the account deletion crash test (ACC-2, the REL-1 pattern)
// and for the change signals of a remote file shared by two processes (SYNC-16).
//
//     train-account-probe delete DIRECTORY APPLE-SUBJECT
//
// Opens the file-backed stack in DIRECTORY on a clock stopped at ManualClock's
// default start, has the signed-in user confirm with Apple as APPLE-SUBJECT (a fresh
// authorization, as the app asks before a deletion), prints "ready", then deletes the
// signed-in user's account and waits for its purge, printing each progress event as
// "STEP PHASE" when it arrives and "done" at the end. Exits 0 when done, 1 with the
// error on standard error.
//
//     train-account-probe remote-write FILE USER
//
// Opens the simulated remote for plans in FILE and writes one new record of USER's
// plans, then prints "done".

import Foundation
import TrainAccount
import TrainAuth
import TrainCore
import TrainSync
import TrainTesting

func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("train-account-probe: \(message)\n".utf8))
    exit(status)
}

let arguments = CommandLine.arguments
if arguments.count == 4, arguments[1] == "remote-write" {
    do {
        let remote = try LocalRemotePlanStore(storage: .file(URL(fileURLWithPath: arguments[2])))
        let write = RemoteMutation(
            id: MutationID(replicaID: "probe", sequence: 1), recordID: UUID(), baseVersion: nil, isDeletion: false, document: Data("probe".utf8))
        _ = try await remote.write([write], in: RemoteScope(userID: arguments[3], collection: "plans"))
        emit("done")
        exit(0)
    } catch {
        fail("\(error)", status: 1)
    }
}
guard arguments.count == 4, arguments[1] == "delete" else {
    fail("usage: train-account-probe delete DIRECTORY APPLE-SUBJECT | remote-write FILE USER", status: 2)
}

do {
    let services = try TrainServices.files(
        in: URL(fileURLWithPath: arguments[2], isDirectory: true),
        configuration: TrainServicesConfiguration(context: TrainContext(clock: ManualClock())))
    guard let user = services.auth.currentUser else { fail("nobody is signed in", status: 1) }
    services.appleID.signIn(as: SimulatedIdentityProvider.Account(subject: arguments[3]))
    _ = try await services.auth.reauthenticate(with: try await services.auth.requestCredential(from: .apple))
    let events = services.account.deletionProgress()
    let printer = Task {
        for await event in events { emit("\(event.step) \(event.phase)") }
    }
    emit("ready")
    try await services.account.deleteAccount(of: user.id)
    _ = try await services.account.deletionCompletion(of: user.id)
    printer.cancel()
    emit("done")
    // Exits at once, as the remote-write command does: the end of the top-level code
    // does not always end the process when a task it started is still winding down.
    exit(0)
} catch {
    fail("\(error)", status: 1)
}
