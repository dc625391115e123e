import Foundation
import TrainAuth
import TrainCore

/// A scriptable `BiometricAuthenticator`: the sensor's availability, each evaluation's
/// outcome, and the calls, for tests of a settings screen.
///
/// A fake made with ``init(availability:clock:)`` is strict: an evaluation nobody
/// scripted records a test failure and throws ``FakeError/unimplemented(_:)``, and its
/// availability is what the test sets. A fake made with ``init(backedBy:clock:)`` passes
/// what nobody scripted to that authenticator, such as a `SimulatedBiometricAuthenticator`.
///
/// ```swift
/// let biometrics = FakeBiometricAuthenticator(availability: BiometricAvailability(type: .faceID))
/// biometrics.script(.evaluate, .throwing(AuthenticationError(.biometryLockout)))
/// ```
public final class FakeBiometricAuthenticator: BiometricAuthenticator, ScriptableFake, BackedFake {
    /// A recorded call: the method, declared once below, applied to its arguments.
    public typealias Call = FakeCall<FakeBiometricAuthenticator>

    /// Failure injection, latency, holding, scripts and left-overs. Injected failures
    /// apply to ``evaluate(reason:)``; ``availability()`` cannot fail and only records,
    /// holds and waits.
    public let controls: FakeControls<Call>
    /// The authenticator unscripted calls go to; nil for a strict fake.
    public let service: (any BiometricAuthenticator)?
    private let currentAvailability: Locked<BiometricAvailability>

    /// Creates a strict fake: every evaluation needs a script.
    /// - Parameters:
    ///   - availability: What ``availability()`` answers; Face ID, available, by default.
    ///   - clock: The clock ``FakeControls/latency`` sleeps on.
    public init(availability: BiometricAvailability = BiometricAvailability(type: .faceID), clock: (any DateClock)? = nil) {
        service = nil
        currentAvailability = Locked(availability)
        controls = FakeControls(fakeName: "FakeBiometricAuthenticator", clock: clock)
    }

    /// Creates a fake in front of `service`: what nobody scripted goes to it.
    /// - Parameters:
    ///   - service: The authenticator, such as a `SimulatedBiometricAuthenticator`.
    ///   - clock: The clock ``FakeControls/latency`` sleeps on.
    public init(backedBy service: any BiometricAuthenticator, clock: (any DateClock)? = nil) {
        self.service = service
        currentAvailability = Locked(BiometricAvailability(type: .none))
        controls = FakeControls(fakeName: "FakeBiometricAuthenticator", strict: false, clock: clock)
    }

    /// Whether an unscripted evaluation fails the test.
    public var isStrict: Bool { controls.isStrict }

    /// Changes what a strict fake's ``availability()`` answers (a user removing their enrolled face, say).
    /// - Parameter availability: The new answer.
    public func setAvailability(_ availability: BiometricAvailability) {
        guard controls.ownsState("setAvailability(_:)") else { return }
        currentAvailability.withLock { $0 = availability }
    }

    /// Recorded; the service's availability, or the one set.
    public func availability() async -> BiometricAvailability {
        await controls.performWithoutFailing(.availability) {
            if let service { return await service.availability() }
            return currentAvailability.withLock { $0 }
        }
    }

    /// Succeeds or throws as scripted, or as the service does.
    public func evaluate(reason: String) async throws {
        try await controls.perform(
            .evaluate, reason,
            service: service.map { service in { try await service.evaluate(reason: reason) } })
    }
}

extension FakeMethods where Fake == FakeBiometricAuthenticator {
    /// ``FakeBiometricAuthenticator/availability()``.
    public static var availability: FakeMethod<FakeBiometricAuthenticator, BiometricAvailability> { .init("availability()") }

    /// ``FakeBiometricAuthenticator/evaluate(reason:)``.
    public static var evaluate: FakeMethod<FakeBiometricAuthenticator, Void, String> { .init("evaluate(reason:)") }
}
