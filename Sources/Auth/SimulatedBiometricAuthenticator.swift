import Foundation
import TrainCore

/// A stand-in for the device's biometrics, for prototypes and tests: a sensor that is
/// there and enrolled, whose prompts the user approves until told otherwise — as
/// Xcode's simulator does with Face ID's "Matching Face" and "Non-matching Face".
///
/// ```swift
/// let biometrics = SimulatedBiometricAuthenticator()        // Face ID, enrolled
/// let auth = LocalAuthService(configuration: AuthConfiguration(biometrics: biometrics))
/// biometrics.answerNextPrompts(with: [.cancelled])          // the user taps Cancel once
/// ```
///
/// Five failed matches in a row lock the sensor out, as on a device: each prompt
/// then throws `biometryLockout` until ``setAvailability(_:)`` makes it available again.
public final class SimulatedBiometricAuthenticator: BiometricAuthenticator {
    private struct State {
        var availability: BiometricAvailability
        /// How the user answers the next prompts, in order; nil approves.
        var answers: [AuthenticationError.Code?] = []
        var failuresInARow = 0
        var prompts: [String] = []
    }

    /// Failed matches in a row that lock the sensor out.
    public static let lockoutThreshold = 5

    private let state: Locked<State>

    /// Creates the simulation.
    /// - Parameter availability: The sensor and whether it can be used; Face ID,
    ///   enrolled, by default.
    public init(availability: BiometricAvailability = BiometricAvailability(type: .faceID)) {
        state = Locked(State(availability: availability))
    }

    /// The sensor and whether it can be used now.
    public func availability() async -> BiometricAvailability {
        state.withLock { $0.availability }
    }

    /// Changes the sensor or its state — a user removing their enrolled face, or a
    /// lockout ending after the passcode — and forgets the failures counted toward a lockout.
    /// - Parameter availability: The new state.
    public func setAvailability(_ availability: BiometricAvailability) {
        state.withLock { state in
            state.availability = availability
            state.failuresInARow = 0
        }
    }

    /// Sets how the user answers the next prompts, one answer a prompt, in order: nil
    /// approves, `biometryFailed` is a face or finger that does not match, `cancelled`
    /// the Cancel button. Later prompts are approved again.
    /// - Parameter answers: The answers.
    public func answerNextPrompts(with answers: [AuthenticationError.Code?]) {
        state.withLock { $0.answers = answers }
    }

    /// The reasons of the prompts shown so far, oldest first.
    public var prompts: [String] { state.withLock { $0.prompts } }

    /// Shows a prompt: approved unless the sensor cannot be used or an answer set
    /// with ``answerNextPrompts(with:)`` says otherwise.
    /// - Parameter reason: Why, shown in the prompt.
    /// - Throws: ``AuthenticationError`` — the sensor's unavailability, or the answer given.
    public func evaluate(reason: String) async throws {
        try state.withLock { state throws(AuthenticationError) in
            if let unavailable = state.availability.unavailableReason { throw AuthenticationError(unavailable) }
            state.prompts.append(reason)
            let answer = state.answers.isEmpty ? nil : state.answers.removeFirst()
            guard let answer else {
                state.failuresInARow = 0
                return
            }
            if answer == .biometryFailed {
                state.failuresInARow += 1
                if state.failuresInARow >= Self.lockoutThreshold {
                    state.availability.unavailableReason = .biometryLockout
                }
            }
            throw AuthenticationError(answer)
        }
    }
}
