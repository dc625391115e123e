import Foundation
import TrainCore

/// Mailed codes after they stop being pending, and the rule that ends them with the
/// credential they act on.
///
/// A code leaves ``AuthRecords/emailCodes`` when it is used, replaced by a newer one,
/// ended by a password or address change or a deletion, or found past its expiry at a
/// launch. Its SHA-256 is then kept in ``AuthRecords/spentCodes`` until
/// ``AuthRecords/spentCodeRetention`` after its expiry, so an inspection or a redemption
/// tells a used code from an expired one across relaunches.
extension AuthRecords {
    /// A code that is no longer pending.
    struct SpentCode: Codable, Hashable, Sendable {
        /// Why a code stopped being pending.
        enum Outcome: String, Codable, Hashable, Sendable {
            /// Redeemed.
            case used
            /// Replaced by a newer code, or ended with its account's deletion.
            case revoked
            /// Ended by a password or address change of its account: it reads as expired.
            case credentialChanged
            /// Found past its expiry.
            case expired
        }

        var code: EmailCode
        var outcome: Outcome
        var spentAt: Date
    }

    /// `kind|SHA-256` of a long code, or `signInCode|address|SHA-256` of a six-digit one → the code spent.
    static let spentCodes = RecordCollection<SpentCode>("spentCodes")
    /// How long after its expiry a spent code is remembered: seven days.
    static let spentCodeRetention: TimeInterval = 7 * 86_400

    /// The key of `code` in ``spentCodes``: a six-digit code is only unique with its address.
    static func spentKey(_ code: EmailCode) -> String {
        spentKey(code.kind, address: code.address, hash: code.codeHash)
    }

    /// The key in ``spentCodes`` of the code of flow `kind` with SHA-256 `hash`, mailed to
    /// `address`: only a six-digit code's key holds its address; a long code's is unique alone.
    static func spentKey(_ kind: String, address: String, hash: String) -> String {
        kind == AuthEmail.Kind.signInCode.rawValue ? "\(kind)|\(address)|\(hash)" : "\(kind)|\(hash)"
    }

    /// Inside a transaction: ends the pending `code` stored at `key`, keeping its spent record.
    static func retire(_ code: EmailCode, at key: String, as outcome: SpentCode.Outcome, now: Date, in records: RecordWriter) throws {
        try records.removeValue(forKey: key, in: emailCodes)
        try records.removeValue(forKey: emailCodeLinkKey(code.kind, code.codeHash), in: emailCodeLinks)
        try records.put(SpentCode(code: code, outcome: outcome, spentAt: now), forKey: spentKey(code), in: spentCodes)
    }

    /// Inside a transaction, as a credential of `account` changes: every pending code
    /// mailed for the account, and every sign-in code of `addresses`, ends; a code mailed
    /// before is refused from now on even if a record of it survived. A recovery notice
    /// is the one code that lives on: it is how the owner undoes a change made by whoever
    /// held the session. The caller stores the account.
    static func credentialChanged(_ account: inout Account, addresses: Set<String>, now: Date, in records: RecordWriter) throws {
        account.credentialChanges = (account.credentialChanges ?? 0) + 1
        try retireCodes(of: account.user.id, addresses: addresses, as: .credentialChanged, now: now, in: records) {
            $0.kind != AuthEmail.Kind.recoverEmail.rawValue
        }
    }

    /// Ends, as `outcome`, the pending codes of `userID` that `ends` picks, and the sign-in codes of `addresses`.
    static func retireCodes(
        of userID: String, addresses: Set<String>, as outcome: SpentCode.Outcome = .revoked, now: Date, in records: RecordWriter,
        where ends: (EmailCode) -> Bool = { _ in true }
    ) throws {
        for entry in try records.entries(in: emailCodes) {
            let code = entry.value
            let isAccounts = code.userID == userID && ends(code)
            let isAddresses = code.kind == AuthEmail.Kind.signInCode.rawValue && addresses.contains(code.address)
            guard isAccounts || isAddresses else { continue }
            try retire(code, at: entry.key, as: outcome, now: now, in: records)
        }
    }

    /// What a code found pending or spent is now.
    static func state(of code: EmailCode, outcome: SpentCode.Outcome?, account: Account?, now: Date) -> EmailCodeInspection.State {
        if outcome == .used { return .used }
        guard code.isLive(at: now), outcome != .expired, outcome != .credentialChanged else { return .expired }
        // A code mailed before the account's last password or address change: ended, as
        // if its record had been ended with the change (a crash between writes).
        if code.kind != AuthEmail.Kind.recoverEmail.rawValue, (code.credentialEpoch ?? 0) < (account?.credentialChanges ?? 0) {
            return .expired
        }
        return outcome == .revoked ? .revoked : .valid
    }

    /// Forgets spent codes a retention past their expiry.
    static func forgetSpentCodes(in records: RecordWriter, now: Date) throws {
        for entry in try records.entries(in: spentCodes) where now.timeIntervalSince(entry.value.code.expiresAt) >= spentCodeRetention {
            try records.removeValue(forKey: entry.key, in: spentCodes)
        }
    }
}

extension AuthRecords.EmailCode {
    /// What inspecting this code tells, in `state`.
    func info(_ state: EmailCodeInspection.State) -> EmailCodeInspection {
        let kind = AuthEmail.Kind(rawValue: kind) ?? .passwordReset
        let change = changeTo.map { EmailChange(from: changeFrom, to: $0) }
        return EmailCodeInspection(operation: kind, email: address, change: change, state: state, expiresAt: expiresAt)
    }
}
