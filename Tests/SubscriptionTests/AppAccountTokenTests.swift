import Foundation
import Testing
import TrainSubscription

/// ACC-7: the user ID → appAccountToken mapping is public and deterministic.
@Suite struct AppAccountTokenTests {
    // Computed independently with Python's hashlib and uuid: SHA-256 over the namespace's
    // 16 bytes and the ID's UTF-8, the first 16 bytes, version 8 and the RFC variant.
    @Test(
        "a user's token is the RFC 9562 version-8 SHA-256 name-based UUID of their ID, every byte counting",
        arguments: [
            ("ada", "4A0BE935-C608-8752-8DB7-EB0758C7E41E"),
            ("Ada", "A29A9F62-0684-8942-87BB-D26C1BCEC044"),
            ("a\u{0}b", "82A0B853-4113-87A0-B191-42CDCB9A98C2"),
            ("001234.abcdef0123456789.0042", "C1D34C65-C0A9-8F29-924C-661D6BE6699C"),
        ])
    func knownTokens(userID: String, token: String) throws {
        #expect(try AppAccountToken.forUser(userID).uuidString == token)
        #expect(try AppAccountToken.forUser(userID) == AppAccountToken.forUser(userID))
    }

    @Test("precomposed and decomposed spellings of a name are two users with two tokens; an empty ID is invalidArgument")
    func spellingsAndEmpty() throws {
        #expect(try AppAccountToken.forUser("Jos\u{E9}") != AppAccountToken.forUser("Jose\u{301}"))
        #expect(throws: SubscriptionError(.invalidArgument)) { try AppAccountToken.forUser("") }
    }
}
