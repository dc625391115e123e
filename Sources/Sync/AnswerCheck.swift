import Foundation
import TrainCore

/// The checks a sync makes of the remote's answers before anything they carry is
/// stored. The remote is where an app plugs in its own backend, and a bug or a
/// misconfiguration there must not put another user's record on the device, store a
/// record under another's ID, or keep a sync going forever: each answer that breaks
/// the remote's contract ends the sync with a typed error, and nothing of it is stored.
struct AnswerCheck<Record: Syncable>: Sendable {
    /// Whose records the sync reads and writes.
    let scope: RemoteScope
    /// The largest document the remote says it accepts.
    let maximumDocumentBytes: Int
    /// Whether answers are checked; off only to measure what the checks cost. A
    /// document that cannot be read is then left out, as before the checks existed.
    let isEnabled: Bool
    /// The owner field's JSON in a document of the scope's user.
    private let owner: [UInt8]
    private let idField = Array(Record.idField.utf8)
    private let ownerField = Array(Record.ownerField.utf8)

    init(scope: RemoteScope, maximumDocumentBytes: Int, isEnabled: Bool) throws(SyncError) {
        self.scope = scope
        self.maximumDocumentBytes = maximumDocumentBytes
        self.isEnabled = isEnabled
        owner = Array(try SyncDocument.json(.string(scope.userID)))
    }

    // MARK: - Documents

    /// A record's document, checked: readable, within the remote's limit, a deletion
    /// exactly when the record says so, and — unless deleted — owned by the scope's
    /// user under the record's own ID. Returns what a download needs of it; nil for an
    /// unreadable document when checks are off.
    func document(of record: RemoteRecord) throws(SyncError) -> SyncDocument.Inspection? {
        if isEnabled, record.document.count > maximumDocumentBytes {
            throw SyncError(
                .unreadableRecord,
                detail: "The remote sent record \(record.id) as \(record.document.count) bytes, over its limit of \(maximumDocumentBytes).")
        }
        let inspection: SyncDocument.Inspection
        do {
            inspection = try SyncDocument.inspect(record.document, fields: idField, ownerField)
        } catch {
            guard isEnabled else { return nil }
            throw SyncError(.unreadableRecord, detail: "The remote sent record \(record.id) as a document this version cannot read: \(error)")
        }
        guard isEnabled else { return inspection }
        guard inspection.isDeleted == record.isDeleted else {
            throw SyncError(
                .malformedAnswer, detail: "The remote marked record \(record.id) \(record.isDeleted ? "deleted" : "live") against its document.")
        }
        if inspection.isDeleted { return inspection }
        // The form this version writes: the owner and ID fields as the exact JSON expected.
        if let id = inspection.first, let owner = inspection.second, owner.elementsEqual(self.owner), Self.json(id, is: record.id) {
            return inspection
        }
        // Any other form is read as a record to see whose it is.
        let decoded: Record?
        do {
            decoded = try SyncDocument(data: record.document).record(as: Record.self)
        } catch {
            throw SyncError(.unreadableRecord, detail: "The remote sent record \(record.id) with fields that are not a \(Record.self): \(error)")
        }
        guard let decoded else { throw SyncError(.unreadableRecord, detail: "The remote sent record \(record.id) without its fields.") }
        guard decoded.userID.utf8.elementsEqual(scope.userID.utf8) else {
            throw SyncError(.foreignRecord, detail: "The remote sent record \(record.id) of another user in \(scope)'s records.")
        }
        guard decoded.id == record.id else {
            throw SyncError(.mismatchedRecordID, detail: "The remote sent the document of record \(decoded.id) as record \(record.id).")
        }
        return inspection
    }

    /// Whether `json` is `id` as a document writes it: its `uuidString` (upper-case
    /// hexadecimal in groups of 8, 4, 4, 4 and 12) in quotes. Compared digit by digit,
    /// without formatting the ID.
    static func json(_ json: [UInt8], is id: UUID) -> Bool {
        guard json.count == 38, json.first == UInt8(ascii: "\""), json.last == UInt8(ascii: "\"") else { return false }
        return withUnsafeBytes(of: id.uuid) { bytes in
            var position = json.startIndex + 1
            for (index, byte) in bytes.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    guard json[position] == UInt8(ascii: "-") else { return false }
                    position += 1
                }
                guard json[position] == hexDigit(byte >> 4), json[position + 1] == hexDigit(byte & 0x0F) else { return false }
                position += 2
            }
            return true
        }
    }

    /// The upper-case hexadecimal digit of `value` (0 to 15), as `uuidString` writes it.
    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }

    // MARK: - Pages

    /// A change-feed page read after `cursor`, checked: at most `limit` records, each
    /// once and after the cursor in version order, a cursor that covers them, and one
    /// that moved on if more follow. Returns each record's inspection.
    func changes(_ page: RemotePage, after cursor: UInt64, limit: Int) throws(SyncError) -> [SyncDocument.Inspection?] {
        if isEnabled {
            try size(of: page, limit: limit)
            var latest = cursor
            var ids = Set<UUID>(minimumCapacity: page.records.count)
            for record in page.records {
                guard record.version > latest else {
                    throw SyncError(
                        .stalledCursor, detail: "The change feed after \(cursor) listed version \(record.version) after version \(latest).")
                }
                latest = record.version
                guard ids.insert(record.id).inserted else {
                    throw SyncError(.malformedAnswer, detail: "The change feed listed record \(record.id) twice on one page.")
                }
            }
            guard page.cursor >= latest, !page.hasMore || page.cursor > cursor else {
                throw SyncError(
                    .stalledCursor,
                    detail:
                        "The change feed after \(cursor) answered cursor \(page.cursor) for versions up to \(latest), with more to follow: \(page.hasMore)."
                )
            }
        }
        return try page.records.map(document(of:))
    }

    /// A snapshot page, checked: at most `limit` records, none read on an earlier page
    /// of the same snapshot (`seen`, which it extends). Returns each record's inspection.
    func snapshot(_ page: RemotePage, limit: Int, seen: inout Set<UUID>) throws(SyncError) -> [SyncDocument.Inspection?] {
        if isEnabled {
            try size(of: page, limit: limit)
            for record in page.records where !seen.insert(record.id).inserted {
                throw SyncError(.stalledCursor, detail: "The snapshot listed record \(record.id) again.")
            }
        }
        return try page.records.map(document(of:))
    }

    private func size(of page: RemotePage, limit: Int) throws(SyncError) {
        guard page.records.count <= limit else {
            throw SyncError(.oversizedPage, detail: "The remote answered \(page.records.count) records to a request for \(limit).")
        }
    }

    // MARK: - Writes

    /// The answer to a batch of writes, checked: one result per write; an applied
    /// write at a version after its base; a conflict carrying the record written, at
    /// another version than the base, in a document that passes ``document(of:)``.
    func writes(_ response: RemoteWriteResponse, for mutations: [RemoteMutation]) throws(SyncError) {
        guard response.results.count == mutations.count else {
            throw SyncError(.malformedAnswer, detail: "The remote answered \(response.results.count) results for \(mutations.count) writes.")
        }
        guard isEnabled else { return }
        for (mutation, result) in zip(mutations, response.results) {
            switch result {
            case .applied(let version):
                guard version > mutation.baseVersion ?? 0 else {
                    throw SyncError(
                        .malformedAnswer,
                        detail:
                            "The remote applied a write of record \(mutation.recordID) at version \(version), not after its base \(mutation.baseVersion ?? 0)."
                    )
                }
            case .conflict(let current?):
                guard current.id == mutation.recordID else {
                    throw SyncError(
                        .mismatchedRecordID, detail: "The remote answered a write of record \(mutation.recordID) with record \(current.id).")
                }
                guard current.version != mutation.baseVersion else {
                    throw SyncError(
                        .malformedAnswer, detail: "The remote refused a write of record \(mutation.recordID) on the version it holds.")
                }
                _ = try document(of: current)
            case .conflict(nil):
                guard mutation.baseVersion != nil else {
                    throw SyncError(.malformedAnswer, detail: "The remote refused the new record \(mutation.recordID) as a conflict with no record.")
                }
            case .rejected, .mutationIDInUse:
                break
            }
        }
    }
}
