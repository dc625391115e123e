import Foundation
import TrainCore

/// A credential whose checks passed: who it names, what it carries, and what must be
/// recorded as used once the operation it serves commits.
struct VerifiedCredential {
    var provider: AuthProvider
    var subject: String
    var email: String?
    var isPrivateEmail = false
    var fullName: FullName?
    var password: String?
    var usedKeys: [(key: String, expiresAt: Date)] = []
    var phoneVerificationID: String?
    var authorizationCode: String?
    /// An email sign-in code's pending entry and the hash it matched, used up by ``LocalAuthService/consume(_:for:in:)``.
    var emailCode: (key: String, hash: String)?

    var identityKey: String { AuthRecords.identityKey(provider, subject) }
}

extension LocalAuthService {
    /// Checks a credential without changing anything but a phone verification's
    /// wrong-attempt count.
    func verify(_ credential: SignInCredential) throws(AuthenticationError) -> VerifiedCredential {
        switch credential {
        case .identity(let identity, let rawNonce):
            return try verifyIdentity(identity, rawNonce: rawNonce)
        case .emailPassword(let email, let password):
            let address = try Credentials.normalizedEmail(email)
            guard !password.isEmpty else { throw passwordRefusal(.wrongPassword) }
            // No stored password is longer (creating one refuses it), so a longer one is wrong without hashing it.
            guard password.utf8.count <= Credentials.maximumPasswordBytes else {
                throw passwordRefusal(.wrongPassword)
            }
            return VerifiedCredential(provider: .password, subject: address, email: address, password: password)
        case .phone(let verificationID, let code):
            let number = try checkPhoneCode(verificationID: verificationID, code: code)
            return VerifiedCredential(provider: .phone, subject: number, phoneVerificationID: verificationID)
        case .emailCode(let email, let code):
            return try verifyEmailCode(email: email, code: code)
        }
    }

    private func verifyIdentity(_ identity: IdentityCredential, rawNonce: String) throws(AuthenticationError) -> VerifiedCredential {
        guard identity.provider == .apple || identity.provider == .google, let configured = configuration.provider(identity.provider) else {
            throw AuthenticationError(.operationNotAllowed, detail: "\(identity.provider.rawValue) is not configured for this service.")
        }
        let claims = try IdentityToken.claims(of: identity.identityToken)
        let issuer = identity.provider == .apple ? "https://appleid.apple.com" : "https://accounts.google.com"
        guard claims.issuer == issuer else {
            throw AuthenticationError(.invalidCredential, detail: "The identity token was issued by another provider.")
        }
        guard claims.audience == configured.audience else {
            throw AuthenticationError(.invalidCredential, detail: "The identity token was issued for another app (wrong audience).")
        }
        guard context.clock.now <= claims.expiresAt else {
            throw AuthenticationError(.invalidCredential, detail: "The identity token has expired.")
        }
        guard identity.user.isEmpty || identity.user == claims.subject else {
            throw AuthenticationError(.invalidCredential, detail: "The credential's user does not match its identity token.")
        }
        guard let nonce = claims.nonce, !rawNonce.isEmpty,
            nonce == (try Credentials.sha256Hex(rawNonce))
        else {
            throw AuthenticationError(.missingOrInvalidNonce, detail: "The token's nonce is missing or is not the SHA-256 of the raw nonce.")
        }
        let tokenKey = "token:" + (try Credentials.sha256Hex(identity.identityToken))
        let nonceKey = "nonce:" + nonce
        let (tokenUsed, nonceUsed) = try read { records in
            (
                try records.data(forKey: tokenKey, in: AuthRecords.usedCredentials) != nil,
                try records.data(forKey: nonceKey, in: AuthRecords.usedCredentials) != nil
            )
        }
        guard !tokenUsed else { throw AuthenticationError(.invalidCredential, detail: "The identity token was already used.") }
        guard !nonceUsed else { throw AuthenticationError(.missingOrInvalidNonce, detail: "The nonce was already used.") }
        // The provider's address in its one spelling; one the address rules refuse is not kept.
        let email = (claims.email ?? identity.email).flatMap { try? Credentials.normalizedEmail($0) }
        return VerifiedCredential(
            provider: identity.provider, subject: claims.subject, email: email,
            isPrivateEmail: claims.isPrivateEmail ?? email?.hasSuffix("@privaterelay.appleid.com") ?? false,
            fullName: identity.fullName ?? claims.name.map { FullName(givenName: $0) },
            usedKeys: [(tokenKey, claims.expiresAt), (nonceKey, claims.expiresAt)],
            authorizationCode: identity.authorizationCode)
    }

    /// The account a verified credential names, if there is one. An email code names
    /// the account that answers to its address, whatever its providers — unless that
    /// account never proved the address and has another way in (see
    /// ``AuthRecords/yields(_:to:in:now:)``): then none.
    func account(for verified: VerifiedCredential, in records: RecordReader) throws -> AuthRecords.Account? {
        guard verified.provider == .emailCode else {
            guard let userID = try records.value(forKey: verified.identityKey, in: AuthRecords.identities) else { return nil }
            return try records.value(forKey: userID, in: AuthRecords.accounts)
        }
        guard let userID = try records.value(forKey: verified.subject, in: AuthRecords.emails),
            let account = try records.value(forKey: userID, in: AuthRecords.accounts),
            try AuthRecords.yields(verified.subject, to: account, in: records, now: context.clock.now)
        else { return nil }
        return account
    }

    /// The stored password hash of `userID` when `verified` is an email credential, else nil.
    func storedHash(for verified: VerifiedCredential, userID: String, in records: RecordReader) throws -> PasswordHash? {
        guard verified.password != nil else { return nil }
        return try records.value(forKey: userID, in: AuthRecords.passwords)
    }

    /// For an email credential, throws `wrongPassword` (or `invalidCredential`, see
    /// ``passwordRefusal(_:)``) unless its password matches
    /// `stored`, and returns the hash it matched, for the transaction to compare with
    /// what is stored then. Hashing takes a while, so it runs outside any transaction.
    /// Without a stored hash the password is checked against a placeholder all the same,
    /// so the answer takes as long as for a wrong password; a hash made with fewer
    /// iterations than the policy's now (the policy was raised since) is topped up with a
    /// placeholder's, so every answer costs at least the policy's iterations.
    func checkPassword(of verified: VerifiedCredential, against stored: PasswordHash?) throws(AuthenticationError) -> PasswordHash? {
        guard let password = verified.password else { return nil }
        let iterations = configuration.policy.passwordIterations
        let matched = try (stored ?? PasswordHash(placeholderWithIterations: iterations)).matches(password)
        if let stored, stored.iterations < iterations {
            _ = try PasswordHash(placeholderWithIterations: iterations - stored.iterations).matches(password)
        }
        guard let stored, matched else { throw passwordRefusal(.wrongPassword) }
        return stored
    }

    /// The password of `verified` hashed again with the policy's iterations, when the
    /// hash it matched, `checked`, has fewer: a sign-in brings an account's hash up to
    /// the policy, and never down to a lower one (an extension's, say).
    func rehash(_ verified: VerifiedCredential, checked: PasswordHash?) throws(AuthenticationError) -> PasswordHash? {
        let iterations = configuration.policy.passwordIterations
        guard let checked, checked.iterations < iterations, let password = verified.password else { return nil }
        return try PasswordHash(password: password, iterations: iterations)
    }

    /// A new account with `id` for a first sign-in with Apple, Google or a phone number.
    /// Apple, Google and an email code vouch for the address they bring.
    func newUser(from verified: VerifiedCredential, id: String, now: Date) -> UserEntity {
        UserEntity(
            id: id, email: verified.email, isPrivateEmail: verified.isPrivateEmail,
            displayName: verified.fullName?.formatted,
            phoneNumber: verified.provider == .phone ? verified.subject : nil,
            providers: [LinkedProvider(provider: verified.provider, subject: verified.subject, email: verified.email, linkedAt: now)],
            createdAt: now, lastSignInAt: now, isEmailVerified: verified.email != nil)
    }

    /// Records the credential's token and nonce as used, in the operation's transaction.
    /// Inside the operation's transaction: the credential's tokens and nonces are used,
    /// and a new Apple authorization of `userID` makes tokens that a revocation kept
    /// from before does not cover, so that revocation is forgotten.
    /// An email code is used up here; one another call used meanwhile is `invalidActionCode`.
    func consume(_ verified: VerifiedCredential, for userID: String, in records: RecordWriter) throws {
        if let emailCode = verified.emailCode {
            guard let pending = try records.value(forKey: emailCode.key, in: AuthRecords.emailCodes), pending.codeHash == emailCode.hash else {
                throw AuthenticationError(.invalidActionCode, detail: "The sign-in code was used or replaced meanwhile.")
            }
            try AuthRecords.retire(pending, at: emailCode.key, as: .used, now: context.clock.now, in: records)
        }
        for used in verified.usedKeys {
            try records.put(used.expiresAt, forKey: used.key, in: AuthRecords.usedCredentials)
        }
        if verified.provider == .apple, verified.authorizationCode != nil {
            try records.removeValue(forKey: userID, in: AuthRecords.revocations)
        }
    }

    /// After the operation committed: the phone verification is spent, and an Apple
    /// authorization code is kept in memory for revoking tokens at deletion.
    func finish(_ verified: VerifiedCredential, for user: UserEntity) {
        if let id = verified.phoneVerificationID { phoneVerifications.consume(id) }
        if verified.provider == .apple, let code = verified.authorizationCode {
            authorizationCodes[user.id] = (code, context.clock.now)
        }
    }
}
