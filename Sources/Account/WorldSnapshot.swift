import Foundation
import TrainAuth
import TrainCore
import TrainSocial
import TrainSubscription

/// A whole simulated world as one JSON document, version 1: the accounts, the feed's
/// follows, blocks, mutes, posts, likes and comments, the App Store's purchases and family
/// groups, the training plans on the remote, the consents the stack's device keeps, and
/// what moderation keeps: reports, cases, suspensions, moderators and the audit trail,
/// the notifications and the feeds unlocked. Export
/// one from a stack with ``TrainServices/exportWorld(includingSecrets:)``, start a stack from one with
/// ``TrainServices/inMemory(from:signedIn:configuration:)`` or
/// ``TrainServices/files(in:from:configuration:)``, and check small worlds into a
/// repository as test fixtures.
///
/// ```swift
/// let world = try WorldSnapshot(json: Data(#"""
///     {"version": 1,
///      "users": [{"id": "ada", "displayName": "Ada"}, {"id": "grace", "displayName": "Grace"}],
///      "follows": [{"follower": "ada", "followee": "grace"}],
///      "posts": [{"author": "grace", "content": "Intervals on the track"}],
///      "purchases": [{"user": "ada", "product": "com.train.pro.monthly"}]}
///     """#.utf8))
/// let services = try TrainServices.inMemory(from: world, signedIn: "ada")
/// ```
///
/// A field left out takes its documented default; a date left out is the importing
/// stack's clock's now. ``encoded()`` writes every field, keys sorted and dates in one
/// encoding, so export → import → export gives the same bytes. Reading a document is
/// a trust boundary: ``init(json:)`` and the import check it whole and throw a
/// ``WorldSnapshotError`` naming the path of the first thing wrong, and nothing is
/// imported then.
///
/// Version 1 holds password hashes and the ID tokens' signing key only when exported
/// with its secrets. It does not hold photos,
/// a device's plans and their sync state (an imported world's devices download the
/// remote's plans at their first sync), deletions in progress, the App Store's server
/// notifications and pending purchases, nor changes of a purchase after it was made but
/// for its auto-renew turned off and its refund: an imported world's subscriptions
/// renew from their purchase dates.
public struct WorldSnapshot: Hashable, Sendable {
    /// The format version this library writes and reads.
    public static let currentVersion = 1
    /// The largest document read, in bytes: 256 MiB.
    public static let maximumSize = 256 << 20

    /// The format version of the document.
    public var version: Int
    /// The accounts.
    public var users: [User]
    /// Who follows whom.
    public var follows: [Follow]
    /// Who blocks whom.
    public var blocks: [Block]
    /// Who mutes whom: the muted user's posts stay out of the muter's feeds.
    public var mutes: [Mute]
    /// The posts, deleted ones excepted.
    public var posts: [Post]
    /// The photos posts and profiles show, with their bytes.
    public var photos: [Photo] = []
    /// Who likes which post.
    public var likes: [Like]
    /// The comments.
    public var comments: [Comment]
    /// The purchases made in the App Store.
    public var purchases: [Purchase]
    /// The purchases waiting in the App Store for a parent's approval or an issue's resolution.
    public var pendingPurchases: [PendingPurchase] = []
    /// The App Store's family groups, with which purchases that allow it are shared.
    public var families: [Family]
    /// The training plans on the remote.
    public var plans: [Plan]
    /// The plans the stack's device made or edited and has not uploaded yet, as it has them.
    public var devicePlans: [Plan] = []
    /// The plans the stack's device deleted and has not told the remote of yet.
    public var devicePlanDeletions: [PlanDeletion] = []
    /// The values of plans' fields that lost a conflict on the stack's device, as its
    /// conflict log keeps them.
    public var deviceConflicts: [PlanConflict] = []
    /// The users' acceptances and withdrawals of the privacy policy and the terms, as
    /// the stack's device keeps them.
    public var consents: [Consent]
    /// The users' reports of posts, comments and users.
    public var reports: [Report] = []
    /// Where each reported or moderated target stands.
    public var moderationCases: [ModerationCase] = []
    /// The users a moderator suspended.
    public var suspensions: [Suspension] = []
    /// The users an admin made moderators.
    public var moderators: [ModeratorGrant] = []
    /// The moderators' audit trail, newest first.
    public var moderationLog: [ModerationLogEntry] = []
    /// The users' notifications.
    public var notifications: [Notification] = []
    /// How far each user has seen their notifications.
    public var notificationsSeen: [NotificationsSeen] = []
    /// The users' feeds unlocked by a workout.
    public var unlocks: [Unlock] = []
    /// The account deletions asked for and not purged yet.
    public var deletions: [Deletion] = []
    /// The key that signs the ID tokens, when the snapshot holds secrets: tokens made
    /// before the export verify after the import. Without it, a stack makes a new key
    /// and earlier tokens are refused.
    public var tokenSigningKey: Data?

    /// Creates a snapshot of the current version.
    /// - Parameters:
    ///   - users: The accounts.
    ///   - follows: Who follows whom.
    ///   - blocks: Who blocks whom.
    ///   - posts: The posts.
    ///   - likes: Who likes which post.
    ///   - comments: The comments.
    ///   - purchases: The purchases.
    ///   - families: The family groups.
    ///   - plans: The training plans on the remote.
    ///   - consents: The users' consents.
    public init(
        users: [User] = [], follows: [Follow] = [], blocks: [Block] = [], posts: [Post] = [], likes: [Like] = [], comments: [Comment] = [],
        purchases: [Purchase] = [], families: [Family] = [], plans: [Plan] = [], consents: [Consent] = []
    ) {
        version = Self.currentVersion
        self.users = users
        self.follows = follows
        self.blocks = blocks
        mutes = []
        self.posts = posts
        self.likes = likes
        self.comments = comments
        self.purchases = purchases
        self.families = families
        self.plans = plans
        self.consents = consents
    }

    /// The latest date the document gives — of an account, a sign-in, a post, a
    /// comment, a purchase or a request for one, a plan's last save or deletion, a consent, a report, a case, a suspension, a
    /// moderator's grant, an action of the trail, a notification, an unlock or a conflict's resolution — or nil if it gives none: a stack importing it needs a
    /// clock at or after it, since a purchase cannot be made later than now.
    public var newestDate: Date? {
        var dates: [Date?] = users.flatMap { [$0.createdAt, $0.lastSignInAt] } + posts.map(\.createdAt) + comments.map(\.createdAt)
        dates += purchases.flatMap { [$0.purchasedAt, $0.autoRenewOffAt, $0.renewsAsSince, $0.refundedAt, $0.billingFailedAt] }
        dates += (plans + devicePlans).map(\.lastModified) + devicePlanDeletions.map(\.deletedAt) + consents.map(\.date) + reports.map(\.createdAt)
        dates += deviceConflicts.map(\.resolvedAt)
        dates += moderationCases.flatMap { [$0.openedAt, $0.reviewedAt] } + suspensions.map(\.date) + moderators.map(\.grantedAt)
        dates += moderationLog.map(\.date) + notifications.flatMap { [$0.updatedAt, $0.readAt] + $0.causes.map(\.date) }
        dates += notificationsSeen.map(\.upTo) + unlocks.map(\.unlockDate) + pendingPurchases.map(\.requestedAt)
        return dates.compactMap { $0 }.max()
    }

    /// An account. Left out: `displayName`, `email`, `phoneNumber` and `photoURL` are
    /// none, `isEmailVerified` and `isAnonymous` false, `providers` one Sign in with
    /// Apple whose subject is the user's ID (or, for a user with a password, the
    /// password sign-in method of their email), `createdAt` and `lastSignInAt` now.
    public struct User: Codable, Hashable, Sendable {
        /// The account's ID, 1 to 128 bytes without control characters.
        public var id: String
        /// The name posts and profiles show.
        public var displayName: String?
        /// The email address.
        public var email: String?
        /// Whether the address is a private relay one, as Sign in with Apple gives.
        public var isPrivateEmail: Bool?
        /// Whether the email address was verified.
        public var isEmailVerified: Bool?
        /// Whether it is a guest account.
        public var isAnonymous: Bool?
        /// The phone number.
        public var phoneNumber: String?
        /// The profile photo, from elsewhere: an `https` or `file` URL.
        public var photoURL: URL?
        /// The ID of the profile photo in ``WorldSnapshot/photos``, one of the user's.
        public var photo: UUID?
        /// How the user signs in.
        public var providers: [Provider]?
        /// When the account was made.
        public var createdAt: Date?
        /// When the user last signed in.
        public var lastSignInAt: Date?
        /// A password, for a hand-written fixture: hashed at the import, as a sign-up
        /// with it would be. Needs `email`; adds the password sign-in method when
        /// `providers` is left out.
        public var password: String?
        /// The stored hash of the user's password, when the snapshot holds secrets.
        /// Without a password or its hash, a user with the password sign-in method
        /// resets their password to sign in.
        public var passwordHash: StoredPassword?

        /// Creates an account; what is left nil takes its default.
        /// - Parameters:
        ///   - id: The account's ID.
        ///   - displayName: The name posts and profiles show.
        ///   - email: The email address.
        ///   - providers: How the user signs in.
        ///   - createdAt: When the account was made.
        public init(id: String, displayName: String? = nil, email: String? = nil, providers: [Provider]? = nil, createdAt: Date? = nil) {
            self.id = id
            self.displayName = displayName
            self.email = email
            self.providers = providers
            self.createdAt = createdAt
        }
    }

    /// A password as stored: a salted, iterated hash, never the password.
    public struct StoredPassword: Codable, Hashable, Sendable {
        /// The algorithm: `pbkdf2-sha256`.
        public var algorithm: String
        /// Its iterations.
        public var iterations: Int
        /// The salt, base64 in the document.
        public var salt: Data
        /// The hash, base64 in the document.
        public var hash: Data

        /// Creates a stored password.
        /// - Parameters:
        ///   - algorithm: The algorithm.
        ///   - iterations: Its iterations.
        ///   - salt: The salt.
        ///   - hash: The hash.
        public init(algorithm: String, iterations: Int, salt: Data, hash: Data) {
            self.algorithm = algorithm
            self.iterations = iterations
            self.salt = salt
            self.hash = hash
        }
    }

    /// A way a user signs in: a provider and the user's subject there. Left out:
    /// `email` is none, `linkedAt` the account's `createdAt`.
    public struct Provider: Codable, Hashable, Sendable {
        /// The provider.
        public var provider: AuthProvider
        /// The user's identifier at the provider.
        public var subject: String
        /// The email address the provider gave.
        public var email: String?
        /// When it was linked.
        public var linkedAt: Date?

        /// Creates a sign-in method.
        /// - Parameters:
        ///   - provider: The provider.
        ///   - subject: The user's identifier at the provider.
        ///   - email: The email address the provider gave.
        ///   - linkedAt: When it was linked.
        public init(provider: AuthProvider, subject: String, email: String? = nil, linkedAt: Date? = nil) {
            self.provider = provider
            self.subject = subject
            self.email = email
            self.linkedAt = linkedAt
        }
    }

    /// A user following another.
    public struct Follow: Codable, Hashable, Sendable {
        /// The user who follows.
        public var follower: String
        /// The user followed.
        public var followee: String

        /// Creates a follow.
        /// - Parameters:
        ///   - follower: The user who follows.
        ///   - followee: The user followed.
        public init(follower: String, followee: String) {
            self.follower = follower
            self.followee = followee
        }
    }

    /// A user blocking another.
    public struct Block: Codable, Hashable, Sendable {
        /// The user who blocks.
        public var blocker: String
        /// The user blocked.
        public var blocked: String

        /// Creates a block.
        /// - Parameters:
        ///   - blocker: The user who blocks.
        ///   - blocked: The user blocked.
        public init(blocker: String, blocked: String) {
            self.blocker = blocker
            self.blocked = blocked
        }
    }

    /// A user muting another.
    public struct Mute: Codable, Hashable, Sendable {
        /// The user who mutes.
        public var muter: String
        /// The user muted.
        public var muted: String

        /// Creates a mute.
        /// - Parameters:
        ///   - muter: The user who mutes.
        ///   - muted: The user muted.
        public init(muter: String, muted: String) {
            self.muter = muter
            self.muted = muted
        }
    }

    /// A post. Left out: `id` is made from `createdAt` and the post's place in the
    /// list, `workoutType` is `run`, `createdAt` now, `expiresAt` `createdAt` plus the
    /// social policy's post lifetime, `isHiddenByModeration` false; `likeCount` and
    /// `commentCount`, when given, must equal the likes and the comments moderation does
    /// not hide of the post in the document.
    public struct Post: Codable, Hashable, Sendable {
        /// The post's ID.
        public var id: UUID?
        /// The author.
        public var author: String
        /// The text.
        public var content: String
        /// The workout it is about.
        public var workoutType: WorkoutType?
        /// When it was posted.
        public var createdAt: Date?
        /// When it stops being visible.
        public var expiresAt: Date?
        /// How many likes it has.
        public var likeCount: Int?
        /// How many comments it has that moderation does not hide.
        public var commentCount: Int?
        /// Whether moderation hides it from everyone; its case says why.
        public var isHiddenByModeration: Bool?
        /// The workout behind it, which a workout source recorded.
        public var workout: Workout?
        /// A photo or video it shows from elsewhere: an `https` or `file` URL.
        public var mediaURL: URL?
        /// The ID of the photo in ``WorldSnapshot/photos`` it shows, one of its author's.
        public var photo: UUID?

        /// Creates a post; what is left nil takes its default.
        /// - Parameters:
        ///   - id: The post's ID.
        ///   - author: The author.
        ///   - content: The text.
        ///   - workoutType: The workout it is about.
        ///   - createdAt: When it was posted.
        public init(id: UUID? = nil, author: String, content: String, workoutType: WorkoutType? = nil, createdAt: Date? = nil) {
            self.id = id
            self.author = author
            self.content = content
            self.workoutType = workoutType
            self.createdAt = createdAt
        }
    }

    /// A user liking a post.
    public struct Like: Codable, Hashable, Sendable {
        /// The user.
        public var user: String
        /// The post.
        public var post: UUID

        /// Creates a like.
        /// - Parameters:
        ///   - user: The user.
        ///   - post: The post.
        public init(user: String, post: UUID) {
            self.user = user
            self.post = post
        }
    }

    /// A comment on a post. Left out: `id` is made from `createdAt` and the comment's
    /// place in the list, `createdAt` is now, `isHiddenByModeration` false.
    public struct Comment: Codable, Hashable, Sendable {
        /// The comment's ID.
        public var id: UUID?
        /// The post.
        public var post: UUID
        /// The author.
        public var author: String
        /// The text.
        public var text: String
        /// When it was made.
        public var createdAt: Date?
        /// Whether moderation hides it from everyone; its case says why.
        public var isHiddenByModeration: Bool?

        /// Creates a comment; what is left nil takes its default.
        /// - Parameters:
        ///   - id: The comment's ID.
        ///   - post: The post.
        ///   - author: The author.
        ///   - text: The text.
        ///   - createdAt: When it was made.
        public init(id: UUID? = nil, post: UUID, author: String, text: String, createdAt: Date? = nil) {
            self.id = id
            self.post = post
            self.author = author
            self.text = text
            self.createdAt = createdAt
        }
    }

    /// A family group in the App Store: its organizer and up to five members, by Apple ID.
    public struct Family: Codable, Hashable, Sendable {
        /// The Apple ID that organizes it.
        public var organizer: String
        /// The other Apple IDs in it, in the order they joined.
        public var members: [String]

        /// Creates a family group.
        /// - Parameters:
        ///   - organizer: The Apple ID that organizes it.
        ///   - members: The other Apple IDs in it.
        public init(organizer: String, members: [String]) {
            self.organizer = organizer
            self.members = members
        }
    }

    /// A purchase in the App Store, made by an Apple ID for an app user. Left out:
    /// `appleID` is the Apple ID the user's devices use — the first device's for the
    /// user signed in on it at the import, `AppleID.standard(forUser:)` for anyone else —
    /// `purchasedAt` is now, `expiresAt` and `refundedAt` none, `refundReason` `other`. A
    /// subscription renews from `purchasedAt` up to now — or, with `expiresAt`, its
    /// auto-renew is off and it ends with the period that holds that date (or the
    /// current one, for a date to come); or, with
    /// `refundedAt`, up to its refund, which ends it. A later purchase in its subscription
    /// group by the same Apple ID takes over from it: it renews up to then at most.
    public struct Purchase: Codable, Hashable, Sendable {
        /// The app user it is for: it carries their app account token. None for a
        /// purchase made outside the app, untagged.
        public var user: String?
        /// The Apple ID that bought it.
        public var appleID: String?
        /// The product's ID, one of the configuration's products.
        public var product: String
        /// When it was bought.
        public var purchasedAt: Date?
        /// For a subscription whose auto-renew is off, when it stopped renewing: it renews
        /// up to this date, or to now if that comes first, and ends with the period it is
        /// in then. The export gives the end of that period.
        public var expiresAt: Date?
        /// When its auto-renew was turned off, for one with `expiresAt`, or after the renewal
        /// `billingFailedAt` gives: the App Store's server notification of it is dated
        /// then. Left out, none is sent, and one with `billingFailedAt` renews if billed.
        public var autoRenewOffAt: Date?
        /// Another product of the subscription's group it renews as — a downgrade, or a
        /// crossgrade to another period — from its first renewal after `renewsAsSince`.
        public var renewsAs: String?
        /// When the change of what it renews as was asked for: the server notification of
        /// it is dated then. Left out, it renews as `renewsAs` from its first renewal, without one.
        public var renewsAsSince: Date?
        /// When it was refunded — for a subscription, the period it was in then — which
        /// ended access to it.
        public var refundedAt: Date?
        /// Why it was refunded.
        public var refundReason: TransactionRevocationReason?
        /// For a subscription whose renewal failed to bill, and which no renewal since
        /// resolved: when that renewal was due. It renews up to the end of the period that
        /// holds this date, whose renewal fails then; the App Store's server notification
        /// of it is dated at that renewal. After it the store moves as it does: billing retry, with
        /// no access, up to 60 days (at its time rate), then it expires — unless
        /// `billingGracePeriod`.
        public var billingFailedAt: Date?
        /// With `billingFailedAt`, true when the failed renewal went into the product's
        /// billing grace period, which keeps access, before billing retry. Left out, false.
        public var billingGracePeriod: Bool?
        /// The identifier of the offer of the product it was bought with, other than the
        /// introductory offer, which the store gives by itself to those eligible for it.
        public var offer: String?
        /// The kind of `offer`: `promotional`, `winBack` or `code`.
        public var offerType: SubscriptionOffer.OfferType?

        /// Creates a purchase; what is left nil takes its default.
        /// - Parameters:
        ///   - user: The app user it is for.
        ///   - appleID: The Apple ID that bought it.
        ///   - product: The product's ID.
        ///   - purchasedAt: When it was bought.
        public init(user: String?, appleID: String? = nil, product: String, purchasedAt: Date? = nil) {
            self.user = user
            self.appleID = appleID
            self.product = product
            self.purchasedAt = purchasedAt
        }
    }
}

extension WorldSnapshot: Decodable {
    private enum CodingKeys: String, CodingKey {
        case version, users, follows, blocks, mutes, posts, photos, likes, comments, purchases, pendingPurchases, families, plans, devicePlans,
            devicePlanDeletions, deviceConflicts, consents, reports,
            moderationCases,
            suspensions, moderators, moderationLog, notifications, notificationsSeen, unlocks, deletions, tokenSigningKey
    }

    /// Reads a document; a list left out is empty. The version is read first, so a
    /// document of another version is refused by its version, not by its first field.
    /// - Parameter decoder: The decoder.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decode(Int.self, forKey: .version)
        guard version == Self.currentVersion else {
            throw WorldSnapshotError(
                .unsupportedVersion, path: "version",
                detail: "The document is of version \(version); this library reads version \(Self.currentVersion).")
        }
        users = try container.decodeIfPresent([User].self, forKey: .users) ?? []
        follows = try container.decodeIfPresent([Follow].self, forKey: .follows) ?? []
        blocks = try container.decodeIfPresent([Block].self, forKey: .blocks) ?? []
        mutes = try container.decodeIfPresent([Mute].self, forKey: .mutes) ?? []
        posts = try container.decodeIfPresent([Post].self, forKey: .posts) ?? []
        photos = try container.decodeIfPresent([Photo].self, forKey: .photos) ?? []
        likes = try container.decodeIfPresent([Like].self, forKey: .likes) ?? []
        comments = try container.decodeIfPresent([Comment].self, forKey: .comments) ?? []
        purchases = try container.decodeIfPresent([Purchase].self, forKey: .purchases) ?? []
        pendingPurchases = try container.decodeIfPresent([PendingPurchase].self, forKey: .pendingPurchases) ?? []
        families = try container.decodeIfPresent([Family].self, forKey: .families) ?? []
        plans = try container.decodeIfPresent([Plan].self, forKey: .plans) ?? []
        devicePlans = try container.decodeIfPresent([Plan].self, forKey: .devicePlans) ?? []
        devicePlanDeletions = try container.decodeIfPresent([PlanDeletion].self, forKey: .devicePlanDeletions) ?? []
        deviceConflicts = try container.decodeIfPresent([PlanConflict].self, forKey: .deviceConflicts) ?? []
        consents = try container.decodeIfPresent([Consent].self, forKey: .consents) ?? []
        reports = try container.decodeIfPresent([Report].self, forKey: .reports) ?? []
        moderationCases = try container.decodeIfPresent([ModerationCase].self, forKey: .moderationCases) ?? []
        suspensions = try container.decodeIfPresent([Suspension].self, forKey: .suspensions) ?? []
        moderators = try container.decodeIfPresent([ModeratorGrant].self, forKey: .moderators) ?? []
        moderationLog = try container.decodeIfPresent([ModerationLogEntry].self, forKey: .moderationLog) ?? []
        notifications = try container.decodeIfPresent([Notification].self, forKey: .notifications) ?? []
        notificationsSeen = try container.decodeIfPresent([NotificationsSeen].self, forKey: .notificationsSeen) ?? []
        unlocks = try container.decodeIfPresent([Unlock].self, forKey: .unlocks) ?? []
        deletions = try container.decodeIfPresent([Deletion].self, forKey: .deletions) ?? []
        tokenSigningKey = try container.decodeIfPresent(Data.self, forKey: .tokenSigningKey)
    }
}
