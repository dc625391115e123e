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
        /// The record's document is over the remote's size limit, counted in the bytes
        /// the remote counts; it was not saved.
        public static let recordTooLarge = Code("recordTooLarge")

        /// The remote sent a record that belongs to another user; nothing of its answer was stored.
        public static let foreignRecord = Code("foreignRecord")
        /// The remote sent a record under one ID whose document is another record's;
        /// nothing of its answer was stored.
        public static let mismatchedRecordID = Code("mismatchedRecordID")
        /// The remote sent a document this version cannot read — damaged, in a newer
        /// layout, or over the remote's own size limit; nothing of its answer was stored.
        public static let unreadableRecord = Code("unreadableRecord")
        /// The remote's page said more follow without moving on: a change-feed cursor
        /// that did not advance or does not cover its page, or a snapshot page that
        /// repeated records already read.
        public static let stalledCursor = Code("stalledCursor")
        /// The remote sent a page with more records than asked.
        public static let oversizedPage = Code("oversizedPage")
        /// The remote's answer contradicts itself or the request: a result count other
        /// than the writes sent, a version that does not follow the write's base, a
        /// deletion flag its document contradicts.
        public static let malformedAnswer = Code("malformedAnswer")
        /// The sync made as many remote calls as ``SyncConfiguration/maximumRemoteCalls``
        /// allows; what it finished is kept and the next sync goes on from there.
        public static let tooManyRemoteCalls = Code("tooManyRemoteCalls")
        /// A setting is out of its range, such as a negative latency; nothing was changed.
        public static let invalidConfiguration = Code("invalidConfiguration")

        /// The codes of answers the sync refused because the remote broke its contract.
        public static let remoteViolations: Set<Code> = [
            .foreignRecord, .mismatchedRecordID, .unreadableRecord, .stalledCursor, .oversizedPage, .malformedAnswer, .tooManyRemoteCalls,
        ]

        /// Whether the sync stopped because the remote broke its contract.
        public var isRemoteViolation: Bool { Self.remoteViolations.contains(self) }

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

    private static let messages: [Code: (description: String, suggestion: String?)] = {
        var messages: [Code: (description: String, suggestion: String?)] = [
            .notSignedIn: ("You are not signed in.", "Sign in to sync your plans."),
            .invalidRecord: ("This plan cannot be saved as it is.", "Check its name, dates and days per week."),
            .recordNotFound: ("This plan is no longer available.", "Pull to refresh."),
            .recordExists: ("This plan already exists.", nil),
            .notAuthorized: ("This plan belongs to another account.", nil),
            .noConflict: ("This plan has no conflict to resolve.", nil),
            .remoteUnavailable: ("Your plans could not be synced right now.", "Your changes are saved on this device and will sync later."),
            .cancelled: ("The sync was stopped.", "Your changes are saved on this device and will sync later."),
            .storage: ("Your plans on this device could not be read or saved.", "Restart the app. If this keeps happening, contact support."),
            .recordTooLarge: ("This plan is too large to sync.", "Shorten its notes or remove some workouts."),
            .invalidConfiguration: ("Sync is not set up correctly.", nil),
        ]
        for code in Code.remoteViolations {
            messages[code] = (
                "Your plans could not be synced: the server's answer was refused.",
                "Your changes are saved on this device. Try again later; if this keeps happening, contact support."
            )
        }
        return messages
    }()
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
