import Foundation
import TrainCore

/// What moderation keeps, as a world's snapshot reads and writes it: the reports, the
/// cases, the suspensions, the moderators an admin made and the audit trail.
package struct ModerationRecords: Hashable, Sendable {
    /// A reported or moderated target's case, as the feed stores it: its counts are read
    /// from the reports of its target, its content from the target.
    package struct Case: Codable, Hashable, Sendable {
        package var target: ReportTarget
        package var status: ModerationStatus
        /// When it entered the queue: its place there.
        package var openedAt: Date
        /// When a moderator last acted on it: from then on reports alone no longer hide it.
        package var reviewedAt: Date?
        /// Whose its content was and what it said, once that content was deleted while
        /// the case waited: deleting reported content does not escape moderation.
        package var removedOwnerID: String?
        package var removedContent: String?

        package init(
            target: ReportTarget, status: ModerationStatus, openedAt: Date, reviewedAt: Date?, removedOwnerID: String? = nil,
            removedContent: String? = nil
        ) {
            self.target = target
            self.status = status
            self.openedAt = openedAt
            self.reviewedAt = reviewedAt
            self.removedOwnerID = removedOwnerID
            self.removedContent = removedContent
        }
    }

    /// A user and a date: a suspension, or a grant of the moderator role.
    package struct Dated: Hashable, Sendable {
        package var user: String
        package var date: Date

        package init(user: String, date: Date) {
            self.user = user
            self.date = date
        }
    }

    package var reports: [ContentReport] = []
    package var cases: [Case] = []
    package var suspensions: [Dated] = []
    package var moderators: [Dated] = []
    /// The audit trail, newest first, as it lists itself.
    package var log: [ModerationLogEntry] = []

    package init() {}
}

extension LocalSocialFeedService {
    /// Everything moderation keeps, read in one transaction's view.
    func exportModeration(in records: RecordReader) throws -> ModerationRecords {
        var moderation = ModerationRecords()
        moderation.reports = try records.values(in: SocialRecords.reports)
        moderation.cases = try records.values(in: SocialRecords.cases)
        moderation.suspensions = try records.entries(in: SocialRecords.suspensions).map { .init(user: $0.key, date: $0.value) }
        moderation.moderators = try records.entries(in: SocialRecords.moderatorGrants).map { .init(user: $0.key, date: $0.value) }
        moderation.log = try records.values(in: SocialRecords.moderationLog)
        return moderation
    }

    /// Writes a checked world's moderation, with the indexes the service reads: each
    /// report under its target too, and the open cases in the queue.
    func importModeration(_ moderation: ModerationRecords, in records: RecordWriter) throws {
        for report in moderation.reports {
            let components = SocialRecords.components(report.target)
            try records.put(report, forKey: SocialRecords.key([.string(report.reporterID)] + components), in: SocialRecords.reports)
            try records.setData(
                Data(report.reason.rawValue.utf8), forKey: SocialRecords.key(components + [.string(report.reporterID)]), in: SocialRecords.reportsOf)
        }
        for found in moderation.cases {
            try records.put(found, forKey: SocialRecords.key(SocialRecords.components(found.target)), in: SocialRecords.cases)
            if found.status == .open || found.status == .hidden { try enqueue(found.target, openedAt: found.openedAt, in: records) }
        }
        for suspension in moderation.suspensions { try records.put(suspension.date, forKey: suspension.user, in: SocialRecords.suspensions) }
        for grant in moderation.moderators { try records.put(grant.date, forKey: grant.user, in: SocialRecords.moderatorGrants) }
        for entry in moderation.log {
            try records.put(entry, forKey: try Self.logKey(entry.id), in: SocialRecords.moderationLog)
            try indexUsers(of: entry, in: records)
        }
    }
}
