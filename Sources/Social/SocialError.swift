import Foundation

/// The one error type of TrainSocial. Each code has a user-facing description and
/// recovery suggestion an app can show as is.
///
/// ```swift
/// do {
///     let page = try await social.friendsFeed(limit: 20)
/// } catch let error as SocialError where error.code == .feedLocked {
///     // Show "Complete a workout to see what your friends are up to."
/// }
/// ```
public struct SocialError: Error, Hashable, Sendable {
    /// What went wrong; new codes can be added without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The stable name of the code (`"feedLocked"`).
        public let name: String
        private init(_ name: String) { self.name = name }

        /// The call needs a signed-in user and there is none.
        public static let notSignedIn = Code("notSignedIn")
        /// The feed is locked until the user completes a workout today.
        public static let feedLocked = Code("feedLocked")
        /// The cursor names a post that never existed.
        public static let invalidCursor = Code("invalidCursor")
        /// The page size is outside 1...100.
        public static let invalidLimit = Code("invalidLimit")
        /// The post's text is empty, too long, or holds control characters.
        public static let invalidContent = Code("invalidContent")
        /// The comment's text is empty, too long, or holds control characters.
        public static let invalidComment = Code("invalidComment")
        /// The media URL is neither `https` with a host nor `file`.
        public static let invalidMediaURL = Code("invalidMediaURL")
        /// The workout type's name is not 1 to 64 ASCII letters, digits, `-`, `_` or `.`.
        public static let invalidWorkoutType = Code("invalidWorkoutType")
        /// A user search needs at least two characters.
        public static let queryTooShort = Code("queryTooShort")
        /// No such post, or it was deleted.
        public static let postNotFound = Code("postNotFound")
        /// The post has expired.
        public static let postExpired = Code("postExpired")
        /// No such comment, or it was deleted.
        public static let commentNotFound = Code("commentNotFound")
        /// No such user, or their account was deleted.
        public static let userNotFound = Code("userNotFound")
        /// A user cannot follow themselves or block themselves.
        public static let cannotTargetSelf = Code("cannotTargetSelf")
        /// One of the two users blocks the other.
        public static let blocked = Code("blocked")
        /// Only the author may do this (or, for a comment, the post's owner).
        public static let notAuthorized = Code("notAuthorized")
        /// The photo is larger than the media store accepts.
        public static let mediaTooLarge = Code("mediaTooLarge")
        /// The data is not a JPEG, PNG, GIF, HEIC or WebP image.
        public static let unsupportedMediaType = Code("unsupportedMediaType")
        /// No such photo in the media store, or it was deleted.
        public static let mediaNotFound = Code("mediaNotFound")
        /// Unlocking needs a workout of that type recorded today, and the workout source has none.
        public static let workoutNotRecorded = Code("workoutNotRecorded")
        /// The workout source cannot be read: the user did not allow access, or there is none.
        public static let workoutsUnavailable = Code("workoutsUnavailable")
        /// The post or comment holds a word or phrase of the policy's word filter.
        public static let objectionableContent = Code("objectionableContent")
        /// A word filter's entry is empty, too long or holds an invisible character.
        public static let invalidWordList = Code("invalidWordList")
        /// The user already reports this post, comment or user.
        public static let alreadyReported = Code("alreadyReported")
        /// A report's details are too long or hold a control or invisible character.
        public static let invalidReport = Code("invalidReport")
        /// The moderator action does not apply to what it names: taking down a user,
        /// suspending a post, or a note that is too long or hostile.
        public static let invalidModerationAction = Code("invalidModerationAction")
        /// A moderator suspended the signed-in user: they can read, block and mute but
        /// not post, comment, like, follow or report.
        public static let accountSuspended = Code("accountSuspended")
        /// No notification of the signed-in user has this identifier.
        public static let notificationNotFound = Code("notificationNotFound")
        /// The auth policy needs a verified email address to post or comment, and the
        /// signed-in user has not verified theirs.
        public static let unverifiedEmail = Code("unverifiedEmail")
        /// The social data on this device could not be read or written.
        public static let storage = Code("storage")

        /// The code's name.
        public var description: String { name }
    }

    /// What went wrong.
    public let code: Code
    /// A detail of this occurrence for developers and logs.
    public let detail: String

    /// Creates an error.
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - detail: A detail for developers; defaults to the user-facing description.
    public init(_ code: Code, detail: String? = nil) {
        self.code = code
        self.detail = detail ?? Self.messages[code]?.description ?? code.name
    }

    private static let messages: [Code: (description: String, suggestion: String?)] = [
        .notSignedIn: ("You are not signed in.", "Sign in to continue."),
        .feedLocked: ("The feed unlocks when you complete a workout today.", "Complete a workout to see what your friends are up to."),
        .invalidCursor: ("This page of the feed is no longer available.", "Pull to refresh."),
        .invalidLimit: ("A page holds 1 to 100 posts.", nil),
        .invalidContent: ("A post needs some text, at most 500 characters.", "Shorten or fill in your post."),
        .invalidComment: ("A comment needs some text, at most 300 characters.", "Shorten or fill in your comment."),
        .invalidMediaURL: ("The photo or video could not be attached.", "Choose another photo or video."),
        .invalidWorkoutType: ("This kind of workout is not known.", nil),
        .queryTooShort: ("Type at least two characters to search.", nil),
        .postNotFound: ("This post is no longer available.", "Pull to refresh."),
        .postExpired: ("This post has expired.", "Pull to refresh."),
        .commentNotFound: ("This comment is no longer available.", nil),
        .userNotFound: ("This user could not be found.", nil),
        .cannotTargetSelf: ("You cannot do this to your own account.", nil),
        .blocked: ("You cannot interact with this user.", nil),
        .notAuthorized: ("Only the author can do this.", nil),
        .mediaTooLarge: ("This photo is too large.", "Choose a smaller photo."),
        .unsupportedMediaType: ("This file is not a supported photo.", "Choose a JPEG, PNG, GIF, HEIC or WebP photo."),
        .mediaNotFound: ("This photo is no longer available.", "Choose the photo again."),
        .workoutNotRecorded: ("No workout of this kind was recorded today.", "Record your workout, then try again."),
        .workoutsUnavailable: ("Your workouts could not be read.", "Allow access to your workouts in Settings."),
        .objectionableContent: ("This contains words that are not allowed here.", "Reword it and try again."),
        .invalidWordList: ("The list of words not allowed could not be used.", nil),
        .alreadyReported: ("You already reported this.", nil),
        .invalidReport: ("The report could not be sent.", "Shorten what you wrote and try again."),
        .invalidModerationAction: ("This action does not apply here.", nil),
        .accountSuspended: ("Your account is suspended.", "Contact support if you think this is a mistake."),
        .notificationNotFound: ("This notification is no longer available.", "Pull to refresh."),
        .unverifiedEmail: ("Please verify your email address before posting.", "Open the verification email we sent you, or ask for a new one."),
        .storage: ("Your feed data on this device could not be read or saved.", "Restart the app. If this keeps happening, contact support."),
    ]
}

extension SocialError {
    /// Two errors are equal when their codes are, whatever their detail, so a test can
    /// write `#expect(throws: SocialError(.feedLocked))` against a real service.
    /// - Parameters:
    ///   - lhs: An error.
    ///   - rhs: Another error.
    /// - Returns: Whether both have the same code.
    public static func == (lhs: SocialError, rhs: SocialError) -> Bool {
        lhs.code == rhs.code
    }

    /// Hashes the code only, consistent with ``==(_:_:)``.
    /// - Parameter hasher: The hasher.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
    }
}

extension SocialError: LocalizedError {
    /// A user-facing sentence for the code.
    public var errorDescription: String? { Self.messages[code]?.description ?? detail }
    /// What the user can do about it.
    public var recoverySuggestion: String? { Self.messages[code]?.suggestion ?? nil }
}

extension SocialError: CustomStringConvertible {
    /// The code and the developer detail, for logs.
    public var description: String { "SocialError.\(code): \(detail)" }
}
