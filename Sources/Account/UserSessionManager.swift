import Foundation
import Observation
import TrainAuth
import TrainSocial
import TrainSubscription
import TrainSync

/// The session of the signed-in user for an app's views: who is signed in, their
/// tier, whether their feed is unlocked and how sync is doing, observable by SwiftUI.
///
/// It observes and never pushes: the subscription and paywall services follow the
/// auth service's signed-in user themselves, so a purchase right after a sign-in is
/// tagged with that user's token with nothing to wait for. When a user signs in —
/// through ``signInWithApple()``, or anywhere else the auth service reports — the
/// session reads the tier and starts background sync; each tier the subscription
/// service tells afterwards is shown as it comes. Signing out or deleting the account
/// stops sync.
///
/// ```swift
/// @main struct TrainApp: App {
///     @State var session = UserSessionManager(auth: auth, subscriptions: subscriptions, social: social, account: account)
///     var body: some Scene {
///         WindowGroup { RootView().environment(session).task { await session.start() } }
///     }
/// }
/// ```
@MainActor
@Observable
public final class UserSessionManager {
    /// Where the session stands.
    public enum AuthState: Hashable, Sendable {
        /// Not known yet: ``start()`` has not read the auth service.
        case unknown
        /// A user is signed in.
        case authenticated
        /// Nobody is signed in.
        case unauthenticated
        /// The session could not be set up; the text can be shown to the user. This
        /// version sets a session up from the auth service's user alone and never sets
        /// it; it stays so that switches written for earlier versions compile.
        case error(String)
    }

    /// Where the session stands.
    public private(set) var authState: AuthState = .unknown
    /// The signed-in user, following every change of their profile, email and sign-in
    /// methods.
    public private(set) var currentUser: UserEntity?
    /// Whether the signed-in user is a guest (`AuthService.signInAnonymously()`):
    /// show "Create an account" where others see their profile. It turns false when
    /// the guest links a sign-in method, with the same user ID.
    public var isGuest: Bool { currentUser?.isAnonymous == true }
    /// The user's subscription tier.
    public private(set) var tier: SubscriptionTier = .free {
        didSet { featureAccess = FeatureAccess(tier: tier, catalog: featureAccess.catalog) }
    }
    /// What the tier may use under the app's feature catalog, and what it would take:
    /// it follows the tier.
    public private(set) var featureAccess: FeatureAccess
    /// Whether the user's social feed is unlocked, following each workout and the
    /// unlock's end at local midnight.
    public private(set) var isFeedUnlocked = false
    /// When the feed's unlock ends: the start of the next day where the workout was.
    /// Nil while the feed is locked, and for the moment between a user's sign-in and
    /// the social service's first word on their unlock.
    public private(set) var feedUnlockedUntil: Date?
    /// The signed-in user's notification badge: how many of their notifications
    /// changed since they last saw the list, following every like, comment and follow
    /// as it comes. Zero while nobody is signed in.
    public private(set) var unseenNotificationCount = 0
    /// How background sync is doing; `stopped` without a background sync manager.
    public private(set) var syncStatus: BackgroundSyncStatus = .stopped(lastSyncedAt: nil)
    /// The progress of an account deletion asked for through ``deleteAccount()`` — or
    /// found still purging after a relaunch — step by step until its purge finishes.
    public private(set) var deletionProgress: AccountDeletionProgress?
    /// The deletion of the user last signed in here whose purge is still running: asked
    /// for through ``deleteAccount()``, or found in the account service's journal after a
    /// relaunch. The user is signed out and hidden, their data is being deleted: show
    /// "Deleting your account" while it is set; nil once the purge finished, and while
    /// another user is signed in. A deletion asked for on another device of the user
    /// shows here as ``lastSessionEnd``.
    public private(set) var accountDeletion: ScheduledAccountDeletion?
    /// The report of the last purge that finished of the user last signed in here; nil
    /// while another user is signed in.
    public private(set) var deletionReport: AccountDeletionReport?
    /// How the last session shown here ended, when nobody is signed in: the user signed
    /// out, or their account was deleted, disabled or revoked — on this device or
    /// another, while the app ran or before it launched. Show why on the sign-in
    /// screen ("Your account was deleted"). Nil while a user is signed in, and when the
    /// auth service does not tell.
    public private(set) var lastSessionEnd: SessionEnd?
    /// The signed-in user's scheduled deletion, after a sign-in during its grace period:
    /// show the date and offer ``restoreAccount()``; background sync waits for the
    /// restore. Nil otherwise.
    public private(set) var scheduledDeletion: ScheduledAccountDeletion?

    /// The auth service.
    @ObservationIgnored public let auth: any AuthService
    /// The subscription service, which follows the auth service's user itself.
    @ObservationIgnored public let subscriptions: any SubscriptionService
    /// The paywalls whose experiments assign the signed-in user, if any.
    @ObservationIgnored public let paywalls: (any PaywallService)?
    /// The social service, for the feed's state.
    @ObservationIgnored public let social: any SocialFeedService
    /// The account service, for deletion.
    @ObservationIgnored public let account: any AccountService
    /// Where a profile photo is kept, if anywhere.
    @ObservationIgnored public let media: (any MediaStore)?
    /// Background sync, started and stopped with the session.
    @ObservationIgnored public let backgroundSync: BackgroundSyncManager?
    @ObservationIgnored private var listeners: [Task<Void, Never>] = []
    /// The user signed in when the social service last told of the feed's state: while
    /// it is still signed in, the service's stream is what the session shows.
    @ObservationIgnored private var unlockShownFor: String?
    /// Counts deletions, so a watcher of an earlier one stops writing the progress.
    @ObservationIgnored private var deletionWatch = 0
    /// Counts the badge values the social service told, so a read that started before
    /// one never shows an older count over it.
    @ObservationIgnored private var badgeUpdates = 0
    /// The profile change in progress, which the next one waits for: each cleans up the
    /// photos the one before left, so two never run at once.
    @ObservationIgnored private var profileChange: Task<Void, Never>?

    /// Creates a session manager; call ``start()`` to follow the auth service.
    /// - Parameters:
    ///   - auth: The auth service.
    ///   - subscriptions: The subscription service.
    ///   - social: The social service.
    ///   - account: The account service.
    ///   - backgroundSync: Background sync to run while a user is signed in, if any.
    ///   - features: Which features each tier unlocks; the standard catalog by default.
    ///   - media: Where ``updateProfile(displayName:photo:)`` keeps a photo; nil if the
    ///     app sets none.
    ///   - paywalls: The paywalls, which follow the auth service's user themselves, so
    ///     that a user is in the same experiment variant on every device.
    public init(
        auth: any AuthService, subscriptions: any SubscriptionService, social: any SocialFeedService, account: any AccountService,
        backgroundSync: BackgroundSyncManager? = nil, features: FeatureCatalog = .standard, media: (any MediaStore)? = nil,
        paywalls: (any PaywallService)? = nil
    ) {
        featureAccess = FeatureAccess(tier: .free, catalog: features)
        self.auth = auth
        self.subscriptions = subscriptions
        self.social = social
        self.account = account
        self.backgroundSync = backgroundSync
        self.media = media
        self.paywalls = paywalls
    }

    /// Reads the signed-in user and follows the auth state, the tier and sync from
    /// now on. Calling it again does nothing until ``stop()``.
    public func start() async {
        guard listeners.isEmpty else { return }
        let states = auth.authStateChanges()
        let changes = auth.userChanges()
        let tiers = subscriptions.tierChanges()
        let unlocks = social.feedUnlockUpdates()
        let notifications = social.notificationUpdates()
        listeners.append(
            Task { [weak self] in
                for await update in notifications { self?.show(update) }
            })
        listeners.append(
            Task { [weak self] in
                // The event may be older than a sign-in this manager made itself: follow what is current.
                for await _ in states {
                    guard let self else { return }
                    self.showCurrentSession()
                }
            })
        listeners.append(
            Task { [weak self] in
                // A change of the same user (a new name, a linked method) shows at once;
                // a change of user is shown by `showCurrentSession`, from the auth state.
                for await user in changes {
                    guard let self, let user, user.id == self.currentUser?.id else { continue }
                    self.currentUser = user
                }
            })
        listeners.append(
            Task { [weak self] in
                // Each change the subscription service tells is a signal to show its tier
                // now: a value queued before a switch of user is another user's.
                for await _ in tiers {
                    guard let self else { return }
                    self.show(self.subscriptions.currentTier)
                }
            })
        listeners.append(
            Task { [weak self] in
                for await unlock in unlocks { self?.show(unlock) }
            })
        if let statuses = backgroundSync?.statusUpdates() {
            listeners.append(
                Task { [weak self] in
                    for await status in statuses { self?.syncStatus = status }
                })
        }
        showCurrentSession()
    }

    /// Stops following the services and stops background sync. The session's values stay.
    public func stop() {
        for listener in listeners { listener.cancel() }
        listeners = []
        unlockShownFor = nil
        backgroundSync?.stop()
    }

    /// Reads every state the session shows again for the user signed in now: the tier,
    /// whether the feed is unlocked and until when, the notification badge and the
    /// scheduled deletion. The session follows each of them by itself once started, and
    /// reads them all when a user signs in; this reads them at once — the tier, the
    /// feed's lock and the schedule before it returns, the badge and the unlock's end,
    /// from the social service's streams, once the returned task has finished.
    /// - Returns: The task reading the badge and the unlock's end: await its `value` to
    ///   know every state is shown.
    @discardableResult
    public func refresh() -> Task<Void, Never> {
        guard let user = currentUser else {
            tier = .free
            scheduledDeletion = nil
            unseenNotificationCount = 0
            isFeedUnlocked = false
            feedUnlockedUntil = nil
            unlockShownFor = nil
            return Task {}
        }
        tier = subscriptions.currentTier
        scheduledDeletion = try? account.scheduledDeletion()
        isFeedUnlocked = social.hasFeedUnlocked()
        if !isFeedUnlocked { feedUnlockedUntil = nil }
        let social = social
        let badgesBefore = badgeUpdates
        return Task { [weak self] in
            // Each stream starts with the state now.
            var badges = social.notificationUpdates().makeAsyncIterator()
            let badge = await badges.next()
            var unlocks = social.feedUnlockUpdates().makeAsyncIterator()
            let unlock = await unlocks.next()
            // What was read is shown only to the user it was read for.
            guard let self, self.currentUser?.id == user.id, self.auth.currentUser?.id == user.id else { return }
            if let badge, badge.userID == user.id, self.badgeUpdates == badgesBefore { self.unseenNotificationCount = badge.unseenCount }
            if case .some(let unlock) = unlock { self.show(unlock) }
        }
    }

    /// Shows `tier` while a user is signed in, unless it is shown already; signed out,
    /// the session shows free.
    private func show(_ tier: SubscriptionTier) {
        guard currentUser != nil, tier != self.tier else { return }
        self.tier = tier
    }

    /// Shows the badge of the user signed in now; an update about another user, older
    /// than a sign-in, is not shown.
    private func show(_ update: NotificationUpdate) {
        guard update.userID == auth.currentUser?.id else { return }
        badgeUpdates += 1
        unseenNotificationCount = update.unseenCount
    }

    /// Shows the feed's unlock, or its lock, as the social service tells it. An event
    /// can be older than a sign-in: an unlock of another user is not shown, and a lock
    /// is shown only when the user signed in now has no unlock.
    private func show(_ unlock: FeedUnlock?) {
        let userID = auth.currentUser?.id
        if let unlock {
            guard unlock.userID == userID else { return }
            isFeedUnlocked = true
            feedUnlockedUntil = unlock.expiresAt
        } else {
            guard !social.hasFeedUnlocked() else { return }
            isFeedUnlocked = false
            feedUnlockedUntil = nil
        }
        unlockShownFor = userID
    }

    // MARK: - Actions

    /// Signs in with Apple and sets up the session before returning: the tier read and
    /// sync started.
    /// - Returns: The user.
    /// - Throws: The auth service's error.
    @discardableResult
    public func signInWithApple() async throws -> UserEntity {
        let user = try await auth.signInWithApple()
        showCurrentSession()
        return user
    }

    /// Signs in as a guest, and sets up the session as for any user.
    /// - Returns: The guest.
    /// - Throws: The auth service's error.
    @discardableResult
    public func signInAsGuest() async throws -> UserEntity {
        let user = try await auth.signInAnonymously()
        showCurrentSession()
        return user
    }

    /// A change of the profile photo in ``updateProfile(displayName:photo:)``.
    public enum PhotoChange: Sendable {
        /// Keep the current photo.
        case keep
        /// Remove the photo.
        case remove
        /// A new image the media store accepts (JPEG, PNG, GIF, HEIC or WebP), kept there.
        case set(Data)
    }

    /// Changes the signed-in user's display name and photo: a new photo is kept in the
    /// media store and the one it replaces is deleted from it — unless a post shows it,
    /// when it goes with the last such post — the account is updated, and the social
    /// profile shows both before this returns.
    /// - Parameters:
    ///   - displayName: The new name, cleaned as the auth service cleans names; nil removes it.
    ///   - photo: What to do with the photo.
    /// - Returns: The user.
    /// - Throws: ``AccountError`` `notSignedIn`, or `notSupported` for a photo without a
    ///   media store; the media store's or the auth service's error, after which the
    ///   account is as it was.
    @discardableResult
    public func updateProfile(displayName: String?, photo: PhotoChange = .keep) async throws -> UserEntity {
        // One change at a time, in the order asked: a change that overlapped another would
        // delete the photo the other just set, or set one the other deleted.
        let previous = profileChange
        let (done, finished) = AsyncStream<Void>.makeStream()
        profileChange = Task { @MainActor in
            await previous?.value
            for await _ in done {}
        }
        defer { finished.finish() }
        await previous?.value
        return try await changeProfile(displayName: displayName, photo: photo)
    }

    private func changeProfile(displayName: String?, photo: PhotoChange) async throws -> UserEntity {
        guard let user = currentUser else { throw AccountError(.notSignedIn) }
        var photoURL = user.photoURL
        var added: MediaReference?
        switch photo {
        case .keep: break
        case .remove: photoURL = nil
        case .set(let data):
            guard let media else { throw AccountError(.notSupported, detail: "The session manager has no media store for photos.") }
            let reference = try await media.put(data, kind: .profilePhoto, for: user.id)
            added = reference
            photoURL = media.url(for: reference)
        }
        let updated: UserEntity
        do {
            // The upload awaited: the update is for the user who asked, or for nobody.
            guard auth.currentUser?.id == user.id else {
                throw AccountError(.notSignedIn, detail: "The user changed while the photo was uploaded; nothing was changed.")
            }
            updated = try await auth.updateProfile(of: user.id, displayName: displayName, photoURL: photoURL)
        } catch {
            if let added { await discard(added) }
            throw error
        }
        // The profile follows the account at the user's next write if this fails.
        _ = try? await social.refreshProfile()
        // Every other profile photo of the user goes, also one a concurrent call added,
        // but one a post shows: the profile shows the new one by now, so the last such
        // post's deletion takes it.
        if let media, let kept = try? await media.list(for: updated.id) {
            let current = updated.photoURL.flatMap { try? media.reference(for: $0) }
            for reference in kept where reference.kind == .profilePhoto && reference != current {
                if let local = social as? LocalSocialFeedService, (try? local.isShownInAPost(reference)) != false { continue }
                await discard(reference)
            }
        }
        showLatest(of: updated)
        return updated
    }

    /// Deletes a photo of an update that did not happen, whoever is signed in by now:
    /// TrainKit's `LocalMediaStore` discards it; another store is asked to delete it,
    /// which its access rule may refuse once the user changed.
    private func discard(_ reference: MediaReference) async {
        if let local = media as? LocalMediaStore {
            try? local.discard(reference)
        } else {
            try? await media?.delete(reference)
        }
    }

    /// Shows `user` if they are the one shown, as the auth service has them now: a
    /// value read before an `await` may be older than one told since.
    func showLatest(of user: UserEntity) {
        guard currentUser?.id == user.id else { return }
        currentUser = auth.currentUser?.id == user.id ? auth.currentUser : user
    }

    /// Signs out: sync stops and the session shows nobody.
    /// - Throws: The auth service's error; the session ends all the same.
    public func signOut() async throws {
        do {
            try await auth.signOut()
        } catch {
            showCurrentSession()
            throw error
        }
        showCurrentSession()
    }

    /// Logs the signed-in user's workout: the social service unlocks the feed until
    /// local midnight, and the session shows it open before returning.
    /// - Parameter workoutType: The workout done.
    /// - Returns: The unlock.
    /// - Throws: `SocialError` — `notSignedIn`, `invalidWorkoutType`, or the service's error.
    @discardableResult
    public func unlockFeed(workoutType: WorkoutType) async throws -> FeedUnlock {
        let unlock = try await social.unlockFeed(workoutType: workoutType)
        show(unlock)
        return unlock
    }

    /// Buys a product for the signed-in user, whose token the subscription service
    /// tags it with; an introductory offer applies where the Apple ID is eligible, and `offer` asks for
    /// a promotional or win-back one.
    /// - Parameters:
    ///   - productID: The product.
    ///   - offer: The offer to buy with, if any.
    /// - Returns: The outcome.
    /// - Throws: `SubscriptionError` — `noAppAccount` when nobody is signed in, or the
    ///   store's error; `AuthenticationError` from the policy's check before buying —
    ///   `unverifiedEmail` when the auth policy needs a verified email address for
    ///   purchasing and the user has none, `notSignedIn` or `storage`.
    public func purchase(_ productID: String, offer: PurchaseOffer? = nil) async throws -> StorePurchaseResult {
        guard let user = auth.currentUser else { throw SubscriptionError(.noAppAccount, detail: "Sign in before buying.") }
        try auth.requireVerifiedEmail(for: .purchasing)
        if currentUser?.id != user.id { showCurrentSession() }
        // The subscription service tags the purchase with the user signed in when it
        // starts. The tier it has on return is shown at once; the signal its stream
        // sends after finds the same tier and changes nothing on screen.
        let result = try await subscriptions.purchase(productID, offer: offer)
        show(subscriptions.currentTier)
        return result
    }

    /// Deletes the signed-in user's account with the account service, stopping sync
    /// first: returns once the user is signed out and hidden. ``accountDeletion``
    /// stays set and ``deletionProgress`` follows the purge until it finishes; then
    /// ``deletionReport`` holds its report. A failed request leaves the user signed in
    /// and sync stopped: call again to retry.
    /// - Returns: The deletion, with the warnings to show the user.
    /// - Throws: ``AccountError``.
    @discardableResult
    public func deleteAccount() async throws -> ScheduledAccountDeletion {
        guard let user = currentUser else { throw AccountError(.notSignedIn) }
        backgroundSync?.stop()
        let (watch, watcher) = watchDeletionProgress(of: user.id)
        do {
            let deletion = try await account.deleteAccount(of: user.id)
            accountDeletion = deletion
            showCurrentSession()
            awaitDeletion(of: user.id, watch: watch, watcher: watcher)
            return deletion
        } catch let error as AccountError {
            watcher.cancel()
            deletionWatch += 1
            showCurrentSession()
            if let step = error.step {
                deletionProgress = AccountDeletionProgress(userID: user.id, step: step, phase: .failed, finishedSteps: 0)
            }
            throw error
        }
    }

    /// Follows the account service's progress of `userID`'s deletion into
    /// ``deletionProgress`` until a newer deletion, or another user, is shown.
    /// - Returns: The watch's number and its task.
    private func watchDeletionProgress(of userID: String) -> (watch: Int, watcher: Task<Void, Never>) {
        let progress = account.deletionProgress()
        deletionWatch += 1
        let watch = deletionWatch
        let watcher = Task { [weak self] in
            for await event in progress where event.userID == userID {
                guard let self, self.deletionWatch == watch else { return }
                self.deletionProgress = event
            }
        }
        return (watch, watcher)
    }

    /// Waits for the purge of `userID`'s deletion and shows its report, unless a newer
    /// deletion or another user is shown by then.
    private func awaitDeletion(of userID: String, watch: Int, watcher: Task<Void, Never>) {
        let account = account
        // The final state is set here, not left to the stream, so it holds whatever
        // the conformance emits and however far the watcher got.
        Task { [weak self] in
            let report = try? await account.deletionCompletion(of: userID)
            watcher.cancel()
            guard let self, self.deletionWatch == watch else { return }
            self.deletionWatch += 1
            self.accountDeletion = nil
            self.deletionReport = report
            if let report, let last = AccountDeletionStep.allCases.last {
                self.deletionProgress = AccountDeletionProgress(
                    userID: report.userID, step: last, phase: .finished, finishedSteps: AccountDeletionStep.allCases.count)
            }
        }
    }

    /// Shows the deletion still purging of the user last signed in here, asked for on
    /// this device before a relaunch, from the account service's journal, and follows it
    /// to its report. Nothing is shown when the last session ended otherwise, or the
    /// deletion is scheduled for later; a deletion asked for on another device shows as
    /// ``lastSessionEnd``.
    private func showPendingDeletion() {
        guard accountDeletion == nil else { return }
        let journal: AccountDeletionJournal?
        if let end = lastSessionEnd {
            guard end.reason == .accountDeleted else { return }
            // Asked for here: another device's deletion shows as the session's end only.
            journal = (try? account.pendingDeletion(of: end.userID)).flatMap { $0?.joinedFrom == nil ? $0 : nil }
        } else {
            // The session this device ended itself by asking for the deletion: the
            // latest one asked for here.
            journal = (try? account.pendingDeletions())?.filter { $0.joinedFrom == nil }.max {
                $0.deletion.scheduledAt < $1.deletion.scheduledAt
            }
        }
        guard let journal, journal.hasPurgeBegun || journal.deletion.purgeAt <= journal.deletion.scheduledAt else { return }
        let userID = journal.userID
        let (watch, watcher) = watchDeletionProgress(of: userID)
        accountDeletion = journal.deletion
        deletionReport = nil
        deletionProgress = AccountDeletionProgress(
            userID: userID, step: journal.runningStep ?? journal.nextStep ?? .localData, phase: .started, finishedSteps: journal.finishedSteps.count)
        awaitDeletion(of: userID, watch: watch, watcher: watcher)
    }

    /// Stops showing a deletion that is not `userID`'s: another user signed in.
    private func hideDeletion(unlessOf userID: String) {
        let shown = accountDeletion?.userID ?? deletionProgress?.userID ?? deletionReport?.userID
        guard let shown, !shown.utf8.elementsEqual(userID.utf8) else { return }
        deletionWatch += 1
        accountDeletion = nil
        deletionProgress = nil
        deletionReport = nil
    }

    /// Schedules the signed-in user's account deletion at the end of the grace period
    /// with the account service: sync stops and the session ends.
    /// - Returns: The schedule, with the date and warnings to show.
    /// - Throws: ``AccountError``; the session goes on then.
    @discardableResult
    public func scheduleAccountDeletion() async throws -> ScheduledAccountDeletion {
        guard let user = currentUser else { throw AccountError(.notSignedIn) }
        backgroundSync?.stop()
        do {
            let scheduled = try await account.scheduleDeletion(of: user.id)
            showCurrentSession()
            return scheduled
        } catch {
            showCurrentSession()
            throw error
        }
    }

    /// Keeps the signed-in user's account whose deletion is scheduled.
    /// - Throws: ``AccountError`` — `notSignedIn`, `noScheduledDeletion`, `storage`.
    public func restoreAccount() async throws {
        try await account.restoreAccount()
        refresh()
        if currentUser != nil, scheduledDeletion == nil { backgroundSync?.start() }
    }

    // MARK: - Following the auth state

    /// Makes the session `user`'s: sets the state, reads the tier and starts or stops
    /// sync. The subscription and paywall services follow the auth service's user
    /// themselves; the session only shows what they and the auth service say.
    /// The auth service's user is the truth: whoever is signed in when this runs is
    /// shown, whichever change led here.
    func showCurrentSession() {
        let user = auth.currentUser
        if user == nil { backgroundSync?.stop() }
        currentUser = user
        authState = user == nil ? .unauthenticated : .authenticated
        if let user {
            lastSessionEnd = nil
            hideDeletion(unlessOf: user.id)
        } else {
            lastSessionEnd = auth.lastSessionEnd
            showPendingDeletion()
        }
        // The badge and the unlock's end come when the social service answers; a sign-in
        // does not wait for them.
        refresh()
        // A user whose deletion is scheduled syncs nothing until the account is restored.
        if user != nil, scheduledDeletion == nil { backgroundSync?.start() }
    }
}
