import Foundation
import TrainCore
import TrainSync

extension WorldSnapshot {
    /// A training plan as the remote holds it, the last version a device uploaded. Left
    /// out: `id` is made from `startDate` and the plan's place in the list, `notes` are
    /// none, `daysPerWeek` is the number of workouts between 1 and 7, `isCompleted`
    /// false, `weeklyWorkouts` none, `lastModified` now.
    public struct Plan: Codable, Hashable, Sendable {
        /// The plan's ID.
        public var id: UUID?
        /// The user whose plan it is.
        public var user: String
        /// The name, 1 to 200 characters, trimmed.
        public var name: String
        /// Free notes, at most 10,000 characters.
        public var notes: String?
        /// The first day of the plan.
        public var startDate: Date
        /// The last day of the plan; not before `startDate`.
        public var endDate: Date
        /// Training days a week, 1 to 7.
        public var daysPerWeek: Int?
        /// Whether the athlete finished the plan.
        public var isCompleted: Bool?
        /// The week's workouts, at most 50.
        public var weeklyWorkouts: [Workout]?
        /// When a device last saved it.
        public var lastModified: Date?

        /// Creates a plan; what is left nil takes its default.
        /// - Parameters:
        ///   - id: The plan's ID.
        ///   - user: The user whose plan it is.
        ///   - name: The name.
        ///   - startDate: The first day.
        ///   - endDate: The last day.
        ///   - weeklyWorkouts: The week's workouts.
        public init(id: UUID? = nil, user: String, name: String, startDate: Date, endDate: Date, weeklyWorkouts: [Workout]? = nil) {
            self.id = id
            self.user = user
            self.name = name
            self.startDate = startDate
            self.endDate = endDate
            self.weeklyWorkouts = weeklyWorkouts
        }

        /// One workout of a plan's week. Left out: `id` is made from the plan's and the
        /// workout's places in their lists.
        public struct Workout: Codable, Hashable, Sendable {
            /// The workout's ID, unique in its plan.
            public var id: UUID?
            /// What to do, such as "Easy run".
            public var title: String
            /// How long it takes, 1 to 1,440 minutes.
            public var minutes: Int

            /// Creates a workout.
            /// - Parameters:
            ///   - id: The workout's ID.
            ///   - title: What to do.
            ///   - minutes: How long it takes.
            public init(id: UUID? = nil, title: String, minutes: Int) {
                self.id = id
                self.title = title
                self.minutes = minutes
            }
        }
    }
}

extension WorldSnapshot.Plan {
    /// The plan as the document writes `plan`, every field given.
    init(_ plan: TrainingPlan) {
        self.init(
            id: plan.id, user: plan.userID, name: plan.name, startDate: plan.startDate, endDate: plan.endDate,
            weeklyWorkouts: plan.weeklyWorkouts.map { .init(id: $0.id, title: $0.title, minutes: $0.minutes) })
        notes = plan.notes
        daysPerWeek = plan.daysPerWeek
        isCompleted = plan.isCompleted
        lastModified = plan.lastModified
    }
}

extension WorldSnapshot {
    /// A plan's deletion made on the stack's device and not uploaded yet. Left out:
    /// `deletedAt` is now.
    public struct PlanDeletion: Codable, Hashable, Sendable {
        /// The user whose plan it was.
        public var user: String
        /// The plan's ID.
        public var id: UUID
        /// When the device deleted it.
        public var deletedAt: Date?

        /// Creates a deletion.
        /// - Parameters:
        ///   - user: The user whose plan it was.
        ///   - id: The plan's ID.
        ///   - deletedAt: When the device deleted it.
        public init(user: String, id: UUID, deletedAt: Date? = nil) {
            self.user = user
            self.id = id
            self.deletedAt = deletedAt
        }
    }

    /// A value of a plan's field that lost a conflict on the stack's device, with the
    /// value that won. Left out: `resolvedAt` is now.
    public struct PlanConflict: Codable, Hashable, Sendable {
        /// The user whose plan it is.
        public var user: String
        /// The plan's ID; the plan may have been deleted since.
        public var plan: UUID
        /// The field's name, as the plan's JSON names it, such as `name`.
        public var field: String
        /// The value that lost, as JSON text: `"Spring 10k"`, `3`, `null`.
        public var losingValue: String
        /// The value that won, as JSON text.
        public var winningValue: String
        /// When the conflict was resolved.
        public var resolvedAt: Date?

        /// Creates a conflict's entry; what is left nil takes its default.
        /// - Parameters:
        ///   - user: The user whose plan it is.
        ///   - plan: The plan's ID.
        ///   - field: The field's name.
        ///   - losingValue: The value that lost, as JSON text.
        ///   - winningValue: The value that won, as JSON text.
        ///   - resolvedAt: When the conflict was resolved.
        public init(user: String, plan: UUID, field: String, losingValue: String, winningValue: String, resolvedAt: Date? = nil) {
            self.user = user
            self.plan = plan
            self.field = field
            self.losingValue = losingValue
            self.winningValue = winningValue
            self.resolvedAt = resolvedAt
        }
    }

    /// A plan's key: its user, by the ID's bytes, and its ID. The remote and a device
    /// keep each user's plans apart, so two users may have plans of one ID.
    struct PlanKey: Hashable {
        var user: UserKey
        var id: UUID

        init(_ user: String, _ id: UUID) {
            self.user = UserKey(user)
            self.id = id
        }
    }

    /// The remote's plans, then the device's edits and deletions: each plan one the
    /// services would store, of a user of the document; a user's plan is edited or
    /// deleted once, a deletion dated to the millisecond, as a device's clock reads.
    func resolvePlans(users: Set<UserKey>, now: Date, into resolved: inout Resolved) throws(WorldSnapshotError) {
        resolved.plans = try Self.resolve(plans, named: "plans", salt: 0x50, users: users, now: now)
        let edited = try Self.resolve(devicePlans, named: "devicePlans", salt: 0x44, users: users, now: now)
        var keys = Set(edited.map { PlanKey($0.userID, $0.id) })
        resolved.deviceEdits = edited.map { QueuedEdit(userID: $0.userID, id: $0.id, record: $0, deletedAt: nil) }
        for (index, deletion) in devicePlanDeletions.enumerated() {
            let path = "devicePlanDeletions[\(index)]"
            try Self.reference(deletion.user, in: users, path: "\(path).user")
            guard keys.insert(PlanKey(deletion.user, deletion.id)).inserted else {
                throw WorldSnapshotError(.duplicateID, path: "\(path).id", detail: "The plan \(deletion.id.uuidString) is edited or deleted already.")
            }
            let date = deletion.deletedAt ?? now
            try Self.check(date, notAfter: now, path: "\(path).deletedAt")
            let microseconds = (date.timeIntervalSince1970 * 1_000_000).rounded()
            guard microseconds.truncatingRemainder(dividingBy: 1_000) == 0 else {
                throw WorldSnapshotError(.invalidValue, path: "\(path).deletedAt", detail: "A deletion is dated to the millisecond.")
            }
            resolved.deviceEdits.append(QueuedEdit(userID: deletion.user, id: deletion.id, record: nil, deletedAt: date))
        }
        for (index, conflict) in deviceConflicts.enumerated() {
            let path = "deviceConflicts[\(index)]"
            try Self.reference(conflict.user, in: users, path: "\(path).user")
            guard !conflict.field.isEmpty, conflict.field.utf8.count <= 128, !conflict.field.unicodeScalars.contains(where: Self.isControl) else {
                throw WorldSnapshotError(.invalidValue, path: "\(path).field", detail: "A field's name is 1 to 128 bytes without control characters.")
            }
            let losing = try Self.jsonValue(conflict.losingValue, path: "\(path).losingValue")
            let winning = try Self.jsonValue(conflict.winningValue, path: "\(path).winningValue")
            let date = conflict.resolvedAt ?? now
            try Self.check(date, notAfter: now, path: "\(path).resolvedAt")
            resolved.deviceConflicts.append(
                (
                    conflict.user,
                    SyncConflictRecord(recordID: conflict.plan, field: conflict.field, losingValue: losing, winningValue: winning, resolvedAt: date)
                ))
        }
    }

    /// The bytes of `text`, one JSON value.
    private static func jsonValue(_ text: String, path: String) throws(WorldSnapshotError) -> Data {
        let data = Data(text.utf8)
        guard (try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)) != nil else {
            throw WorldSnapshotError(.invalidValue, path: path, detail: "A field's value is one JSON value, as text.")
        }
        return data
    }

    /// A list of plans, each a plan the services would store, of a user of the document,
    /// with IDs its own; a plan left without an ID gets one made with `salt`.
    private static func resolve(_ plans: [Plan], named list: String, salt: UInt8, users: Set<UserKey>, now: Date) throws(WorldSnapshotError)
        -> [TrainingPlan]
    {
        var resolved: [TrainingPlan] = []
        var keys: Set<PlanKey> = []
        for (index, plan) in plans.enumerated() {
            var path: String { "\(list)[\(index)]" }
            try Self.reference(plan.user, in: users, path: "\(path).user")
            for (date, field) in [(plan.startDate, "startDate"), (plan.endDate, "endDate")] {
                guard date.timeIntervalSince1970 >= Self.earliestDate, date.timeIntervalSince1970 <= Self.latestDate else {
                    throw WorldSnapshotError(.invalidValue, path: "\(path).\(field)", detail: "A plan's days are in the years 1 to 9999.")
                }
            }
            let lastModified = plan.lastModified ?? now
            try Self.check(lastModified, notAfter: now, path: "\(path).lastModified")
            let id = plan.id ?? Self.madeID(at: plan.startDate, index: index, salt: salt)
            guard keys.insert(PlanKey(plan.user, id)).inserted else {
                throw WorldSnapshotError(.duplicateID, path: "\(path).id", detail: "Another plan of the user has the ID \(id.uuidString).")
            }
            let workouts = (plan.weeklyWorkouts ?? []).enumerated().map { position, workout in
                PlannedWorkout(
                    id: workout.id ?? Self.madeID(at: plan.startDate, index: index << 8 | position, salt: 0x57), title: workout.title,
                    minutes: workout.minutes)
            }
            let made = TrainingPlan(
                id: id, userID: plan.user, name: plan.name, notes: plan.notes ?? "", startDate: plan.startDate, endDate: plan.endDate,
                daysPerWeek: plan.daysPerWeek ?? min(7, max(1, workouts.count)), isCompleted: plan.isCompleted ?? false, weeklyWorkouts: workouts,
                lastModified: lastModified)
            // A plan is held as the services store it: a name with spaces around it is not.
            let stored: TrainingPlan
            do {
                stored = try made.validated()
            } catch {
                throw WorldSnapshotError(.invalidValue, path: path, detail: error.detail)
            }
            guard stored == made else {
                throw WorldSnapshotError(.invalidValue, path: "\(path).name", detail: "A plan's name is trimmed of spaces and line breaks.")
            }
            resolved.append(made)
        }
        return resolved
    }
}
