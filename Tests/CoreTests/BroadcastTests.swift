import Testing
import TrainCore

/// The state-stream primitive: current value first, then every change, to every subscriber.
@Suite struct BroadcastTests {
    @Test("each subscriber gets the current value first, then each value sent, in order")
    func ordering() async {
        let broadcast = Broadcast(initial: 0)
        let first = broadcast.subscribe()
        broadcast.send(1)
        let second = broadcast.subscribe()
        broadcast.send(2)
        broadcast.finish()
        #expect(await collect(first) == [0, 1, 2])
        #expect(await collect(second) == [1, 2])
    }

    @Test("a cancelled subscriber is removed")
    func cancellation() async {
        let broadcast = Broadcast(initial: "a")
        let stream = broadcast.subscribe()
        let reader = Task { for await _ in stream {} }
        #expect(broadcast.subscriberCount == 1)
        reader.cancel()
        await reader.value
        #expect(broadcast.subscriberCount == 0)
        #expect(broadcast.value == "a")
    }
}

private func collect<Element>(_ stream: AsyncStream<Element>) async -> [Element] {
    var values: [Element] = []
    for await value in stream { values.append(value) }
    return values
}
