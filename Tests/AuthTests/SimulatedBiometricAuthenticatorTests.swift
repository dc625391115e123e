import Foundation
import Testing
import TrainAuth

@Suite struct SimulatedBiometricAuthenticatorTests {
    @Test("by default a Face ID sensor, enrolled, approves every prompt and keeps each prompt's reason")
    func approvesByDefault() async throws {
        let biometrics = SimulatedBiometricAuthenticator()
        #expect(await biometrics.availability() == BiometricAvailability(type: .faceID))
        try await biometrics.evaluate(reason: "Unlock Train")
        try await biometrics.evaluate(reason: "Turn on the lock")
        #expect(biometrics.prompts == ["Unlock Train", "Turn on the lock"])
    }

    @Test("the next prompts are answered as set, in order, and later ones are approved again")
    func answersInOrder() async throws {
        let biometrics = SimulatedBiometricAuthenticator()
        biometrics.answerNextPrompts(with: [.cancelled, nil, .biometryFailed])
        await #expect(throws: AuthenticationError(.cancelled)) { try await biometrics.evaluate(reason: "1") }
        try await biometrics.evaluate(reason: "2")
        await #expect(throws: AuthenticationError(.biometryFailed)) { try await biometrics.evaluate(reason: "3") }
        try await biometrics.evaluate(reason: "4")
    }

    @Test("five failed matches in a row lock the sensor out until it is made available again; a match in between resets the count")
    func lockout() async throws {
        let biometrics = SimulatedBiometricAuthenticator(availability: BiometricAvailability(type: .touchID))
        biometrics.answerNextPrompts(with: [.biometryFailed, .biometryFailed, nil] + Array(repeating: .biometryFailed, count: 4))
        for _ in 0..<7 { try? await biometrics.evaluate(reason: "Unlock") }
        #expect(await biometrics.availability().isAvailable, "4 failures since the last match")
        biometrics.answerNextPrompts(with: [.biometryFailed])
        await #expect(throws: AuthenticationError(.biometryFailed)) { try await biometrics.evaluate(reason: "Unlock") }
        #expect(await biometrics.availability().unavailableReason == .biometryLockout)
        await #expect(throws: AuthenticationError(.biometryLockout)) { try await biometrics.evaluate(reason: "Unlock") }
        biometrics.setAvailability(BiometricAvailability(type: .touchID))
        try await biometrics.evaluate(reason: "After the passcode")
    }

    @Test("a sensor that is missing or not enrolled refuses every prompt with its reason and shows none")
    func unavailable() async throws {
        let missing = SimulatedBiometricAuthenticator(availability: BiometricAvailability(type: .none))
        await #expect(throws: AuthenticationError(.biometryNotAvailable)) { try await missing.evaluate(reason: "Unlock") }
        let notEnrolled = SimulatedBiometricAuthenticator(availability: BiometricAvailability(type: .faceID, unavailableReason: .biometryNotEnrolled))
        await #expect(throws: AuthenticationError(.biometryNotEnrolled)) { try await notEnrolled.evaluate(reason: "Unlock") }
        #expect(missing.prompts.isEmpty && notEnrolled.prompts.isEmpty)
    }
}
