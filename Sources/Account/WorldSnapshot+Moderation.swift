import Foundation
import TrainCore
import TrainSocial

extension WorldSnapshot {
    /// A user's report of a post, a comment or a user: exactly one of `post`, `comment`
    /// and `user`. Left out: `details` none, `createdAt` now.
    public struct Report: Codable, Hashable, Sendable {
        /// Who reported it.
        public var reporter: String
        /// The post reported.
        public var post: UUID?
        /// The comment reported.
        public var comment: UUID?
        /// The user reported.
        public var user: String?
        /// Why.
        public var reason: ReportReason
        /// What the reporter added, trimmed, at most 500 characters.
        public var details: String?
        /// When.
        public var createdAt: Date?

        /// Creates a report; what is left nil takes its default.
        /// - Parameters:
        ///   - reporter: Who reported it.
        ///   - target: What was reported.
        ///   - reason: Why.
        ///   - createdAt: When.
        public init(reporter: String, target: ReportTarget, reason: ReportReason, createdAt: Date? = nil) {
            self.reporter = reporter
            (post, comment, user) = Self.fields(of: target)
            self.reason = reason
            self.createdAt = createdAt
        }
    }

    /// Where a reported or moderated post, comment or user stands: exactly one of
    /// `post`, `comment` and `user`. A reported target the document gives no case gets an
    /// open one, opened at its first report. Left out: `status` is `open`, `openedAt` the
    /// target's first report or now, `reviewedAt` none.
    public struct ModerationCase: Codable, Hashable, Sendable {
        /// The post.
        public var post: UUID?
        /// The comment.
        public var comment: UUID?
        /// The user.
        public var user: String?
        /// Where it stands.
        public var status: ModerationStatus?
        /// When it entered the moderators' queue: its place there.
        public var openedAt: Date?
        /// When a moderator last acted on it.
        public var reviewedAt: Date?
        /// Whose a post or comment deleted while its case waited was.
        public var removedOwner: String?
        /// What that post or comment said: a case of content the document does not hold
        /// has it.
        public var removedContent: String?

        /// Creates a case; what is left nil takes its default.
        /// - Parameters:
        ///   - target: The post, comment or user.
        ///   - status: Where it stands.
        ///   - openedAt: When it entered the queue.
        public init(target: ReportTarget, status: ModerationStatus? = nil, openedAt: Date? = nil) {
            (post, comment, user) = Report.fields(of: target)
            self.status = status
            self.openedAt = openedAt
        }
    }

    /// A user a moderator suspended. Left out: `date` is now.
    public struct Suspension: Codable, Hashable, Sendable {
        /// The user.
        public var user: String
        /// When.
        public var date: Date?

        /// Creates a suspension.
        /// - Parameters:
        ///   - user: The user.
        ///   - date: When.
        public init(user: String, date: Date? = nil) {
            self.user = user
            self.date = date
        }
    }

    /// A user an admin made a moderator; the moderators and admins the configuration's
    /// social policy names are not listed. Left out: `grantedAt` is now.
    public struct ModeratorGrant: Codable, Hashable, Sendable {
        /// The user.
        public var user: String
        /// When.
        public var grantedAt: Date?

        /// Creates a grant.
        /// - Parameters:
        ///   - user: The user.
        ///   - grantedAt: When.
        public init(user: String, grantedAt: Date? = nil) {
            self.user = user
            self.grantedAt = grantedAt
        }
    }

    /// One action in the moderators' audit trail, which keeps history: the users and
    /// content it names need not be in the document (a deleted account's ID is empty
    /// there). Exactly one of `post`, `comment` and `user`. Left out: `id` is made from
    /// `date` and the entry's place, `date` is now.
    public struct ModerationLogEntry: Codable, Hashable, Sendable {
        /// The entry's ID; the trail lists newer IDs first.
        public var id: UUID?
        /// The moderator; none once their account was deleted.
        public var moderator: String?
        /// What they did.
        public var action: ModerationAction
        /// The post acted on.
        public var post: UUID?
        /// The comment acted on.
        public var comment: UUID?
        /// The user acted on.
        public var user: String?
        /// Whose it was.
        public var owner: String?
        /// The moderator's note, trimmed, at most 500 characters.
        public var note: String?
        /// When.
        public var date: Date?

        /// Creates an entry; what is left nil takes its default.
        /// - Parameters:
        ///   - moderator: The moderator.
        ///   - action: What they did.
        ///   - target: To what.
        ///   - date: When.
        public init(moderator: String?, action: ModerationAction, target: ReportTarget, date: Date? = nil) {
            self.moderator = moderator
            self.action = action
            (post, comment, user) = Report.fields(of: target)
            self.date = date
        }
    }
}

extension WorldSnapshot.Report {
    /// The fields of a target: one of the three set.
    static func fields(of target: ReportTarget) -> (UUID?, UUID?, String?) {
        switch target {
        case .post(let id): (id, nil, nil)
        case .comment(let id): (nil, id, nil)
        case .user(let id): (nil, nil, id)
        }
    }
}

extension WorldSnapshot {
    /// The target the fields give, or `invalidValue` unless exactly one is set.
    static func target(post: UUID?, comment: UUID?, user: String?, path: @autoclosure () -> String) throws(WorldSnapshotError) -> ReportTarget {
        switch (post, comment, user) {
        case (let id?, nil, nil): return .post(id)
        case (nil, let id?, nil): return .comment(id)
        case (nil, nil, let id?): return .user(id)
        default: throw WorldSnapshotError(.invalidValue, path: path(), detail: "It names exactly one of a post, a comment and a user.")
        }
    }

    /// A target as a key that tells IDs apart by their bytes, as the services do.
    static func key(_ target: ReportTarget) -> [UInt8] {
        switch target {
        case .post(let id): [0] + withUnsafeBytes(of: id.uuid, Array.init)
        case .comment(let id): [1] + withUnsafeBytes(of: id.uuid, Array.init)
        case .user(let id): [2] + Array(id.utf8)
        }
    }

    /// The reports, cases, suspensions, moderators and trail, each as moderation would
    /// have left it. The posts and comments are resolved first.
    func resolveModeration(users: Set<UserKey>, now: Date, into resolved: inout Resolved) throws(WorldSnapshotError) {
        // The content's owners and dates, made only for a document with reports or cases:
        // a world of 100k posts and none spends nothing on them.
        var owners: [[UInt8]: UserKey?] = [:]
        var created: [[UInt8]: Date] = [:]
        if !reports.isEmpty || !moderationCases.isEmpty {
            for post in resolved.social.posts {
                owners[Self.key(.post(post.id))] = UserKey(post.userID)
                created[Self.key(.post(post.id))] = post.createdAt
            }
            for comment in resolved.social.comments {
                owners[Self.key(.comment(comment.id))] = .some(comment.userID.map(UserKey.init))
                created[Self.key(.comment(comment.id))] = comment.createdAt
            }
        }
        var cases: [[UInt8]: Int] = [:]
        for (index, found) in moderationCases.enumerated() {
            var path: String { "moderationCases[\(index)]" }
            let target = try Self.target(post: found.post, comment: found.comment, user: found.user, path: path)
            guard cases.updateValue(index, forKey: Self.key(target)) == nil else {
                throw WorldSnapshotError(.duplicateID, path: path, detail: "Another case is of \(target).")
            }
        }
        var firstReports: [[UInt8]: Date] = [:]
        var reported: Set<[UInt8]> = []
        for (index, report) in reports.enumerated() {
            var path: String { "reports[\(index)]" }
            try Self.reference(report.reporter, in: users, path: "\(path).reporter")
            let target = try Self.target(post: report.post, comment: report.comment, user: report.user, path: path)
            let owner: UserKey?
            if case .user(let userID) = target {
                try Self.reference(userID, in: users, path: "\(path).user")
                owner = UserKey(userID)
            } else if let known = owners[Self.key(target)] {
                owner = known
            } else {
                guard let index = cases[Self.key(target)], let removed = moderationCases[index].removedContent, !removed.isEmpty else {
                    throw WorldSnapshotError(
                        .danglingReference, path: path, detail: "The document has no \(target), nor a case keeping what it said.")
                }
                owner = moderationCases[index].removedOwner.map(UserKey.init)
            }
            guard owner != UserKey(report.reporter) else {
                throw WorldSnapshotError(.invalidValue, path: path, detail: "A user does not report themselves or what they wrote.")
            }
            guard reported.insert(Array(report.reporter.utf8) + [0] + Self.key(target)).inserted else {
                throw WorldSnapshotError(.duplicateID, path: path, detail: "The user reported \(target) already.")
            }
            if let details = report.details { try Self.checkText(details, maximum: ContentReport.maximumDetailsLength, path: "\(path).details") }
            let date = report.createdAt ?? now
            try Self.check(date, notAfter: now, path: "\(path).createdAt")
            guard date >= created[Self.key(target)] ?? .distantPast else {
                throw WorldSnapshotError(.invalidValue, path: "\(path).createdAt", detail: "A report comes after what it reports.")
            }
            firstReports[Self.key(target)] = min(firstReports[Self.key(target)] ?? date, date)
            resolved.social.moderation.reports.append(
                ContentReport(target: target, reporterID: report.reporter, reason: report.reason, details: report.details, createdAt: date))
        }
        try resolveCases(users: users, owners: owners, firstReports: firstReports, now: now, into: &resolved)
        try resolveRoles(users: users, now: now, into: &resolved)
        try resolveLog(now: now, into: &resolved)
    }

    /// The cases, and an open one for each reported target the document gives none.
    private func resolveCases(
        users: Set<UserKey>, owners: [[UInt8]: UserKey?], firstReports: [[UInt8]: Date], now: Date, into resolved: inout Resolved
    ) throws(WorldSnapshotError) {
        var hidden: Set<[UInt8]> = []
        for post in resolved.social.posts where post.isHiddenByModeration { hidden.insert(Self.key(.post(post.id))) }
        for comment in resolved.social.comments where comment.isHiddenByModeration { hidden.insert(Self.key(.comment(comment.id))) }
        let suspended = Set(suspensions.map { Array($0.user.utf8) })
        var listed: Set<[UInt8]> = []
        for (index, found) in moderationCases.enumerated() {
            var path: String { "moderationCases[\(index)]" }
            let target = try Self.target(post: found.post, comment: found.comment, user: found.user, path: path)
            listed.insert(Self.key(target))
            let status = found.status ?? .open
            // A case enters the queue by a report, and leaves it by a moderator's action.
            if status == .open || status == .hidden {
                guard firstReports[Self.key(target)] != nil else {
                    throw WorldSnapshotError(.invalidValue, path: "\(path).status", detail: "An open or hidden case has a report of its target.")
                }
            } else if found.reviewedAt == nil {
                throw WorldSnapshotError(.invalidValue, path: "\(path).reviewedAt", detail: "A case a moderator acted on says when.")
            }
            if case .user(let userID) = target {
                try Self.reference(userID, in: users, path: "\(path).user")
                guard status != .hidden, status != .takenDown, found.removedContent == nil, found.removedOwner == nil else {
                    throw WorldSnapshotError(
                        .invalidValue, path: "\(path).status", detail: "A user's case is not hidden or taken down, nor of removed content.")
                }
                guard (status == .suspended) == suspended.contains(Array(userID.utf8)) else {
                    throw WorldSnapshotError(
                        .invalidValue, path: "\(path).status", detail: "A user's case is suspended exactly when the user is.")
                }
            } else if owners.keys.contains(Self.key(target)) {
                guard found.removedContent == nil, found.removedOwner == nil else {
                    throw WorldSnapshotError(
                        .invalidValue, path: "\(path).removedContent", detail: "The document holds the content: it was not removed.")
                }
                let shouldHide = status == .hidden || status == .takenDown
                let isHidden = hidden.contains(Self.key(target))
                guard shouldHide == isHidden || (status == .suspended && isHidden) else {
                    throw WorldSnapshotError(
                        .invalidValue, path: "\(path).status",
                        detail:
                            "A post or comment is hidden by moderation exactly when its case is hidden or taken down (or its author suspended after reports hid it)."
                    )
                }
            } else {
                guard let removed = found.removedContent, status == .open || status == .hidden else {
                    throw WorldSnapshotError(
                        .danglingReference, path: path,
                        detail: "The document has no \(target); a case of deleted content keeps what it said and waits.")
                }
                try Self.checkText(removed, maximum: 10_000, path: "\(path).removedContent")
                if let owner = found.removedOwner, !Self.isUserID(owner) {
                    throw WorldSnapshotError(
                        .invalidValue, path: "\(path).removedOwner", detail: "A user's ID is 1 to 128 bytes without control characters.")
                }
            }
            let openedAt = found.openedAt ?? firstReports[Self.key(target)] ?? now
            try Self.check(openedAt, notAfter: now, path: "\(path).openedAt")
            if let reviewedAt = found.reviewedAt { try Self.check(reviewedAt, notAfter: now, path: "\(path).reviewedAt") }
            resolved.social.moderation.cases.append(
                .init(
                    target: target, status: status, openedAt: openedAt, reviewedAt: found.reviewedAt, removedOwnerID: found.removedOwner,
                    removedContent: found.removedContent))
        }
        for (index, post) in resolved.social.posts.enumerated() where post.isHiddenByModeration && !listed.contains(Self.key(.post(post.id))) {
            throw WorldSnapshotError(
                .invalidValue, path: "posts[\(index)].isHiddenByModeration", detail: "A hidden post has a case hidden or taken down.")
        }
        for (index, comment) in resolved.social.comments.enumerated()
        where comment.isHiddenByModeration && !listed.contains(Self.key(.comment(comment.id))) {
            throw WorldSnapshotError(
                .invalidValue, path: "comments[\(index)].isHiddenByModeration", detail: "A hidden comment has a case hidden or taken down.")
        }
        // A suspension the document gives no case for has the one the suspension made.
        for suspension in suspensions where listed.insert(Self.key(.user(suspension.user))).inserted {
            let date = suspension.date ?? now
            resolved.social.moderation.cases.append(
                .init(
                    target: .user(suspension.user), status: .suspended, openedAt: date, reviewedAt: date, removedOwnerID: nil, removedContent: nil))
        }
        for report in resolved.social.moderation.reports where listed.insert(Self.key(report.target)).inserted {
            resolved.social.moderation.cases.append(
                .init(
                    target: report.target, status: .open, openedAt: firstReports[Self.key(report.target)] ?? now, reviewedAt: nil,
                    removedOwnerID: nil, removedContent: nil))
        }
    }

    /// The suspensions and the moderators an admin made: users of the document, each once.
    private func resolveRoles(users: Set<UserKey>, now: Date, into resolved: inout Resolved) throws(WorldSnapshotError) {
        var suspended: Set<UserKey> = []
        for (index, suspension) in suspensions.enumerated() {
            var path: String { "suspensions[\(index)]" }
            try Self.reference(suspension.user, in: users, path: "\(path).user")
            guard suspended.insert(UserKey(suspension.user)).inserted else {
                throw WorldSnapshotError(.duplicateID, path: "\(path).user", detail: "The user is suspended once.")
            }
            let date = suspension.date ?? now
            try Self.check(date, notAfter: now, path: "\(path).date")
            resolved.social.moderation.suspensions.append(.init(user: suspension.user, date: date))
        }
        var granted: Set<UserKey> = []
        for (index, grant) in moderators.enumerated() {
            var path: String { "moderators[\(index)]" }
            try Self.reference(grant.user, in: users, path: "\(path).user")
            guard granted.insert(UserKey(grant.user)).inserted else {
                throw WorldSnapshotError(.duplicateID, path: "\(path).user", detail: "The user is made a moderator once.")
            }
            let date = grant.grantedAt ?? now
            try Self.check(date, notAfter: now, path: "\(path).grantedAt")
            resolved.social.moderation.moderators.append(.init(user: grant.user, date: date))
        }
    }

    /// The audit trail: history, so the users and content it names need not be in the
    /// document, but each ID is one the services could have written.
    private func resolveLog(now: Date, into resolved: inout Resolved) throws(WorldSnapshotError) {
        var ids: Set<UUID> = []
        for (index, entry) in moderationLog.enumerated() {
            var path: String { "moderationLog[\(index)]" }
            let target = try Self.target(post: entry.post, comment: entry.comment, user: entry.user, path: path)
            guard entry.action.applies(to: target) else {
                throw WorldSnapshotError(.invalidValue, path: "\(path).action", detail: "\(entry.action) is not taken on a \(target).")
            }
            if case .user(let userID) = target, !userID.isEmpty, !Self.isUserID(userID) {
                throw WorldSnapshotError(.invalidValue, path: "\(path).user", detail: "A user's ID is 1 to 128 bytes without control characters.")
            }
            for (field, userID) in [("moderator", entry.moderator), ("owner", entry.owner)] {
                if let userID, !Self.isUserID(userID) {
                    throw WorldSnapshotError(
                        .invalidValue, path: "\(path).\(field)", detail: "A user's ID is 1 to 128 bytes without control characters.")
                }
            }
            if let note = entry.note { try Self.checkText(note, maximum: ContentReport.maximumDetailsLength, path: "\(path).note") }
            let date = entry.date ?? now
            try Self.check(date, notAfter: now, path: "\(path).date")
            // Made to sort as listed: the first listed of one date is the newest.
            let id = entry.id ?? Self.madeID(at: date, index: moderationLog.count - index, salt: 0x4C)
            guard ids.insert(id).inserted else {
                throw WorldSnapshotError(.duplicateID, path: "\(path).id", detail: "Another entry has the ID \(id.uuidString).")
            }
            // Newest first, as the trail lists itself: each ID below the one before.
            if let previous = resolved.social.moderation.log.last?.id,
                !withUnsafeBytes(of: id.uuid, Array.init).lexicographicallyPrecedes(withUnsafeBytes(of: previous.uuid, Array.init))
            {
                throw WorldSnapshotError(
                    .invalidValue, path: "\(path).id", detail: "The trail lists the newest first: each ID is below the one before.")
            }
            resolved.social.moderation.log.append(
                TrainSocial.ModerationLogEntry(
                    id: id, moderatorID: entry.moderator, action: entry.action, target: target, ownerID: entry.owner, note: entry.note, date: date))
        }
    }
}
