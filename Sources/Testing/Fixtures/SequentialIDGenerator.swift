import Foundation
import TrainCore

/// Deterministic identifiers for tests: `"id-000001"`, `"id-000002"`, ….
///
/// The number is zero-padded so that IDs sort in the order they were made.
///
/// ```swift
/// let ids = SequentialIDGenerator(prefix: "post-")
/// ids.makeID() // "post-000001"
/// ```
public final class SequentialIDGenerator: IDGenerator {
    /// The text before each number.
    public let prefix: String
    private let counter = Locked(0)

    /// Creates a generator whose first ID is `prefix` followed by `000001`.
    /// - Parameter prefix: The text before each number.
    public init(prefix: String = "id-") {
        self.prefix = prefix
    }

    /// Returns the next ID in sequence.
    public func makeID() -> String {
        let number = counter.withLock { value in
            value += 1
            return value
        }
        return prefix + String(format: "%06d", number)
    }
}
