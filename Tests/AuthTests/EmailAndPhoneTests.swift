import Foundation
import Testing
@testable import TrainAuth
import TrainCore
import TrainTesting

/// AUTH-3: email + password, and phone numbers with 6-digit codes.
@Suite(.timeLimit(.minutes(1))) struct EmailPasswordTests {
    @Test("an email account is created, signed in, and signs in again with its password", arguments: AuthVariant.allCases)
    func createAndSignIn(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let created = try await harness.service.createUser(email: "  Ada@Example.com ", password: "correct horse 1")
        #expect(created.email == "ada@example.com")
        #expect(created.providers.map(\.provider) == [.password])
        try await harness.service.signOut()
        let user = try await harness.service.signIn(with: .emailPassword(email: "ada@example.com", password: "correct horse 1"))
        #expect(user.id == created.id)
    }

    @Test("a wrong password, an unknown email and an empty password are typed errors that sign nobody in")
    func wrongCredentials() async throws {
        let harness = try AuthHarness()
        _ = try await harness.service.createUser(email: "ada@example.com", password: "correct horse 1")
        try await harness.service.signOut()
        await #expect(throws: AuthError(.wrongPassword)) { _ = try await harness.service.signIn(with: .emailPassword(email: "ada@example.com", password: "wrong horse 1")) }
        await #expect(throws: AuthError(.userNotFound)) { _ = try await harness.service.signIn(with: .emailPassword(email: "bob@example.com", password: "correct horse 1")) }
        await #expect(throws: AuthError(.wrongPassword)) { _ = try await harness.service.signIn(with: .emailPassword(email: "ada@example.com", password: "")) }
        #expect(harness.service.currentUser == nil)
    }

    @Test("malformed emails are invalidEmail", arguments: ["", "ada", "ada@", "@example.com", "ada@example", "ada@@example.com",
                                                         "ada example@example.com", "ada@.example.com", "ada@example..com"])
    func malformedEmail(email: String) async throws {
        let harness = try AuthHarness()
        await #expect(throws: AuthError(.invalidEmail)) { _ = try await harness.service.createUser(email: email, password: "correct horse 1") }
        #expect(harness.service.currentUser == nil)
    }

    @Test("empty and weak passwords are weakPassword", arguments: ["", "short1", "onlyletters", "12345678", "        "])
    func weakPassword(password: String) async throws {
        let harness = try AuthHarness()
        await #expect(throws: AuthError(.weakPassword)) { _ = try await harness.service.createUser(email: "ada@example.com", password: password) }
        #expect(harness.service.currentUser == nil)
        // Nothing was created: the address is still free.
        #expect(try await harness.service.createUser(email: "ada@example.com", password: "correct horse 1").email == "ada@example.com")
    }

    @Test("an email used by another account is emailAlreadyInUse")
    func emailInUse() async throws {
        let harness = try AuthHarness()
        _ = try await harness.service.createUser(email: "ada@example.com", password: "correct horse 1")
        await #expect(throws: AuthError(.emailAlreadyInUse)) { _ = try await harness.service.createUser(email: "ADA@example.com", password: "other horse 2") }
    }

    @Test("the password is stored only as a salted, iterated hash: never in the file, never in an error")
    func noPasswordInClear() async throws {
        let harness = try AuthHarness(.file)
        let password = "Sup3r-Secret-Passw0rd"
        let user = try await harness.service.createUser(email: "ada@example.com", password: password)
        let error = await #expect(throws: AuthError.self) { _ = try await harness.service.signIn(with: .emailPassword(email: "ada@example.com", password: password + "x")) }
        #expect(error.map { "\($0) \($0.localizedDescription) \($0.recoverySuggestion ?? "")".contains(password) } == false)
        let stored = try await harness.service.storedPasswordHash(for: user.id)
        #expect(stored?.iterations == 1_000)
        #expect(stored?.salt.count == 16)
        let other = try await harness.service.createUserHash(password: password)
        #expect(other.salt != stored?.salt && other.hash != stored?.hash, "two hashes of one password differ by salt")
        for suffix in ["", "-wal"] {
            let bytes = (try? Data(contentsOf: URL(fileURLWithPath: harness.file.path + suffix))) ?? Data()
            #expect(bytes.range(of: Data(password.utf8)) == nil, "password found in auth.sqlite\(suffix)")
        }
    }
}

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
        await #expect(throws: AuthError(.invalidPhoneNumber)) { _ = try await service.sendVerificationCode(to: "+1 650-555-9999") }
    }

    @Test("malformed numbers are invalidPhoneNumber", arguments: ["", "6505551234", "+1", "+1 650 555 12345678901", "+1-650-CALL-NOW", "+0123456789"])
    func malformedNumber(number: String) async throws {
        let harness = try AuthHarness()
        await #expect(throws: AuthError(.invalidPhoneNumber)) { _ = try await harness.service.sendVerificationCode(to: number) }
    }

    @Test("a second code to the same number waits 60 seconds: refused at 59, sent at 60")
    func resendCooldown() async throws {
        let harness = try AuthHarness()
        _ = try await harness.service.sendVerificationCode(to: "+16505551234")
        harness.clock.advance(by: .seconds(59))
        await #expect(throws: AuthError(.tooManyRequests)) { _ = try await harness.service.sendVerificationCode(to: "+16505551234") }
        harness.clock.advance(by: .seconds(1))
        let verificationID = try await harness.service.sendVerificationCode(to: "+16505551234")
        #expect(!verificationID.isEmpty)
    }

    @Test("after 5 wrong codes the verification is tooManyRequests, even for the right code")
    func attemptLimit() async throws {
        let harness = try AuthHarness()
        let verificationID = try await harness.service.sendVerificationCode(to: "+16505551234")
        for _ in 1...5 {
            await #expect(throws: AuthError(.invalidVerificationCode)) { _ = try await harness.service.signIn(with: .phone(verificationID: verificationID, code: "000000")) }
        }
        await #expect(throws: AuthError(.tooManyRequests)) { _ = try await harness.service.signIn(with: .phone(verificationID: verificationID, code: "123456")) }
        #expect(harness.service.currentUser == nil)
    }

    @Test("codes that are not six digits are invalidVerificationCode and do not count as attempts", arguments: ["12345", "1234567", "abcdef", "", "12 456"])
    func badCodeFormat(code: String) async throws {
        let harness = try AuthHarness()
        let verificationID = try await harness.service.sendVerificationCode(to: "+16505551234")
        for _ in 1...6 {
            await #expect(throws: AuthError(.invalidVerificationCode)) { _ = try await harness.service.signIn(with: .phone(verificationID: verificationID, code: code)) }
        }
        #expect(try await harness.service.signIn(with: .phone(verificationID: verificationID, code: "123456")).phoneNumber == "+16505551234")
    }

    @Test("a verification works once, is unknown if made up, and expires after 10 minutes")
    func verificationLifetime() async throws {
        let harness = try AuthHarness()
        let verificationID = try await harness.service.sendVerificationCode(to: "+16505551234")
        _ = try await harness.service.signIn(with: .phone(verificationID: verificationID, code: "123456"))
        try await harness.service.signOut()
        await #expect(throws: AuthError(.invalidVerificationID)) { _ = try await harness.service.signIn(with: .phone(verificationID: verificationID, code: "123456")) }
        await #expect(throws: AuthError(.invalidVerificationID)) { _ = try await harness.service.signIn(with: .phone(verificationID: "nope", code: "123456")) }

        harness.clock.advance(by: .seconds(60))
        let later = try await harness.service.sendVerificationCode(to: "+16505551234")
        harness.clock.advance(by: .seconds(601))
        await #expect(throws: AuthError(.sessionExpired)) { _ = try await harness.service.signIn(with: .phone(verificationID: later, code: "123456")) }
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
}
