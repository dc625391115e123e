import Foundation
import Testing
import TrainAuth
import TrainCore
import TrainSocial
import TrainTesting

/// TEST-4: LocalSocialFeedService keeps the public SocialFeedService contract, in memory and on disk.
struct LocalSocialEnvironment: SocialContractEnvironment {
    let variant: SocialVariant

    func makeService() async throws -> SocialContractSession {
        let harness = try SocialHarness(variant)
        harness.auth.setCurrentUser(nil)
        return SocialContractSession(service: harness.social) { userID in
            if let userID { harness.act(as: userID) } else { harness.auth.setCurrentUser(nil) }
        }
    }
}

/// A conformance that ignores who is signed in and never locks: the contract must catch it.
struct PermissiveSocialEnvironment: SocialContractEnvironment {
    func makeService() async throws -> SocialContractSession {
        SocialContractSession(service: FakeSocialFeedService(feedUnlocked: true)) { _ in }
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

    @Test("a permissive conformance breaks the locked-feed, block and signed-out checks")
    func catchesViolations() async throws {
        var violated: [String] = []
        for check in SocialFeedServiceContract.checks {
            do {
                try await check.run(in: PermissiveSocialEnvironment())
            } catch is ContractViolation {
                violated.append(check.name)
            } catch {}
        }
        #expect(violated.contains("a locked friends feed is feedLocked, not an empty page, and posting needs an unlocked feed"))
        #expect(violated.contains("a block ends follows both ways and hides each user's posts from the other"))
        #expect(violated.contains("signed out, calls are notSignedIn and the feed is not unlocked"))
    }
}
