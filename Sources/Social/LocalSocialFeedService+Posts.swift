import Foundation
import TrainCore

extension LocalSocialFeedService {
    public func createPost(content: String, workoutType: WorkoutType, mediaURL: URL?) async throws -> PostEntity {
        let user = try signedInUser()
        guard let text = Self.validText(content, maximum: policy.maximumPostLength) else {
            throw SocialError(.invalidContent, detail: "A post needs 1 to \(policy.maximumPostLength) characters without control characters.")
        }
        if let mediaURL, !Self.isValidMediaURL(mediaURL) {
            throw SocialError(.invalidMediaURL, detail: "Media must be https with a host, or file.")
        }
        let now = now
        let lifetime = TimeInterval(policy.postLifetime.components.seconds) + TimeInterval(policy.postLifetime.components.attoseconds) / 1e18
        let id = newID()
        return try writing { records in
            let profile = try ensureProfile(user, in: records)
            guard try isUnlocked(user.id, at: now, in: records) else { throw SocialError(.feedLocked) }
            var meta = try records.value(forKey: SocialRecords.metaKey, in: SocialRecords.meta) ?? SocialRecords.Meta()
            // Dated to the millisecond, after every earlier post even if the clock went
            // back, so a new post never lands behind a cursor.
            var createdAt = Date(timeIntervalSince1970: (now.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
            if let newest = meta.newestPost, createdAt <= newest {
                createdAt = Date(timeIntervalSince1970: ((newest.timeIntervalSince1970 * 1000).rounded() + 1) / 1000)
            }
            let post = PostEntity(
                id: id, userID: user.id, userName: profile.displayName, workoutType: workoutType, content: text, createdAt: createdAt,
                expiresAt: createdAt.addingTimeInterval(lifetime), mediaURL: mediaURL)
            meta.newestPost = createdAt
            meta.longestLifetime = max(meta.longestLifetime, lifetime)
            try records.put(meta, forKey: SocialRecords.metaKey, in: SocialRecords.meta)
            try records.put(post, forKey: SocialRecords.key(id), in: SocialRecords.posts)
            let position = SocialRecords.position(createdAt, id)
            let value = SocialRecords.value(id)
            try records.setData(value, forKey: SocialRecords.key(position), in: SocialRecords.feed)
            try records.setData(value, forKey: SocialRecords.key([.string(user.id)] + position), in: SocialRecords.authored)
            try records.setData(value, forKey: SocialRecords.key([.string(user.id)] + position), in: SocialRecords.timelines)
            for follower in try records.records(in: SocialRecords.followers, range: SocialRecords.range([.string(user.id)])) {
                let reader = SocialRecords.userID(follower.data)
                try records.setData(value, forKey: SocialRecords.key([.string(reader)] + position), in: SocialRecords.timelines)
            }
            return post
        }
    }

    public func deletePost(_ postID: UUID) async throws {
        let user = try signedInUser()
        try writing { records in
            guard let post = try records.value(forKey: SocialRecords.key(postID), in: SocialRecords.posts) else {
                throw SocialError(.postNotFound)
            }
            guard post.userID == user.id else { throw SocialError(.notAuthorized, detail: "Only the author deletes a post.") }
            try removePost(post, in: records)
        }
    }

    /// Removes a post with its likes, comments and index entries, keeping its position
    /// for cursors. Friends-feed entries are skipped when read and go when the reader
    /// unfollows.
    func removePost(_ post: PostEntity, in records: RecordWriter) throws {
        let key = SocialRecords.key(post.id)
        let position = SocialRecords.position(post.createdAt, post.id)
        try records.removeValue(forKey: key, in: SocialRecords.posts)
        try records.put(post.createdAt, forKey: key, in: SocialRecords.removedPosts)
        try records.removeValue(forKey: SocialRecords.key(position), in: SocialRecords.feed)
        try records.removeValue(forKey: SocialRecords.key([.string(post.userID)] + position), in: SocialRecords.authored)
        for like in try records.records(in: SocialRecords.likes, range: SocialRecords.range([.uuid(post.id)])) {
            let userID = SocialRecords.userID(like.data)
            try records.removeValue(forKey: like.key, in: SocialRecords.likes)
            try records.removeValue(forKey: SocialRecords.key([.string(userID), .uuid(post.id)]), in: SocialRecords.liked)
        }
        for comment in try records.entries(in: SocialRecords.comments, range: SocialRecords.range([.uuid(post.id)])) {
            try records.removeValue(forKey: comment.key, in: SocialRecords.comments)
            try records.removeValue(forKey: SocialRecords.key(comment.value.id), in: SocialRecords.commentIndex)
        }
    }

    public func friendsFeed(limit: Int, after lastPostID: UUID?) async throws -> [PostEntity] {
        let user = try signedInUser()
        let limit = try Self.pageSize(limit)
        let now = now
        return try reading { records in
            guard try isUnlocked(user.id, at: now, in: records) else { throw SocialError(.feedLocked) }
            return try page(
                of: SocialRecords.timelines, under: [.string(user.id)], for: user.id, limit: limit, after: lastPostID, at: now, in: records)
        }
    }

    public func discoverFeed(limit: Int, after lastPostID: UUID?) async throws -> [PostEntity] {
        let user = try signedInUser()
        let limit = try Self.pageSize(limit)
        let now = now
        return try reading { records in
            if policy.discoverRequiresUnlock, try !isUnlocked(user.id, at: now, in: records) { throw SocialError(.feedLocked) }
            return try page(of: SocialRecords.feed, under: [], for: user.id, limit: limit, after: lastPostID, at: now, in: records)
        }
    }

    /// Up to `limit` posts of an index after the cursor that `viewer` may see at `now`:
    /// deleted, expired and blocked posts are skipped during the walk, so a page is
    /// only short at the end of the feed.
    func page(
        of index: RecordCollection<Data>, under prefix: [RecordKey.Component], for viewer: String, limit: Int, after lastPostID: UUID?,
        at now: Date, in records: RecordReader
    ) throws -> [PostEntity] {
        let whole = prefix.isEmpty ? KeyRange.all : try SocialRecords.range(prefix)
        var range = whole
        if let lastPostID {
            range = whole.after(try SocialRecords.key(prefix + position(of: lastPostID, in: records)))
        }
        let hidden = try blockedEitherWay(viewer, in: records)
        let longestLifetime = try records.value(forKey: SocialRecords.metaKey, in: SocialRecords.meta)?.longestLifetime ?? 0
        var posts: [PostEntity] = []
        while posts.count < limit {
            let batch = try records.records(in: index, range: range, limit: max(limit * 2, 16))
            guard let last = batch.last else { break }
            for entry in batch {
                guard let post = try records.value(forKey: SocialRecords.userID(entry.data), in: SocialRecords.posts) else { continue }
                // This post and every older one expired: no post lives longer than this.
                if post.createdAt.addingTimeInterval(longestLifetime) <= now { return posts }
                guard post.isVisible(at: now), !hidden.contains(post.userID) else { continue }
                posts.append(post)
                if posts.count == limit { return posts }
            }
            range = whole.after(last.key)
        }
        return posts
    }

    /// The position of a cursor's post, also once it was deleted; `invalidCursor` if it never existed.
    func position(of postID: UUID, in records: RecordReader) throws -> [RecordKey.Component] {
        let key = SocialRecords.key(postID)
        if let post = try records.value(forKey: key, in: SocialRecords.posts) { return SocialRecords.position(post.createdAt, postID) }
        if let createdAt = try records.value(forKey: key, in: SocialRecords.removedPosts) { return SocialRecords.position(createdAt, postID) }
        throw SocialError(.invalidCursor, detail: "No post \(postID) ever existed here.")
    }
}
