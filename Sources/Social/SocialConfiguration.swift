import Foundation
import TrainCore

/// The rules of a ``LocalSocialFeedService``, each a value an app or a test can change.
public struct SocialPolicy: Sendable {
    /// How long a post stays visible after it is posted.
    public var postLifetime: Duration
    /// The most characters in a post, after trimming.
    public var maximumPostLength: Int
    /// The most characters in a comment, after trimming.
    public var maximumCommentLength: Int
    /// Whether a rest day unlocks the feed.
    public var restUnlocksFeed: Bool
    /// Whether the discover feed is locked like the friends feed.
    public var discoverRequiresUnlock: Bool
    /// What account deletion does to the user's comments on other users' posts.
    public var deletedUserComments: DeletedCommentPolicy
    /// Whether unlocking needs a workout of the type unlocked that ended today, on the
    /// user's local day, in the configuration's ``WorkoutSource``; false trusts the caller.
    public var unlockRequiresRecordedWorkout: Bool
    /// The words and phrases posts, comments and display names may not hold.
    public var wordFilter: WordFilter
    /// How many distinct users' reports hide a post or comment from everyone until a
    /// moderator looks; nil never hides on reports alone, and neither does a policy
    /// with no ``moderators`` and no ``admins`` (nobody could show it again). Below 1 counts as 1. Users
    /// are never hidden on reports alone: a moderator suspends them.
    public var hideAfterReports: Int?
    /// The users who moderate: they read the queue of reports and take down, restore,
    /// dismiss, suspend and unsuspend, on anyone but a moderator or an admin. An admin
    /// grants the role to more users through the API. IDs are compared byte for byte.
    public var moderators: [String]
    /// The users who administer moderation: they moderate as moderators do, act on
    /// moderators too (never on another admin), and grant and revoke the moderator role
    /// (``ModerationAction/grantModerator`` and ``ModerationAction/revokeModerator``).
    /// Nobody can act on an admin through the API. IDs are compared byte for byte.
    public var admins: [String]

    /// Creates a policy.
    /// - Parameters:
    ///   - postLifetime: 24 hours.
    ///   - maximumPostLength: 500 characters.
    ///   - maximumCommentLength: 300 characters.
    ///   - restUnlocksFeed: Yes.
    ///   - discoverRequiresUnlock: Yes.
    ///   - deletedUserComments: ``DeletedCommentPolicy/anonymize``.
    ///   - unlockRequiresRecordedWorkout: No: the caller is trusted.
    ///   - wordFilter: ``WordFilter/none``.
    ///   - hideAfterReports: 5 distinct reports.
    ///   - moderators: Nobody.
    ///   - admins: Nobody.
    public init(
        postLifetime: Duration = .seconds(86_400), maximumPostLength: Int = 500, maximumCommentLength: Int = 300,
        restUnlocksFeed: Bool = true, discoverRequiresUnlock: Bool = true, deletedUserComments: DeletedCommentPolicy = .anonymize,
        unlockRequiresRecordedWorkout: Bool = false, wordFilter: WordFilter = .none, hideAfterReports: Int? = 5, moderators: [String] = [],
        admins: [String] = []
    ) {
        self.postLifetime = postLifetime
        self.maximumPostLength = maximumPostLength
        self.maximumCommentLength = maximumCommentLength
        self.restUnlocksFeed = restUnlocksFeed
        self.discoverRequiresUnlock = discoverRequiresUnlock
        self.deletedUserComments = deletedUserComments
        self.unlockRequiresRecordedWorkout = unlockRequiresRecordedWorkout
        self.wordFilter = wordFilter
        self.hideAfterReports = hideAfterReports
        self.moderators = moderators
        self.admins = admins
    }
}

/// What happens to a deleted user's comments on other users' posts.
public enum DeletedCommentPolicy: String, Codable, Hashable, Sendable, CaseIterable {
    /// The comments stay, shown as "[Deleted User]", with no ID or name of the user kept.
    case anonymize
    /// The comments are removed and the posts' comment counts go down.
    case delete
}

/// Everything a ``LocalSocialFeedService`` is built from besides its context: policy,
/// recorded workouts and how live streams look for other processes' commits, each
/// with a default:
///
/// ```swift
/// var configuration = SocialConfiguration()
/// configuration.policy.moderators = ["moderator-id"]
/// ```
public struct SocialConfiguration: Sendable {
    /// The rules.
    public var policy = SocialPolicy()
    /// The user's recorded workouts: what an unlock may require and what a post shows
    /// of its workout. None by default.
    public var workouts: (any WorkoutSource)?
    /// How often a live stream over a file looks whether another process — an app
    /// extension, another service on the file — committed to it; 1 second by default,
    /// at least 1 millisecond.
    public var changePollInterval: Duration = .seconds(1)
    /// The clock, IDs and time zone given to the deprecated initializer, which override the context's.
    package var legacy = LegacyContext()

    /// Creates a configuration; `SocialConfiguration()` has the default policy, no
    /// recorded workouts and a 1-second poll.
    /// - Parameters:
    ///   - policy: The rules.
    ///   - workouts: The user's recorded workouts; none by default.
    ///   - changePollInterval: How often live streams look for another process's commits.
    public init(policy: SocialPolicy = SocialPolicy(), workouts: (any WorkoutSource)? = nil, changePollInterval: Duration = .seconds(1)) {
        self.policy = policy
        self.workouts = workouts
        self.changePollInterval = changePollInterval
    }

    /// Creates a configuration with a clock, IDs or time zone of its own.
    /// - Parameters:
    ///   - clock: The clock, in place of the context's.
    ///   - ids: The ID generator, in place of the context's.
    ///   - timeZone: The user's time zone, in place of the context's.
    ///   - policy: The rules.
    ///   - workouts: The user's recorded workouts; none by default.
    ///   - changePollInterval: How often live streams look for another process's commits.
    @_disfavoredOverload
    @available(*, deprecated, message: "Pass the clock, IDs and time zone in the service's context.")
    public init(
        clock: (any DateClock)? = nil, ids: (any IDGenerator)? = nil, timeZone: (@Sendable () -> TimeZone)? = nil,
        policy: SocialPolicy = SocialPolicy(), workouts: (any WorkoutSource)? = nil, changePollInterval: Duration = .seconds(1)
    ) {
        self.init(policy: policy, workouts: workouts, changePollInterval: changePollInterval)
        self.legacy = LegacyContext(clock: clock, ids: ids, timeZone: timeZone)
    }

    /// The clock given to the deprecated initializer, or the system's.
    @available(*, deprecated, message: "Pass the clock in the service's context.")
    public var clock: any DateClock {
        get { legacy.clock ?? SystemClock() }
        set { legacy.clock = newValue }
    }
    /// The ID generator given to the deprecated initializer, or random IDs.
    @available(*, deprecated, message: "Pass the ID generator in the service's context.")
    public var ids: any IDGenerator {
        get { legacy.ids ?? RandomIDGenerator() }
        set { legacy.ids = newValue }
    }
    /// The time zone given to the deprecated initializer, or the device's.
    @available(*, deprecated, message: "Pass the time zone in the service's context.")
    public var timeZone: @Sendable () -> TimeZone {
        get { legacy.timeZone ?? { TimeZone.current } }
        set { legacy.timeZone = newValue }
    }
}
