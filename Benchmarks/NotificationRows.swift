import Foundation
import TrainAuth
import TrainCore
import TrainSocial
import TrainTesting

/// SOC-NOTIFY and NOTIFY-PAGE: what a notification costs a like, and the first page of
/// notifications of a user with many against one with few.
struct NotificationRows {
    let directory: URL
    let quick: Bool

    /// SOC-NOTIFY: a like of another user's post, which writes their notification,
    /// against a like of one's own post, which writes none — the like as it was before
    /// notifications — interleaved on one file of 10,000 posts.
    func like() throws -> BenchRow {
        let file = directory.appendingPathComponent("notify-like.sqlite")
        let rounds = quick ? 200 : 1_000
        let (social, others, own) = try blocking {
            let fixture = try await SocialRows.fixture(10_000, storage: .file(file))
            let own = (0..<rounds).map { index in
                let createdAt = SocialRows.start.addingTimeInterval(-36_000 + Double(index))
                return PostEntity(
                    id: LocalSocialFeedService.postID(createdAt: createdAt, entropy: UUID()), userID: SocialRows.reader.id,
                    userName: SocialRows.reader.displayName ?? "Reader", workoutType: .run, content: "Own workout \(index)", createdAt: createdAt,
                    expiresAt: createdAt.addingTimeInterval(86_400))
            }
            try fixture.social.importPosts(own)
            return (fixture.social, fixture.friendsPosts.map(\.id), own.map(\.id))
        }
        guard others.count >= rounds else { throw BenchError("the fixture has \(others.count) posts of others, fewer than \(rounds)") }
        var (nextOther, nextOwn) = (0, 0)
        let (ours, baseline) = try interleaved(
            rounds: rounds,
            ours: {
                let post = others[nextOther]
                nextOther += 1
                return try seconds { try blocking { try await social.like(post) } }
            },
            baseline: {
                let post = own[nextOwn]
                nextOwn += 1
                return try seconds { try blocking { try await social.like(post) } }
            })
        return BenchRow(
            id: "SOC-NOTIFY", workload: "a like that notifies its author vs a like that notifies nobody (one's own post), durable",
            ours: ours * 1e6, baseline: baseline * 1e6, unit: "µs/like", target: "ratio <= 1.5")
    }

    /// NOTIFY-PAGE: the first page (20) of notifications of a user with 10,000 of them
    /// against one with 100, in one file, interleaved; each notification is the like of
    /// one of their posts by another user.
    func firstPage() throws -> BenchRow {
        let file = directory.appendingPathComponent("notify-page.sqlite")
        let many = quick ? 2_000 : 10_000
        let auth = FakeAuthService()
        let social = try LocalSocialFeedService(
            auth: auth, storage: .file(file, options: .init(durability: .normal)), context: SocialRows.context)
        try blocking {
            for (recipient, count) in [("busy", many), ("quiet", 100)] {
                let posts = Self.posts(of: recipient, count: count)
                try social.importPosts(posts)
                auth.setCurrentUser(Self.user("fan-of-\(recipient)"))
                _ = try await social.unlockFeed(workoutType: .run)
                for post in posts { try await social.like(post.id) }
            }
        }
        for (recipient, count) in [("busy", 20), ("quiet", 20)] {
            auth.setCurrentUser(Self.user(recipient))
            let shown = try blocking { try await social.notifications(limit: 20, after: nil).notifications.count }
            guard shown == count else { throw BenchError("\(recipient)'s first page holds \(shown) notifications, not \(count)") }
        }
        let rounds = quick ? 50 : 300
        let (ours, baseline) = try interleaved(
            rounds: rounds,
            ours: {
                auth.setCurrentUser(Self.user("busy"))
                return try seconds { _ = try blocking { try await social.notifications(limit: 20, after: nil) } }
            },
            baseline: {
                auth.setCurrentUser(Self.user("quiet"))
                return try seconds { _ = try blocking { try await social.notifications(limit: 20, after: nil) } }
            })
        return BenchRow(
            id: "NOTIFY-PAGE", workload: "first notifications page (20) of a user with \(many) notifications vs one with 100, file",
            ours: ours * 1e6, baseline: baseline * 1e6, unit: "µs/page", target: "ratio <= 1.5")
    }

    /// NOTIFY-WALK: a walk of a user's notifications, page by page (20), to its end,
    /// while 100 of them are re-dated — two after each of the first 50 pages, by a like
    /// and an unlike, untimed — against the same walk with none re-dated; in one file,
    /// interleaved. Only the pages are timed; a re-dated notification comes on a later
    /// page of the walk, so the walk with changes reads more.
    func walk() throws -> BenchRow {
        let file = directory.appendingPathComponent("notify-walk.sqlite")
        let count = quick ? 400 : 1_000
        let auth = FakeAuthService()
        let social = try LocalSocialFeedService(
            auth: auth, storage: .file(file, options: .init(durability: .normal)), context: SocialRows.context)
        let posts = Self.posts(of: "walker", count: count)
        try blocking {
            try social.importPosts(posts)
            for fan in ["fan", "late-fan"] {
                auth.setCurrentUser(Self.user(fan))
                _ = try await social.unlockFeed(workoutType: .run)
            }
            auth.setCurrentUser(Self.user("fan"))
            for post in posts { try await social.like(post.id) }
        }
        var next = 0
        /// One walk's time reading pages; after each of the first `redating / 2` pages, two
        /// notifications of the walk are re-dated.
        func walk(redating: Int) throws -> Double {
            var total = 0.0
            var cursor: String?
            var (pages, shown) = (0, 0)
            repeat {
                auth.setCurrentUser(Self.user("walker"))
                let after = cursor
                var page = NotificationPage(notifications: [], nextCursor: nil)
                total += try seconds { page = try blocking { try await social.notifications(limit: 20, after: after) } }
                (cursor, shown, pages) = (page.nextCursor, shown + page.notifications.count, pages + 1)
                guard pages <= redating / 2 else { continue }
                auth.setCurrentUser(Self.user("late-fan"))
                for _ in 0..<2 {
                    let post = posts[(next * 37) % count].id
                    next += 1
                    try blocking {
                        try await social.like(post)
                        try await social.unlike(post)
                    }
                }
            } while cursor != nil
            guard shown >= count else { throw BenchError("the walk showed \(shown) notifications of \(count)") }
            return total
        }
        let (ours, baseline) = try interleaved(rounds: quick ? 3 : 11, ours: { try walk(redating: 100) }, baseline: { try walk(redating: 0) })
        return BenchRow(
            id: "NOTIFY-WALK", workload: "a walk of \(count) notifications, pages of 20, while 100 are re-dated vs none re-dated, file",
            ours: ours * 1e3, baseline: baseline * 1e3, unit: "ms/walk", target: "ratio <= 1.5")
    }

    /// A user named `id`, as the rows sign them in.
    @Sendable static func user(_ id: String) -> UserEntity {
        UserEntity(id: id, displayName: id, createdAt: SocialRows.start, lastSignInAt: SocialRows.start)
    }

    /// `count` posts of `recipient`, a second apart, oldest first.
    static func posts(of recipient: String, count: Int) -> [PostEntity] {
        (0..<count).map { index in
            let createdAt = SocialRows.start.addingTimeInterval(-50_000 + Double(index))
            return PostEntity(
                id: LocalSocialFeedService.postID(createdAt: createdAt, entropy: UUID()), userID: recipient, userName: recipient,
                workoutType: .run, content: "Run \(index)", createdAt: createdAt, expiresAt: createdAt.addingTimeInterval(86_400))
        }
    }
}
