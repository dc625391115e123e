import Foundation

/// What an app asks a provider for: the SHA-256 of a fresh raw nonce, and the scopes.
public struct AuthorizationRequest: Hashable, Sendable {
    /// Data the app asks the user to share.
    public enum Scope: String, Hashable, Sendable, CaseIterable {
        /// The user's name.
        case fullName
        /// The user's email address.
        case email
    }

    /// The SHA-256 (hex) of the raw nonce; the provider puts it in the identity token.
    public var hashedNonce: String
    /// The scopes requested.
    public var requestedScopes: Set<Scope>

    /// Creates a request.
    /// - Parameters:
    ///   - hashedNonce: The SHA-256 (hex) of the raw nonce.
    ///   - requestedScopes: The scopes requested; name and email by default.
    public init(hashedNonce: String, requestedScopes: Set<Scope> = [.fullName, .email]) {
        self.hashedNonce = hashedNonce
        self.requestedScopes = requestedScopes
    }
}

/// What a provider returns after the user authorizes the app (Apple's
/// `ASAuthorizationAppleIDCredential`, or Google's sign-in result).
public struct IdentityCredential: Hashable, Sendable {
    /// The provider that issued the credential: `.apple` or `.google`.
    public var provider: AuthProvider
    /// The user's stable identifier at the provider (the token's `sub`).
    public var user: String
    /// The JWT identity token.
    public var identityToken: String
    /// A short-lived, single-use authorization code (Apple uses it to revoke tokens).
    public var authorizationCode: String?
    /// The user's name: Apple sends it on the first authorization only.
    public var fullName: FullName?
    /// The user's email: Apple sends it on the first authorization only.
    public var email: String?

    /// Creates a credential.
    /// - Parameters:
    ///   - provider: The issuing provider.
    ///   - user: The user's identifier at the provider.
    ///   - identityToken: The JWT identity token.
    ///   - authorizationCode: The single-use authorization code.
    ///   - fullName: The name, when shared.
    ///   - email: The email, when shared.
    public init(
        provider: AuthProvider, user: String, identityToken: String, authorizationCode: String? = nil,
        fullName: FullName? = nil, email: String? = nil
    ) {
        self.provider = provider
        self.user = user
        self.identityToken = identityToken
        self.authorizationCode = authorizationCode
        self.fullName = fullName
        self.email = email
    }
}

/// The seam to an identity provider's sign-in sheet.
///
/// In an app, a conformance wraps `ASAuthorizationController` (Apple) or
/// `GIDSignIn` (Google); TrainKit ships ``SimulatedIdentityProvider`` for prototypes
/// and tests. A ``LocalAuthService`` creates the nonce, calls ``authorize(_:)``, and
/// verifies what comes back itself.
///
/// ```swift
/// struct AppleAuthorizer: IdentityAuthorizer {
///     let provider = AuthProvider.apple
///     func authorize(_ request: AuthorizationRequest) async throws -> IdentityCredential {
///         // let apple = ASAuthorizationAppleIDProvider().createRequest()
///         // apple.nonce = request.hashedNonce; run ASAuthorizationController; map the credential.
///         throw AuthenticationError(.operationNotAllowed)
///     }
///     func credentialState(forUserID userID: String) async throws -> CredentialState { .authorized }
///     func revokeToken(authorizationCode: String) async throws {}
///     func revocations() -> AsyncStream<String> { AsyncStream { $0.finish() } }
/// }
/// ```
public protocol IdentityAuthorizer: Sendable {
    /// The provider this authorizer signs in with: `.apple` or `.google`.
    var provider: AuthProvider { get }

    /// Presents the provider's sign-in and returns the user's credential.
    /// - Parameter request: The hashed nonce and scopes.
    /// - Returns: The credential, with an identity token carrying `request.hashedNonce`.
    /// - Throws: ``AuthenticationError`` — `cancelled` if the user dismissed the sheet, `networkError`, …
    func authorize(_ request: AuthorizationRequest) async throws -> IdentityCredential

    /// Asks the provider whether the user still authorizes the app.
    /// - Parameter userID: The user's identifier at the provider.
    /// - Returns: The credential state.
    /// - Throws: ``TrainCore/TrainErrorCode/networkError`` when the provider cannot be reached.
    func credentialState(forUserID userID: String) async throws -> CredentialState

    /// Revokes the user's tokens at the provider, as required when an account is deleted.
    /// - Parameter authorizationCode: A fresh, unused authorization code.
    /// - Throws: ``TrainCore/TrainErrorCode/invalidCredential`` for a used or expired code,
    ///   ``TrainCore/TrainErrorCode/networkError``.
    func revokeToken(authorizationCode: String) async throws

    /// The identifiers of users who revoked the app's authorization, as it happens
    /// (Apple's `credentialRevokedNotification`).
    /// - Returns: A stream of user identifiers at the provider.
    func revocations() -> AsyncStream<String>
}
