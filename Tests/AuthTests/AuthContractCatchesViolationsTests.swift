import Foundation
import Testing
import TrainAuth
import TrainCore
import TrainTesting

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
