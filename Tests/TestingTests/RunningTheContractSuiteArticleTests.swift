import Testing
import TrainAuth
import TrainCore
import TrainTesting

// The code of TrainTesting.docc/RunningTheContractSuite.md, kept compiling and passing here.
// When you change one, change the other.

struct InMemoryAuthEnvironment: AuthContractEnvironment {
    let clock = ManualClock()
    let mailbox = SimulatedMailbox()
    let services = Locked<[LocalAuthService]>([])
    var recentLoginWindow: Duration { .seconds(300) }

    var authPolicy: AuthPolicy { AuthPolicy(passwordIterations: 1_000) }

    func makeService() async throws -> any AuthService {
        try await makeService(policy: authPolicy)
    }

    func makeService(policy: AuthPolicy) async throws -> any AuthService {
        let configuration = AuthConfiguration(emailSender: mailbox, policy: policy)
        let service = try LocalAuthService(storage: .inMemory, context: TrainContext(clock: clock), configuration: configuration)
        services.withLock { $0.append(service) }
        return service
    }

    func advanceClock(by duration: Duration) async {
        clock.advance(by: duration)
    }

    func lastEmailCode(to address: String, _ kind: AuthEmail.Kind) async throws -> String? {
        mailbox.lastCode(for: address, kind)
    }

    func verifyIDToken(_ token: String) async throws -> IDTokenClaims {
        guard let service = services.withLock({ $0.last }) else { throw AuthenticationError(.notSignedIn) }
        return try service.tokenVerifier().verify(token)
    }
}

@Test("the article's contract run passes for the in-memory service", arguments: AuthServiceContract.checks)
func authContract(_ check: AuthContractCheck) async throws {
    try await check.run(in: InMemoryAuthEnvironment())
}

@Test(arguments: AuthServiceContract.checks.covering(AuthEmailFlows.self))
func emailFlows(_ check: AuthContractCheck) async throws {
    try await check.run(in: InMemoryAuthEnvironment())
}
