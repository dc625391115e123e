import Foundation
import TrainCore

/// The claims of an OpenID Connect identity token, as Apple and Google issue them.
public struct IdentityTokenClaims: Codable, Hashable, Sendable {
    /// `iss`: who issued the token (`https://appleid.apple.com`, `https://accounts.google.com`).
    public var issuer: String
    /// `aud`: the app the token is for (the bundle ID or OAuth client ID).
    public var audience: String
    /// `sub`: the user's stable identifier at the provider.
    public var subject: String
    /// `iat`: when the token was issued.
    public var issuedAt: Date
    /// `exp`: when the token expires.
    public var expiresAt: Date
    /// `nonce`: the SHA-256 (hex) of the raw nonce the app sent with the request.
    public var nonce: String?
    /// `email`: the user's email, possibly an Apple private-relay address.
    public var email: String?
    /// `email_verified`.
    public var emailVerified: Bool?
    /// `is_private_email` (Apple): whether `email` is a private-relay address.
    public var isPrivateEmail: Bool?
    /// `name` (Google): the user's display name.
    public var name: String?

    /// Creates claims.
    /// - Parameters:
    ///   - issuer: `iss`.
    ///   - audience: `aud`.
    ///   - subject: `sub`.
    ///   - issuedAt: `iat`.
    ///   - expiresAt: `exp`.
    ///   - nonce: `nonce`.
    ///   - email: `email`.
    ///   - emailVerified: `email_verified`.
    ///   - isPrivateEmail: `is_private_email`.
    ///   - name: `name`.
    public init(
        issuer: String, audience: String, subject: String, issuedAt: Date, expiresAt: Date, nonce: String? = nil,
        email: String? = nil, emailVerified: Bool? = nil, isPrivateEmail: Bool? = nil, name: String? = nil
    ) {
        self.issuer = issuer
        self.audience = audience
        self.subject = subject
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.nonce = nonce
        self.email = email
        self.emailVerified = emailVerified
        self.isPrivateEmail = isPrivateEmail
        self.name = name
    }

    enum CodingKeys: String, CodingKey {
        case issuer = "iss"
        case audience = "aud"
        case subject = "sub"
        case issuedAt = "iat"
        case expiresAt = "exp"
        case nonce, email
        case emailVerified = "email_verified"
        case isPrivateEmail = "is_private_email"
        case name
    }

    /// Decodes claims; dates are NumericDate seconds, and Apple's booleans may come as `"true"` strings.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        issuer = try container.decode(String.self, forKey: .issuer)
        audience = try container.decode(String.self, forKey: .audience)
        subject = try container.decode(String.self, forKey: .subject)
        issuedAt = Date(timeIntervalSince1970: try container.decode(Double.self, forKey: .issuedAt))
        expiresAt = Date(timeIntervalSince1970: try container.decode(Double.self, forKey: .expiresAt))
        nonce = try container.decodeIfPresent(String.self, forKey: .nonce)
        email = try container.decodeIfPresent(String.self, forKey: .email)
        emailVerified = try Self.flexibleBool(container, .emailVerified)
        isPrivateEmail = try Self.flexibleBool(container, .isPrivateEmail)
        name = try container.decodeIfPresent(String.self, forKey: .name)
    }

    /// Encodes claims with NumericDate seconds.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(issuer, forKey: .issuer)
        try container.encode(audience, forKey: .audience)
        try container.encode(subject, forKey: .subject)
        try container.encode(issuedAt.timeIntervalSince1970.rounded(.down), forKey: .issuedAt)
        try container.encode(expiresAt.timeIntervalSince1970.rounded(.down), forKey: .expiresAt)
        try container.encodeIfPresent(nonce, forKey: .nonce)
        try container.encodeIfPresent(email, forKey: .email)
        try container.encodeIfPresent(emailVerified, forKey: .emailVerified)
        try container.encodeIfPresent(isPrivateEmail, forKey: .isPrivateEmail)
        try container.encodeIfPresent(name, forKey: .name)
    }

    private static func flexibleBool(_ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> Bool? {
        if let value = try? container.decodeIfPresent(Bool.self, forKey: key) { return value }
        guard let text = try container.decodeIfPresent(String.self, forKey: key) else { return nil }
        return text == "true"
    }
}

/// Reading and minting JWT-shaped identity tokens (`header.payload.signature`, base64url).
public enum IdentityToken {
    /// Decodes the claims of a token without checking what they say.
    /// - Parameter token: The compact JWT.
    /// - Returns: The claims.
    /// - Throws: ``TrainCore/TrainErrorCode/invalidCredential`` when the token does not have three
    ///   parts, a part is not base64url, or the header or payload is not the expected JSON.
    public static func claims(of token: String) throws(AuthenticationError) -> IdentityTokenClaims {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }) else {
            throw AuthenticationError(.invalidCredential, detail: "The identity token does not have three parts.")
        }
        guard let header = Base64URL.decode(String(parts[0])), let payload = Base64URL.decode(String(parts[1])),
            Base64URL.decode(String(parts[2])) != nil
        else {
            throw AuthenticationError(.invalidCredential, detail: "The identity token is not base64url.")
        }
        guard let headerFields = try? JSONSerialization.jsonObject(with: header) as? [String: Any], headerFields["alg"] is String else {
            throw AuthenticationError(.invalidCredential, detail: "The identity token's header is not a JWT header.")
        }
        do {
            return try JSONDecoder().decode(IdentityTokenClaims.self, from: payload)
        } catch {
            throw AuthenticationError(.invalidCredential, detail: "The identity token's payload is not valid claims JSON.")
        }
    }

    /// Mints a token signed with HMAC-SHA256 (`alg: HS256`), as the simulated providers do.
    /// - Parameters:
    ///   - claims: The claims.
    ///   - key: The signing key.
    ///   - keyID: The `kid` header.
    /// - Returns: The compact JWT.
    /// - Throws: ``TrainCore/TrainErrorCode/invalidCredential`` if the platform's library cannot sign it.
    public static func mint(_ claims: IdentityTokenClaims, key: [UInt8], keyID: String = "simulated") throws(AuthenticationError) -> String {
        do {
            return try CompactJWS.sign(claims, header: #"{"alg":"HS256","kid":"\#(keyID)","typ":"JWT"}"#, key: key)
        } catch {
            throw AuthenticationError(.invalidCredential, detail: "The token could not be signed: \(error.detail)")
        }
    }

}
