import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainAuth

/// A sender that takes a second of the test clock, or fails.
struct SlowSender: VerificationCodeSender {
    let clock: ManualClock
    let fails: Bool
    func send(code: String, to phoneNumber: String) async throws {
        try await clock.sleep(for: .seconds(1))
        if fails { throw AuthenticationError(.networkError) }
    }
}

/// An Apple authorizer whose token revocation takes a second of the test clock.
struct SlowRevocation: IdentityAuthorizer {
    let inner: SimulatedIdentityProvider
    let clock: ManualClock
    var provider: AuthProvider { inner.provider }
    func authorize(_ request: AuthorizationRequest) async throws -> IdentityCredential { try await inner.authorize(request) }
    func credentialState(forUserID userID: String) async throws -> CredentialState { try await inner.credentialState(forUserID: userID) }
    func revokeToken(authorizationCode: String) async throws {
        try await clock.sleep(for: .seconds(1))
        try await inner.revokeToken(authorizationCode: authorizationCode)
    }
    func revocations() -> AsyncStream<String> { inner.revocations() }
}

/// Calls that interleave while another awaits, and defaults that must be safe.
@Suite(.timeLimit(.minutes(1))) struct ReentrancyTests {
    @Test("by default no test number works: a code to +1 650-555-1234 needs a sender")
    func noDefaultTestNumbers() async throws {
        let service = try LocalAuthService(storage: .inMemory, context: TrainContext(clock: ManualClock()))
        await #expect(throws: AuthenticationError(.invalidPhoneNumber)) { _ = try await service.sendVerificationCode(to: "+1 650-555-1234") }
        #expect(AuthPolicy().testPhoneNumbers.isEmpty)
    }

    @Test("two codes requested at once for one number: the second is refused while the first is being sent")
    func concurrentSends() async throws {
        let clock = ManualClock()
        let service = try LocalAuthService(
            storage: .inMemory, context: TrainContext(clock: clock),
            configuration: AuthConfiguration(codeSender: SlowSender(clock: clock, fails: false)))
        let first = Task { try await service.sendVerificationCode(to: "+44 20 7946 0000") }
        await clock.waitForSleepers(1)
        await #expect(throws: AuthenticationError(.tooManyRequests)) { _ = try await service.sendVerificationCode(to: "+44 20 7946 0000") }
        clock.advance(by: .seconds(1))
        #expect(try await !first.value.isEmpty)
    }

    @Test("a code that could not be sent does not start the cooldown")
    func failedSendReleasesCooldown() async throws {
        let clock = ManualClock()
        let service = try LocalAuthService(
            storage: .inMemory, context: TrainContext(clock: clock),
            configuration: AuthConfiguration(codeSender: SlowSender(clock: clock, fails: true)))
        for _ in 0..<2 {
            let attempt = Task { try await service.sendVerificationCode(to: "+44 20 7946 0000") }
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(1))
            await #expect(throws: AuthenticationError(.networkError)) { _ = try await attempt.value }
        }
    }

    @Test("a provider linked while the deletion awaits Apple is removed with the account")
    func linkDuringDeletion() async throws {
        let clock = ManualClock()
        let apple = SimulatedIdentityProvider(provider: .apple, audience: AuthHarness.appleAudience, clock: clock)
        apple.signIn(as: AuthHarness.ada)
        let service = try LocalAuthService(
            storage: .inMemory, context: TrainContext(clock: clock),
            configuration: AuthConfiguration(
                apple: IdentityProviderConfiguration(authorizer: SlowRevocation(inner: apple, clock: clock), audience: AuthHarness.appleAudience),
                policy: AuthPolicy(passwordIterations: 1_000)))
        _ = try await service.signInWithApple()
        let deletion = Task { try await service.deleteAccount() }
        await clock.waitForSleepers(1)
        _ = try await service.link(.emailPassword(email: "ada@example.com", password: "correct horse 1"))
        clock.advance(by: .seconds(1))
        let receipt = try await deletion.value
        #expect(receipt.providers == [.apple, .password])
        #expect(
            try await service.createUser(email: "ada@example.com", password: "correct horse 2").email == "ada@example.com",
            "the linked email was freed with the account")
    }

    @Test("a deletion that resumes after the same Apple ID made a new account elsewhere leaves the new account's sign-in alone")
    func deletionResumesAfterNewAccount() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.file("auth.sqlite")
        let clock = ManualClock()
        let apple = SimulatedIdentityProvider(provider: .apple, audience: AuthHarness.appleAudience, clock: clock)
        apple.signIn(as: AuthHarness.ada)
        func service(_ authorizer: any IdentityAuthorizer, ids: String) throws -> LocalAuthService {
            try LocalAuthService(
                storage: .file(file), context: TrainContext(clock: clock, ids: SequentialIDGenerator(prefix: ids)),
                configuration: AuthConfiguration(
                    apple: IdentityProviderConfiguration(authorizer: authorizer, audience: AuthHarness.appleAudience),
                    policy: AuthPolicy(passwordIterations: 1_000)))
        }
        let app = try service(SlowRevocation(inner: apple, clock: clock), ids: "app-")
        let old = try await app.signInWithApple()
        let deletion = Task { try await app.deleteAccount() }
        await clock.waitForSleepers(1)
        // Meanwhile the extension deletes the account and the same Apple ID makes a new one.
        let widget = try service(apple, ids: "widget-")
        _ = try await widget.reauthenticate(with: try await widget.requestCredential(from: .apple))
        _ = try await widget.deleteAccount()
        let new = try await widget.signInWithApple()
        #expect(new.id != old.id)
        clock.advance(by: .seconds(1))
        _ = try await deletion.value
        try await widget.signOut()
        #expect(try await widget.signInWithApple().id == new.id, "the new account still signs in with Apple")
    }

    @Test("a deletion whose user was replaced in this service during the revocation deletes nothing")
    func deletionAfterUserSwitch() async throws {
        let clock = ManualClock()
        let apple = SimulatedIdentityProvider(provider: .apple, audience: AuthHarness.appleAudience, clock: clock)
        let service = LocalAuthService(
            context: TrainContext(clock: clock),
            configuration: AuthConfiguration(
                apple: IdentityProviderConfiguration(authorizer: SlowRevocation(inner: apple, clock: clock), audience: AuthHarness.appleAudience),
                policy: AuthPolicy(passwordIterations: 1_000)))
        apple.signIn(as: AuthHarness.ada)
        let ada = try await service.signInWithApple()
        let deletion = Task { try await service.deleteAccount() }
        await clock.waitForSleepers(1)
        try await service.signOut()
        apple.signIn(as: AuthHarness.grace)
        let grace = try await service.signInWithApple()
        clock.advance(by: .seconds(1))
        await #expect(throws: AuthenticationError(.userMismatch)) { _ = try await deletion.value }
        #expect(service.currentUser?.id == grace.id, "Grace stays signed in")
        try await service.signOut()
        apple.signIn(as: AuthHarness.ada)
        #expect(try await service.signInWithApple().id == ada.id, "Ada's account was not deleted")
    }
}
