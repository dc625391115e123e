import Foundation
import TrainCore
import TrainSync
import TrainTesting

/// A network between devices and the remote that, until it heals, drops requests,
/// commits writes and loses the answer, delivers writes twice, and holds writes back
/// to deliver them later, after newer ones — each decision drawn from a seed.
final class ChaosRemote: RemotePlanStore {
    private struct State {
        var random: SeededRandomNumberGenerator
        var isHealed = false
        var delayed: [([RemoteMutation], RemoteScope)] = []
    }

    let inner: any RemotePlanStore
    let failureRate: Double
    private let state: Locked<State>

    init(_ inner: any RemotePlanStore, seed: UInt64, failureRate: Double = 0.3) {
        self.inner = inner
        self.failureRate = failureRate
        state = Locked(State(random: SeededRandomNumberGenerator(seed: seed ^ 0x5EED)))
    }

    /// Delivers every held-back write, then lets every call through.
    func heal() async {
        let delayed = state.withLock { state in
            state.isHealed = true
            defer { state.delayed = [] }
            return state.delayed
        }
        for (mutations, scope) in delayed { _ = try? await inner.write(mutations, in: scope) }
    }

    /// A draw in 0..<1, or nil once healed; and a held-back write to deliver first, sometimes.
    private func draw() -> (Double?, ([RemoteMutation], RemoteScope)?) {
        state.withLock { state in
            guard !state.isHealed else { return (nil, nil) }
            var late: ([RemoteMutation], RemoteScope)?
            if !state.delayed.isEmpty, Double.random(in: 0..<1, using: &state.random) < 0.3 {
                late = state.delayed.remove(at: Int.random(in: 0..<state.delayed.count, using: &state.random))
            }
            return (Double.random(in: 0..<1, using: &state.random), late)
        }
    }

    private static let lost = RemoteStoreError(.unavailable, detail: "The network failed.")

    func write(_ mutations: [RemoteMutation], in scope: RemoteScope) async throws -> RemoteWriteResponse {
        let (roll, late) = draw()
        if let late { _ = try? await inner.write(late.0, in: late.1) }
        guard let roll, roll < failureRate else { return try await inner.write(mutations, in: scope) }
        switch roll / failureRate {
        case ..<0.3:
            throw Self.lost
        case ..<0.6:
            _ = try await inner.write(mutations, in: scope)
            throw Self.lost
        case ..<0.8:
            state.withLock { $0.delayed.append((mutations, scope)) }
            throw Self.lost
        default:
            _ = try? await inner.write(mutations, in: scope)
            return try await inner.write(mutations, in: scope)
        }
    }

    func changes(in scope: RemoteScope, after cursor: UInt64, limit: Int) async throws -> RemotePage {
        let (roll, late) = draw()
        if let late { _ = try? await inner.write(late.0, in: late.1) }
        if let roll, roll < failureRate / 2 { throw Self.lost }
        return try await inner.changes(in: scope, after: cursor, limit: limit)
    }

    func snapshot(in scope: RemoteScope, after recordID: UUID?, limit: Int) async throws -> RemotePage {
        let (roll, late) = draw()
        if let late { _ = try? await inner.write(late.0, in: late.1) }
        if let roll, roll < failureRate / 2 { throw Self.lost }
        return try await inner.snapshot(in: scope, after: recordID, limit: limit)
    }

    func erase(_ scope: RemoteScope) async throws -> Int {
        try await inner.erase(scope)
    }
}
