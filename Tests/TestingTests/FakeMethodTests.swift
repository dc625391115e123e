import Foundation
import Testing
import TrainSubscription
import TrainTesting

/// A fake an app writes for its own service, declared the way TrainKit's fakes are.
private final class FakeWeather: ScriptableFake {
    let controls = FakeControls<FakeCall<FakeWeather>>(fakeName: "FakeWeather")

    func forecast(for city: String, days: Int) async throws -> String {
        try await controls.perform(.forecast, city, days, service: nil)
    }

    func refresh() async throws {
        try await controls.perform(.refresh, service: nil)
    }
}

extension FakeMethods where Fake == FakeWeather {
    /// The fake's one declaration of `forecast(for:days:)`.
    fileprivate static var forecast: FakeMethod<FakeWeather, String, String, Int> { .init("forecast(for:days:)") }
    /// The fake's one declaration of `refresh()`.
    fileprivate static var refresh: FakeMethod<FakeWeather, Void> { .init("refresh()") }
}

@Suite(.timeLimit(.minutes(1))) struct FakeMethodTests {
    @Test("one declaration of a method gives its typed script, its record in the ordered log, and its strict failure")
    func oneDeclaration() async throws {
        let weather = FakeWeather()
        weather.script(.forecast, .sequence([.success("sun"), .success("rain")]))
        #expect(try await weather.forecast(for: "Oslo", days: 1) == "sun")
        #expect(try await weather.forecast(for: "Lima", days: 3) == "rain")
        await withKnownIssue {
            await #expect(throws: FakeError.unimplemented("FakeWeather.refresh()")) { try await weather.refresh() }
        } matching: { issue in
            FakeIssue.isUnscriptedCall(issue, "FakeWeather.refresh()")
        }
        #expect(weather.calls == [.forecast("Oslo", 1), .forecast("Lima", 3), .refresh()])
        #expect(weather.calls != [.forecast("Oslo", 3), .forecast("Lima", 3), .refresh()], "arguments are compared")
        #expect(weather.finish().isEmpty)
    }

    @Test("a call's arguments read back typed for its own method only, and its description names the method and arguments")
    func argumentsAndDescription() async throws {
        let subscriptions = FakeSubscriptionService()
        subscriptions.script(.purchase, .returning(.userCancelled))
        let offer = PurchaseOffer.winBack(id: "winback")
        _ = try await subscriptions.purchase("com.train.pro.monthly", offer: nil)
        _ = try await subscriptions.purchase("com.train.pro.yearly", offer: offer)
        let calls = subscriptions.calls
        #expect(calls == [.purchase("com.train.pro.monthly"), .purchaseWithOffer("com.train.pro.yearly", offer)])
        #expect(calls.compactMap { $0.arguments(of: .purchase) } == ["com.train.pro.monthly"], "one script name, two records")
        let offers = calls.compactMap { call -> PurchaseOffer? in call.arguments(of: .purchaseWithOffer).map { _, offer in offer } }
        #expect(offers == [offer])
        #expect(calls.map { $0.isCall(of: .products) } == [false, false])
        #expect(calls.first?.description == #"purchase(_:offer:) ← "com.train.pro.monthly""#)
        #expect(FakeCall<FakeSubscriptionService>.products().description == "products()")
    }
}
