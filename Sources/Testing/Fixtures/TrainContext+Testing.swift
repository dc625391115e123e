import Foundation
import TrainCore

/// Contexts for tests.
extension TrainContext {
    /// A context for tests: a ``ManualClock`` that moves only when told, IDs that are
    /// the same on every run (`id-000001`, `id-000002`, …), and UTC.
    ///
    /// ```swift
    /// let clock = ManualClock()
    /// let services = TrainServices.inMemory(configuration: TrainServicesConfiguration(context: .test(clock: clock)))
    /// ```
    /// - Parameters:
    ///   - clock: The clock; a new ``ManualClock`` at its default start by default.
    ///   - ids: The IDs; ``SequentialIDGenerator`` from `id-000001` by default.
    ///   - timeZone: The user's time zone; UTC by default.
    /// - Returns: The context.
    public static func test(
        clock: any DateClock = ManualClock(), ids: any IDGenerator = .incrementing, timeZone: TimeZone = TrainContext.utc
    ) -> TrainContext {
        TrainContext(clock: clock, ids: ids, timeZone: { timeZone })
    }

    /// Coordinated Universal Time.
    public static var utc: TimeZone { TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0) ?? .current }
}

/// IDs that are the same on every run.
extension IDGenerator where Self == SequentialIDGenerator {
    /// IDs in sequence from `id-000001`: a new generator each time it is read.
    public static var incrementing: SequentialIDGenerator { SequentialIDGenerator() }
}
