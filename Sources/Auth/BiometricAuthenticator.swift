import Foundation

/// The kind of biometric sensor a device has.
public enum BiometryType: String, Codable, Hashable, Sendable {
    /// No biometric sensor, or none usable.
    case none
    /// Touch ID.
    case touchID
    /// Face ID.
    case faceID
    /// Optic ID (Apple Vision Pro).
    case opticID
}

/// Whether biometric authentication can be used now, and if not, why.
public struct BiometricAvailability: Hashable, Sendable {
    /// The sensor the device has.
    public var type: BiometryType
    /// Why it cannot be used (`biometryNotAvailable`, `biometryNotEnrolled`,
    /// `biometryLockout`), or nil when it can.
    public var unavailableReason: AuthenticationError.Code?

    /// Creates an availability.
    /// - Parameters:
    ///   - type: The sensor.
    ///   - unavailableReason: Why it cannot be used, or nil.
    public init(type: BiometryType, unavailableReason: AuthenticationError.Code? = nil) {
        self.type = type
        self.unavailableReason = type == .none ? (unavailableReason ?? .biometryNotAvailable) : unavailableReason
    }

    /// Whether biometric authentication can be used now.
    public var isAvailable: Bool { unavailableReason == nil }
}

/// The seam to the device's biometrics. In an app, a conformance wraps
/// `LAContext` (`canEvaluatePolicy`, `evaluatePolicy`) and maps `LAError` to
/// ``AuthenticationError`` codes; TrainTesting ships `FakeBiometricAuthenticator`.
///
/// ```swift
/// struct NoSensor: BiometricAuthenticator {
///     func availability() async -> BiometricAvailability { BiometricAvailability(type: .none) }
///     func evaluate(reason: String) async throws { throw AuthenticationError(.biometryNotAvailable) }
/// }
/// ```
public protocol BiometricAuthenticator: Sendable {
    /// Whether biometrics can be used now, and which sensor the device has.
    func availability() async -> BiometricAvailability

    /// Asks the user to authenticate with biometrics.
    /// - Parameter reason: Why, shown in the system prompt.
    /// - Throws: ``AuthenticationError`` — `cancelled`, `biometryFailed`, `biometryLockout`,
    ///   `biometryNotEnrolled` or `biometryNotAvailable`.
    func evaluate(reason: String) async throws
}

/// A device without biometrics: the default, and what Linux has.
public struct NoBiometricAuthenticator: BiometricAuthenticator {
    /// Creates the authenticator.
    public init() {}

    /// Always unavailable.
    public func availability() async -> BiometricAvailability { BiometricAvailability(type: .none) }

    /// Always throws ``TrainCore/TrainErrorCode/biometryNotAvailable``.
    public func evaluate(reason: String) async throws { throw AuthenticationError(.biometryNotAvailable) }
}
