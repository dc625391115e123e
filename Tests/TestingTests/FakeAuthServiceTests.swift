import Foundation
import Testing
import TrainAuth
import TrainCore
import TrainTesting

/// TEST-1: the auth fakes record, script, fail, delay and hold.
@Suite(.timeLimit(.minutes(1))) struct FakeAuthServiceTests {
    @Test("calls are recorded in order and readable synchronously, without secrets")
    func recording() async throws {
        let fake = FakeAuthService()
        _ = try await fake.signInWithApple()
        _ = try await fake.sendVerificationCode(to: "+16505551234")
        _ = try await fake.signIn(with: .emailPassword(email: "ada@example.com", password: "hunter22"))
        try await fake.signOut()
        #expect(fake.calls == [.signInWithApple, .sendVerificationCode(phoneNumber: "+16505551234"), .signIn(.password), .signOut])
        #expect(!"\(fake.calls)".contains("hunter22"))
    }

    @Test("a scripted result is returned, and a signed-in user drives the state stream")
    func scripted() async throws {
        let fake = FakeAuthService()
        let grace = UserEntity(id: "grace", email: "grace@example.com", createdAt: .distantPast, lastSignInAt: .distantPast)
        fake.script(.signInWithApple, returning: .success(grace))
        let states = fake.authStateChanges()
        #expect(try await fake.signInWithApple() == grace)
        try await fake.signOut()
        var values: [UserEntity?] = []
        for await value in states {
            values.append(value)
            if values.count == 3 { break }
        }
        #expect(values == [nil, grace, nil])
    }

    @Test("a scripted failure is thrown every time until scripted again")
    func scriptedFailure() async throws {
        let fake = FakeAuthService(currentUser: FakeAuthService.sampleUser)
        fake.scriptDeletion(.failure(AuthError(.requiresRecentLogin)))
        for _ in 0..<2 {
            await #expect(throws: AuthError(.requiresRecentLogin)) { _ = try await fake.deleteAccount() }
        }
        #expect(fake.currentUser == FakeAuthService.sampleUser)
        fake.scriptDeletion(.success(AccountDeletionReceipt(userID: "fake-user-1", providers: [.apple], tokenRevocation: .revoked)))
        #expect(try await fake.deleteAccount().tokenRevocation == .revoked)
        #expect(fake.currentUser == nil)
    }

    @Test("a strict fake throws unimplemented for every unscripted call")
    func strict() async throws {
        let fake = FakeAuthService(strict: true)
        await #expect(throws: FakeError.unimplemented("signInWithApple")) { _ = try await fake.signInWithApple() }
        await #expect(throws: FakeError.unimplemented("signOut")) { try await fake.signOut() }
        await #expect(throws: FakeError.unimplemented("checkCredentialState")) { _ = try await fake.checkCredentialState() }
        fake.scriptCompletion(.signOut)
        try await fake.signOut()
        #expect(fake.calls == [.signInWithApple, .signOut, .checkCredentialState, .signOut])
    }

    @Test("the next call, or the n-th call, fails with the injected error")
    func injectedFailures() async throws {
        let fake = FakeAuthService()
        fake.controls.failNextCall(with: AuthError(.networkError))
        await #expect(throws: AuthError(.networkError)) { _ = try await fake.signInWithApple() }
        _ = try await fake.signInWithApple()
        fake.controls.failCall(number: 4, with: AuthError(.tooManyRequests))
        _ = try await fake.sendVerificationCode(to: "+16505551234")
        await #expect(throws: AuthError(.tooManyRequests)) { _ = try await fake.sendVerificationCode(to: "+16505551234") }
        _ = try await fake.sendVerificationCode(to: "+16505551234")
    }

    @Test("latency runs on the test clock")
    func latency() async throws {
        let clock = ManualClock()
        let fake = FakeAuthService(clock: clock)
        fake.controls.latency = .seconds(2)
        let signIn = Task { try await fake.signInWithApple() }
        await clock.waitForSleepers(1)
        #expect(fake.calls == [.signInWithApple], "recorded before the delay")
        #expect(fake.currentUser == nil)
        clock.advance(by: .seconds(2))
        #expect(try await signIn.value == FakeAuthService.sampleUser)
    }

    @Test("a held call waits for release, and can be cancelled while held")
    func holding() async throws {
        let fake = FakeAuthService()
        fake.controls.holdCalls()
        let released = Task { try await fake.signInWithApple() }
        let cancelled = Task { try await fake.signInWithGoogle() }
        await fake.controls.waitForHeldCalls(2)
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { _ = try await cancelled.value }
        #expect(fake.controls.heldCallCount == 1)
        fake.controls.releaseHeldCalls()
        #expect(try await released.value == FakeAuthService.sampleUser)
    }
}
