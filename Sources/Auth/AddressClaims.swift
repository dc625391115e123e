import Foundation
import TrainCore

/// An address typed into an account (``LocalAuthService/createUser(email:password:)``,
/// ``LocalAuthService/updateEmail(to:)``, a linked password) is claimed, not proven:
/// whoever typed it may never receive its mail. When its owner proves it — an email
/// sign-in code or a reset code — the claim gives the claimant no way in:
/// - an account that signs in only through the address (a password or an email code
///   on it, or a guest's nothing, with no main email elsewhere) is taken over by the
///   owner; the caller removes the unproven password and ends the account's other
///   sessions;
/// - an account with another way in (Apple, Google, a phone, a main email elsewhere),
///   or one disabled or due for deletion, loses the address, and the owner signs in
///   to an account of their own.
extension AuthRecords {
    /// Whether `user` proved that mail to `address` reaches it: its main address once
    /// verified, or the address of an email code it linked with a code. Only
    /// ``LocalAuthService/updateEmail(to:)`` moves an email code without one, and it
    /// moves it to the main address, unverified.
    static func hasProven(_ address: String, _ user: UserEntity) -> Bool {
        if user.email == address { return user.isEmailVerified }
        return user.providers.contains { $0.provider == .emailCode && $0.subject == address }
    }

    /// Whether a proof of `address` may act on `account`: it proved the address, or it
    /// may sign in and has no way in but the address — no main email elsewhere, and no
    /// sign-in method but a password or an email code on the address. A disabled
    /// account, or one due for deletion, that never proved the address gives it up.
    static func yields(_ address: String, to account: Account, in records: RecordReader, now: Date) throws -> Bool {
        if hasProven(address, account.user) { return true }
        guard !account.isDisabled, try !isDeletionDue(account.user.id, in: records, now: now) else { return false }
        return (account.user.email ?? address) == address
            && account.user.providers.allSatisfy { [.password, .emailCode].contains($0.provider) && $0.subject == address }
    }

    /// Inside a transaction, as someone proves `address`: an account holding it without
    /// proof that has another way in loses the address, its password on it and its
    /// email code. An account the proof may act on keeps it — unless the proof is for
    /// `userID`'s account (an address change's code), when any other account that never
    /// proved the address gives it up.
    static func dropUnprovenClaim(on address: String, for userID: String? = nil, in records: RecordWriter, now: Date) throws {
        guard let owner = try records.value(forKey: address, in: emails), owner != userID,
            var account = try records.value(forKey: owner, in: accounts)
        else { return }
        let givesWay = userID == nil ? try !yields(address, to: account, in: records, now: now) : !hasProven(address, account.user)
        guard givesWay else { return }
        let before = account.user
        for linked in account.user.providers where [.password, .emailCode].contains(linked.provider) && linked.subject == address {
            try removeIdentity(identityKey(linked.provider, linked.subject), of: owner, in: records)
            if linked.provider == .password { try records.removeValue(forKey: owner, in: passwords) }
        }
        account.user.providers.removeAll { [.password, .emailCode].contains($0.provider) && $0.subject == address }
        if account.user.email == address {
            account.user.email = nil
            account.user.isPrivateEmail = false
            account.user.isEmailVerified = false
        }
        try reindex(from: before, to: account.user, in: records)
        try records.put(account, forKey: owner, in: accounts)
    }
}
