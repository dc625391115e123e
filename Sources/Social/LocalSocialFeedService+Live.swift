import Foundation
import TrainCore

/// Live streams: each wakes on every commit through the service's store — which every
/// device of a simulated world shares — on every commit another process or service
/// made to its file, and on every sign-in change, and reads again.
extension LocalSocialFeedService {
    public func notificationUpdates() -> AsyncStream<NotificationUpdate> {
        let reader = NotificationUpdatesReader(service: self, wakes: wakes())
        return AsyncStream(unfolding: { await reader.next() })
    }

    public func newPosts() -> AsyncStream<PostEntity> {
        // The newest position now: only posts made after the call are new.
        let start = (try? reading { records in try records.keys(in: SocialRecords.feed, limit: 1).first }) ?? nil
        let cursor = NewPostsCursor(service: self, after: start, wakes: wakes())
        return AsyncStream(unfolding: { await cursor.next() })
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
    /// transaction, with what a reader who was given `previous` needs to tell whether it
    /// reloads; empty when signed out.
    fileprivate func currentNotifications(after previous: NotificationUpdate?) -> NotificationsRead {
        let signedOut = NotificationsRead(
            update: NotificationUpdate(userID: nil, unseenCount: 0, page: NotificationPage(notifications: [], nextCursor: nil)),
            newest: .distantPast, seenUpTo: .distantPast, heldChanged: false)
        guard let user = auth.currentUser else { return signedOut }
        let read = try? reading { records in
            let view = try notificationView(of: user.id, in: records)
            let page = try notificationPage(view, limit: NotificationUpdate.pageSize, after: nil, in: records)
            let newest =
                try records.keys(in: SocialRecords.notificationOrder, range: try SocialRecords.range([.string(user.id)]), limit: 1)
                .first.flatMap(SocialRecords.positionDate) ?? .distantPast
            // A notification the reader was shown that is off the page now: pushed below
            // it as it was, or gone or changed, which the reader cannot see.
            let onPage = Set(page.notifications.map(\.id))
            var heldChanged = false
            if let previous, previous.userID == user.id {
                for held in previous.page.notifications where !onPage.contains(held.id) {
                    guard try notification(held.id, in: view, in: records) == held else {
                        heldChanged = true
                        break
                    }
                }
            }
            return NotificationsRead(
                update: NotificationUpdate(userID: user.id, unseenCount: try unseenCount(view, in: records), page: page), newest: newest,
                seenUpTo: view.seenUpTo, heldChanged: heldChanged)
        }
        guard let read, auth.currentUser?.id == user.id else { return signedOut }
        return read
    }

    /// Up to 100 of the discover feed's posts above `position`, oldest first, that the
    /// signed-in user sees now; the position of the newest post read; and whether the
    /// read stopped at its limit, with more above. Nothing while their feed is locked.
    fileprivate func posts(after position: String?) -> (posts: [PostEntity], newest: String?, hasMore: Bool, reader: String?) {
        guard let user = auth.currentUser else { return ([], position, false, nil) }
        let now = now
        let found = try? reading { records -> (posts: [PostEntity], newest: String?, hasMore: Bool, reader: String?) in
            // The feed is newest first: a reverse walk from `position` reads the posts
            // made after it in the order they were made.
            let range = position.map { KeyRange.all.before($0) } ?? .all
            let above = try records.records(in: SocialRecords.feed, range: range, direction: .reverse, limit: Self.newPostsBatch)
            let newest = above.last?.key ?? position
            let hasMore = above.count == Self.newPostsBatch
            if policy.discoverRequiresUnlock, try !isUnlocked(user.id, at: now, in: records) { return ([], newest, hasMore, user.id) }
            let reader = try feedReader(user.id, in: records)
            var posts: [PostEntity] = []
            for entry in above {
                guard let post = try records.value(forKey: SocialRecords.userID(entry.data), in: SocialRecords.posts), reader.sees(post, at: now)
                else { continue }
                posts.append(post)
            }
            return (posts, newest, hasMore, user.id)
        }
        return found ?? ([], position, false, user.id)
    }

    /// How many positions of the feed ``newPosts()`` reads at a time.
    static let newPostsBatch = 100
}

/// Where a reader of ``LocalSocialFeedService/newPosts()`` is: the position of the
/// newest post it was given and the posts read but not yet taken. It reads the store
/// only when the reader asks for a post, so a slow reader holds no growing buffer and
/// misses nothing: the posts wait in the store, in order, until it asks.
private actor NewPostsCursor {
    private weak var service: LocalSocialFeedService?
    private var position: String?
    private var pending: ArraySlice<PostEntity> = []
    /// Who the pending posts were read for, and the position before them: another user
    /// signed in reads them again, as they see them.
    private var pendingRead: (reader: String?, from: String?)?
    private var wakes: AsyncStream<Void>.Iterator

    init(service: LocalSocialFeedService, after position: String?, wakes: AsyncStream<Void>) {
        self.service = service
        self.position = position
        self.wakes = wakes.makeAsyncIterator()
    }

    /// The next new post, waiting for one to be made; nil once the reader's task is
    /// cancelled or the service is gone.
    func next() async -> PostEntity? {
        while true {
            if let read = pendingRead, !pending.isEmpty, service?.auth.currentUser?.id != read.reader {
                (pending, position) = ([], read.from)
            }
            if let post = pending.popFirst() { return post }
            guard let service, !Task.isCancelled else { return nil }
            let read = service.posts(after: position)
            pendingRead = (read.reader, position)
            position = read.newest
            pending = ArraySlice(read.posts)
            // Nothing more above: wait for the next commit, sign-in change or poll.
            guard pending.isEmpty, !read.hasMore else { continue }
            var waiting = wakes // One iterator: its copies share the stream's state.
            let woke: Void? = await waiting.next(isolation: self)
            wakes = waiting
            if woke == nil { return nil }
        }
    }
}

/// Where a reader of ``LocalSocialFeedService/notificationUpdates()`` is: the last
/// update it was given. It reads the store only when the reader asks, so a reader that
/// never reads holds nothing, and a slow one gets the state when it asks, compared
/// with what it was given — not with states it never saw.
private actor NotificationUpdatesReader {
    private weak var service: LocalSocialFeedService?
    /// The last update given, and its read.
    private var given: NotificationsRead?
    private var wakes: AsyncStream<Void>.Iterator

    init(service: LocalSocialFeedService, wakes: AsyncStream<Void>) {
        self.service = service
        self.wakes = wakes.makeAsyncIterator()
    }

    /// The next update: the state now, once it differs from the last one given, waiting
    /// for a change; nil once the reader's task is cancelled or the service is gone.
    func next() async -> NotificationUpdate? {
        while true {
            guard let service, !Task.isCancelled else { return nil }
            let read = service.currentNotifications(after: given?.update)
            if let given, read.update.sameState(as: given.update) {
                var waiting = wakes // One iterator: its copies share the stream's state.
                let woke: Void? = await waiting.next(isolation: self)
                wakes = waiting
                if woke == nil { return nil }
                continue
            }
            let changedBelow = read.heldChanged || (given.map { $0.seenUpTo != read.seenUpTo } ?? false)
            let update = read.update.given(after: given?.update, newest: given?.newest ?? .distantPast, changedBelow: changedBelow)
            given = NotificationsRead(update: update, newest: read.newest, seenUpTo: read.seenUpTo, heldChanged: false)
            return update
        }
    }
}

/// A read of the signed-in user's notifications for their stream: the update, the date
/// of their newest change and up to when they saw the list, and whether a notification
/// the reader's previous page showed is off the page now, gone or changed.
private struct NotificationsRead {
    var update: NotificationUpdate
    var newest: Date
    var seenUpTo: Date
    var heldChanged: Bool
}
