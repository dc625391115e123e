import Foundation
import TrainAccount
import TrainAuth
import TrainCore
import TrainSocial
import TrainSync

/// Apple accounts for the simulated Sign in with Apple, as tests name them.
extension SimulatedIdentityProvider.Account {
    /// Ada Lovelace, `ada@example.com`, subject `001.ada`.
    ///
    /// ```swift
    /// services.appleID.signIn(as: .ada)
    /// let ada = try await services.auth.signInWithApple()
    /// ```
    public static let ada = SimulatedIdentityProvider.Account(
        subject: "001.ada", email: "ada@example.com", fullName: FullName(givenName: "Ada", familyName: "Lovelace"))

    /// Grace Hopper, `grace@example.com`, subject `002.grace`.
    public static let grace = SimulatedIdentityProvider.Account(
        subject: "002.grace", email: "grace@example.com", fullName: FullName(givenName: "Grace", familyName: "Hopper"))
}

/// Users for a fake's scripts.
extension UserEntity {
    /// A guest: an anonymous account with no sign-in method, made at `date`.
    ///
    /// ```swift
    /// auth.script(.signInAnonymously, .returning(.guest()))
    /// ```
    /// - Parameters:
    ///   - id: Its ID; `guest-1` by default.
    ///   - date: When it was made; the manual clock's default start by default.
    /// - Returns: The guest.
    public static func guest(id: String = "guest-1", at date: Date = ManualClock.defaultStart) -> UserEntity {
        UserEntity(id: id, createdAt: date, lastSignInAt: date, isAnonymous: true)
    }
}

/// Unlocks for a fake's scripts.
extension FeedUnlock {
    /// A feed unlocked by a workout at `date` until the next midnight in UTC.
    ///
    /// ```swift
    /// social.script(.unlockFeed, .returning(.unlocked(for: "fake-user-1")))
    /// ```
    /// - Parameters:
    ///   - userID: The user.
    ///   - workoutType: The workout; a run by default.
    ///   - date: When; the manual clock's default start by default.
    /// - Returns: The unlock, ending at the start of the next UTC day.
    public static func unlocked(for userID: String, by workoutType: WorkoutType = .run, at date: Date = ManualClock.defaultStart) -> FeedUnlock {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TrainContext.utc
        let midnight = calendar.date(byAdding: .day, value: 1, to: calendar.startOfDay(for: date)) ?? date.addingTimeInterval(86_400)
        return FeedUnlock(
            id: UUID(), userID: userID, workoutType: workoutType, unlockDate: date, timeZoneIdentifier: "UTC", expiresAt: midnight)
    }
}

/// A simulated world's people, in one call.
extension TrainServices {
    /// Adds a user who completed a workout and posted about it, and has the user signed
    /// in here follow them: a friend whose post is in the friends feed at once.
    ///
    /// ```swift
    /// let (grace, post) = try await services.addFriend(named: "Grace", posting: "5 km before breakfast")
    /// let feed = try await services.social.friendsFeed(limit: 20)   // holds `post`, once the feed is unlocked
    /// ```
    /// - Parameters:
    ///   - name: The friend's name.
    ///   - text: What they post.
    ///   - workoutType: The workout they completed; a run by default.
    /// - Returns: The friend and their post.
    /// - Throws: As `addUser(named:email:)`, `makeDevice(for:)`, and the
    ///   feed's `unlockFeed`, `createPost` and `follow`.
    @discardableResult
    public func addFriend(named name: String, posting text: String, after workoutType: WorkoutType = .run) async throws -> (
        user: UserEntity, post: PostEntity
    ) {
        let friend = try await addUser(named: name)
        let phone = try makeDevice(for: friend.id)
        _ = try await phone.social.unlockFeed(workoutType: workoutType)
        let post = try await phone.social.createPost(content: text, workoutType: workoutType, mediaURL: nil)
        if auth.currentUser != nil { try await social.follow(friend.id) }
        return (friend, post)
    }
}

/// Waiting for background sync without sleeping.
extension BackgroundSyncManager {
    /// Runs a sync now and waits until it has finished: the manager idle again, or
    /// failed with its next retry set. No sleep: the wait follows the manager's status.
    ///
    /// ```swift
    /// _ = try await services.plans.createPlan(plan)
    /// let status = await services.backgroundSync.syncAndWaitUntilIdle()
    /// #expect(status?.isIdle == true)
    /// ```
    /// - Parameter limit: How long to wait for, in real time, before giving up.
    /// - Returns: The status the sync ended in; nil if it did not end within `limit`
    ///   (a stopped manager runs no sync).
    @discardableResult
    public func syncAndWaitUntilIdle(within limit: Duration = .seconds(5)) async -> BackgroundSyncStatus? {
        let updates = statusUpdates()
        syncNow()
        // The first status is the current one: a sync running then ends before ours starts,
        // so only a sync that starts after it is ours.
        let seen = Locked((first: true, ourSync: false))
        return await updates.firstValue(
            where: { status in
                seen.withLock { seen in
                    defer { seen.first = false }
                    switch status {
                    case .syncing where !seen.first: seen.ourSync = true
                    case .idle, .failed: return seen.ourSync
                    case .syncing, .stopped: break
                    }
                    return false
                }
            }, within: limit)
    }
}

/// Whether a status is at rest.
extension BackgroundSyncStatus {
    /// Whether the manager is waiting for its next sync.
    public var isIdle: Bool {
        if case .idle = self { return true }
        return false
    }
}
