import Foundation
import Testing
@testable import TrainAuth
import TrainCore
import TrainTesting

/// AUTH-5: the auth-state stream.
@Suite(.timeLimit(.minutes(1))) struct AuthStateStreamTests {
    @Test("every subscriber gets the current value first, then one value per change of user, and nil once per sign-out")
    func changesOfUser() async throws {
        let harness = try AuthHarness()
        let service = harness.service
        let early = service.authStateChanges()
        let ada = try await harness.signInWithApple()
        let late = service.authStateChanges()
        _ = try await service.reauthenticate(with: try await harness.appleCredential())    // same user: nothing
        _ = try await service.link(.emailPassword(email: "ada@example.com", password: "correct horse 1"))   // profile: nothing
        let grace = try await harness.signInWithApple(as: AuthHarness.grace)              // another user
        try await service.signOut()
        try await service.signOut()                                                       // already out: nothing
        let graceAgain = try await harness.signInWithApple(as: AuthHarness.grace)
        _ = try await service.deleteAccount()

        let earlyValues = await first(6, of: early).map { $0?.id }
        let lateValues = await first(5, of: late).map { $0?.id }
        #expect(earlyValues == [nil, ada.id, grace.id, nil, grace.id, nil])
        #expect(lateValues == [ada.id, grace.id, nil, graceAgain.id, nil])
    }

    @Test("cancelling a subscriber removes it")
    func cancellation() async throws {
        let harness = try AuthHarness()
        let stream = harness.service.authStateChanges()
        let reader = Task { for await _ in stream {} }
        #expect(harness.service.users.subscriberCount == 1)
        reader.cancel()
        await reader.value
        #expect(harness.service.users.subscriberCount == 0)
    }

    @Test("a restored session is the first value after a relaunch")
    func restoredFirst() async throws {
        let harness = try AuthHarness(.file)
        let user = try await harness.signInWithApple()
        let values = await first(1, of: try harness.relaunch().authStateChanges())
        #expect(values == [user])
    }
}

/// AUTH-10: the biometric app lock.
@Suite(.timeLimit(.minutes(1))) struct BiometricLockTests {
    @Test("enabling needs a successful evaluation, with the reason shown", arguments: AuthVariant.allCases)
    func enable(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        try await harness.signInWithApple()
        #expect(try await harness.service.isBiometricLockEnabled() == false)
        try await harness.service.setBiometricLock(enabled: true, reason: "Unlock Train with Face ID")
        #expect(try await harness.service.isBiometricLockEnabled())
        #expect(harness.biometrics.calls.contains(.evaluate(reason: "Unlock Train with Face ID")))
        if variant == .file {
            #expect(try await harness.relaunch().isBiometricLockEnabled(), "stored with the user's data")
        }
    }

    @Test("a failed evaluation leaves the lock off and gives a friendly error", arguments: [
        AuthError.Code.biometryFailed, .biometryLockout, .cancelled, .biometryNotEnrolled,
    ])
    func failedEvaluation(code: AuthError.Code) async throws {
        let harness = try AuthHarness()
        try await harness.signInWithApple()
        harness.biometrics.scriptEvaluation(.failure(AuthError(code)))
        let error = await #expect(throws: AuthError.self) { try await harness.service.setBiometricLock(enabled: true, reason: "Unlock") }
        #expect(error?.code == code)
        #expect(error?.errorDescription?.isEmpty == false)
        #expect(try await harness.service.isBiometricLockEnabled() == false)
    }

    @Test("unavailable hardware refuses enabling and turns an enabled lock off for good")
    func unavailableHardware() async throws {
        let harness = try AuthHarness()
        try await harness.signInWithApple()
        try await harness.service.setBiometricLock(enabled: true, reason: "Unlock")
        harness.biometrics.setAvailability(BiometricAvailability(type: .none))
        #expect(try await harness.service.isBiometricLockEnabled() == false)
        harness.biometrics.setAvailability(BiometricAvailability(type: .faceID))
        #expect(try await harness.service.isBiometricLockEnabled() == false, "the setting was switched off, not hidden")
        harness.biometrics.setAvailability(BiometricAvailability(type: .touchID, unavailableReason: .biometryNotEnrolled))
        await #expect(throws: AuthError(.biometryNotEnrolled)) { try await harness.service.setBiometricLock(enabled: true, reason: "Unlock") }
    }

    @Test("the setting belongs to one user and goes with the account")
    func perUser() async throws {
        let harness = try AuthHarness()
        try await harness.signInWithApple()
        try await harness.service.setBiometricLock(enabled: true, reason: "Unlock")
        try await harness.signInWithApple(as: AuthHarness.grace)
        #expect(try await harness.service.isBiometricLockEnabled() == false)
        try await harness.signInWithApple()
        #expect(try await harness.service.isBiometricLockEnabled())
        _ = try await harness.service.deleteAccount()
        let newAda = try await harness.signInWithApple()
        #expect(try await harness.service.isBiometricLockEnabled() == false)
        #expect(newAda.id == "user-000003")
    }

    @Test("turning the lock off needs no evaluation")
    func disable() async throws {
        let harness = try AuthHarness()
        try await harness.signInWithApple()
        try await harness.service.setBiometricLock(enabled: true, reason: "Unlock")
        harness.biometrics.scriptEvaluation(.failure(AuthError(.biometryLockout)))
        try await harness.service.setBiometricLock(enabled: false, reason: "Unlock")
        #expect(try await harness.service.isBiometricLockEnabled() == false)
    }
}

/// AUTH-9: one error type with Firebase-like codes and user-facing text.
@Suite(.timeLimit(.minutes(1))) struct AuthErrorTests {
    static let specCodes: [AuthError.Code] = [
        .requiresRecentLogin, .userMismatch, .userNotFound, .userDisabled, .missingOrInvalidNonce, .invalidCredential,
        .credentialAlreadyInUse, .providerAlreadyLinked, .invalidVerificationCode, .tooManyRequests, .networkError,
        .notSignedIn, .cancelled,
    ]

    @Test("every code of the spec has a user-facing description, and most a recovery suggestion")
    func descriptions() {
        for code in Self.specCodes {
            let error = AuthError(code)
            #expect(error.errorDescription?.isEmpty == false, "\(code)")
            #expect(error.errorDescription != code.name, "\(code) needs words, not its name")
        }
        #expect(Self.specCodes.filter { AuthError($0).recoverySuggestion != nil }.count >= 11)
        #expect(Set(Self.specCodes.compactMap { AuthError($0).errorDescription }).count == Self.specCodes.count)
    }

    @Test("requiresRecentLogin says what seed 002 says")
    func seedWording() {
        #expect(AuthError(.requiresRecentLogin).errorDescription
                == "For security reasons, you need to verify your identity before deleting your account. This only takes a moment.")
    }

    @Test("errors compare equal by code whatever their detail, and switch by code")
    func matching() {
        let error = AuthError(.userMismatch, detail: "x", message: "y")
        #expect(error == AuthError(.userMismatch))
        #expect(error != AuthError(.userNotFound, detail: "x", message: "y"))
        #expect(Set([error, AuthError(.userMismatch, detail: "z")]).count == 1)
        #expect(throws: AuthError(.userMismatch)) { throw error }
        switch error.code {
        case .userMismatch: break
        default: Issue.record("wrong code")
        }
        #expect(error.description.contains("userMismatch"))
    }
}

@Suite(.timeLimit(.minutes(1))) struct RecentLoginMessageTests {
    @Test("the recent-login sentence names the action the user is taking")
    func perAction() async throws {
        let harness = try AuthHarness()
        try await harness.signInWithApple()
        _ = try await harness.service.link(.emailPassword(email: "ada@example.com", password: "correct horse 1"))
        harness.clock.advance(by: .seconds(301))
        let email = await #expect(throws: AuthError.self) { _ = try await harness.service.updateEmail(to: "ada@new.example") }
        let unlink = await #expect(throws: AuthError.self) { _ = try await harness.service.unlink(.password) }
        let delete = await #expect(throws: AuthError.self) { _ = try await harness.service.deleteAccount() }
        #expect(email?.errorDescription == "For security reasons, you need to verify your identity before changing your email address. This only takes a moment.")
        #expect(unlink?.errorDescription?.contains("removing a sign-in method") == true)
        #expect(delete?.errorDescription == AuthError(.requiresRecentLogin).errorDescription)
    }
}
