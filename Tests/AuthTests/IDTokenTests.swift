import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainAuth

/// AUTH-14: ID tokens for a backend, their refresh, their stream, and the verifier.
@Suite(.timeLimit(.minutes(1))) struct IDTokenTests {
    @Test("a token carries the user, providers, auth time and an hour's expiry, and the verifier accepts it", arguments: AuthVariant.allCases)
    func claims(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let ada = try await harness.signInWithApple()
        let signedInAt = harness.clock.now
        harness.clock.advance(by: .seconds(10))
        let token = try await harness.service.idToken()
        let claims = try harness.service.tokenVerifier().verify(token)
        #expect(claims.userID == ada.id && claims.providers == ["apple.com"])
        #expect(claims.authTime == signedInAt && claims.issuedAt == harness.clock.now)
        #expect(claims.expiresAt == harness.clock.now.addingTimeInterval(3_600))
        #expect(claims.email == "ada@example.com" && claims.emailVerified)
        #expect(claims.issuer == "https://auth.trainkit.local" && claims.audience == "trainkit")
    }

    @Test(
        "a token says how its session signed in and lists the linked identities as Firebase does; a link changes the identities, not the sign-in",
        arguments: AuthVariant.allCases)
    func signInProviderAndIdentities(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        _ = try await harness.signInWithApple()
        let verifier = try harness.service.tokenVerifier()
        let apple = try verifier.verify(try await harness.service.idToken(forceRefresh: true))
        #expect(apple.signInProvider == "apple.com" && apple.identities == ["apple.com": [AuthHarness.ada.subject]])
        _ = try await harness.service.link(.emailPassword(email: "ada@example.com", password: "correct horse 1"))
        let linked = try verifier.verify(try await harness.service.idToken(forceRefresh: true))
        #expect(linked.signInProvider == "apple.com")
        #expect(linked.identities == ["apple.com": [AuthHarness.ada.subject], "email": ["ada@example.com"]])
        try await harness.service.signOut()
        let verificationID = try await harness.service.sendVerificationCode(to: "+16505551234")
        _ = try await harness.service.signIn(with: .phone(verificationID: verificationID, code: "123456"))
        let phone = try verifier.verify(try await harness.service.idToken(forceRefresh: true))
        #expect(phone.signInProvider == "phone" && phone.identities == ["phone": ["+16505551234"]])
        try await harness.service.signOut()
        _ = try await harness.service.signInAnonymously()
        let guest = try verifier.verify(try await harness.service.idToken(forceRefresh: true))
        #expect(guest.signInProvider == "anonymous" && guest.identities.isEmpty)
    }

    @Test("the claims sit under firebase as Firebase's do, and a token from before them decodes without them")
    func firebaseClaimNames() throws {
        let claims = IDTokenClaims(
            issuer: "i", audience: "a", userID: "u", providers: ["password"], authTime: Date(timeIntervalSince1970: 0),
            issuedAt: Date(timeIntervalSince1970: 0), expiresAt: Date(timeIntervalSince1970: 3_600), sessionID: "s",
            signInProvider: "password", identities: ["email": ["ada@example.com"]])
        let json = try #require(try JSONSerialization.jsonObject(with: try JSONEncoder().encode(claims)) as? [String: Any])
        let firebase = try #require(json["firebase"] as? [String: Any])
        #expect(firebase["sign_in_provider"] as? String == "password")
        #expect(firebase["identities"] as? [String: [String]] == ["email": ["ada@example.com"]])
        var older = json
        older["firebase"] = nil
        let decoded = try JSONDecoder().decode(IDTokenClaims.self, from: try JSONSerialization.data(withJSONObject: older))
        #expect(decoded.signInProvider == nil && decoded.identities.isEmpty && decoded.userID == "u")
    }

    @Test("the kept token is given again until five minutes are left, then a new one is issued and streamed", arguments: AuthVariant.allCases)
    func refreshBeforeExpiry(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        _ = try await harness.service.createUser(email: "ada@example.com", password: "correct horse 1")
        let stream = harness.service.idTokenChanges()
        let watched = Task { await stream.collect(4) }
        let first = try await harness.service.idToken()
        harness.clock.advance(by: .seconds(3_300))
        #expect(try await harness.service.idToken() == first, "exactly five minutes left: still the kept token")
        harness.clock.advance(by: .seconds(1))
        let second = try await harness.service.idToken()
        #expect(second != first)
        let forced = try await harness.service.idToken(forceRefresh: true)
        #expect(forced != second)
        #expect(await watched.value == [nil, first, second, forced])
    }

    @Test("a tampered, re-signed, unsigned, foreign, expired or future-dated token is a typed error", arguments: AuthVariant.allCases)
    func tampering(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        _ = try await harness.service.createUser(email: "ada@example.com", password: "correct horse 1")
        let token = try await harness.service.idToken()
        let verifier = try harness.service.tokenVerifier()
        let parts = token.split(separator: ".").map(String.init)
        var claims = try verifier.verify(token)
        claims.userID = "user-000999"
        let payload = Base64URL.encode(try JSONEncoder().encode(claims))
        let none = Base64URL.encode(Data(#"{"alg":"none","typ":"JWT"}"#.utf8))
        let otherKey = try IDTokenVerifier.sign(claims, key: Data(repeating: 7, count: 32))
        // The signature's last character with its spare low bit flipped: the same bytes under lenient base64url.
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let last = try #require(token.last.flatMap { alphabet.firstIndex(of: $0) })
        let respelled = String(token.dropLast()) + String(alphabet[last ^ 1])
        for bad in [
            respelled,
            "\(parts[0]).\(payload).\(parts[2])", "\(none).\(parts[1]).", "\(none).\(parts[1]).\(parts[2])", otherKey,
            parts[0] + "." + parts[1], token + "x", token + "=", token + "==", "", String(repeating: "a.", count: 20_000),
        ] {
            #expect(throws: AuthenticationError(.invalidUserToken), "\(bad.prefix(40))") { _ = try verifier.verify(bad) }
        }
        let foreign = IDTokenVerifier(
            key: Data(repeating: 7, count: 32), issuer: "https://auth.trainkit.local", audience: "another-backend", clock: harness.clock)
        #expect(throws: AuthenticationError(.invalidUserToken)) { _ = try foreign.verify(otherKey) }
        harness.clock.setDate(harness.clock.now.addingTimeInterval(-60))
        #expect(throws: AuthenticationError(.invalidUserToken), "a token dated after now: the clock was set back") { _ = try verifier.verify(token) }
        harness.clock.advance(by: .seconds(3_660))
        #expect(throws: AuthenticationError(.userTokenExpired)) { _ = try verifier.verify(token) }
    }

    @Test("sign-out, a sign-in of another user, a password change and deletion revoke the tokens issued before", arguments: AuthVariant.allCases)
    func revocation(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let auth = harness.service
        let verifier = try auth.tokenVerifier()
        _ = try await auth.createUser(email: "ada@example.com", password: "correct horse 1")
        let beforeSignOut = try await auth.idToken()
        try await auth.signOut()
        #expect(throws: AuthenticationError(.userTokenRevoked)) { _ = try verifier.verify(beforeSignOut) }

        _ = try await auth.signIn(with: .emailPassword(email: "ada@example.com", password: "correct horse 1"))
        let beforeChange = try await auth.idToken()
        try await auth.updatePassword(to: "new horse 2")
        #expect(throws: AuthenticationError(.userTokenRevoked)) { _ = try verifier.verify(beforeChange) }
        let afterChange = try await auth.idToken()
        #expect(afterChange != beforeChange, "the kept token went with the old session")
        _ = try verifier.verify(afterChange)

        _ = try await auth.deleteAccount()
        #expect(throws: AuthenticationError(.userTokenRevoked)) { _ = try verifier.verify(afterChange) }
        await #expect(throws: AuthenticationError(.notSignedIn)) { _ = try await auth.idToken() }
    }

    @Test("a second service on the same file verifies the first one's tokens with the key kept there")
    func keyKeptWithAccounts() async throws {
        let harness = try AuthHarness(.file)
        _ = try await harness.service.createUser(email: "ada@example.com", password: "correct horse 1")
        let token = try await harness.service.idToken()
        let relaunched = try harness.relaunch()
        #expect(try relaunched.tokenVerifier().verify(token).email == "ada@example.com")
    }

    @Test(
        "the kept token is renewed on the clock once it has less than five minutes left, and the stream tells it; a sign-out stops the renewal",
        arguments: AuthVariant.allCases)
    func renewedInTheBackground(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        _ = try await harness.service.createUser(email: "ada@example.com", password: "correct horse 1")
        let stream = harness.service.idTokenChanges() // what it tells waits in it until read
        let first = try await harness.service.idToken()
        let renewalAt = harness.clock.now.addingTimeInterval(3_300)
        await harness.clock.waitForSleeper(wakingBy: renewalAt.addingTimeInterval(1))
        harness.clock.advance(to: renewalAt)
        #expect(try await harness.service.idToken() == first, "exactly five minutes left: still kept, nothing renewed")
        harness.clock.advance(by: .seconds(1))
        let told = await stream.collect(3)
        #expect(told.count == 3 && told[0] == nil && told[1] == first)
        let renewed = try #require(told.last ?? nil)
        let kept = try await harness.service.idToken()
        #expect(renewed != first && kept == renewed, "the renewed token is the one kept")
        let payload = try #require(Base64URL.decode(String(renewed.split(separator: ".")[1])))
        #expect(try JSONDecoder().decode(IDTokenClaims.self, from: payload).issuedAt == renewalAt.addingTimeInterval(1))
        try await harness.service.signOut()
        #expect(harness.clock.pendingDeadlines.isEmpty, "no renewal waits after the sign-out")
    }

    @Test(
        "a link, an unlink, a new or verified address and a new sign-in renew the kept token at once, with the claims they change",
        arguments: AuthVariant.allCases)
    func claimsFollowTheUser(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let auth = harness.service
        let verifier = try auth.tokenVerifier()
        _ = try await auth.signInAnonymously()
        let guestToken = try await auth.idToken()
        #expect(try verifier.verify(guestToken).providers.isEmpty)
        _ = try await auth.link(try await harness.appleCredential())
        let linked = try await auth.idToken()
        let linkedClaims = try verifier.verify(linked)
        #expect(linked != guestToken && linkedClaims.providers == ["apple.com"] && linkedClaims.email == "ada@example.com")
        _ = try await auth.updateEmail(to: "ada@lovelace.example")
        let moved = try verifier.verify(try await auth.idToken())
        #expect(moved.email == "ada@lovelace.example" && !moved.emailVerified)
        try await auth.sendEmailVerification()
        try await auth.verifyEmail(code: try #require(harness.mailbox.lastCode(for: "ada@lovelace.example", .emailVerification)))
        #expect(try verifier.verify(try await auth.idToken()).emailVerified)
        harness.clock.advance(by: .seconds(60))
        _ = try await auth.reauthenticate(with: try await harness.appleCredential())
        #expect(try verifier.verify(try await auth.idToken()).authTime == harness.clock.now)
    }
}
