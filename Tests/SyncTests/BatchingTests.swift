import Foundation
import Testing
import TrainSync
import TrainTesting

@Suite struct BatchingTests {
    @Test("uploads go in batches of at most the batch size")
    func batchesOfAtMostTheSize() async throws {
        let world = try SyncWorld()
        let remote = InterposedRemote(world.remote)
        let phone = try world.device("phone", batchSize: 40, remote: remote)
        for index in 0..<100 { _ = try await phone.plans.createPlan(Fixture.plan("Plan \(index)")) }
        let report = try await phone.plans.sync()
        #expect(report.uploaded == 100)
        #expect(remote.calls.withLock { $0 }.filter { $0 != .changes } == [.write(count: 40), .write(count: 40), .write(count: 20)])
    }

    @Test("a batch the remote calls too large is halved until it fits; nothing is lost")
    func halvesOnTooLarge() async throws {
        let world = try SyncWorld(configuration: RemoteConfiguration(maximumBatchCount: 30))
        let remote = InterposedRemote(world.remote)
        let phone = try world.device("phone", batchSize: 100, remote: remote)
        for index in 0..<70 { _ = try await phone.plans.createPlan(Fixture.plan("Plan \(index)")) }
        let report = try await phone.plans.sync()
        #expect(report.uploaded == 70)
        let writes = remote.calls.withLock { $0 }.compactMap { if case .write(let count) = $0 { count } else { nil } }
        #expect(writes.prefix(3) == [70, 35, 17])
        #expect(writes.dropFirst(2).allSatisfy { $0 <= 17 })
        #expect(try await world.remotePlans().count == 70)
    }

    @Test("when a later batch fails, the earlier batches stay uploaded and the rest stays queued")
    func partialFailure() async throws {
        let world = try SyncWorld()
        let remote = InterposedRemote(world.remote)
        let phone = try world.device("phone", batchSize: 25, remote: remote)
        for index in 0..<60 { _ = try await phone.plans.createPlan(Fixture.plan("Plan \(index)")) }
        remote.onCall { call, index in index == 2 ? .fail : .pass }
        await #expect(throws: SyncError(.remoteUnavailable)) { try await phone.plans.sync() }
        #expect(try phone.plans.pendingCount() == 35)
        #expect(try await world.remotePlans().count == 25)
        remote.onCall { _, _ in .pass }
        _ = try await phone.plans.sync()
        #expect(try phone.plans.pendingCount() == 0)
        #expect(try await world.remotePlans().count == 60)
    }

    @Test("a plan the remote refuses for good goes to the dead letters and the others upload; editing it queues it again")
    func deadLetter() async throws {
        // The remote takes 4,000 bytes and does not say so (an interposed remote declares
        // the default 1 MiB), so the device sends the huge plan and the remote refuses it.
        let world = try SyncWorld(configuration: RemoteConfiguration(maximumDocumentBytes: 4_000), wrap: { InterposedRemote($0) })
        let phone = try world.device("phone")
        let huge = try await phone.plans.createPlan(Fixture.plan("Huge", notes: String(repeating: "x", count: 5_000)))
        for index in 0..<3 { _ = try await phone.plans.createPlan(Fixture.plan("Plan \(index)")) }
        let report = try await phone.plans.sync()
        #expect(report.uploaded == 3)
        #expect(report.rejected == 1)
        #expect(try phone.plans.deadLetters().map(\.recordID) == [huge.id])
        #expect(try phone.plans.status(ofPlan: huge.id) == .conflict)
        #expect(try phone.plans.pendingCount() == 0)
        var trimmed = huge
        trimmed.notes = "Shorter"
        _ = try await phone.plans.updatePlan(trimmed)
        #expect(try phone.plans.deadLetters().isEmpty)
        _ = try await phone.plans.sync()
        #expect(try phone.plans.status(ofPlan: huge.id) == .synced)
        #expect(try await world.remotePlans().count == 4)
    }
}
