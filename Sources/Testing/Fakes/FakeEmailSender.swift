import Foundation
import TrainAuth
import TrainCore

/// A scriptable `EmailSender`: each email the auth service sends, a send that fails or
/// waits, for tests of what an app does when the mail does not go out.
///
/// A fake made with ``init(clock:)`` is strict: a send nobody scripted records a test
/// failure and throws ``FakeError/unimplemented(_:)``. A fake made with
/// ``init(backedBy:clock:)`` hands what nobody scripted to that sender, such as a
/// `SimulatedMailbox` the test reads codes from.
///
/// ```swift
/// let mailbox = SimulatedMailbox()
/// let sender = FakeEmailSender(backedBy: mailbox)
/// let auth = LocalAuthService(configuration: AuthConfiguration(emailSender: sender))
/// sender.controls.failNextCall(with: AuthenticationError(.networkError))   // the mail provider is down
/// ```
public final class FakeEmailSender: EmailSender, ScriptableFake, BackedFake {
    /// A recorded call: the method, declared once below, applied to its arguments.
    public typealias Call = FakeCall<FakeEmailSender>

    /// Failure injection, latency, holding, scripts and left-overs.
    public let controls: FakeControls<Call>
    /// The sender unscripted sends go to; nil for a strict fake.
    public let service: (any EmailSender)?

    /// Creates a strict fake: every send needs a script.
    /// - Parameter clock: The clock ``FakeControls/latency`` sleeps on.
    public init(clock: (any DateClock)? = nil) {
        service = nil
        controls = FakeControls(fakeName: "FakeEmailSender", clock: clock)
    }

    /// Creates a fake in front of `service`: what nobody scripted goes to it.
    /// - Parameters:
    ///   - service: The sender, such as a `SimulatedMailbox`.
    ///   - clock: The clock ``FakeControls/latency`` sleeps on.
    public init(backedBy service: any EmailSender, clock: (any DateClock)? = nil) {
        self.service = service
        controls = FakeControls(fakeName: "FakeEmailSender", strict: false, clock: clock)
    }

    /// Whether an unscripted send fails the test.
    public var isStrict: Bool { controls.isStrict }

    /// Succeeds or throws as scripted, or as the service does.
    public func send(_ email: AuthEmail) async throws {
        try await controls.perform(.send, email, service: service.map { service in { try await service.send(email) } })
    }
}

extension FakeMethods where Fake == FakeEmailSender {
    /// ``FakeEmailSender/send(_:)``.
    public static var send: FakeMethod<FakeEmailSender, Void, AuthEmail> { .init("send(_:)") }
}
