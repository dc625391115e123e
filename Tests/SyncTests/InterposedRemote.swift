import Foundation
import TrainCore
import TrainSync

/// A remote between a device and the real one that counts calls and bytes and lets a
/// test act on each call: run something first, fail it before it reaches the remote,
/// or let it commit and lose the answer.
final class InterposedRemote: RemotePlanStore {
    enum Call: Equatable, Sendable {
        case write(count: Int)
        case changes
        case snapshot
        case erase
    }

    enum Action: Sendable {
        case pass
        /// The request never arrives.
        case fail
        /// The remote commits, then the answer is lost.
        case loseAnswer
    }

    let inner: any RemotePlanStore
    let calls = Locked([Call]())
    let bytes = Locked(0)
    private let decide: Locked<@Sendable (Call, Int) async -> Action>

    init(_ inner: any RemotePlanStore, decide: @escaping @Sendable (Call, Int) async -> Action = { _, _ in .pass }) {
        self.inner = inner
        self.decide = Locked(decide)
    }

    /// Replaces what happens to the next calls.
    func onCall(_ decide: @escaping @Sendable (Call, Int) async -> Action) {
        self.decide.withLock { $0 = decide }
    }

    var writeCalls: Int { calls.withLock { $0.filter { if case .write = $0 { true } else { false } }.count } }

    private func act<Result>(_ call: Call, _ body: () async throws -> Result) async throws -> Result {
        let index = calls.withLock { calls in
            calls.append(call)
            return calls.count
        }
        let decide = decide.withLock { $0 }
        switch await decide(call, index) {
        case .pass: return try await body()
        case .fail: throw RemoteStoreError(.unavailable, detail: "The request was dropped.")
        case .loseAnswer:
            _ = try await body()
            throw RemoteStoreError(.unavailable, detail: "The answer was lost.")
        }
    }

    func write(_ mutations: [RemoteMutation], in scope: RemoteScope) async throws -> RemoteWriteResponse {
        bytes.withLock { $0 += mutations.reduce(0) { $0 + $1.document.count } }
        return try await act(.write(count: mutations.count)) { () async throws in try await inner.write(mutations, in: scope) }
    }

    func changes(in scope: RemoteScope, after cursor: UInt64, limit: Int) async throws -> RemotePage {
        let page = try await act(.changes) { () async throws in try await inner.changes(in: scope, after: cursor, limit: limit) }
        bytes.withLock { $0 += page.records.reduce(0) { $0 + $1.document.count } }
        return page
    }

    func snapshot(in scope: RemoteScope, after recordID: UUID?, limit: Int) async throws -> RemotePage {
        let page = try await act(.snapshot) { () async throws in try await inner.snapshot(in: scope, after: recordID, limit: limit)
        }
        bytes.withLock { $0 += page.records.reduce(0) { $0 + $1.document.count } }
        return page
    }

    func erase(_ scope: RemoteScope) async throws -> Int {
        try await act(.erase) { () async throws in try await inner.erase(scope) }
    }
}
