import Foundation
import TrainCore

/// The one error type of TrainSync. Each code has a user-facing description and
/// recovery suggestion an app can show as is.
///
/// ```swift
/// do {
///     try await plans.sync()
/// } catch SyncError.remoteUnavailable {
///     // Nothing is lost: the edits stay queued for the next sync.
/// }
/// ```
public struct SyncError: TrainError {
    /// What went wrong; new codes can be added without breaking callers.
    public typealias Code = TrainErrorCode<SyncError>

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
        self.detail = detail ?? code.message
    }
}

/// The codes of ``SyncError``.
extension TrainErrorCode where Failure == SyncError {
    /// The call needs a signed-in user and there is none, or the user changed
    /// during the call.
    public static var notSignedIn: Self { Self("notSignedIn", message: "You are not signed in.", recoverySuggestion: "Sign in to sync your plans.") }
    /// The record breaks a rule of its type (an empty name, an end before the start).
    public static var invalidRecord: Self {
        Self("invalidRecord", message: "This plan cannot be saved as it is.", recoverySuggestion: "Check its name, dates and days per week.")
    }
    /// No such record on this device, or it was deleted.
    public static var recordNotFound: Self {
        Self("recordNotFound", message: "This plan is no longer available.", recoverySuggestion: "Pull to refresh.")
    }
    /// A record with this ID already exists on this device.
    public static var recordExists: Self { Self("recordExists", message: "This plan already exists.") }
    /// The record belongs to another user.
    public static var notAuthorized: Self { Self("notAuthorized", message: "This plan belongs to another account.") }
    /// The record has no conflict waiting for a choice.
    public static var noConflict: Self { Self("noConflict", message: "This plan has no conflict to resolve.") }
    /// The remote could not be reached or failed; every edit stays queued.
    public static var remoteUnavailable: Self {
        Self(
            "remoteUnavailable", message: "Your plans could not be synced right now.",
            recoverySuggestion: "Your changes are saved on this device and will sync later.")
    }
    /// The sync was cancelled; what it finished is kept, the rest stays queued.
    public static var cancelled: Self {
        Self("cancelled", message: "The sync was stopped.", recoverySuggestion: "Your changes are saved on this device and will sync later.")
    }
    /// The sync data on this device could not be read or written.
    public static var storage: Self {
        Self(
            "storage", message: "Your plans on this device could not be read or saved.",
            recoverySuggestion: "Restart the app. If this keeps happening, contact support.")
    }
    /// The record's document is over the remote's size limit, counted in the bytes
    /// the remote counts; it was not saved.
    public static var recordTooLarge: Self {
        Self("recordTooLarge", message: "This plan is too large to sync.", recoverySuggestion: "Shorten its notes or remove some workouts.")
    }
    /// The remote sent a record that belongs to another user; nothing of its answer was stored.
    public static var foreignRecord: Self {
        Self(
            "foreignRecord", message: "Your plans could not be synced: the server's answer was refused.",
            recoverySuggestion: "Your changes are saved on this device. Try again later; if this keeps happening, contact support.")
    }
    /// The remote sent a record under one ID whose document is another record's;
    /// nothing of its answer was stored.
    public static var mismatchedRecordID: Self {
        Self(
            "mismatchedRecordID", message: "Your plans could not be synced: the server's answer was refused.",
            recoverySuggestion: "Your changes are saved on this device. Try again later; if this keeps happening, contact support.")
    }
    /// The remote sent a document this version cannot read — damaged, in a newer
    /// layout, or over the remote's own size limit; nothing of its answer was stored.
    public static var unreadableRecord: Self {
        Self(
            "unreadableRecord", message: "Your plans could not be synced: the server's answer was refused.",
            recoverySuggestion: "Your changes are saved on this device. Try again later; if this keeps happening, contact support.")
    }
    /// The remote's page said more follow without moving on: a change-feed cursor
    /// that did not advance or does not cover its page, or a snapshot page that
    /// repeated records already read.
    public static var stalledCursor: Self {
        Self(
            "stalledCursor", message: "Your plans could not be synced: the server's answer was refused.",
            recoverySuggestion: "Your changes are saved on this device. Try again later; if this keeps happening, contact support.")
    }
    /// The remote sent a page with more records than asked.
    public static var oversizedPage: Self {
        Self(
            "oversizedPage", message: "Your plans could not be synced: the server's answer was refused.",
            recoverySuggestion: "Your changes are saved on this device. Try again later; if this keeps happening, contact support.")
    }
    /// The remote's answer contradicts itself or the request: a result count other
    /// than the writes sent, a version that does not follow the write's base, a
    /// deletion flag its document contradicts.
    public static var malformedAnswer: Self {
        Self(
            "malformedAnswer", message: "Your plans could not be synced: the server's answer was refused.",
            recoverySuggestion: "Your changes are saved on this device. Try again later; if this keeps happening, contact support.")
    }
    /// The sync made as many remote calls as ``SyncConfiguration/maximumRemoteCalls``
    /// allows; what it finished is kept and the next sync goes on from there.
    public static var tooManyRemoteCalls: Self {
        Self(
            "tooManyRemoteCalls", message: "Your plans could not be synced: the server's answer was refused.",
            recoverySuggestion: "Your changes are saved on this device. Try again later; if this keeps happening, contact support.")
    }
    /// A setting is out of its range, such as a negative latency; nothing was changed.
    public static var invalidConfiguration: Self { Self("invalidConfiguration", message: "Sync is not set up correctly.") }

    /// The codes of answers the sync refused because the remote broke its contract.
    public static var remoteViolations: Set<Self> {
        [.foreignRecord, .mismatchedRecordID, .unreadableRecord, .stalledCursor, .oversizedPage, .malformedAnswer, .tooManyRemoteCalls]
    }

    /// Whether the sync stopped because the remote broke its contract.
    public var isRemoteViolation: Bool { Self.remoteViolations.contains(self) }
}
