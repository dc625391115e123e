import Foundation
import Testing
import TrainAuth
import TrainCore
import TrainTesting

@Suite(.timeLimit(.minutes(1))) struct FakeControlsTests {
    @Test("waiting for held calls ends when the waiting task is cancelled")
    func cancelledWait() async {
        let controls = FakeControls<String>()
        let waiter = Task { await controls.waitForHeldCalls(1) }
        waiter.cancel()
        await waiter.value
        #expect(controls.heldCallCount == 0)
    }

    @Test("a check of one's own runs beside a suite's")
    func ownCheck() async throws {
        let check = ContractCheck<Int>("the environment is positive") { value in
            if value <= 0 { throw ContractViolation(check: "the environment is positive", message: "got \(value)") }
        }
        try await check.run(in: 1)
        await #expect(throws: ContractViolation.self) { try await check.run(in: 0) }
    }
}
