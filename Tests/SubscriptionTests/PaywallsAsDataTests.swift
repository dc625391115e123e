import Foundation
import Testing
import TrainCore
import TrainSubscription
import TrainTesting

// The code of TrainSubscription.docc/PaywallsAsData.md, kept compiling and correct here.
// When you change one, change the other.

/// The article's JSON, read from the article itself.
private func articleJSON() throws -> Data {
    let article = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/Subscription/TrainSubscription.docc/PaywallsAsData.md")
    let text = try String(contentsOf: article, encoding: .utf8)
    let start = try #require(text.range(of: "```json\n"))
    let end = try #require(text.range(of: "```", range: start.upperBound..<text.endIndex))
    return Data(text[start.upperBound..<end.lowerBound].utf8)
}

@Test("the article's configuration gates a free user into a variant of the experiment, logged as an exposure")
func gatingTheAnalyticsTab() async throws {
    let downloaded = try articleJSON()
    let store = SimulatedAppStore(context: TrainContext(clock: ManualClock()))
    let paywalls = LocalPaywallService(subscriptions: LocalSubscriptionService(store: store, context: store.context))
    try await paywalls.replaceConfiguration(PaywallConfiguration(json: downloaded))
    await paywalls.setUser("user-42")
    switch try await paywalls.gate(placement: "analytics-tab") {
    case .granted:
        print("open analytics")
    case .show(let paywall):
        print(paywall.offering.id, paywall.products.map(\.id), paywall.assignment?.variant ?? "none")
    case .nothingOnSale:
        print("purchases are unavailable here")
    }
    let again = try #require(try await paywalls.gate(placement: "analytics-tab").presentation)
    #expect(["annual-first", "monthly-first"].contains(again.offering.id))
    #expect(try await paywalls.exposures().map(\.user) == ["user-42", "user-42"])
    _ = try await LocalSubscriptionService(store: store, context: store.context).purchase("com.train.pro.yearly")
    #expect(try await paywalls.gate(placement: "analytics-tab") == .granted, "pro unlocks analytics")
}

@Test("the article's fake answers a gate as scripted")
func testingWithTheFake() async throws {
    let fake = FakePaywallService()
    fake.script(.gate, .returning(.granted))
    #expect(try await fake.gate(placement: "analytics-tab") == .granted)
    #expect(fake.calls == [.gate("analytics-tab")])
}
