import Foundation

/// The one error type of TrainAuth. Its codes mirror Firebase Auth's, and
/// each has a user-facing description and recovery suggestion an app can show as is.
///
/// ```swift
/// do {
///     try await auth.deleteAccount()
/// } catch let error as AuthenticationError where error.code == .requiresRecentLogin {
///     // error.errorDescription: "For security reasons, you need to verify your identity before …"
///     let credential = try await auth.requestCredential(from: .apple)
///     try await auth.reauthenticate(with: credential)
///     try await auth.deleteAccount()
/// }
/// ```
///
/// No error text ever contains a password, token, code or nonce.
public struct AuthenticationError: Error, Hashable, Sendable {
    /// What went wrong; new codes can be added without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The stable name of the code, as Firebase spells it (`"requiresRecentLogin"`).
        public let name: String
        private init(_ name: String) { self.name = name }

        /// The code of a stored name.
        static func named(_ name: String) -> Code { Code(name) }

        /// The operation is sensitive and the last sign-in is too old.
        public static let requiresRecentLogin = Code("requiresRecentLogin")
        /// Deleting an account with Sign in with Apple needs a fresh Apple authorization
        /// (Apple requires the app to revoke its tokens, which takes a code under five
        /// minutes old): re-authenticate with Apple, then delete.
        public static let requiresAppleReauthentication = Code("requiresAppleReauthentication")
        /// The credential belongs to another user than the one signed in, or another
        /// user signed in while the operation was waiting.
        public static let userMismatch = Code("userMismatch")
        /// No account matches the credential.
        public static let userNotFound = Code("userNotFound")
        /// The account exists but is disabled.
        public static let userDisabled = Code("userDisabled")
        /// The identity token's nonce is missing or is not the SHA-256 of the raw nonce, or the nonce was used before.
        public static let missingOrInvalidNonce = Code("missingOrInvalidNonce")
        /// The credential is malformed, expired, for another app, or was used before.
        public static let invalidCredential = Code("invalidCredential")
        /// The credential is already linked to another account.
        public static let credentialAlreadyInUse = Code("credentialAlreadyInUse")
        /// This provider is already linked to the account.
        public static let providerAlreadyLinked = Code("providerAlreadyLinked")
        /// The provider is not linked to the account (Firebase's `noSuchProvider`).
        public static let noSuchProvider = Code("noSuchProvider")
        /// The provider is the account's last way to sign in and cannot be unlinked.
        public static let lastProvider = Code("lastProvider")
        /// The SMS code is wrong or not six digits.
        public static let invalidVerificationCode = Code("invalidVerificationCode")
        /// The verification ID is unknown or was already used.
        public static let invalidVerificationID = Code("invalidVerificationID")
        /// The SMS code expired; request a new one.
        public static let sessionExpired = Code("sessionExpired")
        /// Too many attempts or requests in a short time.
        public static let tooManyRequests = Code("tooManyRequests")
        /// The phone number is not a valid E.164 number, or cannot receive codes here.
        public static let invalidPhoneNumber = Code("invalidPhoneNumber")
        /// The email address is malformed.
        public static let invalidEmail = Code("invalidEmail")
        /// The password is empty or too weak.
        public static let weakPassword = Code("weakPassword")
        /// The password is wrong.
        public static let wrongPassword = Code("wrongPassword")
        /// Another account already uses this email address.
        public static let emailAlreadyInUse = Code("emailAlreadyInUse")
        /// A first sign-in with a provider whose email address another account already
        /// uses: sign in to that account and link the provider instead.
        public static let accountExistsWithDifferentCredential = Code("accountExistsWithDifferentCredential")
        /// The provider is not configured for this service.
        public static let operationNotAllowed = Code("operationNotAllowed")
        /// The network or the provider could not be reached.
        public static let networkError = Code("networkError")
        /// The operation needs a signed-in user and there is none.
        public static let notSignedIn = Code("notSignedIn")
        /// The user cancelled (the Apple sheet, a biometric prompt).
        public static let cancelled = Code("cancelled")
        /// The device has no biometric hardware, or it is unavailable.
        public static let biometryNotAvailable = Code("biometryNotAvailable")
        /// No face or fingerprint is enrolled.
        public static let biometryNotEnrolled = Code("biometryNotEnrolled")
        /// Biometrics are locked after too many failed attempts.
        public static let biometryLockout = Code("biometryLockout")
        /// The face or fingerprint was not recognized.
        public static let biometryFailed = Code("biometryFailed")
        /// The code from an email is unknown, was already used, was replaced by a newer
        /// one, or belongs to another address or flow.
        public static let invalidActionCode = Code("invalidActionCode")
        /// The code from an email has expired; ask for a new email.
        public static let expiredActionCode = Code("expiredActionCode")
        /// The action needs a verified email address (the policy says which do).
        public static let unverifiedEmail = Code("unverifiedEmail")
        /// A display name with a control or invisible character or nothing visible, or a
        /// photo URL that is neither https with a host nor a file.
        public static let invalidProfile = Code("invalidProfile")
        /// An ID token is malformed, signed with another key or algorithm, or issued by
        /// or for someone else.
        public static let invalidUserToken = Code("invalidUserToken")
        /// An ID token has expired; the app gets a fresh one from ``AuthService/idToken(forceRefresh:)``.
        public static let userTokenExpired = Code("userTokenExpired")
        /// An ID token was revoked: its session signed out, the password changed or was
        /// reset, or the account was deleted or disabled.
        public static let userTokenRevoked = Code("userTokenRevoked")
        /// The account data on this device could not be read or written.
        public static let storage = Code("storage")

        /// The code's name.
        public var description: String { name }
    }

    /// What went wrong.
    public let code: Code
    /// A detail of this occurrence for developers and logs; never contains secrets.
    public let detail: String
    /// A user-facing sentence for this occurrence, when it says more than the code's.
    public let message: String?
    /// With ``Code/credentialAlreadyInUse`` from ``AuthService/link(_:)``: the credential,
    /// still unused, so the app can offer to switch to the account it belongs to with
    /// ``AuthService/signIn(with:)``. With ``Code/emailAlreadyInUse`` from a link of
    /// Apple or Google whose address another account has: the credential, still unused,
    /// so the app can offer to sign in to that account and link it there. Never an
    /// email-and-password credential (the app has the address and password the user
    /// typed), and never in ``description``.
    public let updatedCredential: SignInCredential?
    /// With ``Code/emailAlreadyInUse`` from ``AuthService/link(_:)``: the address another
    /// account has, to name it when offering to switch (Firebase's `AuthErrorUserInfoEmailKey`).
    public let email: String?

    /// Creates an error.
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - detail: A detail for developers; defaults to the user-facing description.
    ///   - message: A user-facing sentence for this occurrence; defaults to the code's.
    ///   - updatedCredential: The unused credential of a link refused with `credentialAlreadyInUse` or `emailAlreadyInUse`.
    ///   - email: The address of a link refused with `emailAlreadyInUse`.
    public init(
        _ code: Code, detail: String? = nil, message: String? = nil, updatedCredential: SignInCredential? = nil, email: String? = nil
    ) {
        self.code = code
        self.message = message
        self.updatedCredential = updatedCredential
        self.email = email
        self.detail = detail ?? message ?? Self.messages[code]?.description ?? code.name
    }

    /// The sentence of ``Code/requiresRecentLogin`` for a named sensitive action.
    /// - Parameter action: What the user is doing, such as "deleting your account".
    /// - Returns: "For security reasons, you need to verify your identity before …"
    public static func recentLoginMessage(before action: String) -> String {
        "For security reasons, you need to verify your identity before \(action). This only takes a moment."
    }

    private static let messages: [Code: (description: String, suggestion: String?)] = [
        .requiresRecentLogin: (recentLoginMessage(before: "deleting your account"), "Sign in again to continue."),
        .requiresAppleReauthentication: (
            "To delete your account, confirm it once more with Sign in with Apple, so that Apple can end this app's access.",
            "Tap Sign in with Apple, then delete your account."
        ),
        .userMismatch: (
            "The account you verified with is not the one that is signed in.",
            "Verify with the same account you are signed in with."
        ),
        .userNotFound: ("There is no account for these sign-in details.", "Check the details, or create an account."),
        .userDisabled: ("This account has been disabled.", "Contact support to restore it."),
        .missingOrInvalidNonce: ("The sign-in request could not be verified.", "Try signing in again."),
        .invalidCredential: ("The sign-in details are invalid or have expired.", "Try signing in again."),
        .credentialAlreadyInUse: (
            "These sign-in details already belong to another account.",
            "Sign in to that account instead, or use other details."
        ),
        .providerAlreadyLinked: ("This sign-in method is already linked to your account.", nil),
        .noSuchProvider: ("This sign-in method is not linked to your account.", nil),
        .lastProvider: (
            "This is your only way to sign in, so it cannot be removed.",
            "Add another sign-in method first."
        ),
        .invalidVerificationCode: ("The verification code is wrong.", "Check the 6-digit code in the text message and try again."),
        .invalidVerificationID: ("This verification is no longer valid.", "Request a new code."),
        .sessionExpired: ("The verification code has expired.", "Request a new code."),
        .tooManyRequests: ("Too many attempts. Please wait a moment.", "Try again later."),
        .invalidPhoneNumber: ("The phone number is not valid.", "Enter the number with its country code, such as +1 650 555 1234."),
        .invalidEmail: ("The email address is not valid.", "Check the address and try again."),
        .weakPassword: ("The password is too weak.", "Use at least 8 characters, mixing letters and digits."),
        .wrongPassword: ("The password is wrong.", "Try again, or reset your password."),
        .emailAlreadyInUse: ("Another account already uses this email address.", "Sign in to that account instead."),
        .accountExistsWithDifferentCredential: (
            "An account with this email address already exists, with another way to sign in.",
            "Sign in the way you did before, then add this sign-in method in your account settings."
        ),
        .operationNotAllowed: ("This sign-in method is not available.", "Choose another way to sign in."),
        .networkError: ("The network could not be reached.", "Check your connection and try again."),
        .notSignedIn: ("You are not signed in.", "Sign in to continue."),
        .cancelled: ("The request was cancelled.", nil),
        .biometryNotAvailable: ("Face ID or Touch ID is not available on this device.", "You can keep using your passcode."),
        .biometryNotEnrolled: ("No face or fingerprint is set up on this device.", "Set up Face ID or Touch ID in Settings."),
        .biometryLockout: ("Biometric authentication is locked after too many attempts.", "Unlock your device with its passcode, then try again."),
        .biometryFailed: ("Your face or fingerprint was not recognized.", "Try again."),
        .invalidActionCode: (
            "This code is not valid. It may have been used already, or a newer email replaced it.", "Ask for a new email and use the code in it."
        ),
        .expiredActionCode: ("This code has expired.", "Ask for a new email and use the code in it."),
        .unverifiedEmail: ("Please verify your email address first.", "Open the verification email we sent you, or ask for a new one."),
        .invalidProfile: ("This name or photo cannot be used.", "Use a name with visible characters, and a photo from your library."),
        .invalidUserToken: ("Your sign-in could not be verified.", "Sign in again."),
        .userTokenExpired: ("Your sign-in has expired.", "Try again; the app renews it."),
        .userTokenRevoked: ("Your sign-in is no longer valid.", "Sign in again."),
        .storage: ("Your account data on this device could not be read or saved.", "Restart the app. If this keeps happening, contact support."),
    ]
}

extension AuthenticationError {
    /// Two errors are equal when their codes are, whatever their detail and message, so a test
    /// can write `#expect(throws: AuthenticationError(.someCode))` against a real service.
    /// - Parameters:
    ///   - lhs: An error.
    ///   - rhs: Another error.
    /// - Returns: Whether both have the same code.
    public static func == (lhs: AuthenticationError, rhs: AuthenticationError) -> Bool {
        lhs.code == rhs.code
    }

    /// Hashes the code only, consistent with ``==(_:_:)``.
    /// - Parameter hasher: The hasher.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
    }
}

extension AuthenticationError: LocalizedError {
    /// A user-facing sentence: this occurrence's ``message``, or the code's.
    public var errorDescription: String? { message ?? Self.messages[code]?.description ?? detail }
    /// What the user can do about it.
    public var recoverySuggestion: String? { Self.messages[code]?.suggestion ?? nil }
}

extension AuthenticationError: CustomStringConvertible {
    /// The code and the developer detail, for logs.
    public var description: String { "AuthenticationError.\(code): \(detail)" }
}
