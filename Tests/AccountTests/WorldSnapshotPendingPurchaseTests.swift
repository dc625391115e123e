import Foundation
import Testing
import TrainAccount
import TrainCore
import TrainSubscription
import TrainTesting

/// Purchases waiting in the App Store, in a world's snapshot: a child's Ask to Buy
/// request or an interrupted purchase is a fixture a parent's approval completes.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct WorldSnapshotPendingPurchaseTests {

    let clock = ManualClock()
    var configuration: TrainServicesConfiguration { WorldSnapshotPurchaseTests.configuration(on: clock) }
    static let monthly = WorldSnapshotPurchaseTests.monthly

    @Test("an Ask to Buy request exports and imports to the same bytes, in memory and in files; approved in the imported world, it subscribes")
    func askToBuy() async throws {
        let original = TrainServices.inMemory(configuration: configuration)
        original.appleID.signIn(as: .ada)
        let ada = try await original.auth.signInWithApple()
        original.appStore.askToBuyEnabled = true
        #expect(try await original.subscriptions.purchase(Self.monthly) == .pending)
        clock.advance(by: .seconds(3_600))
        let first = try original.exportWorld().encoded()
        let snapshot = try WorldSnapshot(json: first)
        #expect(snapshot.pendingPurchases.map(\.user) == [ada.id] && snapshot.pendingPurchases.map(\.kind) == [.askToBuy])
        #expect(snapshot.purchases.isEmpty, "nothing is bought yet")

        let imported = try TrainServices.inMemory(from: snapshot, signedIn: ada.id, configuration: configuration)
        #expect(try imported.exportWorld().encoded() == first)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pending-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try TrainServices.files(in: directory, from: snapshot, configuration: configuration).exportWorld().encoded() == first)

        let listed = try #require(imported.appStore.testTransactions.first)
        #expect(listed.pendingAskToBuyConfirmation && listed.productID == Self.monthly)
        #expect(imported.subscriptions.currentTier == .free)
        let updates = imported.subscriptions.transactionUpdates()
        try imported.appStore.approveAskToBuy(transactionID: listed.id)
        #expect(await updates.collect(1).first?.unsafePayloadValue.productID == Self.monthly)
        #expect(try imported.exportWorld().pendingPurchases.isEmpty)
    }

    @Test("a request lapses 24 hours after it was asked in the imported world, as in the original")
    func lapses() throws {
        var snapshot = WorldSnapshot(users: [WorldSnapshot.User(id: "ada")])
        snapshot.pendingPurchases = [
            WorldSnapshot.PendingPurchase(user: "ada", product: Self.monthly, requestedAt: clock.now.addingTimeInterval(-3_600))
        ]
        let services = try TrainServices.inMemory(from: snapshot, signedIn: "ada", configuration: configuration)
        clock.advance(by: .seconds(23 * 3_600))
        #expect(services.appStore.testTransactions.count == 1, "still waiting at exactly 24 hours")
        clock.advance(by: .seconds(1))
        #expect(services.appStore.testTransactions.isEmpty)
    }

    @Test("an interrupted purchase of a fixture is resolved by the store's control and bought")
    func interrupted() throws {
        let json = #"""
            {"version": 1, "users": [{"id": "ada"}],
             "pendingPurchases": [{"user": "ada", "product": "com.train.lifetime", "kind": "interrupted", "requestedAt": "2001-01-01T00:00:00Z"}]}
            """#
        let services = try TrainServices.inMemory(from: try WorldSnapshot(json: Data(json.utf8)), signedIn: "ada", configuration: configuration)
        let listed = try #require(services.appStore.testTransactions.first)
        #expect(listed.hasPurchaseIssue && !listed.pendingAskToBuyConfirmation)
        try services.appStore.resolveInterruptedPurchase(transactionID: listed.id)
        let snapshot = try services.exportWorld()
        #expect(snapshot.pendingPurchases.isEmpty && snapshot.purchases.map(\.product) == ["com.train.lifetime"])
    }

    @Test(
        "a request of a product the configuration lacks, by a user the world lacks, to come, by no Apple ID or of an unknown kind is a typed error naming its path",
        arguments: [
            (#"{"user": "ada", "product": "com.train.gold"}"#, WorldSnapshotError.Code.danglingReference, "pendingPurchases[0].product"),
            (#"{"user": "bob", "product": "com.train.pro.monthly"}"#, .danglingReference, "pendingPurchases[0].user"),
            (
                #"{"user": "ada", "product": "com.train.pro.monthly", "requestedAt": "2999-01-01T00:00:00Z"}"#, .invalidValue,
                "pendingPurchases[0].requestedAt"
            ),
            (#"{"user": "ada", "appleID": "not an address", "product": "com.train.pro.monthly"}"#, .invalidValue, "pendingPurchases[0].appleID"),
            (#"{"user": "ada", "product": "com.train.pro.monthly", "kind": "parental"}"#, .unreadable, "pendingPurchases[0].kind"),
        ])
    func refused(entry: String, code: WorldSnapshotError.Code, path: String) throws {
        let json = #"{"version": 1, "users": [{"id": "ada"}], "pendingPurchases": ["#
        let error = #expect(throws: WorldSnapshotError(code)) {
            try TrainServices.inMemory(from: try WorldSnapshot(json: Data((json + entry + "]}").utf8)), signedIn: "ada", configuration: configuration)
        }
        #expect(error?.path == path)
    }

    @Test(
        "with access per app user, a request for a group whose subscription on that Apple ID became another app user's waits as it did, and its approval is refused"
    )
    func anotherAppUsersSubscription() throws {
        let json = #"""
            {"version": 1, "users": [{"id": "ada"}, {"id": "bob"}],
             "purchases": [{"user": "ada", "appleID": "family@example.com", "product": "com.train.pro.monthly"}],
             "pendingPurchases": [{"user": "bob", "appleID": "family@example.com", "product": "com.train.pro.monthly", "kind": "interrupted"}]}
            """#
        var perUser = configuration
        perUser.subscriptionAccess = .appAccountToken
        let services = try TrainServices.inMemory(from: try WorldSnapshot(json: Data(json.utf8)), configuration: perUser)
        let listed = try #require(services.appStore.testTransactions.first { $0.hasPurchaseIssue })
        #expect(throws: SubscriptionError(.subscribedWithAnotherAccount)) {
            try services.appStore.resolveInterruptedPurchase(transactionID: listed.id)
        }
        #expect(try services.exportWorld().pendingPurchases.count == 1, "it keeps waiting")
    }

    @Test("an Ask to Buy request more than 24 hours old at the import has lapsed and is left out; an interrupted purchase of that age waits")
    func lapsedAtTheImport() throws {
        let json = #"""
            {"version": 1, "users": [{"id": "ada"}],
             "pendingPurchases": [{"user": "ada", "product": "com.train.pro.monthly", "requestedAt": "2001-01-01T00:00:00Z"},
                                  {"user": "ada", "product": "com.train.lifetime", "kind": "interrupted", "requestedAt": "2001-01-01T00:00:00Z"}]}
            """#
        let services = try TrainServices.inMemory(from: try WorldSnapshot(json: Data(json.utf8)), configuration: configuration)
        #expect(try services.exportWorld().pendingPurchases.map(\.product) == ["com.train.lifetime"])
    }
}
