import Foundation
import Synchronization
import TrainAuth
import TrainCore

/// A scriptable ``BiometricAuthenticator`` (TEST-1): choose the sensor and its
/// availability, script each evaluation's outcome, and inspect the calls.
///
/// ```swift
/// let biometrics = FakeBiometricAuthenticator(availability: BiometricAvailability(type: .faceID))
/// biometrics.scriptEvaluation(.failure(AuthError(.biometryLockout)))
/// ```
public final class FakeBiometricAuthenticator: BiometricAuthenticator {
    /// A recorded call.
    public enum Call: Hashable, Sendable {
        /// ``availability()``.
        case availability
        /// ``evaluate(reason:)`` with the reason shown.
        case evaluate(reason: String)
    }

    /// Failure injection, latency and holding. Injected failures apply to ``evaluate(reason:)``;
    /// ``availability()`` cannot fail and only records, holds and waits.
    public let controls: FakeControls<Call>
    /// Whether an unscripted evaluation throws ``FakeError/unimplemented(_:)``.
    public let isStrict: Bool
    private let state: Mutex<(availability: BiometricAvailability, evaluation: Result<Void, AuthError>?)>

    /// Creates a fake.
    /// - Parameters:
    ///   - availability: What ``availability()`` answers; Face ID, available, by default.
    ///   - strict: Whether an unscripted evaluation throws instead of succeeding.
    ///   - clock: The clock ``FakeControls/latency`` sleeps on.
    public init(availability: BiometricAvailability = BiometricAvailability(type: .faceID), strict: Bool = false,
                clock: (any DateClock)? = nil) {
        state = Mutex((availability, nil))
        isStrict = strict
        controls = FakeControls(clock: clock)
    }

    /// Every call made so far.
    public var calls: [Call] { controls.calls }

    /// Changes what ``availability()`` answers (a user removing their enrolled face, say).
    /// - Parameter availability: The new answer.
    public func setAvailability(_ availability: BiometricAvailability) {
        state.withLock { $0.availability = availability }
    }

    /// Scripts the outcome of every evaluation from now on.
    /// - Parameter result: Success, or the error to throw.
    public func scriptEvaluation(_ result: Result<Void, AuthError>) {
        state.withLock { $0.evaluation = result }
    }

    /// Recorded; answers the availability set.
    /// - Returns: The availability.
    public func availability() async -> BiometricAvailability {
        try? await controls.record(.availability, canFail: false)
        return state.withLock { $0.availability }
    }

    /// Recorded; succeeds or throws as scripted. Unscripted, it succeeds when
    /// biometrics are available (throws their unavailability otherwise), or throws
    /// `unimplemented` when strict.
    /// - Parameter reason: The reason shown.
    public func evaluate(reason: String) async throws {
        try await controls.record(.evaluate(reason: reason))
        let (availability, scripted) = state.withLock { ($0.availability, $0.evaluation) }
        if let scripted { return try scripted.get() }
        if isStrict { throw FakeError.unimplemented("evaluate(reason:)") }
        if let unavailable = availability.unavailableReason { throw AuthError(unavailable) }
    }
}
