import Foundation
import Testing
import TrainCore
import TrainSocial
import TrainTesting

/// The word filter: an app's list of words and phrases posts and comments may not hold.
@Suite struct WordFilterTests {
    @Test(
        "a list with an empty, blank, invisible, over-long or letterless entry is invalidWordList",
        arguments: ["", "   ", "\u{0}", "spam\u{0}", "sp\u{202E}am", "\u{200B}", String(repeating: "x", count: 101), "!!!", "a\u{7}b"])
    func hostileEntries(entry: String) {
        #expect(throws: SocialError(.invalidWordList)) { try WordFilter(["fine", entry]) }
    }

    @Test("a list of more than 10,000 entries is invalidWordList")
    func tooManyEntries() {
        #expect(throws: SocialError(.invalidWordList)) { try WordFilter(Array(repeating: "spam", count: WordFilter.maximumEntries + 1)) }
    }

    @Test("whole words and phrases match ignoring case, accents, width and Unicode spelling; a word inside another does not")
    func matching() throws {
        let filter = try WordFilter(["spam", "buy followers", "Café"])
        for text in ["SPAM here", "spám!", "ｓｐａｍ", "Buy   followers now", "cafe\u{301} au lait", "CAFÉ"] {
            #expect(filter.matches(text), "\(text)")
        }
        for text in ["spammer", "antispam", "followers buy", "buy more followers", "caffeine", ""] {
            #expect(!filter.matches(text), "\(text)")
        }
        #expect(!WordFilter.none.matches("spam"))
    }

    @Test("a post or a comment holding a filtered word is objectionableContent, and nothing is stored", arguments: SocialVariant.allCases)
    func postsAndCommentsAreFiltered(variant: SocialVariant) async throws {
        let harness = try SocialHarness(variant, policy: SocialPolicy(wordFilter: try WordFilter(["spam"])))
        try await harness.join("ada")
        await #expect(throws: SocialError(.objectionableContent)) {
            _ = try await harness.social.createPost(content: "Great run, no SPÁM", workoutType: .run)
        }
        await #expect(throws: SocialError(.objectionableContent)) {
            _ = try await harness.social.createPost(content: "spam", workoutType: .run, photo: SocialHarness.jpeg())
        }
        #expect(try await harness.media.list(for: "ada").isEmpty)
        let post = try await harness.social.createPost(content: "Great run", workoutType: .run)
        await #expect(throws: SocialError(.objectionableContent)) { _ = try await harness.social.comment(on: post.id, text: "ｓｐａｍ") }
        #expect(try await harness.social.comments(on: post.id).isEmpty)
        #expect(try await harness.social.discoverFeed().map(\.content) == ["Great run"])
    }
}
