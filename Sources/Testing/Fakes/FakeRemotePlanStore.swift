import Foundation
import TrainCore
import TrainSync

/// A `RemotePlanStore` for tests of sync code: it behaves as a real remote (an
/// in-memory `LocalRemotePlanStore`) and lets the test break the network.
///
/// Calls are recorded; scripted results replace the remote's answers. Besides the
/// shared ``controls`` (failures, latency on the test clock, held calls), it can lose
/// the answer of a write the remote committed — the ambiguous failure a retry must
/// not apply twice — and cut the network until ``heal()``.
///
/// ```swift
/// let remote = FakeRemotePlanStore(clock: clock)
/// let plans = LocalPlanSyncService(auth: auth, remote: remote)
/// _ = try await plans.createPlan(plan)
/// remote.loseNextAnswer()                        // committed, but the device hears nothing
/// await #expect(throws: SyncError(.remoteUnavailable)) { try await plans.sync() }
/// try await plans.sync()                         // the retry is not applied twice
/// ```
public final class FakeRemotePlanStore: RemotePlanStore, ScriptableFake {
    /// A recorded call.
    public enum Call: Hashable, Sendable {
        /// ``write(_:in:)``.
        case write([RemoteMutation], RemoteScope)
        /// ``changes(in:after:limit:)``.
        case changes(RemoteScope, after: UInt64, limit: Int)
        /// ``snapshot(in:after:limit:)``.
        case snapshot(RemoteScope, after: UUID?, limit: Int)
        /// ``erase(_:)``.
        case erase(RemoteScope)
    }

    /// Failure injection, latency, holding, scripts and left-overs.
    public let controls: FakeControls<Call>
    /// The remote that answers unscripted calls.
    public let remote: LocalRemotePlanStore
    private let network = Locked((isPartitioned: false, answersToLose: 0))

    /// Creates a fake over an empty in-memory remote.
    /// - Parameters:
    ///   - policy: The remote's limits, retention and clock; its clock is `clock` when one is given.
    ///   - strict: Whether a call nobody scripted fails the test (and throws) instead of
    ///     reaching the remote.
    ///   - clock: The clock latency sleeps on and the remote tells time by.
    public init(policy: RemotePolicy = RemotePolicy(), strict: Bool = false, clock: (any DateClock)? = nil) {
        var policy = policy
        if let clock { policy.clock = clock }
        remote = LocalRemotePlanStore(policy: policy)
        controls = FakeControls(fakeName: "FakeRemotePlanStore", strict: strict, clock: clock)
    }

    /// Whether unscripted calls fail the test.
    public var isStrict: Bool { controls.isStrict }

    /// Cuts the network: every call fails with `unavailable` without reaching the
    /// remote, until ``heal()``.
    public func partition() {
        network.withLock { $0.isPartitioned = true }
    }

    /// Ends a ``partition()``.
    public func heal() {
        network.withLock { $0.isPartitioned = false }
    }

    /// Whether the network is cut.
    public var isPartitioned: Bool { network.withLock { $0.isPartitioned } }

    /// The next write the remote commits loses its answer: the caller gets
    /// `unavailable` although the write took effect. Calling it twice loses two answers.
    public func loseNextAnswer() {
        network.withLock { $0.answersToLose += 1 }
    }

    private static let unreachable = RemoteStoreError(.unavailable, detail: "The network is cut (FakeRemotePlanStore.partition()).")

    private func reachable() throws(RemoteStoreError) {
        if network.withLock({ $0.isPartitioned }) { throw Self.unreachable }
    }

    /// Applies the writes on the remote unless scripted; then, if an answer is to be
    /// lost, throws `unavailable` after the remote committed.
    public func write(_ mutations: [RemoteMutation], in scope: RemoteScope) async throws -> RemoteWriteResponse {
        let response = try await controls.perform(.write(mutations, scope), method: FakeMethod<FakeRemotePlanStore, RemoteWriteResponse>.write.name) {
            try reachable()
            return try remote.writeNow(mutations, in: scope)
        }
        let loses = network.withLock { network in
            guard network.answersToLose > 0 else { return false }
            network.answersToLose -= 1
            return true
        }
        if loses {
            throw RemoteStoreError(
                .unavailable, detail: "The remote committed the write and the answer was lost (FakeRemotePlanStore.loseNextAnswer()).")
        }
        return response
    }

    /// The remote's change feed, unless scripted.
    public func changes(in scope: RemoteScope, after cursor: UInt64, limit: Int) async throws -> RemotePage {
        try await controls.perform(.changes(scope, after: cursor, limit: limit), method: FakeMethod<FakeRemotePlanStore, RemotePage>.changes.name) {
            try reachable()
            return try remote.changesNow(in: scope, after: cursor, limit: limit)
        }
    }

    /// The remote's snapshot, unless scripted.
    public func snapshot(in scope: RemoteScope, after recordID: UUID?, limit: Int) async throws -> RemotePage {
        try await controls.perform(.snapshot(scope, after: recordID, limit: limit), method: FakeMethod<FakeRemotePlanStore, RemotePage>.snapshot.name)
        {
            try reachable()
            return try remote.snapshotNow(in: scope, after: recordID, limit: limit)
        }
    }

    /// Erases the scope on the remote, unless scripted.
    public func erase(_ scope: RemoteScope) async throws -> Int {
        try await controls.perform(.erase(scope), method: FakeMethod<FakeRemotePlanStore, Int>.erase.name) {
            try reachable()
            return try remote.eraseNow(scope)
        }
    }
}

extension FakeMethod where Fake == FakeRemotePlanStore, Output == Int {
    /// ``FakeRemotePlanStore/erase(_:)``: the count, instead of the remote's.
    public static var erase: Self { Self("erase(_:)") }
}

extension FakeMethod where Fake == FakeRemotePlanStore, Output == RemoteWriteResponse {
    /// ``FakeRemotePlanStore/write(_:in:)``: the results, instead of the remote's.
    public static var write: Self { Self("write(_:in:)") }
}

extension FakeMethod where Fake == FakeRemotePlanStore, Output == RemotePage {
    /// ``FakeRemotePlanStore/changes(in:after:limit:)``: the page, instead of the remote's.
    public static var changes: Self { Self("changes(in:after:limit:)") }

    /// ``FakeRemotePlanStore/snapshot(in:after:limit:)``: the page, instead of the remote's.
    public static var snapshot: Self { Self("snapshot(in:after:limit:)") }
}
