import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainAuth

/// AUTH-9: one error type with Firebase-like codes and user-facing text.
@Suite(.timeLimit(.minutes(1))) struct AuthenticationErrorTests {
    static let specCodes: [AuthenticationError.Code] = [
        .requiresRecentLogin, .userMismatch, .userNotFound, .userDisabled, .missingOrInvalidNonce, .invalidCredential,
        .credentialAlreadyInUse, .providerAlreadyLinked, .invalidVerificationCode, .tooManyRequests, .networkError,
        .notSignedIn, .cancelled,
    ]

    @Test("every code of the spec has a user-facing description, and most a recovery suggestion")
    func descriptions() {
        for code in Self.specCodes {
            let error = AuthenticationError(code)
            #expect(error.errorDescription?.isEmpty == false, "\(code)")
            #expect(error.errorDescription != code.name, "\(code) needs words, not its name")
        }
        #expect(Self.specCodes.filter { AuthenticationError($0).recoverySuggestion != nil }.count >= 11)
        #expect(Set(Self.specCodes.compactMap { AuthenticationError($0).errorDescription }).count == Self.specCodes.count)
    }

    @Test("requiresRecentLogin says what seed 002 says")
    func seedWording() {
        #expect(
            AuthenticationError(.requiresRecentLogin).errorDescription
                == "For security reasons, you need to verify your identity before deleting your account. This only takes a moment.")
    }

    @Test("errors compare equal by code whatever their detail, and switch by code")
    func matching() {
        let error = AuthenticationError(.userMismatch, detail: "x", message: "y")
        #expect(error == AuthenticationError(.userMismatch))
        #expect(error != AuthenticationError(.userNotFound, detail: "x", message: "y"))
        #expect(Set([error, AuthenticationError(.userMismatch, detail: "z")]).count == 1)
        #expect(throws: AuthenticationError(.userMismatch)) { throw error }
        switch error.code {
        case .userMismatch: break
        default: Issue.record("wrong code")
        }
        #expect(error.description.contains("userMismatch"))
    }
}
