import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainAuth

@Suite(.timeLimit(.minutes(1))) struct RecentLoginTests {
    /// The three gated operations, each run on a freshly signed-in account with two providers.
    enum Gated: String, CaseIterable, CustomStringConvertible {
        case deleteAccount, unlink, updateEmail
        var description: String { rawValue }

        func run(on service: LocalAuthService) async throws {
            switch self {
            case .deleteAccount: _ = try await service.deleteAccount()
            case .unlink: _ = try await service.unlink(.password)
            case .updateEmail: _ = try await service.updateEmail(to: "ada@new.example")
            }
        }
    }

    static func signedIn() async throws -> AuthHarness {
        let harness = try AuthHarness()
        try await harness.signInWithApple()
        _ = try await harness.service.link(.emailPassword(email: "ada@example.com", password: "correct horse 1"))
        return harness
    }

    @Test("299 and 300 seconds after sign-in are fresh; 301 is requiresRecentLogin", arguments: Gated.allCases)
    func boundary(operation: Gated) async throws {
        for (seconds, fresh) in [(299, true), (300, true), (301, false)] {
            let harness = try await Self.signedIn()
            harness.clock.advance(by: .seconds(seconds))
            if fresh {
                try await operation.run(on: harness.service)
            } else {
                await #expect(throws: AuthenticationError(.requiresRecentLogin), "\(operation) at \(seconds) s") {
                    try await operation.run(on: harness.service)
                }
                #expect(harness.service.currentUser?.providers.count == 2, "nothing changed")
            }
        }
    }

    @Test("re-authenticating resets the window")
    func reauthenticationResets() async throws {
        let harness = try await Self.signedIn()
        harness.clock.advance(by: .seconds(3600))
        await #expect(throws: AuthenticationError(.requiresRecentLogin)) { _ = try await harness.service.deleteAccount() }
        let user = try await harness.service.reauthenticate(with: try await harness.appleCredential())
        #expect(user.lastSignInAt == harness.clock.now)
        harness.clock.advance(by: .seconds(300))
        #expect(try await harness.service.deleteAccount().userID == user.id)
    }

    @Test("re-authenticating with another user's credential is userMismatch and keeps the current user signed in")
    func userMismatch() async throws {
        let harness = try await Self.signedIn()
        let ada = try #require(harness.service.currentUser)
        harness.clock.advance(by: .seconds(600))
        await #expect(throws: AuthenticationError(.userMismatch)) {
            _ = try await harness.service.reauthenticate(with: try await harness.appleCredential(for: AuthHarness.grace))
        }
        #expect(harness.service.currentUser == ada)
        await #expect(throws: AuthenticationError(.requiresRecentLogin), "the window was not reset") { _ = try await harness.service.deleteAccount() }
    }

    @Test("a sign-in dated in the future (the clock was ahead, then set back) is not recent")
    func futureSignIn() async throws {
        let clock = ManualClock(start: ManualClock.defaultStart.addingTimeInterval(3600))
        let service = LocalAuthService(
            context: TrainContext(clock: clock), configuration: AuthConfiguration(policy: AuthPolicy(passwordIterations: 1_000)))
        _ = try await service.createUser(email: "ada@example.com", password: "correct horse 1")
        clock.setDate(ManualClock.defaultStart)
        await #expect(throws: AuthenticationError(.requiresRecentLogin)) { _ = try await service.deleteAccount() }
        await #expect(throws: AuthenticationError(.requiresRecentLogin)) { _ = try await service.updateEmail(to: "ada@new.example") }
        _ = try await service.reauthenticate(with: .emailPassword(email: "ada@example.com", password: "correct horse 1"))
        #expect(try await service.deleteAccount().userID.isEmpty == false, "a sign-in at the corrected time is recent")
    }

    @Test("a stored sign-in date far from now, as a restored or tampered file may hold, is requiresRecentLogin, not a crash")
    func farStoredSignIn() async throws {
        for offset in [1e300, -1e300] {
            let harness = try AuthHarness(.file)
            let ada = try await harness.service.createUser(email: "ada@example.com", password: "correct horse 1")
            let raw = try RecordStore(.file(harness.file), schema: AuthRecords.schema)
            try raw.write { records in
                var account = try #require(try records.value(forKey: ada.id, in: AuthRecords.accounts))
                account.user.lastSignInAt = Date(timeIntervalSinceReferenceDate: offset)
                try records.put(account, forKey: ada.id, in: AuthRecords.accounts)
            }
            raw.close()
            let service = try harness.relaunch()
            await #expect(throws: AuthenticationError(.requiresRecentLogin)) { try await service.deleteAccount() }
        }
    }

    @Test("the window is a policy value")
    func configurableWindow() async throws {
        let harness = try AuthHarness(policy: AuthPolicy(recentLoginWindow: .seconds(60), passwordIterations: 1_000))
        try await harness.signInWithApple()
        harness.clock.advance(by: .seconds(61))
        await #expect(throws: AuthenticationError(.requiresRecentLogin)) { _ = try await harness.service.deleteAccount() }
    }
}
