import Foundation
import Testing
import TrainAuth
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

    @Test(
        "invisible and default-ignorable characters inside a word do not hide it",
        arguments: [
            "sp\u{200D}am", "s\u{00AD}pam", "sp\u{200B}am", "spa\u{2060}m", "sp\u{FE0F}am", "s\u{E0061}pam", "sp\u{034F}am",
            "s\u{200C}p\u{200D}a\u{2063}m",
        ])
    func invisibleCharactersAreRemoved(text: String) throws {
        #expect(try WordFilter(["spam"]).matches("cheap \(text) here"))
    }

    @Test(
        "look-alike letters of other scripts read as the letters they imitate",
        arguments: [
            "\u{0455}\u{0440}\u{0430}m", "\u{0405}\u{0420}\u{0410}M", "\u{0455}p\u{03B1}m", "sp\u{0430}\u{200D}m", "\u{0455}\u{0441}\u{0430}m",
            "\u{FF53}\u{0440}\u{0430}\u{FF4D}", "\u{1D42C}\u{0440}\u{0430}\u{1D426}",
        ])
    func lookAlikesAreReduced(text: String) throws {
        let filter = try WordFilter(["spam", "scam"])
        #expect(filter.matches(text), "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
        #expect(try WordFilter(["\u{0455}\u{0440}\u{0430}m"]).matches("SPAM"), "an entry written with look-alikes matches the plain word")
        #expect(try WordFilter(["idiot"]).matches("\u{0406}diot"), "a Cyrillic capital I is the I it imitates")
    }

    @Test(
        "ordinary words in nine languages match no entry of a filter of insults and spam, and a word wholly in another script is that script's word")
    func noFalsePositives() throws {
        let filter = try WordFilter(["spam", "scam", "idiot", "loser", "bum", "modem", "dip", "cop", "hate you", "sik", "bumi"])
        let ordinary = [
            "I burn calories on a modern bike, then clip in and climb", "We ran past the camp and the corn field, then home",
            "Heute bin ich zehn Kilometer gelaufen, morgen Ruhetag", "J'ai couru au parc, idéal pour une sortie longue",
            "Hoy corrí por la playa con mis amigos, muy buen ritmo", "Сегодня пробежал десять километров, сам не ожидал, сор убран",
            "Σήμερα έτρεξα δέκα χιλιόμετρα στο πάρκο με φίλους", "Bugün sahilde koştum, çok güzel bir gündü",
            "Dzisiaj przebiegłem dziesięć kilometrów w parku", "Сьогодні я пробіг десять кілометрів біля річки",
            "Idiots guide to pacing", "Scampi after the race", "A spammy day", "Sık sık koşarım", "Bum\u{0131}", "cOp\u{0441}",
            "\u{0421}\u{041E}\u{0420}",
        ]
        for text in ordinary {
            #expect(!filter.matches(text), "\(text)")
        }
    }

    @Test(
        "a filtered word hidden by an invisible character or look-alikes is refused in posts, comments, display names and report details",
        arguments: SocialVariant.allCases)
    func everyTextIsReadAsSeen(variant: SocialVariant) async throws {
        let harness = try SocialHarness(variant, policy: SocialPolicy(wordFilter: try WordFilter(["spam"])))
        try await harness.join("bob", "ada")
        await #expect(throws: SocialError(.objectionableContent)) {
            _ = try await harness.social.createPost(content: "free sp\u{200D}am", workoutType: .run)
        }
        let post = try await harness.social.createPost(content: "Great run", workoutType: .run)
        await #expect(throws: SocialError(.objectionableContent)) {
            _ = try await harness.social.comment(on: post.id, text: "\u{0455}\u{0440}\u{0430}m")
        }
        harness.act(as: "bob")
        await #expect(throws: SocialError(.objectionableContent)) {
            try await harness.social.report(.post(post.id), reason: .spam, details: "it says \u{0455}\u{0440}\u{0430}m")
        }
        harness.auth.setCurrentUser(UserEntity(id: "eve", displayName: "Free \u{0405}PAM", createdAt: .now, lastSignInAt: .now))
        _ = try await harness.social.unlockFeed(workoutType: .run)
        await #expect(throws: SocialError(.objectionableContent)) { try await harness.social.createPost(content: "hi", workoutType: .run) }
        #expect(try await harness.social.exportAccountData().profile?.displayName == "Athlete", "the name is kept out")

        harness.act(as: "bob")
        try await harness.social.report(.post(post.id), reason: .spam, details: "Sells followers")
        #expect(try await harness.social.discoverFeed().isEmpty, "the report was stored; its post left Bob's feeds")
        harness.act(as: "ada")
        #expect(try await harness.social.discoverFeed().map(\.content) == ["Great run"], "nothing else was stored")
        #expect(try await harness.social.comments(on: post.id).isEmpty)
    }
}
