import Foundation

/// A fresh directory under the system's temporary directory, removed with
/// everything in it when the value is released. For tests of file-backed services.
///
/// ```swift
/// let directory = try TemporaryDirectory()
/// let store = try RecordStore(.file(directory.url.appendingPathComponent("app.sqlite")), schema: schema)
/// ```
public final class TemporaryDirectory: Sendable {
    /// The directory.
    public let url: URL

    /// Creates a new, empty directory with a unique name.
    /// - Throws: The file system's error if the directory cannot be created.
    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("trainkit-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A URL for `name` inside the directory.
    /// - Parameter name: The file's name.
    /// - Returns: The file's URL.
    public func file(_ name: String) -> URL {
        url.appendingPathComponent(name)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}
