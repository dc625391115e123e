import Foundation

/// A value that lost a conflict: the field, the losing JSON and the winning JSON.
typealias Loss = (field: String, losing: Data, winning: Data)

/// The outcome of reconciling this device's document with the remote's.
struct Resolution: Sendable {
    /// The document to keep; uploaded unless it equals the remote's.
    var document: SyncDocument
    /// The values that lost, by field.
    var losses: [Loss] = []
    /// Whether a custom policy held the conflict for the app.
    var isHeld = false
}

/// Reconciles two versions of a record that both changed since `base`.
struct ConflictResolver<Record: Syncable> {
    let policy: ConflictPolicy<Record>
    let deletePolicy: DeleteConflictPolicy
    /// A new hybrid clock reading, for a record a custom policy blended.
    let tick: () -> HybridTimestamp

    static var null: Data { Data("null".utf8) }

    func resolve(local: SyncDocument, remote: SyncDocument, base: SyncDocument?) throws(SyncError) -> Resolution {
        let base = base?.isDeleted == true ? nil : base
        switch (local.isDeleted, remote.isDeleted) {
        case (true, true):
            return Resolution(document: Self.isLater(local.deleted, than: remote.deleted) ? local : remote)
        case (true, false):
            return deletion(local, against: remote, base: base)
        case (false, true):
            return deletion(remote, against: local, base: base)
        case (false, false):
            return try edits(local: local, remote: remote, base: base)
        }
    }

    /// The fields `document` changed since `base` (every field if there is no base).
    static func changedFields(_ document: SyncDocument, since base: SyncDocument?) -> [String] {
        document.fields.keys.filter { base?.stamps[$0] != document.stamps[$0] || base?.fields[$0] != document.fields[$0] }.sorted()
    }

    private func deletion(_ tombstone: SyncDocument, against edit: SyncDocument, base: SyncDocument?) -> Resolution {
        let edited = Self.changedFields(edit, since: base)
        if deletePolicy == .editWins, !edited.isEmpty { return Resolution(document: edit) }
        return Resolution(document: tombstone, losses: edited.map { ($0, edit.fields[$0] ?? Self.null, Self.null) })
    }

    private func edits(local: SyncDocument, remote: SyncDocument, base: SyncDocument?) throws(SyncError) -> Resolution {
        let localChanges = Set(Self.changedFields(local, since: base))
        let remoteChanges = Set(Self.changedFields(remote, since: base))
        switch policy {
        case .fieldMerge:
            var merged = remote
            var losses: [Loss] = []
            for name in Set(local.fields.keys).union(remote.fields.keys).sorted() {
                let takeLocal: Bool
                switch (localChanges.contains(name), remoteChanges.contains(name)) {
                case (true, false): takeLocal = true
                case (false, true), (false, false): takeLocal = remote.fields[name] == nil
                case (true, true): takeLocal = Self.isLater(local.stamps[name], than: remote.stamps[name])
                }
                let (winner, loser) = takeLocal ? (local, remote) : (remote, local)
                merged.fields[name] = winner.fields[name]
                merged.stamps[name] = winner.stamps[name]
                if localChanges.contains(name), remoteChanges.contains(name), winner.fields[name] != loser.fields[name] {
                    losses.append((name, loser.fields[name] ?? Self.null, winner.fields[name] ?? Self.null))
                }
            }
            return Resolution(document: merged, losses: losses)
        case .lastWriterWins:
            let localIsLater = Self.isLater(local.modified, than: remote.modified)
            return whole(
                localIsLater ? local : remote, over: localIsLater ? remote : local, loserChanges: localIsLater ? remoteChanges : localChanges)
        case .localWins:
            return whole(local, over: remote, loserChanges: remoteChanges)
        case .remoteWins:
            return whole(remote, over: local, loserChanges: localChanges)
        case .custom(let decide):
            // A side this app version cannot read as a record is merged field by field.
            guard let localRecord = try? local.record(as: Record.self), let remoteRecord = try? remote.record(as: Record.self) else {
                return try ConflictResolver(policy: .fieldMerge, deletePolicy: deletePolicy, tick: tick).resolve(
                    local: local, remote: remote, base: base)
            }
            switch decide(SyncConflict(local: localRecord, remote: remoteRecord, base: try? base?.record(as: Record.self))) {
            case .hold:
                return Resolution(document: local, isHeld: true)
            case .keep(var kept):
                kept.userID = remoteRecord.userID
                // A kept record that breaks its type's rules cannot be stored: merged instead.
                guard let valid = try? kept.validated(), valid.id == localRecord.id else {
                    return try ConflictResolver(policy: .fieldMerge, deletePolicy: deletePolicy, tick: tick).resolve(
                        local: local, remote: remote, base: base)
                }
                let document = try SyncDocument.of(valid, previous: remote, stamp: tick())
                var losses: [Loss] = []
                for name in Set(local.fields.keys).union(remote.fields.keys).sorted() {
                    for side in [local, remote] where side.fields[name] != document.fields[name] {
                        if (side == local ? localChanges : remoteChanges).contains(name) {
                            losses.append((name, side.fields[name] ?? Self.null, document.fields[name] ?? Self.null))
                        }
                    }
                }
                return Resolution(document: document, losses: losses)
            }
        }
    }

    /// `winner` whole, with each field the loser changed to another value logged.
    private func whole(_ winner: SyncDocument, over loser: SyncDocument, loserChanges: Set<String>) -> Resolution {
        let losses = loserChanges.sorted().filter { loser.fields[$0] != winner.fields[$0] }.map {
            ($0, loser.fields[$0] ?? Self.null, winner.fields[$0] ?? Self.null)
        }
        return Resolution(document: winner, losses: losses)
    }

    /// Whether reading `a` is later than `b`; a missing reading is earliest.
    static func isLater(_ a: HybridTimestamp?, than b: HybridTimestamp?) -> Bool {
        guard let a else { return false }
        guard let b else { return true }
        return b < a
    }
}
