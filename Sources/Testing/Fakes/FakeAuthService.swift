import Foundation
import TrainAuth
import TrainCore

/// A scriptable `AuthService` for unit tests of view models.
///
/// Every call is recorded in ``calls``. A method returns what the test scripted for
/// it; an unscripted call returns a plausible default — or, when the fake is built
/// `strict`, records a test failure naming the call and throws
/// ``FakeError/unimplemented(_:)``. ``controls`` injects failures, latency on a test
/// clock, and holds calls until released. Sign-ins that succeed make their user
/// current, and ``setCurrentUser(_:)`` drives the state stream directly.
///
/// ```swift
/// let auth = FakeAuthService(strict: true)
/// auth.script(.signInWithApple, .returning(FakeAuthService.sampleUser))
/// let model = LoginModel(auth: auth)
/// await model.signInTapped()
/// #expect(auth.calls == [.signInWithApple])
/// #expect(model.user == FakeAuthService.sampleUser)
/// auth.finish()                                // fails the test if a script went unused
/// ```
public final class FakeAuthService: AuthService, ScriptableFake {
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
        /// ``revokeAppleToken()``.
        case revokeAppleToken
        /// ``deleteAccount()``.
        case deleteAccount
        /// ``scheduleAccountDeletion(of:at:)``.
        case scheduleAccountDeletion(String, Date)
        /// ``cancelScheduledDeletion(of:)``.
        case cancelScheduledDeletion(String)
        /// ``scheduledDeletions()``.
        case scheduledDeletions
        /// ``scheduledDeletion(of:)``.
        case scheduledDeletion(String)
        /// ``purgeScheduledAccount(_:)``.
        case purgeScheduledAccount(String)
        /// ``isBiometricLockEnabled()``.
        case isBiometricLockEnabled
        /// ``setBiometricLock(enabled:reason:)``.
        case setBiometricLock(enabled: Bool)
    }

    /// A user for tests that need one: `fake-user-1`, ada@example.com.
    public static let sampleUser = UserEntity(
        id: "fake-user-1", email: "ada@example.com", displayName: "Ada Lovelace",
        providers: [LinkedProvider(provider: .apple, subject: "000001.fake", email: "ada@example.com", linkedAt: ManualClock.defaultStart)],
        createdAt: ManualClock.defaultStart, lastSignInAt: ManualClock.defaultStart)

    /// Failure injection, latency, holding, scripts and left-overs.
    public let controls: FakeControls<Call>
    private let users: Broadcast<UserEntity?>
    private let biometricLock = Locked(false)
    private let scheduled = Locked<[AccountDeletionSchedule]>([])

    /// Creates a fake.
    /// - Parameters:
    ///   - currentUser: The user signed in at the start.
    ///   - strict: Whether a call nobody scripted fails the test (and throws) instead of returning a default.
    ///   - clock: The clock ``FakeControls/latency`` sleeps on.
    public init(currentUser: UserEntity? = nil, strict: Bool = false, clock: (any DateClock)? = nil) {
        users = Broadcast(initial: currentUser)
        controls = FakeControls(fakeName: "FakeAuthService", strict: strict, clock: clock)
    }

    /// Whether unscripted calls fail the test.
    public var isStrict: Bool { controls.isStrict }

    public var currentUser: UserEntity? { users.value }

    /// Makes `user` current and, if it is another user than before, emits it on the state stream.
    /// - Parameter user: The new user, or nil to sign out.
    public func setCurrentUser(_ user: UserEntity?) {
        if user?.id == users.value?.id { users.replace(user) } else { users.send(user) }
    }

    /// Suspends until at least `count` subscribers follow ``authStateChanges()``, so a
    /// test can change the user knowing the view model listens.
    /// - Parameter count: The number of subscribers to wait for.
    public func waitForAuthStateSubscribers(_ count: Int = 1) async {
        await users.waitForSubscribers(count)
    }

    private func perform<Output>(
        _ call: Call, _ method: FakeMethod<FakeAuthService, Output>,
        fallback: () throws -> Output
    ) async throws -> Output {
        try await controls.perform(call, method: method.name, fallback: fallback)
    }

    private func signingIn(_ call: Call, _ method: FakeMethod<FakeAuthService, UserEntity>) async throws -> UserEntity {
        let user = try await perform(call, method) { currentUser ?? Self.sampleUser }
        setCurrentUser(user)
        return user
    }

    private func updating(
        _ call: Call, _ method: FakeMethod<FakeAuthService, UserEntity>,
        _ change: (inout UserEntity) -> Void = { _ in }
    ) async throws -> UserEntity {
        let user = try await perform(call, method) { () throws -> UserEntity in
            guard var user = currentUser else { throw AuthenticationError(.notSignedIn) }
            change(&user)
            return user
        }
        setCurrentUser(user)
        return user
    }

    /// Recorded as a subscription; the current user first, then each change.
    public func authStateChanges() -> AsyncStream<UserEntity?> {
        controls.recordSubscription(.authStateChanges)
        return users.subscribe()
    }

    /// Returns the scripted user, or by default the current user or ``sampleUser``; makes it current.
    public func signInWithApple() async throws -> UserEntity { try await signingIn(.signInWithApple, .signInWithApple) }

    /// Returns the scripted user, or by default the current user or ``sampleUser``; makes it current.
    public func signInWithGoogle() async throws -> UserEntity { try await signingIn(.signInWithGoogle, .signInWithGoogle) }

    /// Returns the scripted credential, or by default a fake identity credential.
    public func requestCredential(from provider: AuthProvider) async throws -> SignInCredential {
        try await perform(.requestCredential(provider), .requestCredential) {
            .identity(IdentityCredential(provider: provider, user: "fake-subject", identityToken: "fake.identity.token"), rawNonce: "fake-nonce")
        }
    }

    /// Returns the scripted user, or by default the current user or ``sampleUser``; makes it current.
    public func signIn(with credential: SignInCredential) async throws -> UserEntity {
        try await signingIn(.signIn(credential.provider), .signIn)
    }

    /// Returns the scripted user, or by default a new user with that email; makes it current.
    public func createUser(email: String, password: String) async throws -> UserEntity {
        let user = try await perform(.createUser(email: email), .createUser) {
            UserEntity(id: "fake-user-\(email)", email: email, createdAt: ManualClock.defaultStart, lastSignInAt: ManualClock.defaultStart)
        }
        setCurrentUser(user)
        return user
    }

    /// Returns the scripted verification ID, or by default `"fake-verification-id"`.
    public func sendVerificationCode(to phoneNumber: String) async throws -> String {
        try await perform(.sendVerificationCode(phoneNumber: phoneNumber), .sendVerificationCode) { "fake-verification-id" }
    }

    /// Returns the scripted user, or by default the current user.
    @discardableResult
    public func reauthenticate(with credential: SignInCredential) async throws -> UserEntity {
        try await updating(.reauthenticate(credential.provider), .reauthenticate)
    }

    /// Returns the scripted user, or by default the current user.
    public func link(_ credential: SignInCredential) async throws -> UserEntity {
        try await updating(.link(credential.provider), .link)
    }

    /// Returns the scripted user, or by default the current user.
    public func unlink(_ provider: AuthProvider) async throws -> UserEntity {
        try await updating(.unlink(provider), .unlink)
    }

    /// Returns the scripted user, or by default the current user with the new email.
    public func updateEmail(to email: String) async throws -> UserEntity {
        try await updating(.updateEmail(email), .updateEmail) { $0.email = email }
    }

    /// Returns the scripted state, or by default `authorized`; `revoked` and `notFound` sign the user out.
    public func checkCredentialState() async throws -> CredentialState {
        let state = try await perform(.checkCredentialState, .checkCredentialState) {
            .authorized
        }
        if state == .revoked || state == .notFound { setCurrentUser(nil) }
        return state
    }

    /// Signs out unless scripted to fail.
    public func signOut() async throws {
        try await perform(.signOut, .signOut) {}
        setCurrentUser(nil)
    }

    /// Returns the scripted outcome, or by default `notApplicable` for a signed-in user.
    public func revokeAppleToken() async throws -> AccountDeletionReceipt.TokenRevocation {
        try await perform(.revokeAppleToken, .revokeAppleToken) {
            guard currentUser != nil else { throw AuthenticationError(.notSignedIn) }
            return .notApplicable
        }
    }

    /// Returns the scripted receipt, or by default one for the current user; signs out.
    @discardableResult
    public func deleteAccount() async throws -> AccountDeletionReceipt {
        let receipt = try await perform(.deleteAccount, .deleteAccount) {
            guard let user = currentUser else { throw AuthenticationError(.notSignedIn) }
            return AccountDeletionReceipt(userID: user.id, providers: user.providers.map(\.provider), tokenRevocation: .notApplicable)
        }
        setCurrentUser(nil)
        return receipt
    }

    /// Returns the scripted outcome, or by default schedules the signed-in user's
    /// deletion — `userMismatch` if `userID` is not them, `operationNotAllowed` if one
    /// is scheduled — and signs out.
    @discardableResult
    public func scheduleAccountDeletion(of userID: String, at date: Date) async throws -> AccountDeletionReceipt.TokenRevocation {
        let outcome = try await perform(.scheduleAccountDeletion(userID, date), .scheduleAccountDeletion) {
            try checkSignedIn(as: userID)
            try scheduled.withLock { scheduled throws(AuthenticationError) in
                guard !scheduled.contains(where: { Self.same($0.userID, userID) }) else {
                    throw AuthenticationError(.operationNotAllowed, detail: "Already scheduled.")
                }
                scheduled.append(AccountDeletionSchedule(userID: userID, purgeAt: date))
            }
            return AccountDeletionReceipt.TokenRevocation.notApplicable
        }
        setCurrentUser(nil)
        return outcome
    }

    /// Cancels the signed-in user's scheduled deletion unless scripted to fail;
    /// `userMismatch` for another user, `operationNotAllowed` if none is scheduled.
    public func cancelScheduledDeletion(of userID: String) async throws {
        try await perform(.cancelScheduledDeletion(userID), .cancelScheduledDeletion) {
            try checkSignedIn(as: userID)
            guard remove(userID) else { throw AuthenticationError(.operationNotAllowed, detail: "Nothing is scheduled.") }
        }
    }

    /// Recorded; the deletions scheduled through this fake or ``setScheduledDeletion(of:at:)``.
    public func scheduledDeletions() throws -> [AccountDeletionSchedule] {
        controls.record(.scheduledDeletions)
        return scheduled.withLock { $0 }
    }

    /// Recorded; one user's scheduled deletion, the ID compared byte for byte.
    public func scheduledDeletion(of userID: String) throws -> Date? {
        controls.record(.scheduledDeletion(userID))
        return scheduled.withLock { $0.first { Self.same($0.userID, userID) }?.purgeAt }
    }

    /// Sets or clears a user's scheduled deletion directly.
    /// - Parameters:
    ///   - userID: The user.
    ///   - date: When the grace period ends; nil for none.
    public func setScheduledDeletion(of userID: String, at date: Date?) {
        _ = remove(userID)
        if let date { scheduled.withLock { $0.append(AccountDeletionSchedule(userID: userID, purgeAt: date)) } }
    }

    /// Returns the scripted receipt, or by default forgets the user's schedule and
    /// returns a receipt (nil if none was scheduled). It does not check the date.
    @discardableResult
    public func purgeScheduledAccount(_ userID: String) async throws -> AccountDeletionReceipt? {
        try await perform(.purgeScheduledAccount(userID), .purgeScheduledAccount) {
            guard remove(userID) else { return nil }
            if let current = currentUser, Self.same(current.id, userID) { setCurrentUser(nil) }
            return AccountDeletionReceipt(userID: userID, providers: [], tokenRevocation: .notApplicable)
        }
    }

    private func checkSignedIn(as userID: String) throws(AuthenticationError) {
        guard let user = currentUser else { throw AuthenticationError(.notSignedIn) }
        guard Self.same(user.id, userID) else { throw AuthenticationError(.userMismatch) }
    }

    /// Removes a user's schedule; whether there was one.
    private func remove(_ userID: String) -> Bool {
        scheduled.withLock { scheduled in
            guard let index = scheduled.firstIndex(where: { Self.same($0.userID, userID) }) else { return false }
            scheduled.remove(at: index)
            return true
        }
    }

    private static func same(_ lhs: String, _ rhs: String) -> Bool { lhs.utf8.elementsEqual(rhs.utf8) }

    /// Returns the scripted value, or by default the last value set.
    public func isBiometricLockEnabled() async throws -> Bool {
        try await perform(.isBiometricLockEnabled, .isBiometricLockEnabled) {
            biometricLock.withLock { $0 }
        }
    }

    /// Stores the setting unless scripted to fail.
    public func setBiometricLock(enabled: Bool, reason: String) async throws {
        try await perform(.setBiometricLock(enabled: enabled), .setBiometricLock) {}
        biometricLock.withLock { $0 = enabled }
    }
}

extension FakeMethod where Fake == FakeAuthService, Output == UserEntity {
    /// ``FakeAuthService/signInWithApple()``: the signed-in user.
    public static var signInWithApple: Self { Self("signInWithApple()") }
    /// ``FakeAuthService/signInWithGoogle()``: the signed-in user.
    public static var signInWithGoogle: Self { Self("signInWithGoogle()") }
    /// ``FakeAuthService/signIn(with:)``: the signed-in user.
    public static var signIn: Self { Self("signIn(with:)") }
    /// ``FakeAuthService/createUser(email:password:)``: the new user.
    public static var createUser: Self { Self("createUser(email:password:)") }
    /// ``FakeAuthService/reauthenticate(with:)``: the user.
    public static var reauthenticate: Self { Self("reauthenticate(with:)") }
    /// ``FakeAuthService/link(_:)``: the updated user.
    public static var link: Self { Self("link(_:)") }
    /// ``FakeAuthService/unlink(_:)``: the updated user.
    public static var unlink: Self { Self("unlink(_:)") }
    /// ``FakeAuthService/updateEmail(to:)``: the updated user.
    public static var updateEmail: Self { Self("updateEmail(to:)") }
}

extension FakeMethod where Fake == FakeAuthService, Output == SignInCredential {
    /// ``FakeAuthService/requestCredential(from:)``: the credential.
    public static var requestCredential: Self { Self("requestCredential(from:)") }
}

extension FakeMethod where Fake == FakeAuthService, Output == String {
    /// ``FakeAuthService/sendVerificationCode(to:)``: the verification ID.
    public static var sendVerificationCode: Self { Self("sendVerificationCode(to:)") }
}

extension FakeMethod where Fake == FakeAuthService, Output == CredentialState {
    /// ``FakeAuthService/checkCredentialState()``: the state.
    public static var checkCredentialState: Self { Self("checkCredentialState()") }
}

extension FakeMethod where Fake == FakeAuthService, Output == AccountDeletionReceipt.TokenRevocation {
    /// ``FakeAuthService/revokeAppleToken()``: the outcome.
    public static var revokeAppleToken: Self { Self("revokeAppleToken()") }
    /// ``FakeAuthService/scheduleAccountDeletion(of:at:)``: the Apple token's outcome.
    public static var scheduleAccountDeletion: Self { Self("scheduleAccountDeletion(of:at:)") }
}

extension FakeMethod where Fake == FakeAuthService, Output == AccountDeletionReceipt? {
    /// ``FakeAuthService/purgeScheduledAccount(_:)``: the receipt, nil if there was no account.
    public static var purgeScheduledAccount: Self { Self("purgeScheduledAccount(_:)") }
}

extension FakeMethod where Fake == FakeAuthService, Output == AccountDeletionReceipt {
    /// ``FakeAuthService/deleteAccount()``: the receipt.
    public static var deleteAccount: Self { Self("deleteAccount()") }
}

extension FakeMethod where Fake == FakeAuthService, Output == Bool {
    /// ``FakeAuthService/isBiometricLockEnabled()``: the setting.
    public static var isBiometricLockEnabled: Self { Self("isBiometricLockEnabled()") }
}

extension FakeMethod where Fake == FakeAuthService, Output == Void {
    /// ``FakeAuthService/signOut()``.
    public static var signOut: Self { Self("signOut()") }
    /// ``FakeAuthService/setBiometricLock(enabled:reason:)``.
    public static var setBiometricLock: Self { Self("setBiometricLock(enabled:reason:)") }
    /// ``FakeAuthService/cancelScheduledDeletion(of:)``.
    public static var cancelScheduledDeletion: Self { Self("cancelScheduledDeletion(of:)") }
}
