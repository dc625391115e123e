import Foundation

/// What a user reports, or a moderator acts on: a post, a comment or a user.
public enum ReportTarget: Hashable, Sendable, Codable, CustomStringConvertible {
    /// A post, by ID.
    case post(UUID)
    /// A comment, by ID.
    case comment(UUID)
    /// A user, by ID.
    case user(String)

    /// The kind and ID, such as `post 6F9A…`.
    public var description: String {
        switch self {
        case .post(let id): "post \(id)"
        case .comment(let id): "comment \(id)"
        case .user(let id): "user \(id)"
        }
    }
}

/// Why a user reports something: the categories App Store apps commonly offer.
public enum ReportReason: String, Hashable, Sendable, Codable, CaseIterable {
    /// Unwanted promotion or repeated content.
    case spam
    /// Bullying or harassment.
    case harassment
    /// Hate speech or symbols.
    case hateSpeech
    /// Nudity or sexual content.
    case nudity
    /// Violence or threats.
    case violence
    /// Self-harm or suicide.
    case selfHarm
    /// False information.
    case misinformation
    /// Something else, said in the report's details.
    case other
}

/// A report a user made. The reporter no longer sees what they reported; nobody else
/// learns who reported it (a moderator sees how many did, and why).
public struct ContentReport: Codable, Hashable, Sendable {
    /// What was reported.
    public let target: ReportTarget
    /// Who reported it.
    public let reporterID: String
    /// Why.
    public let reason: ReportReason
    /// What the reporter added, trimmed; at most ``maximumDetailsLength`` characters.
    public let details: String?
    /// When.
    public let createdAt: Date

    /// The most characters a report's details hold.
    public static let maximumDetailsLength = 500

    /// Creates a report.
    /// - Parameters:
    ///   - target: What was reported.
    ///   - reporterID: Who reported it.
    ///   - reason: Why.
    ///   - details: What the reporter added.
    ///   - createdAt: When.
    public init(target: ReportTarget, reporterID: String, reason: ReportReason, details: String?, createdAt: Date) {
        self.target = target
        self.reporterID = reporterID
        self.reason = reason
        self.details = details
        self.createdAt = createdAt
    }
}

/// Where a reported post, comment or user stands.
public enum ModerationStatus: String, Hashable, Sendable, Codable, CaseIterable {
    /// Reported, waiting for a moderator; still shown to everyone but its reporters.
    case open
    /// Hidden from everyone after ``SocialPolicy/hideAfterReports`` distinct reports,
    /// waiting for a moderator.
    case hidden
    /// Taken down by a moderator: hidden from everyone.
    case takenDown
    /// Shown again by a moderator after it was hidden or taken down.
    case restored
    /// Reports judged unfounded by a moderator: shown, and further reports no longer
    /// hide it on their own.
    case dismissed
    /// A user suspended by a moderator: hidden from everyone, and unable to post,
    /// comment, like, follow or report; they still unlock and read the feed, block and mute.
    /// A post or comment whose case the suspension of its author resolved has it too.
    case suspended
}

/// What a moderator does about a post, a comment or a user.
public enum ModerationAction: String, Hashable, Sendable, Codable, CaseIterable {
    /// Hides a post or comment from everyone.
    case takeDown
    /// Shows a hidden or taken-down post or comment again.
    case restore
    /// Closes the reports of a post, comment or user as unfounded; a post or comment
    /// hidden by its reports is shown again, one taken down stays down.
    case dismiss
    /// Suspends a user.
    case suspend
    /// Ends a user's suspension.
    case unsuspend
    /// An admin makes a user a moderator.
    case grantModerator
    /// An admin takes the moderator role from a user it was granted to.
    case revokeModerator
}

/// A reported post, comment or user as a moderator sees it.
public struct ModerationCase: Codable, Hashable, Sendable {
    /// What was reported.
    public let target: ReportTarget
    /// Whose it is: the author of the post or comment, or the user reported; nil for
    /// a comment whose author's account was deleted.
    public var ownerID: String?
    /// The text reported: the post's or comment's, or the user's name.
    public var content: String
    /// Where it stands.
    public var status: ModerationStatus
    /// How many users report it now.
    public var reportCount: Int
    /// How many of them gave each reason.
    public var reasons: [ReportReason: Int]
    /// When it was first reported, or first acted on.
    public var openedAt: Date
    /// Whether its post or comment was deleted — by its author, a block or an account
    /// deletion — while the case waited: ``content`` is what it said. A moderator takes
    /// it down or dismisses it to close the case, and may suspend its owner.
    public var isContentRemoved: Bool

    /// Creates a case.
    /// - Parameters:
    ///   - target: What was reported.
    ///   - ownerID: Whose it is.
    ///   - content: The text reported.
    ///   - status: Where it stands.
    ///   - reportCount: How many users report it.
    ///   - reasons: How many gave each reason.
    ///   - openedAt: When it was first reported.
    ///   - isContentRemoved: Whether its content was deleted while it waited.
    public init(
        target: ReportTarget, ownerID: String?, content: String, status: ModerationStatus, reportCount: Int, reasons: [ReportReason: Int],
        openedAt: Date, isContentRemoved: Bool = false
    ) {
        self.target = target
        self.ownerID = ownerID
        self.content = content
        self.status = status
        self.reportCount = reportCount
        self.reasons = reasons
        self.openedAt = openedAt
        self.isContentRemoved = isContentRemoved
    }
}

/// One moderator action, as the audit trail keeps it.
public struct ModerationLogEntry: Codable, Hashable, Sendable, Identifiable {
    /// The entry's identifier: newer entries sort first by it.
    public let id: UUID
    /// The moderator; nil once their account was deleted.
    public let moderatorID: String?
    /// What they did.
    public let action: ModerationAction
    /// To what; a user target's ID is empty once that account was deleted.
    public let target: ReportTarget
    /// Whose it was, when known; nil once their account was deleted.
    public let ownerID: String?
    /// Their note, trimmed.
    public let note: String?
    /// When.
    public let date: Date

    /// Creates an entry.
    /// - Parameters:
    ///   - id: The identifier.
    ///   - moderatorID: The moderator.
    ///   - action: What they did.
    ///   - target: To what.
    ///   - ownerID: Whose it was.
    ///   - note: Their note.
    ///   - date: When.
    public init(id: UUID, moderatorID: String?, action: ModerationAction, target: ReportTarget, ownerID: String?, note: String?, date: Date) {
        self.id = id
        self.moderatorID = moderatorID
        self.action = action
        self.target = target
        self.ownerID = ownerID
        self.note = note
        self.date = date
    }
}
