import Foundation
import Observation
import Testing
import TrainTesting

@MainActor @Observable private final class Counter {
    var value = 0
}

@MainActor
@Suite struct ObservationWaitingTests {
    @Test("waitUntil returns once a change another task makes later meets the condition, and at once when it holds already")
    func followsChanges() async {
        let counter = Counter()
        let changer = Task { @MainActor in
            counter.value = 1
            counter.value = 3
        }
        #expect(await waitUntil { counter.value == 3 })
        await changer.value
        #expect(await waitUntil(within: .zero) { counter.value == 3 }, "it holds already")
    }

    @Test("waitUntil gives up with false when its watchdog ends the wait first")
    func watchdog() async {
        let counter = Counter()
        #expect(await waitUntil(within: .milliseconds(50)) { counter.value == 1 } == false)
    }
}
