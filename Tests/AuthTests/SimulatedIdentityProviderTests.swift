import Foundation
import Testing
import TrainAuth
import TrainCore
import TrainTesting

/// The simulated providers behave as Apple's and Google's do where an app can tell.
@Suite(.timeLimit(.minutes(1))) struct SimulatedIdentityProviderTests {
    static func request() throws -> AuthorizationRequest {
        AuthorizationRequest(hashedNonce: PlatformCrypto.hex(try PlatformCrypto.sha256(Data("raw".utf8))))
    }

    @Test("tokens carry the JWT claims Apple's do")
    func claims() async throws {
        let clock = ManualClock()
        let apple = SimulatedIdentityProvider(provider: .apple, audience: "com.example.train", clock: clock)
        var account = AuthHarness.ada
        account.hidesEmail = true
        apple.signIn(as: account)
        let credential = try await apple.authorize(try Self.request())
        let claims = try IdentityToken.claims(of: credential.identityToken)
        #expect(claims.issuer == "https://appleid.apple.com")
        #expect(claims.audience == "com.example.train")
        #expect(claims.subject == "001.ada")
        #expect(claims.issuedAt == clock.now)
        #expect(claims.expiresAt == clock.now.addingTimeInterval(600))
        #expect(try claims.nonce == Self.request().hashedNonce)
        #expect(claims.isPrivateEmail == true)
        #expect(claims.email?.hasSuffix("@privaterelay.appleid.com") == true)
        #expect(credential.identityToken.split(separator: ".").count == 3)
    }

    @Test("Apple shares name and email on the first authorization only; Google every time")
    func firstTimeSharing() async throws {
        let apple = SimulatedIdentityProvider(provider: .apple, audience: "a", clock: ManualClock())
        let google = SimulatedIdentityProvider(provider: .google, audience: "g", clock: ManualClock())
        apple.signIn(as: AuthHarness.ada)
        google.signIn(as: AuthHarness.ada)
        let firstApple = try await apple.authorize(try Self.request())
        let secondApple = try await apple.authorize(try Self.request())
        #expect(firstApple.fullName == AuthHarness.ada.fullName && firstApple.email == "ada@example.com")
        #expect(secondApple.fullName == nil && secondApple.email == nil)
        #expect(try await google.authorize(try Self.request()).fullName != nil)
        #expect(try await google.authorize(try Self.request()).fullName != nil)
    }

    @Test("an authorization code revokes once, and not after five minutes")
    func authorizationCodes() async throws {
        let clock = ManualClock()
        let apple = SimulatedIdentityProvider(provider: .apple, audience: "a", clock: clock)
        apple.signIn(as: AuthHarness.ada)
        let first = try #require(try await apple.authorize(Self.request()).authorizationCode)
        try await apple.revokeToken(authorizationCode: first)
        #expect(try await apple.credentialState(forUserID: "001.ada") == .revoked)
        await #expect(throws: AuthenticationError.self) { try await apple.revokeToken(authorizationCode: first) }
        let second = try #require(try await apple.authorize(Self.request()).authorizationCode)
        clock.advance(by: .seconds(301))
        await #expect(throws: AuthenticationError.self) { try await apple.revokeToken(authorizationCode: second) }
        await #expect(throws: AuthenticationError.self) { try await apple.revokeToken(authorizationCode: "made-up") }
        #expect(apple.revocationsRecorded == [.init(userID: "001.ada", date: ManualClock.defaultStart)])
        #expect(try await apple.credentialState(forUserID: "001.ada") == .authorized, "authorizing again restores it")
        #expect(try await apple.credentialState(forUserID: "stranger") == .notFound)
    }

    @Test("revocation events reach every listener from the moment it subscribed")
    func revocationEvents() async throws {
        let apple = SimulatedIdentityProvider(provider: .apple, audience: "a", clock: ManualClock())
        apple.revokeAuthorization(forUserID: "before")
        let events = apple.revocations()
        apple.revokeAuthorization(forUserID: "001.ada")
        #expect(await events.collect(1).first == "001.ada")
    }

    @Test("neither tokens nor authorization codes are stored in clear")
    func noTokensOnDisk() async throws {
        let harness = try AuthHarness(.file)
        let credential = try await harness.appleCredential()
        _ = try await harness.service.signIn(with: credential)
        guard case .identity(let identity, let raw) = credential else { return }
        for suffix in ["", "-wal"] {
            let bytes = (try? Data(contentsOf: URL(fileURLWithPath: harness.file.path + suffix))) ?? Data()
            for secret in [identity.identityToken, identity.authorizationCode ?? "-", raw] {
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "a secret was found in auth.sqlite\(suffix)")
            }
        }
    }
}
