import Foundation
import Observation
import TrainKit

/// The friends feed: locked until a workout today, then open until local midnight,
/// as the session shows it without a refresh.
@MainActor
@Observable
public final class FeedModel {
    /// The posts loaded so far, newest first.
    public private(set) var posts: [PostEntity] = []
    /// Whether another page may follow.
    public private(set) var hasMore = true
    /// The last action's failure, for the user.
    public private(set) var errorMessage: String?
    private let session: UserSessionManager
    private let pageSize: Int
    private var nextCursor: UUID?

    /// Creates the feed over the session.
    /// - Parameters:
    ///   - session: The session manager; its `social` service serves the feed.
    ///   - pageSize: Posts a page; 20 by default.
    public init(session: UserSessionManager, pageSize: Int = 20) {
        self.session = session
        self.pageSize = pageSize
    }

    /// Whether the feed is open: draw it, or the "log a workout" prompt.
    public var isUnlocked: Bool { session.isFeedUnlocked }

    /// When the feed locks again, for "open until midnight".
    public var unlockedUntil: Date? { session.feedUnlockedUntil }

    /// The "I worked out" button: opens the feed for the rest of the local day.
    /// - Parameter workout: The workout done.
    public func logWorkout(_ workout: WorkoutType) async {
        errorMessage = await attempt { try await self.session.unlockFeed(workoutType: workout) }
        if errorMessage == nil { await reload() }
    }

    /// Reads the first page again: pull to refresh.
    public func reload() async {
        posts = []
        nextCursor = nil
        hasMore = true
        await loadMore()
    }

    /// Reads the next page, when the list reaches its end.
    public func loadMore() async {
        guard hasMore, isUnlocked else { return }
        errorMessage = await attempt {
            let page = try await self.session.social.friendsFeed(limit: self.pageSize, after: self.nextCursor)
            self.posts += page
            self.nextCursor = page.nextCursor
            self.hasMore = page.hasMore
        }
    }

    /// A post's heart: filled when the page says the user likes it.
    /// - Parameter post: The post.
    public func like(_ post: PostEntity) async {
        errorMessage = await attempt {
            try await self.session.social.like(post.id)
            if let index = self.posts.firstIndex(where: { $0.id == post.id }), !self.posts[index].isLikedByViewer {
                self.posts[index].likeCount += 1
                self.posts[index].isLikedByViewer = true
            }
        }
    }
}
