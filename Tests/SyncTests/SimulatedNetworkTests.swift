import Foundation
import Testing
import TrainAuth
import TrainCore
import TrainSync
import TrainTesting

@Suite(.timeLimit(.minutes(1))) struct SimulatedNetworkTests {
    let clock = ManualClock()
    let remote: LocalRemotePlanStore
    let network: SimulatedNetwork
    let auth = FakeAuthService()
    let plans: LocalPlanSyncService

    init() {
        remote = LocalRemotePlanStore(context: TrainContext(clock: clock))
        network = SimulatedNetwork(remote: remote, clock: clock)
        auth.setCurrentUser(UserEntity(id: "ada", displayName: "Ada", createdAt: clock.now, lastSignInAt: clock.now))
        plans = LocalPlanSyncService(auth: auth, remote: network, context: TrainContext(clock: clock))
    }

    func plan(_ name: String) -> TrainingPlan {
        TrainingPlan(name: name, startDate: clock.now, endDate: clock.now.addingTimeInterval(86_400), daysPerWeek: 3)
    }

    @Test("offline, a sync fails at once with remoteUnavailable and the edit waits on the device; online again, it uploads")
    func offline() async throws {
        network.conditions = .offline
        let plan = try await plans.createPlan(plan("10k"))
        await #expect(throws: SyncError(.remoteUnavailable)) { try await plans.sync() }
        #expect(try plans.status(ofPlan: plan.id) == .notSynced)
        #expect(try await remote.snapshot(in: RemoteScope(userID: "ada", collection: "plans"), after: nil, limit: 10).records.isEmpty)
        network.conditions = .online
        try await plans.sync()
        #expect(try plans.status(ofPlan: plan.id) == .synced)
    }

    @Test("a failing remote is reached after the latency and fails with remoteUnavailable")
    func failing() async throws {
        network.conditions = try NetworkConditions(reach: .serverError, latency: .seconds(2))
        _ = try await plans.createPlan(plan("10k"))
        let sync = Task { try await plans.sync() }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(2))
        await #expect(throws: SyncError(.remoteUnavailable)) { try await sync.value }
    }

    @Test("a slow network answers a call once its latency has passed on the clock, and not before")
    func slow() async throws {
        network.conditions = try .slow(.seconds(3))
        let plan = try await plans.createPlan(plan("10k"))
        let upload = Task { try await plans.uploadPlan(id: plan.id) }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(2))
        #expect(clock.sleeperCount == 1, "2 of 3 seconds: the call is still on its way")
        #expect(try plans.status(ofPlan: plan.id) == .notSynced)
        clock.advance(by: .seconds(1))
        #expect(try await upload.value == .synced)
    }

    @Test("a negative latency is a typed error")
    func negativeLatency() throws {
        #expect(throws: SyncError(.invalidConfiguration)) { try NetworkConditions.slow(.seconds(-1)) }
        #expect(throws: SyncError(.invalidConfiguration)) { try NetworkConditions(reach: .serverError, latency: .milliseconds(-1)) }
        #expect(network.conditions == .online, "the network's conditions are unchanged")
        let slow = try NetworkConditions.slow(.seconds(3))
        #expect("\(slow)" == "online, 3.0 seconds a call")
    }

    @Test("the remote's change signals pass while online, and the network's coming back is a signal to sync")
    func signals() async throws {
        var triggers = plans.syncTriggers().makeAsyncIterator()
        let tablet = FakeAuthService()
        tablet.setCurrentUser(auth.currentUser)
        let other = LocalPlanSyncService(auth: tablet, remote: remote, context: TrainContext(clock: clock))
        _ = try await other.createPlan(plan("From the tablet"))
        try await other.sync()
        #expect(await triggers.next() == .remoteChange, "online, the tablet's commit is news")
        try await plans.sync()

        network.conditions = .offline
        network.conditions = .online
        #expect(await triggers.next() == .remoteChange, "the network came back: sync now")
    }
}
