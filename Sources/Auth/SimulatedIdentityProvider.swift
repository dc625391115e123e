import Foundation
import TrainCore

/// A stand-in for Apple's (or Google's) identity service, for prototypes and tests:
/// it mints JWT-shaped identity tokens and single-use authorization codes on the
/// injected clock, answers credential-state checks, records token revocations and
/// emits revocation events.
///
/// It behaves as Apple's does where it matters to an app: the name and email come
/// with the *first* authorization only (for Google, always); authorization codes
/// expire after five minutes and work once; a user who revokes the app is asked to
/// share name and email again next time.
///
/// ```swift
/// let apple = SimulatedIdentityProvider(provider: .apple, audience: "com.example.train", clock: clock)
/// apple.signIn(as: .init(subject: "001234.abcd", email: "ada@example.com",
///                        fullName: FullName(givenName: "Ada", familyName: "Lovelace")))
/// let auth = LocalAuthService(
///     context: TrainContext(clock: clock), configuration: AuthConfiguration(apple: .init(authorizer: apple, audience: "com.example.train")))
/// let user = try await auth.signInWithApple()
/// ```
public final class SimulatedIdentityProvider: IdentityAuthorizer {
    /// An account at the simulated provider (an Apple ID or a Google account).
    public struct Account: Hashable, Sendable {
        /// The user's stable identifier at the provider (`sub`).
        public var subject: String
        /// The account's real email address.
        public var email: String?
        /// The user's name.
        public var fullName: FullName?
        /// Whether the user chooses "Hide My Email" (Apple): tokens then carry a private-relay address.
        public var hidesEmail: Bool

        /// Creates an account.
        /// - Parameters:
        ///   - subject: The user's identifier at the provider.
        ///   - email: The real email address.
        ///   - fullName: The user's name.
        ///   - hidesEmail: Whether tokens carry a private-relay address instead.
        public init(subject: String, email: String? = nil, fullName: FullName? = nil, hidesEmail: Bool = false) {
            self.subject = subject
            self.email = email
            self.fullName = fullName
            self.hidesEmail = hidesEmail
        }

        /// The address tokens carry: the real one, or a stable private-relay address.
        var sharedEmail: String? {
            guard let email else { return nil }
            guard hidesEmail else { return email }
            // A stable stand-in for Apple's relay name: 64-bit FNV-1a of the address, in hex.
            let hash = email.utf8.reduce(UInt64(0xcbf2_9ce4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01b3 }
            return "\(String(hash, radix: 16).prefix(10))@privaterelay.appleid.com"
        }
    }

    /// A call the provider received, for tests to inspect.
    public enum Call: Hashable, Sendable {
        /// ``authorize(_:)`` with the request's hashed nonce.
        case authorize(hashedNonce: String)
        /// ``credentialState(forUserID:)``.
        case credentialState(userID: String)
        /// ``revokeToken(authorizationCode:)``; the code itself is not kept.
        case revokeToken
    }

    /// A recorded token revocation.
    public struct Revocation: Hashable, Sendable {
        /// The user whose tokens were revoked.
        public let userID: String
        /// When.
        public let date: Date

        /// Creates a record.
        /// - Parameters:
        ///   - userID: The user whose tokens were revoked.
        ///   - date: When.
        public init(userID: String, date: Date) {
            self.userID = userID
            self.date = date
        }
    }

    /// The provider this simulates: `.apple` or `.google`.
    public let provider: AuthProvider
    /// The `aud` of minted tokens: the app's bundle or client ID.
    public let audience: String
    /// The `iss` of minted tokens.
    public let issuer: String
    private let clock: any DateClock
    private let tokenLifetime: TimeInterval
    private let signingKey: [UInt8]
    private let revocationEvents = Broadcast<String?>(initial: nil)

    private struct IssuedCode {
        let userID: String
        let expiresAt: Date
        var used = false
    }

    private struct State {
        var selected: Account?
        var pendingFailure: AuthenticationError?
        var pendingRevocationFailure: AuthenticationError?
        var states: [String: CredentialState] = [:]
        var sharedOnce: Set<String> = []
        var codes: [String: IssuedCode] = [:]
        var calls: [Call] = []
        var revoked: [Revocation] = []
    }

    private let state = Locked(State())

    /// Creates a simulated provider.
    /// - Parameters:
    ///   - provider: `.apple` or `.google`.
    ///   - audience: The app's bundle or client ID, put in `aud`.
    ///   - clock: The clock that stamps and expires tokens and codes.
    ///   - tokenLifetime: How long identity tokens are valid (10 minutes, as Apple's).
    public init(
        provider: AuthProvider = .apple, audience: String, clock: any DateClock = SystemClock(),
        tokenLifetime: Duration = .seconds(600)
    ) {
        self.provider = provider
        self.audience = audience
        self.issuer = provider == .google ? "https://accounts.google.com" : "https://appleid.apple.com"
        self.clock = clock
        self.tokenLifetime = tokenLifetime.timeInterval
        self.signingKey = (try? PlatformCrypto.randomBytes(count: 32)) ?? Array(audience.utf8)
    }

    /// The calls received so far, in order.
    public var calls: [Call] { state.withLock { $0.calls } }

    /// The token revocations received so far.
    public var revocationsRecorded: [Revocation] { state.withLock { $0.revoked } }

    /// Chooses the account the next authorizations sign in with, as a user picking
    /// an Apple ID in the sheet.
    /// - Parameter account: The account.
    public func signIn(as account: Account) {
        state.withLock { state in
            state.selected = account
            if state.states[account.subject] == nil || state.states[account.subject] == .notFound {
                state.states[account.subject] = .authorized
            }
        }
    }

    /// Makes the next ``authorize(_:)`` throw `error` (for example `AuthenticationError(.cancelled)`).
    /// - Parameter error: The error to throw once.
    public func failNextAuthorization(with error: AuthenticationError) {
        state.withLock { $0.pendingFailure = error }
    }

    /// Makes the next ``revokeToken(authorizationCode:)`` throw `error` (for example
    /// `AuthenticationError(.networkError)`, Apple's servers out of reach); the code stays unused.
    /// - Parameter error: The error to throw once.
    public func failNextRevocation(with error: AuthenticationError) {
        state.withLock { $0.pendingRevocationFailure = error }
    }

    /// Sets what ``credentialState(forUserID:)`` answers for a user.
    /// - Parameters:
    ///   - credentialState: The state.
    ///   - userID: The user's identifier at the provider.
    public func setCredentialState(_ credentialState: CredentialState, forUserID userID: String) {
        state.withLock { $0.states[userID] = credentialState }
    }

    /// The user stops using Sign in with Apple for this app (in Settings): the state
    /// becomes `revoked`, a revocation event is emitted, and the next authorization
    /// shares name and email again.
    /// - Parameter userID: The user's identifier at the provider.
    public func revokeAuthorization(forUserID userID: String) {
        state.withLock { state in
            state.states[userID] = .revoked
            state.sharedOnce.remove(userID)
        }
        revocationEvents.send(userID)
    }

    /// Mints a token for `account` as this provider would, for tests that need one
    /// with particular claims (expired, another audience, no nonce).
    /// - Parameters:
    ///   - account: The account.
    ///   - nonce: The `nonce` claim.
    ///   - issuedAt: `iat`; now by default.
    ///   - expiresAt: `exp`; `issuedAt` plus the token lifetime by default.
    ///   - audience: `aud`; the provider's audience by default.
    /// - Returns: The compact JWT.
    /// - Throws: ``TrainCore/TrainErrorCode/invalidCredential`` if the token cannot be signed.
    public func mintToken(
        for account: Account, nonce: String?, issuedAt: Date? = nil, expiresAt: Date? = nil,
        audience: String? = nil
    ) throws(AuthenticationError) -> String {
        let issued = issuedAt ?? clock.now
        let claims = IdentityTokenClaims(
            issuer: issuer, audience: audience ?? self.audience, subject: account.subject, issuedAt: issued,
            expiresAt: expiresAt ?? issued.addingTimeInterval(tokenLifetime), nonce: nonce, email: account.sharedEmail,
            emailVerified: account.email == nil ? nil : true,
            isPrivateEmail: provider == .apple && account.email != nil ? account.hidesEmail : nil,
            name: provider == .google ? account.fullName?.formatted : nil)
        return try IdentityToken.mint(claims, key: signingKey)
    }

    /// Signs in the selected account and returns its credential.
    /// - Parameter request: The hashed nonce and scopes.
    /// - Returns: A credential whose token carries `request.hashedNonce`.
    /// - Throws: The error set by ``failNextAuthorization(with:)``, or
    ///   ``TrainCore/TrainErrorCode/cancelled`` when no account was chosen with ``signIn(as:)``.
    public func authorize(_ request: AuthorizationRequest) async throws -> IdentityCredential {
        let now = clock.now
        let outcome: Result<(Account, Bool, String), AuthenticationError> = state.withLock { state in
            state.calls.append(.authorize(hashedNonce: request.hashedNonce))
            if let failure = state.pendingFailure {
                state.pendingFailure = nil
                return .failure(failure)
            }
            guard let account = state.selected else {
                return .failure(AuthenticationError(.cancelled, detail: "No account is signed in on the simulated provider; call signIn(as:)."))
            }
            let firstTime = !state.sharedOnce.contains(account.subject)
            return .success((account, firstTime, Self.authorize(account, now: now, in: &state)))
        }
        let (account, firstTime, code) = try outcome.get()
        let sharesProfile = provider == .google || firstTime
        return IdentityCredential(
            provider: provider, user: account.subject,
            identityToken: try mintToken(for: account, nonce: request.hashedNonce, issuedAt: now),
            authorizationCode: code,
            fullName: sharesProfile && request.requestedScopes.contains(.fullName) ? account.fullName : nil,
            email: sharesProfile && request.requestedScopes.contains(.email) ? account.sharedEmail : nil)
    }

    /// Chooses `account` as ``signIn(as:)`` does and returns the authorization code of a
    /// sign-in made just now: a stack that starts with its user signed in keeps it, so
    /// deleting that user revokes their token as after a sign-in in the app.
    package func authorizationCode(signingIn account: Account) -> String {
        let now = clock.now
        return state.withLock { state in
            state.selected = account
            return Self.authorize(account, now: now, in: &state)
        }
    }

    /// Marks `account` authorized, its profile shared, and issues a code valid five minutes.
    private static func authorize(_ account: Account, now: Date, in state: inout State) -> String {
        state.sharedOnce.insert(account.subject)
        state.states[account.subject] = .authorized
        let code = "c" + (randomCode() ?? UUID().uuidString)
        state.codes[code] = IssuedCode(userID: account.subject, expiresAt: now.addingTimeInterval(300))
        return code
    }

    /// Answers the state set for the user: `authorized` after a sign-in, `notFound` for a stranger.
    /// - Parameter userID: The user's identifier at the provider.
    /// - Returns: The credential state.
    public func credentialState(forUserID userID: String) async throws -> CredentialState {
        state.withLock { state in
            state.calls.append(.credentialState(userID: userID))
            return state.states[userID] ?? .notFound
        }
    }

    /// Revokes the tokens of the code's user and records it.
    /// - Parameter authorizationCode: A code from ``authorize(_:)``, unused and younger than five minutes.
    /// - Throws: ``TrainCore/TrainErrorCode/invalidCredential`` for an unknown, used or expired code,
    ///   or the error set by ``failNextRevocation(with:)``.
    public func revokeToken(authorizationCode: String) async throws {
        let now = clock.now
        try state.withLock { state throws(AuthenticationError) in
            state.calls.append(.revokeToken)
            if let failure = state.pendingRevocationFailure {
                state.pendingRevocationFailure = nil
                throw failure
            }
            guard var issued = state.codes[authorizationCode] else {
                throw AuthenticationError(.invalidCredential, detail: "The authorization code is unknown.")
            }
            guard !issued.used else { throw AuthenticationError(.invalidCredential, detail: "The authorization code was already used.") }
            guard now <= issued.expiresAt else { throw AuthenticationError(.invalidCredential, detail: "The authorization code expired.") }
            issued.used = true
            state.codes[authorizationCode] = issued
            state.revoked.append(Revocation(userID: issued.userID, date: now))
            state.states[issued.userID] = .revoked
            state.sharedOnce.remove(issued.userID)
        }
    }

    /// Revocation events emitted by ``revokeAuthorization(forUserID:)`` from now on.
    /// - Returns: A stream of user identifiers.
    public func revocations() -> AsyncStream<String> {
        revocationEvents.events()
    }

    private static func randomCode() -> String? {
        try? Nonce.random(length: 24)
    }
}
