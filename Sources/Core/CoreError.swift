import Foundation

/// The one error type of TrainCore: every failure of the storage engine and of the
/// core utilities is a `CoreError` with a ``Code`` a caller can switch on.
///
/// Errors about a file name it in ``file`` and in their description, so a log line
/// or an alert tells which store is affected.
///
/// ```swift
/// do {
///     let store = try RecordStore(.file(url), schema: schema)
/// } catch CoreError.corrupt {
///     // Offer to move the file aside: RecordStore.Options(recovery: .quarantine)
/// }
/// ```
public struct CoreError: TrainError {
    /// What went wrong; new codes can be added without breaking callers.
    public typealias Code = TrainErrorCode<CoreError>

    /// What went wrong.
    public let code: Code
    /// The file concerned, when the error is about one.
    public let file: URL?
    /// A plain-words detail of this occurrence (never contains stored values).
    public let detail: String

    /// Creates an error.
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - file: The file concerned, if any.
    ///   - detail: A plain-words detail of this occurrence; the code's name if omitted.
    public init(_ code: Code, file: URL? = nil, detail: String? = nil) {
        self.code = code
        self.file = file
        self.detail = detail ?? "The store reported \(code.name)."
    }
}

extension CoreError {
    /// A user-facing description that names the file when there is one.
    public var errorDescription: String? {
        guard let file else { return detail }
        return "\(detail) (file: \(file.path))"
    }

    /// The code followed by the description, for logs.
    public var description: String { "CoreError.\(code): \(errorDescription ?? detail)" }
}

/// The codes of ``CoreError``.
extension TrainErrorCode where Failure == CoreError {
    /// The file exists but is not an SQLite database (wrong header, random bytes).
    public static var notADatabase: Self {
        Self(
            "notADatabase", message: "The file is not a database.",
            recoverySuggestion: "Restore the file from a backup, or open it with the quarantine option to move it aside and start a new store.")
    }
    /// The file is an SQLite database whose pages are damaged.
    public static var corrupt: Self {
        Self(
            "corrupt", message: "The database file is damaged.",
            recoverySuggestion: "Restore the file from a backup, or open it with the quarantine option to move it aside and start a new store.")
    }
    /// The file is shorter than its own header says: it was cut off.
    public static var truncated: Self {
        Self(
            "truncated", message: "The database file was cut off.",
            recoverySuggestion: "Restore the file from a backup, or open it with the quarantine option to move it aside and start a new store.")
    }
    /// The file exists but holds zero bytes, so whatever it held is gone.
    public static var emptyFile: Self {
        Self(
            "emptyFile", message: "The database file is empty.",
            recoverySuggestion: "Restore the file from a backup, or open it with the quarantine option to move it aside and start a new store.")
    }
    /// The file is a valid SQLite database that another program wrote.
    public static var foreignDatabase: Self {
        Self(
            "foreignDatabase", message: "The file is a database of another program.",
            recoverySuggestion: "Restore the file from a backup, or open it with the quarantine option to move it aside and start a new store.")
    }
    /// The file was written by a newer version of the schema or of the engine.
    public static var newerSchema: Self {
        Self(
            "newerSchema", message: "The data was written by a newer version.",
            recoverySuggestion: "This data was written by a newer version of the app. Update the app to open it.")
    }
    /// Another connection or process held the store locked longer than the busy timeout.
    public static var busy: Self {
        Self(
            "busy", message: "The store is in use by another process.",
            recoverySuggestion: "Another process is using the store. Try again when it has finished.")
    }
    /// The file or its directory could not be created, read or written.
    public static var io: Self {
        Self(
            "io", message: "The store could not be read or written.",
            recoverySuggestion: "Check that the directory exists and is writable, and that the disk is not full.")
    }
    /// The store was closed; it accepts no more calls.
    public static var closed: Self {
        Self("closed", message: "The store is closed.", recoverySuggestion: "Open the store again and repeat the operation inside a new transaction.")
    }
    /// A transaction object was used after its closure returned.
    public static var transactionEnded: Self {
        Self(
            "transactionEnded", message: "The transaction has already ended.",
            recoverySuggestion: "Open the store again and repeat the operation inside a new transaction.")
    }
    /// The store was called from inside one of its own transaction closures.
    public static var nestedTransaction: Self {
        Self(
            "nestedTransaction", message: "A transaction cannot start inside another.",
            recoverySuggestion: "Open the store again and repeat the operation inside a new transaction.")
    }
    /// A migration's own code threw; the store was left at its previous version.
    public static var migrationFailed: Self { Self("migrationFailed", message: "The data could not be upgraded.") }
    /// The collection was never created by a migration of this store's schema.
    public static var unknownCollection: Self { Self("unknownCollection", message: "The store has no such collection.") }
    /// The schema's migration list is empty, out of order or has gaps.
    public static var invalidMigrations: Self { Self("invalidMigrations", message: "The store's upgrade steps are not in order.") }
    /// A stored value could not be decoded as the requested type.
    public static var undecodable: Self { Self("undecodable", message: "Stored data could not be read.") }
    /// A value could not be encoded for storage.
    public static var unencodable: Self { Self("unencodable", message: "The data could not be saved.") }
    /// An argument was outside what the call accepts (an empty key, a negative length).
    public static var invalidArgument: Self { Self("invalidArgument", message: "A value given is not valid.") }
    /// SQLite reported a failure not covered by a more specific code.
    public static var sqlite: Self { Self("sqlite", message: "The database reported a failure.") }
    /// The platform's cryptographic library (CommonCrypto or libcrypto) reported a failure.
    public static var cryptography: Self { Self("cryptography", message: "The cryptographic library reported a failure.") }
}
