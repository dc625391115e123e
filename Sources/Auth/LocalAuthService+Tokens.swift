import Foundation
import TrainCore

extension LocalAuthService: IDTokenRevocationChecking {
    /// How long an ID token is valid.
    static let idTokenLifetime: TimeInterval = 3_600
    /// How long before its expiry a kept token is replaced by a fresh one.
    static let idTokenRefreshMargin: TimeInterval = 300

    /// Returns the signed-in session's ID token: the one kept while it has more than
    /// five minutes left, else a new one, which ``idTokenChanges()`` announces.
    public func idToken(forceRefresh: Bool) async throws -> String {
        let current = try requireSession()
        let now = context.clock.now
        if !forceRefresh, let kept = keptToken, kept.userID == current.user.id, kept.issuedAt <= now,
            now.timeIntervalSince(kept.expiresAt) <= -Self.idTokenRefreshMargin
        {
            return kept.token
        }
        return try issueToken(for: current, now: now)
    }

    /// Issues an ID token of `current`'s session on this device, keeps it, announces it
    /// on ``idTokenChanges()`` and arms its renewal five minutes before it expires. A
    /// token the app asked for is use of a guest; one the service renews by itself is not.
    func issueToken(for current: AuthRecords.Account, now: Date, askedByApp: Bool = true) throws(AuthenticationError) -> String {
        let (sessionID, signInProvider, key) = try write { records -> (String, String?, Data) in
            guard var session = try records.value(forKey: self.sessionKey, in: AuthRecords.session), session.userID == current.user.id,
                session.endReason == nil, try records.value(forKey: current.user.id, in: AuthRecords.accounts)?.generation == current.generation
            else {
                throw AuthenticationError(.notSignedIn, detail: "This device's session ended, or the password changed meanwhile.")
            }
            if session.id == nil {
                session.id = UUID().uuidString
                try records.put(session, forKey: self.sessionKey, in: AuthRecords.session)
            }
            // A guest whose app asks its backend for a token is a guest in use.
            if askedByApp, current.user.isAnonymous, try records.value(forKey: current.user.id, in: AuthRecords.guests) != nil {
                try Self.touchGuest(
                    current.user.id, until: self.configuration.policy.guestIdleLifetime.map { now.addingTimeInterval($0.timeInterval) }, in: records)
            }
            return (session.id ?? "", session.signInProvider, try self.signingKey(in: records))
        }
        let user = current.user
        let claims = IDTokenClaims(
            issuer: configuration.tokens.issuer, audience: configuration.tokens.audience, userID: user.id,
            providers: user.providers.map(\.provider.rawValue), authTime: user.lastSignInAt, issuedAt: now,
            expiresAt: now.addingTimeInterval(Self.idTokenLifetime), sessionID: sessionID, email: user.email,
            emailVerified: user.isEmailVerified, signInProvider: signInProvider, identities: user.tokenIdentities)
        let token = try IDTokenVerifier.sign(claims, key: key)
        keptToken = KeptToken(userID: user.id, token: token, issuedAt: now, expiresAt: claims.expiresAt)
        tokens.send(token)
        armRenewal(of: token, at: claims.expiresAt.addingTimeInterval(-Self.idTokenRefreshMargin))
        return token
    }

    /// Renews `token` on the clock once it has less than five minutes left, as
    /// ``idToken(forceRefresh:)`` would, while it is still the kept one.
    private func armRenewal(of token: String, at date: Date) {
        renewal?.cancel()
        let clock = context.clock
        renewal = Task { [weak self] in
            // Just past the margin: a token with exactly five minutes left is still kept.
            try? await clock.sleep(until: date.addingTimeInterval(0.001))
            guard !Task.isCancelled else { return }
            await self?.renew(token)
        }
    }

    private func renew(_ token: String) {
        guard keptToken?.token == token, let current = try? requireSession() else { return }
        _ = try? issueToken(for: current, now: context.clock.now, askedByApp: false)
    }

    /// After the signed-in user changed in place: a kept token whose claims no longer
    /// hold (a provider linked or unlinked, the address changed or verified, a new
    /// sign-in time) is replaced by a new one at once, announced on ``idTokenChanges()``.
    func renewKeptToken(after before: UserEntity?, _ after: UserEntity) {
        guard let kept = keptToken, kept.userID == after.id, let before, before.id == after.id,
            before.providers.map(\.provider) != after.providers.map(\.provider) || before.email != after.email
                || before.isEmailVerified != after.isEmailVerified || before.lastSignInAt != after.lastSignInAt
        else { return }
        if let current = try? requireSession(), (try? issueToken(for: current, now: context.clock.now, askedByApp: false)) != nil { return }
        dropKeptToken()
    }

    public nonisolated func idTokenChanges() -> AsyncStream<String?> {
        tokens.subscribe()
    }

    /// A verifier of this service's tokens, as a backend would hold it: the key,
    /// issuer and audience, this service's clock, and this service's accounts to
    /// check revocation against.
    /// - Returns: The verifier.
    /// - Throws: ``TrainCore/TrainErrorCode/storage`` if the key cannot be read.
    public nonisolated func tokenVerifier() throws -> IDTokenVerifier {
        let key = try write { records in try self.signingKey(in: records) }
        return IDTokenVerifier(
            key: key, issuer: configuration.tokens.issuer, audience: configuration.tokens.audience, clock: context.clock,
            revocations: self)
    }

    /// A token is revoked once its session ended — signed out, replaced by another
    /// sign-in on its device, or ended by a password change or reset — or its account
    /// was deleted, disabled or is due for deletion.
    public nonisolated func isRevoked(_ claims: IDTokenClaims) throws -> Bool {
        let now = context.clock.now
        return try read { records in
            guard (1...16_384).contains(claims.userID.utf8.count),
                let account = try records.value(forKey: claims.userID, in: AuthRecords.accounts), !account.isDisabled,
                try !AuthRecords.isDeletionDue(claims.userID, in: records, now: now)
            else { return true }
            return try !records.values(in: AuthRecords.session).contains {
                $0.userID == claims.userID && $0.id == claims.sessionID && $0.endReason == nil
            }
        }
    }

    /// Inside a transaction: raises the account's session generation, so services signed
    /// in to it before are signed out at their next call; ends its sessions on other
    /// devices, each told why at its next read, and gives this device's session, if it
    /// is theirs, a new ID — so every ID token issued before is revoked. The caller
    /// stores the account.
    func endSessions(of account: inout AuthRecords.Account, in records: RecordWriter) throws {
        account.sessionGeneration = account.generation + 1
        let userID = account.user.id
        try AuthRecords.endSessions(of: userID, because: .sessionRevoked, at: context.clock.now, in: records)
        if let session = try records.value(forKey: sessionKey, in: AuthRecords.session), session.userID == userID {
            try records.put(AuthRecords.Session(userID: userID, signInProvider: session.signInProvider), forKey: sessionKey, in: AuthRecords.session)
        }
    }

    /// Forgets the kept token after its session changed, and its renewal; the token stream says nil.
    func dropKeptToken() {
        renewal?.cancel()
        renewal = nil
        guard keptToken != nil else { return }
        keptToken = nil
        tokens.send(nil)
    }

    /// The configured key, or the one kept with the accounts, made the first time.
    private nonisolated func signingKey(in records: RecordWriter) throws -> Data {
        if let key = configuration.tokens.key {
            guard key.count >= 32 else { throw AuthenticationError(.invalidUserToken, detail: "An ID token key needs at least 32 bytes.") }
            return key
        }
        if let key = try records.value(forKey: "signing", in: AuthRecords.tokenKeys), key.count >= 32 { return key }
        let key = Data(try PlatformCrypto.randomBytes(count: 32))
        try records.put(key, forKey: "signing", in: AuthRecords.tokenKeys)
        return key
    }
}

/// The ID token a service keeps while it is fresh.
struct KeptToken {
    let userID: String
    let token: String
    let issuedAt: Date
    let expiresAt: Date
}
