import Foundation
import Testing
import TrainAuth
import TrainCore
import TrainTesting

/// TEST-1: the auth fake records, scripts, fails, delays and holds.
@Suite(.timeLimit(.minutes(1))) struct FakeAuthServiceTests {
    @Test("calls are recorded in order and readable synchronously, without secrets")
    func recording() async throws {
        let fake = FakeAuthService()
        fake.script(.signInWithApple, .returning(FakeAuthService.sampleUser))
        fake.script(.sendVerificationCode, .returning("id-1"))
        fake.script(.signIn, .returning(FakeAuthService.sampleUser))
        fake.script(.signOut, .succeeding)
        _ = try await fake.signInWithApple()
        _ = try await fake.sendVerificationCode(to: "+16505551234")
        _ = try await fake.signIn(with: .emailPassword(email: "ada@example.com", password: "hunter22"))
        try await fake.signOut()
        #expect(fake.calls == [.signInWithApple(), .sendVerificationCode("+16505551234"), .signIn(.password), .signOut()])
        #expect(!"\(fake.calls)".contains("hunter22"))
    }

    @Test("a scripted result is returned, and a signed-in user drives the state stream")
    func scripted() async throws {
        let fake = FakeAuthService()
        let grace = UserEntity(id: "grace", email: "grace@example.com", createdAt: .distantPast, lastSignInAt: .distantPast)
        fake.script(.signInWithApple, .returning(grace))
        fake.script(.signOut, .succeeding)
        let states = fake.authStateChanges()
        #expect(try await fake.signInWithApple() == grace)
        try await fake.signOut()
        #expect(await states.collect(3) == [nil, grace, nil])
    }

    @Test("a sticky script answers every call until scripted again")
    func sticky() async throws {
        let fake = FakeAuthService(currentUser: FakeAuthService.sampleUser)
        fake.script(.deleteAccount, .throwing(AuthenticationError(.requiresRecentLogin)))
        for _ in 0..<2 {
            await #expect(throws: AuthenticationError(.requiresRecentLogin)) { try await fake.deleteAccount() }
        }
        #expect(fake.currentUser == FakeAuthService.sampleUser)
        fake.script(.deleteAccount, .returning(AccountDeletionReceipt(userID: "fake-user-1", providers: [.apple], tokenRevocation: .revoked)))
        #expect(try await fake.deleteAccount().tokenRevocation == .revoked)
        #expect(fake.currentUser == nil)
    }

    @Test("a one-shot script answers the next call only; a sequence answers one call each; then the call is unscripted again")
    func onceAndSequence() async throws {
        let fake = FakeAuthService()
        let grace = UserEntity(id: "grace", createdAt: .distantPast, lastSignInAt: .distantPast)
        fake.script(.signInWithGoogle, .once(.success(grace)))
        #expect(try await fake.signInWithGoogle() == grace)
        fake.script(.sendVerificationCode, .sequence([.failure(AuthenticationError(.tooManyRequests)), .success("id-2")]))
        await #expect(throws: AuthenticationError(.tooManyRequests)) { _ = try await fake.sendVerificationCode(to: "+1") }
        #expect(try await fake.sendVerificationCode(to: "+1") == "id-2")
        await withKnownIssue {
            await #expect(throws: FakeError.unimplemented("FakeAuthService.signInWithGoogle()")) { _ = try await fake.signInWithGoogle() }
            await #expect(throws: FakeError.unimplemented("FakeAuthService.sendVerificationCode(to:)")) {
                _ = try await fake.sendVerificationCode(to: "+1")
            }
        } matching: {
            FakeIssue.isUnscriptedCall($0)
        }
    }

    @Test("a fake is strict by default: it records a test failure naming an unscripted call, and throws unimplemented")
    func strict() async throws {
        let fake = FakeAuthService()
        #expect(fake.isStrict)
        await withKnownIssue("the unscripted calls fail the test") {
            await #expect(throws: FakeError.unimplemented("FakeAuthService.signInWithApple()")) { _ = try await fake.signInWithApple() }
            await #expect(throws: FakeError.unimplemented("FakeAuthService.signOut()")) { try await fake.signOut() }
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("FakeAuthService.signInWithApple()") || $0.rawValue.contains("FakeAuthService.signOut()") }
        }
        fake.script(.signOut, .succeeding)
        try await fake.signOut()
        #expect(fake.calls == [.signInWithApple(), .signOut(), .signOut()])
    }

    @Test("a view model that swallows the error still fails the test: the failure is recorded where the fake was called")
    func swallowedUnimplemented() async {
        let fake = FakeAuthService()
        await withKnownIssue {
            _ = try? await fake.checkCredentialState() // a catch-all would hide the error
        } matching: {
            FakeIssue.isUnscriptedCall($0, "FakeAuthService.checkCredentialState()")
        }
    }

    @Test("the next call, the n-th call, or the n-th call of one method fails with the injected error")
    func injectedFailures() async throws {
        let fake = FakeAuthService()
        fake.script(.signInWithApple, .returning(FakeAuthService.sampleUser))
        fake.script(.signInWithGoogle, .returning(FakeAuthService.sampleUser))
        fake.script(.sendVerificationCode, .returning("id-1"))
        fake.controls.failNextCall(with: AuthenticationError(.networkError))
        await #expect(throws: AuthenticationError(.networkError)) { _ = try await fake.signInWithApple() }
        _ = try await fake.signInWithApple()
        fake.controls.failCall(number: 4, with: AuthenticationError(.tooManyRequests))
        _ = try await fake.sendVerificationCode(to: "+16505551234")
        await #expect(throws: AuthenticationError(.tooManyRequests)) { _ = try await fake.sendVerificationCode(to: "+16505551234") }
        fake.failCall(2, of: .signInWithGoogle, with: AuthenticationError(.cancelled))
        _ = try await fake.signInWithGoogle()
        _ = try await fake.sendVerificationCode(to: "+16505551234")
        await #expect(throws: AuthenticationError(.cancelled)) { _ = try await fake.signInWithGoogle() }
    }

    @Test("subscribing to the state stream does not shift which call a numbered failure falls on")
    func subscriptionsNotCounted() async throws {
        let fake = FakeAuthService()
        fake.script(.signInWithApple, .returning(FakeAuthService.sampleUser))
        fake.controls.failCall(number: 2, with: AuthenticationError(.networkError))
        _ = try await fake.signInWithApple()
        _ = fake.authStateChanges()
        _ = fake.authStateChanges()
        await #expect(throws: AuthenticationError(.networkError)) { _ = try await fake.signInWithGoogle() }
        #expect(fake.calls == [.signInWithApple(), .authStateChanges(), .authStateChanges(), .signInWithGoogle()])
    }

    @Test("finish reports held calls, failures that never fired and scripts never used, each as a test failure")
    func leftovers() async throws {
        let fake = FakeAuthService()
        #expect(fake.finish().isEmpty, "nothing set up, nothing left over")
        fake.script(.signInWithApple, .returning(FakeAuthService.sampleUser))
        fake.script(
            .deleteAccount, .sequence([.failure(AuthenticationError(.requiresRecentLogin)), .failure(AuthenticationError(.requiresRecentLogin))]))
        fake.controls.failNextCall(with: AuthenticationError(.networkError))
        fake.failCall(3, of: .signOut, with: AuthenticationError(.storage))
        fake.controls.holdCalls()
        let held = Task { try await fake.signInWithGoogle() }
        await fake.controls.waitForHeldCalls(1)
        var reported: [FakeLeftover] = []
        withKnownIssue {
            reported = fake.finish()
        } matching: {
            FakeIssue.isLeftover($0, of: "FakeAuthService")
        }
        // The held call took the failure set for the next call when it was made: it throws it once released.
        #expect(
            reported == [
                .heldCalls(1), .unfiredFailure(.callOfMethod("signOut()", 3)), .unusedScript(method: "deleteAccount()", results: 2),
                .unusedScript(method: "signInWithApple()", results: nil),
            ])
        #expect(
            reported.map(\.description) == [
                "1 call is still held", "the failure set for call 3 of signOut() never fired",
                "2 scripted results of deleteAccount() never used", "the script of signInWithApple() was never used",
            ])
        fake.controls.releaseHeldCalls()
        await #expect(throws: AuthenticationError(.networkError)) { _ = try await held.value }
    }

    @Test("a test can wait until the view model follows the state stream")
    func waitForSubscribers() async throws {
        let fake = FakeAuthService()
        let follower = Task { await fake.authStateChanges().collect(2) }
        await fake.waitForAuthStateSubscribers(1)
        fake.setCurrentUser(FakeAuthService.sampleUser)
        #expect(await follower.value == [nil, FakeAuthService.sampleUser])
    }

    @Test("latency runs on the test clock")
    func latency() async throws {
        let clock = ManualClock()
        let fake = FakeAuthService(clock: clock)
        fake.script(.signInWithApple, .returning(FakeAuthService.sampleUser))
        fake.controls.latency = .seconds(2)
        let signIn = Task { try await fake.signInWithApple() }
        await clock.waitForSleepers(1)
        #expect(fake.calls == [.signInWithApple()], "recorded before the delay")
        #expect(fake.currentUser == nil)
        clock.advance(by: .seconds(2))
        #expect(try await signIn.value == FakeAuthService.sampleUser)
    }

    @Test("a held call waits for release, and can be cancelled while held")
    func holding() async throws {
        let fake = FakeAuthService()
        fake.script(.signInWithApple, .returning(FakeAuthService.sampleUser))
        fake.script(.signInWithGoogle, .returning(FakeAuthService.sampleUser))
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

    @Test("built over a LocalAuthService, a fake answers what nobody scripted as the service does and shows its user; a script still wins")
    func backedByService() async throws {
        let clock = ManualClock()
        let apple = SimulatedIdentityProvider(provider: .apple, audience: "com.example.train", clock: clock)
        let service = LocalAuthService(
            context: TrainContext(clock: clock),
            configuration: AuthConfiguration(apple: IdentityProviderConfiguration(authorizer: apple, audience: "com.example.train")))
        let fake = FakeAuthService(backedBy: service)
        #expect(!fake.isStrict)
        apple.signIn(as: .init(subject: "001.ada", email: "ada@example.com"))
        let ada = try await fake.signInWithApple()
        #expect(fake.currentUser == ada && service.currentUser == ada)
        await #expect(throws: AuthenticationError(.invalidEmail)) { _ = try await fake.updateEmail(to: "not an address") }
        fake.script(.signOut, .throwing(AuthenticationError(.networkError)))
        await #expect(throws: AuthenticationError(.networkError)) { try await fake.signOut() }
        #expect(service.currentUser == ada, "a scripted answer does not reach the service")
        #expect(fake.calls == [.signInWithApple(), .updateEmail("not an address"), .signOut()])
    }

    @Test("a fake built over a service shows the service's state: setting its own records a test failure and changes nothing")
    func backedStateIsTheServices() async throws {
        let fake = FakeAuthService(backedBy: LocalAuthService())
        withKnownIssue {
            fake.setCurrentUser(FakeAuthService.sampleUser)
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("FakeAuthService.setCurrentUser(_:) changes nothing") }
        }
        #expect(fake.currentUser == nil)
    }

    @Test("a strict fake's token stream says nil when its user signs out or another signs in, as the service's does")
    func tokenStreamEndsWithTheSession() async throws {
        let fake = FakeAuthService(currentUser: FakeAuthService.sampleUser)
        fake.script(.idToken, .returning("header.payload.signature"))
        fake.script(.signOut, .succeeding)
        let stream = fake.idTokenChanges()
        _ = try await fake.idToken()
        try await fake.signOut()
        #expect(await stream.collect(3) == [nil, "header.payload.signature", nil])
        let service = LocalAuthService(configuration: AuthConfiguration(policy: AuthPolicy(passwordIterations: 1_000)))
        _ = try await service.createUser(email: "ada@example.com", password: "correct horse 1")
        let told = service.idTokenChanges()
        let token = try await service.idToken()
        try await service.signOut()
        #expect(await told.collect(3) == [nil, token, nil], "the service the fake stands for")
    }
}
