import Foundation
import Testing
import TrainCore
import TrainSync
import TrainTesting

@Suite(.timeLimit(.minutes(1))) struct BackgroundSyncManagerTests {
    /// A sync that counts its runs and how many overlap, and fails while told to.
    final class Probe: Sendable {
        let clock = ManualClock()
        let runs = Locked(0)
        let running = Locked(0)
        let mostAtOnce = Locked(0)
        let failing = Locked(false)
        /// How long each sync takes on the clock.
        let duration = Locked(0.0)

        func sync() async throws -> SyncReport {
            runs.withLock { $0 += 1 }
            let now = running.withLock { running in
                running += 1
                return running
            }
            mostAtOnce.withLock { $0 = max($0, now) }
            defer { running.withLock { $0 -= 1 } }
            let duration = duration.withLock { $0 }
            if duration > 0 { try await clock.sleep(for: .seconds(duration)) }
            if failing.withLock({ $0 }) { throw SyncError(.remoteUnavailable) }
            var report = SyncReport()
            report.uploaded = 1
            return report
        }

        func manager(jitter: Double = 0.5) -> BackgroundSyncManager {
            BackgroundSyncManager(
                sync: { try await self.sync() }, context: TrainContext(clock: clock), configuration: BackgroundSyncConfiguration(jitter: { jitter }))
        }
    }

    /// Waits for the first status from `updates` that `matches`.
    static func next(_ updates: inout AsyncStream<BackgroundSyncStatus>.Iterator, _ matches: (BackgroundSyncStatus) -> Bool) async
        -> BackgroundSyncStatus?
    {
        while let status = await updates.next() {
            if matches(status) { return status }
        }
        return nil
    }

    static func isIdle(_ status: BackgroundSyncStatus) -> Bool {
        if case .idle(let date) = status { date != nil } else { false }
    }

    @Test("start syncs at once, then every 300 seconds and not before")
    func periodic() async throws {
        let probe = Probe()
        let manager = probe.manager()
        var updates = manager.statusUpdates().makeAsyncIterator()
        manager.start()
        let first = await Self.next(&updates, Self.isIdle)
        #expect(first == .idle(lastSyncedAt: probe.clock.now))
        await probe.clock.waitForSleepers(1)
        #expect(probe.clock.pendingDeadlines == [probe.clock.now.addingTimeInterval(300)])
        probe.clock.advance(by: .seconds(299))
        #expect(probe.runs.withLock { $0 } == 1)
        probe.clock.advance(by: .seconds(1))
        _ = await Self.next(&updates, Self.isIdle)
        #expect(probe.runs.withLock { $0 } == 2)
        manager.stop()
    }

    @Test("a device clock set back a day stalls neither the periodic sync nor a retry: both wait in elapsed time")
    func clockSetBack() async throws {
        let probe = Probe()
        let manager = probe.manager(jitter: 0.5)
        var updates = manager.statusUpdates().makeAsyncIterator()
        manager.start()
        _ = await Self.next(&updates, Self.isIdle)
        await probe.clock.waitForSleepers(1)
        probe.clock.setDate(probe.clock.now.addingTimeInterval(-86_400))
        probe.clock.advance(by: .seconds(300))
        _ = await Self.next(&updates, Self.isIdle)
        #expect(probe.runs.withLock { $0 } == 2, "the periodic sync ran 300 s later, a day earlier by the date")
        probe.failing.withLock { $0 = true }
        manager.syncNow()
        _ = await Self.next(&updates) { if case .failed = $0 { true } else { false } }
        await probe.clock.waitForSleepers(1)
        probe.clock.setDate(probe.clock.now.addingTimeInterval(-86_400))
        probe.failing.withLock { $0 = false }
        probe.clock.advance(by: .seconds(1))
        _ = await Self.next(&updates, Self.isIdle)
        #expect(probe.runs.withLock { $0 } == 4, "the retry ran 1 s later")
        manager.stop()
    }

    @Test("requests within the debounce interval make one sync, a second after the last")
    func debounce() async throws {
        let probe = Probe()
        let manager = probe.manager()
        var updates = manager.statusUpdates().makeAsyncIterator()
        manager.start()
        _ = await Self.next(&updates, Self.isIdle)
        for _ in 0..<3 {
            manager.requestSync()
            await probe.clock.waitForSleepers(1)
            probe.clock.advance(by: .milliseconds(600))
        }
        #expect(probe.runs.withLock { $0 } == 1)
        #expect(probe.clock.pendingDeadlines == [probe.clock.now.addingTimeInterval(0.4)])
        probe.clock.advance(by: .milliseconds(400))
        _ = await Self.next(&updates, Self.isIdle)
        #expect(probe.runs.withLock { $0 } == 2)
        manager.stop()
    }

    @Test("syncs never overlap: requests during a sync make one more sync after it")
    func singleFlight() async throws {
        let probe = Probe()
        probe.duration.withLock { $0 = 10 }
        let manager = probe.manager()
        var updates = manager.statusUpdates().makeAsyncIterator()
        manager.start()
        await probe.clock.waitForSleepers(1) // the first sync, running
        for _ in 0..<3 { manager.syncNow() }
        probe.clock.advance(by: .seconds(10))
        _ = await Self.next(&updates, Self.isIdle)
        await probe.clock.waitForSleepers(1) // the follow-up sync, running
        #expect(probe.runs.withLock { $0 } == 2)
        probe.clock.advance(by: .seconds(10))
        _ = await Self.next(&updates, Self.isIdle)
        await probe.clock.waitForSleepers(1) // the manager, waiting for the next period
        #expect(probe.runs.withLock { $0 } == 2)
        #expect(probe.mostAtOnce.withLock { $0 } == 1)
        manager.stop()
    }

    @Test("failures back off exponentially with full jitter up to the cap, and a success resets the backoff")
    func backoff() async throws {
        let probe = Probe()
        probe.failing.withLock { $0 = true }
        let manager = probe.manager(jitter: 0.5)
        var updates = manager.statusUpdates().makeAsyncIterator()
        manager.start()
        var waits: [TimeInterval] = []
        for attempt in 1...10 {
            let status = await Self.next(&updates) { if case .failed = $0 { true } else { false } }
            guard case .failed(let error, let number, let retry, _) = status else { return }
            #expect(error == SyncError(.remoteUnavailable))
            #expect(number == attempt)
            waits.append(retry.timeIntervalSince(probe.clock.now))
            await probe.clock.waitForSleepers(1)
            probe.clock.advance(to: retry)
        }
        #expect(waits == [1, 2, 4, 8, 16, 32, 64, 128, 150, 150])
        probe.failing.withLock { $0 = false }
        _ = await Self.next(&updates, Self.isIdle)
        await probe.clock.waitForSleepers(1)
        #expect(probe.clock.pendingDeadlines == [probe.clock.now.addingTimeInterval(300)])
        manager.stop()
    }

    @Test("stop cancels a sync in progress, and nothing syncs after it")
    func stopCancels() async throws {
        let probe = Probe()
        probe.duration.withLock { $0 = 10 }
        let manager = probe.manager()
        var updates = manager.statusUpdates().makeAsyncIterator()
        manager.start()
        await probe.clock.waitForSleepers(1)
        manager.stop()
        _ = await Self.next(&updates) { if case .stopped = $0 { true } else { false } }
        probe.clock.advance(by: .seconds(3_600))
        #expect(probe.runs.withLock { $0 } == 1)
        #expect(manager.status == .stopped(lastSyncedAt: nil))
    }

    @Test("a start right after a stop waits for the stopped sync to end: syncs never overlap")
    func stopThenStartDoesNotOverlap() async throws {
        let running = Locked(0)
        let mostAtOnce = Locked(0)
        let gates = Locked([CheckedContinuation<Void, Never>]())
        let (entries, entered) = AsyncStream<Void>.makeStream()
        // A sync whose remote call does not notice cancellation: it ends when the test says.
        let manager = BackgroundSyncManager(
            sync: {
                let now = running.withLock { running in
                    running += 1
                    return running
                }
                mostAtOnce.withLock { $0 = max($0, now) }
                await withCheckedContinuation { gate in
                    gates.withLock { $0.append(gate) }
                    entered.yield()
                }
                running.withLock { $0 -= 1 }
                return SyncReport()
            }, context: TrainContext(clock: ManualClock()), configuration: BackgroundSyncConfiguration(jitter: { 0.5 }))
        var arrivals = entries.makeAsyncIterator()
        manager.start()
        await arrivals.next()
        manager.stop()
        manager.start()
        for gate in gates.withLock({ $0 }) { gate.resume() }
        await arrivals.next()
        #expect(mostAtOnce.withLock { $0 } == 1)
        manager.stop()
        for gate in gates.withLock({ $0 }).dropFirst() { gate.resume() }
    }

    @Test("the status shows the progress of a sync as its batches are uploaded")
    func progress() async throws {
        let world = try SyncWorld()
        let phone = try world.device("phone", batchSize: 2)
        for index in 0..<5 { _ = try await phone.plans.createPlan(Fixture.plan("Plan \(index)")) }
        let manager = BackgroundSyncManager(service: phone.plans, context: TrainContext(clock: phone.clock))
        var updates = manager.statusUpdates().makeAsyncIterator()
        manager.start()
        var uploaded: [Int] = []
        while let status = await updates.next() {
            if case .syncing(let progress, _) = status { uploaded.append(progress.uploaded) }
            if Self.isIdle(status) { break }
        }
        manager.stop()
        #expect(uploaded.starts(with: [0, 2, 4, 5]))
        #expect(try phone.plans.pendingCount() == 0)
    }
}
