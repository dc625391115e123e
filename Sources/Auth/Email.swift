import Foundation
import TrainCore

/// An email TrainAuth sends: which flow, to whom, and the code in it.
public struct AuthEmail: Hashable, Sendable {
    /// Which flow an email belongs to. A code works only in its own flow.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// A password reset: the code goes to ``AuthService/confirmPasswordReset(code:newPassword:)``.
        case passwordReset
        /// An email verification: the code goes to ``AuthService/verifyEmail(code:)``.
        case emailVerification
        /// A sign-in code: six digits for ``SignInCredential/emailCode(email:code:)``.
        case signInCode
    }

    /// The flow.
    public let kind: Kind
    /// The address it is sent to, in its normalized spelling.
    public let address: String
    /// The code: six digits for a sign-in, a long single-use code (what a link would carry) otherwise.
    public let code: String

    /// Creates an email.
    /// - Parameters:
    ///   - kind: The flow.
    ///   - address: The address.
    ///   - code: The code.
    public init(kind: Kind, address: String, code: String) {
        self.kind = kind
        self.address = address
        self.code = code
    }
}

/// Delivers TrainAuth's emails. An app implements it with its mail service (or leaves
/// the email flows to Firebase); TrainKit ships ``SimulatedMailbox``. A sender should
/// queue the email and return at once: the time a send takes must not tell a caller
/// whether the address has an account.
public protocol EmailSender: Sendable {
    /// Sends `email`.
    /// - Parameter email: The email.
    /// - Throws: ``AuthenticationError/Code/networkError`` if it cannot be queued.
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
        let normalized = (try? Credentials.normalizedEmail(address)) ?? address
        return received.withLock { $0.last { $0.address == normalized && $0.kind == kind }?.code }
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
