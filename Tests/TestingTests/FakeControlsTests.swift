import Foundation
import Testing
import TrainAuth
import TrainCore
import TrainTesting

@Suite(.timeLimit(.minutes(1))) struct FakeControlsTests {
    @Test("waiting for held calls ends when the waiting task is cancelled")
    func cancelledWait() async {
        let controls = FakeControls<String>(fakeName: "FakeThing")
        let waiter = Task { await controls.waitForHeldCalls(1) }
        waiter.cancel()
        await waiter.value
        #expect(controls.heldCallCount == 0)
    }

    @Test("a failure set for call 1 is used up by call 1 when it is cancelled while held; call 2 succeeds")
    func cancelledCallUsesItsFailure() async throws {
        let auth = FakeAuthService()
        auth.script(.signInWithApple, .returning(FakeAuthService.sampleUser))
        auth.controls.failCall(number: 1, with: AuthenticationError(.networkError))
        auth.controls.holdCalls()
        let first = Task { try await auth.signInWithApple() }
        await auth.controls.waitForHeldCalls(1)
        first.cancel()
        await #expect(throws: CancellationError.self) { try await first.value }
        auth.controls.releaseHeldCalls()
        let user = try await auth.signInWithApple()
        #expect(!user.id.isEmpty)
        #expect(auth.controls.leftovers.isEmpty)
    }

    @Test("releasing held calls while holding the next steps through a sequence of calls one at a time")
    func stepThroughCalls() async throws {
        let auth = FakeAuthService(currentUser: FakeAuthService.sampleUser)
        auth.script(.checkCredentialState, .returning(.authorized))
        auth.script(.signOut, .succeeding)
        auth.controls.holdCalls()
        let sequence = Task {
            _ = try await auth.checkCredentialState()
            try await auth.signOut()
        }
        await auth.controls.waitForHeldCalls(1)
        #expect(auth.calls == [.checkCredentialState()])
        auth.controls.releaseHeldCalls(holdingNext: true)
        await auth.controls.waitForHeldCalls(1)
        #expect(auth.calls == [.checkCredentialState(), .signOut()], "the second call is held in its turn")
        #expect(auth.currentUser != nil)
        auth.controls.releaseHeldCalls()
        try await sequence.value
        #expect(auth.currentUser == nil)
    }

    @Test("a check of one's own runs beside a suite's")
    func ownCheck() async throws {
        let check = ContractCheck<Int>("the environment is positive") { value in
            if value <= 0 { throw ContractViolation(check: "the environment is positive", message: "got \(value)") }
        }
        try await check.run(in: 1)
        await #expect(throws: ContractViolation.self) { try await check.run(in: 0) }
    }

    @Test("a fake of one's own runs on the controls: typed scripts, strictness, a service behind it, and left-overs")
    func ownFake() async throws {
        let controls = FakeControls<String>(fakeName: "FakeWeather")
        let noService: (() async throws -> Double)? = nil
        controls.script("temperature()", FakeScript<Double>.sequence([.success(21.5)]))
        let temperature = try await controls.perform("temperature", method: "temperature()", service: noService)
        #expect(temperature == 21.5)
        await withKnownIssue {
            _ = try? await controls.perform("temperature", method: "temperature()", service: noService)
        } matching: {
            FakeIssue.isUnscriptedCall($0)
        }
        let backed = FakeControls<String>(fakeName: "FakeWeather", strict: false)
        #expect(try await backed.perform("temperature", method: "temperature()", service: { 18.0 }) == 18.0)
        #expect(controls.leftovers.isEmpty && backed.calls == ["temperature"])
    }

    @Test("left-overs are typed values, in a fixed order, with a sentence each")
    func typedLeftovers() async {
        let controls = FakeControls<String>(fakeName: "FakeWeather")
        controls.failNextCall(with: CancellationError())
        controls.failCall(number: 7, with: CancellationError())
        controls.script("wind()", FakeScript<Int>.returning(3))
        controls.script("rain()", FakeScript<Int>.sequence([.success(1), .success(2)]))
        #expect(
            controls.leftovers == [
                .unfiredFailure(.nextCall), .unfiredFailure(.call(7)), .unusedScript(method: "rain()", results: 2),
                .unusedScript(method: "wind()", results: nil),
            ])
        #expect(controls.leftovers.map(\.description).first == "the failure set for the next call never fired")
    }

    @Test("FakeIssue names a strict fake's unscripted call by fake and method, and a left-over by fake, and nothing else")
    func issueMatchers() async {
        let auth = FakeAuthService()
        await withKnownIssue {
            try? await auth.signOut()
        } matching: { issue in
            FakeIssue.isUnscriptedCall(issue, "FakeAuthService.signOut()") && FakeIssue.isUnscriptedCall(issue)
                && !FakeIssue.isUnscriptedCall(issue, "FakeAuthService.signIn(with:)") && !FakeIssue.isLeftover(issue)
        }
        auth.script(.signOut, .once(.success(())))
        withKnownIssue {
            auth.finish()
        } matching: { issue in
            FakeIssue.isLeftover(issue, of: "FakeAuthService") && !FakeIssue.isLeftover(issue, of: "FakeSocialFeedService")
                && !FakeIssue.isUnscriptedCall(issue)
        }
    }
}
