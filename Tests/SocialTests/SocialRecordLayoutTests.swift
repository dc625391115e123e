import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainSocial

/// How profiles and deleted posts' positions are stored: a binary layout, stores of
/// the JSON layout rewritten when opened, and JSON records still read.
@Suite struct SocialRecordLayoutTests {
    @Test("a profile record in JSON still reads, and its counts change as a binary one's")
    func earlierJSON() async throws {
        let harness = try SocialHarness(.file)
        try await harness.join("ada", "grace")
        harness.act(as: "grace")
        try await harness.social.follow("ada")
        let stored = try await harness.social.profile("ada")
        #expect(stored.followerCount == 1)

        let raw = try RecordStore(.file(harness.directory.file("social.sqlite")), schema: SocialRecords.schema)
        let binary = try #require(try raw.read { try $0.data(forKey: "ada", in: SocialRecords.profiles) })
        #expect(binary.first == 2, "a profile is written in the binary layout 2, with its photo")
        try raw.write { try $0.setData(try JSONEncoder().encode(stored), forKey: "ada", in: SocialRecords.profiles) }
        raw.close()

        let reopened = try harness.reopened()
        #expect(try await reopened.profile("ada") == stored)
        harness.act(as: "ada")
        try await reopened.follow("grace")
        harness.act(as: "grace")
        try await reopened.unfollow("ada")
        #expect(try await reopened.profile("ada") == SocialProfile(id: "ada", displayName: stored.displayName, followerCount: 0, followingCount: 1))
    }

    @Test("a profile record of layout 1, without a photo, still reads")
    func layoutOneProfile() throws {
        let store = try RecordStore(.inMemory, schema: SocialRecords.schema)
        var writer = BinaryWriter(format: 1)
        writer.write("ada")
        writer.write("Ada")
        writer.write(2)
        writer.write(3)
        try store.write { try $0.setData(writer.data, forKey: "ada", in: SocialRecords.profiles) }
        let profile = try store.read { try $0.value(forKey: "ada", in: SocialRecords.profiles) }
        #expect(profile == SocialProfile(id: "ada", displayName: "Ada", followerCount: 2, followingCount: 3))
    }

    @Test("a profile record with a byte after its last field is a storage error, not a profile")
    func leftOverByte() async throws {
        let harness = try SocialHarness(.file)
        try await harness.join("ada")
        let raw = try RecordStore(.file(harness.directory.file("social.sqlite")), schema: SocialRecords.schema)
        let binary = try #require(try raw.read { try $0.data(forKey: "ada", in: SocialRecords.profiles) })
        try raw.write { try $0.setData(binary + [0], forKey: "ada", in: SocialRecords.profiles) }
        raw.close()
        let error = await #expect(throws: SocialError.self) { try await harness.reopened().profile("ada") }
        #expect(error?.code == .storage)
    }

    @Test("a cursor on a deleted post whose position record is JSON still continues")
    func earlierJSONPosition() async throws {
        let harness = try SocialHarness(.file)
        var posts: [PostEntity] = []
        for index in 0..<5 {
            posts.append(try await harness.post("Run \(index)", by: "ada"))
            harness.clock.advance(by: .seconds(60))
        }
        try await harness.social.deletePost(posts[2].id)
        let raw = try RecordStore(.file(harness.directory.file("social.sqlite")), schema: SocialRecords.schema)
        let key = SocialRecords.key(posts[2].id)
        let binary = try #require(try raw.read { try $0.data(forKey: key, in: SocialRecords.removedPosts) })
        #expect(binary.first == 1, "a position is written in the binary layout")
        try raw.write { try $0.setData(try JSONEncoder().encode(posts[2].createdAt), forKey: key, in: SocialRecords.removedPosts) }
        raw.close()

        let reopened = try harness.reopened()
        let after = try await reopened.discoverFeed(limit: 10, after: posts[2].id)
        #expect(after.map(\.id) == [posts[1].id, posts[0].id])
    }

    @Test("opening a store of the JSON layout rewrites its profiles and positions in the binary one, and the JSON version then refuses it")
    func migration() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file("social.sqlite")
        let jsonLayout = StoreSchema(name: "social", migrations: Array(SocialRecords.schema.migrations.prefix(2)))
        let profile = SocialProfile(id: "ada", displayName: "Ada Lovelace", followerCount: 3, followingCount: 2)
        let position = Date(timeIntervalSinceReferenceDate: 788_918_522.246)
        let old = try RecordStore(.file(file), schema: jsonLayout)
        try old.write { records in
            try records.setData(try JSONEncoder().encode(profile), forKey: "ada", in: SocialRecords.profiles)
            try records.setData(try JSONEncoder().encode(position), forKey: "p1", in: SocialRecords.removedPosts)
        }
        old.close()

        let store = try RecordStore(.file(file), schema: SocialRecords.schema)
        #expect(try store.read { try $0.data(forKey: "ada", in: SocialRecords.profiles) }?.first == 2)
        #expect(try store.read { try $0.data(forKey: "p1", in: SocialRecords.removedPosts) }?.first == 1)
        #expect(try store.read { try $0.value(forKey: "ada", in: SocialRecords.profiles) } == profile)
        #expect(try store.read { try $0.value(forKey: "p1", in: SocialRecords.removedPosts) } == position)
        store.close()
        #expect(throws: CoreError(.newerSchema)) { try RecordStore(.file(file), schema: jsonLayout) }
    }

    @Test("opening a store of version 3 indexes its comments by post and author, leaving out anonymized ones")
    func commenterIndexMigration() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file("social.sqlite")
        let version3 = StoreSchema(name: "social", migrations: Array(SocialRecords.schema.migrations.prefix(3)))
        let post = UUID()
        let comments = [
            PostComment(id: UUID(), postID: post, userID: "bob", userName: "Bob", text: "one", createdAt: .distantPast),
            PostComment(id: UUID(), postID: post, userID: "bob", userName: "Bob", text: "two", createdAt: .distantPast),
            PostComment(id: UUID(), postID: post, userID: nil, userName: nil, text: "gone", createdAt: .distantPast),
        ]
        let old = try RecordStore(.file(file), schema: version3)
        try old.write { records in
            for comment in comments {
                try records.put(
                    comment, forKey: try SocialRecords.key([.uuid(post), .date(comment.createdAt), .uuid(comment.id)]), in: SocialRecords.comments)
            }
        }
        old.close()

        let store = try RecordStore(.file(file), schema: SocialRecords.schema)
        defer { store.close() }
        let indexed = try store.read { try $0.keys(in: SocialRecords.postCommenters) }
        #expect(indexed.sorted() == (try comments.prefix(2).map { try SocialRecords.commenterKey(post, "bob", $0.id) }).sorted())
        #expect(
            try store.read { try $0.count(in: SocialRecords.postCommenters, range: try SocialRecords.range([.uuid(post), .string("bob")])) } == 2)
    }

    @Test("opening a store of version 12 dates each notification's causes at their notification's date and indexes them newest first")
    func causeOrderMigration() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file("social.sqlite")
        let version12 = StoreSchema(name: "social", migrations: Array(SocialRecords.schema.migrations.prefix(12)))
        let group = LocalSocialFeedService.group(.like, UUID())
        var stored = SocialRecords.StoredNotification(kind: .like, postID: nil)
        stored.count = 2
        stored.latest = ["cy", "bob"]
        stored.updatedAt = Date(timeIntervalSince1970: 1_700_000_000)
        let causes = try ["bob", "cy"].map { try SocialRecords.key([.string("ada"), .string(group), .string($0), .string("")]) }
        let old = try RecordStore(.file(file), schema: version12)
        try old.write { records in
            try records.put(stored, forKey: try SocialRecords.key([.string("ada"), .string(group)]), in: SocialRecords.notifications)
            for cause in causes { try records.setData(Data(), forKey: cause, in: SocialRecords.notificationCauses) }
        }
        old.close()

        let store = try RecordStore(.file(file), schema: SocialRecords.schema)
        defer { store.close() }
        let dates = try store.read { records in
            try causes.map { SocialRecords.causeDate(try records.data(forKey: $0, in: SocialRecords.notificationCauses) ?? Data()) }
        }
        #expect(dates == [stored.updatedAt, stored.updatedAt])
        #expect(try store.read { try $0.count(in: SocialRecords.notificationCauseOrder) } == 2)
    }

    @Test(
        "posts of layout 1 (before posts carried a workout) and layout 2 (before moderation) still read, not hidden; layout 3 keeps both"
    )
    func postLayouts() throws {
        let post = PostEntity(
            id: UUID(), userID: "ada", userName: "Ada", workoutType: .run, content: "10k", createdAt: .distantPast, expiresAt: .distantFuture,
            mediaURL: URL(string: "https://cdn.example.com/a.jpg"), likeCount: 2, commentCount: 1)
        func earlier(_ format: UInt8) -> Data {
            var writer = BinaryWriter(format: format)
            writer.write(post.id)
            writer.write(post.userID)
            writer.write(post.userName)
            writer.write(post.workoutType.rawValue)
            writer.write(post.content)
            writer.write(post.createdAt)
            writer.write(post.expiresAt)
            writer.write(post.mediaURL?.absoluteString)
            writer.write(post.likeCount)
            writer.write(post.commentCount)
            if format == 2 { writer.write(false) }
            return writer.data
        }
        let store = try RecordStore(.inMemory, schema: SocialRecords.schema)
        for format: UInt8 in [1, 2] {
            try store.write { try $0.setData(earlier(format), forKey: "p", in: SocialRecords.posts) }
            let read = try store.read { try $0.value(forKey: "p", in: SocialRecords.posts) }
            #expect(read == post && read?.isHiddenByModeration == false, "layout \(format)")
        }

        var later = post
        later.workout = WorkoutSummary(type: .run, duration: 2_700, distance: nil)
        later.isHiddenByModeration = true
        try store.write { try $0.put(later, forKey: "p", in: SocialRecords.posts) }
        #expect(try store.read { try $0.data(forKey: "p", in: SocialRecords.posts) }?.first == 3)
        let read = try store.read { try $0.value(forKey: "p", in: SocialRecords.posts) }
        #expect(read == later && read?.isHiddenByModeration == true)
    }
}
