import Foundation

/// What every service reads from the world outside it: the clock, the maker of new
/// IDs, and the user's time zone. One value, handed the same way to each service and
/// to a whole stack.
///
/// Production code uses ``live``; tests use `TrainContext.test(…)` from TrainTesting,
/// on a `ManualClock` with IDs that are the same on every run:
///
/// ```swift
/// let context = TrainContext(clock: SystemClock(), ids: .random, timeZone: { TimeZone.current })
/// let now = context.clock.now
/// ```
public struct TrainContext: Sendable {
    /// The clock every rule that depends on time reads.
    public var clock: any DateClock
    /// Makes the identifiers of new users, records and sessions.
    public var ids: any IDGenerator
    /// The user's time zone, read each time it matters (a workout unlocks the feed
    /// until midnight there), so a change of the device's zone is seen at once.
    public var timeZone: @Sendable () -> TimeZone

    /// Creates a context; every part is the live one unless given.
    /// - Parameters:
    ///   - clock: The system clock by default.
    ///   - ids: Random UUIDs by default.
    ///   - timeZone: The device's current time zone by default.
    public init(
        clock: any DateClock = SystemClock(), ids: any IDGenerator = .random,
        timeZone: @escaping @Sendable () -> TimeZone = { TimeZone.current }
    ) {
        self.clock = clock
        self.ids = ids
        self.timeZone = timeZone
    }

    /// The system clock, random IDs and the device's time zone.
    public static var live: TrainContext { TrainContext() }
}

/// Random IDs, the live ones.
extension IDGenerator where Self == RandomIDGenerator {
    /// Random identifiers: lowercase UUID strings.
    public static var random: RandomIDGenerator { RandomIDGenerator() }
}

/// The parts of a context a configuration was given through its deprecated `clock`,
/// `ids` and `timeZone`, kept for a release so apps built on them still run as they
/// did: what is set here overrides the service's context.
package struct LegacyContext: Sendable {
    package var clock: (any DateClock)?
    package var ids: (any IDGenerator)?
    package var timeZone: (@Sendable () -> TimeZone)?

    package init(clock: (any DateClock)? = nil, ids: (any IDGenerator)? = nil, timeZone: (@Sendable () -> TimeZone)? = nil) {
        self.clock = clock
        self.ids = ids
        self.timeZone = timeZone
    }

    /// All of `context`: what a service hands its configuration, so the deprecated
    /// `clock`, `ids` and `timeZone` of the configuration it shows are its own.
    package init(_ context: TrainContext) {
        self.init(clock: context.clock, ids: context.ids, timeZone: context.timeZone)
    }

    /// `context` with what was set here in place of its own.
    package func applied(to context: TrainContext) -> TrainContext {
        var applied = context
        if let clock { applied.clock = clock }
        if let ids { applied.ids = ids }
        if let timeZone { applied.timeZone = timeZone }
        return applied
    }
}
