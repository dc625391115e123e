import Foundation
import TrainCore

extension LocalSocialFeedService {
    public func deleteAccountData() async throws -> SocialDeletionReport {
        try await deleteData(of: try signedInUser().id)
    }

    public func purgeAccountData(of userID: String) async throws -> SocialDeletionReport {
        let due: Bool
        do {
            due = try auth.isPurgeDue(of: userID, at: now)
        } catch {
            throw SocialError(.storage, detail: "The scheduled deletions could not be read: \(error)")
        }
        guard due else {
            throw SocialError(.notAuthorized, detail: "'\(userID)' has no scheduled deletion that is due.")
        }
        return try await deleteData(of: userID)
    }

    /// Deletes everything of `userID`'s: the one logic of a deletion and a purge.
    private func deleteData(of userID: String) async throws -> SocialDeletionReport {
        defer { unlockWrites.send(unlockWrites.value &+ 1) }
        let now = now
        let (removed, photos) = try writing { records in
            var report = SocialDeletionReport()
            // Follows first, so the posts below have no reader but their author left.
            try removeRelations(of: userID, in: records, report: &report)
            var photos: [MediaReference] = []
            let longestLifetime = try longestLifetime(in: records)
            // Their own friends feed is the only one left to hold their posts.
            let readers = [userID]
            for entry in try records.records(in: SocialRecords.authored, range: SocialRecords.range([.string(userID)])) {
                guard let post = try records.value(forKey: SocialRecords.userID(entry.data), in: SocialRecords.posts) else { continue }
                photos += try removePost(post, at: now, longestLifetime: longestLifetime, readers: readers, in: records)
                report.posts += 1
            }
            try removeInteractions(of: userID, comments: policy.deletedUserComments, in: records, report: &report)
            for entry in try records.records(in: SocialRecords.timelines, range: SocialRecords.range([.string(userID)])) {
                try records.removeValue(forKey: entry.key, in: SocialRecords.timelines)
            }
            try records.removeValue(forKey: userID, in: SocialRecords.unlocks)
            try removeModeration(of: userID, in: records)
            try removeNotifications(of: userID, in: records)
            if let profile = try records.value(forKey: userID, in: SocialRecords.profiles) {
                for word in Set(SocialRecords.words(profile.displayName)) {
                    try records.removeValue(forKey: Self.nameKey(word, userID), in: SocialRecords.names)
                }
                try records.removeValue(forKey: userID, in: SocialRecords.profiles)
            }
            // Counted with the deletion, so an attempt whose photos fail later still counts.
            var tally = try records.value(forKey: userID, in: SocialRecords.deletionTallies) ?? SocialDeletionReport()
            tally.add(report)
            try records.put(tally, forKey: userID, in: SocialRecords.deletionTallies)
            return (report, photos)
        }
        // The records went first: a failure here leaves photos no post shows, which a
        // second call deletes.
        await deleteMedia(photos)
        let media = try await photos.count + media.deleteAll(for: userID)
        // This attempt's report holds what the attempts before it removed too.
        return try writing { records in
            var tally = try records.value(forKey: userID, in: SocialRecords.deletionTallies) ?? removed
            try records.removeValue(forKey: userID, in: SocialRecords.deletionTallies)
            tally.media += media
            return tally
        }
    }

    public func exportAccountData() async throws -> SocialExport {
        let user = try signedInUser()
        return try reading { records in
            let range = try SocialRecords.range([.string(user.id)])
            func users(_ relation: RecordCollection<Data>) throws -> [String] {
                try records.records(in: relation, range: range).map { SocialRecords.userID($0.data) }
            }
            var export = SocialExport(
                profile: try records.value(forKey: user.id, in: SocialRecords.profiles),
                following: try users(SocialRecords.follows), followers: try users(SocialRecords.followers), blocked: try users(SocialRecords.blocks),
                unlock: try records.value(forKey: user.id, in: SocialRecords.unlocks))
            for entry in try records.records(in: SocialRecords.authored, range: range, direction: .reverse) {
                if let post = try records.value(forKey: SocialRecords.userID(entry.data), in: SocialRecords.posts) { export.posts.append(post) }
            }
            for entry in try records.records(in: SocialRecords.userComments, range: range) {
                if let comment = try records.value(forKey: String(decoding: entry.data, as: UTF8.self), in: SocialRecords.comments) {
                    export.comments.append(comment)
                }
            }
            export.likedPostIDs = try users(SocialRecords.liked).compactMap(UUID.init(uuidString:))
            export.muted = try users(SocialRecords.mutes)
            export.reports = try records.values(in: SocialRecords.reports, range: range)
            return export
        }
    }

    /// Removes the follows and blocks from and to `userID`, with the counts they change
    /// on the other users' profiles; `userID`'s own profile and friends feed go after.
    ///
    /// Their followers' friends feeds keep the entries of `userID`'s live posts: the
    /// posts go next, and a page skips an entry whose post is gone as it skips an
    /// expired one, so no one sees them. Removing them would cost every live post
    /// times every follower — a million entries for 200 live posts and 5,000
    /// followers — inside the deletion's one transaction.
    func removeRelations(of userID: String, in records: RecordWriter, report: inout SocialDeletionReport) throws {
        let range = try SocialRecords.range([.string(userID)])
        for entry in try records.records(in: SocialRecords.follows, range: range) {
            try removeFollowRecords(from: userID, to: SocialRecords.userID(entry.data), leaving: userID, in: records)
            report.follows += 1
        }
        for entry in try records.records(in: SocialRecords.followers, range: range) {
            try removeFollowRecords(from: SocialRecords.userID(entry.data), to: userID, leaving: userID, in: records)
            report.follows += 1
        }
        // A relation kept both ways: each entry of `userID`'s side and its inverse.
        func removeBothWays(_ relation: RecordCollection<Data>, _ inverse: RecordCollection<Data>) throws -> Int {
            let entries = try records.records(in: relation, range: range)
            for entry in entries {
                try records.removeValue(forKey: entry.key, in: relation)
                try records.removeValue(forKey: SocialRecords.key([.string(SocialRecords.userID(entry.data)), .string(userID)]), in: inverse)
            }
            return entries.count
        }
        report.blocks +=
            try removeBothWays(SocialRecords.blocks, SocialRecords.blockedBy) + removeBothWays(SocialRecords.blockedBy, SocialRecords.blocks)
        _ = try removeBothWays(SocialRecords.mutes, SocialRecords.mutedBy) + removeBothWays(SocialRecords.mutedBy, SocialRecords.mutes)
    }

    /// Removes `userID`'s likes on other users' posts — only `author`'s, when given —
    /// and anonymizes or removes their comments there, as `comments` says, fixing the
    /// posts' counts: the account deletion's step, and a block's both ways.
    func removeInteractions(
        of userID: String, onPostsOf author: String? = nil, comments: DeletedCommentPolicy, in records: RecordWriter,
        report: inout SocialDeletionReport
    ) throws {
        // Each interaction reads its post once: to filter by author, fix its count and take back its notification.
        func post(_ postID: UUID?) throws -> PostEntity? {
            try postID.flatMap { id throws in try records.value(forKey: SocialRecords.key(id), in: SocialRecords.posts) }
        }
        // Whether the interactions on this post go: every post, or a stored one of `author`'s.
        func isTarget(_ post: PostEntity?) -> Bool {
            guard let author else { return true }
            return post.map { Self.same($0.userID, author) } ?? false
        }
        for entry in try records.records(in: SocialRecords.liked, range: SocialRecords.range([.string(userID)])) {
            let postID = UUID(uuidString: SocialRecords.userID(entry.data))
            let liked = try post(postID)
            guard isTarget(liked) else { continue }
            try records.removeValue(forKey: entry.key, in: SocialRecords.liked)
            guard let postID else { continue }
            try records.removeValue(forKey: SocialRecords.key([.uuid(postID), .string(userID)]), in: SocialRecords.likes)
            if var counted = liked {
                counted.likeCount = max(0, counted.likeCount - 1)
                try records.put(counted, forKey: SocialRecords.key(postID), in: SocialRecords.posts)
                try unnotify(counted.userID, of: .like, on: postID, by: userID, in: records)
            }
            report.likes += 1
        }
        for entry in try records.records(in: SocialRecords.userComments, range: SocialRecords.range([.string(userID)])) {
            let key = String(decoding: entry.data, as: UTF8.self)
            let stored = try records.value(forKey: key, in: SocialRecords.comments)
            let commented = try post(stored?.postID)
            guard isTarget(commented) else { continue }
            try records.removeValue(forKey: entry.key, in: SocialRecords.userComments)
            guard var comment = stored else { continue }
            switch comments {
            case .anonymize:
                if let author = commented?.userID {
                    try unnotify(author, of: .comment, on: comment.postID, by: userID, cause: SocialRecords.key(comment.id), in: records)
                }
                try records.removeValue(forKey: SocialRecords.commenterKey(comment.postID, userID, comment.id), in: SocialRecords.postCommenters)
                try unnotifyMentions(in: comment.text, on: comment.postID, by: userID, cause: SocialRecords.key(comment.id), in: records)
                comment.userID = nil
                comment.userName = nil
                try records.put(comment, forKey: key, in: SocialRecords.comments)
                report.anonymizedComments += 1
            case .delete:
                if try removeComment(comment, key: key, postAuthor: commented?.userID, in: records), var counted = commented {
                    counted.commentCount = max(0, counted.commentCount - 1)
                    try records.put(counted, forKey: SocialRecords.key(comment.postID), in: SocialRecords.posts)
                }
                report.deletedComments += 1
            }
        }
    }

    /// Changes a stored post's counts; a post that is gone has none to change.
    func adjustPost(_ postID: UUID, in records: RecordWriter, _ change: (inout PostEntity) -> Void) throws {
        let key = SocialRecords.key(postID)
        guard var post = try records.value(forKey: key, in: SocialRecords.posts) else { return }
        change(&post)
        try records.put(post, forKey: key, in: SocialRecords.posts)
    }
}
