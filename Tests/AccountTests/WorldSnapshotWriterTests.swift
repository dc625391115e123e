import Foundation
import Testing

@testable import TrainAccount

/// The writer's long lists, written in two halves on two threads at once: the bytes
/// are the ones one thread writes, and what the second half cannot write refuses the
/// document as the first half's would.
@Suite struct WorldSnapshotWriterTests {
    /// A world of `count` posts, each with a string that needs escaping.
    static func world(posts count: Int) -> WorldSnapshot {
        var world = WorldSnapshot()
        world.users = [WorldSnapshot.User(id: "ada", displayName: "Ada")]
        let start = Date(timeIntervalSince1970: 1_767_225_600)
        world.posts = (0..<count).map { index in
            WorldSnapshot.Post(
                id: UUID(uuidString: String(format: "00000000-0000-4000-8000-%012X", index)), author: "ada",
                content: "Run \(index): \"easy\"\n\u{1}", workoutType: .run, createdAt: start.addingTimeInterval(Double(index)))
        }
        return world
    }

    @Test("a list written in two halves at once is byte for byte the list one thread writes, at every split of its length")
    func halvesMatchOneThread() throws {
        for count in [4_096, 4_097, 5_001] {
            let posts = Self.world(posts: count).posts
            var halved = JSONWriter(capacity: 64)
            var single = JSONWriter(capacity: 64)
            halved.beginObject()
            single.beginObject()
            halved.list(halving: "posts", posts) { writer, post in writer.postFields(post) }
            single.list("posts", posts) { writer, post in writer.postFields(post) }
            halved.field("version", 1)
            single.field("version", 1)
            halved.endObject()
            single.endObject()
            let (halvedBytes, singleBytes) = (halved.bytes.data(), single.bytes.data())
            #expect(halvedBytes.count > count * 100, "every post is written")
            #expect(halvedBytes == singleBytes, "\(count) posts")
        }
    }

    @Test("a world of 5,000 posts, written in halves, reads back as the same world")
    func halvedWorldReadsBack() throws {
        let world = Self.world(posts: 5_000)
        let document = try world.encoded()
        #expect(try WorldSnapshot(json: document) == world)
        #expect(try WorldSnapshot(json: document).encoded() == document)
    }

    @Test("a date ISO 8601 cannot write in the second half refuses the document, as one in the first half does")
    func secondHalfRefuses() throws {
        for index in [10, 4_990] {
            var world = Self.world(posts: 5_000)
            world.posts[index].createdAt = Date(timeIntervalSince1970: 300_000_000_000)
            #expect(throws: WorldSnapshotError(.invalidValue)) { try world.encoded() }
        }
    }
}

extension JSONWriter {
    /// A post's fields, as the document writes them.
    fileprivate mutating func postFields(_ post: WorldSnapshot.Post) {
        beginObject()
        field("author", post.author)
        field("content", post.content)
        field("createdAt", post.createdAt)
        field("id", post.id)
        endObject()
    }
}
