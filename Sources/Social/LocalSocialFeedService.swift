import Foundation
import TrainAuth
import TrainCore

/// TrainKit's ``SocialFeedService`` over a `RecordStore`: in memory or in a file, with
/// the same logic. Every call acts as the auth service's signed-in user, read once at
/// its start, and each change — a relation with its counts, a post with its index
/// entries — is one transaction, so two instances on one file never overwrite each
/// other.
///
/// ```swift
/// let social = try LocalSocialFeedService(auth: auth, storage: .file(directory.appendingPathComponent("social.sqlite")))
/// _ = try await social.unlockFeed(workoutType: .run)
/// let post = try await social.createPost(content: "5 km before breakfast", workoutType: .run)
/// ```
public final class LocalSocialFeedService: SocialFeedService {
    /// Who the calls act as.
    public let auth: any AuthService
    /// Where post and profile photos are kept; a post's photo from this store is
    /// checked when posting and deleted with the post or the account.
    public let media: any MediaStore
    /// The clock, IDs and time zone every rule reads.
    public let context: TrainContext
    /// Policy, recorded workouts and live-stream polling.
    public let configuration: SocialConfiguration
    package let store: RecordStore
    /// Follows the signed-in user's account into their profile.
    private let profileFollower = Locked<Task<Void, Never>?>(nil)
    /// Counts the writes that set or removed an unlock.
    let unlockWrites = Broadcast<UInt64>(initial: 0)

    /// Creates a service that keeps its data in memory.
    /// - Parameters:
    ///   - auth: The auth service whose signed-in user the calls act as.
    ///   - media: Where photos are kept; by default a new in-memory store checked against `auth`.
    ///   - context: The clock, IDs and time zone; the live ones by default.
    ///   - configuration: Policy, recorded workouts and live-stream polling.
    public convenience init(
        auth: any AuthService, media: (any MediaStore)? = nil, context: TrainContext = .live,
        configuration: SocialConfiguration = SocialConfiguration()
    ) {
        self.init(auth: auth, store: .inMemoryOrFailing(SocialRecords.schema), media: media, context: context, configuration: configuration)
    }

    /// Creates a service whose data lives in `storage`. Opening reads no post.
    /// - Parameters:
    ///   - auth: The auth service whose signed-in user the calls act as.
    ///   - media: Where photos are kept; by default a new in-memory store checked against `auth`.
    ///   - storage: In memory, or a file (other services may share it) with its options.
    ///   - context: The clock, IDs and time zone; the live ones by default.
    ///   - configuration: Policy, recorded workouts and live-stream polling.
    /// - Throws: `CoreError` naming the file if it cannot be opened.
    public convenience init(
        auth: any AuthService, media: (any MediaStore)? = nil, storage: StorageLocation, context: TrainContext = .live,
        configuration: SocialConfiguration = SocialConfiguration()
    ) throws {
        self.init(
            auth: auth, store: try RecordStore(storage, schema: SocialRecords.schema), media: media, context: context,
            configuration: configuration)
    }

    /// Creates a service whose data lives in `storage`.
    /// - Parameters:
    ///   - auth: The auth service whose signed-in user the calls act as.
    ///   - storage: In memory, or a file with its options.
    ///   - media: Where photos are kept.
    ///   - configuration: Policy, recorded workouts and live-stream polling.
    /// - Throws: `CoreError` naming the file if it cannot be opened.
    @available(*, deprecated, renamed: "init(auth:media:storage:context:configuration:)")
    public convenience init(
        auth: any AuthService, storage: StorageLocation, media: any MediaStore, configuration: SocialConfiguration = SocialConfiguration()
    ) throws {
        try self.init(auth: auth, media: media, storage: storage, configuration: configuration)
    }

    /// The schema of the social data, for a store other services share.
    package static var recordSchema: StoreSchema { SocialRecords.schema }

    /// Creates a service on a store other services share: the devices of one simulated
    /// world, each acting as its own auth service's user.
    package init(
        auth: any AuthService, store: RecordStore, media: (any MediaStore)?, context: TrainContext, configuration: SocialConfiguration
    ) {
        let context = configuration.legacy.applied(to: context)
        self.auth = auth
        self.store = store
        self.media = media ?? LocalMediaStore(auth: auth, context: context)
        self.context = context
        var shown = configuration
        shown.legacy = LegacyContext(context)
        self.configuration = shown
        // The signed-in user's profile follows their account from the first moment:
        // others find and follow them before their first post, and see a new name or
        // photo — a guest's upgrade included — without a call of the app's.
        let accounts = auth.userChanges()
        let follower = Task { [weak self] in
            // The user signed in at the start gets a profile if they have none; their
            // profile shows each change from then on.
            var changed = false
            for await user in accounts {
                defer { changed = true }
                guard let user else { continue }
                self?.matchProfile(to: user, creatingOnly: !changed)
            }
        }
        profileFollower.withLock { $0 = follower }
    }

    deinit {
        profileFollower.withLock { $0?.cancel() }
    }

    /// Makes the profile of `user`, signed in now, show their account's name and photo,
    /// writing only when it does not — or, with `creatingOnly`, only when there is none.
    /// A user signed out since, or whose deletion was asked for, is left alone.
    package func matchProfile(to user: UserEntity, creatingOnly: Bool) {
        let scheduled: Date?
        do { scheduled = try auth.scheduledDeletion(of: user.id) } catch { return }
        guard scheduled == nil else { return }
        let name = Self.displayName(of: user)
        let photo = Self.photoURL(of: user)
        let stored = try? reading { records in try records.value(forKey: user.id, in: SocialRecords.profiles) }
        if let stored, creatingOnly || (stored.displayName == name || policy.wordFilter.matches(name)) && stored.photoURL == photo { return }
        _ = try? writing(as: user) { records in try ensureProfile(user, in: records, for: .unseen) }
    }

    var policy: SocialPolicy { configuration.policy }
    var now: Date { context.clock.now }

    // MARK: - Transactions

    /// The signed-in user, or `notSignedIn` — also when the user's scheduled deletion
    /// is due: from then on the purge may run, and nothing may be written in between.
    func signedInUser() throws(SocialError) -> UserEntity {
        guard let user = auth.currentUser else { throw SocialError(.notSignedIn) }
        let date: Date?
        do {
            date = try auth.scheduledDeletion(of: user.id)
        } catch {
            throw SocialError(.storage, detail: "The scheduled deletions could not be read: \(error)")
        }
        if let date, now >= date { throw SocialError(.notSignedIn, detail: "The account's scheduled deletion is due.") }
        return user
    }

    /// Throws `unverifiedEmail` when the auth service's policy needs a verified email
    /// address for posting (posts and comments) and the signed-in user has none.
    func requireVerifiedEmailForPosting() throws(SocialError) {
        do {
            try auth.requireVerifiedEmail(for: .posting)
        } catch let error as AuthenticationError where error.code == .unverifiedEmail {
            throw SocialError(.unverifiedEmail, detail: error.detail)
        } catch let error as AuthenticationError where error.code == .notSignedIn {
            throw SocialError(.notSignedIn, detail: error.detail)
        } catch {
            throw SocialError(.storage, detail: "Whether the email address is verified could not be read: \(error)")
        }
    }

    /// Throws `notSignedIn` unless `user` is still the signed-in user: a call that
    /// awaited something checks this before acting as them.
    func checkStillSignedIn(_ user: UserEntity) throws(SocialError) {
        guard auth.currentUser?.id == user.id else {
            throw SocialError(.notSignedIn, detail: "The signed-in user changed during the call.")
        }
    }

    /// Runs `body` in one read of the store; store failures become `storage`.
    func reading<Result>(_ body: (RecordReader) throws -> Result) throws(SocialError) -> Result {
        try store.read(failingWith: { SocialError(.storage, detail: "\($0)") }, body)
    }

    /// Runs `body` in one write transaction on `user`'s behalf, if they are still signed
    /// in — asked inside the transaction, which the purge of a deletion takes too: a write
    /// that raced the deletion lands before the purge, which removes it, or is refused.
    func writing<Result>(as user: UserEntity, _ body: (RecordWriter) throws -> Result) throws(SocialError) -> Result {
        try writing { records in
            try checkStillSignedIn(user)
            return try body(records)
        }
    }

    /// Runs `body` in one write transaction: all of it is kept, or none of it.
    func writing<Result>(_ body: (RecordWriter) throws -> Result) throws(SocialError) -> Result {
        try store.write(failingWith: { SocialError(.storage, detail: "\($0)") }, body)
    }

    // MARK: - Profiles

    /// The name a user's posts and profile show: their account's, without control or
    /// invisible characters, at most 100 characters; "Athlete" when nothing is left.
    static func displayName(of user: UserEntity) -> String {
        DisplayText.name(user.displayName ?? "") ?? "Athlete"
    }

    /// What a write shows others of its user, which decides what a suspension and a
    /// name the word filter matches allow.
    enum ProfileUse {
        /// A post, comment, like or follow: others see the user's name with it. Refused
        /// to a suspended user and to a name the filter matches.
        case shown
        /// A report: refused to a suspended user; a name the filter matches is kept out
        /// of the profile.
        case report
        /// An unlock, block or mute, which nobody else sees: never refused; a name the
        /// filter matches is kept out of the profile.
        case unseen
    }

    /// The photo a user's profile shows: their account's, when it is an https or file URL.
    static func photoURL(of user: UserEntity) -> URL? {
        user.photoURL.flatMap { DisplayText.isValidMediaURL($0) ? $0 : nil }
    }

    /// The signed-in user's profile, created or renamed to match their account: the
    /// first step of every call that writes as them. A name the word filter matches is
    /// never stored: the profile keeps its name, or a new one is "Athlete".
    @discardableResult
    func ensureProfile(_ user: UserEntity, in records: RecordWriter, for use: ProfileUse = .shown) throws -> SocialProfile {
        if use != .unseen, try records.value(forKey: user.id, in: SocialRecords.suspensions) != nil { throw SocialError(.accountSuspended) }
        var name = Self.displayName(of: user)
        let stored = try records.value(forKey: user.id, in: SocialRecords.profiles)
        if policy.wordFilter.matches(name) {
            guard use != .shown else {
                throw SocialError(.objectionableContent, detail: "The account's display name holds a word of the policy's word filter.")
            }
            if let stored { return stored }
            name = "Athlete"
        }
        let photo = Self.photoURL(of: user)
        if let stored, stored.displayName == name, stored.photoURL == photo { return stored }
        if stored?.displayName != name {
            for word in Set(SocialRecords.words(stored?.displayName ?? "")) {
                try records.removeValue(forKey: Self.nameKey(word, user.id), in: SocialRecords.names)
            }
            for word in Set(SocialRecords.words(name)) {
                try records.setData(Data(), forKey: Self.nameKey(word, user.id), in: SocialRecords.names)
            }
        }
        var profile = stored ?? SocialProfile(id: user.id, displayName: name)
        profile.displayName = name
        profile.photoURL = photo
        try records.put(profile, forKey: user.id, in: SocialRecords.profiles)
        return profile
    }

    /// A word's entry in the name index: the word, NUL, the user's ID. Words hold no NUL.
    static func nameKey(_ word: String, _ userID: String) -> String { "\(word)\u{0}\(userID)" }

    /// The profile of another user named in a call, or `userNotFound`.
    func profile(of userID: String, in records: RecordReader) throws -> SocialProfile {
        guard Self.isPlausibleUserID(userID), let profile = try records.value(forKey: userID, in: SocialRecords.profiles) else {
            throw SocialError(.userNotFound)
        }
        return profile
    }

    /// Whether `userID` could name a user: not empty and not absurdly long.
    static func isPlausibleUserID(_ userID: String) -> Bool {
        !userID.isEmpty && userID.utf8.count <= 512
    }

    // MARK: - Unlocking

    public func hasFeedUnlocked() -> Bool {
        guard let user = auth.currentUser else { return false }
        let now = now
        return (try? reading { try $0.value(forKey: user.id, in: SocialRecords.unlocks) })??.isActive(at: now) ?? false
    }

    public func unlockFeed(workoutType: WorkoutType) async throws -> FeedUnlock {
        let user = try signedInUser()
        guard workoutType.isValid else { throw SocialError(.invalidWorkoutType, detail: "'\(workoutType)' is not a workout type's name.") }
        guard workoutType != .rest || policy.restUnlocksFeed else {
            throw SocialError(.feedLocked, detail: "A rest day does not unlock the feed under this policy.")
        }
        let now = now
        let timeZone = context.timeZone()
        let recorded: WorkoutRecord?
        if policy.unlockRequiresRecordedWorkout {
            guard configuration.workouts != nil else {
                throw SocialError(.workoutsUnavailable, detail: "The policy asks for a recorded workout and the service has no workout source.")
            }
            guard let workout = try await recordedWorkout(of: workoutType, at: now, in: timeZone) else {
                throw SocialError(.workoutNotRecorded, detail: "No '\(workoutType)' workout ended today in the workout source.")
            }
            recorded = workout
        } else {
            recorded = try? await recordedWorkout(of: workoutType, at: now, in: timeZone)
        }
        try checkStillSignedIn(user)
        let unlock = FeedUnlock(
            id: newID(), userID: user.id, workoutType: workoutType, unlockDate: now, timeZoneIdentifier: timeZone.identifier,
            expiresAt: try Self.startOfNextDay(after: now, in: timeZone), workout: recorded?.summary)
        let saved = try writing(as: user) { records in
            try ensureProfile(user, in: records, for: .unseen)
            // A second workout never shortens an unlock (flying east, for one).
            if let current = try records.value(forKey: user.id, in: SocialRecords.unlocks), current.unlockDate <= now,
                current.expiresAt >= unlock.expiresAt
            {
                return current
            }
            try records.put(unlock, forKey: user.id, in: SocialRecords.unlocks)
            return unlock
        }
        unlockWrites.send(unlockWrites.value &+ 1)
        return saved
    }

    public func feedUnlockUpdates() -> AsyncStream<FeedUnlock?> {
        let (stream, continuation) = AsyncStream<FeedUnlock?>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let users = auth.authStateChanges()
        let writes = unlockWrites.subscribe(replayingCurrent: false)
        let clock = context.clock
        let following = Task { [weak self] in
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await _ in users { wake.yield() }
                }
                group.addTask {
                    for await _ in writes { wake.yield() }
                }
                group.addTask { [weak self] in
                    // What was told last, with the count of unlocks written then: a write
                    // is told even when the unlock it wrote has ended by the time this task
                    // looks, so a consumer that showed it from `unlockFeed` sees it end.
                    var last: (writes: UInt64, unlock: FeedUnlock?)?
                    var end: Task<Void, Never>?
                    for await _ in wakes {
                        guard let self else { break }
                        let writes = self.unlockWrites.value
                        let current = self.activeUnlock()
                        if last?.writes != writes || last?.unlock != current {
                            last = (writes, current)
                            continuation.yield(current)
                        }
                        // Woken again at the unlock's end, on the service's clock.
                        end?.cancel()
                        end = current.map { unlock in Task { if (try? await clock.sleep(until: unlock.expiresAt)) != nil { wake.yield() } } }
                    }
                    end?.cancel()
                }
                wake.yield()
            }
        }
        continuation.onTermination = { _ in following.cancel() }
        return stream
    }

    /// The signed-in user's unlock, if it is active now.
    func activeUnlock() -> FeedUnlock? {
        guard let user = auth.currentUser else { return nil }
        let now = now
        guard let unlock = try? reading({ try $0.value(forKey: user.id, in: SocialRecords.unlocks) }), unlock.isActive(at: now) else {
            return nil
        }
        return unlock
    }

    /// The start of the calendar day after the one `date` falls on in `timeZone`: 23
    /// or 25 hours away on a daylight-saving day, never a fixed 86,400 seconds.
    package static func startOfNextDay(after date: Date, in timeZone: TimeZone) throws(SocialError) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        if let day = calendar.dateInterval(of: .day, for: date), day.end > date { return day.end }
        guard let next = calendar.nextDate(after: date, matching: DateComponents(hour: 0, minute: 0, second: 0), matchingPolicy: .nextTime)
        else { throw SocialError(.storage, detail: "No next day after \(date) in \(timeZone.identifier).") }
        return next
    }

    /// The latest workout of `type` in the configured source that ended on the local day
    /// of `now` and not after it; records with a negative or non-finite duration or
    /// distance are left out.
    func recordedWorkout(of type: WorkoutType, at now: Date, in timeZone: TimeZone) async throws(SocialError) -> WorkoutRecord? {
        guard let source = configuration.workouts else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let today = DateInterval(start: min(calendar.startOfDay(for: now), now), end: now)
        let workouts: [WorkoutRecord]
        do {
            workouts = try await source.workouts(endingIn: today)
        } catch let error as SocialError {
            throw error
        } catch {
            throw SocialError(.workoutsUnavailable, detail: "The workout source failed: \(error)")
        }
        return workouts.filter { workout in
            workout.type == type && today.contains(workout.end) && workout.start <= workout.end && workout.duration.isFinite
                && workout.duration >= 0 && (workout.distance.map { $0.isFinite && $0 >= 0 } ?? true)
        }.max { $0.end < $1.end }
    }

    /// Whether `userID`'s feed is unlocked at `date`.
    func isUnlocked(_ userID: String, at date: Date, in records: RecordReader) throws -> Bool {
        try records.value(forKey: userID, in: SocialRecords.unlocks)?.isActive(at: date) ?? false
    }

    // MARK: - Input

    /// A new identifier not yet used in `collections`: the generator's, or a random one
    /// if that is taken (a sequential generator restarted after a relaunch, or two
    /// instances on one file); `shape` turns either into the ID (a post's carries its time).
    func freshID(
        unusedIn collections: [any CollectionName], in records: RecordReader, shape: (UUID) -> UUID = { $0 }
    ) throws -> UUID {
        let id = shape(newID())
        for collection in collections where try records.data(forKey: SocialRecords.key(id), in: collection) != nil {
            return shape(UUID())
        }
        return id
    }

    /// A new identifier as a UUID: the generator's, or one derived from it when it
    /// does not make UUIDs (a test's sequential IDs).
    func newID() -> UUID {
        let id = context.ids.makeID()
        if let uuid = UUID(uuidString: id) { return uuid }
        return UUID(bytes: (try? PlatformCrypto.sha256(Data(id.utf8))) ?? [], version: 8)
    }

    /// `text` trimmed, with `\r\n` and `\r` made `\n`, if it is 1 to `maximum`
    /// characters and passes `DisplayText.cleaned(_:maximum:allowsNewlines:)`.
    static func validText(_ text: String, maximum: Int) -> String? {
        guard let cleaned = DisplayText.cleaned(text, maximum: maximum, allowsNewlines: true), !cleaned.isEmpty, cleaned.count <= maximum else {
            return nil
        }
        return cleaned
    }

    /// `limit` if it is a page size, else `invalidLimit`.
    static func pageSize(_ limit: Int) throws(SocialError) -> Int {
        guard (1...100).contains(limit) else { throw SocialError(.invalidLimit, detail: "A limit of \(limit) is outside 1...100.") }
        return limit
    }
}
