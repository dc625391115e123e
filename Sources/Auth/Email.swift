import Foundation
import TrainCore

/// An email TrainAuth sends: which flow, to whom, and the code in it.
public struct AuthEmail: Hashable, Sendable {
    /// Which flow an email belongs to. A code works only in its own flow.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// A password reset: the code goes to ``AuthEmailFlows/confirmPasswordReset(code:newPassword:)``.
        case passwordReset
        /// An email verification: the code goes to ``AuthEmailFlows/verifyEmail(code:)``.
        case emailVerification
        /// A sign-in code: six digits for ``SignInCredential/emailCode(email:code:)``.
        case signInCode
        /// The notice an address gets when the account's email changes away from it
        /// (Firebase's `RECOVER_EMAIL`): its code goes to ``AuthEmailFlows/applyActionCode(_:)``
        /// and changes the address back.
        case recoverEmail
        /// A code sent to a new address by ``AuthEmailFlows/verifyBeforeUpdateEmail(to:)``
        /// (Firebase's `VERIFY_AND_CHANGE_EMAIL`): the account's email changes to the
        /// address when the code goes to ``AuthEmailFlows/applyActionCode(_:)``.
        case verifyAndChangeEmail
    }

    /// The flow.
    public let kind: Kind
    /// The address it is sent to, in its normalized spelling.
    public let address: String
    /// The code: six digits for a sign-in, a long single-use code (what a link would carry) otherwise.
    public let code: String
    /// For ``Kind/recoverEmail`` and ``Kind/verifyAndChangeEmail``: the address change it
    /// tells of; nil otherwise.
    public let change: EmailChange?

    /// Creates an email.
    /// - Parameters:
    ///   - kind: The flow.
    ///   - address: The address.
    ///   - code: The code.
    ///   - change: The address change it tells of, if any.
    public init(kind: Kind, address: String, code: String, change: EmailChange? = nil) {
        self.kind = kind
        self.address = address
        self.code = code
        self.change = change
    }
}

/// A change of an account's email address.
public struct EmailChange: Hashable, Sendable {
    /// The address changed from; nil when the account had none.
    public let from: String?
    /// The address changed to.
    public let to: String

    /// Creates a change.
    /// - Parameters:
    ///   - from: The address changed from, if any.
    ///   - to: The address changed to.
    public init(from: String?, to: String) {
        self.from = from
        self.to = to
    }
}

/// What a mailed code is for and whether it would work now, from
/// ``AuthEmailFlows/checkActionCode(_:email:)`` — Firebase's `checkActionCode`, which
/// tells an app what to show before the user acts ("Reset the password for
/// ada@example.com", "This link expired — send a new one").
public struct EmailCodeInspection: Hashable, Sendable {
    /// Whether a code would work now.
    public enum State: String, Hashable, Sendable, CaseIterable {
        /// It would work.
        case valid
        /// Past its lifetime, or ended by a change of the account's password or address;
        /// redeeming it answers ``TrainCore/TrainErrorCode/expiredActionCode``.
        case expired
        /// Redeemed already; redeeming it again answers ``TrainCore/TrainErrorCode/invalidActionCode``.
        case used
        /// Replaced by a newer code of its flow, or its account is gone, disabled or no
        /// longer has what the code acts on; redeeming it answers
        /// ``TrainCore/TrainErrorCode/invalidActionCode``.
        case revoked
    }

    /// The flow the code belongs to (Firebase's `operation`).
    public let operation: AuthEmail.Kind
    /// The address it was mailed to (Firebase's `email`).
    public let email: String
    /// For an address change's codes, the change: a recovery code changes the address
    /// back to `from`, a verify-before-change code makes `to` the account's email.
    public let change: EmailChange?
    /// Whether it would work now.
    public let state: State
    /// When it expires, or expired.
    public let expiresAt: Date

    /// Whether the app should offer a password reset once the code is applied: after
    /// an address change is undone, whoever changed it may know the password.
    public var suggestsPasswordReset: Bool { operation == .recoverEmail }

    /// Creates the information.
    /// - Parameters:
    ///   - operation: The flow.
    ///   - email: The address it was mailed to.
    ///   - change: The address change, if any.
    ///   - state: Whether it would work now.
    ///   - expiresAt: Its expiry.
    public init(operation: AuthEmail.Kind, email: String, change: EmailChange? = nil, state: State, expiresAt: Date) {
        self.operation = operation
        self.email = email
        self.change = change
        self.state = state
        self.expiresAt = expiresAt
    }
}

/// Delivers TrainAuth's emails. An app implements it with its mail service (or leaves
/// the email flows to Firebase); TrainKit ships ``SimulatedMailbox``. A sender should
/// queue the email and return at once: the time a send takes must not tell a caller
/// whether the address has an account.
public protocol EmailSender: Sendable {
    /// Sends `email`.
    /// - Parameter email: The email.
    /// - Throws: ``TrainCore/TrainErrorCode/networkError`` if it cannot be queued.
    func send(_ email: AuthEmail) async throws
}

/// A pretend mailbox that receives every email, for prototypes and tests, as
/// ``SimulatedSMSInbox`` receives phone codes.
///
/// ```swift
/// let mailbox = SimulatedMailbox()
/// try await auth.sendPasswordReset(email: "ada@example.com")
/// let code = try #require(mailbox.lastCode(for: "ada@example.com", .passwordReset))
/// try await auth.confirmPasswordReset(code: code, newPassword: "a new password 2")
/// ```
public final class SimulatedMailbox: EmailSender {
    private let received = Locked<[AuthEmail]>([])

    /// Creates an empty mailbox.
    public init() {}

    /// Every email received, oldest first.
    public var emails: [AuthEmail] { received.withLock { $0 } }

    /// The code of the latest email of `kind` sent to `address`.
    /// - Parameters:
    ///   - address: The address, in any spelling the service accepts.
    ///   - kind: The flow.
    /// - Returns: The code, or nil if no such email was sent.
    public func lastCode(for address: String, _ kind: AuthEmail.Kind) -> String? {
        lastEmail(to: address, kind)?.code
    }

    /// The latest email of `kind` sent to `address`.
    /// - Parameters:
    ///   - address: The address, in any spelling the service accepts.
    ///   - kind: The flow.
    /// - Returns: The email, or nil if no such email was sent.
    public func lastEmail(to address: String, _ kind: AuthEmail.Kind) -> AuthEmail? {
        let normalized = (try? Credentials.normalizedEmail(address)) ?? address
        return received.withLock { $0.last { $0.address == normalized && $0.kind == kind } }
    }

    /// Records the email.
    /// - Parameter email: The email.
    public func send(_ email: AuthEmail) async throws {
        received.withLock { $0.append(email) }
    }
}

/// An action an app may allow only to users with a verified email address, through
/// ``AuthPolicy/verifiedEmailRequired``.
public enum VerifiedEmailAction: String, Hashable, Sendable, CaseIterable {
    /// Posting and commenting in the social feed.
    case posting
    /// Buying a product.
    case purchasing
}
