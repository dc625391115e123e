import Foundation

/// The error every TrainKit module throws: a ``TrainErrorCode`` a caller can match,
/// and a detail for logs.
///
/// Each module has one error type that adopts this protocol and declares its codes
/// in an extension of ``TrainErrorCode``. Equality, hashing, the sentence shown to a
/// user, the recovery suggestion, `description` and matching come from here, so they
/// read the same in every module:
///
/// ```swift
/// do {
///     let page = try await social.friendsFeed(limit: 20)
/// } catch SocialError.feedLocked {
///     // Show "Complete a workout to see what your friends are up to."
/// }
/// #expect(throws: SocialError(.feedLocked)) { try await social.friendsFeed(limit: 20) }
/// ```
///
/// Two errors are equal when their codes are, whatever their detail, so a test can
/// expect an error by its code against a real service.
@dynamicMemberLookup
public protocol TrainError: Error, Hashable, Sendable, LocalizedError, CustomStringConvertible {
    /// What went wrong.
    var code: TrainErrorCode<Self> { get }
    /// A detail of this occurrence for developers and logs; never a secret.
    var detail: String { get }
}

extension TrainError {
    /// Whether both errors have the same code, whatever their detail.
    /// - Parameters:
    ///   - lhs: An error.
    ///   - rhs: Another error.
    /// - Returns: Whether the codes are equal.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }

    /// Hashes the code only, consistent with `==`.
    /// - Parameter hasher: The hasher.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// The code's sentence for a user.
    public var errorDescription: String? { code.message }

    /// What the user can do about it, when there is something.
    public var recoverySuggestion: String? { code.recoverySuggestion }

    /// The type, the code and the detail, for logs: `SocialError.feedLocked: …`.
    public var description: String { "\(Self.self).\(code): \(detail)" }

    /// A code of this error by its name, so `catch SocialError.feedLocked` reads as it
    /// would for an enum.
    /// - Parameter keyPath: The code's static member on ``TrainErrorCode``.
    /// - Returns: The code.
    public static subscript(dynamicMember keyPath: KeyPath<TrainErrorCode<Self>.Type, TrainErrorCode<Self>>) -> TrainErrorCode<Self> {
        TrainErrorCode<Self>.self[keyPath: keyPath]
    }
}

/// A code of a module's ``TrainError``: its stable name, and what a user is told.
///
/// A module declares its codes once, each with its sentence, in a constrained
/// extension:
///
/// ```swift
/// extension TrainErrorCode where Failure == SocialError {
///     /// The feed is locked until the user completes a workout today.
///     public static var feedLocked: Self {
///         Self("feedLocked", message: "The feed unlocks when you complete a workout today.")
///     }
/// }
/// ```
///
/// Codes are equal when their names are; new codes can be added without breaking callers.
public struct TrainErrorCode<Failure: TrainError>: Hashable, Sendable, CustomStringConvertible {
    /// The stable name of the code, such as `"feedLocked"`.
    public let name: String
    /// The sentence an app can show a user as is.
    public let message: String
    /// What the user can do about it, when there is something.
    public let recoverySuggestion: String?

    /// Declares a code.
    /// - Parameters:
    ///   - name: The stable name; two codes of one error type never share it.
    ///   - message: The sentence shown to a user.
    ///   - recoverySuggestion: What the user can do, if anything.
    public init(_ name: String, message: String, recoverySuggestion: String? = nil) {
        self.name = name
        self.message = message
        self.recoverySuggestion = recoverySuggestion
    }

    /// Whether both codes have the same name.
    /// - Parameters:
    ///   - lhs: A code.
    ///   - rhs: Another code.
    /// - Returns: Whether the names are equal.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.name == rhs.name }

    /// Hashes the name only, consistent with `==`.
    /// - Parameter hasher: The hasher.
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }

    /// The code's name.
    public var description: String { name }
}

/// Matches an error thrown by a TrainKit module against one of its codes, so a
/// `catch` clause or a `case` names the code: `catch SocialError.feedLocked`.
/// - Parameters:
///   - pattern: The code.
///   - value: The error thrown.
/// - Returns: Whether the error is of the code's type and has that code.
public func ~= <Failure: TrainError>(pattern: TrainErrorCode<Failure>, value: any Error) -> Bool {
    (value as? Failure)?.code == pattern
}
