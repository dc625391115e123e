import Foundation
import TrainAuth
import TrainSocial
import TrainSync

/// The steps of deleting an account, in the order they run. Each can run again
/// without harm, so a deletion that stopped continues from the step that failed.
public enum AccountDeletionStep: String, Codable, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// Checks the recent sign-in and revokes the Sign in with Apple tokens, as Apple
    /// requires. Nothing is deleted before it succeeds.
    case appleRevocation
    /// Deletes the user's posts, likes, comments, follows, blocks, profile and photos.
    case socialData
    /// Deletes the user's plans on this device and on the remote.
    case plans
    /// Unbinds the user from the subscription service. The App Store keeps its own
    /// records: a subscription stays active until the user cancels it in Settings.
    case subscription
    /// Turns the biometric app lock off.
    case biometricSetting
    /// Deletes the sign-in account. The user is signed out.
    case authAccount
    /// Deletes the user's remaining data on this device: consents and a scheduled
    /// deletion. Other users' data on the device is untouched.
    case localData

    /// The step's name.
    public var description: String { rawValue }

    /// The steps that delete the user's data in the other services, which run once
    /// more right before the sign-in account goes.
    static let dataSteps: [AccountDeletionStep] = [.socialData, .plans, .subscription, .biometricSetting]
}

/// An account deletion scheduled with a grace period: the user is hidden and signed
/// out, can sign in and restore the account until ``purgeAt``, and is purged then.
public struct ScheduledAccountDeletion: Codable, Hashable, Sendable {
    /// The user.
    public let userID: String
    /// When the deletion was asked for.
    public let scheduledAt: Date
    /// When the grace period ends and the purge may run.
    public let purgeAt: Date
    /// What happened to the Apple tokens, revoked when the deletion was scheduled.
    public let appleTokenRevocation: AppleTokenRevocation
    /// What the user should know, as sentences an app can show: a subscription that
    /// stays active at the App Store, a revocation Apple's end failed.
    public var warnings: [String]

    /// Creates a scheduled deletion.
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
    /// The records of this user removed from this device's account data.
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
    /// The sentence shown when an App Store subscription will go on renewing.
    public static let subscriptionWarning = "An App Store subscription stays active until you cancel it in Settings › Apple ID › Subscriptions."
}

/// A deletion that started and has not finished: its steps done and its report so far.
public struct AccountDeletionJournal: Codable, Hashable, Sendable {
    /// The finished steps, in order.
    public var finishedSteps: [AccountDeletionStep]
    /// The step that was running when the deletion stopped, if one was.
    public var runningStep: AccountDeletionStep?
    /// The report so far.
    public var report: AccountDeletionReport

    /// The user being deleted.
    public var userID: String { report.userID }
    /// The next step to run, or nil when every step is finished.
    public var nextStep: AccountDeletionStep? { AccountDeletionStep.allCases.first { !finishedSteps.contains($0) } }

    /// Creates a journal.
    /// - Parameters:
    ///   - finishedSteps: The finished steps.
    ///   - runningStep: The step running.
    ///   - report: The report so far.
    public init(finishedSteps: [AccountDeletionStep], runningStep: AccountDeletionStep? = nil, report: AccountDeletionReport) {
        self.finishedSteps = finishedSteps
        self.runningStep = runningStep
        self.report = report
    }
}
