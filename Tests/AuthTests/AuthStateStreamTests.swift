import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainAuth

/// AUTH-5: the auth-state stream.
@Suite(.timeLimit(.minutes(1))) struct AuthStateStreamTests {
    @Test("every subscriber gets the current value first, then one value per change of user, and nil once per sign-out")
    func changesOfUser() async throws {
        let harness = try AuthHarness()
        let service = harness.service
        let early = service.authStateChanges()
        let ada = try await harness.signInWithApple()
        let late = service.authStateChanges()
        _ = try await service.reauthenticate(with: try await harness.appleCredential()) // same user: nothing
        _ = try await service.link(.emailPassword(email: "ada@example.com", password: "correct horse 1")) // profile: nothing
        let grace = try await harness.signInWithApple(as: AuthHarness.grace) // another user
        try await service.signOut()
        try await service.signOut() // already out: nothing
        let graceAgain = try await harness.signInWithApple(as: AuthHarness.grace)
        _ = try await service.deleteAccount()

        let earlyValues = await early.collect(6).map { $0?.id }
        let lateValues = await late.collect(5).map { $0?.id }
        #expect(earlyValues == [nil, ada.id, grace.id, nil, grace.id, nil])
        #expect(lateValues == [ada.id, grace.id, nil, graceAgain.id, nil])
    }

    @Test("cancelling a subscriber removes it")
    func cancellation() async throws {
        let harness = try AuthHarness()
        let stream = harness.service.authStateChanges()
        let reader = Task { for await _ in stream {} }
        #expect(harness.service.users.subscriberCount == 1)
        reader.cancel()
        await reader.value
        #expect(harness.service.users.subscriberCount == 0)
    }

    @Test("a restored session is the first value after a relaunch")
    func restoredFirst() async throws {
        let harness = try AuthHarness(.file)
        let user = try await harness.signInWithApple()
        let values = await (try harness.relaunch().authStateChanges()).collect(1)
        #expect(values == [user])
    }
}
