import Foundation
import TrainAuth
import TrainCore

/// A scriptable `BiometricAuthenticator`: choose the sensor and its availability,
/// script each evaluation's outcome, and inspect the calls.
///
/// ```swift
/// let biometrics = FakeBiometricAuthenticator(availability: BiometricAvailability(type: .faceID))
/// biometrics.script(.evaluate, .throwing(AuthenticationError(.biometryLockout)))
/// ```
public final class FakeBiometricAuthenticator: BiometricAuthenticator, ScriptableFake {
    /// A recorded call.
    public enum Call: Hashable, Sendable {
        /// ``availability()``.
        case availability
        /// ``evaluate(reason:)`` with the reason shown.
        case evaluate(reason: String)
    }

    /// Failure injection, latency, holding, scripts and left-overs. Injected failures
    /// apply to ``evaluate(reason:)``; ``availability()`` cannot fail and only records,
    /// holds and waits.
    public let controls: FakeControls<Call>
    private let currentAvailability: Locked<BiometricAvailability>

    /// Creates a fake.
    /// - Parameters:
    ///   - availability: What ``availability()`` answers; Face ID, available, by default.
    ///   - strict: Whether an unscripted evaluation fails the test (and throws) instead of succeeding.
    ///   - clock: The clock ``FakeControls/latency`` sleeps on.
    public init(
        availability: BiometricAvailability = BiometricAvailability(type: .faceID), strict: Bool = false,
        clock: (any DateClock)? = nil
    ) {
        currentAvailability = Locked(availability)
        controls = FakeControls(fakeName: "FakeBiometricAuthenticator", strict: strict, clock: clock)
    }

    /// Whether an unscripted evaluation fails the test.
    public var isStrict: Bool { controls.isStrict }

    /// Changes what ``availability()`` answers (a user removing their enrolled face, say).
    /// - Parameter availability: The new answer.
    public func setAvailability(_ availability: BiometricAvailability) {
        currentAvailability.withLock { $0 = availability }
    }

    /// Recorded; answers the availability set.
    public func availability() async -> BiometricAvailability {
        await controls.performWithoutFailing(.availability, method: "availability()")
        return currentAvailability.withLock { $0 }
    }

    /// Succeeds or throws as scripted. Unscripted, it succeeds when biometrics are
    /// available (and throws their unavailability otherwise).
    public func evaluate(reason: String) async throws {
        let availability = currentAvailability.withLock { $0 }
        try await controls.perform(.evaluate(reason: reason), method: FakeMethod<FakeBiometricAuthenticator, Void>.evaluate.name) {
            if let unavailable = availability.unavailableReason { throw AuthenticationError(unavailable) }
        }
    }
}

extension FakeMethod where Fake == FakeBiometricAuthenticator, Output == Void {
    /// ``FakeBiometricAuthenticator/evaluate(reason:)``.
    public static var evaluate: Self { Self("evaluate(reason:)") }
}
