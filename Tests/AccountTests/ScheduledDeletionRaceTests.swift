import Foundation
import Testing
import TrainAccount
import TrainAuth
import TrainCore
import TrainSocial
import TrainSubscription
import TrainSync
import TrainTesting

/// ACC-4 and ACC-2 against an attacker: a session that outlives its grace period, a
/// restore on another device, hiding everywhere, a user switch mid-call, a zero grace
/// period, a purge that waits for a running deletion, and user IDs that only look alike.
@Suite(.timeLimit(.minutes(1))) struct ScheduledDeletionRaceTests {
    static let day: TimeInterval = 86_400

    @Test(
        "a user signed in during the grace period who is still signed in when it ends leaves nothing behind the purge"
    )
    func purgeLeavesNoOrphansOfAStillSignedInUser() async throws {
        let remote = FakeRemotePlanStore.inMemory()
        let world = try AccountWorld(remote: remote)
        let grace = try await world.signIn(AccountWorld.grace)
        try await world.auth.signOut()
        let ada = try await world.signIn()
        try await world.makeBusy()
        try await world.account.scheduleDeletion(of: ada.id)

        // Day 10: Ada signs in (allowed during the grace period), sees the offer and does not restore.
        world.clock.advance(by: .seconds(10 * Self.day))
        #expect(try await world.signIn().id == ada.id)
        // Day 30: the grace period ends with her app still open, and the purge runs by itself.
        remote.controls.holdCalls()
        world.clock.advance(by: .seconds(20 * Self.day))
        await remote.controls.waitForHeldCalls() // the purge erases her remote plans: her social data went already
        try? await world.social.follow(grace.id) // her app, still signed in as her, acts meanwhile
        remote.controls.releaseHeldCalls()
        #expect(try await world.account.deletionCompletion(of: ada.id).userID == ada.id)
        #expect(world.auth.currentUser == nil)

        try await world.signIn(AccountWorld.grace)
        #expect(try await world.social.followers().isEmpty, "a purged account still follows Grace")
        #expect(try await world.social.searchUsers("Ada", limit: 10).isEmpty, "a purged account's profile came back")
        #expect(try await world.social.profile(grace.id).followerCount == 0)
    }

    @Test("an account restored on another device keeps its data here when this device runs the purges after the old date")
    func restoredElsewhereIsNotPurgedHere() async throws {
        let world = try AccountWorld()
        let ada = try await world.signIn()
        try await world.account.accept(.privacyPolicy, version: 1)
        try await world.account.scheduleDeletion(of: ada.id)

        // Ada restores the account from her other device (another account service, its own storage).
        let otherDevice = LocalAccountService(
            auth: world.auth, social: world.social, plans: world.plans, subscriptions: world.subscriptions, context: TrainContext(clock: world.clock))
        world.clock.advance(by: .seconds(5 * Self.day))
        try await world.signIn()
        try await otherDevice.restoreAccount()
        #expect(try world.auth.scheduledDeletions().isEmpty)

        // This device runs its purges only after the date the deletion was once due.
        world.clock.advance(by: .seconds(30 * Self.day))
        let reports = try await world.account.purgeDueDeletions()
        #expect(reports.isEmpty, "a live account is reported as purged: \(reports.map(\.userID))")
        #expect(try world.account.consentHistory().count == 1, "the live account's consent was deleted")
    }

    @Test("a user whose deletion is scheduled is hidden from follower and following lists too")
    func hiddenFromFollowLists() async throws {
        let world = try AccountWorld()
        let grace = try await world.signIn(AccountWorld.grace)
        try await world.auth.signOut()
        let ada = try await world.signIn()
        try await world.social.follow(grace.id)
        try await world.auth.signOut()
        try await world.signIn(AccountWorld.grace)
        try await world.social.follow(ada.id)
        try await world.auth.signOut()
        try await world.signIn()
        try await world.account.scheduleDeletion(of: ada.id)

        try await world.signIn(AccountWorld.grace)
        await #expect(throws: SocialError(.userNotFound)) { try await world.social.profile(ada.id) }
        #expect(try await world.social.followers().map(\.id).contains(ada.id) == false, "Ada shows in Grace's followers")
        #expect(try await world.social.following().map(\.id).contains(ada.id) == false, "Ada shows in Grace's following")
    }

    @Test("another user cannot follow, like or comment on a hidden user: they are not found, as their profile and posts are")
    func hiddenUserCannotBeReached() async throws {
        let world = try AccountWorld()
        let ada = try await world.signIn()
        let post = try await world.social.createPost(content: "Ada's tempo run", workoutType: .run)
        try await world.account.scheduleDeletion(of: ada.id)

        try await world.signIn(named: "carol")
        await #expect(throws: SocialError(.postNotFound)) { try await world.social.likes(on: post.id) }
        await #expect(throws: SocialError.self, "liking a hidden user's post") { try await world.social.like(post.id) }
        await #expect(throws: SocialError.self, "commenting on a hidden user's post") {
            _ = try await world.social.comment(on: post.id, text: "Nice")
        }
        await #expect(throws: SocialError.self, "following a hidden user") { try await world.social.follow(ada.id) }
    }

    @Test("scheduling a deletion never schedules another user who signed in while it was on its way")
    func scheduleDeletionOnlyEverSchedulesTheCaller() async throws {
        let stack = try FakeStack()
        let bob = UserEntity(id: "fake-user-2", displayName: "Bob", createdAt: .now, lastSignInAt: .now)
        stack.auth.controls.holdCalls()
        let account = stack.account
        let userID = stack.userID
        let scheduling = Task { try await account.scheduleDeletion(of: userID) }
        await stack.auth.controls.waitForHeldCalls() // the revocation
        stack.auth.controls.releaseHeldCalls(holdingNext: true)
        await stack.auth.controls.waitForHeldCalls()
        let held = stack.auth.calls.last?.isCall(of: .scheduleAccountDeletion) == true
        #expect(held, "the call on its way is scheduleAccountDeletion(of:at:)")
        stack.auth.setCurrentUser(bob) // Bob signs in on the device meanwhile
        stack.auth.script(.scheduleAccountDeletion, .throwing(AuthenticationError(.userMismatch))) // as LocalAuthService refuses it
        stack.auth.controls.releaseHeldCalls()
        let outcome = await scheduling.result

        #expect(try stack.auth.scheduledDeletion(of: bob.id) == nil, "Bob's account is scheduled for deletion; he never asked")
        #expect(throws: AccountError(.notSignedIn)) { try outcome.get() }
        #expect(try stack.auth.scheduledDeletions().isEmpty)
    }

    @Test("a purge round whose list of schedules was read before a deletion's schedule was written keeps that deletion's journal")
    func purgeRoundWithALaggingListKeepsANewJournal() async throws {
        let stack = try FakeStack()
        let deletion = try await stack.account.scheduleDeletion(of: stack.userID)
        // The round reads the list as it was before the deletion's schedule was written.
        stack.auth.script(.scheduledDeletions, .once(.success([])))
        _ = try await stack.account.purgeDueDeletions()

        #expect(
            stack.auth.controls.peekScript("scheduledDeletions()", as: [AccountDeletionSchedule].self) == nil, "a round read the lagging list")
        let kept = try stack.account.pendingDeletion(of: stack.userID)
        #expect(kept?.deletion == deletion, "the journal keeps the deletion's date, revocation and warnings")
    }

    @Test("a finished deletion's report is never the completion of a user whose ID only looks alike")
    func lookalikeIDsDoNotShareACompletion() async throws {
        let stack = try FakeStack()
        stack.auth.setCurrentUser(UserEntity(id: Self.precomposed, displayName: "Café", createdAt: .now, lastSignInAt: .now))
        try await stack.account.deleteAccount(of: Self.precomposed)
        #expect(try await stack.account.deletionCompletion(of: Self.precomposed).userID == Self.precomposed)
        await #expect(throws: AccountError(.noScheduledDeletion)) { try await stack.account.deletionCompletion(of: Self.decomposed) }
    }

    /// Hands out the given IDs first, then random ones.
    struct GivenIDs: IDGenerator {
        let ids: Locked<[String]>
        init(_ ids: [String]) { self.ids = Locked(ids) }
        func makeID() -> String { ids.withLock { $0.isEmpty ? UUID().uuidString : $0.removeFirst() } }
    }

    static let precomposed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    /// Two accounts whose IDs are canonically equivalent but different strings of bytes,
    /// which the record store keeps as two keys; the first one's deletion is scheduled
    /// and due, and the second has a plan and a profile.
    static func lookalikes() async throws -> (
        auth: LocalAuthService, apple: SimulatedIdentityProvider, plans: LocalPlanSyncService, social: LocalSocialFeedService,
        clock: ManualClock
    ) {
        let clock = ManualClock()
        let apple = SimulatedIdentityProvider(provider: .apple, audience: AccountWorld.appleAudience, clock: clock)
        let auth = LocalAuthService(
            context: TrainContext(clock: clock, ids: GivenIDs([precomposed, decomposed])),
            configuration: AuthConfiguration(apple: IdentityProviderConfiguration(authorizer: apple, audience: AccountWorld.appleAudience)))
        let plans = LocalPlanSyncService(
            auth: auth, remote: LocalRemotePlanStore(context: TrainContext(clock: clock)), context: TrainContext(clock: clock))
        let social = LocalSocialFeedService(auth: auth, context: TrainContext(clock: clock))
        apple.signIn(as: AccountWorld.grace)
        let first = try await auth.signInWithApple()
        try await auth.signOut()
        apple.signIn(as: AccountWorld.ada)
        let second = try await auth.signInWithApple()
        #expect(first.id == precomposed && second.id == decomposed)
        #expect(!first.id.utf8.elementsEqual(second.id.utf8))
        _ = try await plans.createPlan(
            TrainingPlan(name: "10k", startDate: clock.now, endDate: clock.now.addingTimeInterval(28 * day), daysPerWeek: 3))
        try await plans.sync()
        _ = try await social.unlockFeed(workoutType: .run)
        try await auth.signOut()
        apple.signIn(as: AccountWorld.grace)
        _ = try await auth.signInWithApple()
        try await auth.scheduleAccountDeletion(of: precomposed, at: clock.now.addingTimeInterval(60))
        clock.advance(by: .seconds(60))
        return (auth, apple, plans, social, clock)
    }

    @Test("a purge of a user whose ID only looks like a due one's (canonically equivalent) is refused and deletes nothing")
    func lookalikeIsNotPurged() async throws {
        let (auth, apple, plans, social, _) = try await Self.lookalikes()
        await #expect(throws: SyncError(.notAuthorized)) { try await plans.purgeAccountData(of: Self.decomposed) }
        await #expect(throws: SocialError(.notAuthorized)) { try await social.purgeAccountData(of: Self.decomposed) }
        apple.signIn(as: AccountWorld.ada)
        #expect(try await auth.signInWithApple().id == Self.decomposed)
        #expect(try plans.plans().count == 1, "another user's plans were purged")
    }

    @Test("a user whose ID only looks like a scheduled one's is not hidden")
    func lookalikeIsNotHidden() async throws {
        let (auth, apple, _, social, _) = try await Self.lookalikes()
        apple.signIn(as: SimulatedIdentityProvider.Account(subject: "sub.carol", email: "carol@example.com", fullName: FullName(givenName: "Carol")))
        _ = try await auth.signInWithApple()
        #expect(try await social.profile(Self.decomposed).id == Self.decomposed)
    }

    @Test("reading the schedule never crashes, whatever IDs the accounts have")
    func scheduleOfLookalikesDoesNotCrash() async {
        await #expect(processExitsWith: .success) {
            let (auth, apple, _, _, clock) = try await ScheduledDeletionRaceTests.lookalikes()
            apple.signIn(as: AccountWorld.ada)
            _ = try await auth.signInWithApple()
            try await auth.scheduleAccountDeletion(of: ScheduledDeletionRaceTests.decomposed, at: clock.now.addingTimeInterval(60))
            _ = try auth.scheduledDeletions()
        }
    }
}
