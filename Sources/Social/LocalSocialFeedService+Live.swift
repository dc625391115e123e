import Foundation
import TrainCore

/// Live streams: each wakes on every commit through the service's store — which every
/// device of a simulated world shares — on every commit another process or service
/// made to its file, and on every sign-in change, and reads again.
extension LocalSocialFeedService {
    public func notificationUpdates() -> AsyncStream<NotificationUpdate> {
        let (stream, continuation) = AsyncStream<NotificationUpdate>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let wakes = wakes()
        let following = Task { [weak self] in
            var last: NotificationUpdate?
            for await _ in wakes {
                guard let self else { break }
                let update = self.currentNotifications()
                if update != last {
                    last = update
                    continuation.yield(update)
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in following.cancel() }
        return stream
    }

    public func newPosts() -> AsyncStream<PostEntity> {
        let (stream, continuation) = AsyncStream<PostEntity>.makeStream(bufferingPolicy: .bufferingNewest(100))
        // The newest position now: only posts made after the call are new.
        let start = (try? reading { records in try records.keys(in: SocialRecords.feed, limit: 1).first }) ?? nil
        let wakes = wakes()
        let following = Task { [weak self] in
            var newest = start
            for await _ in wakes {
                guard let self else { break }
                let (posts, position) = self.posts(after: newest)
                newest = position
                for post in posts { continuation.yield(post) }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in following.cancel() }
        return stream
    }

    /// Yields once at once, then after every commit through the store, every sign-in
    /// change, and — for a store in a file — every commit another connection made to
    /// the file, looked for each ``SocialConfiguration/changePollInterval`` on the
    /// service's clock.
    private func wakes() -> AsyncStream<Void> {
        let (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let users = auth.authStateChanges()
        let commits = store.commits.subscribe(replayingCurrent: false)
        let store = store
        let (clock, interval) = (context.clock, max(configuration.changePollInterval, .milliseconds(1)))
        // The file's commit count now: a commit by another process from here on is found.
        let external = store.file == nil ? nil : try? store.externalChangeCount()
        let merging = Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await _ in users { wake.yield() }
                }
                group.addTask {
                    for await _ in commits { wake.yield() }
                }
                guard let external else { return }
                group.addTask {
                    var seen = external
                    while (try? await clock.sleep(for: interval)) != nil {
                        guard let count = try? store.externalChangeCount(), count != seen else { continue }
                        seen = count
                        wake.yield()
                    }
                }
            }
            wake.finish()
        }
        wake.onTermination = { _ in merging.cancel() }
        wake.yield()
        return wakes
    }

    /// The signed-in user's badge and first page of notifications, read in one
    /// transaction; empty when signed out.
    private func currentNotifications() -> NotificationUpdate {
        let signedOut = NotificationUpdate(userID: nil, unseenCount: 0, page: NotificationPage(notifications: [], nextCursor: nil))
        guard let user = auth.currentUser else { return signedOut }
        let update = try? reading { records in
            let view = try notificationView(of: user.id, in: records)
            return NotificationUpdate(
                userID: user.id, unseenCount: try unseenCount(view, in: records),
                page: try notificationPage(view, limit: NotificationUpdate.pageSize, after: nil, in: records))
        }
        guard let update, auth.currentUser?.id == user.id else { return signedOut }
        return update
    }

    /// The posts of the discover feed above `position`, oldest first, that the signed-in
    /// user sees now, and the newest position. Nothing while their feed is locked.
    private func posts(after position: String?) -> (posts: [PostEntity], newest: String?) {
        guard let user = auth.currentUser else { return ([], position) }
        let now = now
        let found = try? reading { records -> (posts: [PostEntity], newest: String?) in
            let above = try records.records(in: SocialRecords.feed, range: position.map { KeyRange.all.before($0) } ?? .all, limit: 100)
            let newest = above.first?.key ?? position
            if policy.discoverRequiresUnlock, try !isUnlocked(user.id, at: now, in: records) { return ([], newest) }
            let reader = try feedReader(user.id, in: records)
            var posts: [PostEntity] = []
            for entry in above.reversed() {
                guard let post = try records.value(forKey: SocialRecords.userID(entry.data), in: SocialRecords.posts), reader.sees(post, at: now)
                else { continue }
                posts.append(post)
            }
            return (posts, newest)
        }
        return found ?? ([], position)
    }
}
