import Foundation
import Testing
import TrainAuth
import TrainCore
import TrainSync
import TrainTesting

@Suite struct FakeRemotePlanStoreTests {
    static func device(_ remote: FakeRemotePlanStore, clock: ManualClock) -> LocalPlanSyncService {
        let auth = FakeAuthService()
        auth.setCurrentUser(UserEntity(id: "ada", displayName: "Ada", createdAt: clock.now, lastSignInAt: clock.now))
        return LocalPlanSyncService(auth: auth, remote: remote, context: TrainContext(clock: clock))
    }

    static func plan(_ name: String) -> TrainingPlan {
        TrainingPlan(name: name, startDate: ManualClock.defaultStart, endDate: ManualClock.defaultStart.addingTimeInterval(86_400), daysPerWeek: 3)
    }

    @Test("a lost answer leaves the write committed: the device's retry is not applied twice")
    func lostAnswer() async throws {
        let clock = ManualClock()
        let remote = FakeRemotePlanStore.inMemory(clock: clock)
        let plans = Self.device(remote, clock: clock)
        _ = try await plans.createPlan(Self.plan("Base"))
        remote.loseNextAnswer()
        await #expect(throws: SyncError(.remoteUnavailable)) { try await plans.sync() }
        let scope = RemoteScope(userID: "ada", collection: "plans")
        #expect(try await #require(remote.remote).changes(in: scope, after: 0, limit: 10).records.count == 1)
        try await plans.sync()
        #expect(try await #require(remote.remote).changes(in: scope, after: 0, limit: 10).records.map(\.version) == [1])
        #expect(remote.calls.filter { $0.isCall(of: .write) }.count == 2)
    }

    @Test("a partition fails every call without reaching the remote until it heals")
    func partition() async throws {
        let clock = ManualClock()
        let remote = FakeRemotePlanStore.inMemory(clock: clock)
        let plans = Self.device(remote, clock: clock)
        let plan = try await plans.createPlan(Self.plan("Base"))
        remote.partition()
        await #expect(throws: SyncError(.remoteUnavailable)) { try await plans.sync() }
        #expect(try await #require(remote.remote).changes(in: RemoteScope(userID: "ada", collection: "plans"), after: 0, limit: 10).records.isEmpty)
        #expect(try plans.status(ofPlan: plan.id) == .notSynced)
        remote.heal()
        try await plans.sync()
        #expect(try plans.status(ofPlan: plan.id) == .synced)
    }

    @Test("latency is spent on the test clock, and a held call waits for the test")
    func latencyAndHolds() async throws {
        let clock = ManualClock()
        let remote = FakeRemotePlanStore.inMemory(clock: clock)
        let plans = Self.device(remote, clock: clock)
        remote.controls.latency = .seconds(2)
        let sync = Task { try await plans.sync() }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(2))
        _ = try await sync.value
        remote.controls.latency = nil
        remote.controls.holdCalls()
        let held = Task { try await plans.download() }
        await remote.controls.waitForHeldCalls(1)
        remote.controls.releaseHeldCalls()
        #expect(try await held.value.remoteCalls == 1)
    }

    @Test("a scripted page replaces the remote's, and a fake with no remote behind it fails an unscripted call")
    func scriptsAndStrictness() async throws {
        let remote = FakeRemotePlanStore.inMemory()
        let scope = RemoteScope(userID: "ada", collection: "plans")
        remote.script(.changes, .once(.failure(RemoteStoreError(.cursorExpired))))
        await #expect(throws: RemoteStoreError(.cursorExpired)) { _ = try await remote.changes(in: scope, after: 5, limit: 10) }
        #expect(remote.calls == [.changes(scope, 5, 10)])
        let strict = FakeRemotePlanStore()
        #expect(strict.isStrict && !remote.isStrict)
        await withKnownIssue {
            await #expect(throws: FakeError.self) { _ = try await strict.snapshot(in: scope, after: nil, limit: 10) }
        } matching: {
            FakeIssue.isUnscriptedCall($0, "FakeRemotePlanStore.snapshot(in:after:limit:)")
        }
        #expect(remote.finish().isEmpty)
    }
}
