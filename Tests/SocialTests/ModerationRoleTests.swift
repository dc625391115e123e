import Foundation
import Testing
import TrainAuth
import TrainCore
import TrainTesting

@testable import TrainSocial

/// SOC-21: admins and moderators, who outranks whom, and a suspension that resolves
/// the open cases about the suspended user's content.
@Suite struct ModerationRoleTests {
    static let policy = SocialPolicy(hideAfterReports: 2, moderators: ["mod", "mia"], admins: ["root"])

    /// Everyone joins; Ada and the moderator Mia each post once.
    static func world(_ variant: SocialVariant) async throws -> (SocialHarness, ada: PostEntity, mia: PostEntity) {
        let harness = try SocialHarness(variant, policy: policy)
        try await harness.join("root", "mod", "bob", "cy", "mia", "ada")
        let ada = try await harness.post("ada's run", by: "ada")
        let mia = try await harness.post("mia's ride", by: "mia")
        return (harness, ada, mia)
    }

    @Test(
        "a moderator cannot act on a moderator, an admin or what they post; an admin acts on a moderator; nobody on an admin",
        arguments: SocialVariant.allCases)
    func roleOutranksTarget(variant: SocialVariant) async throws {
        let (harness, _, mia) = try await Self.world(variant)
        harness.act(as: "bob")
        try await harness.social.report(.post(mia.id), reason: .spam)
        harness.act(as: "mod")
        for action in [ModerationAction.suspend, .unsuspend, .dismiss] {
            await #expect(throws: SocialError(.notAuthorized)) { try await harness.social.moderate(.user("mia"), action: action, note: nil) }
            await #expect(throws: SocialError(.notAuthorized)) { try await harness.social.moderate(.user("root"), action: action, note: nil) }
        }
        await #expect(throws: SocialError(.notAuthorized)) { try await harness.social.moderate(.post(mia.id), action: .takeDown, note: nil) }
        #expect(try await harness.social.moderationLog(limit: 10, after: nil).isEmpty, "nothing was done")

        harness.act(as: "root")
        let entry = try await harness.social.moderate(.user("mia"), action: .suspend, note: "compromised account")
        #expect(entry.moderatorID == "root" && entry.ownerID == "mia")
        await #expect(throws: SocialError(.invalidModerationAction), "a moderator of the policy is one already") {
            try await harness.social.moderate(.user("mia"), action: .grantModerator, note: nil)
        }
        harness.act(as: "mia")
        await #expect(throws: SocialError(.accountSuspended)) { try await harness.social.moderationQueue(limit: 10, after: nil) }
        await #expect(throws: SocialError(.accountSuspended)) { try await harness.social.moderate(.user("root"), action: .unsuspend, note: nil) }
        harness.act(as: "mod")
        await #expect(throws: SocialError(.notAuthorized)) { try await harness.social.moderate(.user("mia"), action: .unsuspend, note: nil) }
        harness.act(as: "root")
        try await harness.social.moderate(.user("mia"), action: .unsuspend, note: nil)
        harness.act(as: "mia")
        #expect(
            try await harness.social.moderationQueue(limit: 10, after: nil).isEmpty,
            "she moderates again; her suspension resolved the case of her post")
    }

    @Test("an admin grants the moderator role and revokes it, each logged; the grant outlives a relaunch", arguments: SocialVariant.allCases)
    func adminGrantsAndRevokes(variant: SocialVariant) async throws {
        let (harness, ada, _) = try await Self.world(variant)
        harness.act(as: "cy")
        await #expect(throws: SocialError(.notAuthorized)) { try await harness.social.moderationQueue(limit: 10, after: nil) }
        harness.act(as: "mod")
        await #expect(throws: SocialError(.notAuthorized), "a moderator grants nothing") {
            try await harness.social.moderate(.user("cy"), action: .grantModerator, note: nil)
        }
        harness.act(as: "root")
        let granted = try await harness.social.moderate(.user("cy"), action: .grantModerator, note: "trusted")
        #expect(granted.action == .grantModerator && granted.target == .user("cy") && granted.note == "trusted")

        let service = variant == .file ? try harness.reopened() : harness.social
        harness.act(as: "bob")
        try await service.report(.post(ada.id), reason: .spam)
        harness.act(as: "cy")
        #expect(try await service.moderationQueue(limit: 10, after: nil).map(\.target) == [.post(ada.id)])
        try await service.moderate(.post(ada.id), action: .takeDown, note: nil)
        await #expect(throws: SocialError(.notAuthorized), "a moderator by grant acts on no moderator") {
            try await service.moderate(.user("mod"), action: .suspend, note: nil)
        }

        harness.act(as: "root")
        try await service.moderate(.user("cy"), action: .revokeModerator, note: nil)
        let log = try await service.moderationLog(limit: 10, after: nil)
        #expect(log.map(\.action) == [.revokeModerator, .takeDown, .grantModerator], "newest first")
        harness.act(as: "cy")
        await #expect(throws: SocialError(.notAuthorized)) { try await service.moderationQueue(limit: 10, after: nil) }
    }

    @Test(
        "role changes that do not apply change nothing: to oneself, to an admin, twice, a policy's moderator, unknown or suspended users, on content")
    func refusedRoleChanges() async throws {
        let (harness, ada, _) = try await Self.world(.file)
        harness.act(as: "root")
        let refusals: [(ReportTarget, ModerationAction, SocialError)] = [
            (.user("root"), .grantModerator, SocialError(.cannotTargetSelf)),
            (.user("mod"), .grantModerator, SocialError(.invalidModerationAction)),
            (.user("mod"), .revokeModerator, SocialError(.invalidModerationAction)),
            (.user("bob"), .revokeModerator, SocialError(.invalidModerationAction)),
            (.user("nobody"), .grantModerator, SocialError(.userNotFound)),
            (.user("bo\u{0}b"), .grantModerator, SocialError(.userNotFound)),
            (.post(ada.id), .grantModerator, SocialError(.invalidModerationAction)),
        ]
        for (target, action, error) in refusals {
            await #expect(throws: error, "\(action) on \(target)") { try await harness.social.moderate(target, action: action, note: nil) }
        }
        try await harness.social.moderate(.user("bob"), action: .grantModerator, note: nil)
        await #expect(throws: SocialError(.invalidModerationAction), "granted twice") {
            try await harness.social.moderate(.user("bob"), action: .grantModerator, note: nil)
        }
        try await harness.social.moderate(.user("cy"), action: .suspend, note: nil)
        await #expect(throws: SocialError(.invalidModerationAction), "a suspended user") {
            try await harness.social.moderate(.user("cy"), action: .grantModerator, note: nil)
        }
        let log = try await harness.social.moderationLog(limit: 10, after: nil)
        #expect(log.map(\.action) == [.suspend, .grantModerator], "only what was done is logged")
    }

    @Test(
        "a suspension resolves the open cases about the user's posts, comments and account with one entry of the trail",
        arguments: SocialVariant.allCases)
    func suspensionResolvesCases(variant: SocialVariant) async throws {
        let (harness, ada, _) = try await Self.world(variant)
        let second = try await harness.post("ada again", by: "ada")
        let comment = try await harness.social.comment(on: ada.id, text: "me again")
        let bobs = try await harness.post("bob's swim", by: "bob")
        harness.act(as: "bob")
        try await harness.social.report(.post(second.id), reason: .spam)
        try await harness.social.report(.comment(comment.id), reason: .spam)
        harness.act(as: "cy")
        try await harness.social.report(.post(bobs.id), reason: .spam)
        for reporter in ["bob", "cy"] {
            harness.act(as: reporter)
            try await harness.social.report(.post(ada.id), reason: .spam)
            try await harness.social.report(.user("ada"), reason: .harassment) // Ada is hidden from them from now on.
        }

        harness.act(as: "mod")
        #expect(try await harness.social.moderationQueue(limit: 10, after: nil).count == 5)
        try await harness.social.moderate(.user("ada"), action: .suspend, note: "spam account")
        let queue = try await harness.social.moderationQueue(limit: 10, after: nil)
        #expect(queue.map(\.target) == [.post(bobs.id)], "only the case about another user is left")
        let log = try await harness.social.moderationLog(limit: 10, after: nil)
        #expect(log.map(\.action) == [.suspend] && log.first?.target == .user("ada"), "one entry")

        try await harness.social.moderate(.user("ada"), action: .unsuspend, note: nil)
        #expect(try await harness.social.moderationQueue(limit: 10, after: nil).map(\.target) == [.post(bobs.id)], "resolved cases stay closed")
        harness.act(as: "dee")
        _ = try await harness.social.unlockFeed(workoutType: .run)
        let shown = Set(try await harness.social.discoverFeed(limit: 20).map(\.id))
        #expect(!shown.contains(ada.id), "the post its two reports hid stays hidden")
        #expect(shown.contains(second.id), "one report hid nothing")
    }

    @Test("with no admin, reports alone never hide a moderator's post, which no one could show again", arguments: SocialVariant.allCases)
    func moderatorsContentIsNotHiddenWithoutAnAdmin(variant: SocialVariant) async throws {
        let harness = try SocialHarness(variant, policy: SocialPolicy(hideAfterReports: 1, moderators: ["mod", "mia"]))
        try await harness.join("bob", "mod", "mia")
        let post = try await harness.post("mia's ride", by: "mia")
        harness.act(as: "bob")
        try await harness.social.report(.post(post.id), reason: .spam)
        harness.act(as: "mod")
        #expect(try await harness.social.discoverFeed().map(\.id) == [post.id], "still shown to everyone but its reporter")
    }

    @Test("a case a suspension resolved opens again when the content is reported after the unsuspension", arguments: SocialVariant.allCases)
    func resolvedCaseReopens(variant: SocialVariant) async throws {
        let (harness, ada, _) = try await Self.world(variant)
        harness.act(as: "bob")
        try await harness.social.report(.post(ada.id), reason: .spam)
        harness.act(as: "mod")
        try await harness.social.moderate(.user("ada"), action: .suspend, note: nil)
        try await harness.social.moderate(.user("ada"), action: .unsuspend, note: nil)
        #expect(try await harness.social.moderationQueue(limit: 10, after: nil).isEmpty)
        harness.act(as: "cy")
        try await harness.social.report(.post(ada.id), reason: .harassment)
        harness.act(as: "mod")
        #expect(try await harness.social.moderationQueue(limit: 10, after: nil).map(\.target) == [.post(ada.id)])
    }

    @Test("revoking the role of a moderator the policy names is refused even when an admin also granted it")
    func revokingAPolicyModeratorIsRefused() async throws {
        let (harness, _, _) = try await Self.world(.file)
        harness.act(as: "root")
        try await harness.social.moderate(.user("bob"), action: .grantModerator, note: nil)
        // The app names Bob in its policy too, at its next launch.
        var policy = Self.policy
        policy.moderators.append("bob")
        let relaunched = try SocialHarness.service(
            .file, auth: harness.auth, clock: harness.clock, zone: harness.zone, policy: policy, media: harness.media,
            workouts: harness.workouts, file: harness.directory.file("social.sqlite"))
        await #expect(throws: SocialError(.invalidModerationAction)) {
            try await relaunched.moderate(.user("bob"), action: .revokeModerator, note: nil)
        }
        #expect(try await relaunched.moderationLog(limit: 10, after: nil).map(\.action) == [.grantModerator], "nothing more was logged")
    }
}
