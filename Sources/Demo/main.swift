// train-demo: the life of an account on TrainKit's file-backed stack, narrated: one
// `TrainServices` stack in the data directory, driven through its session manager.
//
//     swift run train-demo [--data-dir DIR] [--export-world FILE | --import-world FILE]
//
// Without --data-dir it works in a fresh temporary directory and removes it at the
// end; with it, the data stays and a second run continues where the first stopped.
// --export-world writes the world to FILE before the account is deleted;
// --import-world starts the stack in the data directory from FILE instead of the story.
// Exits 0 only if every step did what it says.

import Foundation
import TrainAuth
import TrainCore

var arguments = Array(CommandLine.arguments.dropFirst())
var dataDirectory: URL?
var keepsData = false
var exportFile: URL?
var importFile: URL?
let usage = "usage: train-demo [--data-dir DIR] [--export-world FILE | --import-world FILE]"
while let argument = arguments.first {
    arguments.removeFirst()
    switch argument {
    case "--data-dir" where !arguments.isEmpty:
        dataDirectory = URL(fileURLWithPath: arguments.removeFirst(), isDirectory: true)
        keepsData = true
    case "--export-world" where !arguments.isEmpty && importFile == nil:
        exportFile = URL(fileURLWithPath: arguments.removeFirst())
    case "--import-world" where !arguments.isEmpty && exportFile == nil:
        importFile = URL(fileURLWithPath: arguments.removeFirst())
    case "--help":
        print(usage)
        exit(0)
    default:
        FileHandle.standardError.write(Data("train-demo: unknown argument '\(argument)'\n\(usage)\n".utf8))
        exit(2)
    }
}
let directory = dataDirectory ?? FileManager.default.temporaryDirectory.appendingPathComponent("train-demo-\(UUID().uuidString)")

print("TrainKit demo — data in \(directory.path)\(keepsData ? " (kept)" : " (temporary)")\n")
let narrator = Narrator()
try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
let clock = DemoClock(directory: directory)
if let importFile {
    print("— A world from a file —")
    await WorldFileScenes(narrator: narrator).importWorld(from: importFile, into: directory, clock: clock)
    let status = narrator.finish()
    if !keepsData { try? FileManager.default.removeItem(at: directory) }
    exit(status)
}
let storeFile = directory.appendingPathComponent("trainkit.sqlite")
print("— The store —")
await StorageChapter(file: storeFile, narrator: narrator).run()
print("\n— Signing in —")
if let (services, session) = await AuthChapter(directory: directory, clock: clock, narrator: narrator).run() {
    print("\n— Subscribing —")
    await SubscriptionChapter(services: services, session: session, clock: clock, narrator: narrator).run()
    print("\n— The feed —")
    let bob = await SocialChapter(services: services, session: session, clock: clock, narrator: narrator).run()
    print("\n— Plans on two devices —")
    await SyncChapter(services: services, session: session, clock: clock, narrator: narrator).run()
    if let exportFile {
        print("\n— The world as a file —")
        await WorldFileScenes(narrator: narrator).export(services, to: exportFile)
    }
    print("\n— A copy of her data, then deleting the account —")
    await AccountChapter(services: services, session: session, bob: bob, clock: clock, narrator: narrator).run()
    session.stop()
}
print("\n— Guests, a password reset, a token for a backend and an address change undone —")
await GuestAndEmailScenes(clock: clock, narrator: narrator).run()
let status = narrator.finish()
if !keepsData { try? FileManager.default.removeItem(at: directory) }
exit(status)
