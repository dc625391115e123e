import Foundation
import Testing
import TrainAuth
import TrainCore
import TrainTesting

/// The contract can fail: a conformance that signs anyone in whatever the password,
/// creates an account from any input and deletes without a recent login is caught. It
/// is the real service with those calls scripted to succeed.
struct PermissiveEnvironment: AuthContractEnvironment {
    let real: LocalAuthEnvironment
    var recentLoginWindow: Duration { real.recentLoginWindow }

    init() throws { real = try LocalAuthEnvironment(.inMemory) }

    func makeService() async throws -> any AuthService {
        let permissive = FakeAuthService(backedBy: try await real.makeService())
        permissive.script(.signIn, .returning(FakeAuthService.sampleUser))
        permissive.script(.createUser, .returning(FakeAuthService.sampleUser))
        permissive.script(
            .deleteAccount, .returning(AccountDeletionReceipt(userID: FakeAuthService.sampleUser.id, providers: [], tokenRevocation: .notApplicable)))
        return permissive
    }

    func advanceClock(by duration: Duration) async { await real.advanceClock(by: duration) }
}

@Suite(.timeLimit(.minutes(1))) struct AuthContractCatchesViolationsTests {
    @Test("a permissive fake breaks the contract's password, recent-login and bad-input checks")
    func catchesViolations() async throws {
        var violated: [String] = []
        for check in AuthServiceContract.checks {
            do {
                try await check.run(in: try PermissiveEnvironment())
            } catch is ContractViolation {
                violated.append(check.name)
            } catch {}
        }
        #expect(violated.contains("the right password signs in; a wrong one is invalidCredential and signs nobody in"))
        #expect(violated.contains("bad input is a typed error and creates nothing"))
        #expect(violated.contains("deletion is fresh at the recent-login window and requiresRecentLogin past it"))
    }
}
