import Foundation
import TrainCore

/// The deletion journal: one record per user, read so that a record which cannot be
/// read never blocks a deletion. It is set aside — moved, bytes and all, to a
/// collection kept for diagnosis — and the deletion starts again from its first step.
extension LocalAccountService {
    public func pendingDeletion(of userID: String) throws(AccountError) -> AccountDeletionJournal? {
        try journal(of: userID).journal
    }

    public func pendingDeletions() throws(AccountError) -> [AccountDeletionJournal] {
        let entries = try reading { records in try records.entries(in: AccountRecords.deletionBytes) }
        var journals: [AccountDeletionJournal] = []
        for entry in entries {
            switch Self.decodeJournal(entry.value) {
            case .success(let journal): journals.append(journal)
            case .failure(let reason): try setAside(entry.key, bytes: entry.value, reason: reason.description)
            }
        }
        return journals
    }

    /// The journal records that could not be read and were set aside, oldest first per
    /// user: for a support engineer, never read by the deletion again.
    /// - Returns: The records, with their bytes and why they could not be read.
    /// - Throws: ``TrainCore/TrainErrorCode/storage``.
    public func setAsideDeletionRecords() throws(AccountError) -> [SetAsideDeletionRecord] {
        try reading { records in try records.values(in: AccountRecords.setAside) }
    }

    /// One user's journal, and whether a record of theirs is kept aside that no
    /// finished deletion has reported yet — set aside now or by an earlier read — for
    /// the report to say so.
    func journal(of userID: String) throws(AccountError) -> (journal: AccountDeletionJournal?, setAside: Bool) {
        let bytes = try reading { records in try records.value(forKey: userID, in: AccountRecords.deletionBytes) }
        if let bytes {
            switch Self.decodeJournal(bytes) {
            case .success(let journal): return (journal, false)
            case .failure(let reason): try setAside(userID, bytes: bytes, reason: reason.description)
            }
        }
        return (nil, try hasUnreportedSetAside(userID))
    }

    /// Whether a record of `userID`'s is kept aside that no report has said so of.
    func hasUnreportedSetAside(_ userID: String) throws(AccountError) -> Bool {
        try reading { records in
            try records.values(in: AccountRecords.setAside, range: AccountRecords.range(of: userID)).contains { $0.reportedAt == nil }
        }
    }

    /// Marks `userID`'s records kept aside as reported, in the transaction that ends
    /// the deletion whose report says so.
    static func markSetAsideReported(of userID: String, at date: Date, in records: RecordWriter) throws {
        for entry in try records.entries(in: AccountRecords.setAside, range: AccountRecords.range(of: userID)) where entry.value.reportedAt == nil {
            var record = entry.value
            record.reportedAt = date
            try records.put(record, forKey: entry.key, in: AccountRecords.setAside)
        }
    }

    func save(_ journal: AccountDeletionJournal) throws(AccountError) {
        try writing { records in try records.put(journal, forKey: journal.userID, in: AccountRecords.deletions) }
    }

    /// Moves a record that cannot be read out of the journal, keeping its bytes, in one
    /// transaction; a record changed since it was read is left for the next reader.
    private func setAside(_ userID: String, bytes: Data, reason: String) throws(AccountError) {
        let now = now
        try writing { records in
            guard try records.value(forKey: userID, in: AccountRecords.deletionBytes) == bytes else { return }
            let record = SetAsideDeletionRecord(userID: userID, setAsideAt: now, reason: reason, bytes: bytes)
            try records.put(record, forKey: AccountRecords.nextKey(userID, in: AccountRecords.setAside, of: records), in: AccountRecords.setAside)
            try records.removeValue(forKey: userID, in: AccountRecords.deletions)
        }
    }

    /// Why a journal record could not be read.
    struct UnreadableJournal: Error, CustomStringConvertible {
        let description: String
    }

    /// Decodes a journal record of this version's layout.
    static func decodeJournal(_ bytes: Data) -> Result<AccountDeletionJournal, UnreadableJournal> {
        struct Layout: Decodable { let layout: Int? }
        guard let layout = try? JSONDecoder().decode(Layout.self, from: bytes) else {
            return .failure(UnreadableJournal(description: "The record is damaged: it is not a JSON object."))
        }
        guard let version = layout.layout else {
            return .failure(UnreadableJournal(description: "The record has no layout: an earlier version wrote it."))
        }
        guard version == AccountDeletionJournal.currentLayout else {
            let newer = version > AccountDeletionJournal.currentLayout
            return .failure(
                UnreadableJournal(
                    description:
                        "The record is of layout \(version), \(newer ? "newer" : "older") than this version's \(AccountDeletionJournal.currentLayout)."
                ))
        }
        do {
            return .success(try JSONDecoder().decode(AccountDeletionJournal.self, from: bytes))
        } catch {
            return .failure(UnreadableJournal(description: "The record is damaged: \(Self.describe(error))."))
        }
    }

    /// Where decoding failed, without quoting stored content.
    private static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(type(of: error))" }
        switch error {
        case .dataCorrupted(let context), .keyNotFound(_, let context), .typeMismatch(_, let context), .valueNotFound(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? "the data is not valid" : "a problem at '\(path)'"
        @unknown default:
            return "the data is not valid"
        }
    }

    /// Turns the deletions an earlier version scheduled apart from the journal into
    /// journals: one that reached the sign-in account has only this device's data left.
    func adoptEarlierSchedules() throws(AccountError) {
        try writing { records in
            for entry in try records.entries(in: AccountRecords.scheduled) {
                if try records.value(forKey: entry.key, in: AccountRecords.deletionBytes) == nil {
                    let deletion = entry.value.deletion
                    let finished: [AccountDeletionStep] =
                        entry.value.reachedAccountStep ? [.appleRevocation, .socialData, .plans, .subscription, .authAccount] : [.appleRevocation]
                    var report = AccountDeletionReport(
                        userID: deletion.userID, startedAt: deletion.scheduledAt, appleTokenRevocation: deletion.appleTokenRevocation)
                    report.warnings = deletion.warnings
                    let journal = AccountDeletionJournal(deletion: deletion, finishedSteps: finished, report: report)
                    try records.put(journal, forKey: entry.key, in: AccountRecords.deletions)
                }
                try records.removeValue(forKey: entry.key, in: AccountRecords.scheduled)
            }
        }
    }
}
