import Foundation
import TrainCore
import TrainSocial

extension WorldSnapshot {
    /// What a post or an unlock shows of the workout behind it, whose type is theirs.
    public struct Workout: Codable, Hashable, Sendable {
        /// How long it lasted, in seconds.
        public var duration: TimeInterval
        /// The distance covered, in meters; none for a workout without one.
        public var distance: Double?

        /// Creates a workout.
        /// - Parameters:
        ///   - duration: How long it lasted, in seconds.
        ///   - distance: The distance in meters.
        public init(duration: TimeInterval, distance: Double? = nil) {
            self.duration = duration
            self.distance = distance
        }
    }

    /// A user's feed unlocked by a workout, until the start of the next day where it was
    /// done. Left out: `id` is made from `unlockDate` and the unlock's place in the list,
    /// `unlockDate` is now, `timeZone` the importing stack's, `workout` none. `expiresAt`,
    /// when given, is the start of the day after `unlockDate` in `timeZone`.
    public struct Unlock: Codable, Hashable, Sendable {
        /// The user.
        public var user: String
        /// The unlock's ID.
        public var id: UUID?
        /// The workout's type; `rest` only when the social policy lets a rest day unlock.
        public var workoutType: WorkoutType
        /// When it was unlocked.
        public var unlockDate: Date?
        /// The time zone whose day it lasts, such as `Europe/Paris`.
        public var timeZone: String?
        /// When it ends.
        public var expiresAt: Date?
        /// The workout a workout source recorded.
        public var workout: Workout?

        /// Creates an unlock; what is left nil takes its default.
        /// - Parameters:
        ///   - user: The user.
        ///   - workoutType: The workout's type.
        ///   - unlockDate: When it was unlocked.
        public init(user: String, workoutType: WorkoutType, unlockDate: Date? = nil) {
            self.user = user
            self.workoutType = workoutType
            self.unlockDate = unlockDate
        }
    }

    /// The unlocks: one a user at most, each one the feed would have made.
    func resolveUnlocks(users: Set<UserKey>, now: Date, configuration: TrainServicesConfiguration, into resolved: inout Resolved)
        throws(WorldSnapshotError)
    {
        var unlocked: Set<UserKey> = []
        for (index, unlock) in unlocks.enumerated() {
            var path: String { "unlocks[\(index)]" }
            try Self.reference(unlock.user, in: users, path: "\(path).user")
            guard unlocked.insert(UserKey(unlock.user)).inserted else {
                throw WorldSnapshotError(.duplicateID, path: "\(path).user", detail: "A user has one unlock at most.")
            }
            guard unlock.workoutType.isValid, unlock.workoutType != .rest || configuration.socialPolicy.restUnlocksFeed else {
                throw WorldSnapshotError(
                    .invalidValue, path: "\(path).workoutType",
                    detail: "A workout type is 1 to 64 letters, digits, '-' or '_'; rest if the policy allows.")
            }
            let date = unlock.unlockDate ?? now
            try Self.check(date, notAfter: now, path: "\(path).unlockDate")
            var zone = configuration.context.timeZone()
            if let identifier = unlock.timeZone {
                guard let known = TimeZone(identifier: identifier) else {
                    throw WorldSnapshotError(.invalidValue, path: "\(path).timeZone", detail: "The time zone is not one this system knows.")
                }
                zone = known
            }
            // An unlock lasts the rest of its day where it was made, as the feed makes one.
            let expiresAt: Date
            do {
                expiresAt = try LocalSocialFeedService.startOfNextDay(after: date, in: zone)
            } catch {
                throw WorldSnapshotError(.invalidValue, path: "\(path).unlockDate", detail: error.detail)
            }
            guard unlock.expiresAt.map({ $0 == expiresAt }) ?? true, expiresAt.timeIntervalSince1970 <= Self.latestDate else {
                throw WorldSnapshotError(
                    .invalidValue, path: "\(path).expiresAt",
                    detail: "An unlock ends at the start of the next day in its time zone, before the year 10000.")
            }
            let workout = try unlock.workout.map { workout throws(WorldSnapshotError) in
                try Self.summary(workout, of: unlock.workoutType, path: "\(path).workout")
            }
            resolved.social.unlocks.append(
                FeedUnlock(
                    id: unlock.id ?? Self.madeID(at: date, index: index, salt: 0x55), userID: unlock.user, workoutType: unlock.workoutType,
                    unlockDate: date, timeZoneIdentifier: zone.identifier, expiresAt: expiresAt, workout: workout))
        }
    }

    /// The summary of a workout of `type`: a duration of 0 to 7 days, a distance of 0 to
    /// 100,000 km or none.
    static func summary(_ workout: Workout, of type: WorkoutType, path: @autoclosure () -> String) throws(WorldSnapshotError) -> WorkoutSummary {
        guard workout.duration.isFinite, (0...604_800).contains(workout.duration),
            workout.distance.map({ $0.isFinite && (0...100_000_000).contains($0) }) ?? true
        else {
            throw WorldSnapshotError(.invalidValue, path: path(), detail: "A workout lasts 0 to 7 days and covers 0 to 100,000 km.")
        }
        return WorkoutSummary(type: type, duration: workout.duration, distance: workout.distance)
    }
}
