import Foundation
import TrainAuth
import TrainCore
import TrainSocial
import TrainSubscription
import TrainSync

/// Worlds as files: a stack's world exported to a ``WorldSnapshot``, and a stack
/// started from one, in memory or in a directory.
extension TrainServices {
    /// This stack's world as a snapshot: every account, the feed's follows, blocks,
    /// posts, likes and comments, the photos profiles and posts show, moderation, the notifications and the unlocks, the App Store's
    /// purchases and the purchases waiting for a parent or an issue, the plans on the
    /// remote and the device's edits not uploaded yet,
    /// the consents this device keeps and the deletions asked for and not purged. Each post's counts are
    /// the likes and comments the snapshot lists; a comment of a deleted account is left
    /// out with them. With `includingSecrets`, the password hashes and the ID tokens'
    /// signing key come too, for a faithful copy: keep such a file as a secret.
    ///
    /// ```swift
    /// try services.exportWorld().encoded().write(to: fixtureURL)
    /// ```
    /// - Parameter includingSecrets: Whether to include the password hashes and the
    ///   signing key; false by default, so a user with a password resets it after an import.
    /// - Returns: The snapshot.
    /// - Throws: ``AccountError`` `notSupported` on a stack with the app's own auth
    ///   service or remote, whose accounts or plans it cannot read; `storage` when a
    ///   store cannot be read.
    public func exportWorld(includingSecrets: Bool = false) throws(AccountError) -> WorldSnapshot {
        guard case .local(let accounts) = world.accounts else {
            throw AccountError(.notSupported, detail: "The stack signs in with the app's own auth service, whose accounts it cannot read.")
        }
        guard let remote = world.remote as? LocalRemotePlanStore else {
            throw AccountError(.notSupported, detail: "The stack's plans are on the app's own remote, which it cannot read.")
        }
        let auth: AuthWorld
        let feed: SocialWorld
        let bought: [StorePurchase]
        let planned: [TrainingPlan]
        let edits: [QueuedEdit<TrainingPlan>]
        let conflicts: [(userID: String, entry: SyncConflictRecord)]
        let consents: [(userID: String, record: ConsentRecord)]
        do {
            auth = try LocalAuthService.exportWorld(from: accounts)
            feed = try social.exportWorld()
            bought = try appStore.purchases()
            planned = try remote.plans(of: auth.users.map(\.id))
            // An edit of a plan another device deleted is left out: the deletion wins at the next sync.
            let queued = try plans.queuedEdits()
            let held = queued.isEmpty ? [] : try remote.records(at: queued.map { ($0.userID, $0.id) })
            edits = zip(queued, held).filter { $0.1?.isDeleted != true }.map(\.0)
            conflicts = try plans.conflictLogs()
            consents = try account.allConsents()
        } catch {
            throw AccountError(.storage, detail: "The world could not be read: \(error)")
        }
        var snapshot = WorldSnapshot()
        var owners: [UUID: String] = [:]
        for user in auth.users {
            if let token = try? AppAccountToken.forUser(user.id) { owners[token] = user.id }
            var entry = WorldSnapshot.User(
                id: user.id, displayName: user.displayName, email: user.email,
                providers: user.providers.map { .init(provider: $0.provider, subject: $0.subject, email: $0.email, linkedAt: $0.linkedAt) },
                createdAt: user.createdAt)
            entry.isEmailVerified = user.isEmailVerified
            entry.isAnonymous = user.isAnonymous
            entry.isPrivateEmail = user.isPrivateEmail
            entry.phoneNumber = user.phoneNumber
            entry.photoURL = user.photoURL
            entry.lastSignInAt = user.lastSignInAt
            if includingSecrets, let hash = auth.passwords[Array(user.id.utf8)] {
                entry.passwordHash = .init(algorithm: hash.algorithm, iterations: hash.iterations, salt: hash.salt, hash: hash.hash)
            }
            snapshot.users.append(entry)
        }
        if includingSecrets { snapshot.tokenSigningKey = auth.signingKey }
        snapshot.deletions = auth.deletions.map { WorldSnapshot.Deletion(user: $0.userID, purgeAt: $0.purgeAt == .distantPast ? nil : $0.purgeAt) }
        snapshot.follows = feed.follows.map { WorldSnapshot.Follow(follower: $0.from, followee: $0.to) }
        snapshot.blocks = feed.blocks.map { WorldSnapshot.Block(blocker: $0.from, blocked: $0.to) }
        snapshot.mutes = feed.mutes.map { WorldSnapshot.Mute(muter: $0.from, muted: $0.to) }
        snapshot.likes = feed.likes.map { WorldSnapshot.Like(user: $0.user, post: $0.post) }
        snapshot.comments = feed.comments.compactMap { comment in
            comment.userID.map {
                var entry = WorldSnapshot.Comment(id: comment.id, post: comment.postID, author: $0, text: comment.text, createdAt: comment.createdAt)
                entry.isHiddenByModeration = comment.isHiddenByModeration ? true : nil
                return entry
            }
        }
        var likeCounts: [UUID: Int] = [:]
        var commentCounts: [UUID: Int] = [:]
        for like in snapshot.likes { likeCounts[like.post, default: 0] += 1 }
        for comment in snapshot.comments where comment.isHiddenByModeration != true { commentCounts[comment.post, default: 0] += 1 }
        snapshot.posts = feed.posts.map { post in
            var entry = WorldSnapshot.Post(
                id: post.id, author: post.userID, content: post.content, workoutType: post.workoutType, createdAt: post.createdAt)
            entry.expiresAt = post.expiresAt
            entry.isHiddenByModeration = post.isHiddenByModeration ? true : nil
            entry.workout = post.workout.map { WorldSnapshot.Workout(duration: $0.duration, distance: $0.distance) }
            entry.likeCount = likeCounts[post.id] ?? 0
            entry.commentCount = commentCounts[post.id] ?? 0
            entry.mediaURL = post.mediaURL
            return entry
        }
        try exportPhotos(of: &snapshot)
        exportFeedRecords(feed.moderation, feed.notifications, into: &snapshot)
        snapshot.unlocks = feed.unlocks.map { unlock in
            var entry = WorldSnapshot.Unlock(user: unlock.userID, workoutType: unlock.workoutType, unlockDate: unlock.unlockDate)
            entry.id = unlock.id
            entry.timeZone = unlock.timeZoneIdentifier
            entry.expiresAt = unlock.expiresAt
            entry.workout = unlock.workout.map { WorldSnapshot.Workout(duration: $0.duration, distance: $0.distance) }
            return entry
        }
        snapshot.families = appStore.families.map { family in
            WorldSnapshot.Family(organizer: family.organizer.email, members: family.members.map(\.email))
        }
        snapshot.purchases = bought.map { purchase in
            var entry = WorldSnapshot.Purchase(
                user: purchase.appAccountToken.flatMap { owners[$0] }, appleID: purchase.appleID.email, product: purchase.productID,
                purchasedAt: purchase.purchaseDate)
            entry.expiresAt = purchase.expiresAt
            entry.autoRenewOffAt = purchase.autoRenewOffAt
            entry.renewsAs = purchase.renewsAs
            entry.renewsAsSince = purchase.renewsAsSince
            entry.refundedAt = purchase.refund?.date
            entry.refundReason = purchase.refund?.reason
            entry.billingFailedAt = purchase.billingFailedAt
            entry.billingGracePeriod = purchase.billingFailedAt != nil && purchase.billingGracePeriod ? true : nil
            entry.offer = purchase.offer?.id
            entry.offerType = purchase.offer?.type
            return entry
        }
        snapshot.pendingPurchases = appStore.pendingPurchases.map { pending in
            var entry = WorldSnapshot.PendingPurchase(
                user: pending.appAccountToken.flatMap { owners[$0] }, product: pending.productID, kind: pending.kind, requestedAt: pending.requestedAt
            )
            entry.appleID = pending.appleID.email
            return entry
        }
        snapshot.plans = planned.map(WorldSnapshot.Plan.init)
        // A device keeps the consents and edits of a user deleted on another device: theirs go.
        let exported = Set(auth.users.map { Array($0.id.utf8) })
        snapshot.devicePlans = edits.filter { exported.contains(Array($0.userID.utf8)) }.compactMap { $0.record.map(WorldSnapshot.Plan.init) }
        snapshot.devicePlanDeletions = edits.filter { exported.contains(Array($0.userID.utf8)) }.compactMap { edit in
            edit.deletedAt.map { WorldSnapshot.PlanDeletion(user: edit.userID, id: edit.id, deletedAt: $0) }
        }
        snapshot.deviceConflicts = conflicts.filter { exported.contains(Array($0.userID.utf8)) }.map { user, conflict in
            WorldSnapshot.PlanConflict(
                user: user, plan: conflict.recordID, field: conflict.field, losingValue: String(decoding: conflict.losingValue, as: UTF8.self),
                winningValue: String(decoding: conflict.winningValue, as: UTF8.self), resolvedAt: conflict.resolvedAt)
        }
        snapshot.consents = consents.filter { exported.contains(Array($0.userID.utf8)) }.map { consent in
            WorldSnapshot.Consent(
                user: consent.userID, document: consent.record.document, version: consent.record.version, action: consent.record.action,
                date: consent.record.date)
        }
        return snapshot
    }

    /// A stack in memory started from `snapshot`: its accounts, feed and purchases, as
    /// if made by calls at their dates, with the snapshot's notifications rather than
    /// the ones those calls would have sent, and its plans on the remote, as if another device had uploaded them: a
    /// device has them after its next sync. The device's own edits are queued for
    /// upload as if made on it at their dates. Its deletions hide their users; those that
    /// are due are purged in the background from the start. The snapshot is checked
    /// whole first; nothing is imported if it fails.
    ///
    /// ```swift
    /// let services = try TrainServices.inMemory(from: try WorldSnapshot(json: fixture), signedIn: "ada")
    /// ```
    /// - Parameters:
    ///   - snapshot: The world.
    ///   - userID: A user of the snapshot to sign in on the stack's device — whose
    ///     purchases without an Apple ID are then that device's Apple ID's — or nil.
    ///   - configuration: Clock, device, products and policies; a date the snapshot
    ///     leaves out is its clock's now.
    /// - Returns: The stack.
    /// - Throws: ``WorldSnapshotError`` naming the path of the first thing wrong.
    public static func inMemory(
        from snapshot: WorldSnapshot, signedIn userID: String? = nil, configuration: TrainServicesConfiguration = TrainServicesConfiguration()
    )
        throws(WorldSnapshotError) -> TrainServices
    {
        try checkImportable(configuration, snapshot)
        let resolved = try snapshot.resolved(
            now: configuration.context.clock.now, configuration: configuration, firstDeviceUser: userID, firstDeviceAppleID: .standard)
        var signedIn: UserEntity?
        if let userID {
            guard let user = resolved.auth.users.first(where: { $0.id.utf8.elementsEqual(userID.utf8) }) else {
                throw WorldSnapshotError(
                    .danglingReference, path: "", detail: "No user of the world has the ID \(userID.debugDescription) to sign in.")
            }
            signedIn = user
        }
        // The signed-in user's account, made with the stack, shows its photo from a store made first.
        var photos: LocalMediaStore?
        if let user = signedIn, let index = resolved.auth.users.firstIndex(where: { $0.id.utf8.elementsEqual(user.id.utf8) }),
            let photo = resolved.userPhotos[index]
        {
            let store = LocalMediaStore(context: configuration.context)
            signedIn?.photoURL = store.url(for: photo)
            photos = store
        }
        let services = inMemory(configuration, signedIn: signedIn, photos: photos)
        try services.importWorld(resolved, except: signedIn?.id)
        return services
    }

    /// A stack in memory for a SwiftUI preview started from `snapshot`, with `userID`
    /// signed in, as ``inMemory(from:signedIn:configuration:)`` starts one; like
    /// ``preview(signedIn:configuration:)``, its feed opens with the sample workouts of
    /// today unless the configuration has a workout source.
    /// - Parameters:
    ///   - snapshot: The world.
    ///   - userID: A user of the snapshot to sign in, or nil.
    ///   - configuration: Clock, device, products and policies.
    /// - Returns: The stack.
    /// - Throws: ``WorldSnapshotError`` naming the path of the first thing wrong.
    public static func preview(
        from snapshot: WorldSnapshot, signedIn userID: String?, configuration: TrainServicesConfiguration = TrainServicesConfiguration()
    ) throws(WorldSnapshotError) -> TrainServices {
        var configuration = configuration
        if configuration.workouts == nil {
            configuration.workouts = SimulatedWorkoutSource.samples(before: configuration.context.clock.now, in: configuration.context.timeZone())
        }
        return try inMemory(from: snapshot, signedIn: userID, configuration: configuration)
    }

    /// A stack in files in `directory` started from `snapshot`, as
    /// ``inMemory(from:signedIn:configuration:)`` starts one in memory, nobody signed in.
    /// The directory must not hold a stack; if the import fails, what it wrote there is removed.
    /// - Parameters:
    ///   - directory: The directory, made owner-only if it does not exist.
    ///   - snapshot: The world.
    ///   - configuration: Clock, device, products and policies.
    /// - Returns: The stack.
    /// - Throws: ``WorldSnapshotError`` naming the path of the first thing wrong;
    ///   `notImported` for a directory that holds a stack or files that cannot be written.
    public static func files(
        in directory: URL, from snapshot: WorldSnapshot, configuration: TrainServicesConfiguration = TrainServicesConfiguration()
    )
        throws(WorldSnapshotError) -> TrainServices
    {
        try checkImportable(configuration, snapshot)
        let resolved = try snapshot.resolved(
            now: configuration.context.clock.now, configuration: configuration, firstDeviceUser: nil, firstDeviceAppleID: .standard)
        let names = ["trainkit.sqlite", "appstore.sqlite", "remote.sqlite", "media", "devices"]
        let manager = FileManager.default
        let existed = manager.fileExists(atPath: directory.path)
        if let existing = try? manager.contentsOfDirectory(atPath: directory.path),
            existing.contains(where: { name in names.contains { name.hasPrefix($0) } })
        {
            throw WorldSnapshotError(.notImported, path: "", detail: "\(directory.path) holds a stack already; a world is imported into a new one.")
        }
        do {
            let services = try files(in: directory, configuration: configuration)
            try services.importWorld(resolved, except: nil)
            return services
        } catch {
            for name in (try? manager.contentsOfDirectory(atPath: directory.path)) ?? [] where names.contains(where: { name.hasPrefix($0) }) {
                try? manager.removeItem(at: directory.appendingPathComponent(name))
            }
            if !existed { try? manager.removeItem(at: directory) }
            if let error = error as? WorldSnapshotError { throw error }
            throw WorldSnapshotError(.notImported, path: "", detail: "The stack in \(directory.path) could not be made: \(error)")
        }
    }

    /// Throws `notImported` for a configuration with the app's own auth service, or with
    /// the app's own remote when the snapshot has plans: the import writes TrainKit's own
    /// accounts, and the plans into the stack's own simulated remote.
    private static func checkImportable(_ configuration: TrainServicesConfiguration, _ snapshot: WorldSnapshot) throws(WorldSnapshotError) {
        guard configuration.auth == nil else {
            throw WorldSnapshotError(.notImported, path: "", detail: "A world is imported into TrainKit's accounts, not the app's own auth service.")
        }
        guard configuration.remote == nil || snapshot.plans.isEmpty else {
            throw WorldSnapshotError(.notImported, path: "plans", detail: "A world's plans are imported into the stack's own remote, not the app's.")
        }
    }

    /// Writes a checked snapshot into this new stack: the accounts (but `signedIn`'s,
    /// which the stack made), the feed, the consents, the families, the plans on the
    /// remote and on the device, the purchases and the purchases waiting, then the deletions — whose users' writes the remote would refuse —
    /// and starts the purges that are due.
    private func importWorld(_ resolved: WorldSnapshot.Resolved, except signedIn: String?) throws(WorldSnapshotError) {
        guard case .local(let accounts) = world.accounts else { return }
        try checkDocumentSizes(resolved)
        do {
            var auth = resolved.auth
            for (index, photo) in resolved.userPhotos { auth.users[index].photoURL = media.url(for: photo) }
            let users = auth.users
            auth.users.removeAll { user in signedIn.map { user.id.utf8.elementsEqual($0.utf8) } ?? false }
            try LocalAuthService.importWorld(auth, into: accounts)
            var feed = resolved.social
            for (index, photo) in resolved.postPhotos { feed.posts[index].mediaURL = media.url(for: photo) }
            try media.insert(resolved.photos)
            try social.importWorld(feed, users: users)
            if !resolved.consents.isEmpty { try account.insert(consents: resolved.consents) }
        } catch {
            throw WorldSnapshotError(.notImported, path: "", detail: "The world could not be written: \(error)")
        }
        for (index, family) in resolved.families.enumerated() {
            do {
                try appStore.createFamily(organizer: family.organizer)
                for member in family.members { try appStore.addToFamily(member, organizer: family.organizer) }
            } catch {
                throw WorldSnapshotError(.invalidValue, path: "families[\(index)]", detail: "The App Store refused the family group: \(error.detail)")
            }
        }
        if let remote = world.remote as? LocalRemotePlanStore {
            do {
                try remote.insert(resolved.plans)
            } catch {
                throw WorldSnapshotError(.notImported, path: "plans", detail: "The remote refused the plans: \(error.detail)")
            }
        }
        if !resolved.deviceEdits.isEmpty {
            try importDeviceEdits(resolved)
        }
        do {
            try plans.importConflictLogs(resolved.deviceConflicts)
        } catch {
            throw WorldSnapshotError(.notImported, path: "deviceConflicts", detail: "The device refused its conflict log: \(error.detail)")
        }
        for chain in resolved.purchases {
            var failed = 0
            do {
                try appStore.replay(chain.map(\.purchase), failed: &failed)
            } catch {
                throw WorldSnapshotError(.invalidValue, path: chain[failed].path, detail: "The App Store refused the purchase: \(error.detail)")
            }
        }
        for (index, (path, pending)) in resolved.pendingPurchases.enumerated() {
            do {
                try appStore.replay(pending, number: index, exclusive: configuration.subscriptionAccess == .appAccountToken)
            } catch {
                throw WorldSnapshotError(.invalidValue, path: path, detail: "The App Store refused the request: \(error.detail)")
            }
        }
        guard !resolved.auth.deletions.isEmpty else { return }
        do {
            try LocalAuthService.importDeletions(resolved.auth.deletions, into: accounts)
        } catch {
            throw WorldSnapshotError(.notImported, path: "deletions", detail: "The deletions could not be written: \(error)")
        }
        account.startPurging()
    }
}

extension TrainServices {
    /// Throws `invalidValue` at the first plan, on the remote or the device, larger than
    /// the stack's remote takes: a plan's limits count characters, the remote bytes.
    fileprivate func checkDocumentSizes(_ resolved: WorldSnapshot.Resolved) throws(WorldSnapshotError) {
        let limit = world.remote.maximumDocumentBytes
        let lists = [("plans", resolved.plans), ("devicePlans", resolved.deviceEdits.compactMap(\.record))]
        for (list, plans) in lists {
            for (index, plan) in plans.enumerated() {
                let bytes: Int
                do {
                    bytes = try LocalRemotePlanStore.documentBytes(of: plan)
                } catch {
                    throw WorldSnapshotError(.invalidValue, path: "\(list)[\(index)]", detail: error.detail)
                }
                guard bytes <= limit else {
                    throw WorldSnapshotError(
                        .invalidValue, path: "\(list)[\(index)]", detail: "The plan is \(bytes) bytes as sent; the remote takes at most \(limit).")
                }
            }
        }
    }

    /// Queues the device's edits: one made no earlier than the remote's version of its
    /// plan is made on that version, which it replaces at the next sync; an earlier one
    /// is merged with it there, field by field, as a late upload is.
    fileprivate func importDeviceEdits(_ resolved: WorldSnapshot.Resolved) throws(WorldSnapshotError) {
        var edits = resolved.deviceEdits
        var saved: [WorldSnapshot.PlanKey: Date] = [:]
        for plan in resolved.plans { saved[WorldSnapshot.PlanKey(plan.userID, plan.id)] = plan.lastModified }
        do {
            if let remote = world.remote as? LocalRemotePlanStore {
                let held = try remote.records(at: edits.map { ($0.userID, $0.id) })
                for index in edits.indices {
                    let edit = edits[index]
                    guard let lastModified = saved[WorldSnapshot.PlanKey(edit.userID, edit.id)],
                        let date = edit.record?.lastModified ?? edit.deletedAt, date >= lastModified
                    else { continue }
                    edits[index].base = held[index]
                }
            }
            try plans.importEdits(edits, savedAt: \.lastModified)
        } catch {
            throw WorldSnapshotError(.notImported, path: "devicePlans", detail: "The device refused the plans: \(error)")
        }
    }
}

extension WorldSnapshot {
    /// Reads a document from a file, refusing one over ``maximumSize`` before reading it.
    /// - Parameter file: The file.
    /// - Throws: ``WorldSnapshotError`` — `tooLarge`, `unreadable` (also for a file that
    ///   cannot be read) or `unsupportedVersion`.
    public init(contentsOf file: URL) throws(WorldSnapshotError) {
        // The end of the file says its size without reading it; the read stops one byte
        // over the limit all the same, so a file that grows is held to it too.
        let data: Data
        do {
            let handle = try FileHandle(forReadingFrom: file)
            defer { try? handle.close() }
            let size = try handle.seekToEnd()
            guard size <= UInt64(Self.maximumSize) else {
                throw WorldSnapshotError(.tooLarge, path: "", detail: "\(file.path) has \(size) bytes; at most \(Self.maximumSize) are read.")
            }
            try handle.seek(toOffset: 0)
            data = try handle.read(upToCount: Self.maximumSize + 1) ?? Data()
        } catch let error as WorldSnapshotError {
            throw error
        } catch {
            throw WorldSnapshotError(.unreadable, path: "", detail: "\(file.path) could not be read: \(error.localizedDescription)")
        }
        try self.init(json: data)
    }
}

extension TrainServices {
    /// Replaces each profile's and post's URL of a photo in the stack's media store with
    /// the photo, listed once with its bytes in `photos`; one whose photo is gone shows none.
    fileprivate func exportPhotos(of snapshot: inout WorldSnapshot) throws(AccountError) {
        var listed: Set<UUID> = []
        /// The photo `url` names in the store, listed; nil for a URL from elsewhere, `.some(nil)` for a photo that is gone.
        func photo(at url: URL) throws(AccountError) -> UUID?? {
            do throws(SocialError) {
                guard let reference = try media.reference(for: url) else { return nil }
                let data = try media.bytes(of: reference)
                if listed.insert(reference.id).inserted {
                    var photo = WorldSnapshot.Photo(user: reference.userID, id: reference.id, data: data)
                    photo.kind = reference.kind == .postPhoto ? nil : reference.kind
                    snapshot.photos.append(photo)
                }
                return .some(reference.id)
            } catch  where error.code == .mediaNotFound {
                return .some(nil)
            } catch {
                throw AccountError(.storage, detail: "A photo could not be read: \(error)")
            }
        }
        for index in snapshot.users.indices {
            guard let url = snapshot.users[index].photoURL, let stored = try photo(at: url) else { continue }
            snapshot.users[index].photoURL = nil
            snapshot.users[index].photo = stored
        }
        for index in snapshot.posts.indices {
            guard let url = snapshot.posts[index].mediaURL, let stored = try photo(at: url) else { continue }
            snapshot.posts[index].mediaURL = nil
            snapshot.posts[index].photo = stored
        }
    }

    /// What moderation keeps, and the notifications, in the snapshot's terms. A comment of
    /// a deleted account is not in a snapshot: the reports and case of one, unless the
    /// case keeps what it said, and the notifications it caused, are left out with it.
    fileprivate func exportFeedRecords(_ moderation: ModerationRecords, _ notifications: NotificationRecords, into snapshot: inout WorldSnapshot) {
        // The posts and comments held, made only for a world with moderation or notifications:
        // an export of 100k posts and neither spends nothing on them.
        var content: Set<ReportTarget> = []
        if !moderation.reports.isEmpty || !moderation.cases.isEmpty || !notifications.groups.isEmpty {
            content = Set(
                snapshot.posts.compactMap { $0.id.map(ReportTarget.post) } + snapshot.comments.compactMap { $0.id.map(ReportTarget.comment) })
            for found in moderation.cases where found.removedContent != nil { content.insert(found.target) }
        }
        let users = Set(snapshot.users.map { Array($0.id.utf8) })
        func held(_ target: ReportTarget) -> Bool {
            if case .user(let userID) = target { return users.contains(Array(userID.utf8)) }
            return content.contains(target)
        }
        snapshot.reports = moderation.reports.filter { held($0.target) }.map { report in
            var entry = WorldSnapshot.Report(reporter: report.reporterID, target: report.target, reason: report.reason, createdAt: report.createdAt)
            entry.details = report.details
            return entry
        }
        snapshot.moderationCases = moderation.cases.filter { held($0.target) }.map { found in
            var entry = WorldSnapshot.ModerationCase(target: found.target, status: found.status, openedAt: found.openedAt)
            entry.reviewedAt = found.reviewedAt
            entry.removedOwner = found.removedOwnerID
            entry.removedContent = found.removedContent
            return entry
        }
        snapshot.suspensions = moderation.suspensions.map { WorldSnapshot.Suspension(user: $0.user, date: $0.date) }
        snapshot.moderators = moderation.moderators.map { WorldSnapshot.ModeratorGrant(user: $0.user, grantedAt: $0.date) }
        snapshot.notifications = notifications.groups.compactMap { group in
            let causes = group.causes.filter { cause in
                users.contains(Array(cause.actor.utf8)) && (cause.commentID.map { content.contains(.comment($0)) } ?? true)
            }
            guard !causes.isEmpty else { return nil }
            var entry = WorldSnapshot.Notification(
                recipient: group.recipient, kind: group.kind, post: group.postID,
                causes: causes.map { .init(actor: $0.actor, comment: $0.commentID, date: $0.date) })
            entry.updatedAt = group.updatedAt
            entry.readAt = group.readAt
            return entry
        }
        snapshot.notificationsSeen = notifications.seen.map { WorldSnapshot.NotificationsSeen(user: $0.user, upTo: $0.upTo) }
        snapshot.moderationLog = moderation.log.map { logged in
            var entry = WorldSnapshot.ModerationLogEntry(
                moderator: logged.moderatorID, action: logged.action, target: logged.target, date: logged.date)
            entry.id = logged.id
            entry.owner = logged.ownerID
            entry.note = logged.note
            return entry
        }
    }
}
