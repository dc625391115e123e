import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainAuth

@Suite(.timeLimit(.minutes(1))) struct ScheduledDeletionTests {
    static let thirtyDays: TimeInterval = 30 * 86_400

    @Test("scheduling a deletion revokes the Apple token, signs out, and lists the account with its date", arguments: AuthVariant.allCases)
    func schedule(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let user = try await harness.signInWithApple()
        let date = harness.clock.now.addingTimeInterval(Self.thirtyDays)
        #expect(try await harness.service.scheduleAccountDeletion(of: user.id, at: date) == .revoked)
        #expect(harness.service.currentUser == nil)
        #expect(try harness.service.scheduledDeletions() == [AccountDeletionSchedule(userID: user.id, purgeAt: date)])
        if variant == .file {
            #expect(try harness.relaunch().currentUser == nil, "the session is gone from the file too")
        }
    }

    @Test("during the grace period the user signs in to the same account and can restore it")
    func restoreDuringGrace() async throws {
        let harness = try AuthHarness()
        let user = try await harness.signInWithApple()
        try await harness.service.scheduleAccountDeletion(of: user.id, at: harness.clock.now.addingTimeInterval(Self.thirtyDays))
        harness.clock.advance(by: .seconds(29 * 86_400))
        #expect(try await harness.signInWithApple().id == user.id)
        #expect(try harness.service.scheduledDeletion(of: user.id) != nil, "signing in alone does not restore")
        try await harness.service.cancelScheduledDeletion(of: user.id)
        #expect(try harness.service.scheduledDeletions().isEmpty)
        harness.clock.advance(by: .seconds(2 * 86_400))
        #expect(try await harness.signInWithApple().id == user.id, "the account outlives the old date")
        await #expect(throws: AuthenticationError(.operationNotAllowed)) { try await harness.service.cancelScheduledDeletion(of: user.id) }
    }

    @Test("from the date on, sign-in and the restored session are refused, and the purge deletes the account", arguments: AuthVariant.allCases)
    func purgeWhenDue(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let user = try await harness.signInWithApple()
        let date = harness.clock.now.addingTimeInterval(Self.thirtyDays)
        try await harness.service.scheduleAccountDeletion(of: user.id, at: date)
        _ = try await harness.signInWithApple() // during the grace period, not restored
        await #expect(throws: AuthenticationError(.operationNotAllowed)) { try await harness.service.purgeScheduledAccount(user.id) }
        harness.clock.setDate(date)
        await #expect(throws: AuthenticationError(.userDisabled)) { _ = try await harness.service.isBiometricLockEnabled() }
        #expect(harness.service.currentUser == nil, "the session ends at the date")
        let refused = await #expect(throws: AuthenticationError(.userDisabled)) { try await harness.signInWithApple() }
        #expect(refused?.errorDescription == AuthRecords.deletedMessage)

        let receipt = try await harness.service.purgeScheduledAccount(user.id)
        #expect(receipt?.userID == user.id && receipt?.providers == [.apple])
        if case .failed = receipt?.tokenRevocation {
        } else {
            Issue.record("the Apple sign-in during the grace period gave tokens the purge cannot revoke: reported as failed")
        }
        #expect(try await harness.service.purgeScheduledAccount(user.id) == nil, "a second purge finds nothing")
        #expect(try harness.service.scheduledDeletions().isEmpty)
        #expect(try await harness.signInWithApple().id != user.id, "the same Apple ID makes a new account")
    }

    @Test("a purge of an account that signed in with Apple only before scheduling reports the revocation made then")
    func purgeReportsTheKeptRevocation() async throws {
        let harness = try AuthHarness()
        let user = try await harness.signInWithApple()
        let date = harness.clock.now.addingTimeInterval(Self.thirtyDays)
        try await harness.service.scheduleAccountDeletion(of: user.id, at: date)
        harness.clock.setDate(date)
        #expect(try await harness.service.purgeScheduledAccount(user.id)?.tokenRevocation == .revoked)
    }

    @Test("refusals change nothing: signed out, another user, not recent, nothing to cancel, already scheduled, an unknown or not-due purge")
    func refusals() async throws {
        let harness = try AuthHarness()
        let later = harness.clock.now.addingTimeInterval(Self.thirtyDays)
        await #expect(throws: AuthenticationError(.notSignedIn)) { try await harness.service.scheduleAccountDeletion(of: "user-1", at: later) }
        let user = try await harness.signInWithApple()
        await #expect(throws: AuthenticationError(.userMismatch)) { try await harness.service.scheduleAccountDeletion(of: "someone-else", at: later) }
        await #expect(throws: AuthenticationError(.operationNotAllowed)) { try await harness.service.cancelScheduledDeletion(of: user.id) }
        harness.clock.advance(by: .seconds(3_600))
        await #expect(throws: AuthenticationError(.requiresRecentLogin)) { try await harness.service.scheduleAccountDeletion(of: user.id, at: later) }
        #expect(try harness.service.scheduledDeletions().isEmpty)
        #expect(harness.service.currentUser?.id == user.id)
        #expect(harness.apple.revocationsRecorded.isEmpty)

        try await harness.service.reauthenticate(with: try await harness.appleCredential())
        try await harness.service.scheduleAccountDeletion(of: user.id, at: later)
        _ = try await harness.signInWithApple()
        await #expect(throws: AuthenticationError(.operationNotAllowed)) {
            try await harness.service.scheduleAccountDeletion(of: user.id, at: later.addingTimeInterval(60))
        }
        #expect(try harness.service.scheduledDeletions() == [AccountDeletionSchedule(userID: user.id, purgeAt: later)], "the first date stands")
        #expect(try await harness.service.purgeScheduledAccount("nobody") == nil)
        await #expect(throws: AuthenticationError(.operationNotAllowed)) { try await harness.service.purgeScheduledAccount(user.id) }
        #expect(harness.service.currentUser?.id == user.id)
    }

    @Test("a purged account stays gone when the clock is set back before its date")
    func clockSetBack() async throws {
        let harness = try AuthHarness()
        let user = try await harness.signInWithApple()
        let start = harness.clock.now
        let date = start.addingTimeInterval(Self.thirtyDays)
        try await harness.service.scheduleAccountDeletion(of: user.id, at: date)
        harness.clock.setDate(date)
        _ = try await harness.service.purgeScheduledAccount(user.id)
        harness.clock.setDate(start)
        #expect(try await harness.signInWithApple().id != user.id, "once purged, the account is gone whatever the clock says")
    }

    @Test(
        "a date that has come deletes at once: the account is due whatever the clock says later, its sign-in is refused, it cannot be cancelled, and a grace period can be brought forward to it"
    )
    func immediateDeletion() async throws {
        let harness = try AuthHarness()
        let user = try await harness.signInWithApple()
        try await harness.service.scheduleAccountDeletion(of: user.id, at: harness.clock.now.addingTimeInterval(Self.thirtyDays))
        _ = try await harness.signInWithApple()
        try await harness.service.reauthenticate(with: try await harness.appleCredential())
        await #expect(throws: AuthenticationError(.operationNotAllowed), "a later date is not a postponement") {
            try await harness.service.scheduleAccountDeletion(of: user.id, at: harness.clock.now.addingTimeInterval(2 * Self.thirtyDays))
        }
        try await harness.service.scheduleAccountDeletion(of: user.id, at: harness.clock.now)
        #expect(try harness.service.scheduledDeletion(of: user.id) == .distantPast)
        #expect(harness.service.currentUser == nil)
        harness.clock.setDate(harness.clock.now.addingTimeInterval(-7 * 86_400))
        await #expect(throws: AuthenticationError(.userDisabled)) { _ = try await harness.signInWithApple() }
        #expect(try await harness.service.purgeScheduledAccount(user.id)?.userID == user.id)
        #expect(try await harness.signInWithApple().id != user.id, "the Apple ID is free once the account is purged")
    }
}
