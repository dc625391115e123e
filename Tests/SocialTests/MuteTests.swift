import Foundation
import Testing
import TrainCore
import TrainSocial
import TrainTesting

/// Muting: a user's posts leave the muter's feeds, and nothing else changes.
@Suite struct MuteTests {
    @Test(
        "a muted user's posts leave the muter's friends and discover feeds and come back after unmuting; follows, likes and comments stay",
        arguments: SocialVariant.allCases)
    func muteHidesPostsFromFeeds(variant: SocialVariant) async throws {
        let harness = try SocialHarness(variant)
        try await harness.join("cy", "bob", "ada")
        let bobs = try await harness.post("bob's ride", by: "bob")
        try await harness.post("cy's swim", by: "cy")
        harness.act(as: "ada")
        try await harness.social.follow("bob")
        try await harness.social.follow("cy")
        harness.act(as: "bob")
        _ = try await harness.social.comment(on: bobs.id, text: "mine")
        harness.act(as: "ada")
        try await harness.social.like(bobs.id)
        try await harness.social.mute("bob")
        try await harness.social.mute("bob")

        #expect(try await harness.allPages(of: harness.social.friendsFeed, limit: 20).map(\.content) == ["cy's swim"])
        #expect(try await harness.allPages(of: harness.social.discoverFeed, limit: 20).map(\.content) == ["cy's swim"])
        #expect(try await harness.social.mutedUsers().map(\.id) == ["bob"])
        #expect(try await harness.social.following().map(\.id).sorted() == ["bob", "cy"])
        #expect(try await harness.social.likes(on: bobs.id).map(\.id) == ["ada"])
        #expect(try await harness.social.comments(on: bobs.id).count == 1)
        harness.act(as: "bob")
        #expect(try await harness.social.discoverFeed().count == 2, "Bob is not told and sees everything")

        harness.act(as: "ada")
        try await harness.social.unmute("bob")
        #expect(try await harness.social.friendsFeed().map(\.content) == ["cy's swim", "bob's ride"])
        #expect(try await harness.social.mutedUsers().isEmpty)
    }

    @Test("muting oneself is cannotTargetSelf, an unknown user userNotFound, and unmuting one never muted changes nothing")
    func refusals() async throws {
        let harness = try SocialHarness()
        try await harness.join("ada")
        await #expect(throws: SocialError(.cannotTargetSelf)) { try await harness.social.mute("ada") }
        await #expect(throws: SocialError(.userNotFound)) { try await harness.social.mute("nobody") }
        try await harness.social.unmute("nobody")
        try await harness.social.unmute("\u{0}")
        #expect(try await harness.social.mutedUsers().isEmpty)
    }

    @Test("deleting either user's social data removes the mute both ways", arguments: SocialVariant.allCases)
    func deletionRemovesMutes(variant: SocialVariant) async throws {
        let harness = try SocialHarness(variant)
        try await harness.join("bob", "cy", "ada")
        try await harness.social.mute("bob")
        harness.act(as: "cy")
        try await harness.social.mute("ada")
        harness.act(as: "ada")
        _ = try await harness.social.deleteAccountData()
        _ = try await harness.social.unlockFeed(workoutType: .run)
        #expect(try await harness.social.mutedUsers().isEmpty)
        harness.act(as: "cy")
        #expect(try await harness.social.mutedUsers().isEmpty)
    }
}
