import Foundation
import Testing
import TrainAccount
import TrainCore
import TrainTesting

/// The consents a stack's device keeps, in a world's snapshot: each user's history
/// exported in order, imported as the account service would have written it.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct WorldSnapshotConsentTests {

    let clock = ManualClock()
    var configuration: TrainServicesConfiguration {
        TrainServicesConfiguration(context: TrainContext(clock: clock), consentPolicies: ConsentPolicies(privacyPolicy: 2, terms: 3))
    }

    @Test("a user's acceptances and withdrawals export and import to the same bytes, and the imported history asks for the same documents")
    func sameHistory() async throws {
        let services = TrainServices.inMemory(configuration: configuration)
        services.appleID.signIn(as: .ada)
        let ada = try await services.auth.signInWithApple()
        try await services.account.accept(.privacyPolicy, version: 2)
        clock.advance(by: .seconds(60))
        try await services.account.accept(.terms, version: 3)
        clock.advance(by: .seconds(60))
        try await services.account.withdrawConsent(to: .terms)
        let first = try services.exportWorld().encoded()
        let snapshot = try WorldSnapshot(json: first)
        #expect(snapshot.consents.map(\.action) == [.accepted, .accepted, .withdrawn])
        let imported = try TrainServices.inMemory(from: snapshot, signedIn: ada.id, configuration: configuration)
        #expect(try imported.account.consentHistory() == services.account.consentHistory())
        #expect(try imported.account.documentsNeedingConsent() == [.terms])
        #expect(try imported.exportWorld().encoded() == first)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("consents-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try TrainServices.files(in: directory, from: snapshot, configuration: configuration).exportWorld().encoded() == first)
    }

    @Test("the consents a device keeps of a user deleted on another device are left out, and the export imports")
    func deletedElsewhere() async throws {
        let json = #"""
            {"version": 1, "users": [{"id": "ada", "email": "ada@example.com", "providers": [{"provider": "emailCode", "subject": "ada@example.com"}]},
                                     {"id": "grace"}]}
            """#
        let services = try TrainServices.inMemory(from: try WorldSnapshot(json: Data(json.utf8)), signedIn: "ada", configuration: configuration)
        try await services.account.accept(.terms, version: 3)
        try await services.auth.signOut()
        let tablet = try services.makeDevice(for: "ada")
        try await tablet.account.deleteAccount(of: "ada")
        _ = try await tablet.account.deletionCompletion(of: "ada")
        let snapshot = try services.exportWorld()
        #expect(snapshot.users.map(\.id) == ["grace"] && snapshot.consents.isEmpty)
        #expect(try TrainServices.inMemory(from: snapshot, configuration: configuration).exportWorld().encoded() == snapshot.encoded())
    }

    @Test("a consent left at its defaults is an acceptance of the version in force, now")
    func defaults() throws {
        let json = #"{"version": 1, "users": [{"id": "ada"}], "consents": [{"user": "ada", "document": "terms"}]}"#
        let services = try TrainServices.inMemory(from: try WorldSnapshot(json: Data(json.utf8)), signedIn: "ada", configuration: configuration)
        #expect(try services.account.consentHistory() == [ConsentRecord(document: .terms, version: 3, action: .accepted, date: clock.now)])
        #expect(try services.account.documentsNeedingConsent() == [.privacyPolicy])
    }

    @Test(
        "a history the account service would not have written is a typed error naming its path",
        arguments: [
            (#"[{"user": "bob", "document": "terms"}]"#, "consents[0].user"),
            (#"[{"user": "ada", "document": "terms", "action": "withdrawn"}]"#, "consents[0]"),
            (
                #"[{"user": "ada", "document": "terms", "version": 2}, {"user": "ada", "document": "terms", "action": "withdrawn", "version": 3}]"#,
                "consents[1].version"
            ),
            (
                #"[{"user": "ada", "document": "terms", "date": "2020-01-02T00:00:00Z"}, {"user": "ada", "document": "privacyPolicy", "date": "2020-01-01T00:00:00Z"}]"#,
                "consents[1].date"
            ),
            (#"[{"user": "ada", "document": "terms", "date": "2999-01-01T00:00:00Z"}]"#, "consents[0].date"),
            (#"[{"user": "ada", "document": "terms", "version": 0}]"#, "consents[0].version"),
            (#"[{"user": "ada", "document": "cookies"}]"#, "consents[0].document"),
        ])
    func refused(consents: String, path: String) throws {
        let json = #"{"version": 1, "users": [{"id": "ada"}], "consents": \#(consents)}"#
        let error = #expect(throws: WorldSnapshotError.self) {
            _ = try TrainServices.inMemory(from: try WorldSnapshot(json: Data(json.utf8)), configuration: configuration)
        }
        #expect(error?.path == path, "\(error?.detail ?? "")")
    }
}
