import Foundation
import TrainCore

/// The one error type of TrainSocial. Each code has a user-facing description and
/// recovery suggestion an app can show as is.
///
/// ```swift
/// do {
///     let page = try await social.friendsFeed(limit: 20)
/// } catch SocialError.feedLocked {
///     // Show "Complete a workout to see what your friends are up to."
/// }
/// ```
public struct SocialError: TrainError {
    /// What went wrong; new codes can be added without breaking callers.
    public typealias Code = TrainErrorCode<SocialError>

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
        self.detail = detail ?? code.message
    }
}

/// The codes of ``SocialError``.
extension TrainErrorCode where Failure == SocialError {
    /// The call needs a signed-in user and there is none.
    public static var notSignedIn: Self { Self("notSignedIn", message: "You are not signed in.", recoverySuggestion: "Sign in to continue.") }
    /// The feed is locked until the user completes a workout today.
    public static var feedLocked: Self {
        Self(
            "feedLocked", message: "The feed unlocks when you complete a workout today.",
            recoverySuggestion: "Complete a workout to see what your friends are up to.")
    }
    /// The cursor names a post that never existed.
    public static var invalidCursor: Self {
        Self("invalidCursor", message: "This page of the feed is no longer available.", recoverySuggestion: "Pull to refresh.")
    }
    /// The page size is outside 1...100.
    public static var invalidLimit: Self { Self("invalidLimit", message: "A page holds 1 to 100 posts.") }
    /// The post's text is empty, too long, or holds control characters.
    public static var invalidContent: Self {
        Self("invalidContent", message: "A post needs some text, at most 500 characters.", recoverySuggestion: "Shorten or fill in your post.")
    }
    /// The comment's text is empty, too long, or holds control characters.
    public static var invalidComment: Self {
        Self("invalidComment", message: "A comment needs some text, at most 300 characters.", recoverySuggestion: "Shorten or fill in your comment.")
    }
    /// The media URL is neither `https` with a host nor `file`.
    public static var invalidMediaURL: Self {
        Self("invalidMediaURL", message: "The photo or video could not be attached.", recoverySuggestion: "Choose another photo or video.")
    }
    /// The workout type's name is not 1 to 64 ASCII letters, digits, `-`, `_` or `.`.
    public static var invalidWorkoutType: Self { Self("invalidWorkoutType", message: "This kind of workout is not known.") }
    /// A user search needs at least two characters.
    public static var queryTooShort: Self { Self("queryTooShort", message: "Type at least two characters to search.") }
    /// No such post, or it was deleted.
    public static var postNotFound: Self {
        Self("postNotFound", message: "This post is no longer available.", recoverySuggestion: "Pull to refresh.")
    }
    /// The post has expired.
    public static var postExpired: Self { Self("postExpired", message: "This post has expired.", recoverySuggestion: "Pull to refresh.") }
    /// No such comment, or it was deleted.
    public static var commentNotFound: Self { Self("commentNotFound", message: "This comment is no longer available.") }
    /// No such user, or their account was deleted.
    public static var userNotFound: Self { Self("userNotFound", message: "This user could not be found.") }
    /// A user cannot follow themselves or block themselves.
    public static var cannotTargetSelf: Self { Self("cannotTargetSelf", message: "You cannot do this to your own account.") }
    /// One of the two users blocks the other.
    public static var blocked: Self { Self("blocked", message: "You cannot interact with this user.") }
    /// Only the author may do this (or, for a comment, the post's owner).
    public static var notAuthorized: Self { Self("notAuthorized", message: "Only the author can do this.") }
    /// The photo is larger than the media store accepts.
    public static var mediaTooLarge: Self {
        Self("mediaTooLarge", message: "This photo is too large.", recoverySuggestion: "Choose a smaller photo.")
    }
    /// The data is not a JPEG, PNG, GIF, HEIC or WebP image.
    public static var unsupportedMediaType: Self {
        Self(
            "unsupportedMediaType", message: "This file is not a supported photo.", recoverySuggestion: "Choose a JPEG, PNG, GIF, HEIC or WebP photo."
        )
    }
    /// No such photo in the media store, or it was deleted.
    public static var mediaNotFound: Self {
        Self("mediaNotFound", message: "This photo is no longer available.", recoverySuggestion: "Choose the photo again.")
    }
    /// Unlocking needs a workout of that type recorded today, and the workout source has none.
    public static var workoutNotRecorded: Self {
        Self("workoutNotRecorded", message: "No workout of this kind was recorded today.", recoverySuggestion: "Record your workout, then try again.")
    }
    /// The workout source cannot be read: the user did not allow access, or there is none.
    public static var workoutsUnavailable: Self {
        Self("workoutsUnavailable", message: "Your workouts could not be read.", recoverySuggestion: "Allow access to your workouts in Settings.")
    }
    /// The post or comment holds a word or phrase of the policy's word filter.
    public static var objectionableContent: Self {
        Self("objectionableContent", message: "This contains words that are not allowed here.", recoverySuggestion: "Reword it and try again.")
    }
    /// A word filter's entry is empty, too long or holds an invisible character.
    public static var invalidWordList: Self { Self("invalidWordList", message: "The list of words not allowed could not be used.") }
    /// The user already reports this post, comment or user.
    public static var alreadyReported: Self { Self("alreadyReported", message: "You already reported this.") }
    /// A report's details are too long or hold a control or invisible character.
    public static var invalidReport: Self {
        Self("invalidReport", message: "The report could not be sent.", recoverySuggestion: "Shorten what you wrote and try again.")
    }
    /// The moderator action does not apply to what it names: taking down a user,
    /// suspending a post, or a note that is too long or hostile.
    public static var invalidModerationAction: Self { Self("invalidModerationAction", message: "This action does not apply here.") }
    /// A moderator suspended the signed-in user: they can read, block and mute but
    /// not post, comment, like, follow or report.
    public static var accountSuspended: Self {
        Self("accountSuspended", message: "Your account is suspended.", recoverySuggestion: "Contact support if you think this is a mistake.")
    }
    /// No notification of the signed-in user has this identifier.
    public static var notificationNotFound: Self {
        Self("notificationNotFound", message: "This notification is no longer available.", recoverySuggestion: "Pull to refresh.")
    }
    /// The auth policy needs a verified email address to post or comment, and the
    /// signed-in user has not verified theirs.
    public static var unverifiedEmail: Self {
        Self(
            "unverifiedEmail", message: "Please verify your email address before posting.",
            recoverySuggestion: "Open the verification email we sent you, or ask for a new one.")
    }
    /// The social data on this device could not be read or written.
    public static var storage: Self {
        Self(
            "storage", message: "Your feed data on this device could not be read or saved.",
            recoverySuggestion: "Restart the app. If this keeps happening, contact support.")
    }
}
