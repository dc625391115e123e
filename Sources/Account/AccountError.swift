import Foundation

/// The one error type of TrainAccount. Each code has a user-facing description and
/// recovery suggestion an app can show as is.
///
/// ```swift
/// do {
///     try await account.deleteAccount()
/// } catch let error as AccountError where error.code == .requiresRecentLogin {
///     // Ask the user to sign in again, then call deleteAccount() again.
/// }
/// ```
public struct AccountError: Error, Hashable, Sendable {
    /// What went wrong; new codes can be added without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The stable name of the code (`"notSignedIn"`).
        public let name: String
        private init(_ name: String) { self.name = name }

        /// The call needs a signed-in user and there is none, or the user changed during the call.
        public static let notSignedIn = Code("notSignedIn")
        /// Deleting the account needs a recent sign-in: sign in again, then retry.
        public static let requiresRecentLogin = Code("requiresRecentLogin")
        /// Deleting an account with Sign in with Apple needs a fresh Apple authorization.
        public static let requiresAppleReauthentication = Code("requiresAppleReauthentication")
        /// The data belongs to another user than the one signed in.
        public static let notAuthorized = Code("notAuthorized")
        /// A deletion of this account is already running.
        public static let deletionInProgress = Code("deletionInProgress")
        /// A step of the deletion failed; what it finished stays done, and calling
        /// `deleteAccount()` again continues from the step that failed.
        public static let deletionIncomplete = Code("deletionIncomplete")
        /// A service could not be read for a copy of the user's data; nothing was made.
        public static let exportFailed = Code("exportFailed")
        /// The policy version is not the one in force.
        public static let unknownPolicyVersion = Code("unknownPolicyVersion")
        /// There is no acceptance in force to withdraw.
        public static let noConsent = Code("noConsent")
        /// The account's deletion is already scheduled.
        public static let deletionAlreadyScheduled = Code("deletionAlreadyScheduled")
        /// The account has no scheduled deletion.
        public static let noScheduledDeletion = Code("noScheduledDeletion")
        /// The account data on this device could not be read or written.
        public static let storage = Code("storage")
        /// A value given is out of its range — an unknown time zone, an empty name — and
        /// nothing was changed.
        public static let invalidArgument = Code("invalidArgument")
        /// No account has the user ID given.
        public static let userNotFound = Code("userNotFound")
        /// The stack cannot do this as it is set up, such as adding users to a stack that
        /// signs in with the app's own auth service.
        public static let notSupported = Code("notSupported")

        /// The code's name.
        public var description: String { name }
    }

    /// What went wrong.
    public let code: Code
    /// The deletion step that failed, for ``Code/deletionIncomplete`` and the sign-in codes.
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
        self.detail = detail ?? message ?? Self.messages[code]?.description ?? code.name
    }

    private static let messages: [Code: (description: String, suggestion: String?)] = [
        .notSignedIn: ("You are not signed in.", "Sign in to manage your account."),
        .requiresRecentLogin: (
            "For security reasons, you need to verify your identity before deleting your account. This only takes a moment.",
            "Sign in again to continue."
        ),
        .requiresAppleReauthentication: (
            "To delete your account, confirm it once more with Sign in with Apple, so that Apple can end this app's access.",
            "Tap Sign in with Apple, then delete your account."
        ),
        .notAuthorized: ("This data belongs to another account.", nil),
        .deletionInProgress: ("Your account is already being deleted.", "Wait for it to finish."),
        .deletionIncomplete: (
            "Your account could not be deleted completely.", "Try again: the deletion continues where it stopped."
        ),
        .exportFailed: ("A copy of your data could not be made right now.", "Try again later."),
        .unknownPolicyVersion: ("This version of the policy is not the current one.", "Review the current policy and accept it."),
        .noConsent: ("You have not accepted this policy.", nil),
        .deletionAlreadyScheduled: ("Your account is already scheduled for deletion.", nil),
        .noScheduledDeletion: ("Your account is not scheduled for deletion.", nil),
        .storage: ("Your account data on this device could not be read or saved.", "Restart the app. If this keeps happening, contact support."),
        .invalidArgument: ("A value given is not valid.", nil),
        .userNotFound: ("There is no such account.", nil),
        .notSupported: ("This is not available here.", nil),
    ]
}

extension AccountError {
    /// Two errors are equal when their codes are, whatever their detail or step, so a
    /// test can write `#expect(throws: AccountError(.notSignedIn))` against a real service.
    /// - Parameters:
    ///   - lhs: An error.
    ///   - rhs: Another error.
    /// - Returns: Whether both have the same code.
    public static func == (lhs: AccountError, rhs: AccountError) -> Bool {
        lhs.code == rhs.code
    }

    /// Hashes the code only, consistent with ``==(_:_:)``.
    /// - Parameter hasher: The hasher.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
    }
}

extension AccountError: LocalizedError {
    /// A user-facing sentence for the code.
    public var errorDescription: String? { message ?? Self.messages[code]?.description ?? detail }
    /// What the user can do about it.
    public var recoverySuggestion: String? { Self.messages[code]?.suggestion ?? nil }
}

extension AccountError: CustomStringConvertible {
    /// The code, the step and the developer detail, for logs.
    public var description: String { "AccountError.\(code)\(step.map { " at \($0)" } ?? ""): \(detail)" }
}
