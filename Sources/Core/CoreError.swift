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
/// } catch let error as CoreError where error.code == .corrupt {
///     // Offer to move the file aside: RecordStore.Options(recovery: .quarantine)
/// }
/// ```
public struct CoreError: Error, Hashable, Sendable {
    /// What went wrong, as a value that new cases can be added to without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The stable name of the code, such as `"corrupt"`.
        public let name: String

        private init(_ name: String) { self.name = name }

        /// The file exists but is not an SQLite database (wrong header, random bytes).
        public static let notADatabase = Code("notADatabase")
        /// The file is an SQLite database whose pages are damaged.
        public static let corrupt = Code("corrupt")
        /// The file is shorter than its own header says: it was cut off.
        public static let truncated = Code("truncated")
        /// The file exists but holds zero bytes, so whatever it held is gone.
        public static let emptyFile = Code("emptyFile")
        /// The file is a valid SQLite database that another program wrote.
        public static let foreignDatabase = Code("foreignDatabase")
        /// The file was written by a newer version of the schema or of the engine.
        public static let newerSchema = Code("newerSchema")
        /// Another connection or process held the store locked longer than the busy timeout.
        public static let busy = Code("busy")
        /// The file or its directory could not be created, read or written.
        public static let io = Code("io")
        /// The store was closed; it accepts no more calls.
        public static let closed = Code("closed")
        /// A transaction object was used after its closure returned.
        public static let transactionEnded = Code("transactionEnded")
        /// The store was called from inside one of its own transaction closures.
        public static let nestedTransaction = Code("nestedTransaction")
        /// A migration's own code threw; the store was left at its previous version.
        public static let migrationFailed = Code("migrationFailed")
        /// The collection was never created by a migration of this store's schema.
        public static let unknownCollection = Code("unknownCollection")
        /// The schema's migration list is empty, out of order or has gaps.
        public static let invalidMigrations = Code("invalidMigrations")
        /// A stored value could not be decoded as the requested type.
        public static let undecodable = Code("undecodable")
        /// A value could not be encoded for storage.
        public static let unencodable = Code("unencodable")
        /// An argument was outside what the call accepts (an empty key, a negative length).
        public static let invalidArgument = Code("invalidArgument")
        /// SQLite reported a failure not covered by a more specific code.
        public static let sqlite = Code("sqlite")
        /// The platform's cryptographic library (CommonCrypto or libcrypto) reported a failure.
        public static let cryptography = Code("cryptography")

        /// The code's name.
        public var description: String { name }
    }

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
    /// Two errors are equal when their codes are, whatever their file and detail, so a test
    /// can write `#expect(throws: CoreError(.someCode))` against a real service.
    /// - Parameters:
    ///   - lhs: An error.
    ///   - rhs: Another error.
    /// - Returns: Whether both have the same code.
    public static func == (lhs: CoreError, rhs: CoreError) -> Bool {
        lhs.code == rhs.code
    }

    /// Hashes the code only, consistent with ``==(_:_:)``.
    /// - Parameter hasher: The hasher.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
    }
}

extension CoreError: LocalizedError {
    /// A user-facing description that names the file when there is one.
    public var errorDescription: String? {
        guard let file else { return detail }
        return "\(detail) (file: \(file.path))"
    }

    /// What the user or the app can do about it.
    public var recoverySuggestion: String? {
        switch code {
        case .notADatabase, .corrupt, .truncated, .emptyFile, .foreignDatabase:
            "Restore the file from a backup, or open it with the quarantine option to move it aside and start a new store."
        case .newerSchema:
            "This data was written by a newer version of the app. Update the app to open it."
        case .busy:
            "Another process is using the store. Try again when it has finished."
        case .io:
            "Check that the directory exists and is writable, and that the disk is not full."
        case .closed, .transactionEnded, .nestedTransaction:
            "Open the store again and repeat the operation inside a new transaction."
        default:
            nil
        }
    }
}

extension CoreError: CustomStringConvertible {
    /// The code followed by the description, for logs.
    public var description: String { "CoreError.\(code): \(errorDescription ?? detail)" }
}
