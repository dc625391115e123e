import Foundation
import TrainCore

/// Who ID tokens are issued by and for, and the key that signs them.
///
/// Tokens are signed with HMAC-SHA256 (`HS256`) through the platform's crypto
/// (CommonCrypto, libcrypto on Linux): the same key signs and verifies, as Supabase
/// signs its access tokens with the project's JWT secret. ES256 would let a backend
/// verify without holding the signing key, but needs elliptic-curve keys that
/// CommonCrypto does not offer, and TrainKit uses no other library.
public struct IDTokenConfiguration: Sendable {
    /// `iss`: who issues the tokens.
    public var issuer: String
    /// `aud`: the backend the tokens are for.
    public var audience: String
    /// The signing key, at least 32 bytes; nil makes one the first time and keeps it
    /// with the accounts, so every service on the same store signs alike.
    public var key: Data?

    /// Creates a configuration.
    /// - Parameters:
    ///   - issuer: `iss`; `https://auth.trainkit.local` by default.
    ///   - audience: `aud`; `trainkit` by default.
    ///   - key: The signing key; nil to make one and keep it with the accounts.
    public init(issuer: String = "https://auth.trainkit.local", audience: String = "trainkit", key: Data? = nil) {
        self.issuer = issuer
        self.audience = audience
        self.key = key
    }
}

/// What an ID token says about its user, as a backend reads it after ``IDTokenVerifier/verify(_:)``.
public struct IDTokenClaims: Codable, Hashable, Sendable {
    /// `iss`: who issued the token.
    public var issuer: String
    /// `aud`: the backend it is for.
    public var audience: String
    /// `sub`: the user's ID.
    public var userID: String
    /// `providers`: the provider IDs the account can sign in with (empty for a guest).
    public var providers: [String]
    /// `auth_time`: when the user last signed in or re-authenticated.
    public var authTime: Date
    /// `iat`: when the token was issued.
    public var issuedAt: Date
    /// `exp`: when it expires, an hour after it was issued.
    public var expiresAt: Date
    /// `sid`: the session it was issued to; signing that session out revokes it.
    public var sessionID: String
    /// `email`, if the account has one.
    public var email: String?
    /// `email_verified`.
    public var emailVerified: Bool
    /// `jti`: this token's own ID, so no two tokens are alike.
    public var tokenID: String
    /// `firebase.sign_in_provider`: how the user signed in to the session — an
    /// ``AuthProvider`` raw value (`apple.com`, `google.com`, `password`, `phone`,
    /// `emailCode`) or `anonymous` for a guest; nil in a session begun before TrainKit
    /// kept it. Firebase's names are the same, but for Firebase's email link, whose
    /// counterpart here is `emailCode`.
    public var signInProvider: String?
    /// `firebase.identities`: the account's linked identities by provider — `email`
    /// (the addresses of a password or an email code), `phone`, `apple.com` and
    /// `google.com` (their subjects) — as Firebase lists them.
    public var identities: [String: [String]]

    enum CodingKeys: String, CodingKey {
        case issuer = "iss"
        case audience = "aud"
        case userID = "sub"
        case providers
        case authTime = "auth_time"
        case issuedAt = "iat"
        case expiresAt = "exp"
        case sessionID = "sid"
        case email
        case emailVerified = "email_verified"
        case tokenID = "jti"
        case firebase
    }

    /// The keys inside the `firebase` claim.
    enum FirebaseKeys: String, CodingKey {
        case signInProvider = "sign_in_provider"
        case identities
    }

    /// Creates claims.
    /// - Parameters:
    ///   - issuer: `iss`.
    ///   - audience: `aud`.
    ///   - userID: `sub`.
    ///   - providers: The provider IDs.
    ///   - authTime: `auth_time`.
    ///   - issuedAt: `iat`.
    ///   - expiresAt: `exp`.
    ///   - sessionID: `sid`.
    ///   - email: `email`.
    ///   - emailVerified: `email_verified`.
    ///   - tokenID: `jti`; a new UUID by default.
    ///   - signInProvider: `firebase.sign_in_provider`; nil by default.
    ///   - identities: `firebase.identities`; none by default.
    public init(
        issuer: String, audience: String, userID: String, providers: [String], authTime: Date, issuedAt: Date, expiresAt: Date,
        sessionID: String, email: String? = nil, emailVerified: Bool = false, tokenID: String = UUID().uuidString,
        signInProvider: String? = nil, identities: [String: [String]] = [:]
    ) {
        self.issuer = issuer
        self.audience = audience
        self.userID = userID
        self.providers = providers
        self.authTime = authTime
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.sessionID = sessionID
        self.email = email
        self.emailVerified = emailVerified
        self.tokenID = tokenID
        self.signInProvider = signInProvider
        self.identities = identities
    }

    /// Decodes claims whose dates are NumericDate seconds.
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError` for a missing or mistyped claim.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        issuer = try container.decode(String.self, forKey: .issuer)
        audience = try container.decode(String.self, forKey: .audience)
        userID = try container.decode(String.self, forKey: .userID)
        providers = try container.decode([String].self, forKey: .providers)
        authTime = Date(timeIntervalSince1970: try container.decode(Double.self, forKey: .authTime))
        issuedAt = Date(timeIntervalSince1970: try container.decode(Double.self, forKey: .issuedAt))
        expiresAt = Date(timeIntervalSince1970: try container.decode(Double.self, forKey: .expiresAt))
        sessionID = try container.decode(String.self, forKey: .sessionID)
        email = try container.decodeIfPresent(String.self, forKey: .email)
        emailVerified = try container.decode(Bool.self, forKey: .emailVerified)
        tokenID = try container.decode(String.self, forKey: .tokenID)
        // A token issued before the claim was added has none.
        let firebase = try container.contains(.firebase) ? container.nestedContainer(keyedBy: FirebaseKeys.self, forKey: .firebase) : nil
        signInProvider = try firebase?.decodeIfPresent(String.self, forKey: .signInProvider)
        identities = try firebase?.decodeIfPresent([String: [String]].self, forKey: .identities) ?? [:]
    }

    /// Encodes claims with NumericDate seconds.
    /// - Parameter encoder: The encoder.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(issuer, forKey: .issuer)
        try container.encode(audience, forKey: .audience)
        try container.encode(userID, forKey: .userID)
        try container.encode(providers, forKey: .providers)
        try container.encode(authTime.timeIntervalSince1970.rounded(.down), forKey: .authTime)
        try container.encode(issuedAt.timeIntervalSince1970.rounded(.down), forKey: .issuedAt)
        try container.encode(expiresAt.timeIntervalSince1970.rounded(.down), forKey: .expiresAt)
        try container.encode(sessionID, forKey: .sessionID)
        try container.encodeIfPresent(email, forKey: .email)
        try container.encode(emailVerified, forKey: .emailVerified)
        try container.encode(tokenID, forKey: .tokenID)
        var firebase = container.nestedContainer(keyedBy: FirebaseKeys.self, forKey: .firebase)
        try firebase.encodeIfPresent(signInProvider, forKey: .signInProvider)
        try firebase.encode(identities, forKey: .identities)
    }
}

extension UserEntity {
    /// How a session begun for this user without a sign-in (a preview, a simulated
    /// device) says it signed in: its first linked provider, or `anonymous`.
    var signInProvider: String { providers.first?.provider.rawValue ?? "anonymous" }

    /// The account's linked identities as Firebase's `firebase.identities` lists them.
    var tokenIdentities: [String: [String]] {
        var identities: [String: [String]] = [:]
        for linked in providers {
            let key = [.password, .emailCode].contains(linked.provider) ? "email" : linked.provider.rawValue
            if identities[key]?.contains(linked.subject) != true { identities[key, default: []].append(linked.subject) }
        }
        return identities
    }
}

/// Answers whether a token whose signature and dates are good was revoked since: its
/// session signed out, its account's password changed or reset, or the account
/// deleted or disabled. `LocalAuthService` answers for its accounts.
public protocol IDTokenRevocationChecking: Sendable {
    /// Whether the token with `claims` is revoked.
    /// - Parameter claims: The claims of a token whose signature is good.
    /// - Returns: True if it may no longer be honoured.
    /// - Throws: ``TrainCore/TrainErrorCode/storage`` if the accounts cannot be read.
    func isRevoked(_ claims: IDTokenClaims) throws -> Bool
}

/// Checks an ID token the way a backend does before trusting who calls it: the
/// algorithm, the signature, the issuer and audience, the dates on its clock, and,
/// when it has one, revocation.
///
/// ```swift
/// let verifier = try auth.tokenVerifier()
/// let claims = try verifier.verify(request.bearerToken)   // who is calling
/// ```
public struct IDTokenVerifier: Sendable {
    private let key: Data
    private let issuer: String
    private let audience: String
    private let clock: any DateClock
    private let revocations: (any IDTokenRevocationChecking)?

    /// Creates a verifier.
    /// - Parameters:
    ///   - key: The HS256 key the tokens are signed with.
    ///   - issuer: The `iss` to accept.
    ///   - audience: The `aud` to accept.
    ///   - clock: The clock expiry is read on.
    ///   - revocations: What says whether a token was revoked; nil checks no revocation.
    public init(key: Data, issuer: String, audience: String, clock: any DateClock, revocations: (any IDTokenRevocationChecking)? = nil) {
        self.key = key
        self.issuer = issuer
        self.audience = audience
        self.clock = clock
        self.revocations = revocations
    }

    /// Verifies a token and returns its claims.
    /// - Parameter token: The compact JWT.
    /// - Returns: The claims.
    /// - Throws: ``AuthenticationError`` — `invalidUserToken` for a token that is not
    ///   three base64url parts, names an algorithm other than HS256, has a signature
    ///   that does not match, another issuer or audience, or is dated after now;
    ///   `userTokenExpired` from its expiry on; `userTokenRevoked` once revoked; `storage`.
    public func verify(_ token: String) throws(AuthenticationError) -> IDTokenClaims {
        let payload: Data
        do {
            payload = try CompactJWS.verifiedPayload(of: token, key: key, maximumLength: 16_384)
        } catch let error where error.code == .invalidArgument {
            throw AuthenticationError(.invalidUserToken, detail: error.detail)
        } catch {
            throw AuthenticationError(.storage, detail: "The signature could not be computed: \(error.detail)")
        }
        guard let claims = try? JSONDecoder().decode(IDTokenClaims.self, from: payload) else {
            throw AuthenticationError(.invalidUserToken, detail: "The token's payload is not ID token claims.")
        }
        guard claims.issuer == issuer, claims.audience == audience else {
            throw AuthenticationError(.invalidUserToken, detail: "The token was issued by or for someone else.")
        }
        let now = clock.now
        guard claims.issuedAt <= now else {
            throw AuthenticationError(.invalidUserToken, detail: "The token is dated after now.")
        }
        guard now < claims.expiresAt else { throw AuthenticationError(.userTokenExpired) }
        if let revocations {
            let revoked: Bool
            do {
                revoked = try revocations.isRevoked(claims)
            } catch {
                throw error as? AuthenticationError ?? AuthenticationError(.storage, detail: "\(type(of: error))")
            }
            if revoked { throw AuthenticationError(.userTokenRevoked) }
        }
        return claims
    }

    /// Signs `claims` as a token this verifier accepts while they are current.
    static func sign(_ claims: IDTokenClaims, key: Data) throws(AuthenticationError) -> String {
        do {
            return try CompactJWS.sign(claims, key: key)
        } catch {
            throw AuthenticationError(.storage, detail: "The token could not be signed: \(error.detail)")
        }
    }
}
