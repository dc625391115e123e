import Foundation
import Testing
import TrainAuth
import TrainCore
import TrainSocial
import TrainSync
import TrainTesting

/// A write that raced an account deletion's hide: its user was signed in when the call
/// began and is not any more when its transaction runs. The transaction itself asks,
/// so the write is refused instead of landing after the purge looked.
@Suite(.timeLimit(.minutes(1))) struct LateWriteTests {
    static let ada = UserEntity(id: "ada", displayName: "Ada", createdAt: ManualClock.defaultStart, lastSignInAt: ManualClock.defaultStart)
    static let bob = UserEntity(id: "bob", displayName: "Bob", createdAt: ManualClock.defaultStart, lastSignInAt: ManualClock.defaultStart)

    @Test("a follow whose user was signed out between the call's first check and its transaction is refused and writes nothing")
    func socialWriteRacingTheHide() async throws {
        let store = try RecordStore(.inMemory, schema: LocalSocialFeedService.recordSchema)
        let bobs = LocalSocialFeedService(
            auth: FakeAuthService(currentUser: Self.bob), store: store, media: LocalMediaStore(), context: .live, configuration: SocialConfiguration()
        )
        _ = try await bobs.refreshProfile()
        let racing = LocalSocialFeedService(
            auth: SignedOutAfterReads(Self.ada, reads: 1), store: store, media: LocalMediaStore(), context: .live,
            configuration: SocialConfiguration())
        await #expect(throws: SocialError(.notSignedIn)) { try await racing.follow(Self.bob.id) }
        #expect(try await bobs.followers().isEmpty, "the follow did not land")
    }

    @Test("a plan edit whose user was signed out between the call's first check and its transaction is refused and queues nothing")
    func planEditRacingTheHide() async throws {
        let store = try RecordStore(.inMemory, schema: LocalPlanSyncService.recordSchema)
        let remote = LocalRemotePlanStore()
        let racing = LocalPlanSyncService(
            auth: SignedOutAfterReads(Self.ada, reads: 1), remote: remote, store: store, context: .live, configuration: SyncConfiguration())
        let plan = TrainingPlan(
            name: "10k", startDate: ManualClock.defaultStart, endDate: ManualClock.defaultStart.addingTimeInterval(86_400), daysPerWeek: 3)
        await #expect(throws: SyncError(.notSignedIn)) { _ = try await racing.createPlan(plan) }
        let reader = LocalPlanSyncService(
            auth: FakeAuthService(currentUser: Self.ada), remote: remote, store: store, context: .live, configuration: SyncConfiguration())
        #expect(try reader.plans().isEmpty, "nothing was saved or queued")
    }
}

/// An auth service whose user is signed in for the first `reads` reads of
/// `currentUser`, then signed out — as a deletion's hide on another device would end
/// the session between a call's first check and its transaction. Everything else is
/// a strict `FakeAuthService` with that user.
final class SignedOutAfterReads: AuthService {
    let base: FakeAuthService
    let user: UserEntity
    private let left: Locked<Int>

    init(_ user: UserEntity, reads: Int) {
        self.user = user
        base = FakeAuthService(currentUser: user)
        left = Locked(reads)
    }

    var currentUser: UserEntity? {
        left.withLock { left in
            defer { left -= 1 }
            return left > 0 ? user : nil
        }
    }

    func authStateChanges() -> AsyncStream<UserEntity?> { base.authStateChanges() }
    func userChanges() -> AsyncStream<UserEntity?> { base.userChanges() }
    func signInWithApple() async throws -> UserEntity { try await base.signInWithApple() }
    func signInWithGoogle() async throws -> UserEntity { try await base.signInWithGoogle() }
    func requestCredential(from provider: AuthProvider) async throws -> SignInCredential { try await base.requestCredential(from: provider) }
    func signIn(with credential: SignInCredential) async throws -> UserEntity { try await base.signIn(with: credential) }
    func createUser(email: String, password: String) async throws -> UserEntity { try await base.createUser(email: email, password: password) }
    func sendVerificationCode(to phoneNumber: String) async throws -> String { try await base.sendVerificationCode(to: phoneNumber) }
    func reauthenticate(with credential: SignInCredential) async throws -> UserEntity { try await base.reauthenticate(with: credential) }
    func link(_ credential: SignInCredential) async throws -> UserEntity { try await base.link(credential) }
    func unlink(_ provider: AuthProvider) async throws -> UserEntity { try await base.unlink(provider) }
    func updateEmail(to email: String) async throws -> UserEntity { try await base.updateEmail(to: email) }
    func checkCredentialState() async throws -> CredentialState { try await base.checkCredentialState() }
    func signOut() async throws { try await base.signOut() }
    func revokeAppleToken() async throws -> AccountDeletionReceipt.TokenRevocation { try await base.revokeAppleToken() }
    func deleteAccount() async throws -> AccountDeletionReceipt { try await base.deleteAccount() }
    func scheduleAccountDeletion(of userID: String, at date: Date) async throws -> AccountDeletionReceipt.TokenRevocation {
        try await base.scheduleAccountDeletion(of: userID, at: date)
    }
    func cancelScheduledDeletion(of userID: String) async throws { try await base.cancelScheduledDeletion(of: userID) }
    func scheduledDeletions() throws -> [AccountDeletionSchedule] { try base.scheduledDeletions() }
    func scheduledDeletion(of userID: String) throws -> Date? { try base.scheduledDeletion(of: userID) }
    func beginAccountPurge(of userID: String) async throws { try await base.beginAccountPurge(of: userID) }
    func accountExists(_ userID: String) throws -> Bool { try base.accountExists(userID) }
    var lastSessionEnd: SessionEnd? { base.lastSessionEnd }
    func purgeScheduledAccount(_ userID: String) async throws -> AccountDeletionReceipt? { try await base.purgeScheduledAccount(userID) }
    func isBiometricLockEnabled() async throws -> Bool { try await base.isBiometricLockEnabled() }
    func signInAnonymously() async throws -> UserEntity { try await base.signInAnonymously() }
    func sendPasswordReset(email: String) async throws { try await base.sendPasswordReset(email: email) }
    func confirmPasswordReset(code: String, newPassword: String) async throws {
        try await base.confirmPasswordReset(code: code, newPassword: newPassword)
    }
    func sendEmailVerification() async throws { try await base.sendEmailVerification() }
    func verifyEmail(code: String) async throws { try await base.verifyEmail(code: code) }
    func sendSignInCode(to email: String) async throws { try await base.sendSignInCode(to: email) }
    func requireVerifiedEmail(for action: VerifiedEmailAction) throws { try base.requireVerifiedEmail(for: action) }
    func updatePassword(to newPassword: String) async throws { try await base.updatePassword(to: newPassword) }
    func updateProfile(of userID: String, displayName: String?, photoURL: URL?) async throws -> UserEntity {
        try await base.updateProfile(of: userID, displayName: displayName, photoURL: photoURL)
    }
    func idToken(forceRefresh: Bool) async throws -> String { try await base.idToken(forceRefresh: forceRefresh) }
    func idTokenChanges() -> AsyncStream<String?> { base.idTokenChanges() }
    func setBiometricLock(enabled: Bool, reason: String) async throws { try await base.setBiometricLock(enabled: enabled, reason: reason) }
}
