import Foundation
import Testing
import TrainAccount
import TrainAuth
import TrainCore
import TrainSocial
import TrainSubscription
import TrainSync
import TrainTesting

/// REL-6 over the whole stack: with Ada signed in, every public entry point that takes
/// or reaches another user's ID or object — a post, a comment, a plan, a photo, a
/// transaction, a user ID — is refused with its module's typed error and changes
/// nothing anybody can see; sensitive calls without a recent login are refused
/// (AUTH-4, ACC-2); and with nobody signed in, every call that acts as a user is
/// refused. Each case builds its own stack, takes a snapshot of what every user sees
/// (by signing each in and reading everything, export included), runs the call, and
/// takes the snapshot again.
@Suite(.timeLimit(.minutes(3))) struct CrossUserAuthorizationTests {
    @Test("a call on another user's things, without a recent login, or signed out is refused and changes nothing", arguments: Self.cases)
    func refusedAndUnchanged(_ authorizationCase: AuthorizationCase) async throws {
        try await Self.check(authorizationCase)
    }

    @Test("the world's snapshot sees a change Bob can see, so an unchanged snapshot means something")
    func snapshotSeesChanges() async throws {
        let world = try await CrossUserWorld.make()
        let before = try await world.snapshot()
        try await world.device.signIn(.bob)
        try await world.social.deleteComment(world.things.bobComment)
        try await world.device.signOut()
        let after = try await world.snapshot()
        #expect(before["bob"] != after["bob"])
        #expect(before["eve"] == after["eve"], "Bob blocks Eve: she sees none of his comments")
        #expect(before["device"] == after["device"])
    }

    /// Runs one case: snapshot, actor signed in as the case says, the call, snapshot.
    static func check(_ authorizationCase: AuthorizationCase) async throws {
        let world = try await CrossUserWorld.make(bobScheduled: authorizationCase.bobScheduled)
        let before = try await world.snapshot()
        let actorID = try await world.prepare(authorizationCase.actor, login: authorizationCase.login)
        let outcome: Result<[String], any Error>
        do {
            outcome = .success(try await authorizationCase.run(world))
        } catch {
            outcome = .failure(error)
        }
        switch (authorizationCase.expectation, outcome) {
        case (.refused(let expected, let matches), .failure(let error)):
            #expect(matches(error), "refused with \(error), not \(expected)")
        case (.refused(let expected, _), .success):
            Issue.record("not refused: expected \(expected)")
        case (.harmless, .failure(let error)):
            Issue.record("an allowed call failed: \(error)")
        case (.harmless, .success(let seen)):
            #expect(seen.isEmpty, "it showed another user's data: \(seen)")
        }
        #expect(world.auth.currentUser?.id == actorID, "the call changed who is signed in")
        let after = try await world.snapshot()
        // An allowed call may change the actor's own data, and nobody else's.
        let actorKey = authorizationCase.expectation.isRefusal ? nil : authorizationCase.actor.person?.rawValue
        for key in before.keys.sorted() where key != actorKey {
            guard before[key] != after[key] else { continue }
            let changed = zip(before[key] ?? [], after[key] ?? []).filter { $0 != $1 }.map { "\($0.0)\n  → \($0.1)" }
            Issue.record("what \(key) sees changed:\n\(changed.prefix(4).joined(separator: "\n"))")
        }
    }
}

// MARK: - Cases

/// One entry point called in one situation, and what must happen.
struct AuthorizationCase: Sendable, CustomTestStringConvertible {
    /// Who is signed in when the call is made.
    enum Actor: Sendable {
        case ada, eve, nobody

        var person: CrossUserPerson? {
            switch self {
            case .ada: .ada
            case .eve: .eve
            case .nobody: nil
            }
        }
    }

    /// How recent the actor's sign-in is.
    enum Login: Sendable {
        /// Signed in just now.
        case fresh
        /// Signed in 301 seconds ago: past the 300-second window.
        case stale
        /// The clock was set back a minute after the sign-in: a sign-in dated in the future.
        case clockSetBack
    }

    /// What must happen.
    enum Expectation: Sendable {
        /// The call throws the module's typed error.
        case refused(String, @Sendable (any Error) -> Bool)
        /// The call is allowed — a documented no-op, or a read or write of the caller's own
        /// data — and must show nothing of another user's and change nothing of theirs.
        case harmless

        var isRefusal: Bool {
            if case .refused = self { true } else { false }
        }
    }

    let name: String
    let actor: Actor
    let login: Login
    let bobScheduled: Bool
    let expectation: Expectation
    /// Makes the call; returns what of another user's data it showed.
    let run: @Sendable (CrossUserWorld) async throws -> [String]

    var testDescription: String { name }
}

extension AuthorizationCase {
    /// A case whose call returns nothing to look at.
    init(
        _ name: String, actor: Actor = .ada, login: Login = .fresh, bobScheduled: Bool = false, _ expectation: Expectation,
        doing action: @escaping @Sendable (CrossUserWorld) async throws -> Void
    ) {
        self.init(name: name, actor: actor, login: login, bobScheduled: bobScheduled, expectation: expectation) { world in
            try await action(world)
            return []
        }
    }

    /// An allowed call that reads: what it returns of another user's is a leak.
    static func seeing(
        _ name: String, actor: Actor = .ada, bobScheduled: Bool = false, _ run: @escaping @Sendable (CrossUserWorld) async throws -> [String]
    ) -> Self {
        Self(name: name, actor: actor, login: .fresh, bobScheduled: bobScheduled, expectation: .harmless, run: run)
    }
}

extension AuthorizationCase.Expectation {
    /// Refused with exactly this typed error (errors compare by code).
    static func refused<Failure: Error & Equatable & Sendable>(_ expected: Failure) -> Self {
        .refused("\(expected)", { ($0 as? Failure) == expected })
    }
}

extension CrossUserAuthorizationTests {
    typealias Case = AuthorizationCase

    static let cases: [Case] = crossUser + media + staleLogin + signedOut

    /// Ada (or Eve, whom Bob blocks) acts on Bob's things.
    static let crossUser: [Case] = [
        // Auth
        Case("auth: Ada re-authenticates with Bob's Apple credential", .refused(AuthenticationError(.userMismatch))) { world in
            _ = try await world.auth.reauthenticate(with: try await world.device.credential(of: .bob))
        },
        Case("auth: Ada re-authenticates with Bob's email and password", .refused(AuthenticationError(.userMismatch))) { world in
            _ = try await world.auth.reauthenticate(with: .emailPassword(email: CrossUserPerson.bob.email, password: CrossUserWorld.password))
        },
        Case("auth: Eve links Bob's Apple ID to her password account", actor: .eve, .refused(AuthenticationError(.credentialAlreadyInUse))) { world in
            _ = try await world.auth.link(try await world.device.credential(of: .bob))
        },
        Case("auth: Ada links a password on Bob's email address", .refused(AuthenticationError(.emailAlreadyInUse))) { world in
            _ = try await world.auth.link(.emailPassword(email: CrossUserPerson.bob.email, password: "another long password"))
        },
        Case("auth: Ada changes her email to Bob's", .refused(AuthenticationError(.emailAlreadyInUse))) { world in
            _ = try await world.auth.updateEmail(to: CrossUserPerson.bob.email)
        },
        Case("auth: Ada changes her email to Bob's, spelled otherwise", .refused(AuthenticationError(.emailAlreadyInUse))) { world in
            _ = try await world.auth.updateEmail(to: " BOB@Example.COM ")
        },
        Case("auth: a new account on Bob's email address", .refused(AuthenticationError(.emailAlreadyInUse))) { world in
            _ = try await world.auth.createUser(email: CrossUserPerson.bob.email, password: "another long password")
        },
        Case("auth: signing in as Bob with a wrong password", .refused(AuthenticationError(.invalidCredential))) { world in
            _ = try await world.auth.signIn(with: .emailPassword(email: CrossUserPerson.bob.email, password: "not bob's password"))
        },
        Case("auth: Ada schedules the deletion of Bob's account", .refused(AuthenticationError(.userMismatch))) { world in
            _ = try await world.auth.scheduleAccountDeletion(of: world.things.bob, at: world.clock.now.addingTimeInterval(30 * 86_400))
        },
        Case("auth: purging Bob's account, which is not scheduled for deletion", .refused(AuthenticationError(.operationNotAllowed))) { world in
            _ = try await world.auth.purgeScheduledAccount(world.things.bob)
        },
        // Social
        Case("social: Ada deletes Bob's post", .refused(SocialError(.notAuthorized))) { world in
            try await world.social.deletePost(world.things.bobPost)
        },
        Case("social: Ada deletes Bob's comment on his own post", .refused(SocialError(.notAuthorized))) { world in
            try await world.social.deleteComment(world.things.bobComment)
        },
        Case("social: Ada deletes Bob's comment on Carol's post", .refused(SocialError(.notAuthorized))) { world in
            try await world.social.deleteComment(world.things.bobCommentOnCarol)
        },
        Case("social: Ada posts with Bob's photo", .refused(SocialError(.notAuthorized))) { world in
            _ = try await world.social.createPost(content: "Look", workoutType: .run, mediaURL: world.media.url(for: world.things.bobPhoto))
        },
        Case("social: Ada purges Bob's social data, no deletion scheduled", .refused(SocialError(.notAuthorized))) { world in
            _ = try await world.social.purgeAccountData(of: world.things.bob)
        },
        Case("social: Ada, who is no moderator, takes Bob's post down", .refused(SocialError(.notAuthorized))) { world in
            try await world.social.moderate(.post(world.things.bobPost), action: .takeDown, note: nil)
        },
        Case("social: Ada, who is no moderator, suspends Bob", .refused(SocialError(.notAuthorized))) { world in
            try await world.social.moderate(.user(world.things.bob), action: .suspend, note: nil)
        },
        Case("social: Ada, who is no moderator, reads the reports waiting for moderators", .refused(SocialError(.notAuthorized))) { world in
            _ = try await world.social.moderationQueue(limit: 100, after: nil)
        },
        Case("social: Ada, who is no moderator, reads the moderators' audit trail", .refused(SocialError(.notAuthorized))) { world in
            _ = try await world.social.moderationLog(limit: 100, after: nil)
        },
        Case("social: Ada unlikes Bob's post, which Bob likes and she does not", .harmless) { world in
            try await world.social.unlike(world.things.bobPost)
        },
        Case("social: Ada unfollows Bob, whom she does not follow", .harmless) { world in
            try await world.social.unfollow(world.things.bob)
        },
        Case("social: Ada unblocks Eve, whom Bob blocks", .harmless) { world in
            try await world.social.unblock(world.things.eve)
        },
        .seeing("social: Ada's export holds nothing of Bob's") { world in
            let export = try await world.social.exportAccountData()
            return export.posts.filter { $0.userID != world.things.ada }.map { "post \($0.id)" }
                + export.comments.filter { $0.userID != world.things.ada }.map { "comment \($0.id)" }
                + export.likedPostIDs.filter { $0 == world.things.bobPost }.map { "like of \($0)" }
        },
        Case("social: Eve, blocked by Bob, follows him", actor: .eve, .refused(SocialError(.blocked))) { world in
            try await world.social.follow(world.things.bob)
        },
        Case("social: Eve, blocked by Bob, likes his post", actor: .eve, .refused(SocialError(.blocked))) { world in
            try await world.social.like(world.things.bobPost)
        },
        Case("social: Eve, blocked by Bob, comments on his post", actor: .eve, .refused(SocialError(.blocked))) { world in
            _ = try await world.social.comment(on: world.things.bobPost, text: "hi")
        },
        Case("social: Eve, blocked by Bob, reads his profile", actor: .eve, .refused(SocialError(.userNotFound))) { world in
            _ = try await world.social.profile(world.things.bob)
        },
        Case("social: Eve, blocked by Bob, reads the likes on his post", actor: .eve, .refused(SocialError(.postNotFound))) { world in
            _ = try await world.social.likes(on: world.things.bobPost)
        },
        Case("social: Eve, blocked by Bob, reads the comments on his post", actor: .eve, .refused(SocialError(.postNotFound))) { world in
            _ = try await world.social.comments(on: world.things.bobPost)
        },
        .seeing("social: Eve's discover feed shows nothing of Bob, who blocks her", actor: .eve) { world in
            try await world.social.discoverFeed(limit: 100, after: nil).filter { $0.userID == world.things.bob }.map { "post \($0.id)" }
        },
        .seeing("social: Eve's search does not find Bob, who blocks her", actor: .eve) { world in
            try await world.social.searchUsers("Bob", limit: 100).filter { $0.id == world.things.bob }.map { "profile \($0.id)" }
        },
        // Plans
        .seeing("plans: Ada reads Bob's plan by ID") { world in
            try world.plans.plan(id: world.things.bobSyncedPlan.id).map { ["plan \($0.id)"] } ?? []
        },
        .seeing("plans: Ada reads the status of Bob's plan") { world in
            try world.plans.status(ofPlan: world.things.bobSyncedPlan.id).map { ["status \($0)"] } ?? []
        },
        .seeing("plans: Ada's plans hold none of Bob's") { world in
            try world.plans.plans().map { "plan \($0.id)" }
        },
        Case("plans: Ada saves Bob's plan as it is", .refused(SyncError(.notAuthorized))) { world in
            _ = try await world.plans.updatePlan(world.things.bobSyncedPlan)
        },
        Case("plans: Ada saves Bob's plan with the owner left out", .refused(SyncError(.recordNotFound))) { world in
            var plan = world.things.bobSyncedPlan
            plan.userID = ""
            plan.name = "Hijacked"
            _ = try await world.plans.updatePlan(plan)
        },
        Case("plans: Ada creates a plan owned by Bob", .refused(SyncError(.notAuthorized))) { world in
            let now = world.clock.now
            _ = try await world.plans.createPlan(
                TrainingPlan(userID: world.things.bob, name: "Planted", startDate: now, endDate: now, daysPerWeek: 2))
        },
        Case("plans: Ada deletes Bob's plan", .refused(SyncError(.recordNotFound))) { world in
            try await world.plans.deletePlan(id: world.things.bobSyncedPlan.id)
        },
        Case("plans: Ada uploads Bob's queued plan", .refused(SyncError(.recordNotFound))) { world in
            _ = try await world.plans.uploadPlan(id: world.things.bobLocalPlan.id)
        },
        Case("plans: Ada resolves a conflict on Bob's plan", .refused(SyncError(.noConflict))) { world in
            var plan = world.things.bobSyncedPlan
            plan.userID = ""
            _ = try await world.plans.resolveConflict(planID: plan.id, keeping: plan)
        },
        Case("plans: Ada purges Bob's plans, no deletion scheduled", .refused(SyncError(.notAuthorized))) { world in
            _ = try await world.plans.purgeAccountData(of: world.things.bob)
        },
        Case("plans: a plan of Ada's with the ID of Bob's stays hers, synced, and Bob's is untouched", .harmless) { world in
            var plan = world.things.bobSyncedPlan
            plan.userID = ""
            plan.name = "Same ID"
            _ = try await world.plans.createPlan(plan)
            try await world.plans.sync()
        },
        .seeing("plans: Ada's sync leaves Bob's queued plan on the device, unsent") { world in
            let report = try await world.plans.sync()
            return try world.plans.plans().map { "plan \($0.id)" } + (report.uploaded > 0 ? ["uploaded \(report.uploaded)"] : [])
        },
        .seeing("plans: Ada's download brings none of Bob's plans") { world in
            _ = try await world.plans.downloadPlans()
            return try world.plans.plans().map { "plan \($0.id)" } + world.plans.conflictLog().map { "conflict \($0)" }
        },
        // Subscription
        Case("subscription: Ada finishes Bob's transaction", .refused(SubscriptionError(.notYourTransaction))) { world in
            try await world.subscriptions.finish(world.things.bobTransaction)
        },
        .seeing("subscription: Ada's entitlements hold none of Bob's") { world in
            try await world.subscriptions.currentEntitlements().map { "transaction \($0.unsafePayloadValue.id)" }
        },
        .seeing("subscription: Ada's subscription statuses hold none of Bob's") { world in
            try await world.subscriptions.subscriptionStatuses().map { "status of \($0.transaction.unsafePayloadValue.id)" }
        },
        .seeing("subscription: Ada's restore gives her none of Bob's tier") { world in
            let tier = try await world.subscriptions.restorePurchases()
            return tier == .free ? [] : ["tier \(tier)"]
        },
        Case(
            "subscription: Ada buying in the group of Bob's active subscription is told it is another account's",
            .refused(SubscriptionError(.subscribedWithAnotherAccount))
        ) { world in
            try await CrossUserSessions.purchase(in: world)
        },
        // Account
        Case("account: Ada exports Bob's data", .refused(AccountError(.notAuthorized))) { world in
            _ = try await world.account.exportData(of: world.things.bob)
        },
        Case("account: Ada deletes Bob's account", .refused(AccountError(.notAuthorized))) { world in
            _ = try await world.account.deleteAccount(of: world.things.bob)
        },
        Case("account: Ada schedules the deletion of Bob's account", .refused(AccountError(.notAuthorized))) { world in
            _ = try await world.account.scheduleDeletion(of: world.things.bob)
        },
        Case("account: Ada withdraws the consent Bob gave", .refused(AccountError(.noConsent))) { world in
            _ = try await world.account.withdrawConsent(to: .privacyPolicy)
        },
        .seeing("account: Ada's export holds nothing of Bob's") { world in
            let export = try await world.account.exportData(of: world.things.ada)
            return CrossUserWorld.foreign(in: export, owner: world.things.ada)
        },
        .seeing("account: Ada's consent history holds none of Bob's") { world in
            try world.account.consentHistory().map { "consent \($0)" }
                + (world.account.documentsNeedingConsent() == ConsentDocument.allCases ? [] : ["documents needing consent"])
        },
        Case("session: a session manager still showing Bob deletes his account", .refused(AccountError(.notAuthorized))) { world in
            try await CrossUserSessions.deleteWithStaleView(in: world)
        },
        Case("session: a session manager still showing Bob schedules his deletion", .refused(AccountError(.notAuthorized))) { world in
            try await CrossUserSessions.scheduleWithStaleView(in: world)
        },
        // Bob's deletion is scheduled and not due.
        Case("account: Ada restores Bob's scheduled account", bobScheduled: true, .refused(AccountError(.noScheduledDeletion))) { world in
            try await world.account.restoreAccount()
        },
        Case("session: Ada restores Bob's scheduled account", bobScheduled: true, .refused(AccountError(.noScheduledDeletion))) { world in
            try await CrossUserSessions.restore(in: world)
        },
        .seeing("account: Ada does not see Bob's scheduled deletion as hers", bobScheduled: true) { world in
            try world.account.scheduledDeletion().map { ["scheduled \($0.userID)"] } ?? []
        },
        .seeing("account: a purge before Bob's date deletes nothing", bobScheduled: true) { world in
            try await world.account.purgeDueDeletions().map { "purged \($0.userID)" }
        },
        Case("auth: Ada cancels Bob's scheduled deletion", bobScheduled: true, .refused(AuthenticationError(.userMismatch))) { world in
            try await world.auth.cancelScheduledDeletion(of: world.things.bob)
        },
        Case(
            "auth: Ada cancels her own deletion while only Bob's is scheduled", bobScheduled: true,
            .refused(AuthenticationError(.operationNotAllowed))
        ) {
            world in
            try await world.auth.cancelScheduledDeletion(of: world.things.ada)
        },
        Case("auth: Ada purges Bob's account before its date", bobScheduled: true, .refused(AuthenticationError(.operationNotAllowed))) { world in
            _ = try await world.auth.purgeScheduledAccount(world.things.bob)
        },
        Case("social: Ada purges Bob's social data before its date", bobScheduled: true, .refused(SocialError(.notAuthorized))) { world in
            _ = try await world.social.purgeAccountData(of: world.things.bob)
        },
        Case("plans: Ada purges Bob's plans before their date", bobScheduled: true, .refused(SyncError(.notAuthorized))) { world in
            _ = try await world.plans.purgeAccountData(of: world.things.bob)
        },
    ]

    /// Ada's own sensitive calls, 301 seconds after her sign-in or with a sign-in dated
    /// in the future: refused, her account and data untouched.
    static let staleLogin: [Case] = [
        Case("stale login: account deletion", login: .stale, .refused(AccountError(.requiresRecentLogin))) { world in
            _ = try await world.account.deleteAccount(of: world.things.ada)
        },
        Case("stale login: scheduled account deletion", login: .stale, .refused(AccountError(.requiresRecentLogin))) { world in
            _ = try await world.account.scheduleDeletion(of: world.things.ada)
        },
        Case("stale login: account deletion through the session manager", login: .stale, .refused(AccountError(.requiresRecentLogin))) { world in
            try await CrossUserSessions.deleteOwnAccount(in: world)
        },
        Case(
            "stale login: scheduled deletion through the session manager", login: .stale, .refused(AccountError(.requiresRecentLogin))
        ) { world in
            try await CrossUserSessions.scheduleOwnDeletion(in: world)
        },
        Case("stale login: auth account deletion", login: .stale, .refused(AuthenticationError(.requiresRecentLogin))) { world in
            _ = try await world.auth.deleteAccount()
        },
        Case("stale login: auth scheduled deletion", login: .stale, .refused(AuthenticationError(.requiresRecentLogin))) { world in
            _ = try await world.auth.scheduleAccountDeletion(of: world.things.ada, at: world.clock.now.addingTimeInterval(30 * 86_400))
        },
        Case("stale login: Apple token revocation", login: .stale, .refused(AuthenticationError(.requiresRecentLogin))) { world in
            _ = try await world.auth.revokeAppleToken()
        },
        Case("stale login: email change", login: .stale, .refused(AuthenticationError(.requiresRecentLogin))) { world in
            _ = try await world.auth.updateEmail(to: "ada.lovelace@example.com")
        },
        Case("stale login: unlinking a sign-in method", login: .stale, .refused(AuthenticationError(.requiresRecentLogin))) { world in
            _ = try await world.auth.unlink(.apple)
        },
        Case("sign-in dated in the future: account deletion", login: .clockSetBack, .refused(AccountError(.requiresRecentLogin))) { world in
            _ = try await world.account.deleteAccount(of: world.things.ada)
        },
        Case("sign-in dated in the future: email change", login: .clockSetBack, .refused(AuthenticationError(.requiresRecentLogin))) { world in
            _ = try await world.auth.updateEmail(to: "ada.lovelace@example.com")
        },
    ]

    /// Nobody signed in: every call that acts as a user is refused.
    static let signedOut: [Case] = {
        func refused<Failure: Error & Equatable & Sendable>(
            _ name: String, _ error: Failure, _ action: @escaping @Sendable (CrossUserWorld) async throws -> Void
        ) -> Case {
            Case("signed out: \(name)", actor: .nobody, .refused(error), doing: action)
        }
        let social = SocialError(.notSignedIn)
        let sync = SyncError(.notSignedIn)
        let auth = AuthenticationError(.notSignedIn)
        let account = AccountError(.notSignedIn)
        return [
            refused("social friends feed", social) { _ = try await $0.social.friendsFeed(limit: 20, after: nil) },
            refused("social discover feed", social) { _ = try await $0.social.discoverFeed(limit: 20, after: nil) },
            refused("social unlock", social) { _ = try await $0.social.unlockFeed(workoutType: .run) },
            refused("social post", social) { _ = try await $0.social.createPost(content: "Hello", workoutType: .run, mediaURL: nil) },
            refused("social delete Bob's post", social) { try await $0.social.deletePost($0.things.bobPost) },
            refused("social follow Bob", social) { try await $0.social.follow($0.things.bob) },
            refused("social unfollow Bob", social) { try await $0.social.unfollow($0.things.bob) },
            refused("social following", social) { _ = try await $0.social.following() },
            refused("social followers", social) { _ = try await $0.social.followers() },
            refused("social Bob's profile", social) { _ = try await $0.social.profile($0.things.bob) },
            refused("social search", social) { _ = try await $0.social.searchUsers("Bob", limit: 10) },
            refused("social like Bob's post", social) { try await $0.social.like($0.things.bobPost) },
            refused("social unlike Bob's post", social) { try await $0.social.unlike($0.things.bobPost) },
            refused("social likes on Bob's post", social) { _ = try await $0.social.likes(on: $0.things.bobPost) },
            refused("social comment on Bob's post", social) { _ = try await $0.social.comment(on: $0.things.bobPost, text: "hi") },
            refused("social comments on Bob's post", social) { _ = try await $0.social.comments(on: $0.things.bobPost) },
            refused("social delete Bob's comment", social) { try await $0.social.deleteComment($0.things.bobComment) },
            refused("social block Bob", social) { try await $0.social.block($0.things.bob) },
            refused("social unblock Eve", social) { try await $0.social.unblock($0.things.eve) },
            refused("social blocked users", social) { _ = try await $0.social.blockedUsers() },
            refused("social delete account data", social) { _ = try await $0.social.deleteAccountData() },
            refused("social export", social) { _ = try await $0.social.exportAccountData() },
            refused("social recount", social) { _ = try await $0.social.recount() },
            refused("plans list", sync) { _ = try $0.plans.plans() },
            refused("plans read Bob's plan", sync) { _ = try $0.plans.plan(id: $0.things.bobSyncedPlan.id) },
            refused("plans create", sync) { world in
                _ = try await world.plans.createPlan(TrainingPlan(name: "Mine", startDate: world.clock.now, endDate: world.clock.now, daysPerWeek: 3))
            },
            refused("plans update Bob's plan", sync) { _ = try await $0.plans.updatePlan($0.things.bobSyncedPlan) },
            refused("plans delete Bob's plan", sync) { try await $0.plans.deletePlan(id: $0.things.bobSyncedPlan.id) },
            refused("plans status of Bob's plan", sync) { _ = try $0.plans.status(ofPlan: $0.things.bobSyncedPlan.id) },
            refused("plans sync", sync) { _ = try await $0.plans.sync() },
            refused("plans upload Bob's plan", sync) { _ = try await $0.plans.uploadPlan(id: $0.things.bobLocalPlan.id) },
            refused("plans download", sync) { _ = try await $0.plans.downloadPlans() },
            refused("plans resolve a conflict", sync) {
                _ = try await $0.plans.resolveConflict(planID: $0.things.bobSyncedPlan.id, keeping: $0.things.bobSyncedPlan)
            },
            refused("plans conflict log", sync) { _ = try $0.plans.conflictLog() },
            refused("plans dead letters", sync) { _ = try $0.plans.deadLetters() },
            refused("plans delete account data", sync) { _ = try await $0.plans.deleteAccountData() },
            refused("auth re-authenticate with Bob's credential", auth) {
                _ = try await $0.auth.reauthenticate(with: try await $0.device.credential(of: .bob))
            },
            refused("auth link Bob's Apple ID", auth) { _ = try await $0.auth.link(try await $0.device.credential(of: .bob)) },
            refused("auth unlink", auth) { _ = try await $0.auth.unlink(.apple) },
            refused("auth email change", auth) { _ = try await $0.auth.updateEmail(to: "someone@example.com") },
            refused("auth credential state", auth) { _ = try await $0.auth.checkCredentialState() },
            refused("auth Apple token revocation", auth) { _ = try await $0.auth.revokeAppleToken() },
            refused("auth account deletion", auth) { _ = try await $0.auth.deleteAccount() },
            refused("auth scheduled deletion of Bob", auth) {
                _ = try await $0.auth.scheduleAccountDeletion(of: $0.things.bob, at: $0.clock.now.addingTimeInterval(86_400))
            },
            refused("auth cancel Bob's scheduled deletion", auth) { try await $0.auth.cancelScheduledDeletion(of: $0.things.bob) },
            refused("auth biometric setting", auth) { _ = try await $0.auth.isBiometricLockEnabled() },
            refused("auth biometric lock off", auth) { try await $0.auth.setBiometricLock(enabled: false, reason: "") },
            refused("account export of Bob", account) { _ = try await $0.account.exportData(of: $0.things.bob) },
            refused("account deletion of Bob", account) { _ = try await $0.account.deleteAccount(of: $0.things.bob) },
            refused("account scheduled deletion of Bob", account) { _ = try await $0.account.scheduleDeletion(of: $0.things.bob) },
            refused("account scheduled deletion read", account) { _ = try $0.account.scheduledDeletion() },
            refused("account restore", account) { try await $0.account.restoreAccount() },
            refused("account consent history", account) { _ = try $0.account.consentHistory() },
            refused("account documents needing consent", account) { _ = try $0.account.documentsNeedingConsent() },
            refused("account accept", account) { _ = try await $0.account.accept(.terms, version: 1) },
            refused("account withdraw", account) { _ = try await $0.account.withdrawConsent(to: .privacyPolicy) },
            refused("session account deletion", account) { try await CrossUserSessions.deleteOwnAccount(in: $0) },
            refused("session scheduled deletion", account) { try await CrossUserSessions.scheduleOwnDeletion(in: $0) },
            refused("session restore", account) { try await CrossUserSessions.restore(in: $0) },
            refused("session purchase", SubscriptionError(.noAppAccount)) { _ = try await CrossUserSessions.purchase(in: $0) },
            refused("subscription purchase", SubscriptionError(.noAppAccount)) { _ = try await $0.subscriptions.purchase("com.train.pro.monthly") },
            refused("subscription finish Bob's transaction", SubscriptionError(.notYourTransaction)) {
                try await $0.subscriptions.finish($0.things.bobTransaction)
            },
            .seeing("signed out: subscription entitlements show none of Bob's", actor: .nobody) { world in
                try await world.subscriptions.currentEntitlements().map { "transaction \($0.unsafePayloadValue.id)" }
                    + world.subscriptions.subscriptionStatuses().map { "status \($0.state)" }
                    + (world.subscriptions.currentTier == .free ? [] : ["tier \(world.subscriptions.currentTier)"])
            },
            .seeing("signed out: the feed is not unlocked for anybody", actor: .nobody) { world in
                world.social.hasFeedUnlocked() ? ["unlocked"] : []
            },
            .seeing("signed out: a purge with nothing due deletes nothing", actor: .nobody) { world in
                try await world.account.purgeDueDeletions().map { "purged \($0.userID)" }
            },
        ]
    }()

    /// The stack's media store checks writes and deletions against the signed-in user,
    /// and the export shows only what carries the exported user's App Store token.
    static let media: [Case] = [
        Case("media: Ada deletes Bob's post photo", .refused(SocialError(.notAuthorized))) { world in
            try await world.media.delete(world.things.bobPhoto)
        },
        Case("media: Ada deletes all of Bob's photos", .refused(SocialError(.notAuthorized))) { world in
            _ = try await world.media.deleteAll(for: world.things.bob)
        },
        Case("media: Ada stores a photo under Bob's prefix", .refused(SocialError(.notAuthorized))) { world in
            _ = try await world.media.put(CrossUserWorld.png, kind: .profilePhoto, for: world.things.bob)
        },
        Case("media: signed out, Bob's post photo is deleted", actor: .nobody, .refused(SocialError(.notSignedIn))) { world in
            try await world.media.delete(world.things.bobPhoto)
        },
        .seeing("account: Ada's export while the App Store token is still Bob's holds nothing of Bob's") { world in
            // The state between Ada's sign-in and the session manager binding her token
            // (or after a sign-out through the auth service alone, which unbinds nothing).
            await world.subscriptions.setAppAccountToken(try AppAccountToken.forUser(world.things.bob))
            let export = try await world.account.exportData(of: world.things.ada)
            return CrossUserWorld.foreign(in: export, owner: world.things.ada)
        },
    ]
}

// MARK: - The world

/// A person of the world, with the Apple ID they sign in with; Eve signs in with an
/// email address and password instead.
enum CrossUserPerson: String, CaseIterable, Sendable {
    case ada, bob, carol, eve

    var email: String { "\(rawValue)@example.com" }
    var usesPassword: Bool { self == .eve }

    var apple: SimulatedIdentityProvider.Account {
        let names = [
            "ada": ("001", "Ada", "Lovelace"), "bob": ("002", "Bob", "Beamon"), "carol": ("003", "Carol", "Shaw"), "eve": ("004", "Eve", "Adams"),
        ]
        let (number, given, family) = names[rawValue] ?? ("000", rawValue, "")
        return SimulatedIdentityProvider.Account(
            subject: "\(number).\(rawValue)", email: email, fullName: FullName(givenName: given, familyName: family))
    }
}

/// One in-memory stack on a manual clock, and the sign-ins an app makes on it: the
/// user's App Store token bound at sign-in and unbound at sign-out, as the session
/// manager does.
struct CrossUserDevice: Sendable {
    let clock: ManualClock
    let services: TrainServices

    init() {
        clock = ManualClock()
        // Access per app user: what one user bought never reaches another on the device.
        services = TrainServices.inMemory(
            configuration: TrainServicesConfiguration(
                context: TrainContext(clock: clock), subscriptionAccess: .appAccountToken, authPolicy: AuthPolicy(passwordIterations: 1_000)))
    }

    /// Signs `person` in (their account is made the first time) and binds their token.
    @discardableResult
    func signIn(_ person: CrossUserPerson, creating: Bool = false, unlocking: Bool = false) async throws -> UserEntity {
        let user: UserEntity
        switch (person.usesPassword, creating) {
        case (true, true): user = try await services.auth.createUser(email: person.email, password: CrossUserWorld.password)
        case (true, false): user = try await services.auth.signIn(with: .emailPassword(email: person.email, password: CrossUserWorld.password))
        case (false, _):
            services.appleID.signIn(as: person.apple)
            user = try await services.auth.signInWithApple()
        }
        await services.subscriptions.setAppAccountToken(try AppAccountToken.forUser(user.id))
        if unlocking, !services.social.hasFeedUnlocked() { _ = try await services.social.unlockFeed(workoutType: .run) }
        return user
    }

    func signOut() async throws {
        try await services.auth.signOut()
        await services.subscriptions.setAppAccountToken(nil)
    }

    /// A fresh Apple credential of `person`, as if they had picked their Apple ID in the sheet.
    func credential(of person: CrossUserPerson) async throws -> SignInCredential {
        services.appleID.signIn(as: person.apple)
        return try await services.auth.requestCredential(from: .apple)
    }
}

/// The IDs of what the world's users made.
struct CrossUserThings: Sendable {
    var ada = ""
    var bob = ""
    var carol = ""
    var eve = ""
    var adaPost = UUID()
    var bobPost = UUID()
    var carolPost = UUID()
    var evePost = UUID()
    var bobPhoto = MediaReference(userID: "", kind: .postPhoto, id: UUID(), contentType: .png)
    /// Bob's comment on his own post.
    var bobComment = UUID()
    var bobCommentOnCarol = UUID()
    /// Bob's plan, synced to the remote.
    var bobSyncedPlan = TrainingPlan(name: "-", startDate: .distantPast, endDate: .distantPast, daysPerWeek: 1)
    /// Bob's plan, only on the device, queued for upload.
    var bobLocalPlan = TrainingPlan(name: "-", startDate: .distantPast, endDate: .distantPast, daysPerWeek: 1)
    /// Bob's Pro purchase, not finished.
    var bobTransaction: UInt64 = 0

    var posts: [UUID] { [adaPost, bobPost, carolPost, evePost] }
}

/// Four users on one device. Bob has a post with a photo, a comment on it and one on
/// Carol's post, likes, follows Carol and Ada, is followed by Carol, blocks Eve, has a
/// synced plan and a queued one, a Pro subscription not finished, a password besides
/// Apple, and has accepted the privacy policy. Ada, Carol and Eve have a post each;
/// Eve's account is an email address with a password.
final class CrossUserWorld: Sendable {
    static let password = "correct horse battery staple"
    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 7, count: 24))

    let device: CrossUserDevice
    let things: CrossUserThings

    var clock: ManualClock { device.clock }
    var auth: any AuthService { device.services.auth }
    var social: LocalSocialFeedService { device.services.social }
    var plans: LocalPlanSyncService { device.services.plans }
    var subscriptions: LocalSubscriptionService { device.services.subscriptions }
    var account: LocalAccountService { device.services.account }
    var media: LocalMediaStore { device.services.media }

    private init(device: CrossUserDevice, things: CrossUserThings) {
        self.device = device
        self.things = things
    }

    /// Builds the world, nobody signed in at the end.
    /// - Parameter bobScheduled: Whether Bob then schedules his account's deletion (30 days ahead).
    static func make(bobScheduled: Bool = false) async throws -> CrossUserWorld {
        let device = CrossUserDevice()
        let services = device.services
        let now = device.clock.now
        var things = CrossUserThings()
        for (person, post) in [(CrossUserPerson.carol, "Carol's tempo run"), (.eve, "Eve's swim"), (.ada, "Ada's long ride")] {
            let user = try await device.signIn(person, creating: true, unlocking: true)
            let made = try await services.social.createPost(content: post, workoutType: .run, mediaURL: nil)
            switch person {
            case .carol: (things.carol, things.carolPost) = (user.id, made.id)
            case .eve: (things.eve, things.evePost) = (user.id, made.id)
            default: (things.ada, things.adaPost) = (user.id, made.id)
            }
            try await device.signOut()
        }
        let bob = try await device.signIn(.bob, creating: true, unlocking: true)
        things.bob = bob.id
        _ = try await services.auth.link(.emailPassword(email: CrossUserPerson.bob.email, password: password))
        things.bobPhoto = try await services.media.put(png, kind: .postPhoto, for: bob.id)
        things.bobPost = try await services.social.createPost(
            content: "Bob's hill repeats", workoutType: .run, mediaURL: services.media.url(for: things.bobPhoto)
        ).id
        try await services.social.like(things.bobPost)
        try await services.social.like(things.carolPost)
        things.bobComment = try await services.social.comment(on: things.bobPost, text: "Felt strong").id
        things.bobCommentOnCarol = try await services.social.comment(on: things.carolPost, text: "Nice pace").id
        try await services.social.follow(things.carol)
        try await services.social.follow(things.ada)
        try await services.social.block(things.eve)
        things.bobSyncedPlan = try await services.plans.createPlan(
            TrainingPlan(name: "Bob's 10k", startDate: now, endDate: now.addingTimeInterval(28 * 86_400), daysPerWeek: 3))
        try await services.plans.sync()
        things.bobLocalPlan = try await services.plans.createPlan(
            TrainingPlan(name: "Bob's marathon", startDate: now, endDate: now.addingTimeInterval(112 * 86_400), daysPerWeek: 5))
        guard case .success(let bought) = try await services.subscriptions.purchase("com.train.pro.monthly") else {
            throw CrossUserSetupError("Bob's purchase did not go through")
        }
        things.bobTransaction = bought.unsafePayloadValue.id
        try await services.account.accept(.privacyPolicy, version: 1)
        try await device.signOut()
        try await device.signIn(.carol)
        try await services.social.follow(things.bob)
        try await device.signOut()
        if bobScheduled {
            try await device.signIn(.bob)
            try await services.account.scheduleDeletion(of: things.bob)
            await services.subscriptions.setAppAccountToken(nil)
        }
        return CrossUserWorld(device: device, things: things)
    }

    /// Signs the actor in, as recently as the case says.
    /// - Returns: The actor's user ID, nil for nobody.
    func prepare(_ actor: AuthorizationCase.Actor, login: AuthorizationCase.Login) async throws -> String? {
        guard let person = actor.person else { return nil }
        let user = try await device.signIn(person)
        switch login {
        case .fresh: break
        case .stale: clock.advance(by: .seconds(301))
        case .clockSetBack: clock.setDate(clock.now.addingTimeInterval(-60))
        }
        return user.id
    }

    /// What each user sees of everything, read by signing each in and out again, and
    /// what the device keeps for all of them. A user's sign-in date is left out: reading
    /// changes it.
    func snapshot() async throws -> [String: [String]] {
        var seen: [String: [String]] = [:]
        for person in CrossUserPerson.allCases { seen[person.rawValue] = try await view(of: person) }
        let services = device.services
        seen["device"] = [
            "scheduled deletions \(try services.auth.scheduledDeletions().map { "\(name(of: $0.userID)) \($0.purgeAt)" }.sorted())",
            "pending deletions \(try services.account.pendingDeletions().map { name(of: $0.userID) }.sorted())",
            "Apple revocations \(services.appleID.revocationsRecorded.count)",
        ]
        return seen
    }

    private func view(of person: CrossUserPerson) async throws -> [String] {
        let services = device.services
        let user = try await device.signIn(person)
        var export = try await services.account.exportData(of: user.id)
        export.exportedAt = .distantPast
        export.user.lastSignInAt = .distantPast
        var lines = [
            "user \(export.user)", "profile \(String(describing: export.social.profile))", "posts \(export.social.posts)",
            "comments \(export.social.comments)", "liked \(export.social.likedPostIDs)", "following \(export.social.following.map(name(of:)))",
            "followers \(export.social.followers.map(name(of:)))", "blocked \(export.social.blocked.map(name(of:)))",
            "unlock \(String(describing: export.social.unlock))", "plans \(export.plans)", "token \(export.appAccountToken)",
            "entitlements \(export.entitlements)", "subscriptions \(export.subscriptions)", "consents \(export.consents)",
        ]
        for post in things.posts {
            let comments = try? await services.social.comments(on: post).map { "\($0.id) \($0.userID.map(name(of:)) ?? "-") \($0.text)" }
            lines.append("comments on \(post): \(String(describing: comments))")
            lines.append("likes on \(post): \(String(describing: try? await services.social.likes(on: post).map { name(of: $0.id) }))")
        }
        for plan in [things.bobSyncedPlan.id, things.bobLocalPlan.id] {
            lines.append("status of \(plan): \(String(describing: try services.plans.status(ofPlan: plan)))")
        }
        lines.append(
            "outbox \(try services.plans.pendingCount()), conflicts \(try services.plans.conflictLog()), dead \(try services.plans.deadLetters())")
        let remote = try await services.remote.snapshot(
            in: RemoteScope(userID: user.id, collection: TrainingPlan.recordType), after: nil, limit: 1_000)
        lines.append("remote \(remote.records.map { "\($0.id) v\($0.version) deleted \($0.isDeleted) \($0.document.count) bytes" })")
        lines.append("media \(try await services.media.list(for: user.id))")
        let token = try AppAccountToken.forUser(user.id)
        lines.append("ledger \(services.appStore.allTransactions.map(\.unsafePayloadValue).filter { $0.appAccountToken == token })")
        lines.append("tier \(services.subscriptions.currentTier)")
        lines.append("scheduled \(String(describing: try services.account.scheduledDeletion()))")
        if person == .bob {
            let unfinished = await services.subscriptions.transactionUpdates().collect(1)
            lines.append("unfinished \(unfinished.map(\.unsafePayloadValue.id))")
            let password = try? await services.auth.reauthenticate(with: .emailPassword(email: person.email, password: Self.password))
            lines.append("password accepted \(password != nil)")
        }
        try await device.signOut()
        return lines
    }

    /// The person's name for an ID of the world, or the ID.
    func name(of userID: String) -> String {
        [things.ada: "ada", things.bob: "bob", things.carol: "carol", things.eve: "eve"][userID] ?? userID
    }

    /// What of others' data an export of `owner` holds: their posts, comments, plans,
    /// consents-free records and transactions.
    static func foreign(in export: AccountExport, owner: String) -> [String] {
        let token = try? AppAccountToken.forUser(owner)
        return export.social.posts.filter { $0.userID != owner }.map { "post \($0.id)" }
            + export.social.comments.filter { $0.userID != owner }.map { "comment \($0.id)" }
            + export.plans.filter { $0.userID != owner }.map { "plan \($0.id)" }
            + export.entitlements.filter { $0.appAccountToken != token }.map { "transaction \($0.id)" }
            + (export.user.id == owner ? [] : ["user \(export.user.id)"]) + (export.appAccountToken == token ? [] : ["token"])
            + export.consents.map { "consent \($0)" }
    }
}

/// The world could not be built.
struct CrossUserSetupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Calls through a `UserSessionManager` over the world's stack, without background
/// sync (which would sync the plans of whoever it shows).
@MainActor
enum CrossUserSessions {
    static func makeSession(in world: CrossUserWorld) -> UserSessionManager {
        let services = world.device.services
        return UserSessionManager(auth: services.auth, subscriptions: services.subscriptions, social: services.social, account: services.account)
    }

    /// A session that showed Bob and has not yet seen Ada sign in: its deletion names Bob.
    private static func staleSessionShowingBob(in world: CrossUserWorld) async throws -> UserSessionManager {
        let session = makeSession(in: world)
        world.device.services.appleID.signIn(as: CrossUserPerson.bob.apple)
        try await session.signInWithApple()
        try await world.device.signIn(.ada)
        return session
    }

    static func deleteWithStaleView(in world: CrossUserWorld) async throws {
        let session = try await staleSessionShowingBob(in: world)
        _ = try await session.deleteAccount()
    }

    static func scheduleWithStaleView(in world: CrossUserWorld) async throws {
        let session = try await staleSessionShowingBob(in: world)
        _ = try await session.scheduleAccountDeletion()
    }

    static func deleteOwnAccount(in world: CrossUserWorld) async throws {
        let session = makeSession(in: world)
        await session.start()
        defer { session.stop() }
        _ = try await session.deleteAccount()
    }

    static func scheduleOwnDeletion(in world: CrossUserWorld) async throws {
        let session = makeSession(in: world)
        await session.start()
        defer { session.stop() }
        _ = try await session.scheduleAccountDeletion()
    }

    static func restore(in world: CrossUserWorld) async throws {
        let session = makeSession(in: world)
        await session.start()
        defer { session.stop() }
        try await session.restoreAccount()
    }

    /// Buys Pro through the session; returns the purchase if it went to anybody but the signed-in user.
    @discardableResult
    static func purchase(in world: CrossUserWorld) async throws -> [String] {
        let session = makeSession(in: world)
        await session.start()
        defer { session.stop() }
        let result = try await session.purchase("com.train.pro.monthly")
        guard case .success(let bought) = result, let user = world.auth.currentUser else { return ["purchase \(result)"] }
        let token = try AppAccountToken.forUser(user.id)
        return bought.unsafePayloadValue.appAccountToken == token ? [] : ["bought for another token"]
    }
}
