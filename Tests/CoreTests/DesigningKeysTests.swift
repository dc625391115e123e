import Foundation
import Testing
import TrainCore
import TrainTesting

// The code of TrainCore.docc/DesigningKeys.md, kept compiling and correct here.
// When you change one, change the other.

private struct Post: Codable, Equatable, Sendable {
    var id: String
    var author: String
    var postedAt: Date
    var text: String
}

private let posts = RecordCollection<Post>("posts")

/// A user's posts, newest first: the author, then the date descending, then the
/// post's ID (two posts in one millisecond stay two records).
private func postKey(_ post: Post) throws -> String {
    try RecordKey(.string(post.author), .descending(.date(post.postedAt)), .string(post.id)).encoded
}

private func page(of author: String, after cursor: String?, in store: RecordStore) throws -> (posts: [Post], cursor: String?) {
    var range = try RecordKey(.string(author)).range
    if let cursor { range = range.after(cursor) }
    let entries = try store.read { try $0.entries(in: posts, range: range, limit: 20) }
    return (entries.map(\.value), entries.last?.key)
}

private let timeline = RecordCollection<String>("timeline")

private func publish(_ post: Post, in store: RecordStore) throws {
    let key = try postKey(post)
    try store.write { records in
        try records.put(post, forKey: key, in: posts)
        let byTime = try RecordKey(.descending(.date(post.postedAt)), .string(post.id))
        try records.put(key, forKey: byTime.encoded, in: timeline)
    }
}

private let changes = RecordCollection<Data>.bytes("changes")

private func changes(after sequence: UInt64, in store: RecordStore) throws -> [RecordEntry<Data>] {
    let after = try RecordKey(.uint(sequence)).encoded
    return try store.read { try $0.entries(in: changes, range: KeyRange(after: after), limit: 500) }
}

private let likeCounts = RecordCollection<UInt64>(
    "likes",
    encode: { count in withUnsafeBytes(of: count.bigEndian) { Data($0) } },
    decode: { data in
        guard data.count == 8 else { throw CoreError(.undecodable, detail: "A like count is 8 bytes.") }
        return data.reduce(0) { $0 << 8 | UInt64($1) }
    })

private let schema = StoreSchema(name: "social", migrations: [.createCollections(version: 1, ["posts", "timeline", "changes", "likes"])])

/// The article's layouts in both variants of the store.
@Suite struct DesigningKeysTests {
    static let start = Date(timeIntervalSince1970: -86_400) // before 1970: dates order the same either side

    /// A store in memory or in a file, with 45 posts by "ada" a minute apart and 5 by
    /// "ada/x" (a separator inside an author must not join the two).
    static func store(inMemory: Bool, _ directory: TemporaryDirectory) throws -> RecordStore {
        let store = try RecordStore(inMemory ? .inMemory : .file(directory.file("social.sqlite")), schema: schema)
        for index in 0..<45 {
            try publish(Post(id: "p\(index)", author: "ada", postedAt: start.addingTimeInterval(Double(index) * 60), text: "#\(index)"), in: store)
        }
        for index in 0..<5 {
            try publish(Post(id: "q\(index)", author: "ada/x", postedAt: start.addingTimeInterval(Double(index)), text: ""), in: store)
        }
        return store
    }

    @Test("an author's pages come newest first, continue after the cursor, and hold only that author", arguments: [true, false])
    func pages(inMemory: Bool) throws {
        let directory = try TemporaryDirectory()
        let store = try Self.store(inMemory: inMemory, directory)
        var seen: [String] = []
        var cursor: String?
        repeat {
            let next = try page(of: "ada", after: cursor, in: store)
            #expect(next.posts.count <= 20)
            seen += next.posts.map(\.id)
            cursor = next.cursor
            if seen.count == 20 {
                // A newer post published between two pages does not shift the next page.
                try publish(Post(id: "new", author: "ada", postedAt: Self.start.addingTimeInterval(99_999), text: ""), in: store)
            }
        } while cursor != nil
        #expect(seen == (0..<45).reversed().map { "p\($0)" })
    }

    @Test("the timeline holds every post, newest first, each pointing at its post", arguments: [true, false])
    func timelineOrder(inMemory: Bool) throws {
        let directory = try TemporaryDirectory()
        let store = try Self.store(inMemory: inMemory, directory)
        let newest = try store.read { reader in
            try reader.values(in: timeline, limit: 3).map { key in try reader.value(forKey: key, in: posts)?.id }
        }
        #expect(newest == ["p44", "p43", "p42"])
        #expect(try store.read { try $0.count(in: timeline) } == 50)
    }

    @Test("a log is read after a number in batches of 500, in numeric order", arguments: [true, false])
    func logBatches(inMemory: Bool) throws {
        let directory = try TemporaryDirectory()
        let store = try Self.store(inMemory: inMemory, directory)
        try store.write { records in
            for sequence in UInt64(1)...1_200 {
                try records.put(Data([UInt8(truncatingIfNeeded: sequence)]), forKey: try RecordKey(.uint(sequence)).encoded, in: changes)
            }
        }
        var read: [UInt64] = []
        var last: UInt64 = 0
        while case let batch = try changes(after: last, in: store), !batch.isEmpty {
            #expect(batch.count <= 500)
            for entry in batch {
                guard case .uint(let sequence)? = try RecordKey(encoded: entry.key).components.first else { continue }
                read.append(sequence)
                last = sequence
            }
        }
        #expect(read == Array(1...1_200))
    }

    @Test("a compact codec round-trips, and bytes of the wrong length are undecodable", arguments: [true, false])
    func compactCodec(inMemory: Bool) throws {
        let directory = try TemporaryDirectory()
        let store = try Self.store(inMemory: inMemory, directory)
        try store.write { records in
            try records.put(UInt64.max - 1, forKey: "p1", in: likeCounts)
            try records.setData(Data([1, 2, 3]), forKey: "p2", in: likeCounts)
        }
        #expect(try store.read { try $0.value(forKey: "p1", in: likeCounts) } == UInt64.max - 1)
        #expect(throws: CoreError(.undecodable)) { try store.read { try $0.value(forKey: "p2", in: likeCounts) } }
    }
}
