import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainAuth

/// AUTH-12 against account pre-hijacking: an address typed into an account without
/// proof gives whoever typed it no way into the account of the one who receives its mail.
@Suite(.timeLimit(.minutes(1))) struct AddressClaimTests {
    static let victim = "victim@example.com"

    /// Signs `code`'s address in on `service` with the code the mailbox received.
    private func signInByCode(_ service: LocalAuthService, _ harness: AuthHarness, email: String = victim) async throws -> UserEntity {
        try await service.sendSignInCode(to: email)
        let code = try #require(harness.mailbox.lastCode(for: email, .signInCode))
        return try await service.signIn(with: .emailCode(email: email, code: code))
    }

    @Test(
        "an Apple account that typed in someone's address loses it when they sign in by code, and they get an account of their own",
        arguments: AuthVariant.allCases)
    func claimWithAppleGivesWay(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let store = try harness.sharedStore()
        let attackerDevice = try harness.device(on: store, session: "attacker")
        harness.apple.signIn(as: AuthHarness.grace)
        let attacker = try await attackerDevice.signInWithApple()
        _ = try await attackerDevice.updateEmail(to: Self.victim)

        let victimDevice = try harness.device(on: store, session: "victim")
        let victim = try await signInByCode(victimDevice, harness)
        #expect(victim.id != attacker.id, "the code signs in to an account of the address's owner")
        #expect(victim.email == Self.victim && victim.isEmailVerified)

        try await attackerDevice.signOut()
        let back = try await attackerDevice.signInWithApple()
        #expect(back.id == attacker.id && back.email != Self.victim, "the claimant keeps its account, without the address")
        try await victimDevice.signOut()
        #expect(try await signInByCode(victimDevice, harness).id == victim.id)
    }

    @Test("a password linked on someone's address by an Apple account is removed when they prove the address", arguments: AuthVariant.allCases)
    func linkedPasswordClaimGivesWay(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        harness.apple.signIn(as: SimulatedIdentityProvider.Account(subject: "003.mallory"))
        let attacker = try await harness.service.signInWithApple()
        _ = try await harness.service.link(.emailPassword(email: Self.victim, password: "mallory horse 1"))
        try await harness.service.signOut()

        let victim = try await signInByCode(harness.service, harness)
        #expect(victim.id != attacker.id && !victim.isLinked(.password))
        try await harness.service.signOut()
        await #expect(throws: AuthenticationError(.invalidCredential)) {
            _ = try await harness.service.signIn(with: .emailPassword(email: Self.victim, password: "mallory horse 1"))
        }
        #expect(try await harness.service.signInWithApple().providers.map(\.provider) == [.apple])
    }

    @Test(
        "a password-only account on an unproven address is taken over by a code sign-in: the password goes and its other sessions end",
        arguments: AuthVariant.allCases)
    func passwordOnlyClaimIsTakenOver(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let store = try harness.sharedStore()
        let attackerDevice = try harness.device(on: store, session: "attacker")
        let claimed = try await attackerDevice.createUser(email: Self.victim, password: "mallory horse 1")
        let attackerToken = try await attackerDevice.idToken(forceRefresh: false)

        let victimDevice = try harness.device(on: store, session: "victim")
        let victim = try await signInByCode(victimDevice, harness)
        #expect(victim.id == claimed.id && victim.isEmailVerified && !victim.isLinked(.password))
        #expect(throws: AuthenticationError(.userTokenRevoked)) { _ = try victimDevice.tokenVerifier().verify(attackerToken) }
        await #expect(throws: AuthenticationError(.notSignedIn)) { _ = try await attackerDevice.idToken(forceRefresh: true) }
        #expect(attackerDevice.currentUser == nil)
        #expect(victimDevice.currentUser?.id == victim.id, "the device that proved the address stays signed in")
        _ = try await victimDevice.idToken(forceRefresh: true)
    }

    @Test("a reset is not sent for, nor honoured on, an unproven address of an account with another way in", arguments: AuthVariant.allCases)
    func resetSkipsUnprovenClaims(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        _ = try await harness.service.createUser(email: Self.victim, password: "mallory horse 1")
        // Sent while the account signs in only by the address: the code is the owner's.
        try await harness.service.sendPasswordReset(email: Self.victim)
        let code = try #require(harness.mailbox.lastCode(for: Self.victim, .passwordReset))
        harness.apple.signIn(as: AuthHarness.grace)
        let attacker = try await harness.service.link(try await harness.service.requestCredential(from: .apple))

        await #expect(throws: AuthenticationError(.invalidActionCode)) {
            try await harness.service.confirmPasswordReset(code: code, newPassword: "victim horse 2")
        }
        let sent = harness.mailbox.emails.count
        try await harness.service.sendPasswordReset(email: Self.victim)
        #expect(harness.mailbox.emails.count == sent, "nothing is mailed, and the answer is an unknown address's")
        try await harness.service.signOut()
        #expect(try await harness.service.signIn(with: .emailPassword(email: Self.victim, password: "mallory horse 1")).id == attacker.id)
    }

    @Test("an account proving its own typed-in address by linking a code keeps it, verified", arguments: AuthVariant.allCases)
    func ownClaimIsProvenByLinking(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        harness.apple.signIn(as: SimulatedIdentityProvider.Account(subject: "004.jo"))
        let jo = try await harness.service.signInWithApple()
        _ = try await harness.service.updateEmail(to: "jo@example.com")
        try await harness.service.sendSignInCode(to: "jo@example.com")
        let code = try #require(harness.mailbox.lastCode(for: "jo@example.com", .signInCode))
        let linked = try await harness.service.link(.emailCode(email: "jo@example.com", code: code))
        #expect(linked.id == jo.id && linked.email == "jo@example.com" && linked.isEmailVerified && linked.isLinked(.emailCode))
    }

    @Test("linking a code to an address another account claimed without proof takes the address from it", arguments: AuthVariant.allCases)
    func linkingTakesAnUnprovenAddress(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let store = try harness.sharedStore()
        let attackerDevice = try harness.device(on: store, session: "attacker")
        harness.apple.signIn(as: AuthHarness.grace)
        _ = try await attackerDevice.signInWithApple()
        let attacker = try await attackerDevice.updateEmail(to: Self.victim)

        let victimDevice = try harness.device(on: store, session: "victim")
        harness.apple.signIn(as: AuthHarness.ada)
        let victim = try await victimDevice.signInWithApple()
        try await victimDevice.sendSignInCode(to: Self.victim)
        let code = try #require(harness.mailbox.lastCode(for: Self.victim, .signInCode))
        let linked = try await victimDevice.link(.emailCode(email: Self.victim, code: code))
        #expect(linked.id == victim.id && linked.isLinked(.emailCode))
        try await attackerDevice.signOut()
        harness.apple.signIn(as: AuthHarness.grace)
        let back = try await attackerDevice.signInWithApple()
        #expect(back.id == attacker.id && back.email != Self.victim, "the claimant no longer has the address")
    }

    @Test(
        "a password on someone's address, on an account whose main email is the claimant's own, gives way to their code",
        arguments: AuthVariant.allCases)
    func claimWithMainEmailElsewhereGivesWay(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let store = try harness.sharedStore()
        let attackerDevice = try harness.device(on: store, session: "attacker")
        let attacker = try await signInByCode(attackerDevice, harness, email: "mallory@example.com")
        _ = try await attackerDevice.link(.emailPassword(email: Self.victim, password: "mallory horse 1"))
        _ = try await attackerDevice.unlink(.emailCode)

        let victimDevice = try harness.device(on: store, session: "victim")
        let victim = try await signInByCode(victimDevice, harness)
        #expect(victim.id != attacker.id && victim.email == Self.victim)
        await #expect(throws: AuthenticationError(.invalidCredential)) {
            _ = try await attackerDevice.signIn(with: .emailPassword(email: Self.victim, password: "mallory horse 1"))
        }
        #expect(try await signInByCode(attackerDevice, harness, email: "mallory@example.com").id == attacker.id)
    }

    @Test("a guest that typed in its own address and a password on someone else's gives that address way", arguments: AuthVariant.allCases)
    func guestClaimGivesWay(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let store = try harness.sharedStore()
        let attackerDevice = try harness.device(on: store, session: "attacker")
        let guest = try await attackerDevice.signInAnonymously()
        _ = try await attackerDevice.updateEmail(to: "mallory@example.com")
        _ = try await attackerDevice.link(.emailPassword(email: Self.victim, password: "mallory horse 1"))

        let victim = try await signInByCode(try harness.device(on: store, session: "victim"), harness)
        #expect(victim.id != guest.id && !victim.isLinked(.password))
        try await attackerDevice.signOut()
        await #expect(throws: AuthenticationError(.invalidCredential)) {
            _ = try await attackerDevice.signIn(with: .emailPassword(email: Self.victim, password: "mallory horse 1"))
        }
    }

    @Test("a disabled account that never proved an address gives it way to its owner's code", arguments: AuthVariant.allCases)
    func disabledClaimGivesWay(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let claim = try await harness.service.createUser(email: Self.victim, password: "mallory horse 1")
        try await harness.service.signOut()
        try await harness.service.setAccountDisabled(true, userID: claim.id)
        let owner = try await signInByCode(harness.service, harness)
        #expect(owner.id != claim.id && owner.isEmailVerified)
    }
}
