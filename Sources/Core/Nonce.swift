/// Cryptographically random nonces, such as the raw nonce of a Sign in with Apple
/// request whose SHA-256 travels in the request.
///
/// ```swift
/// let raw = try Nonce.random()                       // 32 URL-safe characters
/// let seeded = try Nonce.random(length: 16, using: &generator)
/// ```
public enum Nonce {
    /// The 64 URL-safe characters nonces are drawn from, each equally likely.
    public static let alphabet: [Character] = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_")

    /// The length used when none is given: 32 characters, 192 bits of randomness.
    public static let defaultLength = 32

    /// The longest nonce made: 4,096 characters.
    public static let maximumLength = 4096

    /// Returns a nonce drawn from the system's cryptographically secure generator.
    /// - Parameter length: The number of characters, 1 to ``maximumLength``.
    /// - Returns: A string of `length` characters from ``alphabet``.
    /// - Throws: ``TrainErrorCode/invalidArgument`` when `length` is outside 1...``maximumLength``.
    public static func random(length: Int = defaultLength) throws(CoreError) -> String {
        var generator = SystemRandomNumberGenerator()
        return try random(length: length, using: &generator)
    }

    /// Returns a nonce drawn from `generator`; tests pass a seeded one.
    /// - Parameters:
    ///   - length: The number of characters, 1 to ``maximumLength``.
    ///   - generator: The source of randomness.
    /// - Returns: A string of `length` characters from ``alphabet``.
    /// - Throws: ``TrainErrorCode/invalidArgument`` when `length` is outside 1...``maximumLength``.
    public static func random<G: RandomNumberGenerator>(length: Int, using generator: inout G) throws(CoreError) -> String {
        guard (1...maximumLength).contains(length) else {
            throw CoreError(.invalidArgument, detail: "A nonce has 1 to \(maximumLength) characters; \(length) was asked for.")
        }
        var characters: [Character] = []
        characters.reserveCapacity(length)
        for _ in 0..<length {
            characters.append(alphabet[Int.random(in: 0..<alphabet.count, using: &generator)])
        }
        return String(characters)
    }
}
