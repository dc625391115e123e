import Foundation
import TrainAuth
import TrainCore

extension LocalSocialFeedService {
    public func createPost(content: String, workoutType: WorkoutType, mediaURL: URL?) async throws -> PostEntity {
        let user = try signedInUser()
        try requireVerifiedEmailForPosting()
        guard workoutType.isValid else { throw SocialError(.invalidWorkoutType, detail: "'\(workoutType)' is not a workout type's name.") }
        guard let text = Self.validText(content, maximum: policy.maximumPostLength) else {
            throw SocialError(.invalidContent, detail: "A post needs 1 to \(policy.maximumPostLength) characters without control characters.")
        }
        guard !policy.wordFilter.matches(text) else { throw SocialError(.objectionableContent) }
        let mentioned = try Self.mentions(in: text, refusingWith: .invalidContent)
        if let mediaURL, !DisplayText.isValidMediaURL(mediaURL) {
            throw SocialError(.invalidMediaURL, detail: "Media must be https with a host, or file.")
        }
        var mediaURL = mediaURL
        let photo = try mediaURL.map { url throws(SocialError) in try media.reference(for: url) } ?? nil
        if let photo {
            // The post shows the photo's canonical URL, whatever spelling it was given.
            mediaURL = media.url(for: photo)
            guard photo.userID == user.id else { throw SocialError(.notAuthorized, detail: "A post shows only its author's photos.") }
            guard try await media.contains(photo) else { throw SocialError(.mediaNotFound) }
            try checkStillSignedIn(user)
        }
        let now = now
        let workout = try? await recordedWorkout(of: workoutType, at: now, in: context.timeZone())
        try checkStillSignedIn(user)
        let lifetime = TimeInterval(policy.postLifetime.components.seconds) + TimeInterval(policy.postLifetime.components.attoseconds) / 1e18
        return try writing(as: user) { records in
            let profile = try ensureProfile(user, in: records)
            guard try isUnlocked(user.id, at: now, in: records) else { throw SocialError(.feedLocked) }
            try checkMentions(mentioned, by: user.id, in: records)
            var meta = try records.value(forKey: SocialRecords.metaKey, in: SocialRecords.meta) ?? SocialRecords.Meta()
            // Dated to the millisecond, after every earlier post even if the clock went
            // back, so a new post never lands behind a cursor.
            var createdAt = Date(timeIntervalSince1970: (now.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
            if let newest = meta.newestPost, createdAt <= newest {
                createdAt = Date(timeIntervalSince1970: ((newest.timeIntervalSince1970 * 1000).rounded() + 1) / 1000)
            }
            let id = try freshID(unusedIn: [SocialRecords.posts, SocialRecords.removedPosts], in: records) {
                Self.postID(createdAt: createdAt, entropy: $0)
            }
            let post = PostEntity(
                id: id, userID: user.id, userName: profile.displayName, workoutType: workoutType, content: text, createdAt: createdAt,
                expiresAt: createdAt.addingTimeInterval(lifetime), mediaURL: mediaURL, workout: workout?.summary)
            meta.newestPost = createdAt
            meta.longestLifetime = max(meta.longestLifetime, lifetime)
            try records.put(meta, forKey: SocialRecords.metaKey, in: SocialRecords.meta)
            try insert(post, photo: photo, in: records)
            try notifyMentions(mentioned, on: id, by: user.id, cause: "", at: now, in: records)
            return post
        }
    }

    public func createPost(content: String, workoutType: WorkoutType, photo: Data) async throws -> PostEntity {
        let user = try signedInUser()
        try requireVerifiedEmailForPosting()
        // What the post itself would refuse is refused before the upload.
        guard workoutType.isValid else { throw SocialError(.invalidWorkoutType, detail: "'\(workoutType)' is not a workout type's name.") }
        guard let text = Self.validText(content, maximum: policy.maximumPostLength) else {
            throw SocialError(.invalidContent, detail: "A post needs 1 to \(policy.maximumPostLength) characters without control characters.")
        }
        guard !policy.wordFilter.matches(text) else { throw SocialError(.objectionableContent) }
        let mentioned = try Self.mentions(in: text, refusingWith: .invalidContent)
        let now = now
        try reading { records in
            guard try isUnlocked(user.id, at: now, in: records) else { throw SocialError(.feedLocked) }
            try checkMentions(mentioned, by: user.id, in: records)
        }
        let reference = try await media.put(photo, kind: .postPhoto, for: user.id)
        do {
            return try await createPost(content: content, workoutType: workoutType, mediaURL: media.url(for: reference))
        } catch {
            await discardUpload(reference)
            throw error
        }
    }

    /// Deletes a photo uploaded for a post that was not made. `LocalMediaStore` deletes
    /// it whoever is signed in now — the user may have changed during the call — and
    /// another store is asked as the current user.
    func discardUpload(_ reference: MediaReference) async {
        if let local = media as? LocalMediaStore {
            try? local.discard(reference)
        } else {
            try? await media.delete(reference)
        }
    }

    /// Stores a post with its index entries and its readers' friends-feed entries; the
    /// caller keeps the store's `Meta` in step.
    func insert(_ post: PostEntity, photo: MediaReference?, in records: RecordWriter) throws {
        try records.put(post, forKey: SocialRecords.key(post.id), in: SocialRecords.posts)
        if let photo {
            try records.setData(
                SocialRecords.value(post.id), forKey: SocialRecords.key([.string(photo.path), .uuid(post.id)]), in: SocialRecords.mediaUses)
        }
        let readers = try readers(of: post.userID, in: records).map { try SocialRecords.key([.string($0)]) }
        let entries = try indexEntries(of: post, authorKey: SocialRecords.key([.string(post.userID)]), readerKeys: readers)
        try records.setData(entries.value, forKey: entries.feed, in: SocialRecords.feed)
        try records.setData(entries.value, forKey: entries.authored, in: SocialRecords.authored)
        for key in entries.timelines { try records.setData(entries.value, forKey: key, in: SocialRecords.timelines) }
    }

    /// A post's keys in the indexes — everyone's feed, its author's posts, the friends
    /// feed of each reader — and the value each holds, the post's ID.
    struct IndexEntries {
        var feed: String
        var authored: String
        var timelines: [String]
        var value: Data
    }

    /// A post's index entries. A key is a user's key with the post's position after it
    /// (a key's encoding is its components' one after the other), so the author's and
    /// the readers' keys are passed made, and a bulk load makes each once.
    func indexEntries(of post: PostEntity, authorKey: String, readerKeys: [String]) throws -> IndexEntries {
        let position = try SocialRecords.key(SocialRecords.position(post.createdAt, post.id))
        return IndexEntries(
            feed: position, authored: authorKey + position, timelines: readerKeys.map { $0 + position }, value: SocialRecords.value(post.id))
    }

    /// Stores posts made elsewhere — a benchmark's or a migration's — in one
    /// transaction, creating their authors' profiles, as ``createPost(content:workoutType:mediaURL:)``
    /// lays them out. Their content is not checked.
    package func importPosts(_ posts: [PostEntity]) throws(SocialError) {
        try writing { records in
            var meta = try records.value(forKey: SocialRecords.metaKey, in: SocialRecords.meta) ?? SocialRecords.Meta()
            var known: Set<String> = []
            for post in posts {
                if known.insert(post.userID).inserted, try records.data(forKey: post.userID, in: SocialRecords.profiles) == nil {
                    try ensureProfile(
                        UserEntity(id: post.userID, displayName: post.userName, createdAt: post.createdAt, lastSignInAt: post.createdAt), in: records,
                        for: .unseen)
                }
                try insert(post, photo: nil, in: records)
                meta.newestPost = max(meta.newestPost ?? post.createdAt, post.createdAt)
                meta.longestLifetime = max(meta.longestLifetime, post.expiresAt.timeIntervalSince(post.createdAt))
            }
            try records.put(meta, forKey: SocialRecords.metaKey, in: SocialRecords.meta)
        }
    }

    /// A post's ID: a UUID whose first 48 bits are its creation time in milliseconds, as
    /// in UUID version 7, and whose other bits come from `entropy`. Posts are stored by
    /// ID, so posts made near each other in time sit near each other in the file, and a
    /// page of the feed reads neighbouring records.
    package static func postID(createdAt: Date, entropy: UUID) -> UUID {
        let milliseconds = UInt64(max(0, (createdAt.timeIntervalSince1970 * 1000).rounded(.down)))
        let time = (0..<6).map { UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - $0))) }
        return UUID(bytes: time + withUnsafeBytes(of: entropy.uuid) { Array($0) }.dropFirst(6), version: 7)
    }

    /// The users whose friends feed shows `author`'s posts: the author and their followers.
    func readers(of author: String, in records: RecordReader) throws -> [String] {
        [author]
            + (try records.records(in: SocialRecords.followers, range: SocialRecords.range([.string(author)])).map { SocialRecords.userID($0.data) })
    }

    public func deletePost(_ postID: UUID) async throws {
        let user = try signedInUser()
        let now = now
        let orphans = try writing(as: user) { records in
            guard let post = try records.value(forKey: SocialRecords.key(postID), in: SocialRecords.posts) else {
                throw SocialError(.postNotFound)
            }
            guard post.userID == user.id else { throw SocialError(.notAuthorized, detail: "Only the author deletes a post.") }
            return try removePost(post, at: now, longestLifetime: try longestLifetime(in: records), in: records)
        }
        await deleteMedia(orphans)
    }

    /// Removes a post with its likes, comments and index entries, keeping its position
    /// for cursors.
    /// - Parameter readers: Whose friends feeds hold the post, if the caller knows;
    ///   looked up when the post is live otherwise.
    /// - Returns: The stored photo it showed, if no other post nor its author's profile
    ///   shows it: the caller deletes it once the transaction is kept.
    func removePost(
        _ post: PostEntity, at now: Date, longestLifetime: TimeInterval, readers: [String]? = nil, in records: RecordWriter
    ) throws -> [MediaReference] {
        let key = SocialRecords.key(post.id)
        let position = SocialRecords.position(post.createdAt, post.id)
        try contentRemoved(.post(post.id), owner: post.userID, text: post.content, in: records)
        try removeNotifications(about: post.id, of: post.userID, in: records)
        try unnotifyMentions(in: post.content, on: post.id, by: post.userID, cause: "", in: records)
        try records.removeValue(forKey: key, in: SocialRecords.posts)
        try records.put(post.createdAt, forKey: key, in: SocialRecords.removedPosts)
        try records.removeValue(forKey: SocialRecords.key(position), in: SocialRecords.feed)
        try records.removeValue(forKey: SocialRecords.key([.string(post.userID)] + position), in: SocialRecords.authored)
        // A live post leaves its readers' friends feeds; an expired one is past where any page stops.
        if post.createdAt.addingTimeInterval(longestLifetime) > now {
            for reader in try readers ?? self.readers(of: post.userID, in: records) {
                try records.removeValue(forKey: SocialRecords.key([.string(reader)] + position), in: SocialRecords.timelines)
            }
        }
        for like in try records.records(in: SocialRecords.likes, range: SocialRecords.range([.uuid(post.id)])) {
            let userID = SocialRecords.userID(like.data)
            try records.removeValue(forKey: like.key, in: SocialRecords.likes)
            try records.removeValue(forKey: SocialRecords.key([.string(userID), .uuid(post.id)]), in: SocialRecords.liked)
        }
        for comment in try records.entries(in: SocialRecords.comments, range: SocialRecords.range([.uuid(post.id)])) {
            try removeComment(comment.value, key: comment.key, postAuthor: nil, in: records)
        }
        guard let url = post.mediaURL, let photo = (try? media.reference(for: url)) ?? nil else { return [] }
        try records.removeValue(forKey: SocialRecords.key([.string(photo.path), .uuid(post.id)]), in: SocialRecords.mediaUses)
        return try isShown(photo, byPostsOrProfileOf: post.userID, in: records) ? [] : [photo]
    }

    /// Whether a post shows `photo`, or the profile of `owner`, whose photo it is.
    func isShown(_ photo: MediaReference, byPostsOrProfileOf owner: String, in records: RecordReader) throws -> Bool {
        if try Self.postsShow(photo, in: records) { return true }
        guard let shown = try records.value(forKey: owner, in: SocialRecords.profiles)?.photoURL else { return false }
        return (try? media.reference(for: shown)) == photo
    }

    /// Whether a post shows `photo`: a profile photo a post shows stays when the profile
    /// changes it, and goes with the last such post.
    /// - Throws: `storage`.
    package func isShownInAPost(_ photo: MediaReference) throws(SocialError) -> Bool {
        try reading { records in try Self.postsShow(photo, in: records) }
    }

    /// Whether a post shows `photo`.
    private static func postsShow(_ photo: MediaReference, in records: RecordReader) throws -> Bool {
        try records.count(in: SocialRecords.mediaUses, range: SocialRecords.range([.string(photo.path)])) > 0
    }

    /// The index entries of `author`'s posts that a page can still reach at `now`,
    /// newest first. It reads in small batches and stops at the first older entry, so
    /// its cost is the author's live posts, never their whole history.
    func reachableAuthored(by author: String, at now: Date, in records: RecordReader) throws -> [StoredRecord] {
        let longestLifetime = try longestLifetime(in: records)
        let whole = try SocialRecords.range([.string(author)])
        var range = whole
        var reachable: [StoredRecord] = []
        while true {
            let batch = try records.records(in: SocialRecords.authored, range: range, limit: 64)
            for entry in batch {
                guard let createdAt = SocialRecords.positionDate(entry.key), createdAt.addingTimeInterval(longestLifetime) > now else {
                    return reachable
                }
                reachable.append(entry)
            }
            guard batch.count == 64, let last = batch.last else { return reachable }
            range = whole.after(last.key)
        }
    }

    /// The longest lifetime a post has had here: a post older than that is expired,
    /// and pages walk back no further.
    func longestLifetime(in records: RecordReader) throws -> TimeInterval {
        try records.value(forKey: SocialRecords.metaKey, in: SocialRecords.meta)?.longestLifetime ?? 0
    }

    /// Deletes photos no post shows any more, once the posts are gone. A photo that
    /// cannot be deleted now is left behind, shown by nothing; deleting the account
    /// deletes it with the rest of the user's media.
    func deleteMedia(_ photos: [MediaReference]) async {
        for photo in photos { try? await media.delete(photo) }
    }

    public func friendsFeed(limit: Int, after lastPostID: UUID?) async throws -> FeedPage {
        let user = try signedInUser()
        let limit = try Self.pageSize(limit)
        let now = now
        return try reading { records in
            guard try isUnlocked(user.id, at: now, in: records) else { throw SocialError(.feedLocked) }
            return try page(
                of: SocialRecords.timelines, under: [.string(user.id)], for: user.id, limit: limit, after: lastPostID, at: now, in: records)
        }
    }

    public func discoverFeed(limit: Int, after lastPostID: UUID?) async throws -> FeedPage {
        let user = try signedInUser()
        let limit = try Self.pageSize(limit)
        let now = now
        return try reading { records in
            if policy.discoverRequiresUnlock, try !isUnlocked(user.id, at: now, in: records) { throw SocialError(.feedLocked) }
            return try page(of: SocialRecords.feed, under: [], for: user.id, limit: limit, after: lastPostID, at: now, in: records)
        }
    }

    /// Up to `limit` posts of an index after the cursor that `viewer` may see at `now`,
    /// as they see them: deleted, expired and blocked posts are skipped during the
    /// walk, so a page is only short at the end of the feed, which the walk finds by
    /// looking for one more post.
    func page(
        of index: RecordCollection<Data>, under prefix: [RecordKey.Component], for viewer: String, limit: Int, after lastPostID: UUID?,
        at now: Date, in records: RecordReader
    ) throws -> FeedPage {
        let whole = prefix.isEmpty ? KeyRange.all : try SocialRecords.range(prefix)
        var range = whole
        if let lastPostID {
            range = whole.after(try SocialRecords.key(prefix + position(of: lastPostID, in: records)))
        }
        let reader = try feedReader(viewer, in: records)
        let reportedComments = try reportedCommentCounts(by: viewer, hiding: reader.hidden, in: records)
        let longestLifetime = try longestLifetime(in: records)
        var posts: [PostEntity] = []
        while true {
            let batch = try records.records(in: index, range: range, limit: max(limit * 2 + 1, 16))
            guard let end = batch.last else { break }
            for entry in batch {
                guard let post = try records.value(forKey: SocialRecords.userID(entry.data), in: SocialRecords.posts) else {
                    // A deleted post: its key still tells whether the walk is past every live post.
                    if let createdAt = SocialRecords.positionDate(entry.key), createdAt.addingTimeInterval(longestLifetime) <= now {
                        return FeedPage(posts: posts, nextCursor: nil)
                    }
                    continue
                }
                // This post and every older one expired: no post lives longer than this.
                if post.createdAt.addingTimeInterval(longestLifetime) <= now { return FeedPage(posts: posts, nextCursor: nil) }
                guard reader.sees(post, at: now) else { continue }
                // One more post than the page holds: there is a next page.
                if posts.count == limit { return FeedPage(posts: posts, nextCursor: posts.last?.id) }
                var shown = try seen(post, hiding: reader.hidden, in: records)
                shown.commentCount = max(0, shown.commentCount - (reportedComments[post.id] ?? 0))
                shown.isLikedByViewer =
                    try records.data(forKey: SocialRecords.key([.uuid(post.id), .string(viewer)]), in: SocialRecords.likes) != nil
                posts.append(shown)
            }
            range = whole.after(end.key)
        }
        return FeedPage(posts: posts, nextCursor: nil)
    }

    /// What a user's feeds leave out: the one filter of a page and of the new-posts stream.
    struct FeedReader {
        /// The users hidden from them.
        let hidden: UserIDSet
        /// The users they mute.
        let muted: UserIDSet
        /// The posts they reported.
        let reported: Set<UUID>

        /// Whether a post shows in their feeds at `now`: live, not hidden by moderation,
        /// not reported by them, by a user they neither mute nor may not see.
        func sees(_ post: PostEntity, at now: Date) -> Bool {
            post.isVisible(at: now) && !post.isHiddenByModeration && !hidden.contains(post.userID) && !muted.contains(post.userID)
                && !reported.contains(post.id)
        }
    }

    /// What `viewer`'s feeds leave out, read once for a page.
    func feedReader(_ viewer: String, in records: RecordReader) throws -> FeedReader {
        FeedReader(
            hidden: try hiddenUsers(from: viewer, in: records), muted: try mutedUsers(of: viewer, in: records),
            reported: try reportedPosts(by: viewer, in: records))
    }

    /// The position of a cursor's post, also once it was deleted; `invalidCursor` if it never existed.
    func position(of postID: UUID, in records: RecordReader) throws -> [RecordKey.Component] {
        let key = SocialRecords.key(postID)
        if let post = try records.value(forKey: key, in: SocialRecords.posts) { return SocialRecords.position(post.createdAt, postID) }
        if let createdAt = try records.value(forKey: key, in: SocialRecords.removedPosts) { return SocialRecords.position(createdAt, postID) }
        throw SocialError(.invalidCursor, detail: "No post \(postID) ever existed here.")
    }
}
