import Foundation
import Testing
import TrainAccount
import TrainAuth
import TrainCore
import TrainSocial
import TrainSync
import TrainTesting

/// A signed-in user with a post and a plan on a whole stack, in memory or in files.
final class StackAccountEnvironment: AccountServiceContractEnvironment {
    let variant: AccountVariant
    /// The worlds made, kept alive (with their directories) as long as the environment.
    private let worlds = Locked([AccountWorld]())

    init(variant: AccountVariant) { self.variant = variant }

    func makeSignedInService() async throws -> (service: any AccountService, userID: String) {
        let world = try AccountWorld(variant)
        worlds.withLock { $0.append(world) }
        let user = try await world.signIn()
        _ = try await world.social.createPost(content: "Contract run", workoutType: .run)
        _ = try await world.plans.createPlan(
            TrainingPlan(name: "Contract plan", startDate: world.clock.now, endDate: world.clock.now, daysPerWeek: 1))
        return (world.account, user.id)
    }
}

/// The account fake in front of a stack in memory: every call forwarded keeps the contract.
struct FakeAccountEnvironment: AccountServiceContractEnvironment {
    func makeSignedInService() async throws -> (service: any AccountService, userID: String) {
        (FakeServices().account, FakeAuthService.sampleUser.id)
    }
}

@Suite(.timeLimit(.minutes(1))) struct AccountContractTests {
    @Test("LocalAccountService keeps the AccountService contract", arguments: AccountServiceContract.checks, AccountVariant.allCases)
    func local(check: AccountServiceContractCheck, variant: AccountVariant) async throws {
        let environment = StackAccountEnvironment(variant: variant)
        try await check.run(in: environment)
        withExtendedLifetime(environment) {}
    }

    @Test("FakeAccountService keeps the AccountService contract", arguments: AccountServiceContract.checks)
    func fake(check: AccountServiceContractCheck) async throws {
        try await check.run(in: FakeAccountEnvironment())
    }
}
