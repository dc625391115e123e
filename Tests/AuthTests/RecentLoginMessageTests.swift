import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainAuth

@Suite(.timeLimit(.minutes(1))) struct RecentLoginMessageTests {
    @Test("the recent-login sentence names the action the user is taking")
    func perAction() async throws {
        let harness = try AuthHarness()
        try await harness.signInWithApple()
        _ = try await harness.service.link(.emailPassword(email: "ada@example.com", password: "correct horse 1"))
        harness.clock.advance(by: .seconds(301))
        let email = await #expect(throws: AuthenticationError.self) { _ = try await harness.service.updateEmail(to: "ada@new.example") }
        let unlink = await #expect(throws: AuthenticationError.self) { _ = try await harness.service.unlink(.password) }
        let delete = await #expect(throws: AuthenticationError.self) { _ = try await harness.service.deleteAccount() }
        #expect(
            email?.errorDescription
                == "For security reasons, you need to verify your identity before changing your email address. This only takes a moment.")
        #expect(unlink?.errorDescription?.contains("removing a sign-in method") == true)
        #expect(delete?.errorDescription == AuthenticationError(.requiresRecentLogin).errorDescription)
    }
}
