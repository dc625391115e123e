import Foundation
import TrainCore

extension LocalSocialFeedService {
    // MARK: - Follows

    public func follow(_ userID: String) async throws {
        let user = try signedInUser()
        guard userID != user.id else { throw SocialError(.cannotTargetSelf, detail: "A user cannot follow themselves.") }
        let now = now
        try writing(as: user) { records in
            try ensureProfile(user, in: records)
            _ = try profile(of: userID, in: records)
            guard try !blockedEitherWay(user.id, in: records).contains(userID) else { throw SocialError(.blocked) }
            guard try !hiddenUsers(from: user.id, in: records).contains(userID) else { throw SocialError(.userNotFound) }
            try addFollow(from: user.id, to: userID, at: now, in: records)
        }
    }

    public func unfollow(_ userID: String) async throws {
        let user = try signedInUser()
        guard Self.isPlausibleUserID(userID) else { return }
        let now = now
        try writing(as: user) { records in try removeFollow(from: user.id, to: userID, at: now, in: records) }
    }

    public func following() async throws -> [SocialProfile] {
        let user = try signedInUser()
        return try reading { records in
            try profiles(in: SocialRecords.follows, of: user.id, in: records, hiding: try hiddenUsers(from: user.id, in: records))
        }
    }

    public func followers() async throws -> [SocialProfile] {
        let user = try signedInUser()
        return try reading { records in
            try profiles(in: SocialRecords.followers, of: user.id, in: records, hiding: try hiddenUsers(from: user.id, in: records))
        }
    }

    /// Adds a follow with its counts, and puts the followee's live posts in the
    /// follower's friends feed. Following twice changes nothing. A follow imported from
    /// a world's snapshot tells the followee nothing.
    func addFollow(from follower: String, to followee: String, at now: Date, notifying: Bool = true, in records: RecordWriter) throws {
        let key = try SocialRecords.key([.string(follower), .string(followee)])
        guard try records.data(forKey: key, in: SocialRecords.follows) == nil else { return }
        try records.setData(SocialRecords.value(followee), forKey: key, in: SocialRecords.follows)
        try records.setData(
            SocialRecords.value(follower), forKey: SocialRecords.key([.string(followee), .string(follower)]), in: SocialRecords.followers)
        try adjust(follower, in: records) { $0.followingCount += 1 }
        try adjust(followee, in: records) { $0.followerCount += 1 }
        if notifying { try notify(followee, of: .follow, on: nil, by: follower, at: now, in: records) }
        for entry in try reachableAuthored(by: followee, at: now, in: records) {
            guard let post = try records.value(forKey: SocialRecords.userID(entry.data), in: SocialRecords.posts) else { continue }
            let position = SocialRecords.position(post.createdAt, post.id)
            try records.setData(entry.data, forKey: SocialRecords.key([.string(follower)] + position), in: SocialRecords.timelines)
        }
    }

    /// Removes a follow with its counts and the followee's posts from the follower's
    /// friends feed. Removing a follow that is not there changes nothing.
    func removeFollow(from follower: String, to followee: String, at now: Date, in records: RecordWriter) throws {
        guard try removeFollowRecords(from: follower, to: followee, in: records) else { return }
        // Only posts a page can still reach: a walk stops before older ones.
        for entry in try reachableAuthored(by: followee, at: now, in: records) {
            guard let createdAt = SocialRecords.positionDate(entry.key), let postID = UUID(uuidString: SocialRecords.userID(entry.data)) else {
                continue
            }
            let position = SocialRecords.position(createdAt, postID)
            try records.removeValue(forKey: SocialRecords.key([.string(follower)] + position), in: SocialRecords.timelines)
        }
    }

    /// Removes a follow's records both ways and the counts it gave, except on the
    /// profile of `leaving`, a user whose data goes, profile and all.
    /// - Returns: Whether there was such a follow.
    @discardableResult
    func removeFollowRecords(from follower: String, to followee: String, leaving: String? = nil, in records: RecordWriter) throws -> Bool {
        let key = try SocialRecords.key([.string(follower), .string(followee)])
        guard try records.data(forKey: key, in: SocialRecords.follows) != nil else { return false }
        try records.removeValue(forKey: key, in: SocialRecords.follows)
        try records.removeValue(forKey: SocialRecords.key([.string(followee), .string(follower)]), in: SocialRecords.followers)
        let stays = { (user: String) in !(leaving?.utf8.elementsEqual(user.utf8) ?? false) }
        // A leaving user's own notifications go all at once.
        if stays(followee) { try unnotify(followee, of: .follow, on: nil, by: follower, in: records) }
        if stays(follower) { try adjust(follower, in: records) { $0.followingCount = max(0, $0.followingCount - 1) } }
        if stays(followee) { try adjust(followee, in: records) { $0.followerCount = max(0, $0.followerCount - 1) } }
        return true
    }

    /// Changes a stored profile's counts.
    func adjust(_ userID: String, in records: RecordWriter, _ change: (inout SocialProfile) -> Void) throws {
        guard var profile = try records.value(forKey: userID, in: SocialRecords.profiles) else { return }
        change(&profile)
        try records.put(profile, forKey: userID, in: SocialRecords.profiles)
    }

    /// The profiles a relation of `userID` names, in the relation's key order.
    func profiles(
        in relation: RecordCollection<Data>, of userID: String, in records: RecordReader, hiding hidden: UserIDSet = UserIDSet()
    ) throws -> [SocialProfile] {
        try records.records(in: relation, range: SocialRecords.range([.string(userID)])).compactMap { entry in
            let other = SocialRecords.userID(entry.data)
            guard !hidden.contains(other), let profile = try records.value(forKey: other, in: SocialRecords.profiles) else { return nil }
            return try seen(profile, hiding: hidden, in: records)
        }
    }

    // MARK: - Profiles and search

    public func profile(_ userID: String) async throws -> SocialProfile {
        let user = try signedInUser()
        return try reading { records in
            let profile = try profile(of: userID, in: records)
            let hidden = try hiddenUsers(from: user.id, in: records)
            guard !hidden.contains(userID) else { throw SocialError(.userNotFound) }
            return try seen(profile, hiding: hidden, in: records)
        }
    }

    public func refreshProfile() async throws -> SocialProfile {
        let user = try signedInUser()
        return try writing(as: user) { records in try ensureProfile(user, in: records, for: .unseen) }
    }

    public func searchUsers(_ query: String, limit: Int) async throws -> [SocialProfile] {
        let user = try signedInUser()
        let limit = try Self.pageSize(limit)
        let words = SocialRecords.words(query)
        // The longest word finds the candidates; every other word must start one of their name's words.
        guard let word = words.max(by: { $0.count < $1.count }), words.joined().count >= 2 else {
            throw SocialError(.queryTooShort, detail: "A search needs two letters or digits or more.")
        }
        // Names are at most 100 characters: a longer word matches nobody.
        guard word.count <= 100 else { return [] }
        return try reading { records in
            let hidden = try hiddenUsers(from: user.id, in: records)
            var matched: Set<String> = []
            var found: [SocialProfile] = []
            for key in try records.keys(in: SocialRecords.names, range: .prefix(word)) {
                guard let separator = key.firstIndex(of: "\u{0}") else { continue }
                let userID = String(key[key.index(after: separator)...])
                guard !hidden.contains(userID), matched.insert(userID).inserted,
                    let profile = try records.value(forKey: userID, in: SocialRecords.profiles)
                else { continue }
                let nameWords = SocialRecords.words(profile.displayName)
                guard words.allSatisfy({ part in nameWords.contains { $0.hasPrefix(part) } }) else { continue }
                found.append(try seen(profile, hiding: hidden, in: records))
                if found.count == limit { break }
            }
            return found
        }
    }

    // MARK: - Blocks

    public func block(_ userID: String) async throws {
        let user = try signedInUser()
        guard userID != user.id else { throw SocialError(.cannotTargetSelf, detail: "A user cannot block themselves.") }
        let now = now
        try writing(as: user) { records in
            try ensureProfile(user, in: records, for: .unseen)
            _ = try profile(of: userID, in: records)
            try addPair(SocialRecords.blocks, SocialRecords.blockedBy, from: user.id, to: userID, in: records)
            try removeFollow(from: user.id, to: userID, at: now, in: records)
            try removeFollow(from: userID, to: user.id, at: now, in: records)
            var removed = SocialDeletionReport()
            try removeInteractions(of: user.id, onPostsOf: userID, comments: .delete, in: records, report: &removed)
            try removeInteractions(of: userID, onPostsOf: user.id, comments: .delete, in: records, report: &removed)
            try removeMentions(of: user.id, by: userID, in: records)
            try removeMentions(of: userID, by: user.id, in: records)
        }
    }

    public func unblock(_ userID: String) async throws {
        try await removePair(SocialRecords.blocks, SocialRecords.blockedBy, to: userID)
    }

    public func blockedUsers() async throws -> [SocialProfile] {
        let user = try signedInUser()
        return try reading { records in try profiles(in: SocialRecords.blocks, of: user.id, in: records) }
    }

    // MARK: - Mutes

    public func mute(_ userID: String) async throws {
        let user = try signedInUser()
        guard userID != user.id else { throw SocialError(.cannotTargetSelf, detail: "A user cannot mute themselves.") }
        try writing(as: user) { records in
            try ensureProfile(user, in: records, for: .unseen)
            _ = try profile(of: userID, in: records)
            try addPair(SocialRecords.mutes, SocialRecords.mutedBy, from: user.id, to: userID, in: records)
        }
    }

    public func unmute(_ userID: String) async throws {
        try await removePair(SocialRecords.mutes, SocialRecords.mutedBy, to: userID)
    }

    /// Writes a relation kept both ways: `to` under `from` in `relation`, `from` under `to` in `inverse`.
    func addPair(_ relation: RecordCollection<Data>, _ inverse: RecordCollection<Data>, from: String, to: String, in records: RecordWriter) throws {
        try records.setData(SocialRecords.value(to), forKey: SocialRecords.key([.string(from), .string(to)]), in: relation)
        try records.setData(SocialRecords.value(from), forKey: SocialRecords.key([.string(to), .string(from)]), in: inverse)
    }

    /// Removes the signed-in user's relation to `userID`, both ways; one that is not there changes nothing.
    func removePair(_ relation: RecordCollection<Data>, _ inverse: RecordCollection<Data>, to userID: String) async throws {
        let user = try signedInUser()
        guard Self.isPlausibleUserID(userID) else { return }
        try writing(as: user) { records in
            try records.removeValue(forKey: SocialRecords.key([.string(user.id), .string(userID)]), in: relation)
            try records.removeValue(forKey: SocialRecords.key([.string(userID), .string(user.id)]), in: inverse)
        }
    }

    public func mutedUsers() async throws -> [SocialProfile] {
        let user = try signedInUser()
        return try reading { records in
            try profiles(in: SocialRecords.mutes, of: user.id, in: records, hiding: try hiddenUsers(from: user.id, in: records))
        }
    }

    /// The users `viewer` mutes: their posts are left out of the viewer's feeds.
    func mutedUsers(of viewer: String, in records: RecordReader) throws -> UserIDSet {
        UserIDSet(try records.records(in: SocialRecords.mutes, range: SocialRecords.range([.string(viewer)])).map { SocialRecords.userID($0.data) })
    }

    /// The users whose posts, profile and interactions `viewer` does not see: blocked
    /// either way, reported by the viewer, suspended by a moderator, or with their
    /// account's deletion scheduled (hidden until it is restored or purged). Nobody is
    /// hidden from themselves.
    func hiddenUsers(from viewer: String, in records: RecordReader) throws -> UserIDSet {
        var hidden = try blockedEitherWay(viewer, in: records)
        hidden.formUnion(try scheduledUsers())
        hidden.formUnion(try suspendedUsers(in: records))
        for case .user(let reported) in try reported("user", by: viewer, in: records) { hidden.insert(reported) }
        hidden.remove(viewer)
        return hidden
    }

    /// The users whose account deletion is scheduled, as the auth service says.
    func scheduledUsers() throws(SocialError) -> UserIDSet {
        do {
            return UserIDSet(try auth.scheduledDeletions().map(\.userID))
        } catch {
            throw SocialError(.storage, detail: "The scheduled deletions could not be read: \(error)")
        }
    }

    /// The users `userID` blocks or is blocked by.
    func blockedEitherWay(_ userID: String, in records: RecordReader) throws -> UserIDSet {
        let range = try SocialRecords.range([.string(userID)])
        var users = UserIDSet(try records.records(in: SocialRecords.blocks, range: range).map { SocialRecords.userID($0.data) })
        for entry in try records.records(in: SocialRecords.blockedBy, range: range) { users.insert(SocialRecords.userID(entry.data)) }
        return users
    }

    // MARK: - Likes and comments

    /// A post `userID` may like, comment on or report at `now`.
    func interactablePost(_ postID: UUID, by userID: String, at now: Date, in records: RecordReader) throws -> PostEntity {
        guard let post = try records.value(forKey: SocialRecords.key(postID), in: SocialRecords.posts) else { throw SocialError(.postNotFound) }
        guard post.isVisible(at: now) else { throw SocialError(.postExpired) }
        // The hidden users include the blocked ones, read again only to say which it is.
        if try hiddenUsers(from: userID, in: records).contains(post.userID) {
            throw try blockedEitherWay(userID, in: records).contains(post.userID) ? SocialError(.blocked) : SocialError(.postNotFound)
        }
        guard !post.isHiddenByModeration, try !hasReported(.post(postID), by: userID, in: records) else { throw SocialError(.postNotFound) }
        return post
    }

    public func like(_ postID: UUID) async throws {
        let user = try signedInUser()
        let now = now
        try writing(as: user) { records in
            var post = try interactablePost(postID, by: user.id, at: now, in: records)
            try ensureProfile(user, in: records)
            let key = try SocialRecords.key([.uuid(postID), .string(user.id)])
            guard try records.data(forKey: key, in: SocialRecords.likes) == nil else { return }
            try records.setData(SocialRecords.value(user.id), forKey: key, in: SocialRecords.likes)
            try records.setData(SocialRecords.value(postID), forKey: SocialRecords.key([.string(user.id), .uuid(postID)]), in: SocialRecords.liked)
            post.likeCount += 1
            try records.put(post, forKey: SocialRecords.key(postID), in: SocialRecords.posts)
            try notify(post.userID, of: .like, on: postID, by: user.id, at: now, in: records)
        }
    }

    public func unlike(_ postID: UUID) async throws {
        let user = try signedInUser()
        try writing(as: user) { records in
            guard var post = try records.value(forKey: SocialRecords.key(postID), in: SocialRecords.posts) else { throw SocialError(.postNotFound) }
            let key = try SocialRecords.key([.uuid(postID), .string(user.id)])
            guard try records.data(forKey: key, in: SocialRecords.likes) != nil else { return }
            try records.removeValue(forKey: key, in: SocialRecords.likes)
            try records.removeValue(forKey: SocialRecords.key([.string(user.id), .uuid(postID)]), in: SocialRecords.liked)
            post.likeCount = max(0, post.likeCount - 1)
            try records.put(post, forKey: SocialRecords.key(postID), in: SocialRecords.posts)
            try unnotify(post.userID, of: .like, on: postID, by: user.id, in: records)
        }
    }

    public func likes(on postID: UUID) async throws -> [SocialProfile] {
        let user = try signedInUser()
        return try reading { records in
            let hidden = try hiddenUsers(from: user.id, in: records)
            try visiblePost(postID, to: user.id, hiding: hidden, in: records)
            return try records.records(in: SocialRecords.likes, range: SocialRecords.range([.uuid(postID)])).compactMap { entry in
                let userID = SocialRecords.userID(entry.data)
                guard !hidden.contains(userID), let profile = try records.value(forKey: userID, in: SocialRecords.profiles) else { return nil }
                return try seen(profile, hiding: hidden, in: records)
            }
        }
    }

    public func comment(on postID: UUID, text: String) async throws -> PostComment {
        let user = try signedInUser()
        try requireVerifiedEmailForPosting()
        guard let text = Self.validText(text, maximum: policy.maximumCommentLength) else {
            throw SocialError(.invalidComment, detail: "A comment needs 1 to \(policy.maximumCommentLength) characters without control characters.")
        }
        guard !policy.wordFilter.matches(text) else { throw SocialError(.objectionableContent) }
        let mentioned = try Self.mentions(in: text, refusingWith: .invalidComment)
        let now = now
        return try writing(as: user) { records in
            let id = try freshID(unusedIn: [SocialRecords.commentIndex], in: records)
            var post = try interactablePost(postID, by: user.id, at: now, in: records)
            let profile = try ensureProfile(user, in: records)
            try checkMentions(mentioned, by: user.id, in: records)
            let comment = PostComment(id: id, postID: postID, userID: user.id, userName: profile.displayName, text: text, createdAt: now)
            let key = try SocialRecords.key([.uuid(postID), .date(now), .uuid(id)])
            try records.put(comment, forKey: key, in: SocialRecords.comments)
            try records.setData(Data(key.utf8), forKey: SocialRecords.key(id), in: SocialRecords.commentIndex)
            try records.setData(Data(key.utf8), forKey: SocialRecords.key([.string(user.id), .uuid(id)]), in: SocialRecords.userComments)
            try records.setData(Data(), forKey: SocialRecords.commenterKey(postID, user.id, id), in: SocialRecords.postCommenters)
            post.commentCount += 1
            try records.put(post, forKey: SocialRecords.key(postID), in: SocialRecords.posts)
            try notify(post.userID, of: .comment, on: postID, by: user.id, cause: SocialRecords.key(id), at: now, in: records)
            try notifyMentions(mentioned, on: postID, by: user.id, cause: SocialRecords.key(id), at: now, in: records)
            return comment
        }
    }

    public func comments(on postID: UUID) async throws -> [PostComment] {
        let user = try signedInUser()
        return try reading { records in
            let hidden = try hiddenUsers(from: user.id, in: records)
            try visiblePost(postID, to: user.id, hiding: hidden, in: records)
            let reported = try reportedComments(by: user.id, in: records)
            return try records.values(in: SocialRecords.comments, range: SocialRecords.range([.uuid(postID)])).filter { comment in
                !comment.isHiddenByModeration && !reported.contains(comment.id) && (comment.userID.map { !hidden.contains($0) } ?? true)
            }
        }
    }

    /// Throws `postNotFound` unless the post exists, moderation does not hide it,
    /// `viewer` did not report it and its author is not in `hidden`: a blocked user's
    /// post is not there for the other user.
    func visiblePost(_ postID: UUID, to viewer: String, hiding hidden: UserIDSet, in records: RecordReader) throws {
        guard let post = try records.value(forKey: SocialRecords.key(postID), in: SocialRecords.posts), !hidden.contains(post.userID),
            !post.isHiddenByModeration, try !hasReported(.post(postID), by: viewer, in: records)
        else { throw SocialError(.postNotFound) }
    }

    public func deleteComment(_ commentID: UUID) async throws {
        let user = try signedInUser()
        try writing(as: user) { records in
            guard let keyData = try records.data(forKey: SocialRecords.key(commentID), in: SocialRecords.commentIndex),
                let comment = try records.value(forKey: String(decoding: keyData, as: UTF8.self), in: SocialRecords.comments)
            else { throw SocialError(.commentNotFound) }
            let post = try records.value(forKey: SocialRecords.key(comment.postID), in: SocialRecords.posts)
            guard comment.userID == user.id || post?.userID == user.id else {
                throw SocialError(.notAuthorized, detail: "A comment is deleted by its author or the post's owner.")
            }
            if try removeComment(comment, key: String(decoding: keyData, as: UTF8.self), postAuthor: post?.userID, in: records) {
                try adjustPost(comment.postID, in: records) { $0.commentCount = max(0, $0.commentCount - 1) }
            }
        }
    }

    /// Removes a comment with its index entries, its reports, its mentions and, given
    /// the post's author, its notification; the caller fixes the post's count.
    /// - Returns: Whether the post's count held it: false for one moderation hides.
    @discardableResult
    func removeComment(_ comment: PostComment, key: String, postAuthor: String?, in records: RecordWriter) throws -> Bool {
        try contentRemoved(.comment(comment.id), owner: comment.userID, text: comment.text, in: records)
        try unnotifyMentions(in: comment.text, on: comment.postID, by: comment.userID, cause: SocialRecords.key(comment.id), in: records)
        if let postAuthor, let author = comment.userID {
            try unnotify(postAuthor, of: .comment, on: comment.postID, by: author, cause: SocialRecords.key(comment.id), in: records)
        }
        try records.removeValue(forKey: key, in: SocialRecords.comments)
        try records.removeValue(forKey: SocialRecords.key(comment.id), in: SocialRecords.commentIndex)
        if let author = comment.userID {
            try records.removeValue(forKey: SocialRecords.key([.string(author), .uuid(comment.id)]), in: SocialRecords.userComments)
            try records.removeValue(forKey: SocialRecords.commenterKey(comment.postID, author, comment.id), in: SocialRecords.postCommenters)
        }
        return !comment.isHiddenByModeration
    }

    // MARK: - Counts

    /// `post` as a viewer sees it: its counts leave out the likes and comments of the
    /// users hidden from them, as its lists do. Each hidden user costs two lookups, or
    /// the post's own likes or comments are read when there are fewer of those.
    func seen(_ post: PostEntity, hiding hidden: UserIDSet, in records: RecordReader) throws -> PostEntity {
        guard !hidden.isEmpty, post.likeCount + post.commentCount > 0 else { return post }
        var post = post
        let members = hidden.members
        let range = try SocialRecords.range([.uuid(post.id)])
        if post.likeCount <= members.count {
            post.likeCount -= try records.records(in: SocialRecords.likes, range: range).count { hidden.contains(SocialRecords.userID($0.data)) }
        } else {
            for user in members where try records.data(forKey: SocialRecords.key([.uuid(post.id), .string(user)]), in: SocialRecords.likes) != nil {
                post.likeCount -= 1
            }
        }
        if post.commentCount <= members.count {
            post.commentCount -= try records.values(in: SocialRecords.comments, range: range).count { comment in
                !comment.isHiddenByModeration && (comment.userID.map(hidden.contains) ?? false)
            }
        } else {
            for user in members {
                post.commentCount -= try records.count(in: SocialRecords.postCommenters, range: SocialRecords.range([.uuid(post.id), .string(user)]))
            }
        }
        post.likeCount = max(0, post.likeCount)
        post.commentCount = max(0, post.commentCount)
        return post
    }

    /// `profile` as a viewer sees it: its counts leave out the users hidden from them,
    /// as the follower and following lists do.
    func seen(_ profile: SocialProfile, hiding hidden: UserIDSet, in records: RecordReader) throws -> SocialProfile {
        guard !hidden.isEmpty, profile.followerCount + profile.followingCount > 0 else { return profile }
        var profile = profile
        let members = hidden.members
        let range = try SocialRecords.range([.string(profile.id)])
        for (relation, count) in [(SocialRecords.followers, \SocialProfile.followerCount), (SocialRecords.follows, \SocialProfile.followingCount)] {
            if profile[keyPath: count] <= members.count {
                profile[keyPath: count] -= try records.records(in: relation, range: range).count { hidden.contains(SocialRecords.userID($0.data)) }
            } else {
                for user in members where try records.data(forKey: SocialRecords.key([.string(profile.id), .string(user)]), in: relation) != nil {
                    profile[keyPath: count] -= 1
                }
            }
            profile[keyPath: count] = max(0, profile[keyPath: count])
        }
        return profile
    }

    public func recount() async throws -> Int {
        _ = try signedInUser()
        return try writing { records in
            var wrong = 0
            for entry in try records.entries(in: SocialRecords.profiles) {
                var profile = entry.value
                let range = try SocialRecords.range([.string(profile.id)])
                let following = try records.count(in: SocialRecords.follows, range: range)
                let followers = try records.count(in: SocialRecords.followers, range: range)
                guard profile.followingCount != following || profile.followerCount != followers else { continue }
                wrong += (profile.followingCount != following ? 1 : 0) + (profile.followerCount != followers ? 1 : 0)
                profile.followingCount = following
                profile.followerCount = followers
                try records.put(profile, forKey: entry.key, in: SocialRecords.profiles)
            }
            for entry in try records.entries(in: SocialRecords.posts) {
                var post = entry.value
                let range = try SocialRecords.range([.uuid(post.id)])
                let likes = try records.count(in: SocialRecords.likes, range: range)
                let comments = try records.values(in: SocialRecords.comments, range: range).count { !$0.isHiddenByModeration }
                guard post.likeCount != likes || post.commentCount != comments else { continue }
                wrong += (post.likeCount != likes ? 1 : 0) + (post.commentCount != comments ? 1 : 0)
                post.likeCount = likes
                post.commentCount = comments
                try records.put(post, forKey: entry.key, in: SocialRecords.posts)
            }
            return wrong
        }
    }
}
