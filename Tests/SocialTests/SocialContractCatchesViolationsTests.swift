import Foundation
import Testing
import TrainSocial
import TrainTesting

/// The contract can fail: a conformance that never locks, keeps no follows and no
/// blocks, shows anyone the moderation queue, and ignores who is signed in — so it lets
/// each user follow themselves and act for the others — is caught. It is the real service with those calls scripted to
/// succeed doing nothing.
struct PermissiveSocialEnvironment: SocialContractEnvironment {
    func makeService() async throws -> SocialContractSession {
        let harness = try SocialHarness(.inMemory)
        harness.auth.setCurrentUser(nil)
        let permissive = FakeSocialFeedService(backedBy: harness.social)
        permissive.script(.friendsFeed, .returning([]))
        permissive.script(.follow, .returning(()))
        permissive.script(.block, .returning(()))
        permissive.script(.moderationQueue, .returning([]))
        return SocialContractSession(service: permissive) { userID in
            if let userID { harness.act(as: userID) } else { harness.auth.setCurrentUser(nil) }
        }
    }
}

/// A conformance whose moderators act on anyone: every moderation action succeeds
/// without asking who outranks whom.
struct RolelessSocialEnvironment: SocialContractEnvironment {
    func makeService() async throws -> SocialContractSession {
        try await makeService(policy: SocialPolicy(), workouts: SimulatedWorkoutSource())
    }

    func makeService(policy: SocialPolicy, workouts: SimulatedWorkoutSource) async throws -> SocialContractSession {
        let harness = try SocialHarness(.inMemory, policy: policy, workouts: workouts)
        let roleless = FakeSocialFeedService(backedBy: harness.social)
        let entry = ModerationLogEntry(
            id: UUID(), moderatorID: "mod", action: .suspend, target: .user("root"), ownerID: "root", note: nil, date: harness.clock.now)
        roleless.script(.moderate, .returning(entry))
        return SocialContractSession(service: roleless) { userID in
            if let userID { harness.act(as: userID) } else { harness.auth.setCurrentUser(nil) }
        }
    }
}

@Suite(.timeLimit(.minutes(1))) struct SocialContractCatchesViolationsTests {
    @Test("a conformance whose moderators act on moderators and admins breaks the roles check")
    func catchesRolelessModeration() async throws {
        let check = try #require(SocialFeedServiceContract.checks.first { $0.name.hasPrefix("a moderator acts on no moderator or admin") })
        await #expect(throws: ContractViolation.self) { try await check.run(in: RolelessSocialEnvironment()) }
        try await check.run(in: LocalSocialEnvironment(variant: .inMemory))
    }

    @Test("a permissive conformance breaks the locked-feed, follow, block, report and signed-out checks")
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
        #expect(violated.contains("following twice leaves one follow counted once, and following yourself is cannotTargetSelf"))
        #expect(violated.contains("a block ends follows both ways and hides each user's posts from the other"))
        #expect(violated.contains("signed out, calls are notSignedIn and the feed is not unlocked"))
        #expect(
            violated.contains(
                "a reported post leaves its reporter's feeds and nobody else's; reporting twice is alreadyReported, one's own cannotTargetSelf; a user who is no moderator reads no queue"
            ))
    }

}
