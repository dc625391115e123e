import Foundation
import Testing
import TrainAuth
import TrainCore
import TrainTesting

@Suite(.timeLimit(.minutes(1))) struct FakeBiometricAuthenticatorTests {
    @Test("availability is what the test set, evaluations follow the script, and calls are recorded")
    func scripted() async throws {
        let biometrics = FakeBiometricAuthenticator(availability: BiometricAvailability(type: .touchID))
        #expect(await biometrics.availability() == BiometricAvailability(type: .touchID))
        biometrics.script(.evaluate, .sequence([.success(()), .failure(AuthenticationError(.biometryLockout))]))
        try await biometrics.evaluate(reason: "Unlock")
        await #expect(throws: AuthenticationError(.biometryLockout)) { try await biometrics.evaluate(reason: "Again") }
        #expect(biometrics.calls == [.availability(), .evaluate("Unlock"), .evaluate("Again")])
    }

    @Test("an unscripted evaluation fails the test; over a simulated sensor it is the sensor's answer")
    func strictAndBacked() async throws {
        let strict = FakeBiometricAuthenticator()
        await withKnownIssue {
            await #expect(throws: FakeError.unimplemented("FakeBiometricAuthenticator.evaluate(reason:)")) {
                try await strict.evaluate(reason: "Unlock")
            }
        } matching: {
            FakeIssue.isUnscriptedCall($0, "FakeBiometricAuthenticator.evaluate(reason:)")
        }
        let sensor = SimulatedBiometricAuthenticator(availability: BiometricAvailability(type: .none))
        let backed = FakeBiometricAuthenticator(backedBy: sensor)
        #expect(await backed.availability().type == .none)
        await #expect(throws: AuthenticationError(.biometryNotAvailable)) { try await backed.evaluate(reason: "Unlock") }
        #expect(backed.calls == [.availability(), .evaluate("Unlock")])
    }

    @Test("an injected failure skips availability, which cannot fail, and lands on the evaluation")
    func failureLandsOnEvaluation() async throws {
        let biometrics = FakeBiometricAuthenticator()
        biometrics.controls.failNextCall(with: AuthenticationError(.biometryFailed))
        _ = await biometrics.availability()
        await #expect(throws: AuthenticationError(.biometryFailed)) { try await biometrics.evaluate(reason: "Unlock") }
    }

    @Test("a held evaluation resumes on release")
    func held() async throws {
        let biometrics = FakeBiometricAuthenticator()
        biometrics.script(.evaluate, .succeeding)
        biometrics.controls.holdCalls()
        let evaluation = Task { try await biometrics.evaluate(reason: "Unlock") }
        await biometrics.controls.waitForHeldCalls(1)
        biometrics.controls.releaseHeldCalls()
        try await evaluation.value
    }
}
