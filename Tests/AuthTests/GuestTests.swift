import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainAuth

/// AUTH-13: guest accounts, upgraded in place, switched away from, and purged when idle.
@Suite(.timeLimit(.minutes(1))) struct GuestTests {
    @Test("a guest has no providers; linking Apple upgrades it in place with the same ID", arguments: AuthVariant.allCases)
    func upgradeInPlace(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let guest = try await harness.service.signInAnonymously()
        #expect(guest.isAnonymous && guest.providers.isEmpty && guest.email == nil)
        #expect(try await harness.service.signInAnonymously().id == guest.id)
        let credential = try await harness.appleCredential()
        let user = try await harness.service.link(credential)
        #expect(user.id == guest.id && !user.isAnonymous && user.email == "ada@example.com" && user.isEmailVerified)
        try await harness.service.signOut()
        #expect(try await harness.signInWithApple().id == guest.id)
    }

    @Test("linking a credential of another account is credentialAlreadyInUse carrying the unused credential, which switches to it")
    func switchingAccounts() async throws {
        let harness = try AuthHarness()
        let ada = try await harness.signInWithApple()
        try await harness.service.signOut()
        let guest = try await harness.service.signInAnonymously()
        let credential = try await harness.appleCredential()
        var updated: SignInCredential?
        do {
            _ = try await harness.service.link(credential)
            Issue.record("linking another account's Apple ID succeeded")
        } catch let error as AuthenticationError {
            #expect(error.code == .credentialAlreadyInUse)
            updated = error.updatedCredential
        }
        #expect(harness.service.currentUser?.id == guest.id, "the refused link leaves the guest signed in")
        let switched = try await harness.service.signIn(with: try #require(updated))
        #expect(switched.id == ada.id)
        #expect(try harness.service.scheduledDeletion(of: guest.id) == nil, "the guest is kept for the app to merge, until idle")
    }

    @Test("a password credential in use carries no credential in its error")
    func passwordNotCarried() async throws {
        let harness = try AuthHarness()
        _ = try await harness.service.createUser(email: "ada@example.com", password: "correct horse 1")
        _ = try await harness.service.signInAnonymously()
        do {
            _ = try await harness.service.link(.emailPassword(email: "ada@example.com", password: "correct horse 1"))
            Issue.record("linking another account's password succeeded")
        } catch let error as AuthenticationError {
            #expect(error.code == .credentialAlreadyInUse && error.updatedCredential == nil)
        }
    }

    @Test("a guest idle past the policy's lifetime is listed as due and purged; a linked one never is", arguments: AuthVariant.allCases)
    func idlePurge(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let idle = try await harness.service.signInAnonymously()
        try await harness.service.signOut()
        let kept = try await harness.service.signInAnonymously()
        _ = try await harness.service.link(.emailPassword(email: "ada@example.com", password: "correct horse 1"))
        harness.clock.advance(by: .seconds(30 * 86_400 - 1))
        #expect(try harness.service.scheduledDeletions().isEmpty, "a day short of the lifetime, nothing is due")
        harness.clock.advance(by: .seconds(1))
        #expect(try harness.service.scheduledDeletions().map(\.userID) == [idle.id])
        let receipt = try await harness.service.purgeScheduledAccount(idle.id)
        #expect(receipt?.userID == idle.id && receipt?.providers == [])
        await #expect(throws: AuthenticationError(.operationNotAllowed)) { try await harness.service.purgeScheduledAccount(kept.id) }
        #expect(try harness.service.scheduledDeletions().isEmpty)
    }

    @Test("opening the app as a guest starts its idle time again; a guest idle past it is signed out at launch")
    func relaunchTouchesGuest() async throws {
        let harness = try AuthHarness(.file)
        let guest = try await harness.service.signInAnonymously()
        harness.clock.advance(by: .seconds(20 * 86_400))
        #expect(try harness.relaunch().currentUser?.id == guest.id)
        harness.clock.advance(by: .seconds(20 * 86_400))
        #expect(try harness.service.scheduledDeletions().isEmpty, "40 days after creation, 20 after the last launch")
        harness.clock.advance(by: .seconds(10 * 86_400))
        #expect(try harness.relaunch().currentUser == nil)
        let next = try await harness.service.signInAnonymously()
        #expect(next.id != guest.id)
    }

    @Test("a guest deletes its account without a recent login: it has nothing to prove itself with")
    func guestDeletion() async throws {
        let harness = try AuthHarness()
        let guest = try await harness.service.signInAnonymously()
        harness.clock.advance(by: .seconds(3_600))
        #expect(try await harness.service.deleteAccount().userID == guest.id)
    }

    @Test(
        "a guest that sets a password or signs in by email code is a guest no more, and is never purged for idling", arguments: AuthVariant.allCases)
    func upgradeByPasswordOrCode(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        _ = try await harness.service.signInAnonymously()
        _ = try await harness.service.updateEmail(to: "ada@example.com")
        try await harness.service.updatePassword(to: "correct horse 1")
        #expect(harness.service.currentUser?.isAnonymous == false)
        try await harness.service.signOut()
        _ = try await harness.service.signInAnonymously()
        _ = try await harness.service.updateEmail(to: "grace@example.com")
        try await harness.service.signOut()
        try await harness.service.sendSignInCode(to: "grace@example.com")
        let grace = try await harness.service.signIn(
            with: .emailCode(email: "grace@example.com", code: try #require(harness.mailbox.lastCode(for: "grace@example.com", .signInCode))))
        #expect(!grace.isAnonymous)
        harness.clock.advance(by: .seconds(31 * 86_400))
        #expect(try harness.service.scheduledDeletions().isEmpty)
    }

    @Test("a guest whose app asks for ID tokens is in use and is not purged")
    func tokensAreUse() async throws {
        let harness = try AuthHarness()
        let guest = try await harness.service.signInAnonymously()
        for _ in 0..<40 {
            harness.clock.advance(by: .seconds(86_400))
            _ = try await harness.service.idToken()
        }
        #expect(try harness.service.scheduledDeletions().isEmpty && harness.service.currentUser?.id == guest.id)
    }
}
