import Foundation

/// Makes the identifiers of new records: users, posts, transactions.
///
/// Production code uses ``RandomIDGenerator``; tests inject
/// `SequentialIDGenerator` from TrainTesting so that IDs, and anything ordered by
/// them, are the same on every run.
///
/// ```swift
/// let ids: any IDGenerator = RandomIDGenerator()
/// let postID = ids.makeID()
/// ```
public protocol IDGenerator: Sendable {
    /// Returns a new identifier, different from every one returned before.
    func makeID() -> String
}

/// Random identifiers: lowercase UUID strings drawn from the system's random source.
public struct RandomIDGenerator: IDGenerator {
    /// Creates the generator.
    public init() {}

    /// Returns a random UUID string such as `"3f2b9c1e-…"`.
    public func makeID() -> String {
        UUID().uuidString.lowercased()
    }
}
