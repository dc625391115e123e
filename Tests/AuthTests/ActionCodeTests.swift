import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainAuth

/// AUTH-17 and AUTH-19: codes die with the credential they act on, and can be
/// inspected without being used — also after a relaunch.
@Suite(.timeLimit(.minutes(1))) struct ActionCodeTests {
    static let password = "correct horse 1"

    /// The device launched again on the same accounts: for a file, the store opened afresh.
    static func relaunch(_ harness: AuthHarness, _ store: inout RecordStore, session: String) throws -> LocalAuthService {
        if harness.variant == .file { store = try harness.sharedStore() }
        return try harness.device(on: store, session: session)
    }

    @Test(
        "a password change in settings ends the account's reset, verification and sign-in codes: each reads expired, also after a relaunch",
        arguments: AuthVariant.allCases)
    func passwordChangeEndsCodes(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        var store = try harness.sharedStore()
        let phone = try harness.device(on: store, session: "phone")
        _ = try await phone.createUser(email: "ada@example.com", password: Self.password)
        try await phone.sendPasswordReset(email: "ada@example.com")
        try await phone.sendEmailVerification()
        try await phone.sendSignInCode(to: "ada@example.com")
        try await phone.sendSignInCode(to: "grace@example.com")
        let reset = try #require(harness.mailbox.lastCode(for: "ada@example.com", .passwordReset))
        let verification = try #require(harness.mailbox.lastCode(for: "ada@example.com", .emailVerification))
        let signIn = try #require(harness.mailbox.lastCode(for: "ada@example.com", .signInCode))
        let other = try #require(harness.mailbox.lastCode(for: "grace@example.com", .signInCode))
        harness.clock.advance(by: .seconds(60))
        _ = try Self.relaunch(harness, &store, session: "phone")
        let relaunched = try Self.relaunch(harness, &store, session: "phone")
        try await relaunched.updatePassword(to: "new horse 2")

        let again = try Self.relaunch(harness, &store, session: "phone")
        #expect(try await again.checkActionCode(reset).state == .expired)
        #expect(try await again.checkActionCode(verification).state == .expired)
        #expect(try await again.checkActionCode(signIn, email: "ada@example.com").state == .expired)
        await #expect(throws: AuthenticationError(.expiredActionCode), "whoever kept the reset code cannot take the account back") {
            try await again.confirmPasswordReset(code: reset, newPassword: "stolen horse 3")
        }
        await #expect(throws: AuthenticationError(.expiredActionCode)) { try await again.verifyEmail(code: verification) }
        try await again.signOut()
        await #expect(throws: AuthenticationError(.expiredActionCode)) {
            _ = try await again.signIn(with: .emailCode(email: "ada@example.com", code: signIn))
        }
        #expect(try await again.checkActionCode(other, email: "grace@example.com").state == .valid, "another address's code is untouched")
        #expect(try await again.signIn(with: .emailPassword(email: "ada@example.com", password: "new horse 2")).email == "ada@example.com")
    }

    @Test("a reset by code is used, and ends the account's other codes", arguments: AuthVariant.allCases)
    func resetEndsOtherCodes(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let auth = harness.service
        _ = try await auth.createUser(email: "ada@example.com", password: Self.password)
        try await auth.sendEmailVerification()
        let verification = try #require(harness.mailbox.lastCode(for: "ada@example.com", .emailVerification))
        try await auth.sendPasswordReset(email: "ada@example.com")
        let reset = try #require(harness.mailbox.lastCode(for: "ada@example.com", .passwordReset))
        harness.clock.advance(by: .seconds(1))
        try await auth.confirmPasswordReset(code: reset, newPassword: "new horse 2")
        #expect(try await auth.checkActionCode(reset).state == .used)
        #expect(try await auth.checkActionCode(verification).state == .expired)

    }

    @Test(
        "a reset code whose record survived a password change (a crash between writes) is refused with expiredActionCode",
        arguments: AuthVariant.allCases)
    func survivingRecordIsExpired(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let store = try harness.sharedStore()
        let phone = try harness.device(on: store, session: "phone")
        _ = try await phone.createUser(email: "ada@example.com", password: Self.password)
        try await phone.sendPasswordReset(email: "ada@example.com")
        let code = try #require(harness.mailbox.lastCode(for: "ada@example.com", .passwordReset))
        let kept = try store.read { records in
            (try records.entries(in: AuthRecords.emailCodes), try records.entries(in: AuthRecords.emailCodeLinks))
        }
        harness.clock.advance(by: .seconds(1))
        try await phone.updatePassword(to: "new horse 2")
        try store.write { records in
            for entry in kept.0 { try records.put(entry.value, forKey: entry.key, in: AuthRecords.emailCodes) }
            for entry in kept.1 { try records.put(entry.value, forKey: entry.key, in: AuthRecords.emailCodeLinks) }
            for entry in try records.entries(in: AuthRecords.spentCodes) { try records.removeValue(forKey: entry.key, in: AuthRecords.spentCodes) }
        }
        #expect(try await phone.checkActionCode(code).state == .expired)
        await #expect(throws: AuthenticationError(.expiredActionCode)) {
            try await phone.confirmPasswordReset(code: code, newPassword: "stolen horse 3")
        }
        try await phone.signOut()
        _ = try await phone.signIn(with: .emailPassword(email: "ada@example.com", password: "new horse 2"))
    }

    @Test(
        "inspecting tells a code's flow, address and state without using it; used and expired stay apart across a relaunch until a week past expiry",
        arguments: AuthVariant.allCases)
    func inspection(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        var store = try harness.sharedStore()
        let phone = try harness.device(on: store, session: "phone")
        _ = try await phone.createUser(email: "ada@example.com", password: Self.password)
        try await phone.sendPasswordReset(email: "ADA@Example.com ")
        let used = try #require(harness.mailbox.lastCode(for: "ada@example.com", .passwordReset))
        let info = try await phone.checkActionCode(used)
        #expect(info.operation == .passwordReset && info.email == "ada@example.com" && info.state == .valid && info.change == nil)
        #expect(info.expiresAt == harness.clock.now.addingTimeInterval(3_600))
        try await phone.confirmPasswordReset(code: used, newPassword: "new horse 2")
        try await phone.sendEmailVerification()
        let expired = try #require(harness.mailbox.lastCode(for: "ada@example.com", .emailVerification))
        harness.clock.advance(by: .seconds(3_600))

        let relaunched = try Self.relaunch(harness, &store, session: "phone")
        #expect(try await relaunched.checkActionCode(used).state == .used)
        #expect(try await relaunched.checkActionCode(expired).state == .expired)
        await #expect(throws: AuthenticationError(.expiredActionCode), "an old email tapped the next day says expired") {
            try await relaunched.verifyEmail(code: expired)
        }
        await #expect(throws: AuthenticationError(.invalidActionCode)) {
            try await relaunched.confirmPasswordReset(code: used, newPassword: "x horse 4")
        }
        for bad in ["made-up", "", String(repeating: "x", count: 300), used + "\u{0}"] {
            await #expect(throws: AuthenticationError(.invalidActionCode)) { _ = try await relaunched.checkActionCode(bad) }
        }
        harness.clock.advance(by: .seconds(7 * 86_400))
        let later = try Self.relaunch(harness, &store, session: "phone")
        await #expect(throws: AuthenticationError(.invalidActionCode), "forgotten a week past its expiry") {
            _ = try await later.checkActionCode(used)
        }
        #expect(try store.read { try $0.entries(in: AuthRecords.spentCodes).count } == 0)
    }

    @Test("inspecting a sign-in code needs its address, and a wrong one counts as a wrong try", arguments: AuthVariant.allCases)
    func signInCodeInspection(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let auth = harness.service
        try await auth.sendSignInCode(to: "ada@example.com")
        let code = try #require(harness.mailbox.lastCode(for: "ada@example.com", .signInCode))
        let wrong = code == "000000" ? "111111" : "000000"
        let info = try await auth.checkActionCode(code, email: "Ada@Example.COM")
        #expect(info.operation == .signInCode && info.email == "ada@example.com" && info.state == .valid)
        await #expect(throws: AuthenticationError(.invalidActionCode), "six digits alone name no code") { _ = try await auth.checkActionCode(code) }
        for _ in 0..<5 {
            await #expect(throws: AuthenticationError(.invalidVerificationCode)) {
                _ = try await auth.checkActionCode(wrong, email: "ada@example.com")
            }
        }
        await #expect(throws: AuthenticationError(.tooManyRequests), "five wrong inspections spend the code") {
            _ = try await auth.signIn(with: .emailCode(email: "ada@example.com", code: code))
        }
    }

    @Test("one reset code redeemed on two devices at once sets one password; the other device is refused", arguments: AuthVariant.allCases)
    func twoDevicesOneCode(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let store = try harness.sharedStore()
        let phone = try harness.device(on: store, session: "phone")
        let tablet = try harness.device(on: store, session: "tablet")
        _ = try await phone.createUser(email: "ada@example.com", password: Self.password)
        try await phone.sendPasswordReset(email: "ada@example.com")
        let code = try #require(harness.mailbox.lastCode(for: "ada@example.com", .passwordReset))
        async let first = Result { try await phone.confirmPasswordReset(code: code, newPassword: "phone horse 2") }
        async let second = Result { try await tablet.confirmPasswordReset(code: code, newPassword: "tablet horse 3") }
        let outcomes = await [first, second]
        #expect(outcomes.filter { (try? $0.get()) != nil }.count == 1)
        #expect(outcomes.contains { if case .failure(let error as AuthenticationError) = $0 { error.code == .invalidActionCode } else { false } })
    }
}

extension Result where Failure == any Error {
    /// The outcome of `body`.
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
