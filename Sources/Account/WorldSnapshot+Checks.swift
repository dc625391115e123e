import Foundation
import TrainAuth
import TrainCore
import TrainSocial
import TrainSubscription
import TrainSync

/// The import's trust boundary: a snapshot is checked whole, and its defaults filled
/// in, before anything is written. The first thing wrong throws, naming its path.
extension WorldSnapshot {
    /// A snapshot with every default filled in and every reference checked: what the
    /// import writes.
    struct Resolved {
        /// The accounts, their password hashes (kept ones, and given passwords hashed),
        /// the signing key and the deletions.
        var auth: AuthWorld
        var social: SocialWorld
        /// The photos, and the one each post of `social` and each user of `auth` at an
        /// index shows: its URL there is the importing store's URL of it.
        var photos: [(reference: MediaReference, data: Data)] = []
        var postPhotos: [Int: MediaReference] = [:]
        var userPhotos: [Int: MediaReference] = [:]
        var families: [FamilyGroup]
        /// The purchases as the App Store replays them: each alone, but the purchases of
        /// one Apple ID in one subscription group, together by date.
        var purchases: [[(path: String, purchase: StorePurchase)]]
        var pendingPurchases: [(path: String, pending: StorePendingPurchase)] = []
        var plans: [TrainingPlan]
        /// The stack's device's edits not uploaded yet.
        var deviceEdits: [QueuedEdit<TrainingPlan>] = []
        /// The stack's device's conflict log, by user.
        var deviceConflicts: [(userID: String, entry: SyncConflictRecord)] = []
        var consents: [(userID: String, record: ConsentRecord)]
    }

    /// Checks the snapshot and fills in its defaults.
    /// - Parameters:
    ///   - now: The date a date left out takes.
    ///   - configuration: The products a purchase may name, and the social policy's limits.
    ///   - firstDeviceUser: The user signed in on the first device at the import, whose
    ///     purchases default to its Apple ID.
    ///   - firstDeviceAppleID: That Apple ID.
    func resolved(now: Date, configuration: TrainServicesConfiguration, firstDeviceUser: String?, firstDeviceAppleID: AppleID)
        throws(WorldSnapshotError) -> Resolved
    {
        guard version == Self.currentVersion else {
            throw WorldSnapshotError(.unsupportedVersion, path: "version", detail: "This library reads version \(Self.currentVersion).")
        }
        var resolved = Resolved(auth: AuthWorld(), social: SocialWorld(), families: [], purchases: [], plans: [], consents: [])
        let users = try resolveUsers(now: now, policy: configuration.authPolicy, into: &resolved)
        if let key = tokenSigningKey {
            guard (32...1_024).contains(key.count) else {
                throw WorldSnapshotError(.invalidValue, path: "tokenSigningKey", detail: "A signing key has 32 to 1,024 bytes.")
            }
            resolved.auth.signingKey = key
        }
        let blocked = try resolveRelations(users: users, into: &resolved)
        let photos = try resolvePhotos(users: users, into: &resolved)
        for (index, user) in self.users.enumerated() {
            if let photo = try Self.profilePhoto(of: user, path: "users[\(index)]", photos: photos) { resolved.userPhotos[index] = photo }
        }
        try resolvePosts(users: users, blocked: blocked, photos: photos, now: now, policy: configuration.socialPolicy, into: &resolved)
        try checkPhotosShown(resolved)
        try resolveFamilies(into: &resolved)
        try resolvePurchases(
            users: users, now: now, configuration: configuration, firstDevice: (firstDeviceUser, firstDeviceAppleID), into: &resolved)
        try resolvePlans(users: users, now: now, into: &resolved)
        try resolveConsents(users: users, now: now, policies: configuration.consentPolicies, into: &resolved)
        try resolveModeration(users: users, now: now, into: &resolved)
        try resolveNotifications(users: users, now: now, into: &resolved)
        try resolveUnlocks(users: users, now: now, configuration: configuration, into: &resolved)
        try resolvePendingPurchases(
            users: users, now: now, configuration: configuration, firstDevice: (firstDeviceUser, firstDeviceAppleID), into: &resolved)
        try resolveDeletions(users: users, now: now, signedIn: firstDeviceUser, into: &resolved)
        return resolved
    }

    /// The users by ID.
    private func resolveUsers(now: Date, policy: AuthPolicy, into resolved: inout Resolved) throws(WorldSnapshotError) -> Set<UserKey> {
        // IDs compare by their bytes, as the services compare them: "é" and "e\u{301}"
        // are two users, and a reference to one is not a reference to the other.
        var ids: Set<UserKey> = []
        var emails: Set<[UInt8]> = []
        var identities: Set<[UInt8]> = []
        var hashed = 0
        for (index, user) in users.enumerated() {
            var path: String { "users[\(index)]" }
            guard Self.isUserID(user.id) else {
                throw WorldSnapshotError(.invalidValue, path: "\(path).id", detail: "A user's ID is 1 to 128 bytes without control characters.")
            }
            guard ids.insert(UserKey(user.id)).inserted else {
                throw WorldSnapshotError(.duplicateID, path: "\(path).id", detail: "Another user has the ID \(user.id.debugDescription).")
            }
            // A name as an account may hold it (a provider's name is kept as it came);
            // profiles and posts show it cleaned.
            if let name = user.displayName, name.isEmpty || name.utf8.count > 1_024 || name.utf8.contains(0) {
                throw WorldSnapshotError(.invalidValue, path: "\(path).displayName", detail: "A name is 1 to 1,024 bytes without NUL.")
            }
            if let phone = user.phoneNumber, (try? PhoneNumber.normalize(phone)) != phone {
                throw WorldSnapshotError(.invalidValue, path: "\(path).phoneNumber", detail: "A phone number is E.164: + and 8 to 15 digits.")
            }
            if let photo = user.photoURL, !DisplayText.isValidMediaURL(photo) {
                throw WorldSnapshotError(.invalidValue, path: "\(path).photoURL", detail: "A photo is an https or file URL.")
            }
            var email: String?
            if let given = user.email {
                guard let normalized = LocalAuthService.normalizedEmail(given) else {
                    throw WorldSnapshotError(.invalidValue, path: "\(path).email", detail: "\(given.debugDescription) is not an email address.")
                }
                email = normalized
            }
            let createdAt = user.createdAt ?? now
            try Self.check(createdAt, notAfter: now, path: "\(path).createdAt")
            try Self.check(user.lastSignInAt ?? createdAt, notAfter: now, path: "\(path).lastSignInAt")
            let hasPassword = user.password != nil || user.passwordHash != nil
            if hasPassword {
                guard user.password == nil || user.passwordHash == nil else {
                    throw WorldSnapshotError(.invalidValue, path: "\(path).password", detail: "A user has a password or its hash, not both.")
                }
                guard email != nil else {
                    throw WorldSnapshotError(.invalidValue, path: "\(path).email", detail: "A user with a password signs in with an email address.")
                }
                if user.password != nil {
                    hashed += 1
                    guard hashed <= Self.maximumPasswords else {
                        throw WorldSnapshotError(
                            .invalidValue, path: "\(path).password",
                            detail: "At most \(Self.maximumPasswords) passwords are hashed at an import; give the others as passwordHash.")
                    }
                }
                resolved.auth.passwords[Array(user.id.utf8)] = try Self.passwordHash(of: user, policy: policy, path: path)
            }
            let defaultProvider = hasPassword ? Provider(provider: .password, subject: email ?? "") : Provider(provider: .apple, subject: user.id)
            let providers = user.providers ?? [defaultProvider]
            if hasPassword, !providers.contains(where: { $0.provider == .password && $0.subject == email }) {
                throw WorldSnapshotError(
                    .invalidValue, path: "\(path).providers", detail: "A user with a password has the password sign-in method of their address.")
            }
            var links: [LinkedProvider] = []
            for (position, provider) in providers.enumerated() {
                var field: String { "\(path).providers[\(position)]" }
                try Self.checkSubject(provider, path: "\(field).subject")
                if let email = provider.email, email.isEmpty || email.utf8.count > 254 || email.unicodeScalars.contains(where: Self.isControl) {
                    throw WorldSnapshotError(
                        .invalidValue, path: "\(field).email", detail: "A provider's address is 1 to 254 bytes without control characters.")
                }
                try Self.check(provider.linkedAt ?? createdAt, notAfter: now, path: "\(field).linkedAt")
                guard identities.insert(Array("\(provider.provider.rawValue)\u{0}\(provider.subject)".utf8)).inserted else {
                    throw WorldSnapshotError(
                        .duplicateID, path: "\(path).providers[\(position)].subject",
                        detail: "Another sign-in method has the subject \(provider.subject.debugDescription) at \(provider.provider.rawValue).")
                }
                links.append(
                    LinkedProvider(
                        provider: provider.provider, subject: provider.subject, email: provider.email, linkedAt: provider.linkedAt ?? createdAt))
            }
            // Each address signs in one account only: the account's and its email sign-ins'.
            var addresses = Set(links.filter { $0.provider == .password || $0.provider == .emailCode }.map { Array($0.subject.utf8) })
            if let email { addresses.insert(Array(email.utf8)) }
            for address in addresses.sorted(by: { $0.lexicographicallyPrecedes($1) }) where !emails.insert(address).inserted {
                throw WorldSnapshotError(
                    .duplicateID, path: "\(path).email", detail: "Another user signs in with the address \(String(decoding: address, as: UTF8.self))."
                )
            }
            resolved.auth.users.append(
                UserEntity(
                    id: user.id, email: email, isPrivateEmail: user.isPrivateEmail ?? false, displayName: user.displayName,
                    phoneNumber: user.phoneNumber, providers: links,
                    createdAt: createdAt, lastSignInAt: user.lastSignInAt ?? createdAt, isEmailVerified: user.isEmailVerified ?? false,
                    isAnonymous: user.isAnonymous ?? false, photoURL: user.photoURL))
        }
        return ids
    }

    /// The follows and blocks; returns the blocked pairs, both ways.
    private func resolveRelations(users: Set<UserKey>, into resolved: inout Resolved) throws(WorldSnapshotError) -> Set<[UserKey]> {
        var blocked: Set<[UserKey]> = []
        for (index, block) in blocks.enumerated() {
            let pair = try Self.pair(block.blocker, block.blocked, users: users, path: "blocks[\(index)]", names: ("blocker", "blocked"))
            guard blocked.insert(pair).inserted else {
                throw WorldSnapshotError(.duplicateID, path: "blocks[\(index)]", detail: "The block is listed twice.")
            }
            resolved.social.blocks.append(SocialWorld.Pair(from: block.blocker, to: block.blocked))
        }
        blocked.formUnion(blocked.map { $0.reversed() })
        var followed: Set<[UserKey]> = []
        for (index, follow) in follows.enumerated() {
            let pair = try Self.pair(follow.follower, follow.followee, users: users, path: "follows[\(index)]", names: ("follower", "followee"))
            guard followed.insert(pair).inserted else {
                throw WorldSnapshotError(.duplicateID, path: "follows[\(index)]", detail: "The follow is listed twice.")
            }
            guard !blocked.contains(pair) else {
                throw WorldSnapshotError(.invalidValue, path: "follows[\(index)]", detail: "The users block each other: neither follows the other.")
            }
            resolved.social.follows.append(SocialWorld.Pair(from: follow.follower, to: follow.followee))
        }
        var muted: Set<[UserKey]> = []
        for (index, mute) in mutes.enumerated() {
            let pair = try Self.pair(mute.muter, mute.muted, users: users, path: "mutes[\(index)]", names: ("muter", "muted"))
            guard muted.insert(pair).inserted else {
                throw WorldSnapshotError(.duplicateID, path: "mutes[\(index)]", detail: "The mute is listed twice.")
            }
            resolved.social.mutes.append(SocialWorld.Pair(from: mute.muter, to: mute.muted))
        }
        return blocked
    }

    /// The posts, likes and comments.
    private func resolvePosts(
        users: Set<UserKey>, blocked: Set<[UserKey]>, photos: [UUID: MediaReference], now: Date, policy: SocialPolicy,
        into resolved: inout Resolved
    ) throws(WorldSnapshotError) {
        var authors: [UUID: UserKey] = [:]
        let lifetime = TimeInterval(policy.postLifetime.components.seconds)
        for (index, post) in posts.enumerated() {
            var path: String { "posts[\(index)]" }
            let author = UserKey(post.author)
            guard users.contains(author) else {
                throw WorldSnapshotError(.danglingReference, path: "\(path).author", detail: "No user has the ID \(post.author.debugDescription).")
            }
            try Self.checkText(post.content, maximum: policy.maximumPostLength, path: "\(path).content")
            let createdAt = post.createdAt ?? now
            try Self.check(createdAt, notAfter: now, path: "\(path).createdAt")
            if let type = post.workoutType, !type.isValid {
                throw WorldSnapshotError(.invalidValue, path: "\(path).workoutType", detail: "A workout type is 1 to 64 letters, digits, '-' or '_'.")
            }
            let id = post.id ?? Self.madeID(at: createdAt, index: index, salt: 0x70)
            guard authors.updateValue(author, forKey: id) == nil else {
                throw WorldSnapshotError(.duplicateID, path: "\(path).id", detail: "Another post has the ID \(id.uuidString).")
            }
            let expiresAt = post.expiresAt ?? createdAt.addingTimeInterval(lifetime)
            guard expiresAt >= createdAt, expiresAt.timeIntervalSince1970 <= Self.latestDate else {
                throw WorldSnapshotError(
                    .invalidValue, path: "\(path).expiresAt", detail: "A post expires no earlier than it was made, and before the year 10000.")
            }
            var entity = PostEntity(
                id: id, userID: post.author, userName: post.author, workoutType: post.workoutType ?? .run, content: post.content,
                createdAt: createdAt, expiresAt: expiresAt)
            entity.isHiddenByModeration = post.isHiddenByModeration ?? false
            entity.workout = try post.workout.map { workout throws(WorldSnapshotError) in
                try Self.summary(workout, of: entity.workoutType, path: "\(path).workout")
            }
            entity.mediaURL = post.mediaURL
            if let photo = try Self.media(of: post, path: path, photos: photos) { resolved.postPhotos[index] = photo }
            resolved.social.posts.append(entity)
        }
        var likeCounts: [UUID: Int] = [:]
        var liked: Set<[UInt8]> = []
        for (index, like) in likes.enumerated() {
            var path: String { "likes[\(index)]" }
            try Self.reference(like.user, in: users, path: "\(path).user")
            guard let author = authors[like.post] else {
                throw WorldSnapshotError(.danglingReference, path: "\(path).post", detail: "No post has the ID \(like.post.uuidString).")
            }
            guard !blocked.contains([UserKey(like.user), author]) else {
                throw WorldSnapshotError(.invalidValue, path: path, detail: "The user and the post's author block each other.")
            }
            guard liked.insert(withUnsafeBytes(of: like.post.uuid, Array.init) + Array(like.user.utf8)).inserted else {
                throw WorldSnapshotError(.duplicateID, path: path, detail: "The like is listed twice.")
            }
            likeCounts[like.post, default: 0] += 1
            resolved.social.likes.append(SocialWorld.Like(user: like.user, post: like.post))
        }
        var commentCounts: [UUID: Int] = [:]
        var commentIDs: Set<UUID> = []
        for (index, comment) in comments.enumerated() {
            var path: String { "comments[\(index)]" }
            try Self.reference(comment.author, in: users, path: "\(path).author")
            guard let author = authors[comment.post] else {
                throw WorldSnapshotError(.danglingReference, path: "\(path).post", detail: "No post has the ID \(comment.post.uuidString).")
            }
            guard !blocked.contains([UserKey(comment.author), author]) else {
                throw WorldSnapshotError(.invalidValue, path: path, detail: "The comment's author and the post's author block each other.")
            }
            try Self.checkText(comment.text, maximum: policy.maximumCommentLength, path: "\(path).text")
            let createdAt = comment.createdAt ?? now
            try Self.check(createdAt, notAfter: now, path: "\(path).createdAt")
            let id = comment.id ?? Self.madeID(at: createdAt, index: index, salt: 0x63)
            guard commentIDs.insert(id).inserted else {
                throw WorldSnapshotError(.duplicateID, path: "\(path).id", detail: "Another comment has the ID \(id.uuidString).")
            }
            if comment.isHiddenByModeration != true { commentCounts[comment.post, default: 0] += 1 }
            var entity = PostComment(id: id, postID: comment.post, userID: comment.author, userName: nil, text: comment.text, createdAt: createdAt)
            entity.isHiddenByModeration = comment.isHiddenByModeration ?? false
            resolved.social.comments.append(entity)
        }
        for (index, post) in posts.enumerated() {
            let id = resolved.social.posts[index].id
            if let count = post.likeCount, count != likeCounts[id] ?? 0 {
                throw WorldSnapshotError(
                    .countMismatch, path: "posts[\(index)].likeCount",
                    detail: "It says \(count); the document lists \(likeCounts[id] ?? 0) likes of the post.")
            }
            if let count = post.commentCount, count != commentCounts[id] ?? 0 {
                throw WorldSnapshotError(
                    .countMismatch, path: "posts[\(index)].commentCount",
                    detail: "It says \(count); the document lists \(commentCounts[id] ?? 0) comments on the post that moderation does not hide.")
            }
        }
    }

    /// The family groups: Apple IDs each in one group at most, six people a group at most.
    private func resolveFamilies(into resolved: inout Resolved) throws(WorldSnapshotError) {
        var seen: Set<AppleID> = []
        for (index, family) in families.enumerated() {
            var path: String { "families[\(index)]" }
            let everyone = [family.organizer] + family.members
            guard everyone.count <= FamilyGroup.maximumSize else {
                throw WorldSnapshotError(
                    .invalidValue, path: "\(path).members", detail: "A family group has at most \(FamilyGroup.maximumSize) people.")
            }
            var group: [AppleID] = []
            for (position, text) in everyone.enumerated() {
                var field: String { position == 0 ? "\(path).organizer" : "\(path).members[\(position - 1)]" }
                guard let appleID = try? AppleID(text) else {
                    throw WorldSnapshotError(.invalidValue, path: field, detail: "\(text.debugDescription) is not an Apple ID.")
                }
                guard seen.insert(appleID).inserted else {
                    throw WorldSnapshotError(.duplicateID, path: field, detail: "\(text) is in a family group already.")
                }
                group.append(appleID)
            }
            resolved.families.append(FamilyGroup(organizer: group[0], members: Array(group.dropFirst())))
        }
    }

    /// The purchases, each with its Apple ID and its user's app account token.
    private func resolvePurchases(
        users: Set<UserKey>, now: Date, configuration: TrainServicesConfiguration, firstDevice: (user: String?, appleID: AppleID),
        into resolved: inout Resolved
    ) throws(WorldSnapshotError) {
        let products = Set(configuration.products.map(\.id))
        var chains: [[String]: Int] = [:]
        for (index, purchase) in purchases.enumerated() {
            var path: String { "purchases[\(index)]" }
            guard products.contains(purchase.product) else {
                throw WorldSnapshotError(
                    .danglingReference, path: "\(path).product", detail: "The configuration has no product \(purchase.product.debugDescription).")
            }
            let (appleID, token) = try Self.buyer(purchase.user, purchase.appleID, users: users, firstDevice: firstDevice, path: path)
            let date = purchase.purchasedAt ?? now
            guard date <= now else {
                throw WorldSnapshotError(.invalidValue, path: "\(path).purchasedAt", detail: "A purchase is made no later than now.")
            }
            if let expiresAt = purchase.expiresAt {
                guard configuration.products.first(where: { $0.id == purchase.product })?.type == .autoRenewable else {
                    throw WorldSnapshotError(.invalidValue, path: "\(path).expiresAt", detail: "Only a subscription that renews stops renewing.")
                }
                guard expiresAt > date, expiresAt.timeIntervalSince1970 <= Self.latestDate else {
                    throw WorldSnapshotError(
                        .invalidValue, path: "\(path).expiresAt", detail: "A subscription expires after it was bought, before the year 10000.")
                }
            }
            if let offAt = purchase.autoRenewOffAt {
                let within =
                    if let expiresAt = purchase.expiresAt { offAt >= date && offAt <= expiresAt } else {
                        purchase.billingFailedAt.map { offAt >= $0 } ?? false
                    }
                guard within else {
                    throw WorldSnapshotError(
                        .invalidValue, path: "\(path).autoRenewOffAt",
                        detail: "Auto-renew is turned off after the purchase, by the end of its last period, which expiresAt gives, "
                            + "or after a renewal that failed to bill.")
                }
                try Self.check(offAt, notAfter: now, path: "\(path).autoRenewOffAt")
            }
            try Self.checkRenewsAs(purchase, at: date, now: now, products: configuration.products, path: path)
            var refund: StorePurchase.Refund?
            if let refundedAt = purchase.refundedAt {
                guard refundedAt >= date, purchase.expiresAt == nil else {
                    throw WorldSnapshotError(
                        .invalidValue, path: "\(path).refundedAt",
                        detail: "A purchase is refunded after it was made; a refunded subscription ends then.")
                }
                try Self.check(refundedAt, notAfter: now, path: "\(path).refundedAt")
                refund = StorePurchase.Refund(date: refundedAt, reason: purchase.refundReason ?? .other)
            } else if purchase.refundReason != nil {
                throw WorldSnapshotError(.invalidValue, path: "\(path).refundReason", detail: "A reason is given with a refund's date.")
            }
            if let failedAt = purchase.billingFailedAt {
                guard configuration.products.first(where: { $0.id == purchase.product })?.type == .autoRenewable, failedAt > date,
                    purchase.expiresAt == nil, (purchase.refundedAt ?? .distantFuture) >= failedAt
                else {
                    throw WorldSnapshotError(
                        .invalidValue, path: "\(path).billingFailedAt",
                        detail: "A subscription that renews fails to bill after it was bought and before a refund, without expiresAt.")
                }
                try Self.check(failedAt, notAfter: now, path: "\(path).billingFailedAt")
            } else if purchase.billingGracePeriod != nil {
                throw WorldSnapshotError(
                    .invalidValue, path: "\(path).billingGracePeriod", detail: "A billing grace period is given with billingFailedAt.")
            }
            let offer = try Self.offer(of: purchase, products: configuration.products, path: path)
            var made = StorePurchase(
                appleID: appleID, productID: purchase.product, purchaseDate: date, appAccountToken: token, expiresAt: purchase.expiresAt,
                refund: refund)
            made.autoRenewOffAt = purchase.autoRenewOffAt
            made.billingFailedAt = purchase.billingFailedAt
            made.billingGracePeriod = purchase.billingGracePeriod ?? false
            made.offer = offer
            made.renewsAs = purchase.renewsAs
            made.renewsAsSince = purchase.renewsAs == nil ? nil : purchase.renewsAsSince
            // A later purchase in a subscription's group by the same Apple ID takes over from it.
            let product = configuration.products.first { $0.id == purchase.product }
            if product?.type == .autoRenewable, let group = product?.subscriptionGroupID {
                let key = [appleID.email, group]
                if let chain = chains[key] {
                    resolved.purchases[chain].append((path, made))
                    continue
                }
                chains[key] = resolved.purchases.count
            }
            resolved.purchases.append([(path, made)])
        }
        for index in resolved.purchases.indices { resolved.purchases[index].sort { $0.purchase.purchaseDate < $1.purchase.purchaseDate } }
    }

    // MARK: - Helpers

    /// The Apple ID and the app account token of a purchase or a request for `user`, by
    /// `appleID` or, left out, the Apple ID the user's devices use.
    static func buyer(
        _ user: String?, _ appleID: String?, users: Set<UserKey>, firstDevice: (user: String?, appleID: AppleID), path: String
    ) throws(WorldSnapshotError) -> (AppleID, UUID?) {
        var token: UUID?
        if let user {
            try Self.reference(user, in: users, path: "\(path).user")
            token = try? AppAccountToken.forUser(user)
        }
        if let appleID {
            guard let parsed = try? AppleID(appleID) else {
                throw WorldSnapshotError(.invalidValue, path: "\(path).appleID", detail: "\(appleID.debugDescription) is not an Apple ID.")
            }
            return (parsed, token)
        }
        guard let user else { return (firstDevice.appleID, token) }
        let onFirstDevice = firstDevice.user.map { user.utf8.elementsEqual($0.utf8) } ?? false
        return (onFirstDevice ? firstDevice.appleID : .standard(forUser: user), token)
    }

    /// The hash of a user's password: the one kept, checked, or the one given, hashed
    /// with the policy's iterations after the policy's length check.
    private static func passwordHash(of user: User, policy: AuthPolicy, path: @autoclosure () -> String) throws(WorldSnapshotError)
        -> TrainAuth.PasswordHash
    {
        if let stored = user.passwordHash {
            guard stored.algorithm == "pbkdf2-sha256", (1...10_000_000).contains(stored.iterations), (1...1_024).contains(stored.salt.count),
                (16...64).contains(stored.hash.count)
            else {
                throw WorldSnapshotError(
                    .invalidValue, path: "\(path()).passwordHash",
                    detail: "A stored password is pbkdf2-sha256 with 1 to 10,000,000 iterations, a salt and a hash of 16 to 64 bytes.")
            }
            return TrainAuth.PasswordHash(algorithm: stored.algorithm, iterations: stored.iterations, salt: stored.salt, hash: stored.hash)
        }
        let password = user.password ?? ""
        guard password.count >= policy.minimumPasswordLength, password.utf8.count <= 1_024 else {
            throw WorldSnapshotError(
                .invalidValue, path: "\(path()).password",
                detail: "A password has at least \(policy.minimumPasswordLength) characters and at most 1,024 bytes.")
        }
        do {
            return try TrainAuth.PasswordHash(password: password, iterations: policy.passwordIterations)
        } catch {
            throw WorldSnapshotError(.notImported, path: "\(path()).password", detail: "The password could not be hashed: \(error.detail)")
        }
    }

    /// Whether `id` may be a user's ID or a subject: 1 to 128 bytes, no control characters.
    static func isUserID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 128 && !id.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// Throws `danglingReference` unless `userID` is a user of the document, byte for byte.
    static func reference(_ userID: String, in users: Set<UserKey>, path: @autoclosure () -> String) throws(WorldSnapshotError) {
        guard users.contains(UserKey(userID)) else {
            throw WorldSnapshotError(.danglingReference, path: path(), detail: "No user has the ID \(userID.debugDescription).")
        }
    }

    /// The pair of two users of the document who are not the same user.
    private static func pair(
        _ from: String, _ to: String, users: Set<UserKey>, path: @autoclosure () -> String, names: (String, String)
    ) throws(WorldSnapshotError)
        -> [UserKey]
    {
        try reference(from, in: users, path: "\(path()).\(names.0)")
        try reference(to, in: users, path: "\(path()).\(names.1)")
        let pair = [UserKey(from), UserKey(to)]
        guard pair[0] != pair[1] else { throw WorldSnapshotError(.invalidValue, path: path(), detail: "A user cannot do this to themselves.") }
        return pair
    }

    /// At most this many plain passwords are hashed at an import: each costs a PBKDF2 run.
    static let maximumPasswords = 100
    /// The latest date a record's key holds: the end of the year 9999, to the millisecond.
    static let latestDate = 253_402_300_799.999
    /// The earliest date the document's dates hold: the start of the year 1.
    static let earliestDate = -62_135_596_800.0

    /// The offer `purchase` gives, which its product has: a promotional, win-back or
    /// offer-code offer, with its kind.
    private static func offer(of purchase: Purchase, products: [AppStoreProduct], path: String) throws(WorldSnapshotError) -> StorePurchase.Offer? {
        switch (purchase.offer, purchase.offerType) {
        case (nil, nil): return nil
        case (nil, _?): throw WorldSnapshotError(.invalidValue, path: "\(path).offer", detail: "An offer's kind is given with its identifier.")
        case (_?, nil), (_?, .introductory?):
            throw WorldSnapshotError(
                .invalidValue, path: "\(path).offerType",
                detail: "An offer is promotional, winBack or code; the store gives the introductory one by itself.")
        case (let id?, let type?):
            guard products.first(where: { $0.id == purchase.product })?.offer(type, id: id) != nil else {
                throw WorldSnapshotError(
                    .danglingReference, path: "\(path).offer", detail: "\(purchase.product) has no \(type.rawValue) offer \(id.debugDescription).")
            }
            return StorePurchase.Offer(type: type, id: id)
        }
    }

    /// Throws `invalidValue` for a date after `now`: a world holds what happened.
    static func check(_ date: Date, notAfter now: Date, path: @autoclosure () -> String) throws(WorldSnapshotError) {
        guard date <= now else {
            throw WorldSnapshotError(
                .invalidValue, path: path(),
                detail: "The date is after the importing stack's now; set its clock to WorldSnapshot.newestDate or later.")
        }
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool { scalar.properties.generalCategory == .control }

    /// Throws `invalidValue` unless the subject is one the provider's sign-in stores: an
    /// email address as the accounts spell it, a phone number in E.164, or for Apple and
    /// Google 1 to 255 bytes without control characters.
    private static func checkSubject(_ provider: Provider, path: @autoclosure () -> String) throws(WorldSnapshotError) {
        let subject = provider.subject
        let valid =
            switch provider.provider {
            case .password, .emailCode: LocalAuthService.normalizedEmail(subject) == subject
            case .phone: (try? PhoneNumber.normalize(subject)) == subject
            default: !subject.isEmpty && subject.utf8.count <= 255 && !subject.unicodeScalars.contains(where: isControl)
            }
        guard valid else {
            throw WorldSnapshotError(
                .invalidValue, path: path(),
                detail:
                    "The subject is not one \(provider.provider.rawValue) signs in with: an address as the accounts spell it, a number in E.164, or 1 to 255 bytes."
            )
        }
    }

    /// Throws `invalidValue` unless `text` is 1 to `maximum` characters as a post or
    /// comment stores them: trimmed, without control characters other than line breaks.
    static func checkText(_ text: String, maximum: Int, path: @autoclosure () -> String) throws(WorldSnapshotError) {
        guard !text.isEmpty, text.count <= maximum, DisplayText.cleaned(text, maximum: maximum, allowsNewlines: true) == text else {
            throw WorldSnapshotError(
                .invalidValue, path: path(), detail: "The text is 1 to \(maximum) characters, trimmed, without control characters but line breaks.")
        }
    }

    /// The ID a post or comment left without one takes: version 7, from its date and its
    /// place in the list, so the same document always gives the same IDs.
    static func madeID(at date: Date, index: Int, salt: UInt8) -> UUID {
        // The first 6 bytes give way to the date.
        var bytes = [UInt8](repeating: 0, count: 16)
        bytes[9] = salt
        for shift in 0..<6 { bytes[15 - shift] = UInt8(truncatingIfNeeded: UInt64(index) >> (8 * shift)) }
        return LocalSocialFeedService.postID(
            createdAt: date,
            entropy: UUID(
                uuid: (
                    bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9], bytes[10], bytes[11],
                    bytes[12], bytes[13], bytes[14], bytes[15]
                )))
    }

    /// Throws `invalidValue` unless what `purchase` renews as is another product of its
    /// subscription's group that does not start a period at once, asked for after the
    /// purchase, by now and by its end, of one not refunded.
    private static func checkRenewsAs(_ purchase: Purchase, at date: Date, now: Date, products: [AppStoreProduct], path: String)
        throws(WorldSnapshotError)
    {
        guard let renewsAs = purchase.renewsAs else {
            guard purchase.renewsAsSince == nil else {
                throw WorldSnapshotError(.invalidValue, path: "\(path).renewsAsSince", detail: "A date is given with the product it renews as.")
            }
            return
        }
        guard let renewed = products.first(where: { $0.id == renewsAs }) else {
            throw WorldSnapshotError(
                .danglingReference, path: "\(path).renewsAs", detail: "The configuration has no product \(renewsAs.debugDescription).")
        }
        guard let bought = products.first(where: { $0.id == purchase.product }), bought.type == .autoRenewable, renewed.type == .autoRenewable,
            renewed.id != bought.id, renewed.subscriptionGroupID == bought.subscriptionGroupID,
            !SimulatedAppStore.startsNow(renewed, after: bought),
            purchase.refundedAt == nil
        else {
            throw WorldSnapshotError(
                .invalidValue, path: "\(path).renewsAs",
                detail:
                    "A subscription not refunded renews as another product of its group that does not start at once: a downgrade, or a crossgrade to another period."
            )
        }
        if let since = purchase.renewsAsSince {
            guard since >= date, since <= (purchase.expiresAt ?? .distantFuture) else {
                throw WorldSnapshotError(
                    .invalidValue, path: "\(path).renewsAsSince", detail: "The change is asked for after the purchase, by the end of its last period."
                )
            }
            try check(since, notAfter: now, path: "\(path).renewsAsSince")
        }
    }
}
