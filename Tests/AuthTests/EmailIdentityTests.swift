import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainAuth

/// AUTH-3: one email address is one account, whatever its spelling and its providers.
@Suite(.timeLimit(.minutes(1))) struct EmailIdentityTests {
    @Test(
        "an email with a control or invisible character is invalidEmail",
        arguments: [
            "ada@example.com\0x", "\0ada@example.com", "ada\u{7}@example.com", "ada@exam\u{200B}ple.com", "ada\u{202E}@example.com",
            "ada\u{2028}x@example.com",
        ], AuthVariant.allCases)
    func controlCharacters(email: String, variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        await #expect(throws: AuthenticationError(.invalidEmail)) {
            _ = try await harness.service.createUser(email: email, password: "correct horse 1")
        }
        await #expect(throws: AuthenticationError(.invalidEmail)) {
            _ = try await harness.service.signIn(with: .emailPassword(email: email, password: "correct horse 1"))
        }
        #expect(harness.service.currentUser == nil)
    }

    @Test("an address with a NUL after it cannot squat the address: Ada's password opens Ada's account", arguments: AuthVariant.allCases)
    func noSquatting(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        await #expect(throws: AuthenticationError(.invalidEmail)) {
            _ = try await harness.service.createUser(email: "ada@example.com\0x", password: "squatter horse 1")
        }
        let ada = try await harness.service.createUser(email: "ada@example.com", password: "correct horse 1")
        try await harness.service.signOut()
        #expect(try await harness.service.signIn(with: .emailPassword(email: "ada@example.com", password: "correct horse 1")).id == ada.id)
    }

    @Test("precomposed and decomposed spellings, case and surrounding spaces are one address", arguments: AuthVariant.allCases)
    func oneAddress(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let composed = "jos\u{E9}@example.com"
        let decomposed = "jose\u{301}@example.com"
        let jose = try await harness.service.createUser(email: composed, password: "correct horse 1")
        #expect(jose.email == composed)
        try await harness.service.signOut()
        for spelling in [decomposed, "  JOSE\u{301}@Example.COM ", "Jos\u{C9}@example.com"] {
            await #expect(throws: AuthenticationError(.emailAlreadyInUse), "\(spelling.debugDescription)") {
                _ = try await harness.service.createUser(email: spelling, password: "other horse 2")
            }
            #expect(try await harness.service.signIn(with: .emailPassword(email: spelling, password: "correct horse 1")).id == jose.id)
            try await harness.service.signOut()
        }
    }

    @Test("an email that an Apple account uses cannot make a password account", arguments: AuthVariant.allCases)
    func appleEmailTaken(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let ada = try await harness.signInWithApple()
        #expect(ada.email == "ada@example.com")
        try await harness.service.signOut()
        await #expect(throws: AuthenticationError(.emailAlreadyInUse)) {
            _ = try await harness.service.createUser(email: "ada@example.com", password: "correct horse 1")
        }
    }

    @Test("a first Apple sign-in whose email belongs to a password account is accountExistsWithDifferentCredential")
    func appleSignInOverPasswordAccount() async throws {
        let harness = try AuthHarness()
        let ada = try await harness.service.createUser(email: "ada@example.com", password: "correct horse 1")
        try await harness.service.signOut()
        await #expect(throws: AuthenticationError(.accountExistsWithDifferentCredential)) { try await harness.signInWithApple() }
        #expect(harness.service.currentUser == nil)
        // Ada signs in with her password and links Apple instead.
        _ = try await harness.service.signIn(with: .emailPassword(email: "ada@example.com", password: "correct horse 1"))
        let linked = try await harness.service.link(try await harness.appleCredential())
        #expect(linked.id == ada.id && linked.isLinked(.apple))
    }

    @Test("changing the email to another account's address is emailAlreadyInUse, whatever that account's providers")
    func updateEmailTaken() async throws {
        let harness = try AuthHarness()
        _ = try await harness.signInWithApple()
        try await harness.service.signOut()
        _ = try await harness.service.createUser(email: "grace@example.com", password: "correct horse 1")
        await #expect(throws: AuthenticationError(.emailAlreadyInUse)) { _ = try await harness.service.updateEmail(to: "ADA@example.com") }
        #expect(harness.service.currentUser?.email == "grace@example.com")
        let moved = try await harness.service.updateEmail(to: "grace@new.example")
        try await harness.service.signOut()
        #expect(
            try await harness.service.createUser(email: "grace@example.com", password: "correct horse 2").id != moved.id,
            "the old address was freed")
    }

    @Test(
        "a password linked to an Apple account makes its address that account's: no other Apple ID or account may take it",
        arguments: AuthVariant.allCases)
    func linkedPasswordAddress(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let ada = try await harness.signInWithApple()
        _ = try await harness.service.link(.emailPassword(email: "Other@Example.com", password: "correct horse 1"))
        try await harness.service.signOut()
        let other = SimulatedIdentityProvider.Account(subject: "003.other", email: "other@example.com", fullName: FullName(givenName: "O"))
        await #expect(throws: AuthenticationError(.accountExistsWithDifferentCredential)) { _ = try await harness.signInWithApple(as: other) }
        _ = try await harness.signInWithApple(as: AuthHarness.grace)
        await #expect(throws: AuthenticationError(.emailAlreadyInUse)) { _ = try await harness.service.updateEmail(to: "other@example.com") }
        await #expect(throws: AuthenticationError(.emailAlreadyInUse)) {
            _ = try await harness.service.link(.emailPassword(email: "other@example.com", password: "correct horse 2"))
        }
        try await harness.service.signOut()
        await #expect(throws: AuthenticationError(.emailAlreadyInUse)) {
            _ = try await harness.service.createUser(email: "other@example.com", password: "correct horse 2")
        }
        // Once Ada unlinks the password, the address is free again.
        _ = try await harness.signInWithApple()
        _ = try await harness.service.unlink(.password)
        try await harness.service.signOut()
        let taken = try await harness.signInWithApple(as: other)
        #expect(taken.id != ada.id)
        #expect(taken.email == "other@example.com")
    }

    @Test("length limits count UTF-8 bytes: one letter with 100,000 combining marks is too long")
    func byteLimits() async throws {
        let harness = try AuthHarness()
        let marks = String(repeating: "\u{301}", count: 100_000)
        await #expect(throws: AuthenticationError(.invalidEmail)) {
            _ = try await harness.service.createUser(email: "a\(marks)@example.com", password: "correct horse 1")
        }
        await #expect(throws: AuthenticationError(.weakPassword)) {
            _ = try await harness.service.createUser(email: "ada@example.com", password: "horse 1a\(marks)")
        }
        let longest = String(repeating: "a", count: 64) + "@" + String(repeating: "b", count: 185) + ".com"
        #expect(longest.utf8.count == 254)
        #expect(try await harness.service.createUser(email: longest, password: "correct horse 1").email == longest)
        await #expect(throws: AuthenticationError(.invalidEmail)) {
            _ = try await harness.service.createUser(email: "\u{E9}" + longest.dropFirst(), password: "correct horse 1")
        }
    }

    @Test("a store written before the email index opens with every address indexed and password sign-ins in one spelling")
    func migration() async throws {
        let harness = try AuthHarness(.file)
        let start = ManualClock.defaultStart
        let decomposed = "Jose\u{301}@Example.com"
        let hash = try await harness.service.createUserHash(password: "correct horse 1")
        do {
            let version1 = StoreSchema(name: "auth", migrations: [AuthRecords.schema.migrations[0]])
            let old = try RecordStore(.file(harness.directory.file("old.sqlite")), schema: version1)
            try old.write { records in
                let jose = UserEntity(
                    id: "old-1", email: decomposed,
                    providers: [
                        LinkedProvider(provider: .password, subject: decomposed, email: decomposed, linkedAt: start)
                    ], createdAt: start, lastSignInAt: start)
                // Ada signs in with Apple and has linked a password with another address.
                let ada = UserEntity(
                    id: "old-2", email: "ada@example.com",
                    providers: [LinkedProvider(provider: .password, subject: "ada@work.example", email: "ada@work.example", linkedAt: start)],
                    createdAt: start, lastSignInAt: start)
                try records.put(AuthRecords.Account(user: jose), forKey: jose.id, in: AuthRecords.accounts)
                try records.put(AuthRecords.Account(user: ada), forKey: ada.id, in: AuthRecords.accounts)
                try records.put(ada.id, forKey: AuthRecords.identityKey(.password, "ada@work.example"), in: AuthRecords.identities)
                try records.put(jose.id, forKey: AuthRecords.identityKey(.password, decomposed), in: AuthRecords.identities)
                try records.put(hash, forKey: jose.id, in: AuthRecords.passwords)
            }
        }
        let service = try LocalAuthService(
            storage: .file(harness.directory.file("old.sqlite")), context: harness.context, configuration: harness.configuration)
        await #expect(throws: AuthenticationError(.emailAlreadyInUse)) {
            _ = try await service.createUser(email: "ada@example.com", password: "correct horse 2")
        }
        await #expect(throws: AuthenticationError(.emailAlreadyInUse)) {
            _ = try await service.createUser(email: "jos\u{E9}@example.com", password: "correct horse 2")
        }
        let grace = try await service.createUser(email: "grace@example.com", password: "correct horse 2")
        await #expect(throws: AuthenticationError(.emailAlreadyInUse), "a linked password's address is indexed too") {
            _ = try await service.updateEmail(to: "ada@work.example")
        }
        try await service.signOut()
        #expect(grace.id != "old-2")
        #expect(try await service.signIn(with: .emailPassword(email: "jos\u{E9}@example.com", password: "correct horse 1")).id == "old-1")
    }
}
