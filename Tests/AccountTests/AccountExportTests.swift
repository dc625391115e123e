import Foundation
import Testing
import TrainAccount
import TrainAuth
import TrainSocial
import TrainSubscription
import TrainSync
import TrainTesting

@Suite(.timeLimit(.minutes(1))) struct AccountExportTests {
    @Test(
        "the export holds the user's account, posts, plans, App Store entitlements and consents, and nothing of another user's",
        arguments: AccountVariant.allCases)
    func exportsEveryService(variant: AccountVariant) async throws {
        let world = try AccountWorld(variant)
        try await world.signIn(AccountWorld.grace)
        _ = try await world.social.createPost(content: "Grace's ride", workoutType: .cycle)
        try await world.auth.signOut()
        let ada = try await world.signIn()
        try await world.makeBusy()

        let export = try await world.account.exportData(of: ada.id)
        #expect(export.formatVersion == AccountExport.currentFormatVersion)
        #expect(export.exportedAt == world.clock.now)
        #expect(export.user.id == ada.id && export.user.email == "ada@example.com")
        #expect(export.social.posts.map(\.content) == ["Morning run"])
        #expect(export.plans.map(\.name) == ["10k"])
        #expect(export.appAccountToken == (try AppAccountToken.forUser(ada.id)))
        #expect(export.entitlements.map(\.productID) == ["com.train.pro.monthly"])
        #expect(export.subscriptions.map(\.state) == [.subscribed])
        #expect(export.consents.map(\.document) == [.privacyPolicy])
    }

    @Test("the JSON document is versioned, has sorted keys and ISO 8601 dates, and reads back")
    func jsonDocument() async throws {
        let world = try AccountWorld()
        let ada = try await world.signIn()
        try await world.makeBusy()
        let data = try await world.account.exportData(of: ada.id).jsonData()
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["formatVersion"] as? Int == 1)
        #expect(
            Set(object.keys) == [
                "appAccountToken", "consents", "entitlements", "exportedAt", "formatVersion", "plans", "social", "subscriptions", "user",
            ])
        #expect((object["exportedAt"] as? String)?.hasSuffix("Z") == true, "dates are ISO 8601 in UTC")
        let text = String(decoding: data, as: UTF8.self)
        #expect(try #require(text.range(of: "\"appAccountToken\"")).lowerBound < (try #require(text.range(of: "\"user\"")).lowerBound))
        let back = try AccountExport.decode(data)
        #expect(back.social.posts.map(\.content) == ["Morning run"])
        #expect(back.user.id == ada.id)
    }

    @Test("exporting another user's data, or signed out, is refused and asks no service")
    func onlyYourOwn() async throws {
        let stack = try FakeStack()
        await #expect(throws: AccountError(.notAuthorized)) { _ = try await stack.account.exportData(of: "grace") }
        stack.auth.setCurrentUser(nil)
        await #expect(throws: AccountError(.notSignedIn)) { _ = try await stack.account.exportData(of: stack.userID) }
        #expect(stack.social.calls.isEmpty && stack.plans.calls.isEmpty && stack.subscriptions.calls.isEmpty)
    }

    @Test("a service that cannot be read makes no export, with a message for the user")
    func serviceFailure() async throws {
        let stack = try FakeStack()
        stack.social.failCall(1, of: .exportAccountData, with: SocialError(.storage))
        let error = await #expect(throws: AccountError(.exportFailed)) { _ = try await stack.account.exportData(of: stack.userID) }
        #expect(error?.errorDescription?.contains("copy of your data") == true)
    }
}
