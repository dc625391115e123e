import Foundation
import TrainCore

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
public struct AuthenticationError: TrainError {
    /// What went wrong; new codes can be added without breaking callers.
    public typealias Code = TrainErrorCode<AuthenticationError>

    /// What went wrong.
    public let code: Code
    /// A detail of this occurrence for developers and logs; never contains secrets.
    public let detail: String
    /// A user-facing sentence for this occurrence, when it says more than the code's.
    public let message: String?
    /// With ``TrainCore/TrainErrorCode/credentialAlreadyInUse`` from ``AuthAccountManagement/link(_:)``: the credential,
    /// still unused, so the app can offer to switch to the account it belongs to with
    /// ``AuthSignIn/signIn(with:)``. With ``TrainCore/TrainErrorCode/emailAlreadyInUse`` from a link of
    /// Apple or Google whose address another account has: the credential, still unused,
    /// so the app can offer to sign in to that account and link it there. Never an
    /// email-and-password credential (the app has the address and password the user
    /// typed), and never in ``description``.
    public let updatedCredential: SignInCredential?
    /// With ``TrainCore/TrainErrorCode/emailAlreadyInUse`` from ``AuthAccountManagement/link(_:)``: the address another
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
        self.detail = detail ?? message ?? code.message
    }

    /// The sentence of ``TrainCore/TrainErrorCode/requiresRecentLogin`` for a named sensitive action.
    /// - Parameter action: What the user is doing, such as "deleting your account".
    /// - Returns: "For security reasons, you need to verify your identity before …"
    public static func recentLoginMessage(before action: String) -> String {
        "For security reasons, you need to verify your identity before \(action). This only takes a moment."
    }

    /// A user-facing sentence: this occurrence's ``message``, or the code's.
    public var errorDescription: String? { message ?? code.message }
}

/// The codes of ``AuthenticationError``.
extension TrainErrorCode where Failure == AuthenticationError {
    /// The operation is sensitive and the last sign-in is too old.
    public static var requiresRecentLogin: Self {
        Self(
            "requiresRecentLogin", message: AuthenticationError.recentLoginMessage(before: "deleting your account"),
            recoverySuggestion: "Sign in again to continue.")
    }
    /// Deleting an account with Sign in with Apple needs a fresh Apple authorization
    /// (Apple requires the app to revoke its tokens, which takes a code under five
    /// minutes old): re-authenticate with Apple, then delete.
    public static var requiresAppleReauthentication: Self {
        Self(
            "requiresAppleReauthentication",
            message: "To delete your account, confirm it once more with Sign in with Apple, so that Apple can end this app's access.",
            recoverySuggestion: "Tap Sign in with Apple, then delete your account.")
    }
    /// The credential belongs to another user than the one signed in, or another
    /// user signed in while the operation was waiting.
    public static var userMismatch: Self {
        Self(
            "userMismatch", message: "The account you verified with is not the one that is signed in.",
            recoverySuggestion: "Verify with the same account you are signed in with.")
    }
    /// No account matches the credential.
    public static var userNotFound: Self {
        Self(
            "userNotFound", message: "There is no account for these sign-in details.", recoverySuggestion: "Check the details, or create an account.")
    }
    /// The account exists but is disabled.
    public static var userDisabled: Self {
        Self("userDisabled", message: "This account has been disabled.", recoverySuggestion: "Contact support to restore it.")
    }
    /// The identity token's nonce is missing or is not the SHA-256 of the raw nonce, or the nonce was used before.
    public static var missingOrInvalidNonce: Self {
        Self("missingOrInvalidNonce", message: "The sign-in request could not be verified.", recoverySuggestion: "Try signing in again.")
    }
    /// The credential is malformed, expired, for another app, or was used before.
    public static var invalidCredential: Self {
        Self("invalidCredential", message: "The sign-in details are invalid or have expired.", recoverySuggestion: "Try signing in again.")
    }
    /// The credential is already linked to another account.
    public static var credentialAlreadyInUse: Self {
        Self(
            "credentialAlreadyInUse", message: "These sign-in details already belong to another account.",
            recoverySuggestion: "Sign in to that account instead, or use other details.")
    }
    /// This provider is already linked to the account.
    public static var providerAlreadyLinked: Self { Self("providerAlreadyLinked", message: "This sign-in method is already linked to your account.") }
    /// The provider is not linked to the account (Firebase's `noSuchProvider`).
    public static var noSuchProvider: Self { Self("noSuchProvider", message: "This sign-in method is not linked to your account.") }
    /// The provider is the account's last way to sign in and cannot be unlinked.
    public static var lastProvider: Self {
        Self(
            "lastProvider", message: "This is your only way to sign in, so it cannot be removed.",
            recoverySuggestion: "Add another sign-in method first.")
    }
    /// The SMS code is wrong or not six digits.
    public static var invalidVerificationCode: Self {
        Self(
            "invalidVerificationCode", message: "The verification code is wrong.",
            recoverySuggestion: "Check the 6-digit code in the text message and try again.")
    }
    /// The verification ID is unknown or was already used.
    public static var invalidVerificationID: Self {
        Self("invalidVerificationID", message: "This verification is no longer valid.", recoverySuggestion: "Request a new code.")
    }
    /// The SMS code expired; request a new one.
    public static var sessionExpired: Self {
        Self("sessionExpired", message: "The verification code has expired.", recoverySuggestion: "Request a new code.")
    }
    /// Too many attempts or requests in a short time.
    public static var tooManyRequests: Self {
        Self("tooManyRequests", message: "Too many attempts. Please wait a moment.", recoverySuggestion: "Try again later.")
    }
    /// The phone number is not a valid E.164 number, or cannot receive codes here.
    public static var invalidPhoneNumber: Self {
        Self(
            "invalidPhoneNumber", message: "The phone number is not valid.",
            recoverySuggestion: "Enter the number with its country code, such as +1 650 555 1234.")
    }
    /// The email address is malformed.
    public static var invalidEmail: Self {
        Self("invalidEmail", message: "The email address is not valid.", recoverySuggestion: "Check the address and try again.")
    }
    /// The password is empty or too weak.
    public static var weakPassword: Self {
        Self("weakPassword", message: "The password is too weak.", recoverySuggestion: "Use at least 8 characters, mixing letters and digits.")
    }
    /// The password is wrong.
    public static var wrongPassword: Self {
        Self("wrongPassword", message: "The password is wrong.", recoverySuggestion: "Try again, or reset your password.")
    }
    /// Another account already uses this email address.
    public static var emailAlreadyInUse: Self {
        Self("emailAlreadyInUse", message: "Another account already uses this email address.", recoverySuggestion: "Sign in to that account instead.")
    }
    /// A first sign-in with a provider whose email address another account already
    /// uses: sign in to that account and link the provider instead.
    public static var accountExistsWithDifferentCredential: Self {
        Self(
            "accountExistsWithDifferentCredential", message: "An account with this email address already exists, with another way to sign in.",
            recoverySuggestion: "Sign in the way you did before, then add this sign-in method in your account settings.")
    }
    /// The provider is not configured for this service.
    public static var operationNotAllowed: Self {
        Self("operationNotAllowed", message: "This sign-in method is not available.", recoverySuggestion: "Choose another way to sign in.")
    }
    /// The network or the provider could not be reached.
    public static var networkError: Self {
        Self("networkError", message: "The network could not be reached.", recoverySuggestion: "Check your connection and try again.")
    }
    /// The operation needs a signed-in user and there is none.
    public static var notSignedIn: Self { Self("notSignedIn", message: "You are not signed in.", recoverySuggestion: "Sign in to continue.") }
    /// The user cancelled (the Apple sheet, a biometric prompt).
    public static var cancelled: Self { Self("cancelled", message: "The request was cancelled.") }
    /// The device has no biometric hardware, or it is unavailable.
    public static var biometryNotAvailable: Self {
        Self(
            "biometryNotAvailable", message: "Face ID or Touch ID is not available on this device.",
            recoverySuggestion: "You can keep using your passcode.")
    }
    /// No face or fingerprint is enrolled.
    public static var biometryNotEnrolled: Self {
        Self(
            "biometryNotEnrolled", message: "No face or fingerprint is set up on this device.",
            recoverySuggestion: "Set up Face ID or Touch ID in Settings.")
    }
    /// Biometrics are locked after too many failed attempts.
    public static var biometryLockout: Self {
        Self(
            "biometryLockout", message: "Biometric authentication is locked after too many attempts.",
            recoverySuggestion: "Unlock your device with its passcode, then try again.")
    }
    /// The face or fingerprint was not recognized.
    public static var biometryFailed: Self {
        Self("biometryFailed", message: "Your face or fingerprint was not recognized.", recoverySuggestion: "Try again.")
    }
    /// The code from an email is unknown, was already used, was replaced by a newer
    /// one, or belongs to another address or flow.
    public static var invalidActionCode: Self {
        Self(
            "invalidActionCode", message: "This code is not valid. It may have been used already, or a newer email replaced it.",
            recoverySuggestion: "Ask for a new email and use the code in it.")
    }
    /// The code from an email has expired; ask for a new email.
    public static var expiredActionCode: Self {
        Self("expiredActionCode", message: "This code has expired.", recoverySuggestion: "Ask for a new email and use the code in it.")
    }
    /// The action needs a verified email address (the policy says which do).
    public static var unverifiedEmail: Self {
        Self(
            "unverifiedEmail", message: "Please verify your email address first.",
            recoverySuggestion: "Open the verification email we sent you, or ask for a new one.")
    }
    /// A display name with a control or invisible character or nothing visible, or a
    /// photo URL that is neither https with a host nor a file.
    public static var invalidProfile: Self {
        Self(
            "invalidProfile", message: "This name or photo cannot be used.",
            recoverySuggestion: "Use a name with visible characters, and a photo from your library.")
    }
    /// An ID token is malformed, signed with another key or algorithm, or issued by
    /// or for someone else.
    public static var invalidUserToken: Self {
        Self("invalidUserToken", message: "Your sign-in could not be verified.", recoverySuggestion: "Sign in again.")
    }
    /// An ID token has expired; the app gets a fresh one from ``AuthTokens/idToken(forceRefresh:)``.
    public static var userTokenExpired: Self {
        Self("userTokenExpired", message: "Your sign-in has expired.", recoverySuggestion: "Try again; the app renews it.")
    }
    /// An ID token was revoked: its session signed out, the password changed or was
    /// reset, or the account was deleted or disabled.
    public static var userTokenRevoked: Self {
        Self("userTokenRevoked", message: "Your sign-in is no longer valid.", recoverySuggestion: "Sign in again.")
    }
    /// The account data on this device could not be read or written.
    public static var storage: Self {
        Self(
            "storage", message: "Your account data on this device could not be read or saved.",
            recoverySuggestion: "Restart the app. If this keeps happening, contact support.")
    }
}
