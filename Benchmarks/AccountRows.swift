import Foundation
import TrainAccount
import TrainAuth
import TrainCore
import TrainSocial
import TrainTesting

/// PERF-6-MEM, PERF-6-FILE and PERF-8: deleting a heavy user's account beside many
/// other users' posts, and a thousand callers sharing one social service.
struct AccountRows {
    let directory: URL
    let quick: Bool

    /// Other users' posts beside the heavy user: a million (100,000 with `--quick`), against 10,000.
    var large: Int { quick ? 100_000 : 1_000_000 }
    let small = 10_000

    static let heavyPosts = 10_000
    static let followers = 5_000
    static let likes = 20_000
    /// Posts are spread evenly over the 50 days before ``start``: one of the heavy
    /// user's every 432 s, so 200 of them are live (posted in the last 24 h).
    static let span: TimeInterval = 50 * 86_400
    /// The social rows' fixed noon; the clock stays there.
    static let start = SocialRows.start

    /// PERF-6-MEM / PERF-6-FILE: the account service's deletion call for the heavy user
    /// (`deleteAccount(of:)`: the recent sign-in check, the simulated Apple revocation,
    /// the journal, and the user signed out and hidden in one step) beside a million
    /// other users' posts, against beside 10,000. Only the call is timed; its
    /// background purge is awaited after, untimed, and checked. Each round makes a new
    /// heavy user over the same other users first. Rounds alternate which size goes
    /// first and go on, up to five, while the rows' first two minutes last.
    func deletion(inMemory: Bool) throws -> BenchRow {
        let (large, small, directory, quick) = (large, small, directory, quick)
        let (ours, baseline, rounds, live) = try blocking {
            let big = try await DeletionStack(others: large, file: inMemory ? nil : directory.appendingPathComponent("account-\(large)"))
            let little = try await DeletionStack(others: small, file: inMemory ? nil : directory.appendingPathComponent("account-\(small)"))
            var times: (big: [Double], little: [Double]) = ([], [])
            var live = 0
            let began = ContinuousClock.now
            repeat {
                for isBig in times.big.count.isMultiple(of: 2) ? [true, false] : [false, true] {
                    let (elapsed, livePosts) = try await (isBig ? big : little).deleteHeavyUser()
                    live = livePosts
                    if isBig { times.big.append(elapsed) } else { times.little.append(elapsed) }
                }
            } while !quick && times.big.count < 5 && SocialRows.elapsed(ContinuousClock.now - began) < 120
            return (median(times.big), median(times.little), times.big.count, live)
        }
        let name = inMemory ? "memory" : "file"
        return BenchRow(
            id: inMemory ? "PERF-6-MEM" : "PERF-6-FILE",
            workload:
                "deleteAccount call (hide; purge untimed): heavy user (10k posts, \(live) live; 5k followers; 20k likes given), \(large / 1_000)k vs 10k others' posts, "
                + "\(name); median of \(rounds)",
            ours: ours * 1e3, baseline: baseline * 1e3, unit: "ms",
            target: "ratio <= 1.5, ours <= 50 ms")
    }

    /// PERF-8: the throughput of 1,000 concurrent callers of one in-memory feed service,
    /// each doing the same mix twice — post, comment on one shared post, like a post of
    /// its own, read the first friends page — against one caller doing all of it in
    /// turn. Each run starts from a fresh service; afterwards every post made must be
    /// there, the shared post's count must equal the comments made, every like must be
    /// kept, and `recount()` must find no wrong count.
    func concurrentCallers() throws -> BenchRow {
        let (callers, repeats) = (1_000, 2)
        let operations = Double(callers * repeats * 4)
        let (concurrent, sequential) = try interleaved(
            rounds: quick ? 3 : 7,
            ours: {
                try blocking {
                    let fixture = try await CallerFixture(likeable: callers * repeats)
                    return try await fixture.run {
                        try await withThrowingTaskGroup(of: [UUID].self) { group in
                            for caller in 0..<callers {
                                group.addTask {
                                    var made: [UUID] = []
                                    for turn in 0..<repeats { made.append(try await fixture.mix(caller * repeats + turn)) }
                                    return made
                                }
                            }
                            return try await group.reduce(into: []) { $0 += $1 }
                        }
                    }
                }
            },
            baseline: {
                try blocking {
                    let fixture = try await CallerFixture(likeable: callers * repeats)
                    return try await fixture.run {
                        var made: [UUID] = []
                        for index in 0..<callers * repeats { made.append(try await fixture.mix(index)) }
                        return made
                    }
                }
            })
        return BenchRow(
            id: "PERF-8",
            workload: "1,000 concurrent callers, each 2× (post, comment on a shared post, like, friends page), in memory, vs 1 caller in turn",
            ours: operations / concurrent, baseline: operations / sequential, unit: "ops/s",
            target: "ratio >= 0.8 (higher is better), no lost update (checked)")
    }
}

/// A device's whole stack (``TrainServices``) over other users' posts, where a heavy user
/// is made, then deleted through the account service, again and again.
///
/// The heavy user's posts are imported in one transaction; their followers follow them
/// and they like 20,000 posts of others through the feed service's calls, so every
/// count and friends-feed entry is what the app makes. The followers followed after
/// most of the heavy user's posts expired: their friends feeds hold the live ones only.
final class DeletionStack {
    let services: TrainServices
    let clock = ManualClock(start: AccountRows.start)
    /// Where the fixture writes as any user: the stack's own service in memory, which acts
    /// as whoever signs in; a second service on the same file otherwise, acting as
    /// whoever `writerAuth` says, so the followers need no accounts of their own.
    let writer: LocalSocialFeedService
    let writerAuth: FakeAuthService?
    /// The posts of others the heavy user likes.
    let likedPosts: [UUID]
    private var round = 0

    /// Builds a stack in memory, or in files in `file` (a directory), with `others` posts
    /// by 5,000 other users and 20,000 live posts of others for the heavy user to like.
    init(others: Int, file: URL?) async throws {
        let configuration = TrainServicesConfiguration(context: TrainContext(clock: clock))
        if let file {
            services = try TrainServices.files(in: file, configuration: configuration)
            let auth = FakeAuthService(clock: clock)
            writerAuth = auth
            writer = try LocalSocialFeedService(
                auth: auth, storage: .file(file.appendingPathComponent("trainkit.sqlite"), options: .init(durability: .normal)),
                context: TrainContext(clock: clock))
        } else {
            services = TrainServices.inMemory(configuration: configuration)
            writerAuth = nil
            writer = services.social
        }
        let start = AccountRows.start
        let spacing = AccountRows.span / Double(max(others, 1))
        try Self.importPosts(others, into: writer) { index in
            (
                author: "other-\(index % 5_000)", name: "Other \(index % 5_000)",
                createdAt: start.addingTimeInterval(-AccountRows.span + (Double(index) + 0.5) * spacing)
            )
        }
        // Live posts, so they can be liked: in the 20 hours before the start.
        likedPosts = try Self.importPosts(AccountRows.likes, into: writer) { index in
            (author: "liked-\(index % 1_000)", name: "Liked \(index % 1_000)", createdAt: start.addingTimeInterval(-72_000 + Double(index) * 3.6))
        }
    }

    /// Imports `count` posts in transactions of 20,000, `post` giving each its author and date.
    @discardableResult
    static func importPosts(
        _ count: Int, into social: LocalSocialFeedService, _ post: (Int) -> (author: String, name: String, createdAt: Date)
    ) throws -> [UUID] {
        var ids: [UUID] = []
        for batch in stride(from: 0, to: count, by: 20_000) {
            let posts = (batch..<min(batch + 20_000, count)).map { index in
                let (author, name, createdAt) = post(index)
                return PostEntity(
                    id: LocalSocialFeedService.postID(createdAt: createdAt, entropy: UUID()), userID: author, userName: name,
                    workoutType: .run, content: "Workout \(index): 5 km easy, then strides.", createdAt: createdAt,
                    expiresAt: createdAt.addingTimeInterval(86_400))
            }
            try social.importPosts(posts)
            ids += posts.map(\.id)
        }
        return ids
    }

    /// Signs `subject` in with Apple on the stack.
    @discardableResult
    func signIn(_ subject: String, name: String) async throws -> UserEntity {
        services.appleID.signIn(as: .init(subject: subject, email: "\(subject)@example.com", fullName: FullName(givenName: name)))
        return try await services.auth.signInWithApple()
    }

    /// Makes the writer act as a user: signs them in with Apple in memory, tells the
    /// writer's fake who they are over a file.
    func act(as userID: String, name: String, subject: String) async throws {
        if let writerAuth {
            writerAuth.setCurrentUser(UserEntity(id: userID, displayName: name, createdAt: clock.now, lastSignInAt: clock.now))
        } else {
            try await signIn(subject, name: name)
        }
    }

    /// Makes a new heavy user — 10,000 posts over 50 days, 5,000 followers, 20,000 likes
    /// on others' posts — and leaves them signed in on the stack.
    /// - Returns: The user, and how many of their posts are live.
    func makeHeavyUser() async throws -> (user: UserEntity, livePosts: Int) {
        round += 1
        let name = "Heavy Runner"
        let heavy = try await signIn("heavy-\(round)", name: name)
        let start = AccountRows.start
        let spacing = AccountRows.span / Double(AccountRows.heavyPosts)
        try Self.importPosts(AccountRows.heavyPosts, into: writer) { index in
            (author: heavy.id, name: name, createdAt: start.addingTimeInterval(-(Double(index) + 0.5) * spacing))
        }
        let live = (0..<AccountRows.heavyPosts).count { (Double($0) + 0.5) * spacing < 86_400 }
        for follower in 0..<AccountRows.followers {
            // The same followers every round: the deletion left them following nobody.
            try await act(as: "follower-\(follower)", name: "Follower \(follower)", subject: "follower-\(follower)")
            try await writer.follow(heavy.id)
        }
        try await act(as: heavy.id, name: name, subject: "heavy-\(round)")
        for post in likedPosts { try await writer.like(post) }
        guard services.auth.currentUser?.id == heavy.id else { throw BenchError("the heavy user is not signed in") }
        return (heavy, live)
    }

    /// Makes a new heavy user and deletes their account through the account service.
    /// - Returns: The seconds the deletion call took, and how many of their posts were live.
    func deleteHeavyUser() async throws -> (seconds: Double, livePosts: Int) {
        let (heavy, live) = try await makeHeavyUser()
        let began = ContinuousClock.now
        try await services.account.deleteAccount(of: heavy.id)
        let elapsed = SocialRows.elapsed(ContinuousClock.now - began)
        try Self.check(try await services.account.deletionCompletion(of: heavy.id))
        return (elapsed, live)
    }

    /// Throws unless `report` removed all of a heavy user's posts, likes and follows.
    static func check(_ report: AccountDeletionReport) throws {
        let social = report.social
        guard social.posts == AccountRows.heavyPosts, social.likes == AccountRows.likes, social.follows == AccountRows.followers else {
            throw BenchError("the deletion removed \(social.posts) posts, \(social.likes) likes and \(social.follows) follows")
        }
    }
}

/// A fresh in-memory feed service for PERF-8: a reader who follows 100 authors of
/// 2,000 live posts, with a post of their own that every caller comments on, and live
/// posts of others for the callers to like.
final class CallerFixture: Sendable {
    let social: LocalSocialFeedService
    let shared: UUID
    let likeable: [UUID]

    init(likeable count: Int) async throws {
        let auth = FakeAuthService()
        auth.setCurrentUser(SocialRows.reader)
        social = try LocalSocialFeedService(auth: auth, storage: .inMemory, context: SocialRows.context)
        let start = SocialRows.start
        try DeletionStack.importPosts(2_000, into: social) { index in
            (author: "author-\(index % 100)", name: "Author \(index % 100)", createdAt: start.addingTimeInterval(-72_000 + Double(index) * 30))
        }
        likeable = try DeletionStack.importPosts(count, into: social) { index in
            (author: "liked-\(index % 100)", name: "Liked \(index % 100)", createdAt: start.addingTimeInterval(-71_000 + Double(index) * 0.05))
        }
        _ = try await social.unlockFeed(workoutType: .run)
        for author in 0..<100 { try await social.follow("author-\(author)") }
        shared = try await social.createPost(content: "Long run today: comment with yours!", workoutType: .run).id
    }

    /// One turn of the mix: a post, a comment on the shared post, a like of the
    /// `index`-th likeable post, the first friends page.
    /// - Returns: The post made.
    func mix(_ index: Int) async throws -> UUID {
        let post = try await social.createPost(content: "Caller turn \(index): 8 km tempo.", workoutType: .run)
        _ = try await social.comment(on: shared, text: "Nice, mine was \(index % 20) km.")
        try await social.like(likeable[index])
        guard try await social.friendsFeed(limit: 20).count == 20 else { throw BenchError("a friends page was short") }
        return post.id
    }

    /// Times `body`, then checks that nothing it did was lost.
    /// - Returns: The seconds `body` took.
    func run(_ body: () async throws -> [UUID]) async throws -> Double {
        let began = ContinuousClock.now
        let made = try await body()
        let elapsed = SocialRows.elapsed(ContinuousClock.now - began)
        let export = try await social.exportAccountData()
        let stored = Set(export.posts.map(\.id))
        let lostPosts = made.count { !stored.contains($0) }
        let comments = export.posts.first { $0.id == shared }?.commentCount ?? -1
        let commentRecords = try await social.comments(on: shared).count
        let lostLikes = Set(likeable).subtracting(export.likedPostIDs).count
        let wrongCounts = try await social.recount()
        guard Set(made).count == likeable.count, lostPosts == 0, comments == likeable.count, commentRecords == likeable.count, lostLikes == 0,
            wrongCounts == 0
        else {
            throw BenchError(
                "lost updates: \(made.count) posts made (\(Set(made).count) distinct), \(lostPosts) missing; shared post counts \(comments) "
                    + "comments with \(commentRecords) stored of \(likeable.count) made; \(lostLikes) likes missing; \(wrongCounts) counts wrong")
        }
        return elapsed
    }
}
