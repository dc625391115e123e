import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainAuth

/// AUTH-16: password changes and profile updates.
@Suite(.timeLimit(.minutes(1))) struct PasswordAndProfileTests {
    @Test("a password change needs a recent login and ends the account's sessions on other devices", arguments: AuthVariant.allCases)
    func passwordChange(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let store = try harness.sharedStore()
        let phone = try harness.device(on: store, session: "phone")
        let tablet = try harness.device(on: store, session: "tablet")
        _ = try await phone.createUser(email: "ada@example.com", password: "correct horse 1")
        _ = try await tablet.signIn(with: .emailPassword(email: "ada@example.com", password: "correct horse 1"))
        await #expect(throws: AuthenticationError(.weakPassword)) { try await phone.updatePassword(to: "short") }
        try await phone.updatePassword(to: "new horse 2")
        #expect(phone.currentUser != nil, "the device that changed it stays signed in")
        await #expect(throws: AuthenticationError(.notSignedIn)) { _ = try await tablet.idToken() }
        #expect(tablet.currentUser == nil)
        harness.clock.advance(by: .seconds(301))
        await #expect(throws: AuthenticationError(.requiresRecentLogin)) { try await phone.updatePassword(to: "newer horse 3") }
        try await phone.signOut()
        _ = try await phone.signIn(with: .emailPassword(email: "ada@example.com", password: "new horse 2"))
    }

    @Test("an Apple account setting a password gets the password provider for its address", arguments: AuthVariant.allCases)
    func passwordForAppleAccount(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        _ = try await harness.signInWithApple()
        try await harness.service.updatePassword(to: "correct horse 1")
        try await harness.service.signOut()
        let user = try await harness.service.signIn(with: .emailPassword(email: "ada@example.com", password: "correct horse 1"))
        #expect(Set(user.providers.map(\.provider)) == [.apple, .password])
    }

    @Test("a profile update cleans the name, keeps a valid photo, and refuses bad input changing nothing", arguments: AuthVariant.allCases)
    func profile(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        _ = try await harness.service.createUser(email: "ada@example.com", password: "correct horse 1")
        let photo = try #require(URL(string: "https://media.example.com/ada.jpg"))
        let long = String(repeating: "é", count: 150)
        #expect(try await harness.service.updateProfile(displayName: long, photoURL: photo).displayName == String(repeating: "é", count: 100))
        let user = try await harness.service.updateProfile(displayName: "  Ada\u{301} Lovelace ", photoURL: photo)
        #expect(user.displayName == "Ada\u{301} Lovelace" && user.photoURL == photo)
        for name in ["Ada\u{0}", "Ada\u{202E}", "Ada\nLovelace", "a" + String(repeating: "\u{301}", count: 20)] {
            await #expect(throws: AuthenticationError(.invalidProfile)) {
                _ = try await harness.service.updateProfile(displayName: name, photoURL: photo)
            }
        }
        let badURLs = ["javascript:alert(1)", "http://media.example.com/a.jpg", "https:///a.jpg"].compactMap(URL.init(string:))
        #expect(badURLs.count == 3)
        for url in badURLs {
            await #expect(throws: AuthenticationError(.invalidProfile)) {
                _ = try await harness.service.updateProfile(displayName: "Ada", photoURL: url)
            }
        }
        #expect(harness.service.currentUser?.displayName == "Ada\u{301} Lovelace")
        if variant == .file { #expect(try harness.relaunch().currentUser?.photoURL == photo) }
        let cleared = try await harness.service.updateProfile(displayName: "   ", photoURL: nil)
        #expect(cleared.displayName == nil && cleared.photoURL == nil)
    }
}
