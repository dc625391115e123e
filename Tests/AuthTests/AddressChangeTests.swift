import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainAuth

/// AUTH-18: an address change tells the old address, which can undo it; a
/// verify-before-change flow; linking an email credential as Firebase does.
@Suite(.timeLimit(.minutes(1))) struct AddressChangeTests {
    static let password = "correct horse 1"

    /// Ada's account, signed in on her phone and on a device of someone who learned her password.
    static func adaAndThief(_ harness: AuthHarness) async throws -> (RecordStore, LocalAuthService, LocalAuthService, UserEntity) {
        let store = try harness.sharedStore()
        let phone = try harness.device(on: store, session: "phone")
        let thief = try harness.device(on: store, session: "thief")
        let ada = try await phone.createUser(email: "ada@example.com", password: Self.password)
        _ = try await thief.signIn(with: .emailPassword(email: "ada@example.com", password: Self.password))
        return (store, phone, thief, ada)
    }

    @Test(
        "a change mails the old address a code that restores it, verified, ends every session and token, and suggests a reset",
        arguments: AuthVariant.allCases)
    func recovery(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let (_, phone, thief, ada) = try await Self.adaAndThief(harness)
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

    /// Makes an account for `address` by an email sign-in code, which proves it, and signs out.
    static func proveAccount(of address: String, on auth: LocalAuthService, _ harness: AuthHarness) async throws {
        try await auth.sendSignInCode(to: address)
        _ = try await auth.signIn(with: .emailCode(email: address, code: try #require(harness.mailbox.lastCode(for: address, .signInCode))))
        try await auth.signOut()
    }

    /// Ada's account after someone holding her session changed its address to theirs,
    /// back, and to theirs again: the three notices, of changes 1, 2 and 3.
    static func threeChanges(_ harness: AuthHarness) async throws -> (first: String, second: String, third: String) {
        let auth = harness.service
        _ = try await auth.createUser(email: "ada@example.com", password: Self.password)
        _ = try await auth.updateEmail(to: "thief@example.com")
        let first = try #require(harness.mailbox.lastCode(for: "ada@example.com", .recoverEmail))
        harness.clock.advance(by: .seconds(60))
        try await auth.updatePassword(to: "thief horse 2")
        _ = try await auth.updateEmail(to: "ada@example.com")
        let second = try #require(harness.mailbox.lastCode(for: "thief@example.com", .recoverEmail))
        _ = try await auth.updateEmail(to: "thief@example.com")
        let third = try #require(harness.mailbox.lastCode(for: "ada@example.com", .recoverEmail))
        #expect(first != third)
        return (first, second, third)
    }

    @Test(
        "the notice of the first change wins: it outlives later changes, a password change and a recovery by whoever made them",
        arguments: AuthVariant.allCases)
    func firstNoticeWins(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let auth = harness.service
        let notices = try await Self.threeChanges(harness)
        for code in [notices.first, notices.second, notices.third] { #expect(try await auth.checkActionCode(code).state == .valid) }

        // Whoever made the changes undoes the second, back to their address: the third's notice ends, the first's stays.
        _ = try await auth.applyActionCode(notices.second)
        #expect(auth.currentUser?.email == "thief@example.com")
        #expect(try await auth.checkActionCode(notices.third).state == .revoked)
        #expect(try await auth.checkActionCode(notices.first).state == .valid)

        _ = try await auth.applyActionCode(notices.first)
        #expect(auth.currentUser?.email == "ada@example.com" && auth.currentUser?.isEmailVerified == true)
        for code in [notices.second, notices.third] {
            await #expect(throws: AuthenticationError(.invalidActionCode), "no notice is left to take the address back") {
                _ = try await auth.applyActionCode(code)
            }
        }
    }

    @Test(
        "the owner who applies a later notice and changes the password still holds the first: every change after it is undone with it",
        arguments: AuthVariant.allCases)
    func laterNoticeThenFirst(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let auth = harness.service
        let notices = try await Self.threeChanges(harness)
        _ = try await auth.applyActionCode(notices.third)
        try await auth.updatePassword(to: "ada's new horse 3")
        #expect(try await auth.checkActionCode(notices.first).state == .valid, "a password change does not end a notice")
        _ = try await auth.applyActionCode(notices.second)
        #expect(auth.currentUser?.email == "thief@example.com")
        _ = try await auth.applyActionCode(notices.first)
        #expect(auth.currentUser?.email == "ada@example.com")
        #expect(try await auth.checkActionCode(notices.second).state == .used)
    }

    @Test(
        "an account made on the address left, without proving it, gives the address up to the notice",
        arguments: AuthVariant.allCases)
    func squatterGivesWay(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let (store, phone, thief, ada) = try await Self.adaAndThief(harness)
        _ = try await thief.updateEmail(to: "thief@example.com")
        let notice = try #require(harness.mailbox.lastCode(for: "ada@example.com", .recoverEmail))
        try await thief.signOut()
        let squatter = try await thief.createUser(email: "ada@example.com", password: "squatter horse 9")

        _ = try await phone.applyActionCode(notice)
        try await phone.signOut()
        #expect(try await phone.signIn(with: .emailPassword(email: "ada@example.com", password: Self.password)).id == ada.id)
        let left = try store.read { try $0.value(forKey: squatter.id, in: AuthRecords.accounts) }
        #expect(left?.user.email == nil && left?.user.providers.isEmpty == true, "the squatter's account no longer has the address")
    }

    @Test(
        "the sign-in methods added since the change go with the recovery: a Google account linked by whoever held the session no longer signs in",
        arguments: AuthVariant.allCases)
    func recoveryRemovesMethodsAddedSince(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let auth = harness.service
        let ada = try await auth.createUser(email: "ada@example.com", password: Self.password)
        _ = try await auth.updateEmail(to: "thief@example.com")
        let notice = try #require(harness.mailbox.lastCode(for: "ada@example.com", .recoverEmail))
        harness.google.signIn(as: .init(subject: "g-thief", email: "thief@gmail.example"))
        _ = try await auth.link(try await auth.requestCredential(from: .google))

        _ = try await auth.applyActionCode(notice)
        #expect(auth.currentUser?.providers.map(\.provider) == [.password])
        try await auth.signOut()
        harness.google.signIn(as: .init(subject: "g-thief", email: "thief@gmail.example"))
        #expect(try await auth.signInWithGoogle().id != ada.id)
    }

    @Test("linking an email code that would change the address needs a recent login, as updateEmail does", arguments: AuthVariant.allCases)
    func linkNeedsRecentLogin(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let auth = harness.service
        _ = try await auth.createUser(email: "ada@example.com", password: Self.password)
        harness.clock.advance(by: .seconds(86_400))
        try await auth.sendSignInCode(to: "thief@example.com")
        let code = try #require(harness.mailbox.lastCode(for: "thief@example.com", .signInCode))
        await #expect(throws: AuthenticationError(.requiresRecentLogin)) {
            _ = try await auth.link(.emailCode(email: "thief@example.com", code: code))
        }
        #expect(auth.currentUser?.email == "ada@example.com" && harness.mailbox.lastEmail(to: "ada@example.com", .recoverEmail) == nil)
    }

    @Test(
        "a change made with the clock set ahead ends nothing mailed after it once the clock is set back, and its notice still works",
        arguments: AuthVariant.allCases)
    func clockAheadThenBack(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let auth = harness.service
        let start = harness.clock.now
        _ = try await auth.createUser(email: "ada@example.com", password: Self.password)
        try await auth.signOut()
        harness.clock.setDate(start.addingTimeInterval(30 * 86_400))
        _ = try await auth.signIn(with: .emailPassword(email: "ada@example.com", password: Self.password))
        _ = try await auth.updateEmail(to: "ada@lovelace.example")
        let notice = try #require(harness.mailbox.lastCode(for: "ada@example.com", .recoverEmail))
        try await auth.updatePassword(to: "new horse 2")
        harness.clock.setDate(start.addingTimeInterval(60))
        try await auth.sendEmailVerification()
        let verification = try #require(harness.mailbox.lastCode(for: "ada@lovelace.example", .emailVerification))
        #expect(try await auth.checkActionCode(verification).state == .valid)
        try await auth.verifyEmail(code: verification)
        #expect(try await auth.checkActionCode(notice).state == .valid)
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
        "verify-before-change to another account's address answers as any address does, a failed send too, and sends nothing; without the protection it is emailAlreadyInUse",
        arguments: AuthVariant.allCases)
    func verifyBeforeChangeTellsNothing(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let auth = harness.service
        try await Self.proveAccount(of: "grace@example.com", on: auth, harness)
        _ = try await auth.createUser(email: "ada@example.com", password: Self.password)
        try await auth.verifyBeforeUpdateEmail(to: "Grace@Example.com")
        try await auth.verifyBeforeUpdateEmail(to: "nobody@example.com")
        #expect(harness.mailbox.lastEmail(to: "grace@example.com", .verifyAndChangeEmail) == nil)
        #expect(harness.mailbox.lastEmail(to: "nobody@example.com", .verifyAndChangeEmail) != nil)

        harness.mail.controls.failNextCall(with: AuthenticationError(.networkError))
        try await auth.verifyBeforeUpdateEmail(to: "free@example.com")
        try await auth.verifyBeforeUpdateEmail(to: "grace@example.com")

        var open = AuthPolicy(passwordIterations: 1_000)
        open.protectsAgainstEnumeration = false
        let unprotected = try AuthHarness(variant, policy: open)
        try await Self.proveAccount(of: "grace@example.com", on: unprotected.service, unprotected)
        _ = try await unprotected.service.createUser(email: "ada@example.com", password: Self.password)
        do {
            try await unprotected.service.verifyBeforeUpdateEmail(to: "grace@example.com")
            Issue.record("a taken address was accepted without the protection")
        } catch let error as AuthenticationError {
            #expect(error.code == .emailAlreadyInUse && error.email == "grace@example.com")
        }
    }

    @Test(
        "a verify-before-change code for an address someone proved since is emailAlreadyInUse, and the old address is told nothing",
        arguments: AuthVariant.allCases)
    func verifiedChangeToTakenAddress(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let store = try harness.sharedStore()
        let phone = try harness.device(on: store, session: "phone")
        let other = try harness.device(on: store, session: "other")
        _ = try await phone.createUser(email: "ada@example.com", password: Self.password)
        try await phone.verifyBeforeUpdateEmail(to: "new@example.com")
        let code = try #require(harness.mailbox.lastCode(for: "new@example.com", .verifyAndChangeEmail))
        try await other.sendSignInCode(to: "new@example.com")
        _ = try await other.signIn(
            with: .emailCode(email: "new@example.com", code: try #require(harness.mailbox.lastCode(for: "new@example.com", .signInCode))))
        await #expect(throws: AuthenticationError(.emailAlreadyInUse)) { _ = try await phone.applyActionCode(code) }
        #expect(harness.mailbox.lastEmail(to: "ada@example.com", .recoverEmail) == nil)
        #expect(phone.currentUser?.email == "ada@example.com")
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
        try await auth.signOut()
        _ = try await auth.signInAnonymously()
        do {
            _ = try await auth.link(.emailPassword(email: "grace@example.com", password: "grace horse 5"))
            Issue.record("linking a password on another account's address succeeded")
        } catch let error as AuthenticationError {
            #expect(error.code == .emailAlreadyInUse && error.email == "grace@example.com" && error.updatedCredential == nil)
        }
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
