import Foundation
import TrainCore

/// Why a world's snapshot was not read or imported, with the path of the first thing
/// wrong inside the document, as `posts[2].author`. Nothing is imported when one is thrown.
///
/// ```swift
/// do {
///     let services = try TrainServices.inMemory(from: try WorldSnapshot(json: data))
/// } catch let error as WorldSnapshotError {
///     print(error.path, error.detail)     // likes[0].post: no post has the ID …
/// }
/// ```
public struct WorldSnapshotError: TrainError {
    /// What went wrong; new codes can be added without breaking callers.
    public typealias Code = TrainErrorCode<WorldSnapshotError>

    /// What went wrong.
    public let code: Code
    /// Where in the document: keys and list positions from its top, as `users[1].id`;
    /// empty for the document as a whole.
    public let path: String
    /// A detail for developers and logs.
    public let detail: String

    /// Creates an error.
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - path: Where in the document.
    ///   - detail: A detail for developers; defaults to the code's sentence.
    public init(_ code: Code, path: String = "", detail: String? = nil) {
        self.code = code
        self.path = path
        self.detail = detail.map { path.isEmpty ? $0 : "\(path): \($0)" } ?? code.message
    }
}

/// The codes of ``WorldSnapshotError``.
extension TrainErrorCode where Failure == WorldSnapshotError {
    /// The document is not JSON of the format, or a field has the wrong type.
    public static var unreadable: Self { Self("unreadable", message: "The world's file could not be read.") }
    /// The document is of a format version this library does not read.
    public static var unsupportedVersion: Self {
        Self("unsupportedVersion", message: "The world's file was written by another version of the app.")
    }
    /// The document is larger than ``WorldSnapshot/maximumSize``.
    public static var tooLarge: Self { Self("tooLarge", message: "The world's file is too large.") }
    /// Two entries of a list have one ID, or one relation is listed twice.
    public static var duplicateID: Self { Self("duplicateID", message: "The world's file lists something twice.") }
    /// An entry names a user, post or product the document or the configuration does not have.
    public static var danglingReference: Self {
        Self("danglingReference", message: "The world's file refers to something it does not contain.")
    }
    /// A count disagrees with the list it counts.
    public static var countMismatch: Self { Self("countMismatch", message: "A count in the world's file disagrees with its list.") }
    /// A value the services would refuse: an empty ID, text too long, a user following
    /// themselves, a follow across a block.
    public static var invalidValue: Self { Self("invalidValue", message: "The world's file holds a value that is not allowed.") }
    /// The stack to import into already holds data, or the import could not write it.
    public static var notImported: Self { Self("notImported", message: "The world could not be imported.") }
}
