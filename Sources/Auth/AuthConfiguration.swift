import Foundation
import TrainCore

/// The rules of a ``LocalAuthService``, each a value an app or a test can change.
public struct AuthPolicy: Sendable {
    /// How old the last sign-in may be for delete account, unlink and email change.
    /// Exactly this old is still fresh.
    public var recentLoginWindow: Duration
    /// PBKDF2 iterations for new password hashes.
    public var passwordIterations: Int
    /// The minimum password length.
    public var minimumPasswordLength: Int
    /// Test phone numbers (E.164) and their fixed codes; no SMS is sent to them. None
    /// by default: anyone who knows a test number's code can sign in as it.
    public var testPhoneNumbers: [String: String]
    /// How long before a code can be sent to the same number again.
    public var codeResendCooldown: Duration
    /// Wrong codes allowed per phone number, across all its verifications, before the
    /// number is refused with `tooManyRequests` for ``phoneNumberLockout``; and per
    /// mailed sign-in code, which is then dead: a new code starts afresh, so a stranger's
    /// guesses keep the owner out only until a new code is sent. Sends per address are
    /// bounded by ``emailsPerAddressPerHour``, so an address takes at most the product of
    /// the two wrong codes an hour.
    public var maxCodeAttempts: Int
    /// How long a verification code stays valid.
    public var codeLifetime: Duration
    /// How long a number that reached ``maxCodeAttempts`` wrong codes is refused, from
    /// its last wrong code; a correct code before then starts the count again.
    public var phoneNumberLockout: Duration
    /// How long an Apple authorization code can revoke tokens: Apple's is five
    /// minutes. Deleting an Apple account with an older code (or none, after a
    /// relaunch) asks for re-authentication with Apple.
    public var appleAuthorizationCodeLifetime: Duration
    /// Whether password sign-in answers an unknown address and a wrong password alike,
    /// with `invalidCredential` after the same work, and password resets and email
    /// codes give the same answer whether an address has an account or not — Firebase's
    /// email enumeration protection, on by default as it is for Firebase projects since
    /// September 2023. Off keeps `userNotFound` and `wrongPassword` apart. Creating an
    /// account with an address in use is `emailAlreadyInUse` either way, as in Firebase.
    public var protectsAgainstEnumeration: Bool
    /// How long a code mailed for a password reset, an email verification or an email
    /// sign-in stays valid.
    public var emailCodeLifetime: Duration
    /// How many emails with codes one address may be sent in an hour, across flows;
    /// counted whether or not the address has an account. A notice of an address change
    /// is not counted: it is always sent.
    public var emailsPerAddressPerHour: Int
    /// How long the code in a notice of an address change can change it back: three
    /// days, so an owner who reads the notice the next day still can.
    public var addressRecoveryLifetime: Duration = .seconds(3 * 86_400)
    /// The actions that need a verified email address; none by default.
    public var verifiedEmailRequired: Set<VerifiedEmailAction>
    /// How long a guest account may go unused before it can be purged; nil keeps guests.
    /// A launch that restores its session, signing in as the guest again and a new ID
    /// token count as use.
    public var guestIdleLifetime: Duration?

    /// Creates a policy; the defaults follow Firebase and OWASP.
    /// - Parameters:
    ///   - recentLoginWindow: 300 seconds.
    ///   - passwordIterations: 600,000 (OWASP's figure for PBKDF2-HMAC-SHA256).
    ///   - minimumPasswordLength: 8.
    ///   - testPhoneNumbers: none; ``exampleTestPhoneNumbers`` for prototypes and tests.
    ///   - codeResendCooldown: 60 seconds.
    ///   - maxCodeAttempts: 5 per number.
    ///   - codeLifetime: 10 minutes.
    ///   - phoneNumberLockout: 1 hour.
    ///   - appleAuthorizationCodeLifetime: 5 minutes.
    ///   - protectsAgainstEnumeration: On.
    ///   - emailCodeLifetime: 1 hour, as Firebase's password reset links.
    ///   - emailsPerAddressPerHour: 5.
    ///   - verifiedEmailRequired: No action.
    ///   - guestIdleLifetime: 30 days.
    public init(
        recentLoginWindow: Duration = .seconds(300), passwordIterations: Int = 600_000,
        minimumPasswordLength: Int = 8, testPhoneNumbers: [String: String] = [:],
        codeResendCooldown: Duration = .seconds(60), maxCodeAttempts: Int = 5, codeLifetime: Duration = .seconds(600),
        phoneNumberLockout: Duration = .seconds(3600), appleAuthorizationCodeLifetime: Duration = .seconds(300),
        protectsAgainstEnumeration: Bool = true, emailCodeLifetime: Duration = .seconds(3600), emailsPerAddressPerHour: Int = 5,
        verifiedEmailRequired: Set<VerifiedEmailAction> = [], guestIdleLifetime: Duration? = .seconds(30 * 86_400)
    ) {
        self.recentLoginWindow = recentLoginWindow
        self.passwordIterations = passwordIterations
        self.minimumPasswordLength = minimumPasswordLength
        self.testPhoneNumbers = testPhoneNumbers
        self.codeResendCooldown = codeResendCooldown
        self.maxCodeAttempts = maxCodeAttempts
        self.codeLifetime = codeLifetime
        self.phoneNumberLockout = phoneNumberLockout
        self.appleAuthorizationCodeLifetime = appleAuthorizationCodeLifetime
        self.protectsAgainstEnumeration = protectsAgainstEnumeration
        self.emailCodeLifetime = emailCodeLifetime
        self.emailsPerAddressPerHour = emailsPerAddressPerHour
        self.verifiedEmailRequired = verifiedEmailRequired
        self.guestIdleLifetime = guestIdleLifetime
    }

    /// An example test number, `+1 650-555-1234` with code `123456`, for prototypes
    /// and tests. Never ship it.
    public static let exampleTestPhoneNumbers = ["+16505551234": "123456"]
}

/// An identity provider wired into the service: its authorizer and the audience
/// (`aud`) its tokens must carry — the app's bundle ID or OAuth client ID.
public struct IdentityProviderConfiguration: Sendable {
    /// The authorizer that runs the provider's sign-in.
    public var authorizer: any IdentityAuthorizer
    /// The audience identity tokens must be issued for.
    public var audience: String

    /// Creates a provider configuration.
    /// - Parameters:
    ///   - authorizer: The authorizer.
    ///   - audience: The expected `aud`.
    public init(authorizer: any IdentityAuthorizer, audience: String) {
        self.authorizer = authorizer
        self.audience = audience
    }
}

/// Everything a ``LocalAuthService`` is built from besides its context: providers,
/// senders, tokens, biometrics and policy, each with a default:
///
/// ```swift
/// var configuration = AuthConfiguration(emailSender: SimulatedMailbox())
/// configuration.policy.minimumPasswordLength = 12
/// ```
public struct AuthConfiguration: Sendable {
    /// Sign in with Apple, if offered; nil by default.
    public var apple: IdentityProviderConfiguration?
    /// Google sign-in, if offered; nil by default.
    public var google: IdentityProviderConfiguration?
    /// Delivers SMS codes to numbers that are not test numbers; nil allows test numbers only.
    public var codeSender: (any VerificationCodeSender)?
    /// Delivers password reset, verification and sign-in emails; nil turns the email flows off.
    public var emailSender: (any EmailSender)?
    /// How ID tokens for a backend are signed and who they are for.
    public var tokens = IDTokenConfiguration()
    /// The device's biometrics; none by default.
    public var biometrics: any BiometricAuthenticator = NoBiometricAuthenticator()
    /// The rules.
    public var policy = AuthPolicy()
    /// The clock and IDs given to the deprecated initializer, which override the context's.
    package var legacy = LegacyContext()

    /// The clock given to the deprecated initializer, or the system's.
    @available(*, deprecated, message: "Pass the clock in the service's context.")
    public var clock: any DateClock {
        get { legacy.clock ?? SystemClock() }
        set { legacy.clock = newValue }
    }
    /// The ID generator given to the deprecated initializer, or random IDs.
    @available(*, deprecated, message: "Pass the ID generator in the service's context.")
    public var ids: any IDGenerator {
        get { legacy.ids ?? RandomIDGenerator() }
        set { legacy.ids = newValue }
    }

    /// Creates a configuration; every part has a default, so `AuthConfiguration()` is
    /// no identity provider, no senders, the default token issuer, no biometrics and the
    /// default policy.
    /// - Parameters:
    ///   - apple: Sign in with Apple, if offered.
    ///   - google: Google sign-in, if offered.
    ///   - codeSender: The SMS sender for real numbers.
    ///   - emailSender: The email sender; a ``SimulatedMailbox`` in prototypes and tests.
    ///   - tokens: The ID token issuer, audience and key.
    ///   - biometrics: The device's biometrics; none by default.
    ///   - policy: The rules.
    public init(
        apple: IdentityProviderConfiguration? = nil, google: IdentityProviderConfiguration? = nil,
        codeSender: (any VerificationCodeSender)? = nil, emailSender: (any EmailSender)? = nil,
        tokens: IDTokenConfiguration = IDTokenConfiguration(), biometrics: any BiometricAuthenticator = NoBiometricAuthenticator(),
        policy: AuthPolicy = AuthPolicy()
    ) {
        self.apple = apple
        self.google = google
        self.codeSender = codeSender
        self.emailSender = emailSender
        self.tokens = tokens
        self.biometrics = biometrics
        self.policy = policy
    }

    /// Creates a configuration with a clock and IDs of its own.
    /// - Parameters:
    ///   - clock: The clock, in place of the context's.
    ///   - ids: The ID generator, in place of the context's.
    ///   - apple: Sign in with Apple, if offered.
    ///   - google: Google sign-in, if offered.
    ///   - codeSender: The SMS sender for real numbers.
    ///   - emailSender: The email sender; a ``SimulatedMailbox`` in prototypes and tests.
    ///   - tokens: The ID token issuer, audience and key.
    ///   - biometrics: The device's biometrics; none by default.
    ///   - policy: The rules.
    @_disfavoredOverload
    @available(*, deprecated, message: "Pass the clock and IDs in the service's context.")
    public init(
        clock: (any DateClock)? = nil, ids: (any IDGenerator)? = nil,
        apple: IdentityProviderConfiguration? = nil, google: IdentityProviderConfiguration? = nil,
        codeSender: (any VerificationCodeSender)? = nil, emailSender: (any EmailSender)? = nil,
        tokens: IDTokenConfiguration = IDTokenConfiguration(), biometrics: any BiometricAuthenticator = NoBiometricAuthenticator(),
        policy: AuthPolicy = AuthPolicy()
    ) {
        self.init(
            apple: apple, google: google, codeSender: codeSender, emailSender: emailSender, tokens: tokens, biometrics: biometrics, policy: policy)
        self.legacy = LegacyContext(clock: clock, ids: ids)
    }

    func provider(_ provider: AuthProvider) -> IdentityProviderConfiguration? {
        switch provider {
        case .apple: apple
        case .google: google
        case .password, .phone, .emailCode: nil
        }
    }
}
