import Foundation

/// A way of signing in, named as Firebase names its provider IDs.
public enum AuthProvider: String, Codable, Hashable, Sendable, CaseIterable {
    /// Sign in with Apple.
    case apple = "apple.com"
    /// Google sign-in (OpenID Connect).
    case google = "google.com"
    /// Email address and password.
    case password = "password"
    /// Phone number with a 6-digit SMS code.
    case phone = "phone"
    /// A one-time code sent to the account's email address (Firebase's email-link
    /// sign-in, with a code to type instead of a link to tap).
    case emailCode = "emailCode"
}

/// A provider linked to an account, with the identity it knows the user by.
public struct LinkedProvider: Codable, Hashable, Sendable {
    /// The provider.
    public var provider: AuthProvider
    /// The user's identifier at that provider: Apple's or Google's `sub`, the email
    /// address, or the phone number in E.164 form.
    public var subject: String
    /// The email address the provider reported, if any.
    public var email: String?
    /// When the provider was linked.
    public var linkedAt: Date

    /// Creates a linked provider.
    /// - Parameters:
    ///   - provider: The provider.
    ///   - subject: The user's identifier at that provider.
    ///   - email: The email address the provider reported.
    ///   - linkedAt: When it was linked.
    public init(provider: AuthProvider, subject: String, email: String? = nil, linkedAt: Date) {
        self.provider = provider
        self.subject = subject
        self.email = email
        self.linkedAt = linkedAt
    }
}

/// A person's name as Sign in with Apple delivers it, on the first authorization only.
public struct FullName: Codable, Hashable, Sendable {
    /// The given (first) name.
    public var givenName: String?
    /// The family (last) name.
    public var familyName: String?

    /// Creates a name.
    /// - Parameters:
    ///   - givenName: The given name.
    ///   - familyName: The family name.
    public init(givenName: String? = nil, familyName: String? = nil) {
        self.givenName = givenName
        self.familyName = familyName
    }

    /// The parts that are present, joined by a space, or nil when there are none.
    public var formatted: String? {
        let parts = [givenName, familyName].compactMap { $0?.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }
}

/// A signed-in user. The subscription tier is not stored
/// here: it is read from the subscription service.
public struct UserEntity: Codable, Hashable, Sendable, Identifiable {
    /// The account's stable identifier (Firebase's UID).
    public let id: String
    /// The email address, which may be an Apple private-relay address; nil for a
    /// phone-only account.
    public var email: String?
    /// Whether ``email`` is an Apple private-relay address.
    public var isPrivateEmail: Bool
    /// The name to show, if the user gave one.
    public var displayName: String?
    /// The phone number in E.164 form, for accounts with a phone provider.
    public var phoneNumber: String?
    /// The providers the user can sign in with.
    public var providers: [LinkedProvider]
    /// When the account was created.
    public var createdAt: Date
    /// When the user last signed in or re-authenticated.
    public var lastSignInAt: Date
    /// Whether the user proved they receive mail at ``email``: through an email
    /// verification, a password reset or an email code, or because Apple or Google
    /// vouched for it. Changing the address makes it false again.
    public var isEmailVerified: Bool
    /// Whether this is a guest account from ``AuthSignIn/signInAnonymously()``, with
    /// no way to sign in yet. Linking any provider makes it a full account, same ID.
    public var isAnonymous: Bool
    /// The profile photo, if the user set one.
    public var photoURL: URL?

    /// Creates a user.
    /// - Parameters:
    ///   - id: The account's identifier.
    ///   - email: The email address.
    ///   - isPrivateEmail: Whether the email is a private-relay address.
    ///   - displayName: The name to show.
    ///   - phoneNumber: The phone number in E.164 form.
    ///   - providers: The linked providers.
    ///   - createdAt: When the account was created.
    ///   - lastSignInAt: When the user last signed in.
    ///   - isEmailVerified: Whether the email address is verified.
    ///   - isAnonymous: Whether this is a guest account.
    ///   - photoURL: The profile photo.
    public init(
        id: String, email: String? = nil, isPrivateEmail: Bool = false, displayName: String? = nil,
        phoneNumber: String? = nil, providers: [LinkedProvider] = [], createdAt: Date, lastSignInAt: Date,
        isEmailVerified: Bool = false, isAnonymous: Bool = false, photoURL: URL? = nil
    ) {
        self.id = id
        self.email = email
        self.isPrivateEmail = isPrivateEmail
        self.displayName = displayName
        self.phoneNumber = phoneNumber
        self.providers = providers
        self.createdAt = createdAt
        self.lastSignInAt = lastSignInAt
        self.isEmailVerified = isEmailVerified
        self.isAnonymous = isAnonymous
        self.photoURL = photoURL
    }

    private enum CodingKeys: String, CodingKey {
        case id, email, isPrivateEmail, displayName, phoneNumber, providers, createdAt, lastSignInAt, isEmailVerified, isAnonymous, photoURL
    }

    /// Decodes a user; one stored before email verification, guests and photos existed
    /// reads as unverified, not a guest, and without a photo.
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError` if a field is missing or of the wrong type.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        email = try container.decodeIfPresent(String.self, forKey: .email)
        isPrivateEmail = try container.decode(Bool.self, forKey: .isPrivateEmail)
        displayName = try container.decodeIfPresent(String.self, forKey: .displayName)
        phoneNumber = try container.decodeIfPresent(String.self, forKey: .phoneNumber)
        providers = try container.decode([LinkedProvider].self, forKey: .providers)
        createdAt = try container.decode(Date.self, forKey: .createdAt)
        lastSignInAt = try container.decode(Date.self, forKey: .lastSignInAt)
        isEmailVerified = try container.decodeIfPresent(Bool.self, forKey: .isEmailVerified) ?? false
        isAnonymous = try container.decodeIfPresent(Bool.self, forKey: .isAnonymous) ?? false
        photoURL = try container.decodeIfPresent(URL.self, forKey: .photoURL)
    }

    /// Whether `provider` is linked to this account.
    /// - Parameter provider: The provider to look for.
    /// - Returns: True if the account can sign in with it.
    public func isLinked(_ provider: AuthProvider) -> Bool {
        providers.contains { $0.provider == provider }
    }
}

/// Proof of identity presented to sign in, re-authenticate or link, shaped like
/// Firebase's credentials.
public enum SignInCredential: Hashable, Sendable {
    /// An Apple or Google credential from an ``IdentityAuthorizer``, with the raw
    /// nonce whose SHA-256 the request carried.
    case identity(IdentityCredential, rawNonce: String)
    /// An email address and password.
    case emailPassword(email: String, password: String)
    /// A phone verification and the 6-digit code the user typed.
    case phone(verificationID: String, code: String)
    /// An email address and the 6-digit code ``AuthEmailFlows/sendSignInCode(to:)`` mailed to it.
    case emailCode(email: String, code: String)

    /// The provider this credential is for.
    public var provider: AuthProvider {
        switch self {
        case .identity(let credential, _): credential.provider
        case .emailPassword: .password
        case .phone: .phone
        case .emailCode: .emailCode
        }
    }
}

/// The answer of a provider's credential-state check (Apple's `getCredentialState`).
public enum CredentialState: String, Codable, Hashable, Sendable {
    /// The user is authorized.
    case authorized
    /// The user revoked the app's authorization (in Settings, or by deleting the account at Apple).
    case revoked
    /// The provider does not know this user for this app.
    case notFound
    /// The app was transferred to another developer team; the user must be migrated.
    case transferred
}

/// An account whose deletion is scheduled, and the date it is purged from.
public struct AccountDeletionSchedule: Hashable, Sendable {
    /// The account.
    public let userID: String
    /// When the grace period ends.
    public let purgeAt: Date

    /// Creates a schedule.
    /// - Parameters:
    ///   - userID: The account.
    ///   - purgeAt: When the grace period ends.
    public init(userID: String, purgeAt: Date) {
        self.userID = userID
        self.purgeAt = purgeAt
    }
}

/// What ``AuthAccountManagement/deleteAccount()`` did.
public struct AccountDeletionReceipt: Hashable, Sendable {
    /// What happened to the Apple token when the account had Sign in with Apple.
    public enum TokenRevocation: Hashable, Sendable {
        /// No Apple provider was linked.
        case notApplicable
        /// The token was revoked at the provider.
        case revoked
        /// Revocation failed; the account was deleted all the same. Users can still
        /// remove the app in Settings › Apple ID › Sign in with Apple.
        case failed(AuthenticationError)
    }

    /// The deleted account's identifier.
    public let userID: String
    /// The providers that were unlinked with it.
    public let providers: [AuthProvider]
    /// The outcome of Apple token revocation.
    public let tokenRevocation: TokenRevocation

    /// Creates a receipt.
    /// - Parameters:
    ///   - userID: The deleted account's identifier.
    ///   - providers: The providers that were linked.
    ///   - tokenRevocation: The outcome of Apple token revocation.
    public init(userID: String, providers: [AuthProvider], tokenRevocation: TokenRevocation) {
        self.userID = userID
        self.providers = providers
        self.tokenRevocation = tokenRevocation
    }
}

/// How a session ended: whose it was, why and when. An app shows the reason when the
/// user did not sign out themselves — "Your account was deleted" on a tablet whose
/// user deleted the account on their phone.
public struct SessionEnd: Codable, Hashable, Sendable {
    /// Why a session ended: an open set, so an app's own auth service can tell reasons of its own.
    public struct Reason: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
        /// The reason's name.
        public let rawValue: String

        /// Creates a reason.
        /// - Parameter rawValue: Its name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The user or the app signed out.
        public static let signedOut = Reason(rawValue: "signedOut")
        /// The account was deleted, or its deletion asked for, on this device or another.
        public static let accountDeleted = Reason(rawValue: "accountDeleted")
        /// The account was disabled.
        public static let accountDisabled = Reason(rawValue: "accountDisabled")
        /// The sign-in provider revoked the credential, as Apple does when the user stops
        /// using Sign in with Apple with the app.
        public static let credentialRevoked = Reason(rawValue: "credentialRevoked")
        /// The password was changed or reset on another device, which ends the account's
        /// other sessions.
        public static let sessionRevoked = Reason(rawValue: "sessionRevoked")

        /// The reason's name.
        public var description: String { rawValue }
    }

    /// The user whose session ended.
    public let userID: String
    /// Why it ended.
    public let reason: Reason
    /// When it ended: as the device that ended it recorded it, or, for an account found
    /// gone, when this device found it.
    public let date: Date

    /// Creates a session's end.
    /// - Parameters:
    ///   - userID: The user whose session ended.
    ///   - reason: Why it ended.
    ///   - date: When.
    public init(userID: String, reason: Reason, date: Date) {
        self.userID = userID
        self.reason = reason
        self.date = date
    }
}
