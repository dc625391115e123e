/// What a scripted fake method returns: one result for every call (sticky), one for
/// the next call only, or a sequence, one result a call. Once a one-shot script or
/// a sequence is used up, the method is unscripted again.
///
/// ```swift
/// auth.script(.signInWithApple, .returning(user))                       // every call
/// auth.script(.deleteAccount, .sequence([.failure(AuthenticationError(.requiresRecentLogin)), .success(receipt)]))
/// subscriptions.script(.purchase, .once(.success(.pending)))            // the next call only
/// ```
public struct FakeScript<Output: Sendable>: Sendable {
    /// The results, in the order calls take them.
    let results: [Result<Output, any Error>]
    /// Whether the one result serves every call.
    let isSticky: Bool

    /// Every call returns `value`.
    /// - Parameter value: The value.
    /// - Returns: The script.
    public static func returning(_ value: Output) -> Self { .always(.success(value)) }

    /// Every call throws `error`.
    /// - Parameter error: The error.
    /// - Returns: The script.
    public static func throwing(_ error: any Error) -> Self { .always(.failure(error)) }

    /// Every call has `result`.
    /// - Parameter result: The value or the error.
    /// - Returns: The script.
    public static func always(_ result: Result<Output, any Error>) -> Self { FakeScript(results: [result], isSticky: true) }

    /// The next call has `result`; later calls are unscripted.
    /// - Parameter result: The value or the error.
    /// - Returns: The script.
    public static func once(_ result: Result<Output, any Error>) -> Self { FakeScript(results: [result], isSticky: false) }

    /// Each call takes the next result; calls after the last are unscripted.
    /// - Parameter results: The results, in order.
    /// - Returns: The script.
    public static func sequence(_ results: [Result<Output, any Error>]) -> Self { FakeScript(results: results, isSticky: false) }
}

extension FakeScript where Output == Void {
    /// Every call succeeds.
    public static var succeeding: Self { .returning(()) }
}
