import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainAuth

/// AUTH-18: an address change tells the old address, which can undo it; a
/// verify-before-change flow; linking an email credential as Firebase does.
@Suite(.timeLimit(.minutes(1))) struct AddressChangeTests {
    static let password = "correct horse 1"

    @Test(
        "a change mails the old address a code that restores it, verified, ends every session and token, and suggests a reset",
        arguments: AuthVariant.allCases)
    func recovery(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let store = try harness.sharedStore()
        let phone = try harness.device(on: store, session: "phone")
        let thief = try harness.device(on: store, session: "thief")
        let ada = try await phone.createUser(email: "ada@example.com", password: Self.password)
        _ = try await thief.signIn(with: .emailPassword(email: "ada@example.com", password: Self.password))
        let thiefToken = try await thief.idToken(forceRefresh: false)
        _ = try await thief.updateEmail(to: "Thief@Example.com")

        let notice = try #require(harness.mailbox.lastEmail(to: "ada@example.com", .recoverEmail))
        #expect(notice.change == EmailChange(from: "ada@example.com", to: "thief@example.com"))
        harness.clock.advance(by: .seconds(1_800))
        let applied = try await phone.applyActionCode(notice.code)
        #expect(applied.operation == .recoverEmail && applied.suggestsPasswordReset && applied.state == .used)
        #expect(thief.currentUser == nil, "the session that made the change ended")
        #expect(throws: AuthenticationError(.userTokenRevoked)) { _ = try thief.tokenVerifier().verify(thiefToken) }
        let restored = try #require(phone.currentUser)
        #expect(restored.id == ada.id && restored.email == "ada@example.com" && restored.isEmailVerified)
        await #expect(throws: AuthenticationError(.invalidCredential), "the password no longer signs in with the thief's address") {
            _ = try await thief.signIn(with: .emailPassword(email: "thief@example.com", password: Self.password))
        }
        await #expect(throws: AuthenticationError(.invalidActionCode)) { _ = try await phone.applyActionCode(notice.code) }
    }

    @Test(
        "whoever holds the session cannot outrun the owner: the owner's notice outlives their password change and a second change, and theirs dies",
        arguments: AuthVariant.allCases)
    func recoveryBeatsLaterChanges(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let auth = harness.service
        _ = try await auth.createUser(email: "ada@example.com", password: Self.password)
        _ = try await auth.updateEmail(to: "thief@example.com")
        let owners = try #require(harness.mailbox.lastCode(for: "ada@example.com", .recoverEmail))
        harness.clock.advance(by: .seconds(60))
        try await auth.updatePassword(to: "thief horse 2")
        _ = try await auth.updateEmail(to: "thief2@example.com")
        let thiefs = try #require(harness.mailbox.lastCode(for: "thief@example.com", .recoverEmail))

        #expect(try await auth.checkActionCode(owners).state == .valid)
        _ = try await auth.applyActionCode(owners)
        #expect(auth.currentUser?.email == "ada@example.com")
        #expect(try await auth.checkActionCode(thiefs).state == .revoked)
        await #expect(throws: AuthenticationError(.invalidActionCode), "a later change's notice cannot take the address back") {
            _ = try await auth.applyActionCode(thiefs)
        }
        #expect(auth.currentUser?.email == "ada@example.com")
    }

    @Test(
        "verify-before-change changes nothing until the new address applies its code; a code a later change ended is expiredActionCode",
        arguments: AuthVariant.allCases)
    func verifyBeforeChange(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let auth = harness.service
        let ada = try await auth.createUser(email: "ada@example.com", password: Self.password)
        try await auth.verifyBeforeUpdateEmail(to: "ADA@Lovelace.example")
        #expect(auth.currentUser?.email == "ada@example.com")
        let code = try #require(harness.mailbox.lastCode(for: "ada@lovelace.example", .verifyAndChangeEmail))
        let info = try await auth.checkActionCode(code)
        #expect(info.operation == .verifyAndChangeEmail && info.change == EmailChange(from: "ada@example.com", to: "ada@lovelace.example"))
        let applied = try await auth.applyActionCode(code)
        #expect(applied.state == .used && auth.currentUser?.email == "ada@lovelace.example" && auth.currentUser?.isEmailVerified == true)
        #expect(harness.mailbox.lastEmail(to: "ada@example.com", .recoverEmail)?.change?.to == "ada@lovelace.example")
        try await auth.signOut()
        #expect(try await auth.signIn(with: .emailPassword(email: "ada@lovelace.example", password: Self.password)).id == ada.id)

        try await auth.verifyBeforeUpdateEmail(to: "grace@example.com")
        let taken = try #require(harness.mailbox.lastCode(for: "grace@example.com", .verifyAndChangeEmail))
        try await auth.verifyBeforeUpdateEmail(to: "ada@third.example")
        let moved = try #require(harness.mailbox.lastCode(for: "ada@third.example", .verifyAndChangeEmail))
        _ = try await auth.updateEmail(to: "ada@fourth.example")
        await #expect(throws: AuthenticationError(.expiredActionCode), "the address changed since: the code ended with it") {
            _ = try await auth.applyActionCode(moved)
        }
        #expect(try await auth.checkActionCode(taken).state == .expired)
    }

    @Test(
        "verify-before-change to another account's address answers as any address does and sends nothing; without the protection it is emailAlreadyInUse",
        arguments: AuthVariant.allCases)
    func verifyBeforeChangeTellsNothing(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let auth = harness.service
        _ = try await auth.createUser(email: "grace@example.com", password: Self.password)
        try await auth.signOut()
        _ = try await auth.createUser(email: "ada@example.com", password: Self.password)
        try await auth.verifyBeforeUpdateEmail(to: "Grace@Example.com")
        try await auth.verifyBeforeUpdateEmail(to: "nobody@example.com")
        #expect(harness.mailbox.lastEmail(to: "grace@example.com", .verifyAndChangeEmail) == nil)
        #expect(harness.mailbox.lastEmail(to: "nobody@example.com", .verifyAndChangeEmail) != nil)

        var open = AuthPolicy(passwordIterations: 1_000)
        open.protectsAgainstEnumeration = false
        let unprotected = try AuthHarness(variant, policy: open)
        _ = try await unprotected.service.createUser(email: "grace@example.com", password: Self.password)
        try await unprotected.service.signOut()
        _ = try await unprotected.service.createUser(email: "ada@example.com", password: Self.password)
        do {
            try await unprotected.service.verifyBeforeUpdateEmail(to: "grace@example.com")
            Issue.record("a taken address was accepted without the protection")
        } catch let error as AuthenticationError {
            #expect(error.code == .emailAlreadyInUse && error.email == "grace@example.com")
        }
    }

    @Test(
        "an email code linked for a new address makes it the account's email, verified; the password signs in with it and the old address hears",
        arguments: AuthVariant.allCases)
    func linkedCodeBecomesEmail(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let auth = harness.service
        let ada = try await auth.createUser(email: "ada@example.com", password: Self.password)
        try await auth.sendSignInCode(to: "ada@lovelace.example")
        let code = try #require(harness.mailbox.lastCode(for: "ada@lovelace.example", .signInCode))
        let linked = try await auth.link(.emailCode(email: "ada@lovelace.example", code: code))
        #expect(linked.email == "ada@lovelace.example" && linked.isEmailVerified)
        #expect(harness.mailbox.lastEmail(to: "ada@example.com", .recoverEmail)?.change?.to == "ada@lovelace.example")
        try await auth.signOut()
        #expect(try await auth.signIn(with: .emailPassword(email: "ada@lovelace.example", password: Self.password)).id == ada.id)
        await #expect(throws: AuthenticationError(.invalidCredential)) {
            _ = try await auth.signIn(with: .emailPassword(email: "ada@example.com", password: Self.password))
        }
    }

    @Test(
        "linking an email code or a password whose address another account holds is emailAlreadyInUse with the address; the code stays unused",
        arguments: AuthVariant.allCases)
    func linkTakenAddress(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let auth = harness.service
        try await auth.sendSignInCode(to: "grace@example.com")
        let grace = try await auth.signIn(
            with: .emailCode(email: "grace@example.com", code: try #require(harness.mailbox.lastCode(for: "grace@example.com", .signInCode))))
        try await auth.signOut()
        let ada = try await auth.createUser(email: "ada@example.com", password: Self.password)
        try await auth.sendSignInCode(to: "grace@example.com")
        let code = try #require(harness.mailbox.lastCode(for: "grace@example.com", .signInCode))
        do {
            _ = try await auth.link(.emailCode(email: "Grace@Example.com", code: code))
            Issue.record("linking another account's address succeeded")
        } catch let error as AuthenticationError {
            #expect(error.code == .emailAlreadyInUse && error.email == "grace@example.com")
            #expect(error.updatedCredential == .emailCode(email: "Grace@Example.com", code: code))
        }
        #expect(harness.mailbox.lastEmail(to: "ada@example.com", .recoverEmail) == nil, "no notice of a change that did not happen")
        #expect(auth.currentUser?.email == "ada@example.com" && auth.currentUser?.id == ada.id)
        try await auth.signOut()
        #expect(try await auth.signIn(with: .emailCode(email: "grace@example.com", code: code)).id == grace.id, "the code still signs in there")
    }

    @Test("a notice the sender fails changes nothing: the address stays, and the call is networkError", arguments: AuthVariant.allCases)
    func failedNotice(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let auth = harness.service
        _ = try await auth.createUser(email: "ada@example.com", password: Self.password)
        harness.mail.controls.failNextCall(with: AuthenticationError(.networkError))
        await #expect(throws: AuthenticationError(.networkError)) { _ = try await auth.updateEmail(to: "ada@lovelace.example") }
        #expect(auth.currentUser?.email == "ada@example.com")
        try await auth.signOut()
        _ = try await auth.signIn(with: .emailPassword(email: "ada@example.com", password: Self.password))
    }
}
