import Foundation
import Testing
import TrainAuth
import TrainCore
import TrainTesting

/// TEST-1 for the email sender: a fake that records each email and fails, delays or holds a send.
@Suite(.timeLimit(.minutes(1))) struct FakeEmailSenderTests {
    static let reset = AuthEmail(kind: .passwordReset, address: "ada@example.com", code: "code-1")

    @Test("a strict fake records a test failure for an unscripted send; a scripted one succeeds or throws")
    func strict() async throws {
        let sender = FakeEmailSender()
        await withKnownIssue {
            await #expect(throws: FakeError.unimplemented("FakeEmailSender.send(_:)")) { try await sender.send(Self.reset) }
        } matching: {
            FakeIssue.isUnscriptedCall($0, "FakeEmailSender.send(_:)")
        }
        sender.script(.send, .sequence([.success(()), .failure(AuthenticationError(.networkError))]))
        try await sender.send(Self.reset)
        await #expect(throws: AuthenticationError(.networkError)) { try await sender.send(Self.reset) }
        #expect(sender.calls == [.send(Self.reset), .send(Self.reset), .send(Self.reset)])
    }

    @Test("in front of a mailbox, a send goes through unless failed, and a held send waits for the test to release it")
    func backed() async throws {
        let clock = ManualClock()
        let mailbox = SimulatedMailbox()
        let sender = FakeEmailSender(backedBy: mailbox, clock: clock)
        let auth = LocalAuthService(
            context: TrainContext(clock: clock), configuration: AuthConfiguration(emailSender: sender, policy: AuthPolicy(passwordIterations: 1_000)))
        try await auth.sendSignInCode(to: "ada@example.com")
        #expect(mailbox.lastCode(for: "ada@example.com", .signInCode) != nil)
        sender.controls.failNextCall(with: AuthenticationError(.networkError))
        await #expect(throws: AuthenticationError(.networkError)) { try await auth.sendSignInCode(to: "grace@example.com") }
        #expect(mailbox.lastCode(for: "grace@example.com", .signInCode) == nil)
        sender.controls.holdCalls()
        let waiting = Task { try await auth.sendSignInCode(to: "grace@example.com") }
        await sender.controls.waitForHeldCalls(1)
        #expect(mailbox.lastCode(for: "grace@example.com", .signInCode) == nil, "held: not delivered yet")
        sender.controls.releaseHeldCalls()
        try await waiting.value
        #expect(mailbox.lastCode(for: "grace@example.com", .signInCode) != nil)
        #expect(sender.finish().isEmpty)
    }
}
