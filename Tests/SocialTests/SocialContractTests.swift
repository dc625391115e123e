import Foundation
import Testing
import TrainAuth
import TrainCore
import TrainSocial
import TrainTesting

/// TEST-4: LocalSocialFeedService keeps the public SocialFeedService contract, in memory
/// and on disk in a TemporaryDirectory, each user signed in through a FakeAuthService.
struct LocalSocialEnvironment: SocialContractEnvironment {
    let variant: SocialVariant

    func makeService() async throws -> SocialContractSession {
        try await makeService(policy: SocialPolicy(), workouts: SimulatedWorkoutSource())
    }

    func makeService(policy: SocialPolicy, workouts: SimulatedWorkoutSource) async throws -> SocialContractSession {
        let harness = try SocialHarness(variant, policy: policy, workouts: workouts)
        harness.auth.setCurrentUser(nil)
        return SocialContractSession(service: harness.social) { userID in
            if let userID { harness.act(as: userID) } else { harness.auth.setCurrentUser(nil) }
        }
    }
}

extension ContractCheck: CustomTestStringConvertible {
    public var testDescription: String { name }
}

@Suite(.timeLimit(.minutes(1))) struct SocialContractTests {
    @Test("LocalSocialFeedService keeps the SocialFeedService contract", arguments: SocialVariant.allCases, SocialFeedServiceContract.checks)
    func contract(variant: SocialVariant, check: SocialContractCheck) async throws {
        try await check.run(in: LocalSocialEnvironment(variant: variant))
    }

}
