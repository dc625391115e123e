import Foundation
import Testing
import TrainAuth
import TrainCore
import TrainSocial
import TrainTesting

/// AUTH-16 in the feed: a profile shows its account's name and photo once refreshed.
@Suite(.timeLimit(.minutes(1))) struct ProfileTests {
    @Test(
        "a refresh shows the account's new name and photo on the profile and in search, and they last in the file", arguments: SocialVariant.allCases)
    func accountChangesShowAtOnce(variant: SocialVariant) async throws {
        let harness = try SocialHarness(variant)
        try await harness.join("grace", "ada")
        let photo = try #require(URL(string: "https://cdn.example.com/ada.jpg"))
        harness.auth.setCurrentUser(
            UserEntity(id: "ada", displayName: "Countess Lovelace", createdAt: harness.clock.now, lastSignInAt: harness.clock.now, photoURL: photo))
        #expect(try await harness.social.refreshProfile().displayName == "Countess Lovelace")

        harness.act(as: "grace")
        let profile = try await harness.social.profile("ada")
        #expect(profile.displayName == "Countess Lovelace" && profile.photoURL == photo)
        #expect(try await harness.social.searchUsers("countess", limit: 10).map(\.id) == ["ada"])
        #expect(try await harness.social.searchUsers("ada", limit: 10).isEmpty, "the old name's words are gone from search")
        if variant == .file {
            #expect(try await harness.reopened().profile("ada").photoURL == photo)
        }
    }

    @Test("a photo URL that is not https or a file is not shown on the profile")
    func unsafePhotoIsNotShown() async throws {
        let harness = try SocialHarness()
        try await harness.join("ada")
        let unsafe = try #require(URL(string: "javascript:alert(1)"))
        harness.auth.setCurrentUser(
            UserEntity(id: "ada", displayName: "Ada B", createdAt: harness.clock.now, lastSignInAt: harness.clock.now, photoURL: unsafe))
        let profile = try await harness.social.refreshProfile()
        #expect(profile.displayName == "Ada B" && profile.photoURL == nil)
    }
}
