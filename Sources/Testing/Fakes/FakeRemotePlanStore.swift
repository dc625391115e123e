import Foundation
import TrainCore
import TrainSync

/// A `RemotePlanStore` for tests of sync code: in front of a real remote (an
/// in-memory `LocalRemotePlanStore`), it lets the test break the network.
///
/// Calls are recorded; scripted results replace the remote's answers. Besides the
/// shared ``controls`` (failures, latency on the test clock, held calls), it can lose
/// the answer of a write the remote committed — the ambiguous failure a retry must
/// not apply twice — cut the network until ``heal()``, and answer as a broken or
/// hostile backend would (``misbehave(_:)``), so a test shows what an app does when
/// the sync refuses such an answer. Made with ``init(clock:)`` it has no remote
/// behind it and is strict: a call nobody scripted fails the test.
///
/// ```swift
/// let remote = FakeRemotePlanStore.inMemory(clock: clock)
/// let plans = LocalPlanSyncService(auth: auth, remote: remote)
/// _ = try await plans.createPlan(plan)
/// remote.loseNextAnswer()                        // committed, but the device hears nothing
/// await #expect(throws: SyncError(.remoteUnavailable)) { try await plans.sync() }
/// try await plans.sync()                         // the retry is not applied twice
/// ```
public final class FakeRemotePlanStore: RemotePlanStore, ScriptableFake, BackedFake {
    /// A recorded call: the method, declared once below, applied to its arguments.
    public typealias Call = FakeCall<FakeRemotePlanStore>

    /// A way the remote breaks its contract, as a backend with a bug or a wrong
    /// configuration does. The sync refuses each with a typed `SyncError` and stores
    /// nothing of the answer.
    public enum Misbehavior: Hashable, Sendable {
        /// The change feed answers the records after cursor 0 with the cursor it was
        /// given and "more follow", forever.
        case endlessChangeFeed
        /// Every snapshot page is the first page again, with "more follow".
        case repeatingSnapshot
        /// Pages hold twice the records asked for, when the remote has them.
        case oversizedPages
        /// Pages also hold the records of the user with this ID, after the page's own.
        case foreignRecords(ofUser: String)
        /// Each record of a page comes under a new ID, with its document unchanged.
        case mismatchedRecordIDs
        /// Each record of a page comes with its document cut short by a byte.
        case unreadableDocuments
        /// Every answer tells a time this far from the remote's clock.
        case serverTimeOffset(Duration)
        /// A write whose mutation ID was seen before is answered with the version of
        /// that earlier write, whatever record it writes, as a remote that keeps mutation
        /// IDs without what they wrote does; two devices with one replica ID then lose
        /// writes.
        case acknowledgesReusedMutationIDs
    }

    private struct Network {
        var isPartitioned = false
        var answersToLose = 0
        var misbehaviors: Set<Misbehavior> = []
        /// The version each mutation was applied at, for ``Misbehavior/acknowledgesReusedMutationIDs``.
        var applied: [MutationID: UInt64] = [:]
    }

    /// Failure injection, latency, holding, scripts and left-overs.
    public let controls: FakeControls<Call>
    /// The remote that answers unscripted calls; nil for a strict fake.
    public let remote: LocalRemotePlanStore?
    private let network = Locked(Network())
    /// The remote, as the service unscripted calls go to.
    var service: LocalRemotePlanStore? { remote }

    /// Creates a strict fake with no remote behind it: every call needs a script.
    /// - Parameter clock: The clock latency sleeps on.
    public init(clock: (any DateClock)? = nil) {
        remote = nil
        controls = FakeControls(fakeName: "FakeRemotePlanStore", clock: clock)
    }

    /// Creates a fake in front of `remote`: calls nobody scripted reach it, through the
    /// network the fake breaks.
    /// - Parameters:
    ///   - remote: The remote.
    ///   - clock: The clock latency sleeps on.
    public init(backedBy remote: LocalRemotePlanStore, clock: (any DateClock)? = nil) {
        self.remote = remote
        controls = FakeControls(fakeName: "FakeRemotePlanStore", strict: false, clock: clock)
    }

    /// A fake in front of a new, empty remote in memory.
    /// - Parameters:
    ///   - configuration: The remote's limits, retention and who may write.
    ///   - clock: The clock latency sleeps on and the remote tells time by; the system's when nil.
    /// - Returns: The fake.
    public static func inMemory(configuration: RemoteConfiguration = RemoteConfiguration(), clock: (any DateClock)? = nil) -> FakeRemotePlanStore {
        let context = clock.map { TrainContext(clock: $0) } ?? .live
        return FakeRemotePlanStore(backedBy: LocalRemotePlanStore(context: context, configuration: configuration), clock: clock)
    }

    /// A fake in front of a new, empty remote in memory.
    /// - Parameters:
    ///   - policy: The remote's limits, retention and clock; its clock is `clock` when one is given.
    ///   - clock: The clock latency sleeps on and the remote tells time by.
    /// - Returns: The fake.
    @available(*, deprecated, renamed: "inMemory(configuration:clock:)")
    public static func inMemory(policy: RemoteConfiguration, clock: (any DateClock)? = nil) -> FakeRemotePlanStore {
        var configuration = policy
        configuration.legacy = LegacyContext()
        return inMemory(configuration: configuration, clock: clock ?? policy.legacy.clock)
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

    /// Starts answering as `misbehavior` says, besides any misbehavior already started.
    /// - Parameter misbehavior: How the remote breaks its contract.
    public func misbehave(_ misbehavior: Misbehavior) {
        network.withLock { _ = $0.misbehaviors.insert(misbehavior) }
    }

    /// Stops every misbehavior: the remote keeps its contract again.
    public func behave() {
        network.withLock { $0.misbehaviors = [] }
    }

    /// The misbehaviors started and not stopped.
    public var misbehaviors: Set<Misbehavior> { network.withLock { $0.misbehaviors } }

    /// The remote's largest document; 1 MiB without a remote.
    public var maximumDocumentBytes: Int { remote?.maximumDocumentBytes ?? RemoteConfiguration().maximumDocumentBytes }

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
        let response = try await perform(.write, mutations, scope) { remote in
            try self.reachable()
            return try self.misbehaving(writes: mutations, in: scope, on: remote)
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
        try await perform(.changes, scope, cursor, limit) { remote in
            try self.reachable()
            let misbehaviors = self.misbehaviors
            let asked = misbehaviors.contains(.oversizedPages) ? limit * 2 : limit
            var page = try remote.changesNow(in: scope, after: misbehaviors.contains(.endlessChangeFeed) ? 0 : cursor, limit: asked)
            if misbehaviors.contains(.endlessChangeFeed) {
                page = RemotePage(records: page.records, cursor: cursor, hasMore: true, serverTime: page.serverTime)
            }
            return try self.misbehaving(page, in: scope, misbehaviors) { (other) throws(RemoteStoreError) in
                try remote.changesNow(in: other, after: 0, limit: limit).records
            }
        }
    }

    /// The remote's snapshot, unless scripted.
    public func snapshot(in scope: RemoteScope, after recordID: UUID?, limit: Int) async throws -> RemotePage {
        try await perform(.snapshot, scope, recordID, limit) { remote in
            try self.reachable()
            let misbehaviors = self.misbehaviors
            let asked = misbehaviors.contains(.oversizedPages) ? limit * 2 : limit
            var page = try remote.snapshotNow(in: scope, after: misbehaviors.contains(.repeatingSnapshot) ? nil : recordID, limit: asked)
            if misbehaviors.contains(.repeatingSnapshot) {
                page = RemotePage(records: page.records, cursor: page.cursor, hasMore: true, serverTime: page.serverTime)
            }
            return try self.misbehaving(page, in: scope, misbehaviors) { (other) throws(RemoteStoreError) in
                try remote.snapshotNow(in: other, after: nil, limit: limit).records
            }
        }
    }

    /// Erases the scope on the remote, unless scripted.
    public func erase(_ scope: RemoteScope) async throws -> Int {
        try await perform(.erase, scope) { remote in
            try self.reachable()
            return try remote.eraseNow(scope)
        }
    }

    /// The remote's signals of the commits to `scope`, which every write through the
    /// fake, scripted ones aside, makes as the remote does; without a remote, none.
    /// - Parameter scope: The user and collection to follow.
    /// - Returns: A stream that ends when the consumer stops.
    public func changeSignals(for scope: RemoteScope) -> AsyncStream<RemoteChangeSignal> {
        controls.recordSubscription(.changeSignals(scope))
        return remote?.changeSignals(for: scope) ?? AsyncStream { $0.finish() }
    }

    // MARK: - Misbehaving

    /// The remote's answer to a batch of writes, as the misbehaviors change it.
    private func misbehaving(writes mutations: [RemoteMutation], in scope: RemoteScope, on remote: LocalRemotePlanStore) throws(RemoteStoreError)
        -> RemoteWriteResponse
    {
        let misbehaviors = self.misbehaviors
        var response: RemoteWriteResponse
        if misbehaviors.contains(.acknowledgesReusedMutationIDs) {
            let known = network.withLock { network in mutations.map { network.applied[$0.id] } }
            let fresh = zip(mutations, known).filter { $0.1 == nil }.map(\.0)
            let answers = try remote.writeNow(fresh, in: scope)
            var results = answers.results.makeIterator()
            response = RemoteWriteResponse(
                results: known.map { version in version.map { .applied(version: $0) } ?? results.next() ?? .rejected(reason: "no answer") },
                serverTime: answers.serverTime)
        } else {
            response = try remote.writeNow(mutations, in: scope)
        }
        network.withLock { network in
            for (mutation, result) in zip(mutations, response.results) {
                if case .applied(let version) = result, network.applied[mutation.id] == nil { network.applied[mutation.id] = version }
            }
        }
        if case .serverTimeOffset(let offset)? = misbehaviors.first(where: { if case .serverTimeOffset = $0 { true } else { false } }) {
            response = RemoteWriteResponse(results: response.results, serverTime: response.serverTime.addingTimeInterval(offset.timeInterval))
        }
        return response
    }

    /// A page as the misbehaviors change it; `foreign` reads another scope's records.
    private func misbehaving(
        _ page: RemotePage, in scope: RemoteScope, _ misbehaviors: Set<Misbehavior>, foreign: (RemoteScope) throws(RemoteStoreError) -> [RemoteRecord]
    ) throws(RemoteStoreError) -> RemotePage {
        var records = page.records
        var cursor = page.cursor
        var serverTime = page.serverTime
        for misbehavior in misbehaviors {
            switch misbehavior {
            case .foreignRecords(let user):
                // Numbered after the page's own records, so only their owner gives them away.
                for record in try foreign(RemoteScope(userID: user, collection: scope.collection)) {
                    cursor += 1
                    records.append(
                        RemoteRecord(
                            id: record.id, version: cursor, isDeleted: record.isDeleted, mutation: record.mutation, document: record.document))
                }
            case .mismatchedRecordIDs:
                records = records.map {
                    RemoteRecord(id: UUID(), version: $0.version, isDeleted: $0.isDeleted, mutation: $0.mutation, document: $0.document)
                }
            case .unreadableDocuments:
                records = records.map {
                    RemoteRecord(id: $0.id, version: $0.version, isDeleted: $0.isDeleted, mutation: $0.mutation, document: $0.document.dropLast())
                }
            case .serverTimeOffset(let offset):
                serverTime = serverTime.addingTimeInterval(offset.timeInterval)
            case .endlessChangeFeed, .repeatingSnapshot, .oversizedPages, .acknowledgesReusedMutationIDs:
                break
            }
        }
        return RemotePage(records: records, cursor: cursor, hasMore: page.hasMore, serverTime: serverTime)
    }
}

extension FakeMethods where Fake == FakeRemotePlanStore {
    /// ``FakeRemotePlanStore/write(_:in:)``: the results, instead of the remote's.
    public static var write: FakeMethod<FakeRemotePlanStore, RemoteWriteResponse, [RemoteMutation], RemoteScope> { .init("write(_:in:)") }

    /// ``FakeRemotePlanStore/changes(in:after:limit:)``: the page, instead of the remote's.
    public static var changes: FakeMethod<FakeRemotePlanStore, RemotePage, RemoteScope, UInt64, Int> { .init("changes(in:after:limit:)") }

    /// ``FakeRemotePlanStore/snapshot(in:after:limit:)``: the page, instead of the remote's.
    public static var snapshot: FakeMethod<FakeRemotePlanStore, RemotePage, RemoteScope, UUID?, Int> { .init("snapshot(in:after:limit:)") }

    /// ``FakeRemotePlanStore/erase(_:)``: the count, instead of the remote's.
    public static var erase: FakeMethod<FakeRemotePlanStore, Int, RemoteScope> { .init("erase(_:)") }

    /// ``FakeRemotePlanStore/changeSignals(for:)``.
    public static var changeSignals: FakeMethod<FakeRemotePlanStore, AsyncStream<RemoteChangeSignal>, RemoteScope> { .init("changeSignals(for:)") }
}
