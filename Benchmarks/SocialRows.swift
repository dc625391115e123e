import Foundation
import TrainAuth
import TrainCore
import TrainSocial
import TrainTesting

/// PERF-1, PERF-2 and SOC-WRITE: TrainSocial's friends-feed pages, opening a file
/// of posts, and a like.
struct SocialRows {
    let directory: URL
    let quick: Bool

    /// The larger store: a million posts (100,000 with `--quick`).
    var large: Int { quick ? 100_000 : 1_000_000 }
    let small = 10_000
    /// Posts are spread over this many authors whatever their number, so the reader's
    /// 500 followees write a share of them.
    static let authors = 5_000
    static let followees = 500
    static let reader = UserEntity(id: "reader", displayName: "Reader", createdAt: start, lastSignInAt: start)
    /// Noon UTC on a fixed day: every post is live and the reader's unlock lasts the run.
    static let start = Date(timeIntervalSince1970: 1_767_268_800)

    /// A service over `count` posts by 5,000 authors in the 20 hours before ``start``,
    /// signed in as a reader who follows 500 of the authors and has unlocked the feed.
    /// - Returns: The service and the posts in the reader's friends feed.
    static func fixture(_ count: Int, storage: StorageLocation) async throws -> (social: LocalSocialFeedService, friendsPosts: [PostEntity]) {
        let auth = FakeAuthService()
        auth.setCurrentUser(reader)
        let social = try LocalSocialFeedService(auth: auth, storage: storage, context: context)
        let spacing = 72_000 / Double(count)
        var friendsPosts: [PostEntity] = []
        for batch in stride(from: 0, to: count, by: 20_000) {
            let posts = (batch..<min(batch + 20_000, count)).map { index in
                let author = index % authors
                let createdAt = start.addingTimeInterval(-72_000 + Double(index) * spacing)
                return PostEntity(
                    id: LocalSocialFeedService.postID(createdAt: createdAt, entropy: UUID()), userID: "author-\(author)",
                    userName: "Author \(author)", workoutType: .run,
                    content: "Workout \(index): 5 km easy, then strides.", createdAt: createdAt, expiresAt: createdAt.addingTimeInterval(86_400))
            }
            try social.importPosts(posts)
            friendsPosts += posts.filter { Int($0.userID.dropFirst("author-".count)).map { $0 < followees } ?? false }
        }
        _ = try await social.unlockFeed(workoutType: .run)
        for author in 0..<followees { try await social.follow("author-\(author)") }
        return (social, friendsPosts)
    }

    /// A manual clock at ``start`` in UTC, with random IDs.
    static var context: TrainContext {
        TrainContext(clock: ManualClock(start: start), timeZone: { TimeZone(identifier: "UTC") ?? .current })
    }

    /// PERF-1-MEM / PERF-1-FILE: the 99th-percentile friends page (limit 20) from a
    /// random post of the feed, at a million posts against 10,000.
    func friendsPage(inMemory: Bool) throws -> BenchRow {
        let name = inMemory ? "memory" : "file"
        let storage = { @Sendable (count: Int) -> StorageLocation in
            inMemory ? .inMemory : .file(directory.appendingPathComponent("social-\(name)-\(count).sqlite"), options: .init(durability: .normal))
        }
        let (large, small, quick) = (large, small, quick)
        let (ours, baseline) = try blocking {
            let big = try await Self.fixture(large, storage: storage(large))
            let little = try await Self.fixture(small, storage: storage(small))
            return try await Self.pageTimes(rounds: quick ? 6 : 20, big: big.friendsPosts, little: little.friendsPosts) { isBig, cursor in
                let page = try await (isBig ? big : little).social.friendsFeed(limit: 20, after: cursor.id)
                if page.isEmpty && cursor.id != (isBig ? big : little).friendsPosts.first?.id { throw BenchError("an empty page mid-feed") }
            }
        }
        let p99 = percentile(ours, 0.99)
        return BenchRow(
            id: inMemory ? "PERF-1-MEM" : "PERF-1-FILE",
            workload:
                "p99 friends page (20), 500 followees, \(large / 1_000)k vs 10k posts, \(name); p50 \(String(format: "%.1f", percentile(ours, 0.5) * 1e6)) µs",
            ours: p99 * 1e6, baseline: percentile(baseline, 0.99) * 1e6, unit: "µs",
            target: inMemory ? "ratio <= 1.5, ours <= 1000 µs" : "ratio <= 1.5")
    }

    /// Seconds per page at both sizes, in rounds of 200 pages from random cursors that
    /// alternate which size goes first.
    static func pageTimes(
        rounds: Int, big: [PostEntity], little: [PostEntity], page: (_ isBig: Bool, _ cursor: PostEntity) async throws -> Void
    ) async throws -> (big: [Double], little: [Double]) {
        var random = SystemRandomNumberGenerator()
        var times: (big: [Double], little: [Double]) = ([], [])
        for round in 0..<rounds {
            for isBig in round.isMultiple(of: 2) ? [true, false] : [false, true] {
                let posts = isBig ? big : little
                for _ in 0..<200 {
                    let cursor = posts[Int.random(in: 0..<posts.count, using: &random)]
                    let start = ContinuousClock.now
                    try await page(isBig, cursor)
                    let elapsed = elapsed(ContinuousClock.now - start)
                    if isBig { times.big.append(elapsed) } else { times.little.append(elapsed) }
                }
            }
        }
        return times
    }

    /// PERF-1-BARE, the reference for PERF-1-FILE: the same page written directly against
    /// SQLite on the same kind of files — the reader's friends-feed index from the cursor,
    /// then the twenty posts by key — at a million posts against 10,000.
    func barePage() throws -> BenchRow {
        let (large, small, quick, directory) = (large, small, quick, directory)
        let (ours, baseline) = try blocking {
            let files = [large, small].map { directory.appendingPathComponent("social-bare-\($0).sqlite") }
            let big = try await Self.fixture(large, storage: .file(files[0], options: .init(durability: .normal))).friendsPosts
            let little = try await Self.fixture(small, storage: .file(files[1], options: .init(durability: .normal))).friendsPosts
            let readers = try files.map { try BareStoreReader(path: $0.path) }
            return try await Self.pageTimes(rounds: quick ? 6 : 20, big: big, little: little) { isBig, cursor in
                let bare = readers[isBig ? 0 : 1]
                let key = try RecordKey(.string(Self.reader.id), .descending(.date(cursor.createdAt)), .descending(.uuid(cursor.id))).encoded
                var read = 0
                for entry in bare.records(in: "social/timelines", from: key, limit: 21).dropFirst() {
                    read += bare.value(in: "social/posts", key: String(decoding: entry.1, as: UTF8.self))?.count ?? 0
                }
                if read == 0 && cursor.id != (isBig ? big : little).first?.id { throw BenchError("an empty bare page mid-feed") }
            }
        }
        return BenchRow(
            id: "PERF-1-BARE",
            workload:
                "reference for PERF-1-FILE: the page's reads on bare SQLite, p99, \(large / 1_000)k vs 10k posts; p50 \(String(format: "%.1f", percentile(ours, 0.5) * 1e6)) µs",
            ours: percentile(ours, 0.99) * 1e6, baseline: percentile(baseline, 0.99) * 1e6, unit: "µs", target: "reference")
    }

    /// PERF-2: opening the file-backed service over 100,000 posts and reading the first
    /// friends page, against opening the bare SQLite file and reading one row.
    func open() throws -> BenchRow {
        let file = directory.appendingPathComponent("social-open-100000.sqlite")
        let somePost = try blocking {
            let fixture = try await Self.fixture(100_000, storage: .file(file, options: .init(durability: .normal)))
            return fixture.friendsPosts[0].id
        }
        let path = file.path
        let postKey = somePost.uuidString.lowercased()
        let (ours, baseline) = try interleaved(
            rounds: quick ? 3 : 9,
            ours: {
                try seconds {
                    let page = try blocking {
                        let auth = FakeAuthService()
                        auth.setCurrentUser(Self.reader)
                        let social = try LocalSocialFeedService(auth: auth, storage: .file(file), context: Self.context)
                        return try await social.friendsFeed(limit: 20).count
                    }
                    guard page == 20 else { throw BenchError("the first page held \(page) posts") }
                }
            },
            baseline: {
                try seconds {
                    let bare = try BareStoreReader(path: path)
                    guard bare.value(in: "social/posts", key: postKey) != nil else { throw BenchError("no post row in the bare read") }
                }
            })
        return BenchRow(
            id: "PERF-2", workload: "open a file of 100k posts + first friends page, vs bare open + one row",
            ours: ours * 1e3, baseline: baseline * 1e3, unit: "ms", target: "ours <= 300 ms")
    }

    /// SOC-WRITE: a like — the relation both ways, the post's count and the author's
    /// notification in one durable transaction — against one bare SQLite transaction
    /// writing the same seven rows.
    func like() throws -> BenchRow {
        let file = directory.appendingPathComponent("social-like.sqlite")
        let (social, posts) = try blocking {
            let fixture = try await Self.fixture(small, storage: .file(file))
            return (fixture.social, fixture.friendsPosts.map(\.id))
        }
        let bare = try BareSQLite(path: directory.appendingPathComponent("social-like-bare.sqlite").path)
        let postBytes = try JSONEncoder().encode(
            PostEntity(
                id: UUID(), userID: "author-1", userName: "Author 1", workoutType: .run, content: "Workout 1: 5 km easy, then strides.",
                createdAt: Self.start, expiresAt: Self.start.addingTimeInterval(86_400), likeCount: 1))
        let notificationBytes = Data(
            #"{"kind":"like","postID":"6F9619FF-8B86-D011-B42D-00C04FC964FF","count":1,"latest":["reader"],"updatedAt":788918400}"#.utf8)
        let marksBytes = Data(#"{"seenUpTo":-63114076800,"newest":788918400}"#.utf8)
        // Each like is a new one, on a post not liked before.
        var (nextLiked, nextBare) = (0, 0)
        let (ours, baseline) = try interleaved(
            rounds: min(quick ? 200 : 1_000, posts.count),
            ours: {
                let post = posts[nextLiked]
                nextLiked += 1
                return try seconds { try blocking { try await social.like(post) } }
            },
            baseline: {
                let post = posts[nextBare].uuidString.lowercased()
                nextBare += 1
                return try seconds {
                    try bare.execute("BEGIN IMMEDIATE")
                    try bare.insert(key: "likes/\(post)/reader", value: Data("reader".utf8))
                    try bare.insert(key: "liked/reader/\(post)", value: Data(post.utf8))
                    try bare.insert(key: "posts/\(post)", value: postBytes)
                    // The author's notification: its cause, itself, the author's marks and its place in their list.
                    try bare.insert(key: "notificationCauses/author-1/like:\(post)/reader/", value: Data())
                    try bare.insert(key: "notifications/author-1/like:\(post)", value: notificationBytes)
                    try bare.insert(key: "notificationsSeen/author-1/\(post)", value: marksBytes)
                    try bare.insert(key: "notificationOrder/author-1/\(post)/like:\(post)", value: Data("like:\(post)".utf8))
                    try bare.execute("COMMIT")
                }
            })
        return BenchRow(
            id: "SOC-WRITE", workload: "a like (two relation rows, the post's count, the author's notification), durable, vs bare SQLite tx",
            ours: ours * 1e6, baseline: baseline * 1e6, unit: "µs/like", target: "ratio <= 2")
    }

    /// A duration in seconds.
    static func elapsed(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// Runs `body` to the end on the cooperative pool and returns its result to this thread.
func blocking<Result: Sendable>(_ body: @escaping @Sendable () async throws -> Result) throws -> Result {
    let outcome = Locked<Swift.Result<Result, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        let result: Swift.Result<Result, any Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        outcome.withLock { $0 = result }
        done.signal()
    }
    done.wait()
    guard let result = outcome.withLock({ $0 }) else { throw BenchError("the task ended without a result") }
    return try result.get()
}
