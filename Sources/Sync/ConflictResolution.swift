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
    /// Whether a merged document may be kept: a record of its type that keeps the
    /// type's rules, within the remote's size limit.
    let accepts: (SyncDocument) -> Bool

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

    /// The fields `document` changed since `base` (every field if there is no base),
    /// a field it no longer has among them.
    static func changedFields(_ document: SyncDocument, since base: SyncDocument?) -> [String] {
        let set = document.fields.keys.filter { base?.stamps[$0] != document.stamps[$0] || base?.fields[$0] != document.fields[$0] }
        let removed = document.isDeleted ? [] : (base?.fields.keys.filter { document.fields[$0] == nil } ?? [])
        return (set + removed).sorted()
    }

    /// The reading of the latest edit among `changes` in `document`; the document's
    /// latest reading if none of them has one (only removals).
    static func latestEdit(_ document: SyncDocument, _ changes: Set<String>) -> HybridTimestamp? {
        changes.compactMap { document.stamps[$0] }.max() ?? document.modified
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
                if localChanges.contains(name), remoteChanges.contains(name), let list = try mergeList(name, local: local, remote: remote, base: base)
                {
                    merged.fields[name] = list.json
                    merged.stamps[name] = Self.isLater(local.stamps[name], than: remote.stamps[name]) ? local.stamps[name] : remote.stamps[name]
                    merged.elements[name] = list.stamps.isEmpty ? nil : list.stamps
                    losses += list.losses
                    continue
                }
                let takeLocal: Bool
                switch (localChanges.contains(name), remoteChanges.contains(name)) {
                case (true, false): takeLocal = true
                case (false, true): takeLocal = false
                case (false, false): takeLocal = remote.fields[name] == nil
                case (true, true): takeLocal = Self.isLater(local.stamps[name], than: remote.stamps[name])
                }
                let (winner, loser) = takeLocal ? (local, remote) : (remote, local)
                merged.fields[name] = winner.fields[name]
                merged.stamps[name] = winner.stamps[name]
                merged.elements[name] = winner.elements[name]
                if localChanges.contains(name), remoteChanges.contains(name), winner.fields[name] != loser.fields[name] {
                    losses.append((name, loser.fields[name] ?? Self.null, winner.fields[name] ?? Self.null))
                }
            }
            // A merge that breaks the record's rules (an end before a start from two
            // sides, more workouts than allowed) or is too large keeps the later edit whole.
            guard accepts(merged) else { return lastWriter(local, remote, localChanges, remoteChanges) }
            return Resolution(document: merged, losses: losses)
        case .lastWriterWins:
            return lastWriter(local, remote, localChanges, remoteChanges)
        case .localWins:
            return whole(local, over: remote, loserChanges: remoteChanges)
        case .remoteWins:
            return whole(remote, over: local, loserChanges: localChanges)
        case .custom(let decide):
            // A side this app version cannot read as a record is merged field by field.
            guard let localRecord = try? local.record(as: Record.self), let remoteRecord = try? remote.record(as: Record.self) else {
                return try ConflictResolver(policy: .fieldMerge, deletePolicy: deletePolicy, tick: tick, accepts: accepts).resolve(
                    local: local, remote: remote, base: base)
            }
            switch decide(SyncConflict(local: localRecord, remote: remoteRecord, base: try? base?.record(as: Record.self))) {
            case .hold:
                return Resolution(document: local, isHeld: true)
            case .keep(var kept):
                kept.userID = remoteRecord.userID
                // A kept record that breaks its type's rules cannot be stored: merged instead.
                guard let valid = try? kept.validated(), valid.id == localRecord.id else {
                    return try ConflictResolver(policy: .fieldMerge, deletePolicy: deletePolicy, tick: tick, accepts: accepts).resolve(
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

    /// List field `name`, which both sides changed, merged element by element: an
    /// element changed on one side only takes that side's state, one changed on both
    /// the later edit's (the other's value logged), and a removal against an edit
    /// follows the delete policy. Each element stands at the position of the side that
    /// placed it last (``ListPosition``): elements keep their places relative to their
    /// neighbours whatever the other side inserted, moved or removed, and one restored
    /// returns to its place. Nil if either side's field is not a list of elements with IDs.
    private func mergeList(_ name: String, local: SyncDocument, remote: SyncDocument, base: SyncDocument?) throws(SyncError) -> (
        json: Data, stamps: [String: ElementStamp], losses: [Loss]
    )? {
        guard let mine = local.list(name, as: Record.self), let theirs = remote.list(name, as: Record.self) else { return nil }
        let before = base?.list(name, as: Record.self)?.states ?? [:]
        var merged: [String: ElementState] = [:]
        var losses: [Loss] = []
        for id in Set(mine.states.keys).union(theirs.states.keys) {
            guard let ours = mine.states[id], let other = theirs.states[id] else {
                // On one side only: added there, or removed on the other side by a
                // version that kept no tombstone (the base had it, unchanged here).
                let present = mine.states[id] ?? theirs.states[id]
                if let base = before[id], base.json != nil, base.json == present?.json { continue }
                merged[id] = present
                continue
            }
            let oursChanged = before[id].map { $0.json != ours.json } ?? true
            let otherChanged = before[id].map { $0.json != other.json } ?? true
            if !oursChanged || !otherChanged || ours.json == other.json {
                // One side left it as it was, or both made it the same.
                merged[id] = !otherChanged || (ours.json == other.json && Self.isLater(ours.stamp, than: other.stamp)) ? ours : other
                continue
            }
            switch (ours.json, other.json) {
            case (let mineJSON?, let theirJSON?):
                let localWins = Self.isLater(ours.stamp, than: other.stamp)
                merged[id] = localWins ? ours : other
                losses.append((name, localWins ? theirJSON : mineJSON, localWins ? mineJSON : theirJSON))
            case (let edit?, nil), (nil, let edit?):
                let (removal, edited) = ours.json == nil ? (ours, other) : (other, ours)
                if deletePolicy == .editWins {
                    merged[id] = edited
                } else {
                    merged[id] = removal
                    losses.append((name, edit, Self.null))
                }
            case (nil, nil):
                merged[id] = Self.isLater(ours.stamp, than: other.stamp) ? ours : other
            }
        }
        // Where each element stands: the side that placed it last.
        for (id, state) in merged {
            let sides = [mine.states[id], theirs.states[id]].compactMap { $0 }
            guard let latest = sides.max(by: { Self.isLater($1.placed, than: $0.placed) }) else { continue }
            merged[id] = ElementState(stamp: state.stamp, json: state.json, value: state.value, position: latest.position, placed: latest.placed)
        }
        let order = merged.filter { $0.value.value != nil }.sorted { ($0.value.position, $0.key) < ($1.value.position, $1.key) }
        let json = try SyncDocument.json(.array(order.compactMap(\.value.value)))
        return (json, merged.mapValues(\.elementStamp), losses)
    }

    /// The side whose latest edit since the base is later, whole: the reading of a
    /// field neither changed does not decide.
    private func lastWriter(_ local: SyncDocument, _ remote: SyncDocument, _ localChanges: Set<String>, _ remoteChanges: Set<String>)
        -> Resolution
    {
        let localIsLater = Self.isLater(Self.latestEdit(local, localChanges), than: Self.latestEdit(remote, remoteChanges))
        return whole(localIsLater ? local : remote, over: localIsLater ? remote : local, loserChanges: localIsLater ? remoteChanges : localChanges)
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
