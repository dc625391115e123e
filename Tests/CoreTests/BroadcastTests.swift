import Testing
import TrainCore
import TrainTesting

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
        #expect(await first.collect(.max) == [0, 1, 2])
        #expect(await second.collect(.max) == [1, 2])
    }

    @Test("a stream subscribed after finish yields the current value and ends, and later sends reach no one")
    func subscribeAfterFinish() async {
        let broadcast = Broadcast(initial: 0)
        broadcast.finish()
        let late = broadcast.subscribe()
        broadcast.send(1)
        #expect(await late.collect(.max) == [0], "ended after the current value")
        #expect(broadcast.subscriberCount == 0)
        #expect(await broadcast.subscribe(replayingCurrent: false).collect(.max) == [])
    }

    @Test("subscribers cancelled while values are sent to them from other threads neither deadlock nor get values out of order")
    func cancelWhileSending() async {
        let broadcast = Broadcast(initial: 0)
        for round in 0..<200 {
            let readers = (0..<4).map { _ in
                let stream = broadcast.subscribe(replayingCurrent: false)
                return Task { () -> Bool in
                    var last = Int.min
                    for await value in stream {
                        guard value > last else { return false }
                        last = value
                    }
                    return true
                }
            }
            let sender = Task.detached {
                for value in 1...50 { broadcast.send(round * 100 + value) }
            }
            for reader in readers { reader.cancel() }
            await sender.value
            for reader in readers { #expect(await reader.value, "values arrive in the order they were sent") }
        }
        #expect(broadcast.subscriberCount == 0)
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

    @Test("an event stream yields the non-nil values sent after it subscribed")
    func events() async {
        let broadcast = Broadcast<String?>(initial: "before")
        let events: AsyncStream<String> = broadcast.events()
        broadcast.send(nil)
        broadcast.send("renewal")
        broadcast.send("refund")
        #expect(await events.collect(2) == ["renewal", "refund"])
    }

    @Test("a test can wait for subscribers; a cancelled wait ends")
    func waitForSubscribers() async {
        let broadcast = Broadcast(initial: 0)
        let waiting = Task { await broadcast.waitForSubscribers(2) }
        let first = broadcast.subscribe()
        let second = broadcast.subscribe()
        await waiting.value
        #expect(broadcast.subscriberCount == 2)
        let abandoned = Task { await broadcast.waitForSubscribers(5) }
        abandoned.cancel()
        await abandoned.value
        _ = (first, second)
    }
}
