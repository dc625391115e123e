import Foundation
import Synchronization
import TrainAuth
import TrainCore

/// A scriptable ``AuthService`` for unit tests of view models (TEST-1).
///
/// Every call is recorded in ``calls``. A scripted result is returned until it is
/// scripted again; an unscripted call returns a plausible default — or, when the
/// fake is built `strict`, throws ``FakeError/unimplemented(_:)``. ``controls``
/// injects failures, latency on a test clock, and holds calls until released.
/// Sign-ins that succeed make their user current, and ``setCurrentUser(_:)`` drives
/// the state stream directly.
///
/// ```swift
/// let auth = FakeAuthService(strict: true)
/// auth.script(.signInWithApple, returning: .success(FakeAuthService.sampleUser))
/// let model = LoginModel(auth: auth)
/// await model.signInTapped()
/// #expect(auth.calls == [.signInWithApple])
/// #expect(model.user == FakeAuthService.sampleUser)
/// ```
public final class FakeAuthService: AuthService {
    /// A recorded call, with the arguments that matter to a test (never a password or code).
    public enum Call: Hashable, Sendable {
        /// ``authStateChanges()``.
        case authStateChanges
        /// ``signInWithApple()``.
        case signInWithApple
        /// ``signInWithGoogle()``.
        case signInWithGoogle
        /// ``requestCredential(from:)``.
        case requestCredential(AuthProvider)
        /// ``signIn(with:)``, with the credential's provider.
        case signIn(AuthProvider)
        /// ``createUser(email:password:)``, with the email.
        case createUser(email: String)
        /// ``sendVerificationCode(to:)``.
        case sendVerificationCode(phoneNumber: String)
        /// ``reauthenticate(with:)``, with the credential's provider.
        case reauthenticate(AuthProvider)
        /// ``link(_:)``, with the credential's provider.
        case link(AuthProvider)
        /// ``unlink(_:)``.
        case unlink(AuthProvider)
        /// ``updateEmail(to:)``.
        case updateEmail(String)
        /// ``checkCredentialState()``.
        case checkCredentialState
        /// ``signOut()``.
        case signOut
        /// ``deleteAccount()``.
        case deleteAccount
        /// ``isBiometricLockEnabled()``.
        case isBiometricLockEnabled
        /// ``setBiometricLock(enabled:reason:)``.
        case setBiometricLock(enabled: Bool)
    }

    /// The methods that can be scripted.
    public enum Method: String, Hashable, Sendable, CaseIterable {
        /// ``signInWithApple()``.
        case signInWithApple
        /// ``signInWithGoogle()``.
        case signInWithGoogle
        /// ``requestCredential(from:)``.
        case requestCredential
        /// ``signIn(with:)``.
        case signIn
        /// ``createUser(email:password:)``.
        case createUser
        /// ``sendVerificationCode(to:)``.
        case sendVerificationCode
        /// ``reauthenticate(with:)``.
        case reauthenticate
        /// ``link(_:)``.
        case link
        /// ``unlink(_:)``.
        case unlink
        /// ``updateEmail(to:)``.
        case updateEmail
        /// ``checkCredentialState()``.
        case checkCredentialState
        /// ``signOut()``.
        case signOut
        /// ``deleteAccount()``.
        case deleteAccount
        /// ``isBiometricLockEnabled()``.
        case isBiometricLockEnabled
        /// ``setBiometricLock(enabled:reason:)``.
        case setBiometricLock
    }

    private enum Scripted: Sendable {
        case user(UserEntity)
        case credential(AuthCredential)
        case text(String)
        case credentialState(CredentialState)
        case receipt(AccountDeletionReceipt)
        case flag(Bool)
        case done
    }

    /// A user for tests that need one: `fake-user-1`, ada@example.com.
    public static let sampleUser = UserEntity(
        id: "fake-user-1", email: "ada@example.com", displayName: "Ada Lovelace",
        providers: [LinkedProvider(provider: .apple, subject: "000001.fake", email: "ada@example.com", linkedAt: ManualClock.defaultStart)],
        createdAt: ManualClock.defaultStart, lastSignInAt: ManualClock.defaultStart)

    /// Failure injection, latency and holding.
    public let controls: FakeControls<Call>
    /// Whether unscripted calls throw ``FakeError/unimplemented(_:)``.
    public let isStrict: Bool
    private let users: Broadcast<UserEntity?>
    private let scripts = Mutex<[Method: Result<Scripted, AuthError>]>([:])
    private let biometricLock = Mutex(false)

    /// Creates a fake.
    /// - Parameters:
    ///   - currentUser: The user signed in at the start.
    ///   - strict: Whether unscripted calls throw instead of returning defaults.
    ///   - clock: The clock ``FakeControls/latency`` sleeps on.
    public init(currentUser: UserEntity? = nil, strict: Bool = false, clock: (any DateClock)? = nil) {
        users = Broadcast(initial: currentUser)
        isStrict = strict
        controls = FakeControls(clock: clock)
    }

    /// Every call made so far, in order.
    public var calls: [Call] { controls.calls }

    /// The signed-in user.
    public var currentUser: UserEntity? { users.value }

    /// Makes `user` current and, if it is another user than before, emits it on the state stream.
    /// - Parameter user: The new user, or nil to sign out.
    public func setCurrentUser(_ user: UserEntity?) {
        if user?.id == users.value?.id { users.replace(user) } else { users.send(user) }
    }

    /// Scripts the result of a method that returns a user (the sign-ins, `reauthenticate`,
    /// `link`, `unlink`, `updateEmail`). A success makes the user current.
    /// - Parameters:
    ///   - method: The method.
    ///   - result: What it returns from now on.
    public func script(_ method: Method, returning result: Result<UserEntity, AuthError>) {
        store(method, result.map(Scripted.user))
    }

    /// Scripts ``requestCredential(from:)``.
    /// - Parameter result: What it returns from now on.
    public func scriptCredential(_ result: Result<AuthCredential, AuthError>) {
        store(.requestCredential, result.map(Scripted.credential))
    }

    /// Scripts ``sendVerificationCode(to:)``.
    /// - Parameter result: The verification ID it returns from now on, or its error.
    public func scriptVerificationID(_ result: Result<String, AuthError>) {
        store(.sendVerificationCode, result.map(Scripted.text))
    }

    /// Scripts ``checkCredentialState()``; `revoked` and `notFound` sign the user out, as the real service does.
    /// - Parameter result: What it returns from now on.
    public func scriptCredentialState(_ result: Result<CredentialState, AuthError>) {
        store(.checkCredentialState, result.map(Scripted.credentialState))
    }

    /// Scripts ``deleteAccount()``; a success signs the user out.
    /// - Parameter result: What it returns from now on.
    public func scriptDeletion(_ result: Result<AccountDeletionReceipt, AuthError>) {
        store(.deleteAccount, result.map(Scripted.receipt))
    }

    /// Scripts ``isBiometricLockEnabled()``.
    /// - Parameter result: What it returns from now on.
    public func scriptBiometricLock(_ result: Result<Bool, AuthError>) {
        store(.isBiometricLockEnabled, result.map(Scripted.flag))
    }

    /// Scripts a method that returns nothing (``signOut()``, ``setBiometricLock(enabled:reason:)``).
    /// - Parameters:
    ///   - method: The method.
    ///   - error: The error it throws from now on, or nil to succeed.
    public func scriptCompletion(_ method: Method, failingWith error: AuthError? = nil) {
        store(method, error.map { .failure($0) } ?? .success(.done))
    }

    private func store(_ method: Method, _ result: Result<Scripted, AuthError>) {
        scripts.withLock { $0[method] = result }
    }

    /// Records the call, applies the controls, and returns the scripted result, the
    /// default, or `unimplemented`.
    private func perform<Value>(_ call: Call, _ method: Method, extract: (Scripted) -> Value?,
                                fallback: () throws -> Value) async throws -> Value {
        try await controls.record(call)
        if let scripted = scripts.withLock({ $0[method] }) {
            guard let value = extract(try scripted.get()) else { throw FakeError.unimplemented("\(method.rawValue) (scripted with another type)") }
            return value
        }
        if isStrict { throw FakeError.unimplemented(method.rawValue) }
        return try fallback()
    }

    private func signingIn(_ call: Call, _ method: Method) async throws -> UserEntity {
        let user = try await perform(call, method, extract: { if case .user(let user) = $0 { user } else { nil } }) {
            currentUser ?? Self.sampleUser
        }
        setCurrentUser(user)
        return user
    }

    private func updating(_ call: Call, _ method: Method) async throws -> UserEntity {
        let user = try await perform(call, method, extract: { if case .user(let user) = $0 { user } else { nil } }) {
            guard let user = currentUser else { throw AuthError(.notSignedIn) }
            return user
        }
        setCurrentUser(user)
        return user
    }

    /// Subscribes to the state stream (current value first).
    /// - Returns: The stream.
    public func authStateChanges() -> AsyncStream<UserEntity?> {
        controls.recordSynchronously(.authStateChanges)
        return users.subscribe()
    }

    /// Recorded; returns the scripted user, or by default ``sampleUser``.
    /// - Returns: The user, made current.
    public func signInWithApple() async throws -> UserEntity { try await signingIn(.signInWithApple, .signInWithApple) }

    /// Recorded; returns the scripted user, or by default ``sampleUser``.
    /// - Returns: The user, made current.
    public func signInWithGoogle() async throws -> UserEntity { try await signingIn(.signInWithGoogle, .signInWithGoogle) }

    /// Recorded; returns the scripted credential, or by default a fake identity credential.
    /// - Parameter provider: The provider.
    /// - Returns: The credential.
    public func requestCredential(from provider: AuthProvider) async throws -> AuthCredential {
        try await perform(.requestCredential(provider), .requestCredential, extract: { if case .credential(let c) = $0 { c } else { nil } }) {
            .identity(IdentityCredential(provider: provider, user: "fake-subject", identityToken: "fake.identity.token"), rawNonce: "fake-nonce")
        }
    }

    /// Recorded with the credential's provider; returns the scripted user, or by default ``sampleUser``.
    /// - Parameter credential: The credential.
    /// - Returns: The user, made current.
    public func signIn(with credential: AuthCredential) async throws -> UserEntity {
        try await signingIn(.signIn(credential.provider), .signIn)
    }

    /// Recorded with the email; returns the scripted user, or by default a new user with that email.
    /// - Parameters:
    ///   - email: The email.
    ///   - password: Not recorded.
    /// - Returns: The user, made current.
    public func createUser(email: String, password: String) async throws -> UserEntity {
        let user = try await perform(.createUser(email: email), .createUser, extract: { if case .user(let user) = $0 { user } else { nil } }) {
            UserEntity(id: "fake-user-\(email)", email: email, createdAt: ManualClock.defaultStart, lastSignInAt: ManualClock.defaultStart)
        }
        setCurrentUser(user)
        return user
    }

    /// Recorded; returns the scripted verification ID, or by default `"fake-verification-id"`.
    /// - Parameter phoneNumber: The number.
    /// - Returns: The verification ID.
    public func sendVerificationCode(to phoneNumber: String) async throws -> String {
        try await perform(.sendVerificationCode(phoneNumber: phoneNumber), .sendVerificationCode,
                          extract: { if case .text(let id) = $0 { id } else { nil } }) { "fake-verification-id" }
    }

    /// Recorded; returns the scripted user, or by default the current user.
    /// - Parameter credential: The credential.
    /// - Returns: The user.
    @discardableResult
    public func reauthenticate(with credential: AuthCredential) async throws -> UserEntity {
        try await updating(.reauthenticate(credential.provider), .reauthenticate)
    }

    /// Recorded; returns the scripted user, or by default the current user.
    /// - Parameter credential: The credential.
    /// - Returns: The user.
    public func link(_ credential: AuthCredential) async throws -> UserEntity {
        try await updating(.link(credential.provider), .link)
    }

    /// Recorded; returns the scripted user, or by default the current user.
    /// - Parameter provider: The provider.
    /// - Returns: The user.
    public func unlink(_ provider: AuthProvider) async throws -> UserEntity {
        try await updating(.unlink(provider), .unlink)
    }

    /// Recorded; returns the scripted user, or by default the current user with the new email.
    /// - Parameter email: The email.
    /// - Returns: The user.
    public func updateEmail(to email: String) async throws -> UserEntity {
        let user = try await perform(.updateEmail(email), .updateEmail, extract: { if case .user(let user) = $0 { user } else { nil } }) {
            guard var user = currentUser else { throw AuthError(.notSignedIn) }
            user.email = email
            return user
        }
        setCurrentUser(user)
        return user
    }

    /// Recorded; returns the scripted state, or by default `authorized`.
    /// - Returns: The state; `revoked` and `notFound` sign the user out.
    public func checkCredentialState() async throws -> CredentialState {
        let state = try await perform(.checkCredentialState, .checkCredentialState,
                                      extract: { if case .credentialState(let s) = $0 { s } else { nil } }) { .authorized }
        if state == .revoked || state == .notFound { setCurrentUser(nil) }
        return state
    }

    /// Recorded; signs out unless scripted to fail.
    public func signOut() async throws {
        try await perform(.signOut, .signOut, extract: { if case .done = $0 { () } else { nil } }) {}
        setCurrentUser(nil)
    }

    /// Recorded; returns the scripted receipt, or by default one for the current user. Signs out.
    /// - Returns: The receipt.
    @discardableResult
    public func deleteAccount() async throws -> AccountDeletionReceipt {
        let receipt = try await perform(.deleteAccount, .deleteAccount, extract: { if case .receipt(let r) = $0 { r } else { nil } }) {
            guard let user = currentUser else { throw AuthError(.notSignedIn) }
            return AccountDeletionReceipt(userID: user.id, providers: user.providers.map(\.provider), tokenRevocation: .notApplicable)
        }
        setCurrentUser(nil)
        return receipt
    }

    /// Recorded; returns the scripted value, or by default the last value set.
    /// - Returns: The setting.
    public func isBiometricLockEnabled() async throws -> Bool {
        try await perform(.isBiometricLockEnabled, .isBiometricLockEnabled, extract: { if case .flag(let f) = $0 { f } else { nil } }) {
            biometricLock.withLock { $0 }
        }
    }

    /// Recorded; stores the setting unless scripted to fail.
    /// - Parameters:
    ///   - enabled: The setting.
    ///   - reason: Not recorded.
    public func setBiometricLock(enabled: Bool, reason: String) async throws {
        try await perform(.setBiometricLock(enabled: enabled), .setBiometricLock, extract: { if case .done = $0 { () } else { nil } }) {}
        biometricLock.withLock { $0 = enabled }
    }
}
