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

/// The contract can fail: a conformance that ignores passwords and recent logins is caught.
struct PermissiveEnvironment: AuthContractEnvironment {
    var recentLoginWindow: Duration { .seconds(300) }
    func makeService() async throws -> any AuthService { FakeAuthService() }
    func advanceClock(by duration: Duration) async {}
}

@Suite(.timeLimit(.minutes(1))) struct AuthContractCatchesViolationsTests {
    @Test("a permissive fake breaks the contract's password, recent-login and bad-input checks")
    func catchesViolations() async throws {
        var violated: [String] = []
        for check in AuthServiceContract.checks {
            do {
                try await check.run(in: PermissiveEnvironment())
            } catch is ContractViolation {
                violated.append(check.name)
            } catch {}
        }
        #expect(violated.contains("the right password signs in; a wrong one is wrongPassword and signs nobody in"))
        #expect(violated.contains("bad input is a typed error and creates nothing"))
        #expect(violated.contains("deletion is fresh at the recent-login window and requiresRecentLogin past it"))
    }
}
