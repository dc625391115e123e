import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainAuth

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

    @Test(
        "a wrong password, an unknown email and an empty password are one invalidCredential that signs nobody in (AUTH-15)",
        arguments: AuthVariant.allCases)
    func wrongCredentials(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        _ = try await harness.service.createUser(email: "ada@example.com", password: "correct horse 1")
        try await harness.service.signOut()
        for (email, password) in [("ada@example.com", "wrong horse 1"), ("bob@example.com", "correct horse 1"), ("ada@example.com", "")] {
            await #expect(throws: AuthenticationError(.invalidCredential)) {
                _ = try await harness.service.signIn(with: .emailPassword(email: email, password: password))
            }
        }
        #expect(harness.service.currentUser == nil)
    }

    @Test("with the enumeration protection off, a wrong password is wrongPassword and an unknown email userNotFound", arguments: AuthVariant.allCases)
    func distinctErrorsWhenOptedOut(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant, policy: AuthPolicy(passwordIterations: 1_000, protectsAgainstEnumeration: false))
        _ = try await harness.service.createUser(email: "ada@example.com", password: "correct horse 1")
        try await harness.service.signOut()
        await #expect(throws: AuthenticationError(.wrongPassword)) {
            _ = try await harness.service.signIn(with: .emailPassword(email: "ada@example.com", password: "wrong horse 1"))
        }
        await #expect(throws: AuthenticationError(.userNotFound)) {
            _ = try await harness.service.signIn(with: .emailPassword(email: "bob@example.com", password: "correct horse 1"))
        }
        await #expect(throws: AuthenticationError(.wrongPassword)) {
            _ = try await harness.service.signIn(with: .emailPassword(email: "ada@example.com", password: ""))
        }
        #expect(harness.service.currentUser == nil)
    }

    @Test("a password longer than any account can have is invalidCredential at sign-in and re-authentication, not a storage error")
    func overlongPassword() async throws {
        let harness = try AuthHarness()
        _ = try await harness.service.createUser(email: "ada@example.com", password: "correct horse 1")
        let overlong = String(repeating: "a", count: (1 << 20) + 1)
        await #expect(throws: AuthenticationError(.invalidCredential)) {
            _ = try await harness.service.reauthenticate(with: .emailPassword(email: "ada@example.com", password: overlong))
        }
        try await harness.service.signOut()
        await #expect(throws: AuthenticationError(.invalidCredential)) {
            _ = try await harness.service.signIn(with: .emailPassword(email: "ada@example.com", password: overlong))
        }
        #expect(harness.service.currentUser == nil)
    }

    @Test(
        "malformed emails are invalidEmail",
        arguments: [
            "", "ada", "ada@", "@example.com", "ada@example", "ada@@example.com",
            "ada example@example.com", "ada@.example.com", "ada@example..com",
        ])
    func malformedEmail(email: String) async throws {
        let harness = try AuthHarness()
        await #expect(throws: AuthenticationError(.invalidEmail)) {
            _ = try await harness.service.createUser(email: email, password: "correct horse 1")
        }
        #expect(harness.service.currentUser == nil)
    }

    @Test("empty and weak passwords are weakPassword", arguments: ["", "short1", "onlyletters", "12345678", "        "])
    func weakPassword(password: String) async throws {
        let harness = try AuthHarness()
        await #expect(throws: AuthenticationError(.weakPassword)) {
            _ = try await harness.service.createUser(email: "ada@example.com", password: password)
        }
        #expect(harness.service.currentUser == nil)
        // Nothing was created: the address is still free.
        #expect(try await harness.service.createUser(email: "ada@example.com", password: "correct horse 1").email == "ada@example.com")
    }

    @Test("an email used by another account is emailAlreadyInUse")
    func emailInUse() async throws {
        let harness = try AuthHarness()
        _ = try await harness.service.createUser(email: "ada@example.com", password: "correct horse 1")
        await #expect(throws: AuthenticationError(.emailAlreadyInUse)) {
            _ = try await harness.service.createUser(email: "ADA@example.com", password: "other horse 2")
        }
    }

    @Test("the password is stored only as a salted, iterated hash: never in the file, never in an error")
    func noPasswordInClear() async throws {
        let harness = try AuthHarness(.file)
        let password = "Sup3r-Secret-Passw0rd"
        let user = try await harness.service.createUser(email: "ada@example.com", password: password)
        let error = await #expect(throws: AuthenticationError.self) {
            _ = try await harness.service.signIn(with: .emailPassword(email: "ada@example.com", password: password + "x"))
        }
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

    @Test(
        "a sign-in brings a hash made with other iterations up to the policy's, so every account's answer costs the policy's iterations",
        arguments: AuthVariant.allCases)
    func rehashToPolicy(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let store = try harness.sharedStore()
        var before = harness.configuration
        before.policy.passwordIterations = 500
        let old = try LocalAuthService(store: store, sessionKey: "phone", signingIn: nil, context: harness.context, configuration: before)
        let ada = try await old.createUser(email: "ada@example.com", password: "correct horse 1")
        try await old.signOut()
        let iterations = { try store.read { try $0.value(forKey: ada.id, in: AuthRecords.passwords) }?.iterations }
        #expect(try iterations() == 500)
        let raised = try harness.device(on: store, session: "phone")
        await #expect(throws: AuthenticationError(.invalidCredential)) {
            _ = try await raised.signIn(with: .emailPassword(email: "ada@example.com", password: "wrong horse 9"))
        }
        #expect(try iterations() == 500, "a wrong password changes nothing")
        _ = try await raised.signIn(with: .emailPassword(email: "ada@example.com", password: "correct horse 1"))
        #expect(try iterations() == 1_000)
        try await raised.signOut()
        _ = try await raised.signIn(with: .emailPassword(email: "ada@example.com", password: "correct horse 1"))
    }

    @Test("after the policy was raised, two devices signing in at once with the right password both succeed", arguments: AuthVariant.allCases)
    func concurrentSignInsAfterRaise(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let store = try harness.sharedStore()
        let creator = try harness.device(on: store, session: "creator")
        _ = try await creator.createUser(email: "ada@example.com", password: "correct horse 1")
        try await creator.signOut()
        harness.policy.passwordIterations = 100_000
        let app = try harness.device(on: store, session: "app")
        let widget = try harness.device(on: store, session: "widget")
        let credential = SignInCredential.emailPassword(email: "ada@example.com", password: "correct horse 1")
        async let first = app.signIn(with: credential)
        async let second = widget.signIn(with: credential)
        let (one, two) = try await (first, second)
        #expect(one.id == two.id)
    }

    @Test("a sign-in under a lower iteration policy (an extension's) leaves a stronger hash as it is", arguments: AuthVariant.allCases)
    func rehashNeverWeakens(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let store = try harness.sharedStore()
        harness.policy.passwordIterations = 20_000
        let ada = try await harness.device(on: store, session: "app").createUser(email: "ada@example.com", password: "correct horse 1")
        harness.policy.passwordIterations = 1_000
        _ = try await harness.device(on: store, session: "widget").signIn(with: .emailPassword(email: "ada@example.com", password: "correct horse 1"))
        #expect(try store.read { try $0.value(forKey: ada.id, in: AuthRecords.passwords) }?.iterations == 20_000)
    }
}
