import Foundation
import TrainAuth
import TrainSocial
import TrainSync

/// The steps of deleting an account, in the order they run. The first runs inside
/// ``AccountDeletion/deleteAccount(of:)`` or ``AccountDeletion/scheduleDeletion(of:)``,
/// which then sign the user out and hide them from every reader in one step; the
/// others are the purge, which runs in the background once the deletion is due. Each
/// can run again without harm, so a purge that stopped continues from the step that
/// did not finish.
public enum AccountDeletionStep: String, Codable, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// Checks the recent sign-in and revokes the Sign in with Apple tokens, as Apple
    /// requires. Nothing is hidden or deleted before it succeeds.
    case appleRevocation
    /// Deletes the user's posts, likes, comments, follows, blocks, profile and photos.
    case socialData
    /// Deletes the user's plans on this device and on the remote.
    case plans
    /// Counts the user's App Store subscriptions that still renew, for the warning.
    /// The App Store keeps its own records: a subscription stays active until the
    /// user cancels it in Settings. The subscription service, following the auth
    /// service, stopped counting the user's token when they were signed out.
    case subscription
    /// Deletes the sign-in account, with its settings (the biometric app lock among
    /// them); its sign-in identities are free from then on.
    case authAccount
    /// Deletes the user's remaining data on this device: consents, the exposures the
    /// paywalls logged for them, and the journal. Other users' data on the device is
    /// untouched.
    case localData

    /// The step's name.
    public var description: String { rawValue }
}

/// An account deletion asked for: at once (``purgeAt`` equals ``scheduledAt``) or at
/// the end of a grace period. From ``scheduledAt`` the user is signed out and hidden
/// from other users; the purge of their data runs from ``purgeAt``; until then they
/// can sign in and restore the account.
public struct ScheduledAccountDeletion: Codable, Hashable, Sendable {
    /// The user.
    public let userID: String
    /// When the deletion was asked for.
    public let scheduledAt: Date
    /// When the grace period ends and the purge may run: ``scheduledAt`` for a
    /// deletion at once.
    public let purgeAt: Date
    /// What happened to the Apple tokens, revoked when the deletion was asked for.
    public let appleTokenRevocation: AppleTokenRevocation
    /// What the user should know, as sentences an app can show: a subscription that
    /// stays active at the App Store, a revocation Apple's end failed.
    public var warnings: [String]

    /// Creates a deletion asked for.
    /// - Parameters:
    ///   - userID: The user.
    ///   - scheduledAt: When it was asked for.
    ///   - purgeAt: When the grace period ends.
    ///   - appleTokenRevocation: What happened to the Apple tokens.
    ///   - warnings: What the user should know.
    public init(userID: String, scheduledAt: Date, purgeAt: Date, appleTokenRevocation: AppleTokenRevocation, warnings: [String] = []) {
        self.userID = userID
        self.scheduledAt = scheduledAt
        self.purgeAt = purgeAt
        self.appleTokenRevocation = appleTokenRevocation
        self.warnings = warnings
    }

    /// Whether the purge runs at once, with no grace period.
    public var isImmediate: Bool { purgeAt <= scheduledAt }
}

/// Where a running deletion is: emitted when each step starts, finishes or fails.
public struct AccountDeletionProgress: Hashable, Sendable {
    /// What happened to the step.
    public enum Phase: String, Hashable, Sendable {
        /// The step started.
        case started
        /// The step finished.
        case finished
        /// The step failed; the deletion stopped and continues from here next time.
        case failed
    }

    /// The user being deleted.
    public let userID: String
    /// The step.
    public let step: AccountDeletionStep
    /// What happened to it.
    public let phase: Phase
    /// How many steps are finished, this one included once it has.
    public let finishedSteps: Int

    /// All the steps there are.
    public var totalSteps: Int { AccountDeletionStep.allCases.count }
    /// The finished share, from 0 to 1, for a progress bar.
    public var fractionCompleted: Double { Double(finishedSteps) / Double(totalSteps) }

    /// Creates a progress event.
    /// - Parameters:
    ///   - userID: The user being deleted.
    ///   - step: The step.
    ///   - phase: What happened to it.
    ///   - finishedSteps: How many steps are finished.
    public init(userID: String, step: AccountDeletionStep, phase: Phase, finishedSteps: Int) {
        self.userID = userID
        self.step = step
        self.phase = phase
        self.finishedSteps = finishedSteps
    }
}

/// What happened to the Apple tokens of a deleted account.
public enum AppleTokenRevocation: Codable, Hashable, Sendable {
    /// No Sign in with Apple was linked.
    case notApplicable
    /// The tokens were revoked.
    case revoked
    /// Apple's end failed; the account was deleted all the same.
    case failed(reason: String)

    init(_ revocation: AccountDeletionReceipt.TokenRevocation) {
        switch revocation {
        case .notApplicable: self = .notApplicable
        case .revoked: self = .revoked
        case .failed(let error): self = .failed(reason: error.errorDescription ?? error.detail)
        }
    }
}

/// What deleting an account did, kind by kind, and what the user should know.
public struct AccountDeletionReport: Codable, Hashable, Sendable {
    /// The deleted user.
    public var userID: String
    /// When the deletion started.
    public var startedAt: Date
    /// When it finished; nil while it runs.
    public var finishedAt: Date?
    /// What happened to the Apple tokens.
    public var appleTokenRevocation: AppleTokenRevocation
    /// The social data removed.
    public var social: SocialDeletionReport
    /// The plans removed, on this device and on the remote.
    public var plans: SyncDeletionReport
    /// The subscriptions still active at the App Store when the user was unbound.
    public var activeSubscriptions: Int
    /// The sign-in methods the account had.
    public var providers: [AuthProvider]
    /// The records of this user removed from this device's account data: their
    /// consents, and the exposures the paywalls logged for them.
    public var localRecords: Int
    /// What the user should know, as sentences an app can show.
    public var warnings: [String]

    /// Creates a report of a deletion that starts.
    /// - Parameters:
    ///   - userID: The user.
    ///   - startedAt: When it started.
    ///   - appleTokenRevocation: What happened to the Apple tokens.
    public init(userID: String, startedAt: Date, appleTokenRevocation: AppleTokenRevocation) {
        self.userID = userID
        self.startedAt = startedAt
        self.appleTokenRevocation = appleTokenRevocation
        social = SocialDeletionReport()
        plans = SyncDeletionReport()
        activeSubscriptions = 0
        providers = []
        localRecords = 0
        warnings = []
    }

    /// The sentence shown when Apple could not be told to end the app's access.
    public static let revocationWarning =
        "Apple could not be told to end this app's access. You can remove it in Settings › Apple ID › Sign in with Apple."
    /// The sentence reported when an earlier record of the deletion could not be read:
    /// it was set aside and the deletion started again from its first step.
    public static let journalSetAsideWarning =
        "A record of an earlier attempt could not be read; it was kept aside and the deletion started again from its first step."
    /// The sentence shown when an App Store subscription will go on renewing.
    public static let subscriptionWarning = "An App Store subscription stays active until you cancel it in Settings › Apple ID › Subscriptions."
}

/// A deletion asked for and not purged yet: what was asked, the purge's steps done
/// and its report so far. The account service writes it before the user is hidden
/// and deletes it with the user's last data on the device.
public struct AccountDeletionJournal: Codable, Hashable, Sendable {
    /// The layout this version writes; a record of another layout is set aside.
    public static let currentLayout = 2

    /// The record's layout.
    public var layout: Int
    /// The deletion asked for.
    public var deletion: ScheduledAccountDeletion
    /// The finished steps, in order.
    public var finishedSteps: [AccountDeletionStep]
    /// The step that was running when the purge stopped, if one was.
    public var runningStep: AccountDeletionStep?
    /// The report so far.
    public var report: AccountDeletionReport
    /// The end of this device's session that made it join a deletion asked for on
    /// another device — to purge what it holds of the user — or nil for a deletion asked
    /// for here.
    public var joinedFrom: SessionEnd?

    /// The user being deleted.
    public var userID: String { report.userID }
    /// The next step to run, or nil when every step is finished.
    public var nextStep: AccountDeletionStep? { AccountDeletionStep.allCases.first { !finishedSteps.contains($0) } }
    /// Whether the purge has begun deleting data: a step after the Apple revocation
    /// finished or was running. From then on the deletion runs to its end whatever the
    /// clock says.
    public var hasPurgeBegun: Bool {
        finishedSteps.contains { $0 != .appleRevocation } || (runningStep.map { $0 != .appleRevocation } ?? false)
    }

    /// Creates a journal of the current layout.
    /// - Parameters:
    ///   - deletion: The deletion asked for.
    ///   - finishedSteps: The finished steps.
    ///   - runningStep: The step running.
    ///   - report: The report so far.
    ///   - joinedFrom: The session end that made this device join a deletion asked for
    ///     elsewhere; nil for one asked for here.
    public init(
        deletion: ScheduledAccountDeletion, finishedSteps: [AccountDeletionStep], runningStep: AccountDeletionStep? = nil,
        report: AccountDeletionReport, joinedFrom: SessionEnd? = nil
    ) {
        layout = Self.currentLayout
        self.deletion = deletion
        self.finishedSteps = finishedSteps
        self.runningStep = runningStep
        self.report = report
        self.joinedFrom = joinedFrom
    }
}

/// A journal record that could not be read — damaged, or written by another version
/// of the app — kept aside for diagnosis. The deletion it belonged to started again
/// from its first step.
public struct SetAsideDeletionRecord: Codable, Hashable, Sendable {
    /// The user the record was kept under.
    public let userID: String
    /// When it was set aside.
    public let setAsideAt: Date
    /// Why it could not be read.
    public let reason: String
    /// The record's bytes, as they were stored.
    public let bytes: Data
    /// When a finished deletion's report first said a record was set aside
    /// (``AccountDeletionReport/journalSetAsideWarning``); nil until then. A later
    /// deletion of the same user does not say it again.
    public var reportedAt: Date?

    /// Creates a record set aside.
    /// - Parameters:
    ///   - userID: The user the record was kept under.
    ///   - setAsideAt: When it was set aside.
    ///   - reason: Why it could not be read.
    ///   - bytes: Its bytes.
    ///   - reportedAt: When a deletion's report said so; nil for not yet.
    public init(userID: String, setAsideAt: Date, reason: String, bytes: Data, reportedAt: Date? = nil) {
        self.userID = userID
        self.setAsideAt = setAsideAt
        self.reason = reason
        self.bytes = bytes
        self.reportedAt = reportedAt
    }
}
