import Foundation
import Testing
import TrainAuth
import TrainCore
import TrainTesting

@Suite(.timeLimit(.minutes(1))) struct FakeBiometricAuthenticatorTests {
    @Test("availability and evaluation follow the script, and calls are recorded")
    func scripted() async throws {
        let biometrics = FakeBiometricAuthenticator(availability: BiometricAvailability(type: .touchID))
        #expect(await biometrics.availability() == BiometricAvailability(type: .touchID))
        try await biometrics.evaluate(reason: "Unlock")
        biometrics.script(.evaluate, .throwing(AuthenticationError(.biometryLockout)))
        await #expect(throws: AuthenticationError(.biometryLockout)) { try await biometrics.evaluate(reason: "Again") }
        #expect(biometrics.calls == [.availability, .evaluate(reason: "Unlock"), .evaluate(reason: "Again")])
    }

    @Test("unavailable hardware fails evaluation; strict mode needs a script")
    func unavailableAndStrict() async throws {
        let none = FakeBiometricAuthenticator(availability: BiometricAvailability(type: .none))
        await #expect(throws: AuthenticationError(.biometryNotAvailable)) { try await none.evaluate(reason: "Unlock") }
        let strict = FakeBiometricAuthenticator(strict: true)
        await withKnownIssue {
            await #expect(throws: FakeError.unimplemented("FakeBiometricAuthenticator.evaluate(reason:)")) {
                try await strict.evaluate(reason: "Unlock")
            }
        } matching: {
            FakeIssue.isUnscriptedCall($0, "FakeBiometricAuthenticator.evaluate(reason:)")
        }
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
        biometrics.controls.holdCalls()
        let evaluation = Task { try await biometrics.evaluate(reason: "Unlock") }
        await biometrics.controls.waitForHeldCalls(1)
        biometrics.controls.releaseHeldCalls()
        try await evaluation.value
    }
}
