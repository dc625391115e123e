import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainAuth

/// AUTH-10: the biometric app lock.
@Suite(.timeLimit(.minutes(1))) struct BiometricLockTests {
    @Test("enabling needs a successful evaluation, with the reason shown", arguments: AuthVariant.allCases)
    func enable(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        try await harness.signInWithApple()
        #expect(try await harness.service.isBiometricLockEnabled() == false)
        try await harness.service.setBiometricLock(enabled: true, reason: "Unlock Train with Face ID")
        #expect(try await harness.service.isBiometricLockEnabled())
        #expect(harness.biometrics.calls.contains(.evaluate("Unlock Train with Face ID")))
        if variant == .file {
            #expect(try await harness.relaunch().isBiometricLockEnabled(), "stored with the user's data")
        }
    }

    @Test(
        "a failed evaluation leaves the lock off and gives a friendly error",
        arguments: [
            AuthenticationError.Code.biometryFailed, .biometryLockout, .cancelled, .biometryNotEnrolled,
        ])
    func failedEvaluation(code: AuthenticationError.Code) async throws {
        let harness = try AuthHarness()
        try await harness.signInWithApple()
        harness.biometrics.script(.evaluate, .throwing(AuthenticationError(code)))
        let error = await #expect(throws: AuthenticationError.self) { try await harness.service.setBiometricLock(enabled: true, reason: "Unlock") }
        #expect(error?.code == code)
        #expect(error?.errorDescription?.isEmpty == false)
        #expect(try await harness.service.isBiometricLockEnabled() == false)
    }

    @Test("unavailable hardware refuses enabling and turns an enabled lock off for good")
    func unavailableHardware() async throws {
        let harness = try AuthHarness()
        try await harness.signInWithApple()
        try await harness.service.setBiometricLock(enabled: true, reason: "Unlock")
        harness.sensor.setAvailability(BiometricAvailability(type: .none))
        #expect(try await harness.service.isBiometricLockEnabled() == false)
        harness.sensor.setAvailability(BiometricAvailability(type: .faceID))
        #expect(try await harness.service.isBiometricLockEnabled() == false, "the setting was switched off, not hidden")
        harness.sensor.setAvailability(BiometricAvailability(type: .touchID, unavailableReason: .biometryNotEnrolled))
        await #expect(throws: AuthenticationError(.biometryNotEnrolled)) {
            try await harness.service.setBiometricLock(enabled: true, reason: "Unlock")
        }
    }

    @Test(
        "a lockout or a face no longer enrolled keeps the lock on: the app falls back to the passcode",
        arguments: [AuthenticationError.Code.biometryLockout, .biometryNotEnrolled], AuthVariant.allCases)
    func lockoutKeepsLock(reason: AuthenticationError.Code, variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        try await harness.signInWithApple()
        try await harness.service.setBiometricLock(enabled: true, reason: "Unlock")
        harness.sensor.setAvailability(BiometricAvailability(type: .faceID, unavailableReason: reason))
        #expect(try await harness.service.isBiometricLockEnabled(), "the lock stays on while Face ID is \(reason)")
        harness.sensor.setAvailability(BiometricAvailability(type: .faceID))
        #expect(try await harness.service.isBiometricLockEnabled(), "and is still on once Face ID works again")
        if variant == .file {
            #expect(try await harness.relaunch().isBiometricLockEnabled(), "nothing was stored as off")
        }
    }

    @Test("the setting goes to the user who turned it on, even if another user signs in during the Face ID prompt")
    func userSwitchDuringEvaluation() async throws {
        let harness = try AuthHarness()
        let ada = try await harness.signInWithApple()
        harness.biometrics.controls.holdCalls()
        let service = harness.service
        let enabling = Task { try await service.setBiometricLock(enabled: true, reason: "Unlock") }
        await harness.biometrics.controls.waitForHeldCalls(1)
        try await harness.service.signOut()
        try await harness.signInWithApple(as: AuthHarness.grace)
        harness.biometrics.controls.releaseHeldCalls()
        await #expect(throws: AuthenticationError(.userMismatch)) { try await enabling.value }
        #expect(try await harness.service.isBiometricLockEnabled() == false, "Grace's lock was not turned on")
        try await harness.service.signOut()
        try await harness.signInWithApple()
        #expect(harness.service.currentUser?.id == ada.id)
        #expect(try await harness.service.isBiometricLockEnabled() == false, "nor Ada's, whose prompt ended after she left")
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
        harness.biometrics.script(.evaluate, .throwing(AuthenticationError(.biometryLockout)))
        try await harness.service.setBiometricLock(enabled: false, reason: "Unlock")
        #expect(try await harness.service.isBiometricLockEnabled() == false)
    }
}
