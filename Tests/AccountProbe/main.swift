// A helper process for the account deletion crash test (ACC-2, the REL-1 pattern).
//
//     train-account-probe delete DIRECTORY APPLE-SUBJECT
//
// Opens the file-backed stack in DIRECTORY on a clock stopped at ManualClock's
// default start, has the signed-in user confirm with Apple as APPLE-SUBJECT (a fresh
// authorization, as the app asks before a deletion), prints "ready", then deletes the
// signed-in user's account, printing
// each progress event as "STEP PHASE" when it arrives and "done" at the end. Exits 0
// when done, 1 with the error on standard error.

import Foundation
import TrainAccount
import TrainAuth
import TrainTesting

func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("train-account-probe: \(message)\n".utf8))
    exit(status)
}

let arguments = CommandLine.arguments
guard arguments.count == 4, arguments[1] == "delete" else { fail("usage: train-account-probe delete DIRECTORY APPLE-SUBJECT", status: 2) }

do {
    let services = try TrainServices.files(
        in: URL(fileURLWithPath: arguments[2], isDirectory: true), configuration: TrainServicesConfiguration(clock: ManualClock()))
    guard let user = services.auth.currentUser else { fail("nobody is signed in", status: 1) }
    services.appleID.signIn(as: SimulatedIdentityProvider.Account(subject: arguments[3]))
    _ = try await services.auth.reauthenticate(with: try await services.auth.requestCredential(from: .apple))
    let events = services.account.deletionProgress()
    let printer = Task {
        for await event in events { emit("\(event.step) \(event.phase)") }
    }
    emit("ready")
    _ = try await services.account.deleteAccount(of: user.id)
    printer.cancel()
    emit("done")
} catch {
    fail("\(error)", status: 1)
}
