import Foundation

/// Where a service keeps its records: in memory, or in a file that survives a
/// relaunch. Every TrainKit service and ``RecordStore`` takes one.
///
/// ```swift
/// let auth = try LocalAuthService(storage: .file(directory.appendingPathComponent("app.sqlite")))
/// let preview = try LocalAuthService(storage: .inMemory)
/// let careful = try RecordStore(.file(url, options: .init(recovery: .quarantine)), schema: schema)
/// ```
///
/// The in-memory and file-backed variants run the same logic and return the same
/// results; they differ only in where the bytes live.
public enum StorageLocation: Sendable {
    /// Records live in memory and are gone when the last reference goes: for SwiftUI
    /// previews, prototypes and tests.
    case inMemory
    /// Records live in an SQLite file (write-ahead log, owner-only permissions). Several
    /// services may share one file; each keeps its collections under its own schema.
    /// - Parameters:
    ///   - url: The database file; its directory is created if needed.
    ///   - options: Recovery from a bad file, durability, busy timeout, integrity check, memory map.
    case file(URL, options: RecordStore.Options = RecordStore.Options())

    /// The file, or nil in memory.
    public var file: URL? {
        if case .file(let url, _) = self { url } else { nil }
    }
}
