import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainAuth

/// AUTH-1, AUTH-2, AUTH-6: Sign in with Apple end to end.
@Suite(.timeLimit(.minutes(1))) struct AppleSignInTests {
    @Test("a first Apple sign-in creates the account with the name and email shared on first authorization", arguments: AuthVariant.allCases)
    func firstSignIn(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let user = try await harness.signInWithApple()
        #expect(user.id == "user-000001")
        #expect(user.displayName == "Ada Lovelace")
        #expect(user.email == "ada@example.com")
        #expect(user.isPrivateEmail == false)
        #expect(user.providers.map(\.provider) == [.apple])
        #expect(user.createdAt == harness.clock.now && user.lastSignInAt == harness.clock.now)
        #expect(harness.service.currentUser == user)
    }

    @Test("each request carries the SHA-256 of a fresh raw nonce")
    func freshNonces() async throws {
        let harness = try AuthHarness()
        let first = try await harness.appleCredential()
        let second = try await harness.appleCredential()
        guard case .identity(_, let rawFirst) = first, case .identity(_, let rawSecond) = second else {
            Issue.record("expected identity credentials")
            return
        }
        #expect(rawFirst != rawSecond)
        let hashed = harness.apple.calls.compactMap { call -> String? in
            if case .authorize(let nonce) = call { nonce } else { nil }
        }
        #expect(try hashed == [rawFirst, rawSecond].map { PlatformCrypto.hex(try PlatformCrypto.sha256(Data($0.utf8))) })
    }

    @Test("a hidden email arrives as a private-relay address and is marked so")
    func privateRelay() async throws {
        let harness = try AuthHarness()
        var hidden = AuthHarness.ada
        hidden.hidesEmail = true
        let user = try await harness.signInWithApple(as: hidden)
        #expect(user.email?.hasSuffix("@privaterelay.appleid.com") == true)
        #expect(user.isPrivateEmail)
    }

    @Test("AUTH-2: later sign-ins, which carry no name or email, never erase them", arguments: AuthVariant.allCases)
    func laterSignInsKeepProfile(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let first = try await harness.signInWithApple()
        try await harness.service.signOut()
        harness.clock.advance(by: .seconds(60))
        let credential = try await harness.appleCredential()
        guard case .identity(let identity, _) = credential else { return }
        #expect(identity.fullName == nil && identity.email == nil, "Apple shares them on the first authorization only")
        let again = try await harness.service.signIn(with: credential)
        #expect(again.id == first.id)
        #expect(again.displayName == "Ada Lovelace")
        #expect(again.email == "ada@example.com")
        #expect(again.lastSignInAt == harness.clock.now)
    }

    @Test("a raw nonce that does not hash to the token's nonce is missingOrInvalidNonce and changes nothing")
    func nonceMismatch() async throws {
        let harness = try AuthHarness()
        guard case .identity(let identity, _) = try await harness.appleCredential() else { return }
        await #expect(throws: AuthenticationError(.missingOrInvalidNonce)) {
            _ = try await harness.service.signIn(with: .identity(identity, rawNonce: "another nonce"))
        }
        #expect(harness.service.currentUser == nil)
        // The credential was not consumed by the failed attempt.
        await #expect(throws: AuthenticationError(.missingOrInvalidNonce)) {
            _ = try await harness.service.signIn(with: .identity(identity, rawNonce: ""))
        }
    }

    @Test("a token without a nonce claim is missingOrInvalidNonce")
    func missingNonce() async throws {
        let harness = try AuthHarness()
        let token = try harness.apple.mintToken(for: AuthHarness.ada, nonce: nil)
        let credential = IdentityCredential(provider: .apple, user: AuthHarness.ada.subject, identityToken: token)
        await #expect(throws: AuthenticationError(.missingOrInvalidNonce)) {
            _ = try await harness.service.signIn(with: .identity(credential, rawNonce: "raw"))
        }
    }

    @Test("a token expires: valid at exactly exp, invalidCredential one second later")
    func expiry() async throws {
        let harness = try AuthHarness()
        let raw = "raw-nonce-1"
        let nonce = PlatformCrypto.hex(try PlatformCrypto.sha256(Data(raw.utf8)))
        let expiry = harness.clock.now.addingTimeInterval(600)
        let token = try harness.apple.mintToken(for: AuthHarness.ada, nonce: nonce, expiresAt: expiry)
        let credential = SignInCredential.identity(IdentityCredential(provider: .apple, user: "", identityToken: token), rawNonce: raw)
        harness.clock.advance(to: expiry.addingTimeInterval(1))
        await #expect(throws: AuthenticationError(.invalidCredential)) { _ = try await harness.service.signIn(with: credential) }
        #expect(harness.service.currentUser == nil)

        let atExpiry = try AuthHarness()
        let onTime = try atExpiry.apple.mintToken(for: AuthHarness.ada, nonce: nonce, expiresAt: expiry)
        atExpiry.clock.advance(to: expiry)
        let user = try await atExpiry.service.signIn(
            with: .identity(IdentityCredential(provider: .apple, user: "", identityToken: onTime), rawNonce: raw))
        #expect(user.email == "ada@example.com")
    }

    @Test("a token for another app's audience, or from another issuer, is invalidCredential")
    func wrongAudienceOrIssuer() async throws {
        let harness = try AuthHarness()
        let raw = "raw-nonce-2"
        let nonce = PlatformCrypto.hex(try PlatformCrypto.sha256(Data(raw.utf8)))
        let foreign = try harness.apple.mintToken(for: AuthHarness.ada, nonce: nonce, audience: "com.other.app")
        let error = await #expect(throws: AuthenticationError.self) {
            _ = try await harness.service.signIn(
                with: .identity(IdentityCredential(provider: .apple, user: "", identityToken: foreign), rawNonce: raw))
        }
        #expect(error?.code == .invalidCredential)
        // A Google token presented as an Apple credential.
        let google = try harness.google.mintToken(for: AuthHarness.ada, nonce: nonce, audience: AuthHarness.appleAudience)
        let issuerError = await #expect(throws: AuthenticationError.self) {
            _ = try await harness.service.signIn(
                with: .identity(IdentityCredential(provider: .apple, user: "", identityToken: google), rawNonce: raw))
        }
        #expect(issuerError?.code == .invalidCredential)
        #expect(harness.service.currentUser == nil)
    }

    @Test(
        "malformed tokens are invalidCredential",
        arguments: [
            "only.two", "a.b.c.d", "###.$$$.%%%", "e30.bm90IGpzb24.c2ln", "e30.e30.c2ln", "..", "",
        ])
    func malformedTokens(token: String) async throws {
        let harness = try AuthHarness()
        let error = await #expect(throws: AuthenticationError.self) {
            _ = try await harness.service.signIn(
                with: .identity(IdentityCredential(provider: .apple, user: "", identityToken: token), rawNonce: "raw"))
        }
        #expect(error?.code == .invalidCredential)
        #expect(harness.service.currentUser == nil)
    }

    @Test("a credential cannot be used twice, and neither can its nonce", arguments: AuthVariant.allCases)
    func replay(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let credential = try await harness.appleCredential()
        let user = try await harness.service.signIn(with: credential)
        try await harness.service.signOut()
        let service = variant == .file ? try harness.relaunch() : harness.service
        await #expect(throws: AuthenticationError(.invalidCredential)) { _ = try await service.signIn(with: credential) }
        #expect(service.currentUser == nil)

        // A different token carrying the same nonce.
        guard case .identity(let identity, let raw) = credential else { return }
        let sameNonce = try harness.apple.mintToken(
            for: AuthHarness.ada, nonce: PlatformCrypto.hex(try PlatformCrypto.sha256(Data(raw.utf8))),
            issuedAt: harness.clock.now.addingTimeInterval(1))
        var reused = identity
        reused.identityToken = sameNonce
        await #expect(throws: AuthenticationError(.missingOrInvalidNonce)) { _ = try await service.signIn(with: .identity(reused, rawNonce: raw)) }
        #expect(user.id == "user-000001")
    }

    @Test("a provider that is not configured is operationNotAllowed")
    func unconfiguredProvider() async throws {
        let service = try LocalAuthService(storage: .inMemory, context: TrainContext(clock: ManualClock()))
        await #expect(throws: AuthenticationError(.operationNotAllowed)) { _ = try await service.signInWithApple() }
    }

    @Test("a cancelled Apple sheet is cancelled and signs nobody in")
    func cancelledSheet() async throws {
        let harness = try AuthHarness()
        harness.apple.signIn(as: AuthHarness.ada)
        harness.apple.failNextAuthorization(with: AuthenticationError(.cancelled))
        await #expect(throws: AuthenticationError(.cancelled)) { _ = try await harness.service.signInWithApple() }
        #expect(harness.service.currentUser == nil)
    }

    @Test(
        "AUTH-6: revoked and notFound credential states sign the user out; authorized and transferred do not",
        arguments: [
            (CredentialState.authorized, true), (.transferred, true), (.revoked, false), (.notFound, false),
        ])
    func credentialState(state: CredentialState, staysSignedIn: Bool) async throws {
        let harness = try AuthHarness()
        try await harness.signInWithApple()
        harness.apple.setCredentialState(state, forUserID: AuthHarness.ada.subject)
        #expect(try await harness.service.checkCredentialState() == state)
        #expect((harness.service.currentUser != nil) == staysSignedIn)
    }

    @Test("AUTH-6: a revocation event from the authorizer signs the user out at once")
    func revocationEvent() async throws {
        let harness = try AuthHarness()
        let user = try await harness.signInWithApple()
        let states = harness.service.authStateChanges()
        #expect(await states.collect(1).first == .some(user))
        harness.apple.revokeAuthorization(forUserID: AuthHarness.grace.subject)
        harness.apple.revokeAuthorization(forUserID: AuthHarness.ada.subject)
        #expect(await states.collect(1).first == .some(nil))
        #expect(harness.service.currentUser == nil)
    }
}
