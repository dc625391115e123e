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

    @Test(
        "linking a credential of another account is credentialAlreadyInUse carrying the unused credential, which switches to it",
        arguments: AuthVariant.allCases)
    func switchingAccounts(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
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

    @Test(
        "linking a password whose address another account holds is emailAlreadyInUse with the address, carrying no credential",
        arguments: AuthVariant.allCases)
    func passwordNotCarried(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        _ = try await harness.service.createUser(email: "ada@example.com", password: "correct horse 1")
        _ = try await harness.service.signInAnonymously()
        do {
            _ = try await harness.service.link(.emailPassword(email: "ada@example.com", password: "correct horse 1"))
            Issue.record("linking another account's password succeeded")
        } catch let error as AuthenticationError {
            #expect(error.code == .emailAlreadyInUse && error.email == "ada@example.com" && error.updatedCredential == nil)
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

    @Test("a guest deletes its account without a recent login: it has nothing to prove itself with", arguments: AuthVariant.allCases)
    func guestDeletion(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
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

    @Test("a guest whose app asks for ID tokens is in use and is not purged", arguments: AuthVariant.allCases)
    func tokensAreUse(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let guest = try await harness.service.signInAnonymously()
        for _ in 0..<40 {
            harness.clock.advance(by: .seconds(86_400))
            _ = try await harness.service.idToken()
        }
        #expect(try harness.service.scheduledDeletions().isEmpty && harness.service.currentUser?.id == guest.id)
    }

    @Test(
        "a guest linking Google whose address another account has is emailAlreadyInUse with the address and the unused credential, which links there",
        arguments: AuthVariant.allCases)
    func emailOfAnotherAccount(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let ada = try await harness.service.createUser(email: "ada@example.com", password: "correct horse 1")
        try await harness.service.signOut()
        let guest = try await harness.service.signInAnonymously()
        harness.google.signIn(as: AuthHarness.ada)
        let credential = try await harness.service.requestCredential(from: .google)
        let error = try await #require(throws: AuthenticationError.self) { _ = try await harness.service.link(credential) }
        #expect(error.code == .emailAlreadyInUse && error.email == "ada@example.com")
        let updated = try #require(error.updatedCredential)
        #expect(harness.service.currentUser?.id == guest.id && harness.service.currentUser?.isAnonymous == true, "the guest is as it was")
        _ = try await harness.service.signIn(with: .emailPassword(email: "ada@example.com", password: "correct horse 1"))
        let linked = try await harness.service.link(updated)
        #expect(linked.id == ada.id && Set(linked.providers.map(\.provider)) == [.password, .google])
    }

    @Test("a guest linking Google or a phone number is upgraded in place with the same ID", arguments: AuthVariant.allCases)
    func upgradeByGoogleOrPhone(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let first = try await harness.service.signInAnonymously()
        harness.google.signIn(as: AuthHarness.grace)
        let google = try await harness.service.link(try await harness.service.requestCredential(from: .google))
        #expect(google.id == first.id && !google.isAnonymous && google.email == "grace@example.com")
        try await harness.service.signOut()
        let second = try await harness.service.signInAnonymously()
        let verificationID = try await harness.service.sendVerificationCode(to: "+1 650-555-1234")
        let phone = try await harness.service.link(.phone(verificationID: verificationID, code: "123456"))
        #expect(phone.id == second.id && !phone.isAnonymous && phone.phoneNumber == "+16505551234")
        harness.clock.advance(by: .seconds(31 * 86_400))
        #expect(try harness.service.scheduledDeletions().isEmpty, "neither is purged for idling")
    }

    @Test("a guest the app never uses again is idle even while its token is renewed by itself", arguments: AuthVariant.allCases)
    func renewalIsNotUse(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant, policy: AuthPolicy(passwordIterations: 1_000, guestIdleLifetime: .seconds(3 * 3_600)))
        let guest = try await harness.service.signInAnonymously()
        _ = try await harness.service.idToken()
        for _ in 0..<3 { // 2 h 45 min with no call from the app, the token renewed every 55 minutes
            await harness.clock.waitForSleeper(wakingBy: harness.clock.now.addingTimeInterval(3_301))
            harness.clock.advance(by: .seconds(3_301))
        }
        await harness.clock.waitForSleeper(wakingBy: harness.clock.now.addingTimeInterval(3_301))
        harness.clock.advance(by: .seconds(20 * 60)) // 3 h 5 min since the guest was last used
        #expect(try harness.service.scheduledDeletions().map(\.userID) == [guest.id])
    }
}
