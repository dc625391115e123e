import Foundation
import TrainAccount
import TrainCore
import TrainTesting

#if canImport(SQLite3)
    import SQLite3
#else
    import CSQLite
#endif

/// WORLD-IMPORT and WORLD-EXPORT: a world of 100k posts by 1,000 users started in a
/// file-backed stack from its snapshot, against one bare SQLite transaction inserting
/// the records the import wrote; and the world exported to JSON bytes, against bare
/// SQLite reading those records.
struct WorldRows {
    let directory: URL
    let quick: Bool

    var posts: Int { quick ? 10_000 : 100_000 }

    /// The world: users `user-0`… and their posts, an hour apart, with IDs and dates given.
    func world() -> WorldSnapshot {
        let start = Date(timeIntervalSince1970: 1_767_225_600)
        var world = WorldSnapshot()
        let users = 1_000
        for index in 0..<users {
            world.users.append(WorldSnapshot.User(id: "user-\(index)", displayName: "Runner \(index)", createdAt: start))
        }
        for index in 0..<posts {
            var bytes = [UInt8](repeating: 0, count: 16)
            for shift in 0..<8 { bytes[15 - shift] = UInt8(truncatingIfNeeded: UInt64(index) >> (8 * shift)) }
            bytes[6] = 0x70
            bytes[8] = 0x80
            let id = UUID(
                uuid: (
                    bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9], bytes[10], bytes[11],
                    bytes[12], bytes[13], bytes[14], bytes[15]
                ))
            var post = WorldSnapshot.Post(
                id: id, author: "user-\(index % users)", content: "Run number \(index): 5 km easy, then strides.", workoutType: .run,
                createdAt: start.addingTimeInterval(Double(index) * 3_600))
            post.expiresAt = post.createdAt?.addingTimeInterval(86_400)
            world.posts.append(post)
        }
        return world
    }

    /// The stack's configuration: its clock after the newest post.
    func configuration(_ world: WorldSnapshot) -> TrainServicesConfiguration {
        TrainServicesConfiguration(context: TrainContext(clock: ManualClock(start: (world.newestDate ?? Date()).addingTimeInterval(60))))
    }

    /// WORLD-IMPORT.
    func importing() throws -> BenchRow {
        let world = world()
        // The records an import writes, from one import before the timed rounds.
        let first = try TrainServices.files(in: directory.appendingPathComponent("world-import-0"), from: world, configuration: configuration(world))
        let written = try RecordAddress.snapshot(of: first.deviceStores).sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        var round = 0
        let (ours, baseline) = try interleaved(
            rounds: quick ? 3 : 5,
            ours: {
                round += 1
                let folder = directory.appendingPathComponent("world-import-\(round)")
                let configuration = configuration(world)
                return try seconds { _ = try TrainServices.files(in: folder, from: world, configuration: configuration) }
            },
            baseline: {
                let bare = try BareRecords(emptyFile: directory.appendingPathComponent("world-bare-\(UUID().uuidString).sqlite"))
                return try bare.apply(RecordChanges(removed: [], written: written))
            })
        return BenchRow(
            id: "WORLD-IMPORT",
            workload:
                "a world of \(posts / 1_000)k posts started in a file-backed stack vs one bare SQLite transaction of its \(written.count / 1_000)k records",
            ours: ours * 1e3, baseline: baseline * 1e3, unit: "ms", target: "ratio <= 2")
    }

    /// WORLD-EXPORT.
    func exporting() throws -> BenchRow {
        let world = world()
        let folder = directory.appendingPathComponent("world-export")
        let stack = try TrainServices.files(in: folder, from: world, configuration: configuration(world))
        let file = folder.appendingPathComponent("trainkit.sqlite")
        var size = 0
        let (ours, baseline) = try interleaved(
            rounds: quick ? 3 : 7,
            ours: { try seconds { size = try stack.exportWorld().encoded().count } },
            baseline: {
                let reader = try BareStoreReader(path: file.path)
                return try seconds {
                    var count = 0
                    for collection in [
                        "social/posts", "social/profiles", "auth/accounts", "social/follows", "social/blocks", "social/liked", "social/comments",
                    ] {
                        count += reader.records(in: collection, from: "", limit: Int.max).count
                    }
                    guard count >= world.posts.count else { throw BenchError("the bare read found \(count) records") }
                }
            })
        return BenchRow(
            id: "WORLD-EXPORT",
            workload: "a world of \(posts / 1_000)k posts exported to \(size / 1_000_000) MB of JSON vs bare SQLite reading its records",
            ours: ours * 1e3, baseline: baseline * 1e3, unit: "ms", target: "ratio <= 2")
    }
}
