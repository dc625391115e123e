import Foundation
import Testing
import TrainAuth
import TrainCore
import TrainTesting

/// TEST-4: TrainKit's own services pass the public AuthService contract.
struct LocalAuthEnvironment: AuthContractEnvironment {
    let variant: AuthVariant
    let clock = ManualClock()
    let directory: TemporaryDirectory
    let mailbox = SimulatedMailbox()
    /// The services made, for the verifier.
    let made = Locked<[LocalAuthService]>([])
    var recentLoginWindow: Duration { .seconds(300) }

    init(_ variant: AuthVariant) throws {
        self.variant = variant
        directory = try TemporaryDirectory()
    }

    var authPolicy: AuthPolicy { AuthPolicy(passwordIterations: 1_000) }

    func makeService() async throws -> any AuthService {
        try await makeService(policy: authPolicy)
    }

    func makeService(policy: AuthPolicy) async throws -> any AuthService {
        let context = TrainContext(clock: clock)
        let configuration = AuthConfiguration(emailSender: mailbox, policy: policy)
        let service: LocalAuthService =
            switch variant {
            case .inMemory: try LocalAuthService(storage: .inMemory, context: context, configuration: configuration)
            case .file:
                try LocalAuthService(
                    storage: .file(directory.file("auth-\(UUID().uuidString).sqlite")), context: context, configuration: configuration)
            }
        made.withLock { $0.append(service) }
        return service
    }

    func lastEmailCode(to address: String, _ kind: AuthEmail.Kind) async throws -> String? {
        mailbox.lastCode(for: address, kind)
    }

    func verifyIDToken(_ token: String) async throws -> IDTokenClaims {
        guard let service = made.withLock({ $0.last }) else { throw AuthenticationError(.notSignedIn) }
        return try service.tokenVerifier().verify(token)
    }

    func advanceClock(by duration: Duration) async {
        clock.advance(by: duration)
    }
}

extension ContractCheck: CustomTestStringConvertible {
    public var testDescription: String { name }
}

@Suite(.timeLimit(.minutes(1))) struct AuthContractTests {
    @Test("LocalAuthService keeps the AuthService contract", arguments: AuthVariant.allCases, AuthServiceContract.checks)
    func contract(variant: AuthVariant, check: AuthContractCheck) async throws {
        try await check.run(in: LocalAuthEnvironment(variant))
    }
}
