import Foundation
import TrainCore

/// Reports and moderation (App Review guideline 1.2). A report is kept both ways —
/// under its reporter, which is what they no longer see, and under its target, which
/// is how many distinct users report it and why — and opens a case in the moderators'
/// queue. Moderation hides a post or comment by a flag on its record, so a feed page
/// skips it at no extra cost; a hidden comment leaves its post's count.
extension LocalSocialFeedService {
    @discardableResult
    public func report(_ target: ReportTarget, reason: ReportReason, details: String?) async throws -> ContentReport {
        let user = try signedInUser()
        let details = try Self.optionalText(details, invalid: .invalidReport)
        if let details, policy.wordFilter.matches(details) { throw SocialError(.objectionableContent) }
        if case .user(let userID) = target {
            guard Self.isPlausibleUserID(userID) else { throw SocialError(.userNotFound) }
            guard !Self.same(userID, user.id) else { throw SocialError(.cannotTargetSelf) }
        }
        let now = now
        return try writing(as: user) { records in
            try ensureProfile(user, in: records, for: .report)
            let reporterKey = try SocialRecords.key([.string(user.id)] + SocialRecords.components(target))
            guard try records.data(forKey: reporterKey, in: SocialRecords.reports) == nil else { throw SocialError(.alreadyReported) }
            let owner = try ownerOfVisible(target, to: user.id, at: now, in: records)
            if let owner, Self.same(owner, user.id) { throw SocialError(.cannotTargetSelf, detail: "A user cannot report their own content.") }
            let report = ContentReport(target: target, reporterID: user.id, reason: reason, details: details, createdAt: now)
            try records.put(report, forKey: reporterKey, in: SocialRecords.reports)
            let targetRange = try SocialRecords.range(SocialRecords.components(target))
            try records.setData(
                Data(reason.rawValue.utf8), forKey: SocialRecords.key(SocialRecords.components(target) + [.string(user.id)]),
                in: SocialRecords.reportsOf)
            let caseKey = try SocialRecords.key(SocialRecords.components(target))
            var stored = try records.value(forKey: caseKey, in: SocialRecords.cases)
            // A new case, or one a moderator closed — or a suspension of its author — back in the queue.
            let reopens =
                switch stored?.status {
                case nil, .restored?, .dismissed?: true
                case .suspended?: target.isContent
                default: false
                }
            if reopens {
                let reviewedAt = stored?.reviewedAt
                stored = SocialRecords.StoredCase(target: target, status: .open, openedAt: now, reviewedAt: reviewedAt)
                try enqueue(target, openedAt: now, in: records)
            }
            // Reports alone hide a post or comment once, until a moderator has looked.
            if var open = stored, open.status == .open, open.reviewedAt == nil, let threshold = policy.hideAfterReports,
                !policy.moderators.isEmpty || !policy.admins.isEmpty, target.isContent, try canBeJudged(owner, in: records),
                try records.count(in: SocialRecords.reportsOf, range: targetRange) >= max(1, threshold)
            {
                try setHidden(target, true, in: records)
                open.status = .hidden
                stored = open
            }
            if let stored { try records.put(stored, forKey: caseKey, in: SocialRecords.cases) }
            return report
        }
    }

    public func moderationQueue(limit: Int, after: ModerationCase?) async throws -> [ModerationCase] {
        let user = try signedInUser()
        let limit = try Self.pageSize(limit)
        return try reading { records in
            try requireModerator(user.id, in: records)
            var range = KeyRange.all
            if let after {
                if case .user(let userID) = after.target, !Self.isPlausibleUserID(userID) { throw SocialError(.invalidCursor) }
                // The case's place when it was listed, whatever a moderator did since.
                range = KeyRange.all.after(try Self.queueKey(after.target, openedAt: after.openedAt))
            }
            var cases: [ModerationCase] = []
            for entry in try records.records(in: SocialRecords.queue, range: range, limit: limit) {
                let target = try JSONDecoder().decode(ReportTarget.self, from: entry.data)
                guard let found = try moderationCase(of: target, in: records) else { continue }
                cases.append(found)
            }
            return cases
        }
    }

    @discardableResult
    public func moderate(_ target: ReportTarget, action: ModerationAction, note: String?) async throws -> ModerationLogEntry {
        let user = try signedInUser()
        let note = try Self.optionalText(note, invalid: .invalidModerationAction)
        if case .user(let userID) = target, !Self.isPlausibleUserID(userID) { throw SocialError(.userNotFound) }
        guard action.applies(to: target) else {
            throw SocialError(.invalidModerationAction, detail: "\(action) does not apply to a \(target.kind).")
        }
        let now = now
        return try writing(as: user) { records in
            let role = try requireModerator(user.id, in: records)
            if case .user(let userID) = target, action == .grantModerator || action == .revokeModerator {
                try changeRole(of: userID, action, by: user.id, as: role, in: records)
                return try log(action, on: target, owner: userID, by: user.id, note: note, at: now, in: records)
            }
            let caseKey = try SocialRecords.key(SocialRecords.components(target))
            let existing = try records.value(forKey: caseKey, in: SocialRecords.cases)
            // A case whose post or comment was deleted meanwhile: closed by a takedown or a dismissal.
            if let existing, existing.removedContent != nil, (try? contentOf(target, in: records)) == nil {
                guard action == .takeDown || action == .dismiss else {
                    throw SocialError(.invalidModerationAction, detail: "The content of \(target) was deleted: take it down or dismiss it.")
                }
                try checkOutranks(existing.removedOwnerID, by: user.id, as: role, in: records)
                try removeCase(of: target, in: records)
                return try log(action, on: target, owner: existing.removedOwnerID, by: user.id, note: note, at: now, in: records)
            }
            let owner = try contentOf(target, in: records).owner
            try checkOutranks(owner, by: user.id, as: role, in: records)
            guard action != .dismiss || existing != nil else {
                throw SocialError(.invalidModerationAction, detail: "Nobody reported \(target): there is nothing to dismiss.")
            }
            var stored = existing ?? SocialRecords.StoredCase(target: target, status: .open, openedAt: now, reviewedAt: nil)
            if let existing, existing.status == .open || existing.status == .hidden {
                try records.removeValue(forKey: try Self.queueKey(target, openedAt: existing.openedAt), in: SocialRecords.queue)
            }
            switch action {
            case .takeDown:
                try setHidden(target, true, in: records)
                stored.status = .takenDown
            case .restore:
                try setHidden(target, false, in: records)
                stored.status = .restored
            case .dismiss:
                // Reports judged unfounded show again what they hid; a takedown or a suspension stands.
                if stored.status == .hidden { try setHidden(target, false, in: records) }
                if stored.status != .takenDown && stored.status != .suspended { stored.status = .dismissed }
            case .suspend:
                if case .user(let userID) = target {
                    try records.put(now, forKey: userID, in: SocialRecords.suspensions)
                    try resolveCases(ofContentBy: userID, at: now, in: records)
                }
                stored.status = .suspended
            case .unsuspend:
                if case .user(let userID) = target { try records.removeValue(forKey: userID, in: SocialRecords.suspensions) }
                stored.status = .restored
            case .grantModerator, .revokeModerator:
                break // Changed above, on a user; `applies(to:)` refuses them on content.
            }
            stored.reviewedAt = now
            try records.put(stored, forKey: caseKey, in: SocialRecords.cases)
            return try log(action, on: target, owner: owner, by: user.id, note: note, at: now, in: records)
        }
    }

    /// Writes an action to the audit trail, with an index entry for each user it names.
    private func log(
        _ action: ModerationAction, on target: ReportTarget, owner: String?, by moderator: String, note: String?, at now: Date,
        in records: RecordWriter
    ) throws -> ModerationLogEntry {
        let id = try logID(at: now, in: records)
        let entry = ModerationLogEntry(id: id, moderatorID: moderator, action: action, target: target, ownerID: owner, note: note, date: now)
        try records.put(entry, forKey: try Self.logKey(id), in: SocialRecords.moderationLog)
        try indexUsers(of: entry, in: records)
        return entry
    }

    /// Writes an index entry for each user an audit entry names, so a deletion of one
    /// clears the trail of them.
    func indexUsers(of entry: ModerationLogEntry, in records: RecordWriter) throws {
        var named = UserIDSet(entry.moderatorID.map { [$0] } ?? [])
        if let owner = entry.ownerID { named.insert(owner) }
        if case .user(let userID) = entry.target, !userID.isEmpty { named.insert(userID) }
        for userID in named.members {
            try records.setData(Data(), forKey: try SocialRecords.key([.string(userID), .uuid(entry.id)]), in: SocialRecords.moderationLogUsers)
        }
    }

    public func moderationLog(limit: Int, after: UUID?) async throws -> [ModerationLogEntry] {
        let user = try signedInUser()
        let limit = try Self.pageSize(limit)
        return try reading { records in
            try requireModerator(user.id, in: records)
            let range = try after.map { id throws(SocialError) in KeyRange.all.after(try Self.logKey(id)) } ?? .all
            return try records.values(in: SocialRecords.moderationLog, range: range, limit: limit)
        }
    }

    // MARK: - What a viewer no longer sees

    /// The targets of one kind that `viewer` reported.
    func reported(_ kind: String, by viewer: String, in records: RecordReader) throws -> [ReportTarget] {
        try records.values(in: SocialRecords.reports, range: SocialRecords.range([.string(viewer), .string(kind)])).map(\.target)
    }

    /// The posts `viewer` reported: out of their feeds.
    func reportedPosts(by viewer: String, in records: RecordReader) throws -> Set<UUID> {
        Set(try reported("post", by: viewer, in: records).compactMap { if case .post(let id) = $0 { id } else { nil } })
    }

    /// The comments `viewer` reported: out of their comment lists.
    func reportedComments(by viewer: String, in records: RecordReader) throws -> Set<UUID> {
        Set(try reported("comment", by: viewer, in: records).compactMap { if case .comment(let id) = $0 { id } else { nil } })
    }

    /// How many comments on each post `viewer` reported that its stored count still
    /// holds and ``seen(_:hiding:in:)-(PostEntity,_,_)`` does not already leave out:
    /// shown, by an author not hidden from them.
    func reportedCommentCounts(by viewer: String, hiding hidden: UserIDSet, in records: RecordReader) throws -> [UUID: Int] {
        var counts: [UUID: Int] = [:]
        for commentID in try reportedComments(by: viewer, in: records) {
            guard let (comment, _) = try storedComment(commentID, in: records), !comment.isHiddenByModeration,
                !(comment.userID.map(hidden.contains) ?? false)
            else { continue }
            counts[comment.postID, default: 0] += 1
        }
        return counts
    }

    /// Whether `viewer` reported `target`.
    func hasReported(_ target: ReportTarget, by viewer: String, in records: RecordReader) throws -> Bool {
        try records.data(forKey: try SocialRecords.key([.string(viewer)] + SocialRecords.components(target)), in: SocialRecords.reports) != nil
    }

    /// The users a moderator suspended: hidden from everyone.
    func suspendedUsers(in records: RecordReader) throws -> UserIDSet {
        UserIDSet(try records.keys(in: SocialRecords.suspensions))
    }

    // MARK: - Targets

    /// The owner of a target `viewer` may see and report at `now`, or the error of one
    /// they may not: gone, hidden by moderation, or by a user hidden from them.
    private func ownerOfVisible(_ target: ReportTarget, to viewer: String, at now: Date, in records: RecordReader) throws -> String? {
        switch target {
        case .post(let postID):
            return try interactablePost(postID, by: viewer, at: now, in: records).userID
        case .comment(let commentID):
            let hidden = try hiddenUsers(from: viewer, in: records)
            guard let (comment, _) = try storedComment(commentID, in: records), !comment.isHiddenByModeration,
                !(comment.userID.map(hidden.contains) ?? false), (try? visiblePost(comment.postID, to: viewer, hiding: hidden, in: records)) != nil
            else { throw SocialError(.commentNotFound) }
            return comment.userID
        case .user(let userID):
            _ = try profile(of: userID, in: records)
            guard try !hiddenUsers(from: viewer, in: records).contains(userID) else { throw SocialError(.userNotFound) }
            return userID
        }
    }

    /// A target's owner and text as a moderator sees them, hidden or not.
    private func contentOf(_ target: ReportTarget, in records: RecordReader) throws -> (owner: String?, text: String) {
        switch target {
        case .post(let postID):
            guard let post = try records.value(forKey: SocialRecords.key(postID), in: SocialRecords.posts) else { throw SocialError(.postNotFound) }
            return (post.userID, post.content)
        case .comment(let commentID):
            guard let (comment, _) = try storedComment(commentID, in: records) else { throw SocialError(.commentNotFound) }
            return (comment.userID, comment.text)
        case .user(let userID):
            return (userID, try profile(of: userID, in: records).displayName)
        }
    }

    /// A comment and its key in `comments`, by ID.
    func storedComment(_ commentID: UUID, in records: RecordReader) throws -> (PostComment, key: String)? {
        guard let keyData = try records.data(forKey: SocialRecords.key(commentID), in: SocialRecords.commentIndex) else { return nil }
        let key = String(decoding: keyData, as: UTF8.self)
        return try records.value(forKey: key, in: SocialRecords.comments).map { ($0, key) }
    }

    /// Hides or shows a post or comment for everyone; a comment leaves or rejoins its
    /// post's count and the index the viewers' counts read. Hiding a comment takes back
    /// its notification and mentions, and showing it again does not notify a second
    /// time; a hidden post's notifications are left out when read.
    private func setHidden(_ target: ReportTarget, _ hidden: Bool, in records: RecordWriter) throws {
        switch target {
        case .post(let postID):
            try adjustPost(postID, in: records) { $0.isHiddenByModeration = hidden }
        case .comment(let commentID):
            guard let (stored, key) = try storedComment(commentID, in: records), stored.isHiddenByModeration != hidden else { return }
            var comment = stored
            comment.isHiddenByModeration = hidden
            try records.put(comment, forKey: key, in: SocialRecords.comments)
            if let author = comment.userID {
                let commenter = try SocialRecords.commenterKey(comment.postID, author, comment.id)
                if hidden {
                    try records.removeValue(forKey: commenter, in: SocialRecords.postCommenters)
                    try unnotifyMentions(in: comment.text, on: comment.postID, by: author, cause: SocialRecords.key(commentID), in: records)
                    if let post = try records.value(forKey: SocialRecords.key(comment.postID), in: SocialRecords.posts) {
                        try unnotify(post.userID, of: .comment, on: comment.postID, by: author, cause: SocialRecords.key(commentID), in: records)
                    }
                } else {
                    try records.setData(Data(), forKey: commenter, in: SocialRecords.postCommenters)
                }
            }
            try adjustPost(comment.postID, in: records) { $0.commentCount = max(0, $0.commentCount + (hidden ? -1 : 1)) }
        case .user:
            break
        }
    }

    /// A case as the queue shows it; nil if its target is gone.
    private func moderationCase(of target: ReportTarget, in records: RecordReader) throws -> ModerationCase? {
        guard let stored = try records.value(forKey: try SocialRecords.key(SocialRecords.components(target)), in: SocialRecords.cases) else {
            return nil
        }
        let current = try? contentOf(target, in: records)
        guard let content = current ?? stored.removedContent.map({ (owner: stored.removedOwnerID, text: $0) }) else { return nil }
        var reasons: [ReportReason: Int] = [:]
        let reports = try records.records(in: SocialRecords.reportsOf, range: SocialRecords.range(SocialRecords.components(target)))
        for entry in reports {
            if let reason = ReportReason(rawValue: String(decoding: entry.data, as: UTF8.self)) { reasons[reason, default: 0] += 1 }
        }
        return ModerationCase(
            target: target, ownerID: content.owner, content: content.text, status: stored.status, reportCount: reports.count, reasons: reasons,
            openedAt: stored.openedAt, isContentRemoved: current == nil)
    }

    /// Keeps the case of a post or comment being deleted while it waits for a
    /// moderator, with whose it was and what it said, so deleting reported content —
    /// or blocking its author — does not escape moderation; a case already closed
    /// goes with its reports.
    func contentRemoved(_ target: ReportTarget, owner: String?, text: String, in records: RecordWriter) throws {
        let caseKey = try SocialRecords.key(SocialRecords.components(target))
        guard var stored = try records.value(forKey: caseKey, in: SocialRecords.cases) else { return }
        guard stored.status == .open || stored.status == .hidden else { return try removeCase(of: target, in: records) }
        stored.removedOwnerID = owner
        stored.removedContent = text
        try records.put(stored, forKey: caseKey, in: SocialRecords.cases)
    }

    // MARK: - Removal with the content or the account

    /// Removes a target's case with every report of it, both ways: its content is gone.
    func removeCase(of target: ReportTarget, in records: RecordWriter) throws {
        let caseKey = try SocialRecords.key(SocialRecords.components(target))
        guard let stored = try records.value(forKey: caseKey, in: SocialRecords.cases) else { return }
        try records.removeValue(forKey: caseKey, in: SocialRecords.cases)
        try records.removeValue(forKey: try Self.queueKey(target, openedAt: stored.openedAt), in: SocialRecords.queue)
        let components = SocialRecords.components(target)
        for entry in try records.records(in: SocialRecords.reportsOf, range: SocialRecords.range(components)) {
            guard case .string(let reporter)? = try? RecordKey(encoded: entry.key).components.last else { continue }
            try records.removeValue(forKey: entry.key, in: SocialRecords.reportsOf)
            try records.removeValue(forKey: try SocialRecords.key([.string(reporter)] + components), in: SocialRecords.reports)
        }
    }

    /// Removes everything moderation keeps of a user whose data goes: their reports (a
    /// case left with none, and not acted on, leaves the queue), the case of their
    /// account and their suspension. The cases of their posts and comments go with them.
    func removeModeration(of userID: String, in records: RecordWriter) throws {
        for entry in try records.entries(in: SocialRecords.reports, range: SocialRecords.range([.string(userID)])) {
            let components = SocialRecords.components(entry.value.target)
            try records.removeValue(forKey: entry.key, in: SocialRecords.reports)
            try records.removeValue(forKey: try SocialRecords.key(components + [.string(userID)]), in: SocialRecords.reportsOf)
            let caseKey = try SocialRecords.key(components)
            if let stored = try records.value(forKey: caseKey, in: SocialRecords.cases), stored.status == .open,
                try records.count(in: SocialRecords.reportsOf, range: SocialRecords.range(components)) == 0
            {
                try records.removeValue(forKey: caseKey, in: SocialRecords.cases)
                try records.removeValue(forKey: try Self.queueKey(entry.value.target, openedAt: stored.openedAt), in: SocialRecords.queue)
            }
        }
        try removeCase(of: .user(userID), in: records)
        try records.removeValue(forKey: userID, in: SocialRecords.suspensions)
        try records.removeValue(forKey: userID, in: SocialRecords.moderatorGrants)
        // The waiting cases of their deleted posts and comments.
        for entry in try records.entries(in: SocialRecords.cases) where entry.value.removedOwnerID.map({ Self.same($0, userID) }) ?? false {
            try removeCase(of: entry.value.target, in: records)
        }
        // The audit trail keeps its actions, without the user's ID.
        for entry in try records.records(in: SocialRecords.moderationLogUsers, range: SocialRecords.range([.string(userID)])) {
            try records.removeValue(forKey: entry.key, in: SocialRecords.moderationLogUsers)
            guard case .uuid(let id)? = try? RecordKey(encoded: entry.key).components.last,
                let logged = try records.value(forKey: try Self.logKey(id), in: SocialRecords.moderationLog)
            else { continue }
            let erased = { (named: String?) in named.flatMap { Self.same($0, userID) ? nil : $0 } }
            var target = logged.target
            if case .user(let named) = target, Self.same(named, userID) { target = .user("") }
            let cleared = ModerationLogEntry(
                id: logged.id, moderatorID: erased(logged.moderatorID), action: logged.action, target: target, ownerID: erased(logged.ownerID),
                note: logged.note, date: logged.date)
            try records.put(cleared, forKey: try Self.logKey(id), in: SocialRecords.moderationLog)
        }
    }

    // MARK: - Keys and checks

    /// The role of `userID` in moderation: an admin or a moderator of the policy, a
    /// moderator by an admin's grant, or neither.
    func moderationRole(of userID: String, in records: RecordReader) throws -> ModerationRole {
        if policy.admins.contains(where: { Self.same($0, userID) }) { return .admin }
        if policy.moderators.contains(where: { Self.same($0, userID) }) { return .moderator }
        return try records.value(forKey: userID, in: SocialRecords.moderatorGrants) == nil ? .member : .moderator
    }

    /// The role of `userID`, who moderates and is not suspended: a suspended moderator
    /// does not moderate. Throws `notAuthorized` or `accountSuspended` otherwise.
    @discardableResult
    private func requireModerator(_ userID: String, in records: RecordReader) throws -> ModerationRole {
        let role = try moderationRole(of: userID, in: records)
        guard role > .member else { throw SocialError(.notAuthorized, detail: "Only a moderator reads the queue and acts on reports.") }
        guard try records.value(forKey: userID, in: SocialRecords.suspensions) == nil else { throw SocialError(.accountSuspended) }
        return role
    }

    /// Throws unless a moderator of `role` may act on what `owner` owns: not their own
    /// (`cannotTargetSelf`), and not a moderator's or an admin's unless the actor is an
    /// admin and the owner a moderator (`notAuthorized`).
    private func checkOutranks(_ owner: String?, by actor: String, as role: ModerationRole, in records: RecordReader) throws {
        guard let owner else { return }
        if Self.same(owner, actor) { throw SocialError(.cannotTargetSelf, detail: "A moderator does not judge their own.") }
        let owners = try moderationRole(of: owner, in: records)
        guard owners < role else {
            throw SocialError(.notAuthorized, detail: "A \(role) does not act on \(owners == .admin ? "an" : "a") \(owners) or what they post.")
        }
    }

    /// Whether some role in the policy outranks `owner`'s, so a moderator could show
    /// again what reports alone hid: not for an admin's content, nor a moderator's
    /// when the policy names no admin.
    private func canBeJudged(_ owner: String?, in records: RecordReader) throws -> Bool {
        guard let owner else { return true }
        switch try moderationRole(of: owner, in: records) {
        case .member: return true
        case .moderator: return !policy.admins.isEmpty
        case .admin: return false
        }
    }

    /// Grants or revokes the moderator role of `userID`, as the admin `actor` asked.
    private func changeRole(of userID: String, _ action: ModerationAction, by actor: String, as role: ModerationRole, in records: RecordWriter)
        throws
    {
        guard role == .admin else { throw SocialError(.notAuthorized, detail: "Only an admin grants or revokes the moderator role.") }
        if Self.same(userID, actor) { throw SocialError(.cannotTargetSelf, detail: "An admin does not change their own role.") }
        _ = try profile(of: userID, in: records)
        let granted = try records.value(forKey: userID, in: SocialRecords.moderatorGrants) != nil
        switch (action, try moderationRole(of: userID, in: records)) {
        case (.grantModerator, .member):
            guard try records.value(forKey: userID, in: SocialRecords.suspensions) == nil else {
                throw SocialError(.invalidModerationAction, detail: "'\(userID)' is suspended.")
            }
            try records.put(now, forKey: userID, in: SocialRecords.moderatorGrants)
        case (.revokeModerator, .moderator) where granted && !policy.moderators.contains(where: { Self.same($0, userID) }):
            try records.removeValue(forKey: userID, in: SocialRecords.moderatorGrants)
        case (let action, let current):
            let standing =
                switch current {
                case .admin: "an admin of the policy"
                case .moderator: granted ? "a moderator by an admin's grant" : "a moderator of the policy"
                case .member: "no moderator"
                }
            throw SocialError(.invalidModerationAction, detail: "'\(userID)' is \(standing): \(action) does not apply.")
        }
    }

    /// Resolves the open cases about the posts and comments of `userID`, whom a moderator
    /// is suspending: out of the queue, their status ``ModerationStatus/suspended``, with
    /// no entry of their own in the trail. A post or comment their reports hid stays hidden.
    private func resolveCases(ofContentBy userID: String, at now: Date, in records: RecordWriter) throws {
        for entry in try records.records(in: SocialRecords.queue) {
            let target = try JSONDecoder().decode(ReportTarget.self, from: entry.data)
            guard target.isContent else { continue }
            let caseKey = try SocialRecords.key(SocialRecords.components(target))
            guard var stored = try records.value(forKey: caseKey, in: SocialRecords.cases) else { continue }
            let owner = (try? contentOf(target, in: records).owner) ?? stored.removedOwnerID
            guard let owner, Self.same(owner, userID) else { continue }
            try records.removeValue(forKey: entry.key, in: SocialRecords.queue)
            stored.status = .suspended
            stored.reviewedAt = now
            try records.put(stored, forKey: caseKey, in: SocialRecords.cases)
        }
    }

    /// Puts a case in the queue.
    func enqueue(_ target: ReportTarget, openedAt: Date, in records: RecordWriter) throws {
        let data: Data
        do { data = try JSONEncoder().encode(target) } catch { throw SocialError(.storage, detail: "A report's target could not be encoded.") }
        try records.setData(data, forKey: try Self.queueKey(target, openedAt: openedAt), in: SocialRecords.queue)
    }

    /// A case's key in the queue: oldest first.
    static func queueKey(_ target: ReportTarget, openedAt: Date) throws(SocialError) -> String {
        try SocialRecords.key([.date(openedAt)] + SocialRecords.components(target))
    }

    /// A new audit entry's ID: time-ordered, after the newest entry's even within one
    /// millisecond or with the clock set back, so the trail keeps the order of the actions.
    private func logID(at now: Date, in records: RecordReader) throws -> UUID {
        var time = now
        if let newest = try records.values(in: SocialRecords.moderationLog, limit: 1).first {
            let newestTime = newest.id.uuid
            let milliseconds = [newestTime.0, newestTime.1, newestTime.2, newestTime.3, newestTime.4, newestTime.5].reduce(UInt64(0)) {
                $0 << 8 | UInt64($1)
            }
            time = max(time, Date(timeIntervalSince1970: Double(milliseconds + 1) / 1000))
        }
        return Self.postID(createdAt: time, entropy: newID())
    }

    /// An audit entry's key: newest first, by its time-ordered ID.
    static func logKey(_ id: UUID) throws(SocialError) -> String {
        try SocialRecords.key([.descending(.uuid(id))])
    }

    /// Text a user may add to a report or a moderator to an action: nil or blank for
    /// none; otherwise at most 500 characters with no control or invisible character.
    static func optionalText(_ text: String?, invalid code: SocialError.Code) throws(SocialError) -> String? {
        guard let text, !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return nil }
        guard let cleaned = validText(text, maximum: ContentReport.maximumDetailsLength) else {
            throw SocialError(code, detail: "The text needs at most \(ContentReport.maximumDetailsLength) characters without control characters.")
        }
        return cleaned
    }

    /// Whether two user IDs are the same bytes.
    static func same(_ lhs: String, _ rhs: String) -> Bool { lhs.utf8.elementsEqual(rhs.utf8) }
}

extension ReportTarget {
    /// Whether it is a post or a comment.
    var isContent: Bool {
        if case .user = self { false } else { true }
    }

    /// Its kind's name.
    var kind: String {
        switch self {
        case .post: "post"
        case .comment: "comment"
        case .user: "user"
        }
    }
}

/// Who a user is in moderation, in rank order: an action needs a role above its target's.
enum ModerationRole: Int, Comparable, CustomStringConvertible {
    case member, moderator, admin

    static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    var description: String {
        switch self {
        case .member: "user"
        case .moderator: "moderator"
        case .admin: "admin"
        }
    }
}

extension ModerationAction {
    /// Whether the action can be taken on `target`.
    package func applies(to target: ReportTarget) -> Bool {
        switch self {
        case .takeDown, .restore: target.isContent
        case .suspend, .unsuspend, .grantModerator, .revokeModerator: !target.isContent
        case .dismiss: true
        }
    }
}
