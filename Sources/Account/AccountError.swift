import Foundation
import TrainAuth
import TrainCore

/// The one error type of TrainAccount. Each code has a user-facing description and
/// recovery suggestion an app can show as is.
///
/// ```swift
/// do {
///     try await account.deleteAccount()
/// } catch AccountError.requiresRecentLogin {
///     // Ask the user to sign in again, then call deleteAccount() again.
/// }
/// ```
public struct AccountError: TrainError {
    /// What went wrong; new codes can be added without breaking callers.
    public typealias Code = TrainErrorCode<AccountError>

    /// What went wrong.
    public let code: Code
    /// The deletion step that failed, for ``TrainCore/TrainErrorCode/deletionIncomplete`` and the sign-in codes.
    public let step: AccountDeletionStep?
    /// A detail of this occurrence for developers and logs.
    public let detail: String
    /// A user-facing sentence for this occurrence, when it says more than the code's.
    public let message: String?

    /// Creates an error.
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - step: The deletion step that failed, if any.
    ///   - detail: A detail for developers; defaults to the user-facing description.
    ///   - message: A user-facing sentence for this occurrence; defaults to the code's.
    public init(_ code: Code, step: AccountDeletionStep? = nil, detail: String? = nil, message: String? = nil) {
        self.code = code
        self.step = step
        self.message = message
        self.detail = detail ?? message ?? code.message
    }

    /// A user-facing sentence: this occurrence's ``message``, or the code's.
    public var errorDescription: String? { message ?? code.message }

    /// The code, the step and the developer detail, for logs.
    public var description: String { "AccountError.\(code)\(step.map { " at \($0)" } ?? ""): \(detail)" }
}

/// The codes of ``AccountError``.
extension TrainErrorCode where Failure == AccountError {
    /// The call needs a signed-in user and there is none, or the user changed during the call.
    public static var notSignedIn: Self {
        Self("notSignedIn", message: "You are not signed in.", recoverySuggestion: "Sign in to manage your account.")
    }
    /// Deleting the account needs a recent sign-in: sign in again, then retry.
    public static var requiresRecentLogin: Self { Self(sameAs: .requiresRecentLogin) }
    /// Deleting an account with Sign in with Apple needs a fresh Apple authorization.
    public static var requiresAppleReauthentication: Self { Self(sameAs: .requiresAppleReauthentication) }
    /// The data belongs to another user than the one signed in.
    public static var notAuthorized: Self { Self("notAuthorized", message: "This data belongs to another account.") }
    /// A deletion of this account is already running.
    public static var deletionInProgress: Self {
        Self("deletionInProgress", message: "Your account is already being deleted.", recoverySuggestion: "Wait for it to finish.")
    }
    /// A step of the deletion failed; what it finished stays done, and calling
    /// `deleteAccount()` again continues from the step that failed.
    public static var deletionIncomplete: Self {
        Self(
            "deletionIncomplete", message: "Your account could not be deleted completely.",
            recoverySuggestion: "Try again: the deletion continues where it stopped.")
    }
    /// A service could not be read for a copy of the user's data; nothing was made.
    public static var exportFailed: Self {
        Self("exportFailed", message: "A copy of your data could not be made right now.", recoverySuggestion: "Try again later.")
    }
    /// The policy version is not the one in force.
    public static var unknownPolicyVersion: Self {
        Self(
            "unknownPolicyVersion", message: "This version of the policy is not the current one.",
            recoverySuggestion: "Review the current policy and accept it.")
    }
    /// There is no acceptance in force to withdraw.
    public static var noConsent: Self { Self("noConsent", message: "You have not accepted this policy.") }
    /// The account's deletion is already scheduled.
    public static var deletionAlreadyScheduled: Self { Self("deletionAlreadyScheduled", message: "Your account is already scheduled for deletion.") }
    /// The account has no scheduled deletion.
    public static var noScheduledDeletion: Self { Self("noScheduledDeletion", message: "Your account is not scheduled for deletion.") }
    /// The account data on this device could not be read or written.
    public static var storage: Self {
        Self(
            "storage", message: "Your account data on this device could not be read or saved.",
            recoverySuggestion: "Restart the app. If this keeps happening, contact support.")
    }
    /// A value given is out of its range — an unknown time zone, an empty name — and
    /// nothing was changed.
    public static var invalidArgument: Self { Self("invalidArgument", message: "A value given is not valid.") }
    /// No account has the user ID given.
    public static var userNotFound: Self { Self("userNotFound", message: "There is no such account.") }
    /// The stack cannot do this as it is set up, such as adding users to a stack that
    /// signs in with the app's own auth service.
    public static var notSupported: Self { Self("notSupported", message: "This is not available here.") }
}

extension TrainErrorCode where Failure == AccountError {
    /// The account service's code for an auth code it passes on: the same name, sentence and suggestion.
    fileprivate init(sameAs code: AuthenticationError.Code) {
        self.init(code.name, message: code.message, recoverySuggestion: code.recoverySuggestion)
    }
}
