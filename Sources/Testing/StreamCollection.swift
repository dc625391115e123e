import TrainCore

/// Reading a stream in a test: take its first values, or wait for one that
/// satisfies a condition, with a watchdog of real time so that code that never
/// sends fails the test instead of hanging it.
///
/// The watchdog is 30 seconds unless a call gives another: a value that comes late
/// on a loaded machine (a CI runner, the thread sanitizer) still counts. Where the
/// test is that a value does not come, give a short `limit`.
///
/// ```swift
/// let tiers = subscriptions.tierChanges()
/// try await subscriptions.purchase("com.train.pro.monthly")
/// #expect(await tiers.collect(2) == [.free, .pro])
/// #expect(await auth.authStateChanges().firstValue(where: { $0 == nil }) != nil)
/// ```
extension AsyncStream where Element: Sendable {
    /// The first `count` values, or fewer if the stream finishes or `limit` of real
    /// time passes first.
    /// - Parameters:
    ///   - count: How many values to take.
    ///   - limit: The watchdog: how long to wait at most, in real time.
    /// - Returns: The values, in order.
    public func collect(_ count: Int, within limit: Duration = .seconds(30)) async -> [Element] {
        guard count > 0 else { return [] }
        let values = Locked<[Element]>([])
        _ = await withWatchdog(limit, default: ()) {
            for await value in self {
                let taken = values.withLock { values in
                    values.append(value)
                    return values.count
                }
                if taken == count { break }
            }
        }
        return values.withLock { $0 }
    }

    /// The first value that satisfies `condition`, or nil if the stream finishes or
    /// `limit` of real time passes first.
    /// - Parameters:
    ///   - condition: What the value must satisfy.
    ///   - limit: The watchdog: how long to wait at most, in real time.
    /// - Returns: The value, or nil.
    public func firstValue(where condition: @escaping @Sendable (Element) -> Bool, within limit: Duration = .seconds(30)) async -> Element? {
        await withWatchdog(limit, default: nil) {
            for await value in self where condition(value) { return value }
            return nil
        }
    }

    /// Runs `body`, or gives up after `limit` with `fallback`, cancelling `body`.
    private func withWatchdog<Result: Sendable>(
        _ limit: Duration, default fallback: Result,
        _ body: @escaping @Sendable () async -> Result
    ) async -> Result {
        await withTaskGroup(of: Result?.self) { group in
            group.addTask { await body() }
            group.addTask {
                try? await Task.sleep(for: limit)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? fallback
        }
    }
}
