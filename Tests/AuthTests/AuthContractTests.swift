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
    var recentLoginWindow: Duration { .seconds(300) }

    init(_ variant: AuthVariant) throws {
        self.variant = variant
        directory = try TemporaryDirectory()
    }

    func makeService() async throws -> any AuthService {
        let configuration = AuthConfiguration(clock: clock, policy: AuthPolicy(passwordIterations: 1_000))
        switch variant {
        case .inMemory: return try LocalAuthService(storage: .inMemory, configuration: configuration)
        case .file: return try LocalAuthService(storage: .file(directory.file("auth-\(UUID().uuidString).sqlite")), configuration: configuration)
        }
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
