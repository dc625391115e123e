import Foundation
import TrainAuth
import TrainCore

/// A scriptable `AuthService` for unit tests of view models.
///
/// Every call is recorded in ``calls``. A method returns what the test scripted for
/// it. A fake made with ``init(currentUser:clock:)`` is strict: a call nobody
/// scripted records a test failure naming the call and throws
/// ``FakeError/unimplemented(_:)``; its signed-in user is the one the test sets with
/// ``setCurrentUser(_:)`` or a scripted sign-in makes. A fake made with
/// ``init(backedBy:clock:)`` passes every call nobody scripted to that service — such as
/// a `LocalAuthService` in memory — and shows its state. ``controls`` injects failures,
/// latency on a test clock, and holds calls until released.
///
/// ```swift
/// let auth = FakeAuthService()
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
        /// ``userChanges()``.
        case userChanges
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
        /// ``beginAccountPurge(of:)``.
        case beginAccountPurge(String)
        /// ``accountExists(_:)``.
        case accountExists(String)
        /// ``isBiometricLockEnabled()``.
        case isBiometricLockEnabled
        /// ``setBiometricLock(enabled:reason:)``.
        case setBiometricLock(enabled: Bool)
        /// ``signInAnonymously()``.
        case signInAnonymously
        /// ``sendPasswordReset(email:)``, with the email.
        case sendPasswordReset(email: String)
        /// ``confirmPasswordReset(code:newPassword:)``.
        case confirmPasswordReset
        /// ``sendEmailVerification()``.
        case sendEmailVerification
        /// ``verifyEmail(code:)``.
        case verifyEmail
        /// ``sendSignInCode(to:)``, with the email.
        case sendSignInCode(email: String)
        /// ``checkActionCode(_:email:)``, with the email of a sign-in code.
        case checkActionCode(email: String?)
        /// ``applyActionCode(_:)``.
        case applyActionCode
        /// ``verifyBeforeUpdateEmail(to:)``, with the email.
        case verifyBeforeUpdateEmail(String)
        /// ``requireVerifiedEmail(for:)``.
        case requireVerifiedEmail(VerifiedEmailAction)
        /// ``updatePassword(to:)``.
        case updatePassword
        /// ``updateProfile(of:displayName:photoURL:)``.
        case updateProfile(userID: String, displayName: String?, photoURL: URL?)
        /// ``idToken(forceRefresh:)``.
        case idToken(forceRefresh: Bool)
        /// ``idTokenChanges()``.
        case idTokenChanges
    }

    /// A user for tests that need one: `fake-user-1`, ada@example.com.
    public static let sampleUser = UserEntity(
        id: "fake-user-1", email: "ada@example.com", displayName: "Ada Lovelace",
        providers: [LinkedProvider(provider: .apple, subject: "000001.fake", email: "ada@example.com", linkedAt: ManualClock.defaultStart)],
        createdAt: ManualClock.defaultStart, lastSignInAt: ManualClock.defaultStart)

    /// Failure injection, latency, holding, scripts and left-overs.
    public let controls: FakeControls<Call>
    /// The service unscripted calls go to; nil for a strict fake.
    public let service: (any AuthService)?
    private let users: Broadcast<UserEntity?>
    private let userValues: Broadcast<UserEntity?>
    private let tokens = Broadcast<String?>(initial: nil)
    private let scheduled = Locked<[AccountDeletionSchedule]>([])
    /// The users a strict fake purged, and how its last session ended.
    private let ended = Locked<(purged: [String], session: SessionEnd?)>(([], nil))

    /// Creates a strict fake: every call needs a script.
    /// - Parameters:
    ///   - currentUser: The user signed in at the start.
    ///   - clock: The clock ``FakeControls/latency`` sleeps on.
    public init(currentUser: UserEntity? = nil, clock: (any DateClock)? = nil) {
        service = nil
        users = Broadcast(initial: currentUser)
        userValues = Broadcast(initial: currentUser)
        controls = FakeControls(fakeName: "FakeAuthService", clock: clock)
    }

    /// Creates a fake in front of `service`: calls nobody scripted go to it, and the
    /// signed-in user is its.
    /// - Parameters:
    ///   - service: The service, such as a `LocalAuthService` in memory.
    ///   - clock: The clock ``FakeControls/latency`` sleeps on.
    public init(backedBy service: any AuthService, clock: (any DateClock)? = nil) {
        self.service = service
        users = Broadcast(initial: nil)
        userValues = Broadcast(initial: nil)
        controls = FakeControls(fakeName: "FakeAuthService", strict: false, clock: clock)
    }

    /// Whether unscripted calls fail the test.
    public var isStrict: Bool { controls.isStrict }

    /// The signed-in user: the service's, or the one the test or a scripted call set.
    public var currentUser: UserEntity? { service.map(\.currentUser) ?? users.value }

    /// Makes `user` current on a strict fake and emits it on ``userChanges()``; if it is
    /// another user than before, on the state stream too.
    /// - Parameter user: The new user, or nil to sign out.
    public func setCurrentUser(_ user: UserEntity?) {
        guard controls.ownsState("setCurrentUser(_:)") else { return }
        show(user)
    }

    /// Shows `user` as the strict fake's current user; a fake over a service shows the service's.
    private func show(_ user: UserEntity?) {
        guard service == nil else { return }
        if user?.id == users.value?.id {
            users.replace(user)
        } else {
            users.send(user)
            // The session the token was of ended, as the service's stream says.
            if tokens.value != nil { tokens.send(nil) }
        }
        userValues.send(user)
    }

    /// Signs a strict fake's user out, as a deletion through another fake does; a fake
    /// over a service shows the service's user, which that deletion signed out itself.
    func endSession() {
        end(because: .accountDeleted)
    }

    /// Signs a strict fake's user out for `reason`, which ``lastSessionEnd`` tells.
    private func end(because reason: SessionEnd.Reason) {
        guard service == nil else { return }
        if let user = users.value {
            ended.withLock { $0.session = SessionEnd(userID: user.id, reason: reason, date: controls.clock?.now ?? ManualClock.defaultStart) }
        }
        show(nil)
    }

    /// The service's, or how a strict fake's last session ended: signed out, deleted or
    /// revoked by one of its calls, or set by ``setLastSessionEnd(_:)``.
    public var lastSessionEnd: SessionEnd? {
        service.map(\.lastSessionEnd) ?? ended.withLock { $0.session }
    }

    /// Sets how a strict fake's last session ended, as a deletion on another device
    /// would have: what a session manager reads after a relaunch.
    /// - Parameter end: The end, or nil.
    public func setLastSessionEnd(_ end: SessionEnd?) {
        guard controls.ownsState("setLastSessionEnd(_:)") else { return }
        ended.withLock { $0.session = end }
    }

    /// Suspends until at least `count` subscribers follow a strict fake's
    /// ``authStateChanges()``, so a test can change the user knowing the view model listens.
    /// - Parameter count: The number of subscribers to wait for.
    public func waitForAuthStateSubscribers(_ count: Int = 1) async {
        guard controls.ownsState("waitForAuthStateSubscribers(_:)") else { return }
        await users.waitForSubscribers(count)
    }

    private func perform<Output>(
        _ call: Call, _ method: FakeMethod<FakeAuthService, Output>, _ forward: @escaping @Sendable (any AuthService) async throws -> Output
    ) async throws -> Output {
        try await controls.perform(call, method: method.name, service: service.map { service in { try await forward(service) } })
    }

    /// A sign-in: a strict fake's user becomes the one returned.
    private func signingIn(
        _ call: Call, _ method: FakeMethod<FakeAuthService, UserEntity>, _ forward: @escaping @Sendable (any AuthService) async throws -> UserEntity
    ) async throws -> UserEntity {
        let user = try await perform(call, method, forward)
        show(user)
        return user
    }

    /// Recorded as a subscription; the current user first, then each change.
    public func authStateChanges() -> AsyncStream<UserEntity?> {
        controls.recordSubscription(.authStateChanges)
        return service?.authStateChanges() ?? users.subscribe()
    }

    /// Recorded as a subscription; the current user first, then each change of it.
    public func userChanges() -> AsyncStream<UserEntity?> {
        controls.recordSubscription(.userChanges)
        return service?.userChanges() ?? userValues.subscribe()
    }

    /// Returns the scripted user, or the service's; a strict fake's user becomes it.
    public func signInWithApple() async throws -> UserEntity {
        try await signingIn(.signInWithApple, .signInWithApple) { try await $0.signInWithApple() }
    }

    /// Returns the scripted user, or the service's; a strict fake's user becomes it.
    public func signInWithGoogle() async throws -> UserEntity {
        try await signingIn(.signInWithGoogle, .signInWithGoogle) { try await $0.signInWithGoogle() }
    }

    /// Returns the scripted credential, or the service's.
    public func requestCredential(from provider: AuthProvider) async throws -> SignInCredential {
        try await perform(.requestCredential(provider), .requestCredential) { try await $0.requestCredential(from: provider) }
    }

    /// Returns the scripted user, or the service's; a strict fake's user becomes it.
    public func signIn(with credential: SignInCredential) async throws -> UserEntity {
        try await signingIn(.signIn(credential.provider), .signIn) { try await $0.signIn(with: credential) }
    }

    /// Returns the scripted user, or the service's; a strict fake's user becomes it.
    public func createUser(email: String, password: String) async throws -> UserEntity {
        try await signingIn(.createUser(email: email), .createUser) { try await $0.createUser(email: email, password: password) }
    }

    /// Returns the scripted verification ID, or the service's.
    public func sendVerificationCode(to phoneNumber: String) async throws -> String {
        try await perform(.sendVerificationCode(phoneNumber: phoneNumber), .sendVerificationCode) {
            try await $0.sendVerificationCode(to: phoneNumber)
        }
    }

    /// Returns the scripted user, or the service's; a strict fake's user becomes it.
    @discardableResult
    public func reauthenticate(with credential: SignInCredential) async throws -> UserEntity {
        try await signingIn(.reauthenticate(credential.provider), .reauthenticate) { try await $0.reauthenticate(with: credential) }
    }

    /// Returns the scripted user, or the service's; a strict fake's user becomes it.
    public func link(_ credential: SignInCredential) async throws -> UserEntity {
        try await signingIn(.link(credential.provider), .link) { try await $0.link(credential) }
    }

    /// Returns the scripted user, or the service's; a strict fake's user becomes it.
    public func unlink(_ provider: AuthProvider) async throws -> UserEntity {
        try await signingIn(.unlink(provider), .unlink) { try await $0.unlink(provider) }
    }

    /// Returns the scripted user, or the service's; a strict fake's user becomes it.
    public func updateEmail(to email: String) async throws -> UserEntity {
        try await signingIn(.updateEmail(email), .updateEmail) { try await $0.updateEmail(to: email) }
    }

    /// Returns the scripted state, or the service's; `revoked` and `notFound` sign a strict fake's user out.
    public func checkCredentialState() async throws -> CredentialState {
        let state = try await perform(.checkCredentialState, .checkCredentialState) { try await $0.checkCredentialState() }
        if state == .revoked || state == .notFound { end(because: .credentialRevoked) }
        return state
    }

    /// Succeeds as scripted, or as the service does; a strict fake's user is signed out.
    public func signOut() async throws {
        try await perform(.signOut, .signOut) { try await $0.signOut() }
        end(because: .signedOut)
    }

    /// Returns the scripted outcome, or the service's.
    public func revokeAppleToken() async throws -> AccountDeletionReceipt.TokenRevocation {
        try await perform(.revokeAppleToken, .revokeAppleToken) { try await $0.revokeAppleToken() }
    }

    /// Returns the scripted receipt, or the service's; a strict fake's user is signed out.
    @discardableResult
    public func deleteAccount() async throws -> AccountDeletionReceipt {
        let receipt = try await perform(.deleteAccount, .deleteAccount) { try await $0.deleteAccount() }
        end(because: .accountDeleted)
        return receipt
    }

    /// Returns the scripted outcome, or the service's; a strict fake records the
    /// schedule and signs its user out.
    @discardableResult
    public func scheduleAccountDeletion(of userID: String, at date: Date) async throws -> AccountDeletionReceipt.TokenRevocation {
        let outcome = try await perform(.scheduleAccountDeletion(userID, date), .scheduleAccountDeletion) {
            try await $0.scheduleAccountDeletion(of: userID, at: date)
        }
        if service == nil {
            schedule(userID, at: date)
            end(because: .accountDeleted)
        }
        return outcome
    }

    /// Succeeds as scripted, or as the service does; a strict fake forgets the schedule.
    public func cancelScheduledDeletion(of userID: String) async throws {
        try await perform(.cancelScheduledDeletion(userID), .cancelScheduledDeletion) { try await $0.cancelScheduledDeletion(of: userID) }
        if service == nil { schedule(userID, at: nil) }
    }

    /// Recorded; the scripted schedules — a list that lags behind, say — or else the
    /// service's, or those a strict fake was told of.
    public func scheduledDeletions() throws -> [AccountDeletionSchedule] {
        try controls.performSynchronously(.scheduledDeletions, method: FakeMethod<FakeAuthService, [AccountDeletionSchedule]>.scheduledDeletions.name)
        {
            if let service { return try service.scheduledDeletions() }
            return scheduled.withLock { $0 }
        }
    }

    /// Recorded; one user's scheduled deletion, the service's or a strict fake's, the ID
    /// compared byte for byte.
    public func scheduledDeletion(of userID: String) throws -> Date? {
        controls.record(.scheduledDeletion(userID))
        if let service { return try service.scheduledDeletion(of: userID) }
        return scheduled.withLock { $0.first { Self.same($0.userID, userID) }?.purgeAt }
    }

    /// Sets or clears a user's scheduled deletion on a strict fake.
    /// - Parameters:
    ///   - userID: The user.
    ///   - date: When the grace period ends; nil for none.
    public func setScheduledDeletion(of userID: String, at date: Date?) {
        guard controls.ownsState("setScheduledDeletion(of:at:)") else { return }
        schedule(userID, at: date)
    }

    private func schedule(_ userID: String, at date: Date?) {
        scheduled.withLock { scheduled in
            scheduled.removeAll { Self.same($0.userID, userID) }
            if let date { scheduled.append(AccountDeletionSchedule(userID: userID, purgeAt: date)) }
        }
    }

    /// Returns the scripted receipt, or the service's; a strict fake forgets the
    /// schedule, and signs out its user if it is the one purged.
    @discardableResult
    public func purgeScheduledAccount(_ userID: String) async throws -> AccountDeletionReceipt? {
        let receipt = try await perform(.purgeScheduledAccount(userID), .purgeScheduledAccount) { try await $0.purgeScheduledAccount(userID) }
        if service == nil {
            schedule(userID, at: nil)
            ended.withLock { $0.purged.append(userID) }
            if let current = users.value, Self.same(current.id, userID) { end(because: .accountDeleted) }
        }
        return receipt
    }

    /// Recorded; the service's answer, or a strict fake's: a due schedule is kept as
    /// `Date.distantPast` from then on, an account it purged is left alone, and one with
    /// no due schedule is `operationNotAllowed`.
    public func beginAccountPurge(of userID: String) async throws {
        controls.record(.beginAccountPurge(userID))
        if let service { return try await service.beginAccountPurge(of: userID) }
        guard try accountExists(userID, recording: false) else { return }
        let now = controls.clock?.now ?? ManualClock.defaultStart
        guard let date = scheduled.withLock({ $0.first { Self.same($0.userID, userID) }?.purgeAt }), now >= date else {
            throw AuthenticationError(.operationNotAllowed, detail: "'\(userID)' has no scheduled deletion that is due.")
        }
        schedule(userID, at: .distantPast)
    }

    /// Recorded; the service's answer, or a strict fake's: every account exists but one
    /// it purged.
    public func accountExists(_ userID: String) throws -> Bool {
        try accountExists(userID, recording: true)
    }

    private func accountExists(_ userID: String, recording: Bool) throws -> Bool {
        if recording { controls.record(.accountExists(userID)) }
        if let service { return try service.accountExists(userID) }
        return !ended.withLock { $0.purged.contains { Self.same($0, userID) } }
    }

    private static func same(_ lhs: String, _ rhs: String) -> Bool { lhs.utf8.elementsEqual(rhs.utf8) }

    /// Returns the scripted setting, or the service's.
    public func isBiometricLockEnabled() async throws -> Bool {
        try await perform(.isBiometricLockEnabled, .isBiometricLockEnabled) { try await $0.isBiometricLockEnabled() }
    }

    /// Succeeds as scripted, or as the service does.
    public func setBiometricLock(enabled: Bool, reason: String) async throws {
        try await perform(.setBiometricLock(enabled: enabled), .setBiometricLock) { try await $0.setBiometricLock(enabled: enabled, reason: reason) }
    }

    /// Returns the scripted guest, or the service's; a strict fake's user becomes it.
    public func signInAnonymously() async throws -> UserEntity {
        try await signingIn(.signInAnonymously, .signInAnonymously) { try await $0.signInAnonymously() }
    }

    /// Succeeds as scripted, or as the service does.
    public func sendPasswordReset(email: String) async throws {
        try await perform(.sendPasswordReset(email: email), .sendPasswordReset) { try await $0.sendPasswordReset(email: email) }
    }

    /// Succeeds as scripted, or as the service does.
    public func confirmPasswordReset(code: String, newPassword: String) async throws {
        try await perform(.confirmPasswordReset, .confirmPasswordReset) { try await $0.confirmPasswordReset(code: code, newPassword: newPassword) }
    }

    /// Succeeds as scripted, or as the service does.
    public func sendEmailVerification() async throws {
        try await perform(.sendEmailVerification, .sendEmailVerification) { try await $0.sendEmailVerification() }
    }

    /// Succeeds as scripted, or as the service does.
    public func verifyEmail(code: String) async throws {
        try await perform(.verifyEmail, .verifyEmail) { try await $0.verifyEmail(code: code) }
    }

    /// Succeeds as scripted, or as the service does.
    public func sendSignInCode(to email: String) async throws {
        try await perform(.sendSignInCode(email: email), .sendSignInCode) { try await $0.sendSignInCode(to: email) }
    }

    /// Returns the scripted information, or the service's.
    public func checkActionCode(_ code: String, email: String?) async throws -> EmailCodeInspection {
        try await perform(.checkActionCode(email: email), .checkActionCode) { try await $0.checkActionCode(code, email: email) }
    }

    /// Returns the scripted information, or the service's; a backed fake shows the user the code changed.
    public func applyActionCode(_ code: String) async throws -> EmailCodeInspection {
        try await perform(.applyActionCode, .applyActionCode) { try await $0.applyActionCode(code) }
    }

    /// Succeeds as scripted, or as the service does.
    public func verifyBeforeUpdateEmail(to email: String) async throws {
        try await perform(.verifyBeforeUpdateEmail(email), .verifyBeforeUpdateEmail) { try await $0.verifyBeforeUpdateEmail(to: email) }
    }

    /// Recorded; throws an injected failure, or what the service throws; a strict fake
    /// requires nothing unless told to fail.
    public func requireVerifiedEmail(for action: VerifiedEmailAction) throws {
        try controls.performSynchronously(.requireVerifiedEmail(action), method: FakeMethod<FakeAuthService, Void>.requireVerifiedEmail.name) {
            try service?.requireVerifiedEmail(for: action)
        }
    }

    /// Succeeds as scripted, or as the service does.
    public func updatePassword(to newPassword: String) async throws {
        try await perform(.updatePassword, .updatePassword) { try await $0.updatePassword(to: newPassword) }
    }

    /// Returns the scripted user, or the service's; a strict fake's user becomes it.
    public func updateProfile(of userID: String, displayName: String?, photoURL: URL?) async throws -> UserEntity {
        try await signingIn(.updateProfile(userID: userID, displayName: displayName, photoURL: photoURL), .updateProfile) {
            try await $0.updateProfile(of: userID, displayName: displayName, photoURL: photoURL)
        }
    }

    /// Returns the scripted token, or the service's; a strict fake announces it on ``idTokenChanges()``.
    public func idToken(forceRefresh: Bool) async throws -> String {
        let token = try await perform(.idToken(forceRefresh: forceRefresh), .idToken) { try await $0.idToken(forceRefresh: forceRefresh) }
        if service == nil, tokens.value != token { tokens.send(token) }
        return token
    }

    /// Recorded as a subscription; the service's tokens, or the tokens a strict fake returned.
    public func idTokenChanges() -> AsyncStream<String?> {
        controls.recordSubscription(.idTokenChanges)
        return service?.idTokenChanges() ?? tokens.subscribe()
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
    /// ``FakeAuthService/signInAnonymously()``: the guest.
    public static var signInAnonymously: Self { Self("signInAnonymously()") }
    /// ``FakeAuthService/updateProfile(of:displayName:photoURL:)``: the updated user.
    public static var updateProfile: Self { Self("updateProfile(of:displayName:photoURL:)") }
}

extension FakeMethod where Fake == FakeAuthService, Output == SignInCredential {
    /// ``FakeAuthService/requestCredential(from:)``: the credential.
    public static var requestCredential: Self { Self("requestCredential(from:)") }
}

extension FakeMethod where Fake == FakeAuthService, Output == String {
    /// ``FakeAuthService/sendVerificationCode(to:)``: the verification ID.
    public static var sendVerificationCode: Self { Self("sendVerificationCode(to:)") }
    /// ``FakeAuthService/idToken(forceRefresh:)``: the token.
    public static var idToken: Self { Self("idToken(forceRefresh:)") }
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

extension FakeMethod where Fake == FakeAuthService, Output == [AccountDeletionSchedule] {
    /// ``FakeAuthService/scheduledDeletions()``: the schedules, while scripted.
    public static var scheduledDeletions: Self { Self("scheduledDeletions()") }
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
    /// ``FakeAuthService/sendPasswordReset(email:)``.
    public static var sendPasswordReset: Self { Self("sendPasswordReset(email:)") }
    /// ``FakeAuthService/confirmPasswordReset(code:newPassword:)``.
    public static var confirmPasswordReset: Self { Self("confirmPasswordReset(code:newPassword:)") }
    /// ``FakeAuthService/sendEmailVerification()``.
    public static var sendEmailVerification: Self { Self("sendEmailVerification()") }
    /// ``FakeAuthService/verifyEmail(code:)``.
    public static var verifyEmail: Self { Self("verifyEmail(code:)") }
    /// ``FakeAuthService/sendSignInCode(to:)``.
    public static var sendSignInCode: Self { Self("sendSignInCode(to:)") }
    /// ``FakeAuthService/verifyBeforeUpdateEmail(to:)``.
    public static var verifyBeforeUpdateEmail: Self { Self("verifyBeforeUpdateEmail(to:)") }
    /// ``FakeAuthService/requireVerifiedEmail(for:)``: fails only when told to.
    public static var requireVerifiedEmail: Self { Self("requireVerifiedEmail(for:)") }
    /// ``FakeAuthService/updatePassword(to:)``.
    public static var updatePassword: Self { Self("updatePassword(to:)") }
}

extension FakeMethod where Fake == FakeAuthService, Output == EmailCodeInspection {
    /// ``FakeAuthService/checkActionCode(_:email:)``: what the code is.
    public static var checkActionCode: Self { Self("checkActionCode(_:email:)") }
    /// ``FakeAuthService/applyActionCode(_:)``: what the code was.
    public static var applyActionCode: Self { Self("applyActionCode(_:)") }
}
