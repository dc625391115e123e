import Foundation
import TrainAuth

/// The signed-in user's address, and the codes mailed to it, with
/// the session showing what each changed before the call returns.
extension UserSessionManager {
    /// Changes the signed-in user's email at once, unverified; the old address is
    /// mailed a notice whose code changes it back. The session shows the new address
    /// before this returns.
    /// - Parameter email: The new address.
    /// - Returns: The user.
    /// - Throws: The auth service's error: `requiresRecentLogin`, `emailAlreadyInUse`
    ///   with the address, `networkError` when the notice could not be sent — nothing
    ///   changes then.
    @discardableResult
    public func updateEmail(to email: String) async throws -> UserEntity {
        let user = try await auth.updateEmail(to: email)
        showLatest(of: user)
        return user
    }

    /// Mails `email` a code that makes it the signed-in user's address once applied
    /// with ``applyActionCode(_:)``; until then nothing changes.
    /// - Parameter email: The new address.
    /// - Throws: The auth service's error: `requiresRecentLogin`, `emailAlreadyInUse`
    ///   with the address (only when the policy does not protect against enumeration;
    ///   with it, a taken address is answered alike and sent nothing), `tooManyRequests`,
    ///   `networkError`.
    public func verifyBeforeUpdateEmail(to email: String) async throws {
        try await auth.verifyBeforeUpdateEmail(to: email)
    }

    /// What a mailed code is for, its address and whether it would work now, without
    /// using it — to show "Reset the password for ada@example.com" or "This link
    /// expired" before the user acts.
    /// - Parameters:
    ///   - code: A long code from an email, or a six-digit sign-in code.
    ///   - email: The address of a six-digit sign-in code.
    /// - Returns: What the code is.
    /// - Throws: The auth service's error: `invalidActionCode` for an unknown code; for a
    ///   six-digit code, `invalidVerificationCode` for a wrong one — which uses up one of
    ///   the code's wrong tries — and `tooManyRequests` once they are used up.
    public func checkActionCode(_ code: String, email: String? = nil) async throws -> EmailCodeInspection {
        try await auth.checkActionCode(code, email: email)
    }

    /// Applies a code from an email — a verification, the notice of an address change
    /// (which changes it back and ends every other session of the account), or a
    /// verify-before-change code — and shows the session as it is now before returning.
    /// After a recovery, `EmailCodeInspection.suggestsPasswordReset` says to offer a reset.
    /// - Parameter code: The long code from the email.
    /// - Returns: What the code was.
    /// - Throws: The auth service's error: `invalidActionCode`, `expiredActionCode`,
    ///   `emailAlreadyInUse`; nothing changes then.
    @discardableResult
    public func applyActionCode(_ code: String) async throws -> EmailCodeInspection {
        let info = try await auth.applyActionCode(code)
        showCurrentSession()
        return info
    }
}
