import Foundation
import Testing
import TrainAccount
import TrainAuth
import TrainCore
import TrainSocial
import TrainSubscription
import TrainSync
import TrainTesting

/// A world exported to a snapshot and a stack started from one: the same bytes out as
/// in, and the same answers from the imported world as from the original.
@MainActor
@Suite(.timeLimit(.minutes(2))) struct WorldSnapshotTests {

    let clock = ManualClock()
    var configuration: TrainServicesConfiguration { TrainServicesConfiguration(context: TrainContext(clock: clock)) }

    /// A world made by calls: Ada follows Grace and Linus, Grace posts, Ada likes and
    /// comments, Linus blocks Grace, Ada buys Pro.
    func worldMadeByCalls() async throws -> TrainServices {
        let services = TrainServices.inMemory(configuration: configuration)
        services.appleID.signIn(as: .ada)
        let ada = try await services.auth.signInWithApple()
        let grace = try await services.addUser(named: "Grace Hopper", email: "grace@example.com")
        let linus = try await services.addUser(named: "Linus")
        let gracePhone = try services.makeDevice(for: grace.id)
        _ = try await gracePhone.social.unlockFeed(workoutType: .run)
        let post = try await gracePhone.social.createPost(content: "6 × 800 m\non the track", workoutType: .run)
        clock.advance(by: .seconds(90))
        try await services.social.follow(grace.id)
        try await services.social.follow(linus.id)
        _ = try await services.social.unlockFeed(workoutType: .strength)
        try await services.social.like(post.id)
        _ = try await services.social.comment(on: post.id, text: "Fast!")
        let linusPhone = try services.makeDevice(for: linus.id)
        _ = try await linusPhone.social.unlockFeed(workoutType: .run)
        _ = try await linusPhone.social.createPost(content: "Hills", workoutType: .run)
        try await services.social.mute(linus.id)
        try await linusPhone.social.block(grace.id)
        _ = try await services.subscriptions.purchase("com.train.pro.monthly")
        try services.appStore.createFamily(organizer: services.appStore.appleID)
        try services.appStore.addToFamily(.standard(forUser: grace.id), organizer: services.appStore.appleID)
        let start = clock.now
        _ = try await services.plans.createPlan(
            TrainingPlan(
                name: "Spring 10k", startDate: start, endDate: start.addingTimeInterval(56 * 86_400), daysPerWeek: 4,
                weeklyWorkouts: [PlannedWorkout(title: "Easy run", minutes: 40)]))
        try await services.plans.sync()
        _ = try await gracePhone.plans.createPlan(TrainingPlan(name: "Base", startDate: start, endDate: start, daysPerWeek: 3))
        try await gracePhone.plans.sync()
        #expect(ada.id != grace.id)
        return services
    }

    @Test("export, import and export again give the same bytes, in memory and in files")
    func sameBytes() async throws {
        let original = try await worldMadeByCalls()
        let first = try original.exportWorld().encoded()
        let snapshot = try WorldSnapshot(json: first)
        #expect(snapshot.users.count == 3 && snapshot.posts.count == 2 && snapshot.likes.count == 1 && snapshot.comments.count == 1)
        #expect(snapshot.mutes.count == 1)
        #expect(snapshot.follows.count == 2 && snapshot.blocks.count == 1 && snapshot.purchases.count == 1)
        #expect(snapshot.families.map(\.members.count) == [1])
        #expect(snapshot.plans.map(\.name).sorted() == ["Base", "Spring 10k"])
        #expect(snapshot.posts.map { ($0.likeCount ?? 0) + ($0.commentCount ?? 0) }.sorted() == [0, 2])
        let inMemory = try TrainServices.inMemory(from: snapshot, configuration: configuration)
        #expect(try inMemory.exportWorld().encoded() == first)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("world-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let inFiles = try TrainServices.files(in: directory, from: snapshot, configuration: configuration)
        #expect(try inFiles.exportWorld().encoded() == first)
    }

    @Test("the imported world answers as the original does: feeds, relations, likes, comments, profiles, the tier and, after a sync, the plans")
    func sameBehaviour() async throws {
        let original = try await worldMadeByCalls()
        let ada = try #require(original.auth.currentUser)
        let imported = try TrainServices.inMemory(from: try original.exportWorld(), signedIn: ada.id, configuration: configuration)
        #expect(imported.auth.currentUser?.id == ada.id)
        _ = try await imported.social.unlockFeed(workoutType: .strength)
        let a = try await Self.answers(of: original)
        let b = try await Self.answers(of: imported)
        #expect(a == b)
        #expect(imported.subscriptions.currentTier == .pro, "the purchase is the signed-in user's, on the device's Apple ID")
    }

    /// What a signed-in user's screens show, as text to compare.
    static func answers(of services: TrainServices) async throws -> [String] {
        let feed = try await services.social.friendsFeed(limit: 20)
        var answers = feed.map { "\($0.id) \($0.userName) \($0.content) \($0.likeCount) \($0.commentCount) \($0.isLikedByViewer)" }
        answers += try await services.social.following().map { "following \($0.id) \($0.followerCount) \($0.followingCount)" }
        for post in feed {
            answers += try await services.social.comments(on: post.id).map { "comment \($0.id) \($0.userName ?? "") \($0.text)" }
            answers += try await services.social.likes(on: post.id).map { "like \($0.id)" }
        }
        answers.append("tier \(services.subscriptions.currentTier)")
        try await services.plans.sync()
        answers += try services.plans.plans().map { "plan \($0.id) \($0.name) \($0.daysPerWeek) \($0.weeklyWorkouts)" }
        return answers
    }

    @Test(
        "accounts holding what the services let in — a name cut with a space at its end, a provider's name with a line break, a 193-byte address — export and import to the same bytes"
    )
    func whatTheServicesLetIn() async throws {
        let services = TrainServices.inMemory(configuration: configuration)
        services.appleID.signIn(as: SimulatedIdentityProvider.Account(subject: "001.ada", fullName: FullName(givenName: "Ada\nLovelace")))
        _ = try await services.auth.signInWithApple()
        let longName = String(repeating: "a", count: 99) + " bcd"
        let grace = try await services.addUser(named: "Grace")
        try await services.auth.signOut()
        let address = String(repeating: "x", count: 64) + "@" + String(repeating: "d", count: 120) + ".example"
        _ = try await services.auth.createUser(email: address, password: "correct horse battery")
        _ = try await services.auth.updateProfile(displayName: longName, photoURL: nil)
        #expect(grace.displayName == "Grace")
        let first = try services.exportWorld().encoded()
        let imported = try TrainServices.inMemory(from: try WorldSnapshot(json: first), configuration: configuration)
        #expect(try imported.exportWorld().encoded() == first)
    }

    @Test(
        "with its secrets a world keeps the password hashes and the signing key, and a password signs in after the import; without them it does not")
    func secrets() async throws {
        let json = #"{"version": 1, "users": [{"id": "lin", "email": "lin@example.com", "password": "correct horse battery"}]}"#
        let original = try TrainServices.inMemory(from: try WorldSnapshot(json: Data(json.utf8)), configuration: configuration)
        let credential = SignInCredential.emailPassword(email: "lin@example.com", password: "correct horse battery")
        #expect(try await original.auth.signIn(with: credential).id == "lin", "a fixture's password is hashed at the import")
        _ = try await original.auth.idToken(forceRefresh: false)
        let faithful = try original.exportWorld(includingSecrets: true)
        #expect(faithful.users.first?.passwordHash != nil && faithful.tokenSigningKey != nil && faithful.users.first?.password == nil)
        let copy = try TrainServices.inMemory(from: faithful, configuration: configuration)
        #expect(try await copy.auth.signIn(with: credential).id == "lin")
        #expect(try copy.exportWorld(includingSecrets: true).encoded() == faithful.encoded(), "the same hash and key")

        let plain = try original.exportWorld()
        #expect(plain.users.first?.passwordHash == nil && plain.tokenSigningKey == nil)
        #expect(plain.users.first?.providers?.map(\.provider) == [.password])
        let reset = try TrainServices.inMemory(from: plain, configuration: configuration)
        await #expect(throws: AuthenticationError(.invalidCredential)) { try await reset.auth.signIn(with: credential) }
    }

    @Test("random worlds: an imported world exports the bytes it was imported from, in memory and in files")
    func randomWorlds() async throws {
        let seeds = ProcessInfo.processInfo.environment["TRAINKIT_SEEDS"].flatMap(Int.init) ?? 6
        for seed in 0..<UInt64(seeds) {
            var generator = SeededRandomNumberGenerator(seed: seed)
            let snapshot = Self.randomWorld(using: &generator, now: clock.now)
            let first = try TrainServices.inMemory(from: snapshot, configuration: configuration).exportWorld().encoded()
            let again = try WorldSnapshot(json: first)
            #expect(try TrainServices.inMemory(from: again, configuration: configuration).exportWorld().encoded() == first, "seed \(seed)")
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("world-\(seed)-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            #expect(
                try TrainServices.files(in: directory, from: again, configuration: configuration).exportWorld().encoded() == first, "seed \(seed)")
        }
    }

    /// A valid world of up to 8 users with random relations, posts with media or photos, likes, comments,
    /// reports, notifications of follows, purchases (some whose renewal failed to bill) and requests waiting, plans on the
    /// remote and edits of them on the device, consents and deletions in their grace period.
    static func randomWorld(using generator: inout SeededRandomNumberGenerator, now: Date) -> WorldSnapshot {
        var world = WorldSnapshot()
        let count = Int.random(in: 1...8, using: &generator)
        let ids = (0..<count).map { "user-\($0)" }
        for id in ids {
            let created = now.addingTimeInterval(-Double.random(in: 0...1_000_000, using: &generator))
            world.users.append(WorldSnapshot.User(id: id, displayName: Bool.random(using: &generator) ? "Name \(id)" : nil, createdAt: created))
        }
        var blocked: Set<[String]> = []
        for from in ids {
            for to in ids where from != to {
                switch Int.random(in: 0..<10, using: &generator) {
                case 0 where !blocked.contains([to, from]):
                    world.blocks.append(WorldSnapshot.Block(blocker: from, blocked: to))
                    blocked.formUnion([[from, to], [to, from]])
                case 1...4:
                    world.follows.append(WorldSnapshot.Follow(follower: from, followee: to))
                default: break
                }
            }
        }
        world.follows.removeAll { blocked.contains([$0.follower, $0.followee]) }
        for index in 0..<Int.random(in: 0...12, using: &generator) {
            let author = ids.randomElement(using: &generator) ?? ids[0]
            let date = now.addingTimeInterval(-Double.random(in: 0...200_000, using: &generator))
            var post = WorldSnapshot.Post(author: author, content: "Run \(index) ✓ e\u{301}", createdAt: date)
            post.id = UUID(
                uuid: (
                    UInt8.random(in: 0...255, using: &generator), UInt8.random(in: 0...255, using: &generator), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
                    UInt8(index), UInt8.random(in: 0...255, using: &generator)
                ))
            world.posts.append(post)
        }
        // Media from elsewhere, or the author's photos, one of them shown twice at times.
        for index in world.posts.indices {
            let author = world.posts[index].author
            switch Int.random(in: 0..<6, using: &generator) {
            case 0:
                world.posts[index].mediaURL = URL(string: "https://example.com/\(index).jpg")
            case 1 where world.photos.contains { $0.user == author }:
                world.posts[index].photo = world.photos.first { $0.user == author }?.id
            case 1, 2:
                let id = UUID(uuid: (UInt8(index), 9, 8, 7, 6, 5, 0x40, 3, 0x80, 1, 2, 3, 4, 5, 6, UInt8.random(in: 0...255, using: &generator)))
                world.photos.append(WorldSnapshot.Photo(user: author, id: id, data: Data([0xFF, 0xD8, 0xFF, 0xE0, UInt8(index)])))
                world.posts[index].photo = id
            default: break
            }
        }
        for index in world.users.indices where Int.random(in: 0..<4, using: &generator) == 0 {
            let id = UUID(uuid: (UInt8(index), 7, 7, 7, 6, 5, 0x40, 3, 0x80, 1, 2, 3, 4, 5, 6, UInt8.random(in: 0...255, using: &generator)))
            var photo = WorldSnapshot.Photo(user: world.users[index].id, id: id, data: Data([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, UInt8(index)]))
            photo.kind = .profilePhoto
            world.photos.append(photo)
            world.users[index].photo = id
        }
        let posts = world.posts.compactMap(\.id)
        for (index, post) in world.posts.enumerated() {
            for user in ids where !blocked.contains([user, post.author]) {
                if Int.random(in: 0..<3, using: &generator) == 0 { world.likes.append(WorldSnapshot.Like(user: user, post: posts[index])) }
                if Int.random(in: 0..<4, using: &generator) == 0 {
                    world.comments.append(WorldSnapshot.Comment(post: posts[index], author: user, text: "Nice \(index)", createdAt: post.createdAt))
                }
            }
        }
        var followed: [String: [WorldSnapshot.Notification.Cause]] = [:]
        for follow in world.follows where Bool.random(using: &generator) {
            let date = now.addingTimeInterval(-Double.random(in: 0...100_000, using: &generator))
            followed[follow.followee, default: []].append(.init(actor: follow.follower, date: date))
        }
        for (recipient, causes) in followed.sorted(by: { $0.key < $1.key }) {
            world.notifications.append(WorldSnapshot.Notification(recipient: recipient, kind: .follow, causes: causes))
        }
        for (index, post) in world.posts.enumerated() where Int.random(in: 0..<4, using: &generator) == 0 {
            if let reporter = ids.filter({ $0 != post.author }).randomElement(using: &generator) {
                world.reports.append(WorldSnapshot.Report(reporter: reporter, target: .post(posts[index]), reason: .spam, createdAt: post.createdAt))
            }
        }
        if ids.count >= 3, Bool.random(using: &generator) {
            let family = ids.prefix(3).map { AppleID.standard(forUser: $0).email }
            world.families.append(WorldSnapshot.Family(organizer: family[0], members: Array(family.dropFirst())))
        }
        for user in ids where Int.random(in: 0..<3, using: &generator) == 0 {
            let product = ["com.train.pro.monthly", "com.train.premium.yearly"].randomElement(using: &generator) ?? "com.train.pro.monthly"
            var purchase = WorldSnapshot.Purchase(user: user, product: product, purchasedAt: now.addingTimeInterval(-86_400))
            if product == "com.train.pro.monthly", Bool.random(using: &generator) {
                // An introductory week and a month, whose renewal failed to bill 12 to 15 days ago.
                purchase.purchasedAt = now.addingTimeInterval(-50 * 86_400)
                purchase.billingFailedAt = now.addingTimeInterval(-16 * 86_400)
                purchase.billingGracePeriod = Bool.random(using: &generator) ? true : nil
            }
            world.purchases.append(purchase)
        }
        for (index, user) in ids.enumerated() where Bool.random(using: &generator) {
            let start = now.addingTimeInterval(Double.random(in: -1_000_000...1_000_000, using: &generator))
            let workouts = (0..<Int.random(in: 0...3, using: &generator)).map { WorldSnapshot.Plan.Workout(title: "Run \($0)", minutes: 30 + $0) }
            var plan = WorldSnapshot.Plan(
                id: UUID(uuid: (UInt8(index), 1, 2, 3, 4, 5, 0x70, 7, 0x80, 9, 10, 11, 12, 13, 14, UInt8.random(in: 0...255, using: &generator))),
                user: user, name: "Plan \(index) ✓", startDate: start, endDate: start.addingTimeInterval(86_400 * 7), weeklyWorkouts: workouts)
            plan.notes = Bool.random(using: &generator) ? "Notes\nwith a line" : nil
            plan.lastModified = now.addingTimeInterval(-Double.random(in: 0...100_000, using: &generator))
            world.plans.append(plan)
        }
        for plan in world.plans where Int.random(in: 0..<3, using: &generator) == 0 {
            if Bool.random(using: &generator) {
                var edit = plan
                edit.name = "Edited \(plan.name)"
                edit.lastModified = now.addingTimeInterval(-Double.random(in: 0...100_000, using: &generator))
                world.devicePlans.append(edit)
            } else if let id = plan.id {
                world.devicePlanDeletions.append(WorldSnapshot.PlanDeletion(user: plan.user, id: id, deletedAt: now))
            }
        }
        for user in world.users where Bool.random(using: &generator) {
            world.consents.append(WorldSnapshot.Consent(user: user.id, document: .privacyPolicy, date: user.createdAt))
            if Bool.random(using: &generator) {
                world.consents.append(WorldSnapshot.Consent(user: user.id, document: .privacyPolicy, action: .withdrawn, date: now))
            }
        }
        for user in ids where Int.random(in: 0..<5, using: &generator) == 0 {
            world.pendingPurchases.append(
                WorldSnapshot.PendingPurchase(
                    user: user, product: "com.train.premium.yearly", kind: Bool.random(using: &generator) ? .askToBuy : .interrupted,
                    requestedAt: now.addingTimeInterval(-Double.random(in: 0...3_600, using: &generator))))
        }
        for user in ids where Int.random(in: 0..<4, using: &generator) == 0 {
            world.deletions.append(
                WorldSnapshot.Deletion(user: user, purgeAt: now.addingTimeInterval(Double.random(in: 1...2_592_000, using: &generator))))
        }
        return world
    }
}
