import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainAuth

extension LocalAuthService {
    /// Test access to the stored hash.
    func storedPasswordHash(for userID: String) throws -> PasswordHash? {
        try read { try $0.value(forKey: userID, in: AuthRecords.passwords) }
    }

    /// A fresh hash made with this service's policy.
    func createUserHash(password: String) throws -> PasswordHash {
        try PasswordHash(password: password, iterations: configuration.policy.passwordIterations)
    }
}

@Suite(.timeLimit(.minutes(1))) struct PhoneSignInTests {
    @Test("a test number signs in with its fixed code and sends no SMS", arguments: ["+1 650-555-1234", "+16505551234", "+1 (650) 555.1234"])
    func testNumber(typed: String) async throws {
        let harness = try AuthHarness()
        let verificationID = try await harness.service.sendVerificationCode(to: typed)
        let user = try await harness.service.signIn(with: .phone(verificationID: verificationID, code: "123456"))
        #expect(user.phoneNumber == "+16505551234")
        #expect(user.providers.map(\.provider) == [.phone])
        #expect(harness.inbox.messages.isEmpty)
    }

    @Test("a real number gets a random code through the sender")
    func realNumber() async throws {
        let harness = try AuthHarness()
        let verificationID = try await harness.service.sendVerificationCode(to: "+44 20 7946 0000")
        let code = try #require(harness.inbox.lastCode(for: "+442079460000"))
        #expect(code.count == 6 && code.allSatisfy(\.isNumber))
        #expect(try await harness.service.signIn(with: .phone(verificationID: verificationID, code: code)).phoneNumber == "+442079460000")
    }

    @Test("without a sender, a number that is not a test number is invalidPhoneNumber")
    func unknownNumberWithoutSender() async throws {
        var configuration = try AuthHarness().configuration
        configuration.codeSender = nil
        let service = try LocalAuthService(storage: .inMemory, configuration: configuration)
        await #expect(throws: AuthenticationError(.invalidPhoneNumber)) { _ = try await service.sendVerificationCode(to: "+1 650-555-9999") }
    }

    @Test(
        "malformed numbers are invalidPhoneNumber", arguments: ["", "6505551234", "+1", "+1 650 555 12345678901", "+1-650-CALL-NOW", "+0123456789"])
    func malformedNumber(number: String) async throws {
        let harness = try AuthHarness()
        await #expect(throws: AuthenticationError(.invalidPhoneNumber)) { _ = try await harness.service.sendVerificationCode(to: number) }
    }

    @Test("a second code to a real number waits 60 seconds: refused at 59, sent at 60")
    func resendCooldown() async throws {
        let harness = try AuthHarness()
        _ = try await harness.service.sendVerificationCode(to: "+442079460000")
        harness.clock.advance(by: .seconds(59))
        await #expect(throws: AuthenticationError(.tooManyRequests)) { _ = try await harness.service.sendVerificationCode(to: "+442079460000") }
        harness.clock.advance(by: .seconds(1))
        let verificationID = try await harness.service.sendVerificationCode(to: "+442079460000")
        #expect(!verificationID.isEmpty)
    }

    @Test("after 5 wrong codes a real number's verification is tooManyRequests, even for the right code")
    func attemptLimit() async throws {
        let harness = try AuthHarness()
        let verificationID = try await harness.service.sendVerificationCode(to: "+442079460000")
        let code = try #require(harness.inbox.lastCode(for: "+442079460000"))
        for _ in 1...5 {
            await #expect(throws: AuthenticationError(.invalidVerificationCode)) {
                _ = try await harness.service.signIn(with: .phone(verificationID: verificationID, code: Self.wrong(code)))
            }
        }
        await #expect(throws: AuthenticationError(.tooManyRequests)) {
            _ = try await harness.service.signIn(with: .phone(verificationID: verificationID, code: code))
        }
        #expect(harness.service.currentUser == nil)
    }

    @Test("a test number is never throttled: codes one after another, and wrong codes that never lock it (AUTH-15)", arguments: AuthVariant.allCases)
    func testNumberNeverThrottled(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        for _ in 1...3 {
            let verificationID = try await harness.service.sendVerificationCode(to: "+16505551234")
            for _ in 1...6 {
                await #expect(throws: AuthenticationError(.invalidVerificationCode)) {
                    _ = try await harness.service.signIn(with: .phone(verificationID: verificationID, code: "000000"))
                }
            }
            _ = try await harness.service.signIn(with: .phone(verificationID: verificationID, code: "123456"))
            try await harness.service.signOut()
        }
    }

    /// A six-digit code other than `code`.
    static func wrong(_ code: String) -> String { code == "000000" ? "111111" : "000000" }

    @Test("a new code invalidates the number's earlier codes")
    func newCodeInvalidatesOlder() async throws {
        let harness = try AuthHarness()
        let older = try await harness.service.sendVerificationCode(to: "+44 20 7946 0000")
        let olderCode = try #require(harness.inbox.lastCode(for: "+442079460000"))
        harness.clock.advance(by: .seconds(60))
        let newer = try await harness.service.sendVerificationCode(to: "+44 20 7946 0000")
        await #expect(throws: AuthenticationError(.invalidVerificationID)) {
            _ = try await harness.service.signIn(with: .phone(verificationID: older, code: olderCode))
        }
        let code = try #require(harness.inbox.lastCode(for: "+442079460000"))
        #expect(try await harness.service.signIn(with: .phone(verificationID: newer, code: code)).phoneNumber == "+442079460000")
    }

    @Test("wrong codes count per number across verifications: a new verification every minute gives no fresh attempts")
    func attemptsPerNumber() async throws {
        let harness = try AuthHarness()
        var verificationID = ""
        for attempt in 1...5 {
            if attempt.isMultiple(of: 2) || attempt == 1 {
                if attempt > 1 { harness.clock.advance(by: .seconds(60)) }
                verificationID = try await harness.service.sendVerificationCode(to: "+442079460000")
            }
            let code = try #require(harness.inbox.lastCode(for: "+442079460000"))
            await #expect(throws: AuthenticationError(.invalidVerificationCode)) {
                _ = try await harness.service.signIn(with: .phone(verificationID: verificationID, code: Self.wrong(code)))
            }
        }
        let last = try #require(harness.inbox.lastCode(for: "+442079460000"))
        await #expect(throws: AuthenticationError(.tooManyRequests)) {
            _ = try await harness.service.signIn(with: .phone(verificationID: verificationID, code: last))
        }
        harness.clock.advance(by: .seconds(60))
        await #expect(throws: AuthenticationError(.tooManyRequests), "no new code while the number is blocked") {
            _ = try await harness.service.sendVerificationCode(to: "+442079460000")
        }
        harness.clock.advance(by: .seconds(3600))
        let fresh = try await harness.service.sendVerificationCode(to: "+442079460000")
        let code = try #require(harness.inbox.lastCode(for: "+442079460000"))
        #expect(
            try await harness.service.signIn(with: .phone(verificationID: fresh, code: code)).phoneNumber == "+442079460000",
            "after the hour the number can sign in again")
    }

    @Test(
        "codes that are not six digits are invalidVerificationCode and do not count as attempts",
        arguments: ["12345", "1234567", "abcdef", "", "12 456"])
    func badCodeFormat(code: String) async throws {
        let harness = try AuthHarness()
        let verificationID = try await harness.service.sendVerificationCode(to: "+16505551234")
        for _ in 1...6 {
            await #expect(throws: AuthenticationError(.invalidVerificationCode)) {
                _ = try await harness.service.signIn(with: .phone(verificationID: verificationID, code: code))
            }
        }
        #expect(try await harness.service.signIn(with: .phone(verificationID: verificationID, code: "123456")).phoneNumber == "+16505551234")
    }

    @Test("a verification works once, is unknown if made up, and expires after 10 minutes")
    func verificationLifetime() async throws {
        let harness = try AuthHarness()
        let verificationID = try await harness.service.sendVerificationCode(to: "+16505551234")
        _ = try await harness.service.signIn(with: .phone(verificationID: verificationID, code: "123456"))
        try await harness.service.signOut()
        await #expect(throws: AuthenticationError(.invalidVerificationID)) {
            _ = try await harness.service.signIn(with: .phone(verificationID: verificationID, code: "123456"))
        }
        await #expect(throws: AuthenticationError(.invalidVerificationID)) {
            _ = try await harness.service.signIn(with: .phone(verificationID: "nope", code: "123456"))
        }

        harness.clock.advance(by: .seconds(60))
        let later = try await harness.service.sendVerificationCode(to: "+16505551234")
        harness.clock.advance(by: .seconds(601))
        await #expect(throws: AuthenticationError(.sessionExpired)) {
            _ = try await harness.service.signIn(with: .phone(verificationID: later, code: "123456"))
        }
    }

    @Test("Google sign-in goes through the same authorizer seam and shares the profile every time")
    func google() async throws {
        let harness = try AuthHarness()
        harness.google.signIn(as: AuthHarness.grace)
        let user = try await harness.service.signInWithGoogle()
        #expect(user.providers.map(\.provider) == [.google])
        #expect(user.email == "grace@example.com")
        #expect(user.displayName == "Grace Hopper")
    }

    @Test("a phone code sent before the clock was set back is expired, never valid for longer than its lifetime")
    func codeFromBeforeClockSetBack() async throws {
        let harness = try AuthHarness()
        let verificationID = try await harness.service.sendVerificationCode(to: "+44 20 7946 0000")
        let code = try #require(harness.inbox.lastCode(for: "+442079460000"))
        harness.clock.setDate(harness.clock.now.addingTimeInterval(-86_400))
        await #expect(throws: AuthenticationError(.sessionExpired)) {
            _ = try await harness.service.signIn(with: .phone(verificationID: verificationID, code: code))
        }
        #expect(harness.service.currentUser == nil)
    }

    @Test("a clock set back a little does not lock a number out: a new code goes at once")
    func clockSetBackDoesNotLockOut() async throws {
        let harness = try AuthHarness()
        let first = try await harness.service.sendVerificationCode(to: "+44 20 7946 0000")
        let code = try #require(harness.inbox.lastCode(for: "+442079460000"))
        harness.clock.setDate(harness.clock.now.addingTimeInterval(-120))
        await #expect(throws: AuthenticationError(.sessionExpired)) {
            _ = try await harness.service.signIn(with: .phone(verificationID: first, code: code))
        }
        let second = try await harness.service.sendVerificationCode(to: "+44 20 7946 0000")
        let fresh = try #require(harness.inbox.lastCode(for: "+442079460000"))
        _ = try await harness.service.signIn(with: .phone(verificationID: second, code: fresh))
    }
}
