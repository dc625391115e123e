import Foundation
import Testing
import TrainAccount
import TrainAuth
import TrainCore
import TrainTesting

@Suite(.timeLimit(.minutes(1))) struct ConsentTests {
    func stack(policies: ConsentPolicies = ConsentPolicies(), clock: ManualClock = ManualClock(), file: URL? = nil) throws -> (
        FakeAuthService, LocalAccountService
    ) {
        let auth = FakeAuthService(currentUser: FakeAuthService.sampleUser)
        let account = try LocalAccountService(
            auth: auth, social: FakeSocialFeedService(), plans: FakePlanSyncService(), subscriptions: FakeSubscriptionService(),
            storage: file.map { .file($0) } ?? .inMemory, context: TrainContext(clock: clock), configuration: AccountConfiguration(policies: policies)
        )
        return (auth, account)
    }

    @Test("accepting records the version and the time; a withdrawal is recorded beside it and asks for consent again")
    func acceptAndWithdraw() async throws {
        let clock = ManualClock()
        let (_, account) = try stack(clock: clock)
        #expect(try account.documentsNeedingConsent() == [.privacyPolicy, .terms])
        let accepted = try await account.accept(.privacyPolicy, version: 1)
        #expect(accepted == ConsentRecord(document: .privacyPolicy, version: 1, action: .accepted, date: clock.now))
        try await account.accept(.terms, version: 1)
        #expect(try account.documentsNeedingConsent().isEmpty)
        clock.advance(by: .seconds(60))
        let withdrawn = try await account.withdrawConsent(to: .terms)
        #expect(withdrawn == ConsentRecord(document: .terms, version: 1, action: .withdrawn, date: clock.now))
        #expect(try account.documentsNeedingConsent() == [.terms])
        #expect(try account.consentHistory().map(\.action) == [.accepted, .accepted, .withdrawn])
    }

    @Test("a new policy version asks every user to accept again, and the history survives a relaunch")
    func newVersion() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.file("account.sqlite")
        let (_, first) = try stack(file: file)
        try await first.accept(.privacyPolicy, version: 1)
        try await first.accept(.terms, version: 1)
        let (_, updated) = try stack(policies: ConsentPolicies(privacyPolicy: 2, terms: 1), file: file)
        #expect(try updated.documentsNeedingConsent() == [.privacyPolicy])
        await #expect(throws: AccountError(.unknownPolicyVersion)) { try await updated.accept(.privacyPolicy, version: 1) }
        try await updated.accept(.privacyPolicy, version: 2)
        #expect(try updated.documentsNeedingConsent().isEmpty)
        #expect(try updated.consentHistory().map(\.version) == [1, 1, 2])
    }

    @Test("bad input changes nothing: an unknown version, a withdrawal of nothing, and anything signed out")
    func badInput() async throws {
        let (auth, account) = try stack()
        await #expect(throws: AccountError(.unknownPolicyVersion)) { try await account.accept(.terms, version: 7) }
        await #expect(throws: AccountError(.unknownPolicyVersion)) { try await account.accept(.terms, version: -1) }
        await #expect(throws: AccountError(.noConsent)) { try await account.withdrawConsent(to: .terms) }
        try await account.accept(.terms, version: 1)
        try await account.withdrawConsent(to: .terms)
        await #expect(throws: AccountError(.noConsent)) { try await account.withdrawConsent(to: .terms) }
        #expect(try account.consentHistory().count == 2)
        auth.setCurrentUser(nil)
        await #expect(throws: AccountError(.notSignedIn)) { try await account.accept(.terms, version: 1) }
        #expect(throws: AccountError(.notSignedIn)) { try account.consentHistory() }
    }

    @Test("each user has their own history")
    func perUser() async throws {
        let (auth, account) = try stack()
        try await account.accept(.terms, version: 1)
        auth.setCurrentUser(UserEntity(id: "grace", displayName: "Grace", createdAt: Date(), lastSignInAt: Date()))
        #expect(try account.consentHistory().isEmpty)
        #expect(try account.documentsNeedingConsent() == [.privacyPolicy, .terms])
    }
}
