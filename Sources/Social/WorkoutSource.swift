import Foundation
import TrainCore

/// A workout as a health store records it, shaped like HealthKit's `HKWorkout`: its
/// type, when it started and ended, its duration and distance, and the app or device
/// that recorded it.
public struct WorkoutRecord: Codable, Hashable, Sendable, Identifiable {
    /// The record's identifier in its store.
    public let id: UUID
    /// The kind of workout.
    public let type: WorkoutType
    /// When it started.
    public let start: Date
    /// When it ended.
    public let end: Date
    /// How long it lasted, pauses left out: at most `end - start`.
    public let duration: TimeInterval
    /// The distance covered, in meters; nil for a workout without one.
    public let distance: Double?
    /// The app or device that recorded it, such as `"Apple Watch"`.
    public let source: String

    /// Creates a record.
    /// - Parameters:
    ///   - id: The identifier; a new one by default.
    ///   - type: The kind of workout.
    ///   - start: When it started.
    ///   - end: When it ended.
    ///   - duration: How long it lasted, pauses left out; `end - start` by default.
    ///   - distance: The distance in meters, if any.
    ///   - source: The app or device that recorded it.
    public init(
        id: UUID = UUID(), type: WorkoutType, start: Date, end: Date, duration: TimeInterval? = nil, distance: Double? = nil, source: String
    ) {
        self.id = id
        self.type = type
        self.start = start
        self.end = end
        self.duration = duration ?? end.timeIntervalSince(start)
        self.distance = distance
        self.source = source
    }

    /// What a post shows of it.
    public var summary: WorkoutSummary { WorkoutSummary(type: type, duration: duration, distance: distance) }
}

/// What a post or an unlock shows of the workout behind it: its type, duration and
/// distance.
public struct WorkoutSummary: Codable, Hashable, Sendable {
    /// The kind of workout.
    public let type: WorkoutType
    /// How long it lasted, in seconds.
    public let duration: TimeInterval
    /// The distance covered, in meters; nil for a workout without one.
    public let distance: Double?

    /// Creates a summary.
    /// - Parameters:
    ///   - type: The kind of workout.
    ///   - duration: How long it lasted, in seconds.
    ///   - distance: The distance in meters, if any.
    public init(type: WorkoutType, duration: TimeInterval, distance: Double?) {
        self.type = type
        self.duration = duration
        self.distance = distance
    }
}

/// Where the feed learns of the user's workouts: HealthKit's workouts in an app, a
/// ``SimulatedWorkoutSource`` in tests and prototypes. With
/// ``SocialPolicy/unlockRequiresRecordedWorkout`` set, only a workout recorded today in
/// the source unlocks the feed.
///
/// ```swift
/// struct HealthKitWorkouts: WorkoutSource {
///     let store: HKHealthStore
///     func workouts(endingIn interval: DateInterval) async throws -> [WorkoutRecord] {
///         // An HKSampleQueryDescriptor over HKWorkout samples whose end date is in
///         // the interval, each mapped to a WorkoutRecord.
///     }
/// }
/// ```
public protocol WorkoutSource: Sendable {
    /// The workouts that ended in `interval`, newest end first.
    /// - Parameter interval: From its start, inclusive, to its end, inclusive.
    /// - Returns: The workouts.
    /// - Throws: ``SocialError`` `workoutsUnavailable` when the user did not allow access.
    func workouts(endingIn interval: DateInterval) async throws -> [WorkoutRecord]
}

/// A ``WorkoutSource`` a test or a prototype fills: workouts recorded with ``record(_:)``,
/// and access the user may deny, as HealthKit's can be.
public final class SimulatedWorkoutSource: WorkoutSource {
    private let state = Locked<(workouts: [WorkoutRecord], denied: Bool)>(([], false))

    /// Creates a source holding `workouts`.
    /// - Parameter workouts: The workouts recorded so far.
    public init(_ workouts: [WorkoutRecord] = []) {
        state.withLock { $0.workouts = workouts }
    }

    /// The workouts recorded, in the order they were.
    public var recordedWorkouts: [WorkoutRecord] { state.withLock { $0.workouts } }

    /// Records a workout, as a watch finishing one would.
    /// - Parameter workout: The workout.
    public func record(_ workout: WorkoutRecord) {
        state.withLock { $0.workouts.append(workout) }
    }

    /// Removes a workout, as a user deleting it in the Health app would.
    /// - Parameter id: Its identifier.
    public func remove(_ id: UUID) {
        state.withLock { $0.workouts.removeAll { $0.id == id } }
    }

    /// Denies or allows access to the workouts.
    /// - Parameter denied: Whether reads are `workoutsUnavailable`.
    public func setAccessDenied(_ denied: Bool) {
        state.withLock { $0.denied = denied }
    }

    public func workouts(endingIn interval: DateInterval) async throws -> [WorkoutRecord] {
        let (workouts, denied) = state.withLock { ($0.workouts, $0.denied) }
        guard !denied else { throw SocialError(.workoutsUnavailable, detail: "Access to the workouts was denied.") }
        return workouts.filter { interval.contains($0.end) }.sorted { $0.end > $1.end }
    }

    /// A week of sample workouts before `date`, one a day ending at 07:30 in `timeZone`
    /// — runs, rides, swims, strength and yoga — and a 10 km run that ended at `date`,
    /// so the feed unlocks today.
    /// - Parameters:
    ///   - date: Now.
    ///   - timeZone: The user's time zone.
    /// - Returns: A source holding them.
    public static func samples(before date: Date, in timeZone: TimeZone = .current) -> SimulatedWorkoutSource {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let kinds: [(WorkoutType, TimeInterval, Double?)] = [
            (.run, 2_700, 8_200), (.cycle, 3_600, 24_000), (.swim, 1_800, 1_500), (.strength, 2_400, nil), (.yoga, 1_800, nil),
        ]
        let today = calendar.startOfDay(for: date)
        var workouts: [WorkoutRecord] = []
        for day in 1...7 {
            guard let morning = calendar.date(byAdding: DateComponents(day: -day, hour: 7, minute: 30), to: today) else { continue }
            let (type, duration, distance) = kinds[day % kinds.count]
            workouts.append(
                WorkoutRecord(
                    type: type, start: morning.addingTimeInterval(-duration), end: morning, distance: distance, source: "Apple Watch"))
        }
        workouts.append(
            WorkoutRecord(type: .run, start: date.addingTimeInterval(-2_700), end: date, distance: 10_000, source: "Apple Watch"))
        return SimulatedWorkoutSource(workouts)
    }
}
