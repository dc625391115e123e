import Foundation
import TrainCore

/// How the network between a device and its remote behaves: how long a call takes
/// and whether it reaches a remote that answers.
///
/// ```swift
/// network.conditions = .offline                          // airplane mode
/// network.conditions = try .slow(.seconds(3))            // every call takes 3 s on the clock
/// ```
public struct NetworkConditions: Hashable, Sendable, CustomStringConvertible {
    /// Whether a call reaches a remote that answers.
    public enum Reach: Hashable, Sendable {
        /// The call reaches the remote, which answers.
        case answered
        /// The device has no network: the call fails at once without reaching the remote.
        case unreachable
        /// The call reaches a remote that fails with a server error, after the latency.
        case serverError
    }

    /// Whether a call reaches a remote that answers.
    public let reach: Reach
    /// How long a call takes on the clock before it is answered; zero or more.
    public let latency: Duration

    /// Creates conditions.
    /// - Parameters:
    ///   - reach: Whether a call reaches a remote that answers.
    ///   - latency: How long a call takes on the clock; zero by default.
    /// - Throws: ``TrainCore/TrainErrorCode/invalidConfiguration`` for a negative latency.
    public init(reach: Reach = .answered, latency: Duration = .zero) throws(SyncError) {
        guard latency >= .zero else {
            throw SyncError(.invalidConfiguration, detail: "A network's latency cannot be negative: \(latency).")
        }
        self.init(checked: reach, latency: latency)
    }

    private init(checked reach: Reach, latency: Duration) {
        self.reach = reach
        self.latency = latency
    }

    /// Every call reaches the remote and is answered at once.
    public static let online = NetworkConditions(checked: .answered, latency: .zero)
    /// No network: every call fails at once with `unavailable`, as in airplane mode.
    public static let offline = NetworkConditions(checked: .unreachable, latency: .zero)
    /// Every call reaches a remote that fails with a server error (`unavailable`).
    public static let failing = NetworkConditions(checked: .serverError, latency: .zero)

    /// Every call is answered after `latency` on the clock.
    /// - Parameter latency: How long each call takes; zero or more.
    /// - Returns: The conditions.
    /// - Throws: ``TrainCore/TrainErrorCode/invalidConfiguration`` for a negative latency.
    public static func slow(_ latency: Duration) throws(SyncError) -> NetworkConditions {
        try NetworkConditions(latency: latency)
    }

    /// The conditions in a few words, for logs.
    public var description: String {
        let reach =
            switch reach {
            case .answered: "online"
            case .unreachable: "offline"
            case .serverError: "failing"
            }
        return latency == .zero ? reach : "\(reach), \(latency) a call"
    }
}

/// A remote behind a simulated network, for prototypes and tests: it passes each call
/// to the remote under the ``conditions`` of the moment — online, offline, failing or
/// slow on the injected clock — which an app or a test changes at any time.
///
/// ```swift
/// let network = SimulatedNetwork(remote: LocalRemotePlanStore(), clock: clock)
/// let plans = LocalPlanSyncService(auth: auth, remote: network)
/// network.conditions = .offline
/// _ = try await plans.createPlan(plan)                   // saved here, waiting to upload
/// network.conditions = .online                           // a following device syncs at once
/// ```
///
/// While the remote cannot be reached its change signals are not passed on; when it
/// can again, each device following a scope gets a signal, so background sync runs
/// as it would when a phone's network comes back.
public final class SimulatedNetwork: RemotePlanStore {
    private struct Followers {
        var streams: [Int: AsyncStream<RemoteChangeSignal>.Continuation] = [:]
        var nextID = 0
    }

    /// The remote the calls reach.
    public let remote: any RemotePlanStore
    /// The clock latency is spent on.
    public let clock: any DateClock
    private let current: Locked<NetworkConditions>
    private let followers = Locked(Followers())

    /// Puts `remote` behind a network.
    /// - Parameters:
    ///   - remote: The remote the calls reach.
    ///   - conditions: How the network behaves at first; online by default.
    ///   - clock: The clock latency is spent on; the system's by default.
    public init(remote: any RemotePlanStore, conditions: NetworkConditions = .online, clock: any DateClock = SystemClock()) {
        self.remote = remote
        self.clock = clock
        current = Locked(conditions)
    }

    /// How the network behaves now. A call already under way keeps the conditions it
    /// started with.
    public var conditions: NetworkConditions {
        get { current.withLock { $0 } }
        set {
            let wasAnswering = current.withLock { conditions in
                defer { conditions = newValue }
                return conditions.reach == .answered
            }
            if !wasAnswering, newValue.reach == .answered { signalReconnection() }
        }
    }

    /// Spends the latency, then throws unless the remote answers.
    private func cross() async throws {
        let conditions = conditions
        if conditions.reach == .unreachable {
            throw RemoteStoreError(.unavailable, detail: "The simulated network is offline.")
        }
        if conditions.latency > .zero { try await clock.sleep(for: conditions.latency) }
        if conditions.reach == .serverError {
            throw RemoteStoreError(.unavailable, detail: "The simulated remote failed with a server error.")
        }
    }

    /// Passes the write to the remote under the conditions of the moment.
    public func write(_ mutations: [RemoteMutation], in scope: RemoteScope) async throws -> RemoteWriteResponse {
        try await cross()
        return try await remote.write(mutations, in: scope)
    }

    /// Passes the read to the remote under the conditions of the moment.
    public func changes(in scope: RemoteScope, after cursor: UInt64, limit: Int) async throws -> RemotePage {
        try await cross()
        return try await remote.changes(in: scope, after: cursor, limit: limit)
    }

    /// Passes the read to the remote under the conditions of the moment.
    public func snapshot(in scope: RemoteScope, after recordID: UUID?, limit: Int) async throws -> RemotePage {
        try await cross()
        return try await remote.snapshot(in: scope, after: recordID, limit: limit)
    }

    /// Passes the erase to the remote under the conditions of the moment.
    public func erase(_ scope: RemoteScope) async throws -> Int {
        try await cross()
        return try await remote.erase(scope)
    }

    /// The remote's signals for `scope` while it can be reached, and a signal each
    /// time it can be reached again.
    /// - Parameter scope: The user and collection to follow.
    /// - Returns: A stream that ends when the consumer stops.
    public func changeSignals(for scope: RemoteScope) -> AsyncStream<RemoteChangeSignal> {
        let (stream, continuation) = AsyncStream<RemoteChangeSignal>.makeStream(bufferingPolicy: .bufferingNewest(16))
        let id = followers.withLock { followers in
            defer { followers.nextID += 1 }
            followers.streams[followers.nextID] = continuation
            return followers.nextID
        }
        let signals = remote.changeSignals(for: scope)
        let relay = Task { [weak self] in
            for await signal in signals {
                guard let self else { return }
                if self.conditions.reach == .answered { continuation.yield(signal) }
            }
            continuation.finish()
        }
        continuation.onTermination = { [weak self] _ in
            relay.cancel()
            self?.followers.withLock { _ = $0.streams.removeValue(forKey: id) }
        }
        return stream
    }

    /// Tells every follower the remote can be reached again.
    private func signalReconnection() {
        let streams = followers.withLock { Array($0.streams.values) }
        for continuation in streams { continuation.yield(RemoteChangeSignal(version: 0, writer: nil)) }
    }
}
