import Foundation

/// The one error type of TrainSync. Each code has a user-facing description and
/// recovery suggestion an app can show as is.
///
/// ```swift
/// do {
///     try await plans.sync()
/// } catch let error as SyncError where error.code == .remoteUnavailable {
///     // Nothing is lost: the edits stay queued for the next sync.
/// }
/// ```
public struct SyncError: Error, Hashable, Sendable {
    /// What went wrong; new codes can be added without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The stable name of the code (`"notSignedIn"`).
        public let name: String
        private init(_ name: String) { self.name = name }

        /// The call needs a signed-in user and there is none, or the user changed
        /// during the call.
        public static let notSignedIn = Code("notSignedIn")
        /// The record breaks a rule of its type (an empty name, an end before the start).
        public static let invalidRecord = Code("invalidRecord")
        /// No such record on this device, or it was deleted.
        public static let recordNotFound = Code("recordNotFound")
        /// A record with this ID already exists on this device.
        public static let recordExists = Code("recordExists")
        /// The record belongs to another user.
        public static let notAuthorized = Code("notAuthorized")
        /// The record has no conflict waiting for a choice.
        public static let noConflict = Code("noConflict")
        /// The remote could not be reached or failed; every edit stays queued.
        public static let remoteUnavailable = Code("remoteUnavailable")
        /// The sync was cancelled; what it finished is kept, the rest stays queued.
        public static let cancelled = Code("cancelled")
        /// The sync data on this device could not be read or written.
        public static let storage = Code("storage")

        /// The code's name.
        public var description: String { name }
    }

    /// What went wrong.
    public let code: Code
    /// A detail of this occurrence for developers and logs.
    public let detail: String

    /// Creates an error.
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - detail: A detail for developers; defaults to the user-facing description.
    public init(_ code: Code, detail: String? = nil) {
        self.code = code
        self.detail = detail ?? Self.messages[code]?.description ?? code.name
    }

    private static let messages: [Code: (description: String, suggestion: String?)] = [
        .notSignedIn: ("You are not signed in.", "Sign in to sync your plans."),
        .invalidRecord: ("This plan cannot be saved as it is.", "Check its name, dates and days per week."),
        .recordNotFound: ("This plan is no longer available.", "Pull to refresh."),
        .recordExists: ("This plan already exists.", nil),
        .notAuthorized: ("This plan belongs to another account.", nil),
        .noConflict: ("This plan has no conflict to resolve.", nil),
        .remoteUnavailable: ("Your plans could not be synced right now.", "Your changes are saved on this device and will sync later."),
        .cancelled: ("The sync was stopped.", "Your changes are saved on this device and will sync later."),
        .storage: ("Your plans on this device could not be read or saved.", "Restart the app. If this keeps happening, contact support."),
    ]
}

extension SyncError {
    /// Two errors are equal when their codes are, whatever their detail, so a test can
    /// write `#expect(throws: SyncError(.notSignedIn))` against a real service.
    /// - Parameters:
    ///   - lhs: An error.
    ///   - rhs: Another error.
    /// - Returns: Whether both have the same code.
    public static func == (lhs: SyncError, rhs: SyncError) -> Bool {
        lhs.code == rhs.code
    }

    /// Hashes the code only, consistent with ``==(_:_:)``.
    /// - Parameter hasher: The hasher.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
    }
}

extension SyncError: LocalizedError {
    /// A user-facing sentence for the code.
    public var errorDescription: String? { Self.messages[code]?.description ?? detail }
    /// What the user can do about it.
    public var recoverySuggestion: String? { Self.messages[code]?.suggestion ?? nil }
}

extension SyncError: CustomStringConvertible {
    /// The code and the developer detail, for logs.
    public var description: String { "SyncError.\(code): \(detail)" }
}
