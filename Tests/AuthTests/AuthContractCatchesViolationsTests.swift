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
    /// The names of the checks that report a violation in a fresh environment each.
    static func violatedChecks(in environment: () throws -> any AuthContractEnvironment) async -> [String] {
        var violated: [String] = []
        for check in AuthServiceContract.checks {
            do {
                try await check.run(in: try environment())
            } catch is ContractViolation {
                violated.append(check.name)
            } catch {}
        }
        return violated
    }

    @Test("a permissive fake breaks the contract's password, recent-login and bad-input checks")
    func catchesViolations() async throws {
        let violated = await Self.violatedChecks { try PermissiveEnvironment() }
        #expect(violated.contains("the right password signs in; a wrong one is invalidCredential and signs nobody in"))
        #expect(violated.contains("bad input is a typed error and creates nothing"))
        #expect(violated.contains("deletion is fresh at the recent-login window and requiresRecentLogin past it"))
    }

    @Test("a conformance with no email limit, a fixed token and no verified-email rule breaks the limit, token and policy checks")
    func catchesLaxEmailsAndTokens() async throws {
        let violated = await Self.violatedChecks { try LaxEnvironment() }
        #expect(violated.contains("an address gets the policy's emails an hour, with an account or without; then tooManyRequests"))
        #expect(
            violated.contains(
                "a token is kept until five minutes before its expiry, then replaced; a forced refresh gives a new one, which the stream tells"))
        #expect(violated.contains("a policy that needs a verified email refuses the action with unverifiedEmail until the address is verified"))
    }
}

/// The real service with sign-in codes never sent nor counted, one token forever, and
/// a verified email never required.
struct LaxEnvironment: AuthContractEnvironment {
    let real: LocalAuthEnvironment
    var recentLoginWindow: Duration { real.recentLoginWindow }
    var authPolicy: AuthPolicy { real.authPolicy }

    init() throws { real = try LocalAuthEnvironment(.inMemory) }

    func makeService() async throws -> any AuthService { try await makeService(policy: authPolicy) }

    func makeService(policy: AuthPolicy) async throws -> any AuthService {
        let lax = FakeAuthService(backedBy: try await real.makeService(policy: policy))
        lax.script(.sendSignInCode, .succeeding)
        lax.script(.idToken, .returning("header.payload.signature"))
        lax.script(.requireVerifiedEmail, .succeeding)
        return lax
    }

    func advanceClock(by duration: Duration) async { await real.advanceClock(by: duration) }
    func lastEmailCode(to address: String, _ kind: AuthEmail.Kind) async throws -> String? {
        try await real.lastEmailCode(to: address, kind)
    }
    func verifyIDToken(_ token: String) async throws -> IDTokenClaims { try await real.verifyIDToken(token) }
}
