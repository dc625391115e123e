import Foundation
import TrainCore
import TrainTesting

@testable import TrainAuth

/// The two storage variants every auth rule must hold for.
enum AuthVariant: String, CaseIterable, CustomStringConvertible {
    case inMemory, file
    var description: String { rawValue }
}

/// A service under test with everything it talks to: a manual clock, sequential IDs,
/// simulated Apple and Google, an SMS inbox and fake biometrics.
final class AuthHarness {
    static let appleAudience = "com.example.train"
    static let googleAudience = "train.apps.googleusercontent.com"
    static let ada = SimulatedIdentityProvider.Account(
        subject: "001.ada", email: "ada@example.com",
        fullName: FullName(givenName: "Ada", familyName: "Lovelace"))
    static let grace = SimulatedIdentityProvider.Account(
        subject: "002.grace", email: "grace@example.com",
        fullName: FullName(givenName: "Grace", familyName: "Hopper"))

    let variant: AuthVariant
    let clock = ManualClock()
    let ids = SequentialIDGenerator(prefix: "user-")
    let apple: SimulatedIdentityProvider
    let google: SimulatedIdentityProvider
    let inbox = SimulatedSMSInbox()
    let mailbox = SimulatedMailbox()
    /// The sender in front of the mailbox: tests make its sends fail or wait.
    let mail: FakeEmailSender
    /// The device's sensor, Face ID enrolled: tests change its availability.
    let sensor = SimulatedBiometricAuthenticator()
    /// The fake in front of it, which records the prompts and answers what a test scripts.
    let biometrics: FakeBiometricAuthenticator
    let directory: TemporaryDirectory
    var policy = AuthPolicy(passwordIterations: 1_000, testPhoneNumbers: AuthPolicy.exampleTestPhoneNumbers)
    private(set) var service: LocalAuthService

    init(
        _ variant: AuthVariant = .inMemory,
        policy: AuthPolicy = AuthPolicy(passwordIterations: 1_000, testPhoneNumbers: AuthPolicy.exampleTestPhoneNumbers)
    ) throws {
        self.variant = variant
        self.policy = policy
        biometrics = FakeBiometricAuthenticator(backedBy: sensor, clock: clock)
        mail = FakeEmailSender(backedBy: mailbox, clock: clock)
        directory = try TemporaryDirectory()
        apple = SimulatedIdentityProvider(provider: .apple, audience: Self.appleAudience, clock: clock)
        google = SimulatedIdentityProvider(provider: .google, audience: Self.googleAudience, clock: clock)
        service = try LocalAuthService(storage: .inMemory, configuration: AuthConfiguration())
        service = try makeService()
    }

    var file: URL { directory.file("auth.sqlite") }

    var context: TrainContext { TrainContext(clock: clock, ids: ids) }

    var configuration: AuthConfiguration {
        AuthConfiguration(
            apple: IdentityProviderConfiguration(authorizer: apple, audience: Self.appleAudience),
            google: IdentityProviderConfiguration(authorizer: google, audience: Self.googleAudience),
            codeSender: inbox, emailSender: mail, biometrics: biometrics, policy: policy)
    }

    func makeService() throws -> LocalAuthService {
        switch variant {
        case .inMemory: try LocalAuthService(storage: .inMemory, context: context, configuration: configuration)
        case .file: try LocalAuthService(storage: .file(file), context: context, configuration: configuration)
        }
    }

    /// A second device on the accounts of `store`, with a session of its own.
    func device(on store: RecordStore, session: String) throws -> LocalAuthService {
        try LocalAuthService(store: store, sessionKey: session, signingIn: nil, context: context, configuration: configuration)
    }

    /// A store of accounts two devices share, in this harness's storage variant.
    func sharedStore() throws -> RecordStore {
        switch variant {
        case .inMemory: try RecordStore(.inMemory, schema: LocalAuthService.recordSchema)
        case .file: try RecordStore(.file(directory.file("shared.sqlite")), schema: LocalAuthService.recordSchema)
        }
    }

    /// A new service on the same file, as after a relaunch (file variant only).
    func relaunch() throws -> LocalAuthService {
        service = try makeService()
        return service
    }

    /// Signs `account` in with Apple.
    @discardableResult
    func signInWithApple(as account: SimulatedIdentityProvider.Account = AuthHarness.ada) async throws -> UserEntity {
        apple.signIn(as: account)
        return try await service.signInWithApple()
    }

    /// An Apple credential for `account`, with its raw nonce, not yet used.
    func appleCredential(for account: SimulatedIdentityProvider.Account = AuthHarness.ada) async throws -> SignInCredential {
        apple.signIn(as: account)
        return try await service.requestCredential(from: .apple)
    }
}
