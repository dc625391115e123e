import Foundation
import TrainSync

/// What the ``RemotePlanStoreContract`` needs from the conformance under test.
public protocol RemoteStoreContractEnvironment: Sendable {
    /// Makes a remote with no records, such as one over a fresh emulator project.
    /// - Returns: The remote under test.
    func makeRemote() async throws -> any RemotePlanStore
}

/// A check of the ``RemotePlanStoreContract``.
public typealias RemoteStoreContractCheck = ContractCheck<any RemoteStoreContractEnvironment>

/// The public behavioural contract of `RemotePlanStore`: compare-and-set writes,
/// once-only mutation IDs, the change feed and its cursor, tombstones, snapshots and
/// scopes. TrainKit runs it against `LocalRemotePlanStore` in memory and in a file;
/// an app runs it against its own conformance over Firestore or CloudKit:
///
/// ```swift
/// @Test(arguments: RemotePlanStoreContract.checks)
/// func remoteContract(_ check: RemoteStoreContractCheck) async throws {
///     try await check.run(in: MyFirestoreRemoteEnvironment())
/// }
/// ```
public enum RemotePlanStoreContract {
    static let scope = RemoteScope(userID: "contract-ada", collection: "plans")

    static func mutation(_ sequence: UInt64, _ id: UUID, base: UInt64?, _ text: String, deleting: Bool = false, replica: String = "r1")
        -> RemoteMutation
    {
        RemoteMutation(
            id: MutationID(replicaID: replica, sequence: sequence), recordID: id, baseVersion: base, isDeletion: deleting, document: Data(text.utf8))
    }

    static func version(_ result: RemoteWriteResult?) -> UInt64? {
        if case .applied(let version)? = result { version } else { nil }
    }

    /// Every check of the contract.
    public static let checks: [RemoteStoreContractCheck] = [
        RemoteStoreContractCheck("a create applies at a new version and the change feed lists it after cursor 0", covers: RemotePlanStore.self) {
            environment, check in
            let remote = try await environment.makeRemote()
            let id = UUID()
            let response = try await remote.write([mutation(1, id, base: nil, "v1")], in: scope)
            let version = try check.unwrap(version(response.results.first), "the create is applied")
            let page = try await remote.changes(in: scope, after: 0, limit: 10)
            try check.expect(page.records.map(\.id) == [id], "the feed lists the record once")
            try check.expect(
                page.records.first?.version == version && page.records.first?.document == Data("v1".utf8), "with its version and document")
            try check.expect(page.cursor >= version && !page.hasMore, "and a cursor past it")
        },
        RemoteStoreContractCheck(
            "a write on the current version applies; on an older version, or a create of an existing record, it is a conflict with the current record",
            covers: RemotePlanStore.self
        ) {
            environment, check in
            let remote = try await environment.makeRemote()
            let id = UUID()
            let first = try check.unwrap(version(try await remote.write([mutation(1, id, base: nil, "v1")], in: scope).results.first), "the create")
            let second = try check.unwrap(
                version(try await remote.write([mutation(2, id, base: first, "v2")], in: scope).results.first), "the update")
            try check.expect(second > first, "versions grow")
            let stale = try await remote.write([mutation(3, id, base: first, "v3", replica: "r2")], in: scope).results.first
            guard case .conflict(let current?)? = stale else {
                throw ContractViolation(
                    check: check.check, message: "a write on an old version is a conflict with the current record, got \(String(describing: stale))")
            }
            try check.expect(current.version == second && current.document == Data("v2".utf8), "the conflict carries the current record")
            let create = try await remote.write([mutation(4, id, base: nil, "again", replica: "r2")], in: scope).results.first
            guard case .conflict? = create else {
                throw ContractViolation(
                    check: check.check, message: "a create of an existing record is a conflict, got \(String(describing: create))")
            }
        },
        RemoteStoreContractCheck(
            "a mutation delivered twice is applied once: the second delivery answers the first version and the feed holds one change",
            covers: RemotePlanStore.self
        ) {
            environment, check in
            let remote = try await environment.makeRemote()
            let id = UUID()
            let write = mutation(7, id, base: nil, "once")
            let first = try await remote.write([write], in: scope).results.first
            let again = try await remote.write([write], in: scope).results.first
            try check.expect(version(first) != nil && version(again) == version(first), "both deliveries answer the same version")
            let page = try await remote.changes(in: scope, after: 0, limit: 10)
            try check.expect(page.records.count == 1 && page.records.first?.version == version(first), "one change in the feed")
        },
        RemoteStoreContractCheck(
            "a mutation ID used again for another record, or for the same record with another document, is answered mutationIDInUse and applies nothing",
            covers: RemotePlanStore.self
        ) { environment, check in
            let remote = try await environment.makeRemote()
            let (first, second) = (UUID(), UUID())
            _ = try await remote.write([mutation(3, first, base: nil, "one")], in: scope)
            let other = try await remote.write([mutation(3, second, base: nil, "one")], in: scope).results.first
            try check.expect(
                other == .mutationIDInUse, "another record under a used mutation ID: expected mutationIDInUse, got \(String(describing: other))")
            let changed = try await remote.write([mutation(3, first, base: nil, "two")], in: scope).results.first
            try check.expect(
                changed == .mutationIDInUse, "another document under a used mutation ID: expected mutationIDInUse, got \(String(describing: changed))"
            )
            let feed = try await remote.changes(in: scope, after: 0, limit: 10).records
            try check.expect(feed.map(\.id) == [first] && feed.first?.document == Data("one".utf8), "only the first write is applied")
        },
        RemoteStoreContractCheck("each write of a batch stands alone: a conflict does not stop the others", covers: RemotePlanStore.self) {
            environment, check in
            let remote = try await environment.makeRemote()
            let (a, b) = (UUID(), UUID())
            let base = try check.unwrap(version(try await remote.write([mutation(1, a, base: nil, "a1")], in: scope).results.first), "the create")
            let results = try await remote.write([mutation(2, a, base: base + 1_000, "stale"), mutation(3, b, base: nil, "b1")], in: scope).results
            try check.expect(results.count == 2, "one result per write")
            guard case .conflict? = results.first else { throw ContractViolation(check: check.check, message: "the stale write is a conflict") }
            try check.expect(version(results.last) != nil, "the other write is applied")
        },
        RemoteStoreContractCheck(
            "the change feed pages in version order with its cursor and lists each record once, in its latest state", covers: RemotePlanStore.self
        ) {
            environment, check in
            let remote = try await environment.makeRemote()
            var versions: [UUID: UInt64] = [:]
            for index in 0..<5 {
                let id = UUID()
                versions[id] = try check.unwrap(
                    version(try await remote.write([mutation(UInt64(index + 1), id, base: nil, "r\(index)")], in: scope).results.first), "a create")
            }
            let edited = try check.unwrap(versions.first, "a record")
            _ = try await remote.write([mutation(10, edited.key, base: edited.value, "edited")], in: scope)
            var seen: [RemoteRecord] = []
            var cursor: UInt64 = 0
            for _ in 0..<10 {
                let page = try await remote.changes(in: scope, after: cursor, limit: 2)
                try check.expect(page.records.count <= 2, "a page holds at most its limit")
                seen += page.records
                cursor = page.cursor
                if !page.hasMore { break }
            }
            try check.expect(seen.count == 5 && Set(seen.map(\.id)).count == 5, "each record once")
            try check.expect(seen.map(\.version) == seen.map(\.version).sorted(), "in version order")
            try check.expect(seen.last?.id == edited.key && seen.last?.document == Data("edited".utf8), "the edited record last, in its latest state")
            try check.expect(try await remote.changes(in: scope, after: cursor, limit: 10).records.isEmpty, "nothing after the last cursor")
        },
        RemoteStoreContractCheck("a deletion is a tombstone in the change feed and is left out of the snapshot", covers: RemotePlanStore.self) {
            environment, check in
            let remote = try await environment.makeRemote()
            let (kept, gone) = (UUID(), UUID())
            _ = try await remote.write([mutation(1, kept, base: nil, "kept")], in: scope)
            let base = try check.unwrap(version(try await remote.write([mutation(2, gone, base: nil, "gone")], in: scope).results.first), "a create")
            _ = try await remote.write([mutation(3, gone, base: base, "", deleting: true)], in: scope)
            let feed = try await remote.changes(in: scope, after: 0, limit: 10).records
            try check.expect(feed.contains { $0.id == gone && $0.isDeleted }, "the feed lists the deletion")
            let snapshot = try await remote.snapshot(in: scope, after: nil, limit: 10)
            try check.expect(snapshot.records.map(\.id) == [kept], "the snapshot holds only the record that exists")
            try check.expect(snapshot.cursor >= feed.map(\.version).max() ?? 0, "with a cursor past every change read")
        },
        RemoteStoreContractCheck("scopes are apart: one user's records are not in another's feed or snapshot", covers: RemotePlanStore.self) {
            environment, check in
            let remote = try await environment.makeRemote()
            _ = try await remote.write([mutation(1, UUID(), base: nil, "ada's")], in: scope)
            let grace = RemoteScope(userID: "contract-grace", collection: "plans")
            try check.expect(try await remote.changes(in: grace, after: 0, limit: 10).records.isEmpty, "Grace's feed is empty")
            try check.expect(try await remote.snapshot(in: grace, after: nil, limit: 10).records.isEmpty, "Grace's snapshot is empty")
            let other = RemoteScope(userID: "contract-ada", collection: "workouts")
            try check.expect(try await remote.changes(in: other, after: 0, limit: 10).records.isEmpty, "another collection of Ada's is empty")
        },
        RemoteStoreContractCheck(
            "while more follow, each change-feed page holds at most its limit, lists only versions after the cursor asked, and answers a cursor that moves past them",
            covers: RemotePlanStore.self
        ) { environment, check in
            let remote = try await environment.makeRemote()
            for index in 0..<5 { _ = try await remote.write([mutation(UInt64(index + 1), UUID(), base: nil, "r\(index)")], in: scope) }
            var cursor: UInt64 = 0
            var pages = 0
            while pages < 10 {
                let page = try await remote.changes(in: scope, after: cursor, limit: 2)
                pages += 1
                try check.expect(page.records.count <= 2, "a page of limit 2 holds \(page.records.count) records")
                try check.expect(page.records.allSatisfy { $0.version > cursor }, "a page after \(cursor) lists only later versions")
                try check.expect(page.cursor >= page.records.map(\.version).max() ?? cursor, "the cursor covers the page")
                guard page.hasMore else { break }
                try check.expect(page.cursor > cursor, "with more to follow, the cursor moves past \(cursor), got \(page.cursor)")
                cursor = page.cursor
            }
            try check.expect(pages <= 3, "five records in pages of two take three pages, took \(pages)")
        },
        RemoteStoreContractCheck("a snapshot read page by page lists each record once, at most its limit a page", covers: RemotePlanStore.self) {
            environment, check in
            let remote = try await environment.makeRemote()
            var written: Set<UUID> = []
            for index in 0..<5 {
                let id = UUID()
                written.insert(id)
                _ = try await remote.write([mutation(UInt64(index + 1), id, base: nil, "r\(index)")], in: scope)
            }
            var seen: [UUID] = []
            var after: UUID?
            for _ in 0..<10 {
                let page = try await remote.snapshot(in: scope, after: after, limit: 2)
                try check.expect(page.records.count <= 2, "a page of limit 2 holds \(page.records.count) records")
                seen += page.records.map(\.id)
                guard page.hasMore, let last = page.records.last?.id else { break }
                after = last
            }
            try check.expect(seen.count == Set(seen).count, "no record is listed twice")
            try check.expect(Set(seen) == written, "every record is listed")
        },
        RemoteStoreContractCheck(
            "each record comes back under its own ID with the document written for it, in its own scope only", covers: RemotePlanStore.self
        ) {
            environment, check in
            let remote = try await environment.makeRemote()
            var documents: [UUID: Data] = [:]
            for index in 0..<3 {
                let id = UUID()
                let write = mutation(UInt64(index + 1), id, base: nil, "ada's \(index)")
                documents[id] = write.document
                _ = try await remote.write([write], in: scope)
            }
            let grace = RemoteScope(userID: "contract-grace", collection: "plans")
            _ = try await remote.write([mutation(1, UUID(), base: nil, "grace's", replica: "g1")], in: grace)
            let feed = try await remote.changes(in: scope, after: 0, limit: 10).records
            let snapshot = try await remote.snapshot(in: scope, after: nil, limit: 10).records
            for record in feed + snapshot {
                try check.expect(documents[record.id] == record.document, "record \(record.id) comes with the document written for it")
            }
            try check.expect(Set(feed.map(\.id)) == Set(documents.keys) && Set(snapshot.map(\.id)) == Set(documents.keys), "and nothing else")
        },
        RemoteStoreContractCheck("every answer tells the time within a minute of this machine's clock", covers: RemotePlanStore.self) {
            environment, check in
            let remote = try await environment.makeRemote()
            let write = try await remote.write([mutation(1, UUID(), base: nil, "now")], in: scope)
            let feed = try await remote.changes(in: scope, after: 0, limit: 10)
            let snapshot = try await remote.snapshot(in: scope, after: nil, limit: 10)
            for (call, time) in [("write", write.serverTime), ("changes", feed.serverTime), ("snapshot", snapshot.serverTime)] {
                try check.expect(abs(time.timeIntervalSinceNow) <= 60, "\(call) answered \(time), \(Int(time.timeIntervalSinceNow)) s from now")
            }
        },
        RemoteStoreContractCheck(
            "erasing a scope removes its records from the snapshot and the feed, leaves other scopes alone, and erasing again does nothing",
            covers: RemotePlanStore.self
        ) { environment, check in
            let remote = try await environment.makeRemote()
            let kept = UUID()
            _ = try await remote.write([mutation(1, kept, base: nil, "kept"), mutation(2, UUID(), base: nil, "deleted", deleting: true)], in: scope)
            let grace = RemoteScope(userID: "contract-grace", collection: "plans")
            _ = try await remote.write([mutation(1, UUID(), base: nil, "grace's", replica: "g1")], in: grace)
            try check.expect(try await remote.erase(scope) == 1, "erasing counts the one record that was not deleted")
            try check.expect(try await remote.snapshot(in: scope, after: nil, limit: 10).records.isEmpty, "the snapshot is empty")
            let feed = try? await remote.changes(in: scope, after: 0, limit: 10)
            try check.expect(feed?.records.isEmpty ?? true, "the feed lists nothing erased (or the cursor has expired)")
            try check.expect(try await remote.snapshot(in: grace, after: nil, limit: 10).records.count == 1, "Grace's record is still there")
            try check.expect(try await remote.erase(scope) == 0, "erasing again finds nothing")
        },
    ]
}

extension Expectations {
    /// `value`, or a violation saying what was missing.
    func unwrap<Value>(_ value: Value?, _ what: String) throws -> Value {
        guard let value else { throw ContractViolation(check: check, message: "\(what): missing") }
        return value
    }
}
