import Foundation
import TrainAccount
import TrainCore

/// `--export-world FILE` and `--import-world FILE`: the demo's world written to a file
/// someone else can start from, and a stack started from such a file.
@MainActor
struct WorldFileScenes {
    let narrator: Narrator

    /// Writes `services`' world to `file`, and checks that the file reads back to the same bytes.
    func export(_ services: TrainServices, to file: URL) async {
        await narrator.step("Export the whole world to \(file.lastPathComponent): accounts, the feed and the App Store's purchases") {
            let bytes = try services.exportWorld().encoded()
            // It holds people's addresses: readable by its owner only, as the data directory is.
            guard FileManager.default.createFile(atPath: file.path, contents: bytes, attributes: [.posixPermissions: 0o600]) else {
                return "\(file.path) could not be written"
            }
            let snapshot = try WorldSnapshot(contentsOf: file)
            narrator.say(
                "\(snapshot.users.count) users, \(snapshot.follows.count) follows, \(snapshot.posts.count) posts, "
                    + "\(snapshot.likes.count) likes, \(snapshot.comments.count) comments, \(snapshot.purchases.count) purchases; \(bytes.count) bytes."
            )
            return try snapshot.encoded() == bytes ? nil : "the file does not read back to the bytes written"
        }
    }

    /// Starts a stack in `directory` from `file`, and checks that it exports the same world.
    func importWorld(from file: URL, into directory: URL, clock: DemoClock) async {
        await narrator.step("Start a stack in the data directory from \(file.lastPathComponent)") {
            let snapshot = try WorldSnapshot(contentsOf: file)
            // A world exported later on the demo's timeline moves this run's clock up to it.
            if let newest = snapshot.newestDate, newest > clock.now {
                try clock.advance(by: .seconds(newest.timeIntervalSince(clock.now).rounded(.up)))
                narrator.say("The clock moves ahead to the world's newest date, \(newest.formatted(.iso8601)).")
            }
            let services = try TrainServices.files(
                in: directory, from: snapshot, configuration: TrainServicesConfiguration(context: TrainContext(clock: clock)))
            let world = try services.exportWorld()
            narrator.say(
                "Imported \(world.users.count) users, \(world.follows.count) follows, \(world.posts.count) posts, \(world.likes.count) likes, "
                    + "\(world.comments.count) comments and \(world.purchases.count) purchases.")
            for user in world.users.prefix(5) { narrator.say("· \(user.displayName ?? user.id) (\(user.id))") }
            return world.users.count == snapshot.users.count && world.posts.count == snapshot.posts.count
                ? nil : "the stack holds another world than the file"
        }
    }
}
