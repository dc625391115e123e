import Foundation
import Testing
import TrainAuth
import TrainCore
import TrainSocial
import TrainTesting

/// Post and comment IDs that never collide and sort by time, text limits in characters,
/// cleaned display names, search in any Unicode spelling, and a clock set back.
@Suite struct PostIDAndTextTests {
    @Test("an ID generator that restarts on the same file never overwrites a post or a comment")
    func restartedIDsNeverOverwrite() async throws {
        let harness = try SocialHarness(.file)
        let first = try await harness.post("first", by: "ada")
        let comment = try await harness.social.comment(on: first.id, text: "one")
        let relaunched = try harness.reopened()
        _ = try await relaunched.unlockFeed(workoutType: .run)
        let second = try await relaunched.createPost(content: "second", workoutType: .run)
        let other = try await relaunched.comment(on: second.id, text: "two")
        #expect(second.id != first.id && other.id != comment.id)
        #expect(try await relaunched.discoverFeed(limit: 10).map(\.content) == ["second", "first"])
        #expect(try await relaunched.comments(on: first.id).map(\.text) == ["one"])
        #expect(try await relaunched.recount() == 0)
    }

    @Test("post IDs are UUID version 7 of their creation time, so they sort as the posts were made, also when the clock is set back")
    func postIDsFollowTime() async throws {
        let harness = try SocialHarness()
        var posts: [PostEntity] = []
        for step in [3_600.0, -7_200, 0.001, 86_000] {
            posts.append(try await harness.post("at \(step)", by: "ada"))
            harness.clock.setDate(harness.clock.now.addingTimeInterval(step))
        }
        let keys = posts.map { $0.id.uuidString.lowercased() }
        #expect(keys == keys.sorted())
        #expect(posts.allSatisfy { $0.id.uuidString.dropFirst(14).first == "7" })
        let milliseconds = posts.map { UInt64($0.id.uuidString.replacingOccurrences(of: "-", with: "").prefix(12), radix: 16) }
        #expect(milliseconds == posts.map { UInt64(($0.createdAt.timeIntervalSince1970 * 1000).rounded()) })
    }

    @Test("text limits count characters of at most 16 scalars; invisible, direction-changing and control-only text is refused; CRLF is a newline")
    func textIsChecked() async throws {
        let harness = try SocialHarness()
        try await harness.join("ada")
        let refused = [
            String(repeating: "e" + String(repeating: "\u{301}", count: 2_000), count: 3), "\u{202E}", "\u{FEFF}", "\u{2060}", "\u{3164}",
            "\u{301}", "a\u{202E}b", "a\u{0}b", " \u{200B} ",
        ]
        for text in refused {
            await #expect(throws: SocialError(.invalidContent), "\(text.unicodeScalars.map { String($0.value, radix: 16) }.prefix(4))") {
                _ = try await harness.social.createPost(content: text, workoutType: .run)
            }
        }
        #expect(try await harness.social.discoverFeed().isEmpty)
        #expect(try await harness.social.createPost(content: "a\r\nb\rc", workoutType: .run).content == "a\nb\nc")
        #expect(try await harness.social.createPost(content: "👨‍👩‍👧‍👦 family run", workoutType: .run).content == "👨‍👩‍👧‍👦 family run")
        let long = try #require(URL(string: "https://cdn.example.com/" + String(repeating: "a", count: 2_100)))
        await #expect(throws: SocialError(.invalidMediaURL)) {
            _ = try await harness.social.createPost(content: "x", workoutType: .run, mediaURL: long)
        }
    }

    @Test("a display name is cleaned and cut to 100 characters, so an absurd name never stops its user")
    func namesAreCleaned() async throws {
        let harness = try SocialHarness()
        harness.auth.setCurrentUser(UserEntity(id: "ada", displayName: String(repeating: "A", count: 20_000), createdAt: .now, lastSignInAt: .now))
        _ = try await harness.social.unlockFeed(workoutType: .run)
        #expect(try await harness.social.profile("ada").displayName.count == 100)
        harness.auth.setCurrentUser(UserEntity(id: "bob", displayName: "Bob\u{0}\u{202E}", createdAt: .now, lastSignInAt: .now))
        _ = try await harness.social.unlockFeed(workoutType: .run)
        #expect(try await harness.social.profile("bob").displayName == "Athlete")
    }

    @Test("a search of several words finds names holding each, in any Unicode spelling")
    func multiWordSearch() async throws {
        let harness = try SocialHarness()
        for (id, name) in [("u1", "Anna Smith"), ("u2", "Anna Jones"), ("u3", "Conor O'Neil"), ("u4", "\u{D55C}\u{AE00}")] {
            harness.auth.setCurrentUser(UserEntity(id: id, displayName: name, createdAt: .now, lastSignInAt: .now))
            _ = try await harness.social.unlockFeed(workoutType: .run)
        }
        #expect(try await harness.social.searchUsers("anna smi", limit: 10).map(\.id) == ["u1"])
        #expect(try await harness.social.searchUsers("o'neil", limit: 10).map(\.id) == ["u3"])
        let decomposed = "\u{D55C}\u{AE00}".decomposedStringWithCanonicalMapping
        #expect(try await harness.social.searchUsers(decomposed, limit: 10).map(\.id) == ["u4"])
        await #expect(throws: SocialError(.queryTooShort)) { _ = try await harness.social.searchUsers("a", limit: 10) }
    }

    @Test("a clock set back before an unlock locks the feed until the next workout")
    func unlockFromTheFuture() async throws {
        let harness = try SocialHarness()
        try await harness.join("ada")
        harness.clock.setDate(harness.clock.now.addingTimeInterval(-7 * 86_400))
        #expect(!harness.social.hasFeedUnlocked())
        let unlock = try await harness.social.unlockFeed(workoutType: .run)
        #expect(unlock.unlockDate == harness.clock.now && harness.social.hasFeedUnlocked())
    }

    @Test("a post whose author blocks you, or whom you block, has no likes or comments list for you")
    func blockedPostsHaveNoLists() async throws {
        let harness = try SocialHarness()
        let post = try await harness.post("bob's", by: "bob")
        try await harness.join("ada")
        try await harness.social.like(post.id)
        harness.act(as: "bob")
        try await harness.social.block("ada")
        harness.act(as: "ada")
        await #expect(throws: SocialError(.postNotFound)) { _ = try await harness.social.likes(on: post.id) }
        await #expect(throws: SocialError(.postNotFound)) { _ = try await harness.social.comments(on: post.id) }
    }
}
