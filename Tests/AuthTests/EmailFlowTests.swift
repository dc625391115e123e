import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainAuth

/// AUTH-12 and AUTH-15: password reset, email verification and email sign-in codes
/// through the simulated mailbox, and no account enumeration.
@Suite(.timeLimit(.minutes(1))) struct EmailFlowTests {
    static let password = "correct horse 1"

    @Test("a reset sets the new password, verifies the address, works once, and ends the account's other sessions", arguments: AuthVariant.allCases)
    func resetEndToEnd(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let store = try harness.sharedStore()
        let phone = try harness.device(on: store, session: "phone")
        let tablet = try harness.device(on: store, session: "tablet")
        let ada = try await phone.createUser(email: "ada@example.com", password: Self.password)
        _ = try await tablet.signIn(with: .emailPassword(email: "ada@example.com", password: Self.password))
        let tabletToken = try await tablet.idToken(forceRefresh: false)

        try await phone.signOut()
        try await phone.sendPasswordReset(email: " ADA@example.com")
        let code = try #require(harness.mailbox.lastCode(for: "ada@example.com", .passwordReset))
        #expect(code.utf8.count >= 40, "a reset code is a long single-use code, not six digits")
        try await phone.confirmPasswordReset(code: code, newPassword: "new horse 2")

        await #expect(throws: AuthenticationError(.invalidActionCode)) {
            try await phone.confirmPasswordReset(code: code, newPassword: "newer horse 3")
        }
        #expect(throws: AuthenticationError(.userTokenRevoked)) { _ = try tablet.tokenVerifier().verify(tabletToken) }
        await #expect(throws: AuthenticationError(.notSignedIn)) { _ = try await tablet.idToken(forceRefresh: true) }
        #expect(tablet.currentUser == nil, "the other device's session ended")
        await #expect(throws: AuthenticationError(.invalidCredential)) {
            _ = try await phone.signIn(with: .emailPassword(email: "ada@example.com", password: Self.password))
        }
        let user = try await phone.signIn(with: .emailPassword(email: "ada@example.com", password: "new horse 2"))
        #expect(user.id == ada.id && user.isEmailVerified)
    }

    @Test("an expired, replaced, made-up or other flow's code is a typed error and changes nothing", arguments: AuthVariant.allCases)
    func badCodes(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let auth = harness.service
        _ = try await auth.createUser(email: "ada@example.com", password: Self.password)
        try await auth.sendEmailVerification()
        let verification = try #require(harness.mailbox.lastCode(for: "ada@example.com", .emailVerification))
        try await auth.sendPasswordReset(email: "ada@example.com")
        let first = try #require(harness.mailbox.lastCode(for: "ada@example.com", .passwordReset))
        try await auth.sendPasswordReset(email: "ada@example.com")
        let second = try #require(harness.mailbox.lastCode(for: "ada@example.com", .passwordReset))

        for code in [first, verification, "made-up", "", second + "\u{0}", String(repeating: "x", count: 10_000)] {
            await #expect(throws: AuthenticationError(.invalidActionCode)) {
                try await auth.confirmPasswordReset(code: code, newPassword: "new horse 2")
            }
        }
        await #expect(throws: AuthenticationError(.weakPassword)) { try await auth.confirmPasswordReset(code: second, newPassword: "short") }
        harness.clock.advance(by: .seconds(3_600))
        await #expect(throws: AuthenticationError(.expiredActionCode)) {
            try await auth.confirmPasswordReset(code: second, newPassword: "new horse 2")
        }
        await #expect(throws: AuthenticationError(.expiredActionCode)) { try await auth.verifyEmail(code: verification) }
        try await auth.signOut()
        let user = try await auth.signIn(with: .emailPassword(email: "ada@example.com", password: Self.password))
        #expect(!user.isEmailVerified, "nothing changed: the old password works and the address is unverified")
    }

    @Test(
        "an unknown address answers a reset as a known one does and is sent nothing; both count against the hourly limit",
        arguments: AuthVariant.allCases)
    func noEnumerationByReset(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        _ = try await harness.service.createUser(email: "ada@example.com", password: Self.password)
        for _ in 0..<5 {
            try await harness.service.sendPasswordReset(email: "ada@example.com")
            try await harness.service.sendPasswordReset(email: "nobody@example.com")
        }
        #expect(harness.mailbox.emails.filter { $0.address == "nobody@example.com" }.isEmpty)
        #expect(harness.mailbox.emails.filter { $0.address == "ada@example.com" }.count == 5)
        await #expect(throws: AuthenticationError(.tooManyRequests)) { try await harness.service.sendPasswordReset(email: "ada@example.com") }
        await #expect(throws: AuthenticationError(.tooManyRequests)) { try await harness.service.sendPasswordReset(email: "nobody@example.com") }
        await #expect(throws: AuthenticationError(.tooManyRequests)) { try await harness.service.sendSignInCode(to: "Ada@Example.com") }
        harness.clock.advance(by: .seconds(3_600))
        try await harness.service.sendPasswordReset(email: "nobody@example.com")
    }

    @Test("sends dated after now by a clock set back still count against the limit", arguments: AuthVariant.allCases)
    func clockSetBack(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        for _ in 0..<5 { try await harness.service.sendSignInCode(to: "ada@example.com") }
        harness.clock.setDate(harness.clock.now.addingTimeInterval(-86_400))
        await #expect(throws: AuthenticationError(.tooManyRequests)) { try await harness.service.sendSignInCode(to: "ada@example.com") }
    }

    @Test("an email code signs in, creating the account, and works once", arguments: AuthVariant.allCases)
    func signInCode(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        try await harness.service.sendSignInCode(to: "grace@example.com")
        let code = try #require(harness.mailbox.lastCode(for: "grace@example.com", .signInCode))
        #expect(code.count == 6 && code.allSatisfy(\.isNumber))
        let grace = try await harness.service.signIn(with: .emailCode(email: "Grace@Example.com", code: code))
        #expect(grace.email == "grace@example.com" && grace.isEmailVerified && grace.providers.map(\.provider) == [.emailCode])
        try await harness.service.signOut()
        await #expect(throws: AuthenticationError(.invalidActionCode)) {
            _ = try await harness.service.signIn(with: .emailCode(email: "grace@example.com", code: code))
        }
        try await harness.service.sendSignInCode(to: "grace@example.com")
        let again = try #require(harness.mailbox.lastCode(for: "grace@example.com", .signInCode))
        #expect(try await harness.service.signIn(with: .emailCode(email: "grace@example.com", code: again)).id == grace.id)
    }

    @Test(
        "a code allows five wrong tries, then even the right code is tooManyRequests; a new code starts afresh and lets the owner in at once",
        arguments: AuthVariant.allCases)
    func guessingLimit(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        try await harness.service.sendSignInCode(to: "ada@example.com")
        let code = try #require(harness.mailbox.lastCode(for: "ada@example.com", .signInCode))
        let wrong = code == "000000" ? "111111" : "000000"
        for _ in 0..<5 {
            await #expect(throws: AuthenticationError(.invalidVerificationCode)) {
                _ = try await harness.service.signIn(with: .emailCode(email: "ada@example.com", code: wrong))
            }
        }
        await #expect(throws: AuthenticationError(.tooManyRequests)) {
            _ = try await harness.service.signIn(with: .emailCode(email: "ada@example.com", code: code))
        }
        for malformed in ["12345", "1234567", "12345a", "١٢٣٤٥٦"] {
            await #expect(throws: AuthenticationError(.invalidVerificationCode)) {
                _ = try await harness.service.signIn(with: .emailCode(email: "ada@example.com", code: malformed))
            }
        }
        await #expect(throws: AuthenticationError(.invalidEmail)) {
            _ = try await harness.service.signIn(with: .emailCode(email: "ada\u{0}@example.com", code: code))
        }
        #expect(harness.service.currentUser == nil)
        try await harness.service.sendSignInCode(to: "ada@example.com")
        let fresh = try #require(harness.mailbox.lastCode(for: "ada@example.com", .signInCode))
        await #expect(throws: AuthenticationError(.invalidActionCode), "the code the guesses spent is dead, not usable again") {
            _ = try await harness.service.signIn(with: .emailCode(email: "ada@example.com", code: code == fresh ? wrong : code))
        }
        _ = try await harness.service.signIn(with: .emailCode(email: "ada@example.com", code: fresh))
    }

    @Test("an email code for an address someone else registered unverified removes their password", arguments: AuthVariant.allCases)
    func preHijackingEnds(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let squatter = try await harness.service.createUser(email: "ada@example.com", password: "squatter pass 1")
        try await harness.service.signOut()
        try await harness.service.sendSignInCode(to: "ada@example.com")
        let code = try #require(harness.mailbox.lastCode(for: "ada@example.com", .signInCode))
        let ada = try await harness.service.signIn(with: .emailCode(email: "ada@example.com", code: code))
        #expect(ada.id == squatter.id && ada.providers.map(\.provider) == [.emailCode] && ada.isEmailVerified)
        try await harness.service.signOut()
        await #expect(throws: AuthenticationError(.invalidCredential)) {
            _ = try await harness.service.signIn(with: .emailPassword(email: "ada@example.com", password: "squatter pass 1"))
        }
    }

    @Test(
        "verification marks the address verified; a code for an address the account changed from is ended by the change and verifies nothing",
        arguments: AuthVariant.allCases)
    func verification(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let auth = harness.service
        _ = try await auth.createUser(email: "ada@example.com", password: Self.password)
        try await auth.sendEmailVerification()
        let old = try #require(harness.mailbox.lastCode(for: "ada@example.com", .emailVerification))
        _ = try await auth.updateEmail(to: "ada@lovelace.example")
        await #expect(throws: AuthenticationError(.expiredActionCode)) { try await auth.verifyEmail(code: old) }
        #expect(auth.currentUser?.isEmailVerified == false)
        try await auth.sendEmailVerification()
        try await auth.verifyEmail(code: try #require(harness.mailbox.lastCode(for: "ada@lovelace.example", .emailVerification)))
        #expect(auth.currentUser?.isEmailVerified == true)
        _ = try await auth.updateEmail(to: "ada@example.com")
        #expect(auth.currentUser?.isEmailVerified == false, "a new address is unverified again")
    }

    @Test("a policy can require a verified email for an action, with a typed error until the address is verified", arguments: AuthVariant.allCases)
    func verifiedEmailPolicy(variant: AuthVariant) async throws {
        var policy = AuthPolicy(passwordIterations: 1_000)
        policy.verifiedEmailRequired = [.posting]
        let harness = try AuthHarness(variant, policy: policy)
        _ = try await harness.service.createUser(email: "ada@example.com", password: Self.password)
        #expect(throws: AuthenticationError(.unverifiedEmail)) { try harness.service.requireVerifiedEmail(for: .posting) }
        try harness.service.requireVerifiedEmail(for: .purchasing)
        try await harness.service.sendEmailVerification()
        try await harness.service.verifyEmail(code: try #require(harness.mailbox.lastCode(for: "ada@example.com", .emailVerification)))
        try harness.service.requireVerifiedEmail(for: .posting)
    }

    @Test("without an email sender the email flows are operationNotAllowed", arguments: AuthVariant.allCases)
    func noSender(variant: AuthVariant) async throws {
        let directory = try TemporaryDirectory()
        let storage: StorageLocation = variant == .file ? .file(directory.file("auth.sqlite")) : .inMemory
        let auth = try LocalAuthService(storage: storage, configuration: AuthConfiguration(policy: AuthPolicy(passwordIterations: 1_000)))
        await #expect(throws: AuthenticationError(.operationNotAllowed)) { try await auth.sendPasswordReset(email: "ada@example.com") }
        await #expect(throws: AuthenticationError(.operationNotAllowed)) { try await auth.sendSignInCode(to: "ada@example.com") }
    }

    @Test(
        "a stranger gets the policy's tries per code times its sends per hour, 25 wrong codes, and then no new code within the hour",
        arguments: AuthVariant.allCases)
    func guessesPerHour(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        var wrongTries = 0
        for _ in 0..<5 {
            try await harness.service.sendSignInCode(to: "ada@example.com")
            let code = try #require(harness.mailbox.lastCode(for: "ada@example.com", .signInCode))
            let wrong = code == "000000" ? "111111" : "000000"
            for _ in 0..<5 {
                await #expect(throws: AuthenticationError(.invalidVerificationCode)) {
                    _ = try await harness.service.signIn(with: .emailCode(email: "ada@example.com", code: wrong))
                }
                wrongTries += 1
            }
            await #expect(throws: AuthenticationError(.tooManyRequests), "the code took its five wrong tries") {
                _ = try await harness.service.checkActionCode(wrong, email: "ada@example.com")
            }
        }
        #expect(wrongTries == 25)
        await #expect(throws: AuthenticationError(.tooManyRequests)) { try await harness.service.sendSignInCode(to: "ada@example.com") }
        harness.clock.advance(by: .seconds(3_600))
        try await harness.service.sendSignInCode(to: "ada@example.com")
        let code = try #require(harness.mailbox.lastCode(for: "ada@example.com", .signInCode))
        #expect(try await harness.service.signIn(with: .emailCode(email: "ada@example.com", code: code)).email == "ada@example.com")
    }

    @Test(
        "a disabled account answers a wrong password as an unknown address does; only the right one hears userDisabled",
        arguments: AuthVariant.allCases)
    func disabledAccountTellsNothing(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let ada = try await harness.service.createUser(email: "ada@example.com", password: Self.password)
        try await harness.service.setAccountDisabled(true, userID: ada.id)
        await #expect(throws: AuthenticationError(.invalidCredential)) {
            _ = try await harness.service.signIn(with: .emailPassword(email: "ada@example.com", password: "wrong horse 9"))
        }
        await #expect(throws: AuthenticationError(.userDisabled)) {
            _ = try await harness.service.signIn(with: .emailPassword(email: "ada@example.com", password: Self.password))
        }
    }

    @Test(
        "deleting an account ends its codes and the sign-in codes of its address; another address's code and the hour's sends stay, limits intact",
        arguments: AuthVariant.allCases)
    func deletionRemovesEmailRecords(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let store = try harness.sharedStore()
        let phone = try harness.device(on: store, session: "phone")
        _ = try await phone.createUser(email: "ada@example.com", password: Self.password)
        try await phone.sendEmailVerification()
        try await phone.sendPasswordReset(email: "ada@example.com")
        try await phone.sendSignInCode(to: "ada@example.com")
        try await phone.sendSignInCode(to: "grace@example.com")
        try await phone.deleteAccount()

        let left = try store.read { records in
            (
                try records.entries(in: AuthRecords.emailCodes).map(\.value.address),
                try records.entries(in: AuthRecords.emailCodeLinks).count,
                try records.entries(in: AuthRecords.emailSends).map(\.key)
            )
        }
        #expect(left.0 == ["grace@example.com"] && left.1 == 0)
        #expect(left.2 == ["ada@example.com", "grace@example.com"])
        _ = try await phone.createUser(email: "ada@example.com", password: Self.password)
        try await phone.sendSignInCode(to: "ada@example.com")
        try await phone.sendSignInCode(to: "ada@example.com")
        await #expect(throws: AuthenticationError(.tooManyRequests), "three emails before the deletion and two after reach the limit of five") {
            try await phone.sendSignInCode(to: "ada@example.com")
        }
    }

    @Test("a launch forgets codes past their expiry and sends more than an hour old, and keeps live ones")
    func launchForgetsExpiredEmailRecords() async throws {
        let harness = try AuthHarness(.file)
        _ = try await harness.service.createUser(email: "ada@example.com", password: Self.password)
        try await harness.service.sendPasswordReset(email: "ada@example.com")
        harness.clock.advance(by: .seconds(3_600))
        try await harness.service.sendSignInCode(to: "grace@example.com")
        _ = try harness.relaunch()

        let raw = try RecordStore(.file(harness.file), schema: AuthRecords.schema)
        let left = try raw.read { records in
            (
                try records.entries(in: AuthRecords.emailCodes).map(\.value.address),
                try records.entries(in: AuthRecords.emailCodeLinks).count,
                try records.entries(in: AuthRecords.emailSends).map(\.key)
            )
        }
        #expect(left.0 == ["grace@example.com"] && left.1 == 0 && left.2 == ["grace@example.com"])
    }

    @Test(
        "a verification or sign-in code the sender fails changes nothing: the code the user holds still works and the send does not count",
        arguments: AuthVariant.allCases)
    func failedSendChangesNothing(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let auth = harness.service
        _ = try await auth.createUser(email: "ada@example.com", password: Self.password)
        try await auth.sendEmailVerification()
        try await auth.sendSignInCode(to: "grace@example.com")
        let verification = try #require(harness.mailbox.lastCode(for: "ada@example.com", .emailVerification))
        let signIn = try #require(harness.mailbox.lastCode(for: "grace@example.com", .signInCode))
        for send in [{ try await auth.sendEmailVerification() }, { try await auth.sendSignInCode(to: "grace@example.com") }]
            as [@Sendable () async throws -> Void]
        {
            harness.mail.controls.failNextCall(with: URLError(.notConnectedToInternet))
            await #expect(throws: AuthenticationError(.networkError)) { try await send() }
        }
        #expect(harness.mail.calls.count == 4 && harness.mailbox.emails.count == 2, "two sends failed and reached nobody")
        try await auth.verifyEmail(code: verification)
        try await auth.signOut()
        _ = try await auth.signIn(with: .emailCode(email: "grace@example.com", code: signIn))
        // One send to each address counts: four more fit in the hour.
        for _ in 0..<4 { try await auth.sendSignInCode(to: "ada@example.com") }
        await #expect(throws: AuthenticationError(.tooManyRequests)) { try await auth.sendSignInCode(to: "ada@example.com") }
    }

    @Test(
        "two resets that cross and both fail, the earlier failing first, leave the one delivered code working", arguments: AuthVariant.allCases)
    func crossedFailedSends(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let auth = harness.service
        _ = try await auth.createUser(email: "ada@example.com", password: Self.password)
        try await auth.signOut()
        try await auth.sendPasswordReset(email: "ada@example.com")
        let delivered = try #require(harness.mailbox.lastCode(for: "ada@example.com", .passwordReset))
        harness.mail.controls.latency = .seconds(10)
        harness.mail.controls.failCall(number: 2, with: AuthenticationError(.networkError))
        harness.mail.controls.failCall(number: 3, with: AuthenticationError(.networkError))
        let second = Task { try await auth.sendPasswordReset(email: "ada@example.com") }
        await harness.clock.waitForSleepers(1)
        harness.clock.advance(by: .seconds(1))
        let third = Task { try await auth.sendPasswordReset(email: "ada@example.com") }
        await harness.clock.waitForSleepers(2)
        harness.clock.advance(by: .seconds(9)) // the second send fails first
        try await second.value
        harness.clock.advance(by: .seconds(1)) // then the third
        try await third.value
        #expect(harness.mailbox.emails.count == 1, "only the first code was ever delivered")
        try await auth.confirmPasswordReset(code: delivered, newPassword: "new horse 2")
    }

    @Test(
        "with the protection on, a reset the sender fails answers as one to an address without an account; off, it is networkError",
        arguments: AuthVariant.allCases)
    func failedResetTellsNothing(variant: AuthVariant) async throws {
        for protects in [true, false] {
            let harness = try AuthHarness(variant, policy: AuthPolicy(passwordIterations: 1_000, protectsAgainstEnumeration: protects))
            _ = try await harness.service.createUser(email: "ada@example.com", password: Self.password)
            try await harness.service.signOut()
            harness.mail.controls.failNextCall(with: AuthenticationError(.networkError))
            if protects {
                try await harness.service.sendPasswordReset(email: "ada@example.com")
                try await harness.service.sendPasswordReset(email: "nobody@example.com")
            } else {
                await #expect(throws: AuthenticationError(.networkError)) { try await harness.service.sendPasswordReset(email: "ada@example.com") }
            }
            #expect(harness.mailbox.emails.isEmpty)
        }
    }

    @Test("a code mailed before the clock was set back is expired, never valid for longer than its lifetime", arguments: AuthVariant.allCases)
    func codeFromBeforeClockSetBack(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let auth = harness.service
        _ = try await auth.createUser(email: "ada@example.com", password: Self.password)
        try await auth.sendPasswordReset(email: "ada@example.com")
        try await auth.sendSignInCode(to: "grace@example.com")
        let reset = try #require(harness.mailbox.lastCode(for: "ada@example.com", .passwordReset))
        let signIn = try #require(harness.mailbox.lastCode(for: "grace@example.com", .signInCode))
        harness.clock.setDate(harness.clock.now.addingTimeInterval(-86_400))
        await #expect(throws: AuthenticationError(.expiredActionCode)) {
            _ = try await auth.signIn(with: .emailCode(email: "grace@example.com", code: signIn))
        }
        await #expect(throws: AuthenticationError(.expiredActionCode)) {
            try await auth.confirmPasswordReset(code: reset, newPassword: "new horse 2")
        }
        harness.clock.advance(by: .seconds(86_400 + 1_800))
        await #expect(throws: AuthenticationError(.invalidCredential), "the refused reset changed nothing") {
            _ = try await auth.signIn(with: .emailPassword(email: "ada@example.com", password: "new horse 2"))
        }
    }

    @Test(
        "an address in another Unicode spelling or case reaches the same codes, and one with a NUL or an invisible character is invalidEmail",
        arguments: AuthVariant.allCases)
    func addressSpellings(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let auth = harness.service
        let composed = "jos\u{E9}@example.com"
        let decomposed = "JOSE\u{301}@Example.com "
        let jose = try await auth.createUser(email: composed, password: Self.password)
        try await auth.signOut()
        try await auth.sendPasswordReset(email: decomposed)
        try await auth.confirmPasswordReset(code: try #require(harness.mailbox.lastCode(for: composed, .passwordReset)), newPassword: "new horse 2")
        try await auth.sendSignInCode(to: decomposed)
        let code = try #require(harness.mailbox.lastCode(for: composed, .signInCode))
        #expect(try await auth.signIn(with: .emailCode(email: composed, code: code)).id == jose.id)
        for bad in ["jos\u{E9}@example.com\u{0}", "jos\u{E9}\u{200B}@example.com", "\u{202E}jose@example.com"] {
            await #expect(throws: AuthenticationError(.invalidEmail)) { try await auth.sendPasswordReset(email: bad) }
            await #expect(throws: AuthenticationError(.invalidEmail)) { try await auth.sendSignInCode(to: bad) }
        }
        #expect(Set(harness.mailbox.emails.map(\.address)) == [composed.precomposedStringWithCanonicalMapping])
    }
}
