import Foundation

/// The account sign-in service (SPEC §2): seed 004's surface — sign in with Apple,
/// sign out, current user, delete account — plus Google, email and phone sign-in,
/// re-authentication, linking, the auth-state stream and the biometric lock.
///
/// TrainKit's conformance is ``LocalAuthService`` (in memory or file-backed);
/// `FakeAuthService` in TrainTesting is a scriptable double; an app can add its
/// own, for instance on Firebase, and check it with `AuthServiceContract`.
///
/// ```swift
/// func signInTapped(auth: any AuthService) async {
///     do {
///         let user = try await auth.signInWithApple()
///         print("Welcome, \(user.displayName ?? "friend")")
///     } catch let error as AuthError where error.code == .cancelled {
///         // The user closed the sheet: nothing to show.
///     } catch {
///         print(error.localizedDescription)
///     }
/// }
/// ```
public protocol AuthService: Sendable {
    /// The signed-in user, or nil (seed: `getCurrentUser()`).
    var currentUser: UserEntity? { get }

    /// The signed-in user now and after every change of user (AUTH-5): the current
    /// value first, then one value per sign-in of another user, and `nil` once per
    /// sign-out or deletion. Profile updates and re-authentication emit nothing.
    /// - Returns: A stream; cancelling its consumer unsubscribes it.
    func authStateChanges() -> AsyncStream<UserEntity?>

    /// Signs in with Apple through the configured authorizer (AUTH-1).
    /// - Returns: The signed-in user.
    /// - Throws: ``AuthError``.
    func signInWithApple() async throws -> UserEntity

    /// Signs in with Google through the configured authorizer (AUTH-3).
    /// - Returns: The signed-in user.
    /// - Throws: ``AuthError``.
    func signInWithGoogle() async throws -> UserEntity

    /// Runs a provider's sign-in sheet and returns the credential without signing in,
    /// for ``reauthenticate(with:)`` and ``link(_:)``.
    /// - Parameter provider: `.apple` or `.google`.
    /// - Returns: A credential carrying a fresh nonce.
    /// - Throws: ``AuthError/Code/operationNotAllowed`` for an unconfigured provider.
    func requestCredential(from provider: AuthProvider) async throws -> AuthCredential

    /// Signs in with a credential, creating the account on a first Apple, Google or phone sign-in.
    /// - Parameter credential: The credential.
    /// - Returns: The signed-in user.
    /// - Throws: ``AuthError``.
    func signIn(with credential: AuthCredential) async throws -> UserEntity

    /// Creates an email-and-password account and signs it in.
    /// - Parameters:
    ///   - email: The email address.
    ///   - password: The password.
    /// - Returns: The new user.
    /// - Throws: ``AuthError`` — `invalidEmail`, `weakPassword`, `emailAlreadyInUse`.
    func createUser(email: String, password: String) async throws -> UserEntity

    /// Sends a 6-digit code to a phone number (AUTH-3).
    /// - Parameter phoneNumber: The number with its country code.
    /// - Returns: The verification ID to pass back with the code.
    /// - Throws: ``AuthError`` — `invalidPhoneNumber`, `tooManyRequests`.
    func sendVerificationCode(to phoneNumber: String) async throws -> String

    /// Proves again that the signed-in user is present, resetting the recent-login window (AUTH-4).
    /// - Parameter credential: A credential of the signed-in user.
    /// - Returns: The user, with a new `lastSignInAt`.
    /// - Throws: ``AuthError/Code/userMismatch`` for another user's credential (the
    ///   current user stays signed in).
    func reauthenticate(with credential: AuthCredential) async throws -> UserEntity

    /// Links another provider to the signed-in account.
    /// - Parameter credential: The new provider's credential.
    /// - Returns: The updated user.
    /// - Throws: ``AuthError`` — `providerAlreadyLinked`, `credentialAlreadyInUse`.
    func link(_ credential: AuthCredential) async throws -> UserEntity

    /// Unlinks a provider; needs a recent login, and never removes the last one.
    /// - Parameter provider: The provider.
    /// - Returns: The updated user.
    /// - Throws: ``AuthError`` — `requiresRecentLogin`, `noSuchProvider`, `lastProvider`.
    func unlink(_ provider: AuthProvider) async throws -> UserEntity

    /// Changes the account's email address; needs a recent login.
    /// - Parameter email: The new address.
    /// - Returns: The updated user.
    /// - Throws: ``AuthError`` — `invalidEmail`, `requiresRecentLogin`, `emailAlreadyInUse`.
    func updateEmail(to email: String) async throws -> UserEntity

    /// Asks Apple whether the signed-in user still authorizes the app; `revoked`
    /// and `notFound` sign the user out (AUTH-6).
    /// - Returns: The state.
    /// - Throws: ``AuthError`` — `notSignedIn`, `noSuchProvider`, `networkError`.
    func checkCredentialState() async throws -> CredentialState

    /// Signs out. Local session state is cleared first; no network is needed (AUTH-7).
    /// - Throws: ``AuthError/Code/storage`` only if the device's storage fails.
    func signOut() async throws

    /// Deletes the signed-in account; needs a recent login (AUTH-4). Apple tokens are
    /// revoked first; a revocation failure is reported, not fatal.
    /// - Returns: What was done.
    /// - Throws: ``AuthError`` — `notSignedIn`, `requiresRecentLogin`.
    func deleteAccount() async throws -> AccountDeletionReceipt

    /// Whether the signed-in user turned on the biometric app lock. Unavailable
    /// hardware turns it off (AUTH-10).
    /// - Returns: The setting.
    /// - Throws: ``AuthError/Code/notSignedIn``.
    func isBiometricLockEnabled() async throws -> Bool

    /// Turns the biometric app lock on (after a successful evaluation) or off.
    /// - Parameters:
    ///   - enabled: The new setting.
    ///   - reason: Why, shown in the biometric prompt when enabling.
    /// - Throws: ``AuthError`` — the evaluation's error; the setting is unchanged.
    func setBiometricLock(enabled: Bool, reason: String) async throws
}
