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
/// #expect(auth.calls == [.signInWithApple()])
/// #expect(model.user == FakeAuthService.sampleUser)
/// auth.finish()                                // fails the test if a script went unused
/// ```
public final class FakeAuthService: AuthService, ScriptableFake, BackedFake {
    /// A recorded call: the method, declared once below, applied to its arguments.
    public typealias Call = FakeCall<FakeAuthService>

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

    /// A sign-in: a strict fake's user becomes the one returned.
    private func signingIn<each Input>(
        _ method: FakeMethod<FakeAuthService, UserEntity, repeat each Input>, _ input: repeat each Input,
        forward: @escaping @Sendable (any AuthService) async throws -> UserEntity
    ) async throws -> UserEntity {
        let user = try await perform(method, repeat each input, forward: forward)
        show(user)
        return user
    }

    /// Recorded as a subscription; the current user first, then each change.
    public func authStateChanges() -> AsyncStream<UserEntity?> {
        controls.recordSubscription(.authStateChanges())
        return service?.authStateChanges() ?? users.subscribe()
    }

    /// Recorded as a subscription; the current user first, then each change of it.
    public func userChanges() -> AsyncStream<UserEntity?> {
        controls.recordSubscription(.userChanges())
        return service?.userChanges() ?? userValues.subscribe()
    }

    /// Returns the scripted user, or the service's; a strict fake's user becomes it.
    public func signInWithApple() async throws -> UserEntity {
        try await signingIn(.signInWithApple) { try await $0.signInWithApple() }
    }

    /// Returns the scripted user, or the service's; a strict fake's user becomes it.
    public func signInWithGoogle() async throws -> UserEntity {
        try await signingIn(.signInWithGoogle) { try await $0.signInWithGoogle() }
    }

    /// Returns the scripted credential, or the service's.
    public func requestCredential(from provider: AuthProvider) async throws -> SignInCredential {
        try await perform(.requestCredential, provider) { try await $0.requestCredential(from: provider) }
    }

    /// Returns the scripted user, or the service's; a strict fake's user becomes it.
    public func signIn(with credential: SignInCredential) async throws -> UserEntity {
        try await signingIn(.signIn, credential.provider) { try await $0.signIn(with: credential) }
    }

    /// Returns the scripted user, or the service's; a strict fake's user becomes it.
    public func createUser(email: String, password: String) async throws -> UserEntity {
        try await signingIn(.createUser, email) { try await $0.createUser(email: email, password: password) }
    }

    /// Returns the scripted verification ID, or the service's.
    public func sendVerificationCode(to phoneNumber: String) async throws -> String {
        try await perform(.sendVerificationCode, phoneNumber) {
            try await $0.sendVerificationCode(to: phoneNumber)
        }
    }

    /// Returns the scripted user, or the service's; a strict fake's user becomes it.
    @discardableResult
    public func reauthenticate(with credential: SignInCredential) async throws -> UserEntity {
        try await signingIn(.reauthenticate, credential.provider) { try await $0.reauthenticate(with: credential) }
    }

    /// Returns the scripted user, or the service's; a strict fake's user becomes it.
    public func link(_ credential: SignInCredential) async throws -> UserEntity {
        try await signingIn(.link, credential.provider) { try await $0.link(credential) }
    }

    /// Returns the scripted user, or the service's; a strict fake's user becomes it.
    public func unlink(_ provider: AuthProvider) async throws -> UserEntity {
        try await signingIn(.unlink, provider) { try await $0.unlink(provider) }
    }

    /// Returns the scripted user, or the service's; a strict fake's user becomes it.
    public func updateEmail(to email: String) async throws -> UserEntity {
        try await signingIn(.updateEmail, email) { try await $0.updateEmail(to: email) }
    }

    /// Returns the scripted state, or the service's; `revoked` and `notFound` sign a strict fake's user out.
    public func checkCredentialState() async throws -> CredentialState {
        let state = try await perform(.checkCredentialState) { try await $0.checkCredentialState() }
        if state == .revoked || state == .notFound { end(because: .credentialRevoked) }
        return state
    }

    /// Succeeds as scripted, or as the service does; a strict fake's user is signed out.
    public func signOut() async throws {
        try await perform(.signOut) { try await $0.signOut() }
        end(because: .signedOut)
    }

    /// Returns the scripted outcome, or the service's.
    public func revokeAppleToken() async throws -> AccountDeletionReceipt.TokenRevocation {
        try await perform(.revokeAppleToken) { try await $0.revokeAppleToken() }
    }

    /// Returns the scripted receipt, or the service's; a strict fake's user is signed out.
    @discardableResult
    public func deleteAccount() async throws -> AccountDeletionReceipt {
        let receipt = try await perform(.deleteAccount) { try await $0.deleteAccount() }
        end(because: .accountDeleted)
        return receipt
    }

    /// Returns the scripted outcome, or the service's; a strict fake records the
    /// schedule and signs its user out.
    @discardableResult
    public func scheduleAccountDeletion(of userID: String, at date: Date) async throws -> AccountDeletionReceipt.TokenRevocation {
        let outcome = try await perform(.scheduleAccountDeletion, userID, date) {
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
        try await perform(.cancelScheduledDeletion, userID) { try await $0.cancelScheduledDeletion(of: userID) }
        if service == nil { schedule(userID, at: nil) }
    }

    /// Recorded; the scripted schedules — a list that lags behind, say — or else the
    /// service's, or those a strict fake was told of.
    public func scheduledDeletions() throws -> [AccountDeletionSchedule] {
        try controls.performSynchronously(.scheduledDeletions) {
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
        let receipt = try await perform(.purgeScheduledAccount, userID) { try await $0.purgeScheduledAccount(userID) }
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
        try await perform(.isBiometricLockEnabled) { try await $0.isBiometricLockEnabled() }
    }

    /// Succeeds as scripted, or as the service does.
    public func setBiometricLock(enabled: Bool, reason: String) async throws {
        try await perform(.setBiometricLock, enabled) { try await $0.setBiometricLock(enabled: enabled, reason: reason) }
    }

    /// Returns the scripted guest, or the service's; a strict fake's user becomes it.
    public func signInAnonymously() async throws -> UserEntity {
        try await signingIn(.signInAnonymously) { try await $0.signInAnonymously() }
    }

    /// Succeeds as scripted, or as the service does.
    public func sendPasswordReset(email: String) async throws {
        try await perform(.sendPasswordReset, email) { try await $0.sendPasswordReset(email: email) }
    }

    /// Succeeds as scripted, or as the service does.
    public func confirmPasswordReset(code: String, newPassword: String) async throws {
        try await perform(.confirmPasswordReset) { try await $0.confirmPasswordReset(code: code, newPassword: newPassword) }
    }

    /// Succeeds as scripted, or as the service does.
    public func sendEmailVerification() async throws {
        try await perform(.sendEmailVerification) { try await $0.sendEmailVerification() }
    }

    /// Succeeds as scripted, or as the service does.
    public func verifyEmail(code: String) async throws {
        try await perform(.verifyEmail) { try await $0.verifyEmail(code: code) }
    }

    /// Succeeds as scripted, or as the service does.
    public func sendSignInCode(to email: String) async throws {
        try await perform(.sendSignInCode, email) { try await $0.sendSignInCode(to: email) }
    }

    /// Returns the scripted information, or the service's.
    public func checkActionCode(_ code: String, email: String?) async throws -> EmailCodeInspection {
        try await perform(.checkActionCode, email) { try await $0.checkActionCode(code, email: email) }
    }

    /// Returns the scripted information, or the service's; a backed fake shows the user the code changed.
    public func applyActionCode(_ code: String) async throws -> EmailCodeInspection {
        try await perform(.applyActionCode) { try await $0.applyActionCode(code) }
    }

    /// Succeeds as scripted, or as the service does.
    public func verifyBeforeUpdateEmail(to email: String) async throws {
        try await perform(.verifyBeforeUpdateEmail, email) { try await $0.verifyBeforeUpdateEmail(to: email) }
    }

    /// Recorded; throws an injected failure, or what the service throws; a strict fake
    /// requires nothing unless told to fail.
    public func requireVerifiedEmail(for action: VerifiedEmailAction) throws {
        try controls.performSynchronously(.requireVerifiedEmail, action) {
            try service?.requireVerifiedEmail(for: action)
        }
    }

    /// Succeeds as scripted, or as the service does.
    public func updatePassword(to newPassword: String) async throws {
        try await perform(.updatePassword) { try await $0.updatePassword(to: newPassword) }
    }

    /// Returns the scripted user, or the service's; a strict fake's user becomes it.
    public func updateProfile(of userID: String, displayName: String?, photoURL: URL?) async throws -> UserEntity {
        try await signingIn(.updateProfile, userID, displayName, photoURL) {
            try await $0.updateProfile(of: userID, displayName: displayName, photoURL: photoURL)
        }
    }

    /// Returns the scripted token, or the service's; a strict fake announces it on ``idTokenChanges()``.
    public func idToken(forceRefresh: Bool) async throws -> String {
        let token = try await perform(.idToken, forceRefresh) { try await $0.idToken(forceRefresh: forceRefresh) }
        if service == nil, tokens.value != token { tokens.send(token) }
        return token
    }

    /// Recorded as a subscription; the service's tokens, or the tokens a strict fake returned.
    public func idTokenChanges() -> AsyncStream<String?> {
        controls.recordSubscription(.idTokenChanges())
        return service?.idTokenChanges() ?? tokens.subscribe()
    }
}

extension FakeMethods where Fake == FakeAuthService {
    /// ``FakeAuthService/authStateChanges()``.
    public static var authStateChanges: FakeMethod<FakeAuthService, AsyncStream<UserEntity?>> { .init("authStateChanges()") }

    /// ``FakeAuthService/userChanges()``.
    public static var userChanges: FakeMethod<FakeAuthService, AsyncStream<UserEntity?>> { .init("userChanges()") }

    /// ``FakeAuthService/signInWithApple()``: the signed-in user.
    public static var signInWithApple: FakeMethod<FakeAuthService, UserEntity> { .init("signInWithApple()") }

    /// ``FakeAuthService/signInWithGoogle()``: the signed-in user.
    public static var signInWithGoogle: FakeMethod<FakeAuthService, UserEntity> { .init("signInWithGoogle()") }

    /// ``FakeAuthService/requestCredential(from:)``: the credential.
    public static var requestCredential: FakeMethod<FakeAuthService, SignInCredential, AuthProvider> { .init("requestCredential(from:)") }

    /// ``FakeAuthService/signIn(with:)``: the signed-in user.
    public static var signIn: FakeMethod<FakeAuthService, UserEntity, AuthProvider> { .init("signIn(with:)") }

    /// ``FakeAuthService/createUser(email:password:)``: the new user.
    public static var createUser: FakeMethod<FakeAuthService, UserEntity, String> { .init("createUser(email:password:)") }

    /// ``FakeAuthService/sendVerificationCode(to:)``: the verification ID.
    public static var sendVerificationCode: FakeMethod<FakeAuthService, String, String> { .init("sendVerificationCode(to:)") }

    /// ``FakeAuthService/reauthenticate(with:)``: the user.
    public static var reauthenticate: FakeMethod<FakeAuthService, UserEntity, AuthProvider> { .init("reauthenticate(with:)") }

    /// ``FakeAuthService/link(_:)``: the updated user.
    public static var link: FakeMethod<FakeAuthService, UserEntity, AuthProvider> { .init("link(_:)") }

    /// ``FakeAuthService/unlink(_:)``: the updated user.
    public static var unlink: FakeMethod<FakeAuthService, UserEntity, AuthProvider> { .init("unlink(_:)") }

    /// ``FakeAuthService/updateEmail(to:)``: the updated user.
    public static var updateEmail: FakeMethod<FakeAuthService, UserEntity, String> { .init("updateEmail(to:)") }

    /// ``FakeAuthService/checkCredentialState()``: the state.
    public static var checkCredentialState: FakeMethod<FakeAuthService, CredentialState> { .init("checkCredentialState()") }

    /// ``FakeAuthService/signOut()``.
    public static var signOut: FakeMethod<FakeAuthService, Void> { .init("signOut()") }

    /// ``FakeAuthService/revokeAppleToken()``: the outcome.
    public static var revokeAppleToken: FakeMethod<FakeAuthService, AccountDeletionReceipt.TokenRevocation> { .init("revokeAppleToken()") }

    /// ``FakeAuthService/deleteAccount()``: the receipt.
    public static var deleteAccount: FakeMethod<FakeAuthService, AccountDeletionReceipt> { .init("deleteAccount()") }

    /// ``FakeAuthService/scheduleAccountDeletion(of:at:)``: the Apple token's outcome.
    public static var scheduleAccountDeletion: FakeMethod<FakeAuthService, AccountDeletionReceipt.TokenRevocation, String, Date> {
        .init("scheduleAccountDeletion(of:at:)")
    }

    /// ``FakeAuthService/cancelScheduledDeletion(of:)``.
    public static var cancelScheduledDeletion: FakeMethod<FakeAuthService, Void, String> { .init("cancelScheduledDeletion(of:)") }

    /// ``FakeAuthService/scheduledDeletions()``: the schedules, while scripted.
    public static var scheduledDeletions: FakeMethod<FakeAuthService, [AccountDeletionSchedule]> { .init("scheduledDeletions()") }

    /// ``FakeAuthService/scheduledDeletion(of:)``.
    public static var scheduledDeletion: FakeMethod<FakeAuthService, Date?, String> { .init("scheduledDeletion(of:)") }

    /// ``FakeAuthService/purgeScheduledAccount(_:)``: the receipt, nil if there was no account.
    public static var purgeScheduledAccount: FakeMethod<FakeAuthService, AccountDeletionReceipt?, String> { .init("purgeScheduledAccount(_:)") }

    /// ``FakeAuthService/beginAccountPurge(of:)``.
    public static var beginAccountPurge: FakeMethod<FakeAuthService, Void, String> { .init("beginAccountPurge(of:)") }

    /// ``FakeAuthService/accountExists(_:)``.
    public static var accountExists: FakeMethod<FakeAuthService, Bool, String> { .init("accountExists(_:)") }

    /// ``FakeAuthService/isBiometricLockEnabled()``: the setting.
    public static var isBiometricLockEnabled: FakeMethod<FakeAuthService, Bool> { .init("isBiometricLockEnabled()") }

    /// ``FakeAuthService/setBiometricLock(enabled:reason:)``.
    public static var setBiometricLock: FakeMethod<FakeAuthService, Void, Bool> { .init("setBiometricLock(enabled:reason:)") }

    /// ``FakeAuthService/signInAnonymously()``: the guest.
    public static var signInAnonymously: FakeMethod<FakeAuthService, UserEntity> { .init("signInAnonymously()") }

    /// ``FakeAuthService/sendPasswordReset(email:)``.
    public static var sendPasswordReset: FakeMethod<FakeAuthService, Void, String> { .init("sendPasswordReset(email:)") }

    /// ``FakeAuthService/confirmPasswordReset(code:newPassword:)``.
    public static var confirmPasswordReset: FakeMethod<FakeAuthService, Void> { .init("confirmPasswordReset(code:newPassword:)") }

    /// ``FakeAuthService/sendEmailVerification()``.
    public static var sendEmailVerification: FakeMethod<FakeAuthService, Void> { .init("sendEmailVerification()") }

    /// ``FakeAuthService/verifyEmail(code:)``.
    public static var verifyEmail: FakeMethod<FakeAuthService, Void> { .init("verifyEmail(code:)") }

    /// ``FakeAuthService/sendSignInCode(to:)``.
    public static var sendSignInCode: FakeMethod<FakeAuthService, Void, String> { .init("sendSignInCode(to:)") }

    /// ``FakeAuthService/checkActionCode(_:email:)``: what the code is.
    public static var checkActionCode: FakeMethod<FakeAuthService, EmailCodeInspection, String?> { .init("checkActionCode(_:email:)") }

    /// ``FakeAuthService/applyActionCode(_:)``: what the code was.
    public static var applyActionCode: FakeMethod<FakeAuthService, EmailCodeInspection> { .init("applyActionCode(_:)") }

    /// ``FakeAuthService/verifyBeforeUpdateEmail(to:)``.
    public static var verifyBeforeUpdateEmail: FakeMethod<FakeAuthService, Void, String> { .init("verifyBeforeUpdateEmail(to:)") }

    /// ``FakeAuthService/requireVerifiedEmail(for:)``: fails only when told to.
    public static var requireVerifiedEmail: FakeMethod<FakeAuthService, Void, VerifiedEmailAction> { .init("requireVerifiedEmail(for:)") }

    /// ``FakeAuthService/updatePassword(to:)``.
    public static var updatePassword: FakeMethod<FakeAuthService, Void> { .init("updatePassword(to:)") }

    /// ``FakeAuthService/updateProfile(of:displayName:photoURL:)``: the updated user.
    public static var updateProfile: FakeMethod<FakeAuthService, UserEntity, String, String?, URL?> {
        .init("updateProfile(of:displayName:photoURL:)")
    }

    /// ``FakeAuthService/idToken(forceRefresh:)``: the token.
    public static var idToken: FakeMethod<FakeAuthService, String, Bool> { .init("idToken(forceRefresh:)") }

    /// ``FakeAuthService/idTokenChanges()``.
    public static var idTokenChanges: FakeMethod<FakeAuthService, AsyncStream<String?>> { .init("idTokenChanges()") }
}
