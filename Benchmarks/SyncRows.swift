import Foundation
import TrainAuth
import TrainCore
import TrainSync
import TrainTesting

/// PERF-4, PERF-4-NOOP and PERF-5: what a sync exchanges with the remote, and how
/// fast a device applies downloaded changes.
struct SyncRows {
    let directory: URL
    let quick: Bool

    var plans: Int { quick ? 2_000 : 10_000 }
    static let start = Date(timeIntervalSince1970: 1_767_571_200)

    static func plan(_ index: Int) -> TrainingPlan {
        TrainingPlan(
            name: "Plan \(index)", notes: "Three easy runs, one long run, strides on Fridays. Week \(index % 12).", startDate: start,
            endDate: start.addingTimeInterval(84 * 86_400), daysPerWeek: 4,
            weeklyWorkouts: [PlannedWorkout(title: "Easy run", minutes: 40), PlannedWorkout(title: "Long run", minutes: 90)])
    }

    /// A device signed in as `ada`, syncing through `remote`.
    static func device(_ remote: any RemotePlanStore, storage: StorageLocation = .inMemory, batchSize: Int = 500, checksAnswers: Bool = true) throws
        -> LocalPlanSyncService
    {
        let auth = FakeAuthService()
        auth.setCurrentUser(UserEntity(id: "ada", displayName: "Ada", createdAt: start, lastSignInAt: start))
        var configuration = SyncConfiguration<TrainingPlan>(batchSize: batchSize)
        configuration.checksAnswers = checksAnswers
        return try LocalPlanSyncService(
            auth: auth, remote: remote, storage: storage, context: TrainContext(clock: ManualClock(start: start)), configuration: configuration)
    }

    /// PERF-4: the bytes a device exchanges when 1% of the plans changed on another
    /// device, against a full sync that downloads every plan.
    func delta() throws -> BenchRow {
        let plans = plans
        let (ours, full) = try blocking {
            let remote = MeteredRemote(LocalRemotePlanStore())
            let phone = try Self.device(remote)
            for index in 0..<plans { _ = try await phone.createPlan(Self.plan(index)) }
            try await phone.sync()
            let tablet = try Self.device(remote)
            remote.reset()
            try await tablet.sync()
            let full = remote.total
            for plan in try phone.plans().prefix(plans / 100) {
                var edited = plan
                edited.notes += " Edited."
                _ = try await phone.updatePlan(edited)
            }
            try await phone.sync()
            remote.reset()
            try await tablet.sync()
            return (remote.total, full)
        }
        return BenchRow(
            id: "PERF-4", workload: "bytes a device's sync exchanges after 1% of \(plans / 1_000)k plans changed elsewhere, vs a full download",
            ours: Double(ours.bytes), baseline: Double(full.bytes), unit: "bytes", target: "ratio <= 0.02")
    }

    /// PERF-4-NOOP: the remote calls of a sync with nothing new over 10k plans, against 10.
    func noop() throws -> BenchRow {
        let plans = plans
        let (many, few) = try blocking {
            var calls: [Int] = []
            for count in [plans, 10] {
                let remote = MeteredRemote(LocalRemotePlanStore())
                let phone = try Self.device(remote)
                for index in 0..<count { _ = try await phone.createPlan(Self.plan(index)) }
                try await phone.sync()
                remote.reset()
                try await phone.sync()
                calls.append(remote.total.calls)
            }
            return (calls[0], calls[1])
        }
        return BenchRow(
            id: "PERF-4-NOOP", workload: "remote calls of a sync with nothing new, \(plans / 1_000)k plans vs 10", ours: Double(many),
            baseline: Double(few),
            unit: "calls", target: "ratio <= 1")
    }

    /// PERF-5: applying 10k downloaded plans to a file-backed device, against one bare
    /// SQLite transaction inserting 10k rows of the same size. The pages are read from
    /// the remote first, so only the device's work is timed.
    func apply() throws -> BenchRow {
        let plans = plans
        let pages = try blocking {
            let source = LocalRemotePlanStore()
            let phone = try Self.device(source)
            for index in 0..<plans { _ = try await phone.createPlan(Self.plan(index)) }
            try await phone.sync()
            var pages: [RemotePage] = []
            var cursor: UInt64 = 0
            repeat {
                let page = try await source.changes(in: RemoteScope(userID: "ada", collection: "plans"), after: cursor, limit: 500)
                pages.append(page)
                cursor = page.cursor
            } while pages.last?.hasMore == true
            return pages
        }
        let rows = pages.flatMap(\.records).map { (key: $0.id.uuidString.lowercased(), value: $0.document) }
        var round = 0
        let (ours, baseline) = try interleaved(
            rounds: quick ? 3 : 7,
            ours: {
                round += 1
                let file = directory.appendingPathComponent("sync-apply-\(round).sqlite")
                return try blocking {
                    let device = try Self.device(CannedRemote(pages), storage: .file(file))
                    return try seconds { _ = try blocking { try await device.download() } }
                }
            },
            baseline: {
                let bare = try BareSQLite(path: directory.appendingPathComponent("sync-bare-\(round).sqlite").path)
                return try seconds {
                    try bare.execute("BEGIN IMMEDIATE")
                    for row in rows { try bare.insert(key: row.key, value: row.value) }
                    try bare.execute("COMMIT")
                }
            })
        return BenchRow(
            id: "PERF-5", workload: "apply \(plans / 1_000)k downloaded plans, file-backed, vs one bare SQLite transaction of the rows",
            ours: ours * 1e3, baseline: baseline * 1e3, unit: "ms", target: "ratio <= 2")
    }
}

extension SyncRows {
    /// SYNC-CHECK: applying one downloaded page of 500 plans to a file-backed device
    /// with the checks of the remote's answers, against the same with them off.
    func checks() throws -> BenchRow {
        let pages = try blocking {
            let source = LocalRemotePlanStore()
            let phone = try Self.device(source)
            for index in 0..<500 { _ = try await phone.createPlan(Self.plan(index)) }
            try await phone.sync()
            return [try await source.changes(in: RemoteScope(userID: "ada", collection: "plans"), after: 0, limit: 500)]
        }
        var round = 0
        func apply(checking: Bool) throws -> Double {
            round += 1
            let file = directory.appendingPathComponent("sync-check-\(round).sqlite")
            return try blocking {
                let device = try Self.device(CannedRemote(pages), storage: .file(file), checksAnswers: checking)
                return try seconds { _ = try blocking { try await device.download() } }
            }
        }
        let (ours, baseline) = try interleaved(rounds: quick ? 5 : 21, ours: { try apply(checking: true) }, baseline: { try apply(checking: false) })
        return BenchRow(
            id: "SYNC-CHECK", workload: "apply a page of 500 downloaded plans, file-backed, with the remote's answers checked vs not",
            ours: ours * 1e3, baseline: baseline * 1e3, unit: "ms", target: "ratio <= 1.1")
    }
}

/// Counts the calls made to a remote and the bytes they carry: each record's
/// document and its ID, version and mutation ID.
final class MeteredRemote: RemotePlanStore {
    let inner: any RemotePlanStore
    private let meter = Locked((calls: 0, bytes: 0))

    init(_ inner: any RemotePlanStore) { self.inner = inner }

    var total: (calls: Int, bytes: Int) { meter.withLock { $0 } }

    func reset() { meter.withLock { $0 = (0, 0) } }

    private func count(_ records: Int, _ bytes: Int) {
        meter.withLock {
            $0.calls += 1
            $0.bytes += bytes + records * 48
        }
    }

    func write(_ mutations: [RemoteMutation], in scope: RemoteScope) async throws -> RemoteWriteResponse {
        count(mutations.count, mutations.reduce(0) { $0 + $1.document.count })
        return try await inner.write(mutations, in: scope)
    }

    func changes(in scope: RemoteScope, after cursor: UInt64, limit: Int) async throws -> RemotePage {
        let page = try await inner.changes(in: scope, after: cursor, limit: limit)
        count(page.records.count, page.records.reduce(0) { $0 + $1.document.count })
        return page
    }

    func snapshot(in scope: RemoteScope, after recordID: UUID?, limit: Int) async throws -> RemotePage {
        let page = try await inner.snapshot(in: scope, after: recordID, limit: limit)
        count(page.records.count, page.records.reduce(0) { $0 + $1.document.count })
        return page
    }
    func erase(_ scope: RemoteScope) async throws -> Int {
        count(0, 0)
        return try await inner.erase(scope)
    }
}

/// A remote that answers the change feed from pages read beforehand.
final class CannedRemote: RemotePlanStore {
    let pages: [RemotePage]

    init(_ pages: [RemotePage]) { self.pages = pages }

    func write(_ mutations: [RemoteMutation], in scope: RemoteScope) async throws -> RemoteWriteResponse {
        throw RemoteStoreError(.invalidRequest, detail: "The canned remote is read-only.")
    }

    func changes(in scope: RemoteScope, after cursor: UInt64, limit: Int) async throws -> RemotePage {
        guard let page = pages.first(where: { ($0.records.first?.version ?? 0) > cursor }) else {
            return RemotePage(records: [], cursor: cursor, hasMore: false, serverTime: SyncRows.start)
        }
        return page
    }

    func snapshot(in scope: RemoteScope, after recordID: UUID?, limit: Int) async throws -> RemotePage {
        RemotePage(records: [], cursor: 0, hasMore: false, serverTime: SyncRows.start)
    }
    func erase(_ scope: RemoteScope) async throws -> Int {
        throw RemoteStoreError(.invalidRequest, detail: "The canned remote is read-only.")
    }
}
