import Testing
import TrainCore
import TrainTesting

// The code of TrainTesting.docc/TestingWithTime.md, kept compiling and passing here.
// When you change one, change the other.

/// Code under test: gives up after `timeout`.
private func waitForConfirmation(clock: any DateClock, timeout: Duration) async -> String {
    do {
        try await clock.sleep(for: timeout)
        return "timed out"
    } catch {
        return "cancelled"
    }
}

@Test("the article's confirmation times out after five minutes, not before")
func confirmationTimesOutAfterFiveMinutes() async {
    let clock = ManualClock()
    let outcome = Task { await waitForConfirmation(clock: clock, timeout: .seconds(300)) }
    await clock.waitForSleepers(1)
    clock.advance(by: .seconds(299))
    #expect(clock.sleeperCount == 1) // not yet
    clock.advance(by: .seconds(1))
    #expect(await outcome.value == "timed out")
}
