import Foundation
import TrainAuth
import TrainCore

/// A world's feed as a snapshot holds it: what a world's export reads and its import
/// writes, laid out as the calls that made it would have, notifications excepted.
package struct SocialWorld: Hashable, Sendable {
    /// A relation from one user to another: a follow or a block.
    package struct Pair: Hashable, Sendable {
        package var from: String
        package var to: String

        package init(from: String, to: String) {
            self.from = from
            self.to = to
        }
    }

    /// A user liking a post.
    package struct Like: Hashable, Sendable {
        package var user: String
        package var post: UUID

        package init(user: String, post: UUID) {
            self.user = user
            self.post = post
        }
    }

    package var follows: [Pair] = []
    package var blocks: [Pair] = []
    package var mutes: [Pair] = []
    /// Posts with their counts; the author's name is their profile's at the import.
    package var posts: [PostEntity] = []
    /// Who likes which post.
    package var likes: [Like] = []
    package var comments: [PostComment] = []
    package var moderation = ModerationRecords()
    package var notifications = NotificationRecords()
    package var unlocks: [FeedUnlock] = []

    package init() {}
}

extension LocalSocialFeedService {
    /// The feed's follows, blocks, posts, likes and comments, each list in key order.
    package func exportWorld() throws(SocialError) -> SocialWorld {
        try reading { records in
            var world = SocialWorld()
            world.follows = try Self.pairs(in: SocialRecords.follows, records)
            world.blocks = try Self.pairs(in: SocialRecords.blocks, records)
            world.mutes = try Self.pairs(in: SocialRecords.mutes, records)
            world.posts = try records.values(in: SocialRecords.posts)
            world.likes = try records.keys(in: SocialRecords.liked).map { key in
                let components = try RecordKey(encoded: key).components
                guard components.count == 2, case .string(let user) = components[0], case .uuid(let post) = components[1] else {
                    throw SocialError(.storage, detail: "A like's key has another layout.")
                }
                return SocialWorld.Like(user: user, post: post)
            }
            world.comments = try records.values(in: SocialRecords.comments)
            world.moderation = try exportModeration(in: records)
            world.notifications = try exportNotifications(in: records)
            world.unlocks = try records.values(in: SocialRecords.unlocks)
            return world
        }
    }

    /// Writes `world` into a feed that holds none of it, in one transaction: a profile
    /// for each of `users`, then the blocks, the follows, the posts into their authors'
    /// and followers' feeds, the likes and the comments. The caller has checked every
    /// reference; the posts' counts are the likes and comments given.
    package func importWorld(_ world: SocialWorld, users: [UserEntity]) throws(SocialError) {
        try writing { records in
            // By the IDs' bytes, as the feed tells users apart.
            var names: [[UInt8]: String] = [:]
            for user in users { names[Array(user.id.utf8)] = try ensureProfile(user, in: records, for: .unseen).displayName }
            for block in world.blocks { try addPair(SocialRecords.blocks, SocialRecords.blockedBy, from: block.from, to: block.to, in: records) }
            for mute in world.mutes { try addPair(SocialRecords.mutes, SocialRecords.mutedBy, from: mute.from, to: mute.to, in: records) }
            for follow in world.follows { try addFollow(from: follow.from, to: follow.to, at: now, notifying: false, in: records) }
            var meta = try records.value(forKey: SocialRecords.metaKey, in: SocialRecords.meta) ?? SocialRecords.Meta()
            var likeCounts: [UUID: Int] = [:]
            var commentCounts: [UUID: Int] = [:]
            for like in world.likes { likeCounts[like.post, default: 0] += 1 }
            for comment in world.comments where !comment.isHiddenByModeration { commentCounts[comment.postID, default: 0] += 1 }
            // Written collection by collection in key order, as a bulk load is: each
            // B-tree grows at its end instead of splitting pages all over.
            var posts: [(key: String, post: PostEntity)] = []
            var feed: [(key: String, value: Data)] = []
            var authored: [(key: String, value: Data)] = []
            var timelines: [(key: String, value: Data)] = []
            // Each author's name, key and readers' keys, made once (the follows are all
            // written by now), by the ID's bytes.
            var authors: [[UInt8]: (name: String?, author: String, readers: [String])] = [:]
            for stored in world.posts {
                let bytes = Array(stored.userID.utf8)
                let keys: (name: String?, author: String, readers: [String])
                if let known = authors[bytes] {
                    keys = known
                } else {
                    keys = (
                        names[bytes], try SocialRecords.key([.string(stored.userID)]),
                        try self.readers(of: stored.userID, in: records).map { try SocialRecords.key([.string($0)]) }
                    )
                    authors[bytes] = keys
                }
                var post = PostEntity(
                    id: stored.id, userID: stored.userID, userName: keys.name ?? stored.userName, workoutType: stored.workoutType,
                    content: stored.content, createdAt: stored.createdAt, expiresAt: stored.expiresAt)
                post.isHiddenByModeration = stored.isHiddenByModeration
                post.workout = stored.workout
                post.mediaURL = stored.mediaURL
                post.likeCount = likeCounts[post.id] ?? 0
                post.commentCount = commentCounts[post.id] ?? 0
                posts.append((SocialRecords.key(post.id), post))
                let entries = try indexEntries(of: post, authorKey: keys.author, readerKeys: keys.readers)
                feed.append((entries.feed, entries.value))
                authored.append((entries.authored, entries.value))
                for key in entries.timelines { timelines.append((key, entries.value)) }
                meta.newestPost = max(meta.newestPost ?? post.createdAt, post.createdAt)
                meta.longestLifetime = max(meta.longestLifetime, post.expiresAt.timeIntervalSince(post.createdAt))
            }
            let sortedPosts = posts.sorted(by: { $0.key < $1.key })
            let sortedEntries = [(SocialRecords.feed, feed), (SocialRecords.authored, authored), (SocialRecords.timelines, timelines)].map {
                ($0.0, $0.1.sorted(by: { $0.key < $1.key }))
            }
            for (key, post) in sortedPosts { try records.put(post, forKey: key, in: SocialRecords.posts) }
            // A post's photo in the media store is kept while a post shows it.
            for post in world.posts {
                guard let url = post.mediaURL, let photo = try media.reference(for: url) else { continue }
                try records.setData(
                    SocialRecords.value(post.id), forKey: SocialRecords.key([.string(photo.path), .uuid(post.id)]), in: SocialRecords.mediaUses)
            }
            for (index, list) in sortedEntries {
                for entry in list { try records.setData(entry.value, forKey: entry.key, in: index) }
            }
            try records.put(meta, forKey: SocialRecords.metaKey, in: SocialRecords.meta)
            for like in world.likes {
                try records.setData(
                    SocialRecords.value(like.user), forKey: SocialRecords.key([.uuid(like.post), .string(like.user)]), in: SocialRecords.likes)
                try records.setData(
                    SocialRecords.value(like.post), forKey: SocialRecords.key([.string(like.user), .uuid(like.post)]), in: SocialRecords.liked)
            }
            for stored in world.comments {
                guard let author = stored.userID else { continue }
                var comment = PostComment(
                    id: stored.id, postID: stored.postID, userID: author, userName: names[Array(author.utf8)] ?? stored.userName, text: stored.text,
                    createdAt: stored.createdAt)
                comment.isHiddenByModeration = stored.isHiddenByModeration
                let key = try SocialRecords.key([.uuid(comment.postID), .date(comment.createdAt), .uuid(comment.id)])
                try records.put(comment, forKey: key, in: SocialRecords.comments)
                try records.setData(Data(key.utf8), forKey: SocialRecords.key(comment.id), in: SocialRecords.commentIndex)
                try records.setData(Data(key.utf8), forKey: SocialRecords.key([.string(author), .uuid(comment.id)]), in: SocialRecords.userComments)
                // A hidden comment is out of its post's count and of the index the viewers' counts read.
                if !comment.isHiddenByModeration {
                    try records.setData(
                        Data(), forKey: SocialRecords.commenterKey(comment.postID, author, comment.id), in: SocialRecords.postCommenters)
                }
            }
            try importModeration(world.moderation, in: records)
            try importNotifications(world.notifications, in: records)
            for unlock in world.unlocks { try records.put(unlock, forKey: unlock.userID, in: SocialRecords.unlocks) }
        }
    }

    /// Every relation of a collection keyed by two user IDs.
    private static func pairs(in collection: RecordCollection<Data>, _ records: RecordReader) throws -> [SocialWorld.Pair] {
        try records.keys(in: collection).map { key in
            let components = try RecordKey(encoded: key).components
            guard components.count == 2, case .string(let from) = components[0], case .string(let to) = components[1] else {
                throw SocialError(.storage, detail: "A relation's key has another layout.")
            }
            return SocialWorld.Pair(from: from, to: to)
        }
    }
}
