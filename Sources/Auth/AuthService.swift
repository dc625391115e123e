import Foundation

/// Who is signed in, every change of it, and signing out: what nearly every screen reads.
///
/// A capability of ``AuthService``; a view model that only shows who is signed in can
/// depend on this protocol alone.
public protocol AuthSession: Sendable {
    /// The signed-in user, or nil.
    var currentUser: UserEntity? { get }

    /// The signed-in user now and after every change of user: the current value first,
    /// then one value per sign-in of another user, and `nil` once per sign-out or
    /// deletion. Profile updates and re-authentication emit nothing.
    /// - Returns: A stream; cancelling its consumer unsubscribes it.
    func authStateChanges() -> AsyncStream<UserEntity?>

    /// The signed-in user now and after every change to it: what
    /// ``authStateChanges()`` emits, and also each change of the same user's profile,
    /// email, sign-in methods or verification — what a settings screen or a profile
    /// shown to others follows.
    /// - Returns: A stream; cancelling its consumer unsubscribes it.
    func userChanges() -> AsyncStream<UserEntity?>

    /// Signs out. The session is cleared on this device first; no network is needed.
    /// - Throws: ``TrainCore/TrainErrorCode/storage`` only if the device's storage fails; the user
    ///   is signed out in memory all the same.
    func signOut() async throws

    /// How this service's last session ended, and why: the user signed out, or the
    /// account was deleted, disabled or revoked — on this device or another, in this
    /// launch or before it. Nil when no session has ended on this device yet.
    var lastSessionEnd: SessionEnd? { get }
}

/// Signing in and proving it again: Apple, Google, email and password, phone, a guest,
/// and re-authentication before a sensitive action.
///
/// A capability of ``AuthService``.
public protocol AuthSignIn: Sendable {
    /// Signs in with Apple through the configured authorizer, creating the account on
    /// the first sign-in.
    /// - Returns: The signed-in user.
    /// - Throws: ``AuthenticationError`` — `cancelled` if the user closed the sheet,
    ///   `accountExistsWithDifferentCredential` when a first sign-in's email belongs to
    ///   another account, `operationNotAllowed` if Apple is not configured, `networkError`.
    func signInWithApple() async throws -> UserEntity

    /// Signs in with Google through the configured authorizer, creating the account on
    /// the first sign-in.
    /// - Returns: The signed-in user.
    /// - Throws: ``AuthenticationError``, as ``signInWithApple()``.
    func signInWithGoogle() async throws -> UserEntity

    /// Runs a provider's sign-in sheet and returns the credential without signing in,
    /// for ``reauthenticate(with:)`` and ``AuthAccountManagement/link(_:)``.
    /// - Parameter provider: `.apple` or `.google`.
    /// - Returns: A credential carrying a fresh nonce.
    /// - Throws: ``TrainCore/TrainErrorCode/operationNotAllowed`` for an unconfigured provider,
    ///   `cancelled`, `networkError`.
    func requestCredential(from provider: AuthProvider) async throws -> SignInCredential

    /// Signs in with a credential, creating the account on a first Apple, Google or phone sign-in.
    /// - Parameter credential: The credential.
    /// - Returns: The signed-in user.
    /// - Throws: ``AuthenticationError`` — `wrongPassword`, `userNotFound`, `userDisabled`,
    ///   `invalidCredential`, `missingOrInvalidNonce`, `invalidVerificationCode`,
    ///   `tooManyRequests`, `accountExistsWithDifferentCredential`; for a password, while
    ///   the policy protects against enumeration, `invalidCredential` for an unknown
    ///   address and a wrong password alike; for an email code, `invalidActionCode`,
    ///   `expiredActionCode`, `invalidVerificationCode`, `tooManyRequests`.
    func signIn(with credential: SignInCredential) async throws -> UserEntity

    /// Creates an email-and-password account and signs it in.
    /// - Parameters:
    ///   - email: The email address.
    ///   - password: The password.
    /// - Returns: The new user.
    /// - Throws: ``AuthenticationError`` — `invalidEmail`, `weakPassword`, `emailAlreadyInUse`.
    func createUser(email: String, password: String) async throws -> UserEntity

    /// Sends a 6-digit code to a phone number. A new code replaces the number's
    /// earlier ones, and wrong codes count per number across its verifications.
    /// - Parameter phoneNumber: The number with its country code.
    /// - Returns: The verification ID to pass back with the code.
    /// - Throws: ``AuthenticationError`` — `invalidPhoneNumber`, `tooManyRequests` (the resend
    ///   cooldown, or a number blocked after too many wrong codes), `networkError`.
    func sendVerificationCode(to phoneNumber: String) async throws -> String

    /// Proves again that the signed-in user is present, resetting the recent-login
    /// window. Re-authenticating with Apple also gives the code that deleting an Apple
    /// account needs.
    /// - Parameter credential: A credential of the signed-in user.
    /// - Returns: The user, with a new `lastSignInAt`.
    /// - Throws: ``TrainCore/TrainErrorCode/userMismatch`` for another user's credential (the
    ///   current user stays signed in), and the errors of ``AuthSignIn/signIn(with:)``.
    @discardableResult
    func reauthenticate(with credential: SignInCredential) async throws -> UserEntity

    /// Asks Apple whether the signed-in user still authorizes the app; `revoked`
    /// and `notFound` sign the user out.
    /// - Returns: The state.
    /// - Throws: ``AuthenticationError`` — `notSignedIn`, `operationNotAllowed`, `noSuchProvider`, `networkError`.
    func checkCredentialState() async throws -> CredentialState

    /// Signs in as a guest, for an app that lets people in before they make an account:
    /// the signed-in guest if there is one, else a new account with no providers
    /// (``UserEntity/isAnonymous``). Linking a provider with ``AuthAccountManagement/link(_:)`` makes it a
    /// full account with the same ID, so everything kept under that ID stays. A guest
    /// unused for the policy's idle lifetime — a launch that restores its session, this
    /// call and a new ID token count as use — is listed by ``AuthAdministration/scheduledDeletions()`` and
    /// purged as a scheduled deletion is.
    /// - Returns: The guest.
    /// - Throws: ``TrainCore/TrainErrorCode/storage``.
    func signInAnonymously() async throws -> UserEntity
}

/// The flows that go through a mailbox: password reset, address verification, sign-in
/// codes, address changes and their recovery.
///
/// A capability of ``AuthService``.
public protocol AuthEmailFlows: Sendable {
    /// Mails a password reset code when the address belongs to an account. The answer is
    /// the same whether it does or not (no email is sent then), as in Firebase's email
    /// enumeration protection.
    /// - Parameter email: The address.
    /// - Throws: ``AuthenticationError`` — `invalidEmail`, `tooManyRequests` (the address's
    ///   hourly limit, counted whether or not it has an account), `operationNotAllowed`
    ///   without an email sender, `networkError`.
    func sendPasswordReset(email: String) async throws

    /// Sets a new password with a reset code: the code is used up, the address counts as
    /// verified, the account's other sessions end and its ID tokens are revoked. Nobody
    /// is signed in by it.
    /// - Parameters:
    ///   - code: The code from the email.
    ///   - newPassword: The new password.
    /// - Throws: ``AuthenticationError`` — `weakPassword`, `invalidActionCode` (unknown,
    ///   used, replaced, of another flow, or its account no longer has the address),
    ///   `expiredActionCode`, `userDisabled`. Nothing changes then.
    func confirmPasswordReset(code: String, newPassword: String) async throws

    /// Mails a verification code to the signed-in user's email address.
    /// - Throws: ``AuthenticationError`` — `notSignedIn`, `invalidEmail` (no address),
    ///   `tooManyRequests`, `operationNotAllowed`, `networkError`.
    func sendEmailVerification() async throws

    /// Marks an address verified with the code mailed to it; the code is used up.
    /// - Parameter code: The code from the email.
    /// - Throws: ``AuthenticationError`` — `invalidActionCode` (also when the account's
    ///   address changed since), `expiredActionCode`, `userDisabled`.
    func verifyEmail(code: String) async throws

    /// Tells what a mailed code is for, its address, and whether it would work now —
    /// valid, expired, used or revoked — without using it (Firebase's `checkActionCode`
    /// and `verifyPasswordResetCode`). Used and expired stay apart across relaunches
    /// for a week past the code's expiry.
    /// - Parameters:
    ///   - code: A long code from an email, or a six-digit sign-in code.
    ///   - email: For a six-digit sign-in code, the address it was mailed to; a wrong
    ///     one counts as a wrong try at the code pending there. Ignored for a long code.
    /// - Returns: What the code is.
    /// - Throws: ``AuthenticationError`` — `invalidActionCode` for a code that was never
    ///   mailed, or whose record is past its retention; for a six-digit code as
    ///   ``AuthSignIn/signIn(with:)`` would: `invalidVerificationCode`, `tooManyRequests`.
    func checkActionCode(_ code: String, email: String?) async throws -> EmailCodeInspection

    /// Applies a code that needs nothing more (Firebase's `applyActionCode`): an email
    /// verification marks the address verified; a recovery notice changes the account's
    /// email back to the address it left, verified, removes the sign-in methods added
    /// since, ends every session of the account, and ends the notices of later changes
    /// (the app should then offer a password reset); a verify-before-change code makes
    /// its address the account's email, mailing the old one a recovery notice. An
    /// account that holds the address without having proved it gives it up.
    /// - Parameter code: The long code from the email.
    /// - Returns: What the code was, as used.
    /// - Throws: ``AuthenticationError`` — `invalidActionCode` (unknown, used, replaced,
    ///   a password reset's, or its account changed so it no longer applies),
    ///   `expiredActionCode`, `emailAlreadyInUse` with the address another account took
    ///   meanwhile, `userDisabled`, `networkError` for a notice that could not be sent.
    ///   Nothing changes then.
    func applyActionCode(_ code: String) async throws -> EmailCodeInspection

    /// Mails `email` a code that makes it the signed-in account's email once applied
    /// with ``AuthEmailFlows/applyActionCode(_:)`` (Firebase's `verifyBeforeUpdateEmail`); until then
    /// nothing changes. Needs a recent login. While the policy protects against
    /// enumeration, an address another account uses is answered alike and sent nothing.
    /// - Parameter email: The new address.
    /// - Throws: ``AuthenticationError`` — `notSignedIn`, `requiresRecentLogin`,
    ///   `invalidEmail`, `emailAlreadyInUse` with the address (only when the policy does
    ///   not protect against enumeration), `tooManyRequests`, `operationNotAllowed`
    ///   without an email sender, `networkError`.
    func verifyBeforeUpdateEmail(to email: String) async throws

    /// Mails a 6-digit sign-in code to an address, for ``AuthSignIn/signIn(with:)`` with
    /// ``SignInCredential/emailCode(email:code:)``. Any well-formed address gets one:
    /// signing in with it creates the account if the address has none. A new code
    /// replaces the earlier one, and a code allows the policy's number of wrong tries.
    /// - Parameter email: The address.
    /// - Throws: ``AuthenticationError`` — `invalidEmail`, `tooManyRequests`,
    ///   `operationNotAllowed`, `networkError`.
    func sendSignInCode(to email: String) async throws

    /// Throws unless the policy lets the signed-in user do `action`. The app calls it
    /// before the action. TrainSocial checks `posting` before a post or a comment, and
    /// TrainAccount's session manager `purchasing` before a purchase.
    /// - Parameter action: The action.
    /// - Throws: ``AuthenticationError`` — `unverifiedEmail` when the policy requires a
    ///   verified address for it and the user has none, `notSignedIn`, `storage`.
    func requireVerifiedEmail(for action: VerifiedEmailAction) throws
}

/// The signed-in user's ID token, as a backend asks for it.
///
/// A capability of ``AuthService``.
public protocol AuthTokens: Sendable {
    /// An ID token for the app's backend: a JWT signed with HS256 carrying the user ID,
    /// providers, auth time, issue time and a one-hour expiry. The token is kept and
    /// given again while more than five minutes are left; then, or when its claims
    /// change (a provider linked, the address changed or verified, a new sign-in), a
    /// new one replaces it, by itself on the service's clock, which ``idTokenChanges()`` tells.
    /// - Parameter forceRefresh: Whether to issue a new token even if the kept one is fresh.
    /// - Returns: The compact JWT.
    /// - Throws: ``AuthenticationError`` — `notSignedIn`, `storage`.
    func idToken(forceRefresh: Bool) async throws -> String

    /// Each new ID token of this device's session, and nil when the session ends or
    /// another user signs in: nil first, until a token is asked for.
    /// - Returns: A stream; cancelling its consumer unsubscribes it.
    func idTokenChanges() -> AsyncStream<String?>
}

/// The signed-in user's account: its sign-in methods, address, password, profile,
/// biometric lock, and its deletion.
///
/// A capability of ``AuthService``.
public protocol AuthAccountManagement: Sendable {
    /// Links another provider to the signed-in account. An email code for another
    /// address than the account's proves it: it becomes the account's email, verified,
    /// the password signs in with it, and the address left is mailed a recovery notice;
    /// as any address change, that needs a recent login.
    /// - Parameter credential: The new provider's credential.
    /// - Returns: The updated user.
    /// - Throws: ``AuthenticationError`` — `notSignedIn`, `providerAlreadyLinked`,
    ///   `requiresRecentLogin` (an email code that would change the address),
    ///   `credentialAlreadyInUse` (another account has the Apple, Google or phone
    ///   credential: its ``AuthenticationError/updatedCredential`` signs in to that
    ///   account), `emailAlreadyInUse` with ``AuthenticationError/email`` (another account
    ///   holds the address of an email credential, or of the provider's email; an email
    ///   code comes back unused as the updated credential), `weakPassword`.
    func link(_ credential: SignInCredential) async throws -> UserEntity

    /// Unlinks a provider; needs a recent login, and never removes the last one.
    /// - Parameter provider: The provider.
    /// - Returns: The updated user.
    /// - Throws: ``AuthenticationError`` — `notSignedIn`, `requiresRecentLogin`, `noSuchProvider`, `lastProvider`.
    func unlink(_ provider: AuthProvider) async throws -> UserEntity

    /// Changes the account's email address at once, unverified; needs a recent login.
    /// The address left is first mailed a ``AuthEmail/Kind/recoverEmail`` notice whose
    /// code, given to ``AuthEmailFlows/applyActionCode(_:)``, changes it back; every other code mailed
    /// for the account ends.
    /// - Parameter email: The new address.
    /// - Returns: The updated user.
    /// - Throws: ``AuthenticationError`` — `invalidEmail`, `notSignedIn`, `requiresRecentLogin`,
    ///   `emailAlreadyInUse` with the address (another account uses it, whatever its
    ///   providers), `networkError` when the notice cannot be sent (nothing changes then).
    func updateEmail(to email: String) async throws -> UserEntity

    /// The first step of deleting an account whose data other services keep too: checks
    /// the recent login, whatever the providers, and revokes an Apple account's tokens,
    /// as Apple requires before an account is deleted. Revocation needs a fresh Apple
    /// authorization, so without one this asks for re-authentication with Apple and
    /// changes nothing. The outcome is kept with the account: a later ``AuthAccountManagement/deleteAccount()``
    /// does not ask Apple again, also after a relaunch, unless the user has authorized
    /// Apple since (a sign-in, re-authentication or link with Apple forgets it).
    /// - Returns: The outcome; `notApplicable` without Sign in with Apple, and
    ///   `failed` when Apple's end failed (the deletion goes on and reports it).
    /// - Throws: ``AuthenticationError`` — `notSignedIn`, `requiresRecentLogin`,
    ///   `requiresAppleReauthentication`, `userMismatch`, `storage`.
    func revokeAppleToken() async throws -> AccountDeletionReceipt.TokenRevocation

    /// Deletes the signed-in account; needs a recent login. An Apple account's tokens
    /// are revoked first, as Apple requires; that needs a fresh Apple authorization,
    /// so without one the deletion asks for re-authentication with Apple and changes
    /// nothing. A revocation that fails at Apple's end is reported in the receipt.
    /// - Returns: What was done.
    /// - Throws: ``AuthenticationError`` — `notSignedIn`, `requiresRecentLogin`,
    ///   `requiresAppleReauthentication`, `userMismatch` (another user signed in while
    ///   Apple was asked), `storage`.
    @discardableResult
    func deleteAccount() async throws -> AccountDeletionReceipt

    /// Whether the signed-in user turned on the biometric app lock. Only hardware that
    /// is absent turns it off; a lockout or a face no longer enrolled keeps it on (the
    /// app falls back to the device passcode).
    /// - Returns: The setting.
    /// - Throws: ``TrainCore/TrainErrorCode/notSignedIn``.
    func isBiometricLockEnabled() async throws -> Bool

    /// Changes the signed-in user's password; needs a recent login. The account's other
    /// sessions end and every ID token issued before is revoked; this device stays
    /// signed in. An account without a password gets one for its email address.
    /// - Parameter newPassword: The new password.
    /// - Throws: ``AuthenticationError`` — `notSignedIn`, `requiresRecentLogin`,
    ///   `weakPassword`, `invalidEmail` (no address to sign in with), `emailAlreadyInUse`.
    func updatePassword(to newPassword: String) async throws

    /// Sets the display name and photo of `userID`, who must be the signed-in user, as
    /// given; nil removes one, and ``AuthSession/userChanges()`` tells the change. Naming the user
    /// keeps a change the app started for one user from landing on another who signed
    /// in meanwhile. The social profile takes both at the user's next write there or at
    /// TrainSocial's `refreshProfile()`; TrainAccount's
    /// `UserSessionManager.updateProfile(displayName:photo:)` keeps the photo in the
    /// media store and refreshes the profile.
    /// - Parameters:
    ///   - userID: The user the change is for.
    ///   - displayName: The name, cleaned as names shown to others are; blank removes it.
    ///   - photoURL: The photo, an https URL with a host (as a media store gives) or a file URL.
    /// - Returns: The updated user.
    /// - Throws: ``AuthenticationError`` — `invalidProfile`, `notSignedIn`, `userMismatch`
    ///   when another user is signed in; nothing is changed then.
    func updateProfile(of userID: String, displayName: String?, photoURL: URL?) async throws -> UserEntity

    /// Turns the biometric app lock on (after a successful evaluation) or off.
    /// - Parameters:
    ///   - enabled: The new setting.
    ///   - reason: Why, shown in the biometric prompt when enabling.
    /// - Throws: ``AuthenticationError`` — the evaluation's error, or `userMismatch` if another
    ///   user signed in during the prompt; the setting is then unchanged.
    func setBiometricLock(enabled: Bool, reason: String) async throws
}

/// Scheduled deletions and the purge that ends them: what the account service and a
/// backend run, whoever is signed in.
///
/// A capability of ``AuthService`` that no view model needs.
public protocol AuthAdministration: Sendable {
    /// Schedules the signed-in account's deletion for `date` — an app passes now plus
    /// a grace period, or now to delete at once — and signs the user out; needs a
    /// recent login. `userID` names the user the caller means, so a user who signed in
    /// meanwhile is never scheduled. An Apple account's tokens are revoked now, as for
    /// ``AuthAccountManagement/deleteAccount()``, since the purge runs without the user. Until `date` the
    /// user can sign in again and restore the account with
    /// ``cancelScheduledDeletion(of:)``; from `date` sign-in is refused (`userDisabled`)
    /// and the account waits for ``purgeScheduledAccount(_:)``, its sign-in identity
    /// reserved until then. A date that has come is kept as `Date.distantPast`: the
    /// account stays due however its clock is set later. Other services read
    /// ``AuthAdministration/scheduledDeletions()`` to hide the user meanwhile. A deletion scheduled can be
    /// brought forward by scheduling it again for an earlier date.
    /// - Parameters:
    ///   - userID: The signed-in user, compared byte for byte.
    ///   - date: When the grace period ends; now or earlier deletes at once.
    /// - Returns: What happened to the Apple tokens.
    /// - Throws: ``AuthenticationError`` — `notSignedIn`, `userMismatch` (another user is signed
    ///   in), `requiresRecentLogin`, `requiresAppleReauthentication`,
    ///   `operationNotAllowed` (already scheduled for that date or earlier), `storage`.
    ///   Nothing is scheduled then.
    @discardableResult
    func scheduleAccountDeletion(of userID: String, at date: Date) async throws -> AccountDeletionReceipt.TokenRevocation

    /// Cancels the signed-in account's scheduled deletion: the account is restored.
    /// - Parameter userID: The signed-in user, compared byte for byte.
    /// - Throws: ``AuthenticationError`` — `notSignedIn`, `userMismatch`, `operationNotAllowed`
    ///   (none is scheduled, or it is due), `storage`.
    func cancelScheduledDeletion(of userID: String) async throws

    /// Every account whose deletion is scheduled, with the date it is purged from:
    /// what other services hide.
    /// - Returns: The schedules, in the order of their user IDs' bytes.
    /// - Throws: ``TrainCore/TrainErrorCode/storage``.
    func scheduledDeletions() throws -> [AccountDeletionSchedule]

    /// The date one account's scheduled deletion purges it from, if one is scheduled.
    /// IDs are compared byte for byte: a canonically equivalent spelling is another user.
    /// - Parameter userID: The account.
    /// - Returns: The date, or nil.
    /// - Throws: ``TrainCore/TrainErrorCode/storage``.
    func scheduledDeletion(of userID: String) throws -> Date?

    /// Marks `userID`'s due deletion as started, for good: from now on the account
    /// cannot be signed in to or restored whatever the clock says later, and it stays
    /// due until ``purgeScheduledAccount(_:)``. A purge calls it before it deletes
    /// anything, so that a clock set back into the grace period never brings back an
    /// account whose data is half gone. Calling it again, or for an account that is gone,
    /// does nothing.
    /// - Parameter userID: The account.
    /// - Throws: ``AuthenticationError`` — `operationNotAllowed` when no deletion of it
    ///   is scheduled or its date has not come (nothing changes), `storage`.
    func beginAccountPurge(of userID: String) async throws

    /// Whether an account has this ID, compared byte for byte: false once its purge
    /// removed it. A device that held a deleted user's session reads it to tell a
    /// deletion finished elsewhere from an account restored elsewhere.
    /// - Parameter userID: The account.
    /// - Returns: Whether it exists.
    /// - Throws: ``TrainCore/TrainErrorCode/storage``.
    func accountExists(_ userID: String) throws -> Bool

    /// Deletes an account whose scheduled deletion is due, whoever is signed in —
    /// nobody, usually: the job a backend runs when the grace period ends.
    /// - Parameter userID: The account.
    /// - Returns: What was done; nil if the account was gone already.
    /// - Throws: ``AuthenticationError`` — `operationNotAllowed` when no deletion of it is
    ///   scheduled or its date has not come (nothing is deleted), `storage`.
    @discardableResult
    func purgeScheduledAccount(_ userID: String) async throws -> AccountDeletionReceipt?
}

/// The account sign-in service: sign in with Apple, sign out, the current user and
/// account deletion, plus Google, email and phone sign-in, re-authentication,
/// linking, the auth-state stream and the biometric app lock.
///
/// The service is the composition of its capabilities, each a small protocol an app
/// can conform to, test and depend on one at a time: ``AuthSession``, ``AuthSignIn``,
/// ``AuthEmailFlows``, ``AuthTokens``, ``AuthAccountManagement`` and
/// ``AuthAdministration``. A sign-in screen's view model asks for
/// `any AuthSession & AuthSignIn`, and never sees the purge.
///
/// TrainKit's conformance is ``LocalAuthService`` (in memory or file-backed);
/// `FakeAuthService` in TrainTesting is a scriptable double; an app can add its
/// own, for instance on Firebase, and check it piece by piece with `AuthServiceContract`.
///
/// ```swift
/// func signInTapped(auth: any AuthSignIn) async {
///     do {
///         let user = try await auth.signInWithApple()
///         print("Welcome, \(user.displayName ?? "friend")")
///     } catch AuthenticationError.cancelled {
///         // The user closed the sheet: nothing to show.
///     } catch {
///         print(error.localizedDescription)
///     }
/// }
/// ```
///
/// Email addresses are compared in one spelling — trimmed, Unicode NFC, lowercased —
/// and one address belongs to one account, whatever its providers.
public protocol AuthService: AuthSession, AuthSignIn, AuthEmailFlows, AuthTokens, AuthAccountManagement, AuthAdministration {}

extension AuthEmailFlows {
    /// `operationNotAllowed` by default, so that a conformance written before this
    /// requirement compiles; `AuthServiceContract` checks it.
    /// - Parameters:
    ///   - code: The code.
    ///   - email: The address of a six-digit code.
    public func checkActionCode(_ code: String, email: String?) async throws -> EmailCodeInspection {
        throw AuthenticationError(.operationNotAllowed, detail: "This auth service cannot inspect codes.")
    }

    /// What a mailed long code is for and whether it would work: ``checkActionCode(_:email:)`` without an address.
    /// - Parameter code: The long code from an email.
    /// - Returns: What the code is.
    /// - Throws: As ``checkActionCode(_:email:)``.
    public func checkActionCode(_ code: String) async throws -> EmailCodeInspection {
        try await checkActionCode(code, email: nil)
    }

    /// `operationNotAllowed` by default, so that a conformance written before this
    /// requirement compiles; `AuthServiceContract` checks it.
    /// - Parameter code: The code.
    public func applyActionCode(_ code: String) async throws -> EmailCodeInspection {
        throw AuthenticationError(.operationNotAllowed, detail: "This auth service cannot apply codes.")
    }

    /// `operationNotAllowed` by default, so that a conformance written before this
    /// requirement compiles; `AuthServiceContract` checks it.
    /// - Parameter email: The new address.
    public func verifyBeforeUpdateEmail(to email: String) async throws {
        throw AuthenticationError(.operationNotAllowed, detail: "This auth service cannot change an address after verifying it.")
    }
}

extension AuthAdministration {
    /// No marker by default, so that a conformance written before this requirement
    /// compiles; `AuthServiceContract` checks it, and fails until it is implemented.
    /// - Parameter userID: The account.
    public func beginAccountPurge(of userID: String) async throws {}

    /// True by default: a conformance that cannot look an account up never lets a
    /// device take a deletion for finished. `AuthServiceContract` checks it.
    /// - Parameter userID: The account.
    /// - Returns: True.
    public func accountExists(_ userID: String) throws -> Bool { true }

    /// Whether the data of `userID` may be purged at `date`: their scheduled deletion is
    /// due, or their account is gone — a device purging what it holds of a user whose
    /// deletion finished elsewhere. The check every purge runs before it deletes.
    /// - Parameters:
    ///   - userID: The user, compared byte for byte.
    ///   - date: Now, on the caller's clock.
    /// - Returns: Whether the purge may run.
    /// - Throws: ``TrainCore/TrainErrorCode/storage``.
    public func isPurgeDue(of userID: String, at date: Date) throws -> Bool {
        if let purgeAt = try scheduledDeletion(of: userID) { return date >= purgeAt }
        return try !accountExists(userID)
    }
}

extension AuthSession {
    /// Nil by default: a conformance that does not tell why a session ended.
    /// `AuthServiceContract` checks it.
    public var lastSessionEnd: SessionEnd? { nil }
}

extension AuthTokens {
    /// The kept ID token while it is fresh, else a new one: ``idToken(forceRefresh:)`` without forcing.
    /// - Returns: The compact JWT.
    /// - Throws: ``AuthenticationError`` — `notSignedIn`, `storage`.
    public func idToken() async throws -> String {
        try await idToken(forceRefresh: false)
    }
}

extension AuthAccountManagement where Self: AuthSession {
    /// Sets the signed-in user's display name and photo: ``updateProfile(of:displayName:photoURL:)``
    /// for ``AuthSession/currentUser``.
    /// - Parameters:
    ///   - displayName: The name; blank removes it.
    ///   - photoURL: The photo, or nil to remove it.
    /// - Returns: The updated user.
    /// - Throws: ``AuthenticationError`` — `notSignedIn`, and as ``updateProfile(of:displayName:photoURL:)``.
    public func updateProfile(displayName: String?, photoURL: URL?) async throws -> UserEntity {
        guard let user = currentUser else { throw AuthenticationError(.notSignedIn) }
        return try await updateProfile(of: user.id, displayName: displayName, photoURL: photoURL)
    }
}
