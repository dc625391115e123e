import Foundation

/// A deterministic random number generator (SplitMix64) for seeded tests: the same
/// seed gives the same sequence on every run and platform, so a failing seed can be
/// replayed.
///
/// ```swift
/// var random = SeededRandomNumberGenerator(seed: 42)
/// let shuffled = [1, 2, 3].shuffled(using: &random)   // the same order every run
/// ```
public struct SeededRandomNumberGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator.
    /// - Parameter seed: The seed.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The seeds a property test runs: `0..<count` unless the environment asks for
    /// more with `TRAINKIT_SEEDS=<count>`, or replays one failing seed with
    /// `TRAINKIT_SEED=<seed>`. A value that is not a number is ignored.
    ///
    /// ```swift
    /// for seed in SeededRandomNumberGenerator.seeds(default: 20) {
    ///     var random = SeededRandomNumberGenerator(seed: seed)
    ///     // … on a failure, name the seed: "seed \(seed): replay with TRAINKIT_SEED=\(seed)"
    /// }
    /// ```
    /// - Parameters:
    ///   - count: How many seeds to run when the environment does not say.
    ///   - environment: The variables to read; the process's by default.
    /// - Returns: The seeds, in order.
    public static func seeds(default count: Int, environment: [String: String] = ProcessInfo.processInfo.environment) -> [UInt64] {
        if let seed = environment["TRAINKIT_SEED"].flatMap({ UInt64($0) }) { return [seed] }
        let total = environment["TRAINKIT_SEEDS"].flatMap { Int($0) } ?? count
        return (0..<UInt64(max(total, 0))).map { $0 }
    }
}
