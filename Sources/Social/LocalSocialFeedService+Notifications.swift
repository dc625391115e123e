import Foundation
import TrainCore

/// Notifications, kept as the likes, comments, mentions and follows happen: each one is a cause
/// under its recipient's notification for that post and kind, whose count and latest
/// users change in the same transaction, and whose place in the recipient's list —
/// newest first — moves with it. A page walks that list from the cursor, so its cost
/// is what it returns, not how many notifications the user has. Users hidden from the
/// recipient or muted by them are left out when a page is read, as counts leave them out.
extension LocalSocialFeedService {
    public func notifications(limit: Int, after cursor: String?) async throws -> NotificationPage {
        let user = try signedInUser()
        let limit = try Self.pageSize(limit)
        return try reading { records in try notificationPage(try notificationView(of: user.id, in: records), limit: limit, after: cursor, in: records)
        }
    }

    public func unseenNotificationCount() async throws -> Int {
        let user = try signedInUser()
        return try reading { records in try unseenCount(try notificationView(of: user.id, in: records), in: records) }
    }

    /// What every read of a user's notifications needs, read once: whose they are, the
    /// users they leave out, and up to when the user saw their list.
    struct NotificationView {
        /// The recipient.
        let recipient: String
        /// The users hidden from them or muted by them.
        let leftOut: UserIDSet
        /// Up to when they saw their list.
        let seenUpTo: Date
    }

    /// The view of `userID`'s notifications.
    func notificationView(of userID: String, in records: RecordReader) throws -> NotificationView {
        var leftOut = try hiddenUsers(from: userID, in: records)
        leftOut.formUnion(try mutedUsers(of: userID, in: records))
        let seenUpTo = try records.value(forKey: userID, in: SocialRecords.notificationsSeen)?.seenUpTo ?? .distantPast
        return NotificationView(recipient: userID, leftOut: leftOut, seenUpTo: seenUpTo)
    }

    /// A page of the recipient's notifications, newest first, from `cursor`.
    ///
    /// A walk — the first page and the pages its cursors lead to — never skips a
    /// notification. Its cursor holds where the walk stands in the list and a
    /// watermark: the date of the newest change the walk has shown. A notification
    /// dated after the watermark — new, or re-dated by a like while the walk went on,
    /// which moves it above the walk's place — comes first on the next page, oldest
    /// such change first, at most a page of them at a time; then the walk goes on
    /// down the list. Pages may overlap: a notification shown before it changed is
    /// shown again.
    func notificationPage(_ view: NotificationView, limit: Int, after cursor: String?, in records: RecordReader) throws -> NotificationPage {
        let whole = try SocialRecords.range([.string(view.recipient)])
        var walk = whole
        var watermark: Date?
        var position: [RecordKey.Component] = []
        if let cursor {
            guard let components = try? RecordKey(encoded: cursor).components, components.first == .string(view.recipient) else {
                throw SocialError(.invalidCursor, detail: "Not a cursor of this user's notifications.")
            }
            switch components.count {
            case 3: // A cursor of a version before watermarks: the walk goes on without them.
                position = Array(components.dropFirst())
            case 4:
                guard case .date(let date) = components[1] else {
                    throw SocialError(.invalidCursor, detail: "Not a cursor of this user's notifications.")
                }
                watermark = date
                position = Array(components.dropFirst(2))
            default:
                throw SocialError(.invalidCursor, detail: "Not a cursor of this user's notifications.")
            }
            // A cursor written by hand can hold a date no key holds.
            let keys = try? (
                SocialRecords.key([.string(view.recipient)] + position), watermark.map { try SocialRecords.key([.descending(.date($0))]) }
            )
            guard let keys else { throw SocialError(.invalidCursor, detail: "Not a cursor of this user's notifications.") }
            walk = whole.after(keys.0)
        }
        var page: [SocialNotification] = []
        var more = false
        if let since = watermark {
            // The changes dated after the watermark, oldest first.
            var range = whole.before(try SocialRecords.key([.string(view.recipient), .descending(.date(since))]))
            var changed: [SocialNotification] = []
            reading: while true {
                let batch = try records.records(in: SocialRecords.notificationOrder, range: range, direction: .reverse, limit: limit + 1)
                for entry in batch {
                    guard let shown = try notification(String(decoding: entry.data, as: UTF8.self), in: view, in: records) else { continue }
                    if changed.count == limit {
                        more = true
                        break reading
                    }
                    changed.append(shown)
                    watermark = shown.updatedAt
                }
                guard batch.count == limit + 1, let end = batch.last else { break }
                range = range.before(end.key)
            }
            page = changed.reversed()
        } else {
            // The first page: the walk shows everything up to the newest change now.
            let newest = try records.keys(in: SocialRecords.notificationOrder, range: whole, limit: 1).first
            watermark = newest.flatMap(SocialRecords.positionDate) ?? .distantPast
        }
        walking: while !more {
            let batch = try records.records(in: SocialRecords.notificationOrder, range: walk, limit: limit + 1)
            for entry in batch {
                guard let shown = try notification(String(decoding: entry.data, as: UTF8.self), in: view, in: records) else { continue }
                if page.count == limit {
                    more = true
                    break walking
                }
                page.append(shown)
                position = Array((try? RecordKey(encoded: entry.key).components)?.dropFirst() ?? [])
            }
            guard batch.count == limit + 1, let end = batch.last else { break }
            walk = whole.after(end.key)
        }
        guard more, let watermark else { return NotificationPage(notifications: page, nextCursor: nil) }
        // Before the walk showed anything, it stands above the whole list.
        if position.isEmpty { position = [.descending(.date(.distantFuture)), .string("")] }
        let next = try SocialRecords.key([.string(view.recipient), .date(watermark)] + position)
        return NotificationPage(notifications: page, nextCursor: next)
    }

    /// The recipient's badge: the notifications changed since they saw their list. It
    /// reads the list newest first, in batches, and stops at the first one seen.
    func unseenCount(_ view: NotificationView, in records: RecordReader) throws -> Int {
        let whole = try SocialRecords.range([.string(view.recipient)])
        var range = whole
        var unseen = 0
        while true {
            let batch = try records.records(in: SocialRecords.notificationOrder, range: range, limit: 32)
            for entry in batch {
                guard let date = SocialRecords.positionDate(entry.key), date > view.seenUpTo else { return unseen }
                let shown = try notification(String(decoding: entry.data, as: UTF8.self), in: view, named: false, in: records)
                if let shown, !shown.isSeen { unseen += 1 }
            }
            guard batch.count == 32, let end = batch.last else { return unseen }
            range = whole.after(end.key)
        }
    }

    public func markNotificationsSeen() async throws {
        let user = try signedInUser()
        try writing(as: user) { records in
            // Up to the newest change: every notification listed now is seen, and the next change is dated after it.
            guard var marks = try records.value(forKey: user.id, in: SocialRecords.notificationsSeen), marks.seenUpTo < marks.newest else { return }
            marks.seenUpTo = marks.newest
            try records.put(marks, forKey: user.id, in: SocialRecords.notificationsSeen)
        }
    }

    public func markNotificationRead(_ id: String) async throws {
        let user = try signedInUser()
        guard Self.isGroup(id) else { throw SocialError(.notificationNotFound) }
        try writing(as: user) { records in
            let key = try SocialRecords.key([.string(user.id), .string(id)])
            guard var stored = try records.value(forKey: key, in: SocialRecords.notifications) else { throw SocialError(.notificationNotFound) }
            stored.readAt = stored.updatedAt
            try records.put(stored, forKey: key, in: SocialRecords.notifications)
        }
    }

    // MARK: - Writing

    /// Adds a like, comment, mention or follow to its recipient's notification, unless the
    /// actor is the recipient or muted by them (blocks stop the action before this).
    /// Adding a cause twice changes nothing.
    func notify(
        _ recipient: String, of kind: NotificationKind, on postID: UUID?, by actor: String, cause: String = "", at now: Date, in records: RecordWriter
    )
        throws
    {
        guard !Self.same(recipient, actor) else { return }
        guard try records.data(forKey: try SocialRecords.key([.string(recipient), .string(actor)]), in: SocialRecords.mutes) == nil else { return }
        let group = Self.group(kind, postID)
        let causeComponents: [RecordKey.Component] = [.string(recipient), .string(group), .string(actor), .string(cause)]
        let causeKey = try SocialRecords.key(causeComponents)
        guard try records.data(forKey: causeKey, in: SocialRecords.notificationCauses) == nil else { return }
        let actorRange = try SocialRecords.range([.string(recipient), .string(group), .string(actor)])
        let newActor = try records.keys(in: SocialRecords.notificationCauses, range: actorRange, limit: 1).isEmpty
        let key = try SocialRecords.key([.string(recipient), .string(group)])
        var stored = try records.value(forKey: key, in: SocialRecords.notifications) ?? SocialRecords.StoredNotification(kind: kind, postID: postID)
        if stored.count > 0 {
            try records.removeValue(forKey: try Self.orderKey(recipient, stored.updatedAt, group), in: SocialRecords.notificationOrder)
        }
        if newActor { stored.count += 1 }
        stored.latest = Array(([actor] + stored.latest.filter { !Self.same($0, actor) }).prefix(2))
        var marks = try records.value(forKey: recipient, in: SocialRecords.notificationsSeen) ?? SocialRecords.NotificationMarks()
        // Dated to the millisecond, after the recipient's newest change.
        let date = Date(timeIntervalSince1970: (now.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
        marks.newest = date > marks.newest ? date : Date(timeIntervalSince1970: ((marks.newest.timeIntervalSince1970 * 1000).rounded() + 1) / 1000)
        try records.put(marks, forKey: recipient, in: SocialRecords.notificationsSeen)
        stored.updatedAt = marks.newest
        try records.setData(SocialRecords.causeDate(marks.newest), forKey: causeKey, in: SocialRecords.notificationCauses)
        try records.setData(
            Data(), forKey: try SocialRecords.causeOrderKey(causeComponents, at: marks.newest), in: SocialRecords.notificationCauseOrder)
        try records.put(stored, forKey: key, in: SocialRecords.notifications)
        try records.setData(Data(group.utf8), forKey: try Self.orderKey(recipient, marks.newest, group), in: SocialRecords.notificationOrder)
    }

    /// Takes a like, comment or follow out of its recipient's notification, which goes
    /// with its last cause; one that is not there changes nothing.
    func unnotify(_ recipient: String, of kind: NotificationKind, on postID: UUID?, by actor: String, cause: String = "", in records: RecordWriter)
        throws
    {
        let group = Self.group(kind, postID)
        let causeComponents: [RecordKey.Component] = [.string(recipient), .string(group), .string(actor), .string(cause)]
        let causeKey = try SocialRecords.key(causeComponents)
        guard let dated = try records.data(forKey: causeKey, in: SocialRecords.notificationCauses) else { return }
        try records.removeValue(forKey: causeKey, in: SocialRecords.notificationCauses)
        if let date = SocialRecords.causeDate(dated) {
            try records.removeValue(forKey: try SocialRecords.causeOrderKey(causeComponents, at: date), in: SocialRecords.notificationCauseOrder)
        }
        let key = try SocialRecords.key([.string(recipient), .string(group)])
        guard var stored = try records.value(forKey: key, in: SocialRecords.notifications) else { return }
        // The actor's other comments keep them in it.
        let actorRange = try SocialRecords.range([.string(recipient), .string(group), .string(actor)])
        guard try records.count(in: SocialRecords.notificationCauses, range: actorRange) == 0 else { return }
        stored.count -= 1
        guard stored.count > 0 else {
            try records.removeValue(forKey: key, in: SocialRecords.notifications)
            try records.removeValue(forKey: try Self.orderKey(recipient, stored.updatedAt, group), in: SocialRecords.notificationOrder)
            return
        }
        // The newest users left: a user who goes is replaced by the next newest, not by whoever sorts first.
        if stored.latest.contains(where: { Self.same($0, actor) }) {
            stored.latest = try actors(in: group, of: recipient, leavingOut: UserIDSet(), limit: 2, in: records)
        }
        try records.put(stored, forKey: key, in: SocialRecords.notifications)
    }

    /// Removes every notification about a post: it is gone.
    func removeNotifications(about postID: UUID, of author: String, in records: RecordWriter) throws {
        for kind in [NotificationKind.like, .comment] {
            let group = Self.group(kind, postID)
            let key = try SocialRecords.key([.string(author), .string(group)])
            guard let stored = try records.value(forKey: key, in: SocialRecords.notifications) else { continue }
            try records.removeValue(forKey: key, in: SocialRecords.notifications)
            try records.removeValue(forKey: try Self.orderKey(author, stored.updatedAt, group), in: SocialRecords.notificationOrder)
            try records.removeAll(in: SocialRecords.notificationCauses, range: SocialRecords.range([.string(author), .string(group)]))
            try records.removeAll(in: SocialRecords.notificationCauseOrder, range: SocialRecords.range([.string(author), .string(group)]))
        }
    }

    /// Removes every notification of a user whose data goes.
    func removeNotifications(of userID: String, in records: RecordWriter) throws {
        let range = try SocialRecords.range([.string(userID)])
        try records.removeAll(in: SocialRecords.notifications, range: range)
        try records.removeAll(in: SocialRecords.notificationOrder, range: range)
        try records.removeAll(in: SocialRecords.notificationCauses, range: range)
        try records.removeAll(in: SocialRecords.notificationCauseOrder, range: range)
        try records.removeValue(forKey: userID, in: SocialRecords.notificationsSeen)
    }

    // MARK: - Mentions

    /// The users `text` mentions, or `code` when it mentions more than
    /// ``Mention/maximumPerText``.
    static func mentions(in text: String, refusingWith code: SocialError.Code) throws(SocialError) -> [String] {
        let mentioned = Mention.userIDs(in: text)
        guard mentioned.count <= Mention.maximumPerText else {
            throw SocialError(code, detail: "A text mentions at most \(Mention.maximumPerText) users; this one mentions \(mentioned.count).")
        }
        return mentioned
    }

    /// Throws unless `author` may mention each of `mentioned`: `blocked` for a user
    /// blocked either way, `userNotFound` for one with no profile or hidden from them.
    func checkMentions(_ mentioned: [String], by author: String, in records: RecordReader) throws {
        guard mentioned.contains(where: { !Self.same($0, author) }) else { return }
        let blocked = try blockedEitherWay(author, in: records)
        let hidden = try hiddenUsers(from: author, in: records)
        for userID in mentioned where !Self.same(userID, author) {
            _ = try profile(of: userID, in: records)
            guard !blocked.contains(userID) else { throw SocialError(.blocked, detail: "A post or comment cannot mention a blocked user.") }
            guard !hidden.contains(userID) else { throw SocialError(.userNotFound) }
        }
    }

    /// Notifies each user `mentioned` in a post or comment; `cause` is the comment's key,
    /// or empty for the post itself.
    func notifyMentions(_ mentioned: [String], on postID: UUID, by author: String, cause: String, at now: Date, in records: RecordWriter) throws {
        for userID in mentioned { try notify(userID, of: .mention, on: postID, by: author, cause: cause, at: now, in: records) }
    }

    /// Takes back the mentions of a post or comment that goes or is hidden.
    func unnotifyMentions(in text: String, on postID: UUID, by author: String?, cause: String, in records: RecordWriter) throws {
        guard let author else { return }
        for userID in Mention.userIDs(in: text) { try unnotify(userID, of: .mention, on: postID, by: author, cause: cause, in: records) }
    }

    /// Takes every mention by `actor` out of `recipient`'s notifications, for good: a
    /// block removes them, and an unblock brings none back.
    func removeMentions(of recipient: String, by actor: String, in records: RecordWriter) throws {
        let prefix = NotificationKind.mention.rawValue + ":"
        for key in try records.keys(in: SocialRecords.notificationCauses, range: SocialRecords.range([.string(recipient)])) {
            guard let components = try? RecordKey(encoded: key).components, components.count == 4, case .string(let group) = components[1],
                group.hasPrefix(prefix), case .string(let named) = components[2], Self.same(named, actor), case .string(let cause) = components[3],
                let stored = try records.value(forKey: try SocialRecords.key([.string(recipient), .string(group)]), in: SocialRecords.notifications)
            else { continue }
            try unnotify(recipient, of: .mention, on: stored.postID, by: actor, cause: cause, in: records)
        }
    }

    // MARK: - Reading

    /// A stored notification as its recipient sees it, or nil if it counts nobody they
    /// may see or is about a post moderation hides — or, for a mention, a post of a user
    /// left out or one the recipient reported. Each user left out costs one count, or the
    /// notification's own causes are read when there are fewer of those.
    /// - Parameter named: Whether to look up the latest users' names; the badge only counts.
    func notification(_ group: String, in view: NotificationView, named: Bool = true, in records: RecordReader) throws
        -> SocialNotification?
    {
        let (recipient, leftOut) = (view.recipient, view.leftOut)
        guard let stored = try records.value(forKey: try SocialRecords.key([.string(recipient), .string(group)]), in: SocialRecords.notifications)
        else { return nil }
        if let postID = stored.postID {
            // A post moderation hides takes its notifications with it while it is hidden; a
            // mention is only of a post the recipient may see.
            guard let post = try records.value(forKey: SocialRecords.key(postID), in: SocialRecords.posts), !post.isHiddenByModeration else {
                return nil
            }
            if stored.kind == .mention, try leftOut.contains(post.userID) || hasReported(.post(postID), by: recipient, in: records) { return nil }
        }
        var count = stored.count
        var latest = stored.latest
        if !leftOut.isEmpty {
            let members = leftOut.members
            if count <= members.count {
                count = UserIDSet(try causes(in: group, of: recipient, in: records).filter { !leftOut.contains($0) }).members.count
            } else {
                for user in members {
                    let range = try SocialRecords.range([.string(recipient), .string(group), .string(user)])
                    if try !records.keys(in: SocialRecords.notificationCauses, range: range, limit: 1).isEmpty { count -= 1 }
                }
            }
            latest.removeAll(where: leftOut.contains)
            if named, latest.count < min(2, count) { latest = try actors(in: group, of: recipient, leavingOut: leftOut, limit: 2, in: records) }
        }
        guard count > 0 else { return nil }
        let actors = try (named ? latest : []).compactMap { id in
            try records.value(forKey: id, in: SocialRecords.profiles).map { NotificationActor(id: id, displayName: $0.displayName) }
        }
        let isRead = stored.readAt.map { $0 >= stored.updatedAt } ?? false
        return SocialNotification(
            id: group, kind: stored.kind, postID: stored.postID, latestActors: actors, actorCount: count, updatedAt: stored.updatedAt,
            isSeen: isRead || stored.updatedAt <= view.seenUpTo, isRead: isRead)
    }

    /// The actor of each cause of a notification, in key order.
    private func causes(in group: String, of recipient: String, in records: RecordReader) throws -> [String] {
        try records.keys(in: SocialRecords.notificationCauses, range: SocialRecords.range([.string(recipient), .string(group)])).compactMap { key in
            guard let components = try? RecordKey(encoded: key).components, components.count == 4, case .string(let actor) = components[2] else {
                return nil
            }
            return actor
        }
    }

    /// Up to `limit` distinct actors of a notification not left out, newest first,
    /// reading its causes newest first in small batches until it has them.
    func actors(in group: String, of recipient: String, leavingOut leftOut: UserIDSet, limit: Int, in records: RecordReader) throws
        -> [String]
    {
        let whole = try SocialRecords.range([.string(recipient), .string(group)])
        var range = whole
        var found: [String] = []
        while true {
            let keys = try records.keys(in: SocialRecords.notificationCauseOrder, range: range, limit: 16)
            for key in keys {
                guard let components = try? RecordKey(encoded: key).components, components.count == 5, case .string(let actor) = components[3],
                    !leftOut.contains(actor), !found.contains(where: { Self.same($0, actor) })
                else { continue }
                found.append(actor)
                if found.count == limit { return found }
            }
            guard keys.count == 16, let last = keys.last else { return found }
            range = whole.after(last)
        }
    }

    // MARK: - Keys

    /// A notification's identifier: its kind, and its post's ID.
    static func group(_ kind: NotificationKind, _ postID: UUID?) -> String {
        postID.map { "\(kind.rawValue):\(SocialRecords.key($0))" } ?? kind.rawValue
    }

    /// Whether `id` could name a notification.
    static func isGroup(_ id: String) -> Bool {
        id.utf8.count <= 64 && !id.isEmpty && id.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }

    /// A notification's place in its recipient's list: newest first.
    static func orderKey(_ recipient: String, _ date: Date, _ group: String) throws(SocialError) -> String {
        try SocialRecords.key([.string(recipient), .descending(.date(date)), .string(group)])
    }
}
