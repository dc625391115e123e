import Foundation
import Testing
import TrainAccount
import TrainAuth
import TrainCore
import TrainSocial
import TrainSubscription
import TrainSync
import TrainTesting

/// REL-3 and REL-5 across the services of the whole stack: many users calling every
/// service at once on one set of files, with an account deleted among them, and
/// seeded random sequences of calls — valid and invalid — on one device, with the
/// invariants checked as they go.
@Suite(.timeLimit(.minutes(3))) struct CrossServiceReliabilityTests {
    static let people = ["ada", "bob", "cy", "dee", "eli"]
    /// Dee's account is deleted half-way.
    static let deleted = 3

    // MARK: - REL-3

    @Test("1,000 concurrent calls of five users on one set of files, with an account deleted half-way, keep every invariant")
    func concurrentMixedCalls() async throws {
        let directory = try TemporaryDirectory()
        let folder = directory.file("Train")
        let clock = ManualClock()
        // The device's one Apple ID has one subscription per group: each person subscribes
        // in a group of their own.
        let products = Self.people.map { name in
            AppStoreProduct(
                id: "com.train.pro.monthly.\(name)", displayName: "Pro for \(name)", tier: .pro, period: .month, price: 4.99,
                subscriptionGroupID: "train.\(name)")
        }
        let configuration = TrainServicesConfiguration(context: TrainContext(clock: clock), products: products)
        // One stack per user on the same files — as an app and its extensions — each
        // with its own signed-in user. All are opened before anyone signs in.
        let stacks = try Self.people.map { _ in try TrainServices.files(in: folder, configuration: configuration) }
        var ids: [String] = []
        var seedPosts: [UUID] = []
        for (stack, name) in zip(stacks, Self.people) {
            stack.appleID.signIn(as: ReliabilityPeople.account(name))
            let user = try await stack.auth.signInWithApple()
            await stack.subscriptions.setAppAccountToken(try AppAccountToken.forUser(user.id))
            _ = try await stack.social.unlockFeed(workoutType: .run)
            let photo = try await stack.media.put(ReliabilityPeople.png, kind: .postPhoto, for: user.id)
            let post = try await stack.social.createPost(content: "\(name)'s first run", workoutType: .run, mediaURL: stack.media.url(for: photo))
            seedPosts.append(post.id)
            _ = try await stack.plans.createPlan(
                TrainingPlan(name: "\(name)'s base", startDate: clock.now, endDate: clock.now.addingTimeInterval(28 * 86_400), daysPerWeek: 3))
            _ = try await stack.subscriptions.purchase("com.train.pro.monthly.\(name)")
            try await stack.account.accept(.privacyPolicy, version: 1)
            ids.append(user.id)
        }
        let dee = ids[Self.deleted]
        for (index, stack) in stacks.enumerated() where index != Self.deleted { try await stack.social.follow(dee) }
        try await stacks[Self.deleted].social.follow(ids[0])
        _ = try await stacks[Self.deleted].social.comment(on: seedPosts[0], text: "Nice one")
        try await stacks[Self.deleted].social.like(seedPosts[1])

        let calls = ConcurrentCalls(stacks: stacks, ids: ids, posts: seedPosts)
        // First half: everyone, Dee included.
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<500 { group.addTask { await calls.call(index, deleting: false) } }
        }
        // Second half: Dee's account is deleted while the others go on, many of their
        // calls aimed at her and her posts. Her own calls now only read, sync and
        // consent: her writes racing her deletion are `writesDuringOwnDeletion`'s case,
        // and one made in the instant between the data steps' last run and the
        // sign-in account step could still outlive it.
        let report = Locked<Result<AccountDeletionReport, any Error>?>(nil)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    try await stacks[Self.deleted].account.deleteAccount(of: dee)
                    let deleted = try await stacks[Self.deleted].account.deletionCompletion(of: dee)
                    report.withLock { $0 = .success(deleted) }
                } catch {
                    report.withLock { $0 = .failure(error) }
                }
            }
            for index in 501..<1_000 { group.addTask { await calls.call(index, deleting: true) } }
        }
        let deletion = try #require(report.withLock { $0 })
        let deletionReport = try deletion.get()
        #expect(deletionReport.social.posts >= 1 && deletionReport.plans.remoteRecords >= 1)
        #expect(stacks[Self.deleted].auth.currentUser == nil)
        for failure in calls.unexpected.withLock({ $0 }).prefix(10) { Issue.record("an unexpected failure: \(failure)") }
        #expect(calls.succeeded.withLock { $0 } > 500, "most of the 1,000 calls went through")

        let posts = calls.posts.withLock { $0 }
        try await Self.checkNothingLeft(of: dee, in: folder, stacks: stacks, posts: posts)
        try await Self.checkSurvivors(stacks: stacks, ids: ids, posts: posts)
        // The counts hold after a relaunch too.
        let relaunched = try TrainServices.files(in: folder, configuration: configuration)
        relaunched.appleID.signIn(as: ReliabilityPeople.account(Self.people[0]))
        _ = try await relaunched.auth.signInWithApple()
        #expect(try await relaunched.social.recount() == 0)
    }

    /// Nothing of the deleted user is left on the device, on the remote or in what
    /// any other user sees.
    static func checkNothingLeft(of userID: String, in folder: URL, stacks: [TrainServices], posts: [UUID]) async throws {
        let ghost = try ReliabilityObserver(userID: userID, folder: folder, remote: stacks[0].remote, media: stacks[0].media)
        let social = try await ghost.social.exportAccountData()
        #expect(social.profile == nil && social.posts.isEmpty && social.comments.isEmpty && social.likedPostIDs.isEmpty, "Dee's social data is left")
        #expect(social.following.isEmpty && social.followers.isEmpty && social.blocked.isEmpty && social.unlock == nil, "Dee's relations are left")
        #expect(try ghost.plans.plans().isEmpty && ghost.plans.pendingCount() == 0, "Dee's plans are left on the device")
        let remote = try await stacks[0].remote.snapshot(in: RemoteScope(userID: userID, collection: TrainingPlan.recordType), after: nil, limit: 100)
        #expect(remote.records.isEmpty, "Dee's plans are left on the remote")
        #expect(try await stacks[0].media.list(for: userID).isEmpty, "Dee's photos are left")
        #expect(try ghost.account.consentHistory().isEmpty, "Dee's consents are left")
        #expect(try stacks[0].account.pendingDeletion(of: userID) == nil)
        for (index, stack) in stacks.enumerated() where index != Self.deleted {
            let name = Self.people[index]
            #expect(try await !stack.social.following().map(\.id).contains(userID), "\(name) still follows Dee")
            #expect(try await !stack.social.followers().map(\.id).contains(userID), "Dee still follows \(name)")
            for post in posts {
                if let likes = try? await stack.social.likes(on: post) { #expect(!likes.map(\.id).contains(userID), "\(name) sees Dee's like") }
                if let comments = try? await stack.social.comments(on: post) {
                    #expect(!comments.contains { $0.userID == userID }, "\(name) sees Dee's name on a comment")
                }
            }
            var page = try await stack.social.discoverFeed(limit: 100, after: nil)
            while let last = page.last {
                #expect(!page.contains { $0.userID == userID }, "\(name) sees a post of Dee's")
                page = try await stack.social.discoverFeed(limit: 100, after: last.id)
            }
        }
    }

    /// Each survivor's export agrees with what the services show them, follows are
    /// symmetric and never cross a block, and every count equals its relations.
    static func checkSurvivors(stacks: [TrainServices], ids: [String], posts: [UUID]) async throws {
        var following: [String: Set<String>] = [:]
        var followers: [String: Set<String>] = [:]
        var blocks: [String: Set<String>] = [:]
        for (index, stack) in stacks.enumerated() where index != Self.deleted {
            let me = ids[index]
            let name = Self.people[index]
            _ = try await stack.plans.sync()
            let export = try await stack.account.exportData(of: me)
            following[me] = Set(try await stack.social.following().map(\.id))
            followers[me] = Set(try await stack.social.followers().map(\.id))
            blocks[me] = Set(try await stack.social.blockedUsers().map(\.id))
            let token = try AppAccountToken.forUser(me)
            #expect(export.user.id == me && export.appAccountToken == token)
            #expect(Set(export.social.following) == following[me] && Set(export.social.followers) == followers[me], "\(name)'s export follows")
            #expect(Set(export.social.blocked) == blocks[me], "\(name)'s export blocks")
            #expect(export.social.profile?.followingCount == following[me]?.count, "\(name)'s following count")
            #expect(export.social.profile?.followerCount == followers[me]?.count, "\(name)'s follower count")
            #expect(export.social.posts.allSatisfy { $0.userID == me } && export.social.comments.allSatisfy { $0.userID == me })
            let local = try stack.plans.plans()
            let remote = try await stack.remote.snapshot(in: RemoteScope(userID: me, collection: TrainingPlan.recordType), after: nil, limit: 1_000)
            #expect(export.plans == local && local.allSatisfy { $0.userID == me }, "\(name)'s export plans")
            #expect(Set(local.map(\.id)) == Set(remote.records.filter { !$0.isDeleted }.map(\.id)), "\(name)'s plans after a sync equal the remote's")
            let consents = try stack.account.consentHistory()
            #expect(export.consents == consents, "\(name)'s export consents")
            #expect(export.entitlements.allSatisfy { $0.appAccountToken == export.appAccountToken } && !export.entitlements.isEmpty)
            let decoded = try AccountExport.decode(try export.jsonData())
            #expect(
                decoded.user.id == me && decoded.plans.map(\.id) == export.plans.map(\.id)
                    && decoded.social.posts.map(\.id) == export.social.posts.map(\.id))
        }
        for (user, followed) in following {
            for other in followed {
                #expect(followers[other]?.contains(user) == true, "a follow kept one way only")
                #expect(blocks[user]?.contains(other) != true && blocks[other]?.contains(user) != true, "a follow across a block")
            }
        }
        #expect(try await stacks[0].social.recount() == 0, "counts differ from relations")
    }

    // MARK: - A deletion racing the user's own writes

    /// Found by the concurrent test when the user stayed signed in until the sign-in
    /// account step: what they wrote after their data's step ran outlived the account.
    /// Now the user is signed out before the purge begins, so nothing they write can.
    @Test("while the user's purge runs they are signed out: a like or a plan they try is refused, and nothing of theirs outlives the account")
    func writesDuringOwnDeletion() async throws {
        let remote = FakeRemotePlanStore.inMemory()
        let world = try AccountWorld(.file, remote: remote)
        try await world.signIn()
        let adasPost = try await world.social.createPost(content: "Ada's ride", workoutType: .run)
        let dee = try await world.signIn(named: "dee")
        remote.controls.holdCalls()
        try await world.account.deleteAccount(of: dee.id)
        // The purge is erasing the remote's plans: the social step is done.
        await remote.controls.waitForHeldCalls()
        await #expect(throws: SocialError(.notSignedIn)) { try await world.social.like(adasPost.id) }
        await #expect(throws: SyncError.self) {
            _ = try await world.plans.createPlan(
                TrainingPlan(name: "Made meanwhile", startDate: world.clock.now, endDate: world.clock.now, daysPerWeek: 2))
        }
        remote.controls.releaseHeldCalls()
        _ = try await world.account.deletionCompletion(of: dee.id)
        #expect(world.auth.currentUser == nil)

        let ghost = FakeAuthService(currentUser: dee)
        let database = StorageLocation.file(world.directory.file("train.sqlite"))
        let social = try LocalSocialFeedService(auth: ghost, storage: database)
        let plans = try LocalPlanSyncService(auth: ghost, remote: remote, storage: database)
        let left = try await social.exportAccountData()
        #expect(left.profile == nil && left.likedPostIDs.isEmpty, "Dee's profile and like outlive her account: \(left)")
        #expect(try plans.plans().isEmpty, "Dee's plan outlives her account")
        try await world.signIn()
        #expect(try await !world.social.likes(on: adasPost.id).map(\.id).contains(dee.id), "Ada sees a like of a deleted user")
    }

    // MARK: - REL-5

    @Test("random calls on every service — bad input, user switches, clock changes, deletions — never crash; a refusal is typed and changes nothing")
    func fuzz() async throws {
        var refusals: Set<String> = []
        for seed in SeededRandomNumberGenerator.seeds(default: 3) {
            var random = SeededRandomNumberGenerator(seed: seed)
            let fuzzer = try await ReliabilityFuzzer.make()
            var before = try await fuzzer.fingerprint()
            for step in 0..<ReliabilityFuzzer.steps {
                defer { fuzzer.history.append("\(step): \(fuzzer.lastOperation)") }
                // Half-way, somebody signs in and deletes their account, so every sequence has a deletion.
                let operation =
                    step == ReliabilityFuzzer.steps / 2
                    ? ReliabilityFuzzer.freshDeletion : ReliabilityFuzzer.schedule.randomElement(using: &random) ?? 0
                var name = "\(operation)"
                do {
                    name = try await fuzzer.perform(operation, random: &random)
                    fuzzer.lastOperation = name
                } catch {
                    fuzzer.lastOperation = "\(name) refused: \(error)"
                    guard let code = ReliabilityFuzzer.code(of: error) else {
                        Issue.record("seed \(seed) step \(step): operation \(name) threw \(type(of: error)), not a TrainKit error: \(error)")
                        continue
                    }
                    refusals.insert(code)
                    if code.hasSuffix(".storage") {
                        Issue.record("seed \(seed) step \(step): bad input to \(name) was reported as a storage failure: \(error)")
                    }
                    let after = try await fuzzer.fingerprint()
                    if after != before {
                        let changed = zip(before, after).filter { $0 != $1 }.map { "\($0.0)\n  → \($0.1)" }
                        Issue.record(
                            "seed \(seed) step \(step): refused \(name) (\(code)) changed what is kept; replay with TRAINKIT_SEED=\(seed):\n\(changed.prefix(3).joined(separator: "\n"))"
                        )
                    }
                }
                before = try await fuzzer.fingerprint()
                if step % 10 == 9 { try await fuzzer.checkInvariants(seed: seed, step: step) }
            }
            try await fuzzer.checkInvariants(seed: seed, step: ReliabilityFuzzer.steps)
        }
        // The sequences reached the refusals they are meant to try.
        #expect(refusals.count >= 15, "only \(refusals.sorted()) were refused")
    }
}

// MARK: - People

/// The people of these tests and the photo they post.
enum ReliabilityPeople {
    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 3, count: 24))

    static func account(_ name: String) -> SimulatedIdentityProvider.Account {
        SimulatedIdentityProvider.Account(
            subject: "sub.\(name)", email: "\(name)@example.com", fullName: FullName(givenName: name.capitalized, familyName: "Runner"))
    }
}

/// Services over the files of a stack that act as one user, whatever the stack's
/// session: to read what is kept of that user — a deleted one too — without signing
/// anybody in or out.
final class ReliabilityObserver: Sendable {
    let social: LocalSocialFeedService
    let plans: LocalPlanSyncService
    let account: LocalAccountService

    init(userID: String, folder: URL, remote: any RemotePlanStore, media: any MediaStore) throws {
        let auth = FakeAuthService(currentUser: UserEntity(id: userID, createdAt: .distantPast, lastSignInAt: .distantPast))
        let database = StorageLocation.file(folder.appendingPathComponent("trainkit.sqlite"))
        social = try LocalSocialFeedService(auth: auth, media: media, storage: database)
        plans = try LocalPlanSyncService(auth: auth, remote: remote, storage: database)
        account = try LocalAccountService(auth: auth, social: social, plans: plans, subscriptions: FakeSubscriptionService(), storage: database)
    }
}

// MARK: - The concurrent calls

/// The 1,000 calls: each user calls through their own stack.
final class ConcurrentCalls: Sendable {
    let stacks: [TrainServices]
    let ids: [String]
    let posts: Locked<[UUID]>
    /// Each user's plans, by user index.
    let plans = Locked([Int: [UUID]]())
    let succeeded = Locked(0)
    let unexpected = Locked([String]())

    init(stacks: [TrainServices], ids: [String], posts: [UUID]) {
        self.stacks = stacks
        self.ids = ids
        self.posts = Locked(posts)
    }

    /// Call number `index`: its user, its service and its target follow from the number.
    func call(_ index: Int, deleting: Bool) async {
        let user = index % ids.count
        let isDeleted = user == CrossServiceReliabilityTests.deleted
        do {
            if deleting && isDeleted {
                try await callDuringOwnDeletion(index)
            } else {
                try await call(index, as: user)
            }
            succeeded.withLock { $0 += 1 }
        } catch {
            guard Self.isRefusal(error, ofDeletedUser: deleting && isDeleted) else {
                unexpected.withLock { $0.append("call \(index) of \(CrossServiceReliabilityTests.people[user]): \(error)") }
                return
            }
        }
    }

    /// A refusal a call may meet: yourself, a block, another's post, a deleted post or
    /// plan, a signed-out user. A storage error is not one: it would mean a write lost
    /// to contention. An export fails only for the user being deleted.
    static func isRefusal(_ error: any Error, ofDeletedUser: Bool) -> Bool {
        switch error {
        case let error as SocialError: error.code != .storage
        case let error as SyncError: error.code != .storage
        case let error as AccountError: error.code != .storage && (ofDeletedUser || error.code != .exportFailed)
        case let error as AuthenticationError: error.code != .storage
        case is SubscriptionError: true
        default: false
        }
    }

    private func call(_ index: Int, as user: Int) async throws {
        let stack = stacks[user]
        let me = ids[user]
        let other = ids[(index / ids.count + index) % ids.count]
        let post = posts.withLock { $0[(index * 7) % $0.count] }
        let now = stack.configuration.context.clock.now
        switch index % 12 {
        case 0: try await stack.social.follow(other)
        case 1: try await stack.social.unfollow(other)
        case 2: try await stack.social.like(post)
        case 3: try await stack.social.unlike(post)
        case 4: _ = try await stack.social.comment(on: post, text: "go \(index)")
        case 5:
            let made = try await stack.social.createPost(content: "concurrent \(index)", workoutType: .run, mediaURL: nil)
            posts.withLock { $0.append(made.id) }
        case 6:
            let plan = try await stack.plans.createPlan(
                TrainingPlan(name: "plan \(index)", startDate: now, endDate: now.addingTimeInterval(7 * 86_400), daysPerWeek: 1 + index % 7))
            plans.withLock { $0[user, default: []].append(plan.id) }
        case 7:
            let id = plans.withLock { plans in plans[user].flatMap { $0.isEmpty ? nil : $0[(index / 12) % $0.count] } }
            guard let id, var plan = try stack.plans.plan(id: id) else { return }
            plan.name = "edited \(index)"
            plan.daysPerWeek = 1 + (index / 12) % 7
            _ = try await stack.plans.updatePlan(plan)
        case 8:
            if index % 36 == 8, let id = plans.withLock({ $0[user]?.popLast() }) {
                try await stack.plans.deletePlan(id: id)
            } else {
                _ = try await stack.plans.sync()
            }
        case 9:
            if (index / 12).isMultiple(of: 2) {
                try await stack.account.accept(.terms, version: 1)
            } else {
                try await stack.account.withdrawConsent(to: .terms)
            }
        case 10:
            let export = try await stack.account.exportData(of: me)
            let token = try AppAccountToken.forUser(me)
            let foreign =
                export.social.posts.contains { $0.userID != me } || export.plans.contains { $0.userID != me }
                || export.entitlements.contains { $0.appAccountToken != token } || export.user.id != me
            if foreign { unexpected.withLock { $0.append("call \(index): an export of \(me) holds another user's data") } }
        default:
            switch (index / 12) % 6 {
            case 0: try await stack.social.block(other)
            case 1: try await stack.social.unblock(other)
            case 2: _ = try await stack.social.discoverFeed(limit: 20, after: nil)
            default: _ = try await stack.social.friendsFeed(limit: 20, after: nil)
            }
        }
    }

    /// What the user being deleted still does meanwhile: reads, syncs and consents.
    private func callDuringOwnDeletion(_ index: Int) async throws {
        let stack = stacks[CrossServiceReliabilityTests.deleted]
        let me = ids[CrossServiceReliabilityTests.deleted]
        switch index % 4 {
        case 0: _ = try await stack.account.exportData(of: me)
        case 1: _ = try await stack.social.friendsFeed(limit: 20, after: nil)
        case 2: _ = try await stack.plans.sync()
        default: try await stack.account.accept(.terms, version: 1)
        }
    }
}

// MARK: - The fuzzer

/// One device's stack in files, three people signing in and out on it, and a random
/// call at each step; observers over the same files read each user's data without
/// touching the session.
final class ReliabilityFuzzer {
    static let steps = 80
    /// A sign-in followed by the deletion of that account.
    static let freshDeletion = 25
    /// The operations, each as often as its weight: signing in more than out, and
    /// the calls that make data more than the rest.
    static let schedule: [Int] = [3, 1, 2, 3, 1, 2, 1, 1, 2, 2, 1, 2, 3, 2, 1, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1].enumerated().flatMap {
        operation, weight in
        Array(repeating: operation, count: weight)
    }
    static let people = ["ada", "bob", "cy"]
    static let texts = [
        "", " \n ", "\u{0}", "a\u{0}b", "e\u{301}", "e\u{301}\u{301}\u{301}\u{301}", "\u{200B}", "\u{202E}evil", "ok", "🏃‍♀️ 5 km", "\u{7}bell",
        String(repeating: "x", count: 501), String(repeating: "é", count: 301), String(repeating: "ß", count: 5_000),
    ]
    static let goodTexts = ["Morning run", "e\u{301}tude 🏃‍♀️", "Intervals: 6 × 400 m", "Ça va"]
    static let badIDs = ["", "nobody", "\u{0}", "ada\u{0}", "A\u{301}da", String(repeating: "z", count: 600)]
    static let emails = [
        "", "not an email", "x@\u{0}.com", "ada@example.com", " ADA@Example.com ", "a\u{301}da@example.com",
        String(repeating: "a", count: 300) + "@example.com", "new@example.com",
    ]
    static let passwords = ["", "short", "correct horse battery staple", String(repeating: "\u{0}", count: 12), String(repeating: "p", count: 5_000)]
    static let products = ["com.train.pro.monthly", "com.train.premium.monthly", "", "\u{0}", "com.train.unknown"]
    static let limits = [Int.min, -1, 0, 1, 3, 100, 101, Int.max]
    static let urls = [
        "https://cdn.example.com/a.jpg", "http://cdn.example.com/a.jpg", "javascript:alert(1)", "file:///tmp/a.jpg", "https:///nohost",
    ]
    .compactMap(URL.init(string:))

    let directory: TemporaryDirectory
    let folder: URL
    let clock: ManualClock
    let services: TrainServices
    /// Every account made, by ID, with its person.
    private(set) var users: [String: String] = [:]
    /// Accounts deleted.
    private(set) var deleted: Set<String> = []
    /// What each step did, for a failure's message.
    var history: [String] = []
    var lastOperation = ""
    private var observers: [String: ReliabilityObserver] = [:]
    private var posts: [UUID] = [UUID()]
    private var comments: [UUID] = [UUID()]
    private var plans: [TrainingPlan] = []
    private var photos: [MediaReference] = []
    private var transactions: [UInt64] = [0, 999]

    private init(directory: TemporaryDirectory, clock: ManualClock, services: TrainServices) {
        self.directory = directory
        folder = directory.file("Train")
        self.clock = clock
        self.services = services
    }

    /// A stack with an account for each person, nobody signed in.
    static func make() async throws -> ReliabilityFuzzer {
        let directory = try TemporaryDirectory()
        let clock = ManualClock()
        let services = try TrainServices.files(
            in: directory.file("Train"),
            configuration: TrainServicesConfiguration(context: TrainContext(clock: clock), authPolicy: AuthPolicy(passwordIterations: 1_000)))
        let fuzzer = ReliabilityFuzzer(directory: directory, clock: clock, services: services)
        for person in people {
            try await fuzzer.signIn(person)
            _ = try await services.social.unlockFeed(workoutType: .run)
            fuzzer.posts.append(try await services.social.createPost(content: "\(person) is here", workoutType: .run, mediaURL: nil).id)
            try await fuzzer.signOut()
        }
        return fuzzer
    }

    private var me: String? { services.auth.currentUser?.id }

    private func signIn(_ person: String) async throws {
        services.appleID.signIn(as: ReliabilityPeople.account(person))
        let user = try await services.auth.signInWithApple()
        users[user.id] = person
        await services.subscriptions.setAppAccountToken(try AppAccountToken.forUser(user.id))
    }

    private func signOut() async throws {
        try await services.auth.signOut()
        await services.subscriptions.setAppAccountToken(nil)
    }

    private func observer(of userID: String) throws -> ReliabilityObserver {
        if let observer = observers[userID] { return observer }
        let observer = try ReliabilityObserver(userID: userID, folder: folder, remote: services.remote, media: services.media)
        observers[userID] = observer
        return observer
    }

    /// The TrainKit error's type and code, or nil for any other error.
    static func code(of error: any Error) -> String? {
        switch error {
        case let error as AuthenticationError: "AuthenticationError.\(error.code)"
        case let error as SocialError: "SocialError.\(error.code)"
        case let error as SyncError: "SyncError.\(error.code)"
        case let error as SubscriptionError: "SubscriptionError.\(error.code)"
        case let error as AccountError: "AccountError.\(error.code)"
        default: nil
        }
    }

    /// Does one random call; returns its description.
    func perform(_ operation: Int, random: inout SeededRandomNumberGenerator) async throws -> String {
        let social = services.social
        // Half of the texts and most targets are valid, so that calls also succeed and make data.
        let text = (Bool.random(using: &random) ? Self.texts : Self.goodTexts).randomElement(using: &random) ?? ""
        let target = (Int.random(in: 0..<4, using: &random) == 0 ? Self.badIDs : Array(users.keys).sorted()).randomElement(using: &random) ?? ""
        let post = posts.randomElement(using: &random) ?? UUID()
        let limit = Self.limits.randomElement(using: &random) ?? 0
        switch operation {
        case 0:
            let person = Self.people.randomElement(using: &random) ?? "ada"
            try await signIn(person)
            return "sign in as \(person)"
        case 1:
            try await signOut()
            return "sign out"
        case 2:
            _ = try await social.unlockFeed(workoutType: WorkoutType.standard.randomElement(using: &random) ?? .rest)
            return "unlock"
        case 3:
            let choices: [URL?] = [nil] + Self.urls + photos.map { services.media.url(for: $0) }
            let media = choices.randomElement(using: &random) ?? nil
            posts.append(try await social.createPost(content: text, workoutType: .run, mediaURL: media).id)
            return "post \(text.debugDescription.prefix(20)) with \(String(describing: media))"
        case 4:
            try await social.deletePost(post)
            return "delete post"
        case 5:
            try await social.follow(target)
            return "follow \(target.debugDescription.prefix(20))"
        case 6:
            try await social.unfollow(target)
            return "unfollow \(target.debugDescription.prefix(20))"
        case 7:
            if Bool.random(using: &random) { try await social.block(target) } else { try await social.unblock(target) }
            return "block or unblock \(target.debugDescription.prefix(20))"
        case 8:
            if Bool.random(using: &random) { try await social.like(post) } else { try await social.unlike(post) }
            return "like or unlike"
        case 9:
            comments.append(try await social.comment(on: post, text: text).id)
            return "comment \(text.debugDescription.prefix(20))"
        case 10:
            try await social.deleteComment(comments.randomElement(using: &random) ?? UUID())
            return "delete comment"
        case 11:
            switch Int.random(in: 0..<3, using: &random) {
            case 0: _ = try await social.friendsFeed(limit: limit, after: Bool.random(using: &random) ? post : nil)
            case 1: _ = try await social.discoverFeed(limit: limit, after: Bool.random(using: &random) ? post : nil)
            default: _ = try await social.searchUsers(text, limit: limit)
            }
            return "read the feed or search with limit \(limit)"
        case 12:
            plans.append(try await services.plans.createPlan(randomPlan(&random, id: UUID())))
            return "create a plan"
        case 13:
            let id = plans.randomElement(using: &random)?.id ?? UUID()
            plans.append(try await services.plans.updatePlan(randomPlan(&random, id: id)))
            return "update a plan"
        case 14:
            try await services.plans.deletePlan(id: plans.randomElement(using: &random)?.id ?? UUID())
            return "delete a plan"
        case 15:
            switch Int.random(in: 0..<3, using: &random) {
            case 0: _ = try await services.plans.sync()
            case 1: _ = try await services.plans.uploadPlan(id: plans.randomElement(using: &random)?.id ?? UUID())
            default: _ = try await services.plans.downloadPlans()
            }
            return "sync, upload or download"
        case 16:
            let document = ConsentDocument.allCases.randomElement(using: &random) ?? .terms
            if Bool.random(using: &random) {
                let version = Int.random(in: -1...2, using: &random)
                try await services.account.accept(document, version: version)
                return "accept \(document) version \(version)"
            }
            try await services.account.withdrawConsent(to: document)
            return "withdraw \(document)"
        case 17:
            let whom = Bool.random(using: &random) ? (me ?? target) : target
            _ = try await services.account.exportData(of: whom)
            return "export \(whom.debugDescription.prefix(20))"
        case 18:
            guard Bool.random(using: &random) else {
                _ = try services.account.consentHistory()
                return "consent history"
            }
            let whom = Int.random(in: 0..<4, using: &random) == 0 ? target : (me ?? target)
            let report = try await services.account.deleteAccount(of: whom)
            deleted.insert(report.userID)
            try await awaitPurges()
            return "delete the account of \(whom.debugDescription.prefix(20))"
        case 19:
            switch Int.random(in: 0..<6, using: &random) {
            case 0:
                clock.advance(by: .seconds(Int.random(in: 3_600...200_000, using: &random)))
                // A deletion whose grace period ended is purged now, not by the background
                // purge while a later step is checked.
                try await awaitPurges()
                return "a day or two passes"
            case 1: break
            default:
                clock.advance(by: .seconds(Int.random(in: 1...600, using: &random)))
                try await awaitPurges()
                return "minutes pass"
            }
            clock.setDate(clock.now.addingTimeInterval(-Double(Int.random(in: 1...7_200, using: &random))))
            return "the clock is set back"
        case 20:
            if Bool.random(using: &random) {
                let product = Self.products.randomElement(using: &random) ?? ""
                if case .success(let bought) = try await services.subscriptions.purchase(product) {
                    transactions.append(bought.unsafePayloadValue.id)
                }
                return "buy \(product.debugDescription)"
            }
            try await services.subscriptions.finish(transactions.randomElement(using: &random) ?? 0)
            return "finish a transaction"
        case 21:
            let data = [ReliabilityPeople.png, Data("garbage".utf8), Data()].randomElement(using: &random) ?? Data()
            let owner = [me ?? "", "", String(repeating: "o", count: 101)].randomElement(using: &random) ?? ""
            photos.append(try await services.media.put(data, kind: MediaKind.allCases.randomElement(using: &random) ?? .postPhoto, for: owner))
            return "put \(data.count) bytes of media for \(owner.debugDescription.prefix(20))"
        case 22:
            let email = Self.emails.randomElement(using: &random) ?? ""
            _ = try await services.auth.updateEmail(to: email)
            return "change the email to \(email.debugDescription.prefix(30))"
        case 23:
            let email = Self.emails.randomElement(using: &random) ?? ""
            let password = Self.passwords.randomElement(using: &random) ?? ""
            if Bool.random(using: &random) {
                let user = try await services.auth.signIn(with: .emailPassword(email: email, password: password))
                users[user.id] = users[user.id] ?? email
            } else {
                let user = try await services.auth.createUser(email: email, password: password)
                users[user.id] = email
            }
            if let me { await services.subscriptions.setAppAccountToken(try AppAccountToken.forUser(me)) }
            return "password sign-in or sign-up with \(email.debugDescription.prefix(30))"
        case 24:
            try await services.account.restoreAccount()
            return "restore"
        default:
            let person = Self.people.randomElement(using: &random) ?? "ada"
            try await signIn(person)
            let report = try await services.account.deleteAccount(of: me ?? "")
            deleted.insert(report.userID)
            try await awaitPurges()
            return "sign in as \(person) and delete the account"
        }
    }

    /// Runs the purges due now, as the background purge would, and records the renewals
    /// due, as the store's timer would: a refusal checked later sees a store nothing else
    /// is changing.
    private func awaitPurges() async throws {
        _ = try await services.account.purgeDueDeletions()
        services.appStore.settle()
    }

    /// A plan: valid half of the time, otherwise with one field invalid.
    private func randomPlan(_ random: inout SeededRandomNumberGenerator, id: UUID) -> TrainingPlan {
        let start = clock.now
        var plan = TrainingPlan(
            id: id, name: ["Base", "e\u{301}tude", "10k 🏃"].randomElement(using: &random) ?? "Base", notes: "Easy", startDate: start,
            endDate: start.addingTimeInterval(86_400 * Double(Int.random(in: 0...60, using: &random))),
            daysPerWeek: Int.random(in: 1...7, using: &random),
            weeklyWorkouts: [PlannedWorkout(title: "Run", minutes: Int.random(in: 1...120, using: &random))])
        switch Int.random(in: 0..<16, using: &random) {
        case 0: plan.name = ["", " ", "\u{0}", "a\u{0}b", String(repeating: "x", count: 201)].randomElement(using: &random) ?? ""
        case 1: plan.notes = ["\u{0}", String(repeating: "n", count: 10_001)].randomElement(using: &random) ?? ""
        case 2: plan.endDate = [start.addingTimeInterval(-1), Date(timeIntervalSinceReferenceDate: .infinity)].randomElement(using: &random) ?? start
        case 3: plan.daysPerWeek = [0, 8, -1, Int.max].randomElement(using: &random) ?? 0
        case 4: plan.weeklyWorkouts = [PlannedWorkout(title: " ", minutes: 30), PlannedWorkout(title: "Run", minutes: 1_441)]
        case 5: plan.userID = users.keys.filter { $0 != me }.sorted().randomElement(using: &random) ?? "someone-else"
        case 6: plan.userID = me ?? ""
        default: break
        }
        return plan
    }

    /// What every account keeps, read without touching the session, and what the
    /// device keeps for all.
    func fingerprint() async throws -> [String] {
        var lines = [
            "signed in \(String(describing: services.auth.currentUser))",
            "scheduled \(try services.auth.scheduledDeletions().map { "\($0.userID) \($0.purgeAt)" })",
            "pending deletions \(try services.account.pendingDeletions().map(\.userID).sorted())",
            "ledger \(services.appStore.allTransactions.map(\.unsafePayloadValue).map { "\($0.id) \($0.productID) \(String(describing: $0.appAccountToken))" })",
            "tier \(services.subscriptions.currentTier)",
        ]
        for userID in users.keys.sorted() {
            let observer = try observer(of: userID)
            let social = try await observer.social.exportAccountData()
            lines.append("\(userID) social \(social)")
            lines.append("\(userID) plans \(try observer.plans.plans()) outbox \(try observer.plans.pendingCount())")
            let remote = try await services.remote.snapshot(
                in: RemoteScope(userID: userID, collection: TrainingPlan.recordType), after: nil, limit: 1_000)
            lines.append("\(userID) remote \(remote.records.map { "\($0.id) v\($0.version) \($0.isDeleted)" })")
            lines.append("\(userID) media \(try await services.media.list(for: userID))")
            lines.append("\(userID) consents \(try observer.account.consentHistory())")
        }
        return lines
    }

    /// Counts equal relations, follows are symmetric and never cross a block, nothing
    /// of a deleted account is left, and the signed-in user's export is theirs alone.
    func checkInvariants(seed: UInt64, step: Int) async throws {
        let replay = "seed \(seed) step \(step): replay with TRAINKIT_SEED=\(seed)"
        let live = users.keys.filter { !deleted.contains($0) }.sorted()
        var following: [String: Set<String>] = [:]
        var followers: [String: Set<String>] = [:]
        var blocks: [String: Set<String>] = [:]
        for userID in live {
            let observer = try observer(of: userID)
            following[userID] = Set(try await observer.social.following().map(\.id))
            followers[userID] = Set(try await observer.social.followers().map(\.id))
            blocks[userID] = Set(try await observer.social.blockedUsers().map(\.id))
        }
        for (user, followed) in following {
            for other in followed {
                #expect(followers[other]?.contains(user) == true, "\(replay): \(user) follows \(other) one way only")
                #expect(blocks[user]?.contains(other) != true && blocks[other]?.contains(user) != true, "\(replay): a follow across a block")
                #expect(!deleted.contains(other), "\(replay): a follow of a deleted account")
            }
        }
        if let anyone = live.first {
            #expect(try await observer(of: anyone).social.recount() == 0, "\(replay): counts differ from relations")
        }
        for userID in deleted {
            let replay = replay + "; the steps before:\n" + history.suffix(12).joined(separator: "\n")
            let ghost = try observer(of: userID)
            let social = try await ghost.social.exportAccountData()
            #expect(
                social.profile == nil && social.posts.isEmpty && social.comments.isEmpty && social.likedPostIDs.isEmpty && social.following.isEmpty
                    && social.followers.isEmpty && social.unlock == nil, "\(replay): social data of deleted \(userID) is left")
            #expect(try ghost.plans.plans().isEmpty && ghost.plans.pendingCount() == 0, "\(replay): plans of deleted \(userID) are left")
            let remote = try await services.remote.snapshot(
                in: RemoteScope(userID: userID, collection: TrainingPlan.recordType), after: nil, limit: 100)
            #expect(remote.records.isEmpty, "\(replay): remote plans of deleted \(userID) are left")
            #expect(try await services.media.list(for: userID).isEmpty, "\(replay): photos of deleted \(userID) are left")
            #expect(try ghost.account.consentHistory().isEmpty, "\(replay): consents of deleted \(userID) are left")
        }
        guard let me else { return }
        let export = try await services.account.exportData(of: me)
        let token = try AppAccountToken.forUser(me)
        #expect(export.user.id == me && export.appAccountToken == token, "\(replay): the export is of another account")
        #expect(
            export.social.posts.allSatisfy { $0.userID == me } && export.social.comments.allSatisfy { $0.userID == me },
            "\(replay): foreign social data")
        #expect(
            export.plans.allSatisfy { $0.userID == me } && export.entitlements.allSatisfy { $0.appAccountToken == token }, "\(replay): foreign data")
        let social = try await observer(of: me).social.exportAccountData()
        #expect(export.social.posts.map(\.id) == social.posts.map(\.id), "\(replay): the export's posts are not the service's")
        let decoded = try AccountExport.decode(try export.jsonData())
        #expect(decoded.user.id == me && decoded.plans.map(\.id) == export.plans.map(\.id), "\(replay): the export's JSON does not read back")
    }
}
