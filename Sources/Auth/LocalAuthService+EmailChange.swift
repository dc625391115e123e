import Foundation
import TrainCore

/// Address changes the old address can undo: every change mails the address
/// it leaves a notice whose code changes it back, and a verify-before-change flow moves
/// the address only once the new one proves itself.
extension LocalAuthService {
    /// Changes the account's email at once, unverified; the password and the email code
    /// follow the address. The old address is mailed a ``AuthEmail/Kind/recoverEmail``
    /// notice first, whose code undoes the change; without an email sender no notice
    /// can go, and the change is made all the same. Every code mailed for the account
    /// but that notice ends.
    public func updateEmail(to email: String) async throws -> UserEntity {
        let address = try Credentials.normalizedEmail(email)
        let current = try requireSession()
        try requireRecentLogin(current, before: "changing your email address")
        try read { records in try self.checkFree(address, for: current.user.id, in: records) }
        let notice = try await mailRecoveryNotice(for: current.user, changingTo: address)
        try requireStillSignedIn(current.user.id, during: "the notice of the change was mailed")
        let now = configuration.clock.now
        let user = try write { records in
            guard var account = try records.value(forKey: current.user.id, in: AuthRecords.accounts) else { throw AuthenticationError(.userNotFound) }
            try self.changeEmail(of: &account, to: address, verified: false, notice: notice, in: records, now: now)
            return account.user
        }
        publish(user)
        return user
    }

    /// Mails `email` a code that makes it the account's email once applied with
    /// ``applyActionCode(_:)``; until then nothing changes. While the policy protects
    /// against enumeration, an address another account uses is answered as any other
    /// and sent nothing, as Firebase's protected mode does.
    public func verifyBeforeUpdateEmail(to email: String) async throws {
        let address = try Credentials.normalizedEmail(email)
        let current = try requireSession()
        try requireRecentLogin(current, before: "changing your email address")
        guard current.user.email != address else { return }
        let protects = configuration.policy.protectsAgainstEnumeration
        if !protects { try read { records in try self.checkFree(address, for: current.user.id, in: records) } }
        let from = current.user.email
        try await mail(.verifyAndChangeEmail, code: try Self.longCode(), to: address, change: EmailChange(from: from, to: address)) { records, _ in
            // Kept only while the account still has the address the change is from, and
            // the address is free.
            guard let account = try records.value(forKey: current.user.id, in: AuthRecords.accounts), account.user.email == from,
                (try? self.checkFree(address, for: current.user.id, in: records)) != nil
            else { return .nobody }
            return .account(current.user.id)
        }
    }

    /// Applies a verify-before-change code: the old address is mailed its notice, then
    /// the address the code went to becomes the account's email, verified.
    func changeToVerifiedEmail(_ code: String) async throws -> EmailCodeInspection {
        let now = configuration.clock.now
        let found = try read { records -> (AuthRecords.EmailCode, UserEntity) in
            guard let found = try self.findLongCode(code, [.verifyAndChangeEmail], in: records) else { throw AuthenticationError(.invalidActionCode) }
            try Self.requireValid(try self.state(of: found, in: records, now: now))
            guard let userID = found.code.userID, let account = try records.value(forKey: userID, in: AuthRecords.accounts) else {
                throw AuthenticationError(.invalidActionCode)
            }
            return (found.code, account.user)
        }
        let address = found.0.address
        let notice = try await mailRecoveryNotice(for: found.1, changingTo: address)
        let changedAt = configuration.clock.now
        let user = try write { records -> UserEntity in
            let (pending, before) = try self.redeem(code, [.verifyAndChangeEmail], in: records, now: changedAt)
            // Receiving the code proves the address: an unproven claim on it gives way.
            try AuthRecords.dropUnprovenClaim(on: pending.address, in: records, now: changedAt)
            var account = before
            try self.checkFree(pending.address, for: account.user.id, in: records)
            try self.changeEmail(of: &account, to: pending.address, verified: true, notice: notice, in: records, now: changedAt)
            return account.user
        }
        if currentUser?.id == user.id { publish(user) }
        return found.0.info(.used)
    }

    /// Applies a recovery code: the account gets back the address the change left,
    /// verified, with the password and email code on it; every session of the account
    /// ends and every ID token is revoked (this device, if it is signed in to the
    /// account, stays with a new session); every other code ends, and with it the
    /// notices of later changes — so whoever made them cannot change the address back.
    func recoverEmail(_ code: String, now: Date) throws -> EmailCodeInspection {
        let (info, account) = try write { records -> (EmailCodeInspection, AuthRecords.Account) in
            let (pending, before) = try self.redeem(code, [.recoverEmail], in: records, now: now)
            var account = before
            try AuthRecords.dropUnprovenClaim(on: pending.address, in: records, now: now)
            try self.checkFree(pending.address, for: account.user.id, in: records)
            let number = pending.changeNumber ?? 0
            try AuthRecords.retireCodes(of: account.user.id, addresses: [], now: now, in: records) {
                $0.kind == AuthEmail.Kind.recoverEmail.rawValue && ($0.changeNumber ?? 0) > number
            }
            try Self.moveEmail(of: &account, to: pending.address, verified: true, in: records)
            try self.endSessions(of: &account, in: records)
            try AuthRecords.credentialChanged(
                &account, addresses: AuthRecords.addresses(of: before.user).union(AuthRecords.addresses(of: account.user)), now: now, in: records)
            try AuthRecords.reindex(from: before.user, to: account.user, in: records)
            try records.put(account, forKey: account.user.id, in: AuthRecords.accounts)
            return (pending.info(.used), account)
        }
        if currentUser?.id == account.user.id { beginSession(account.user, generation: account.generation) }
        return info
    }

    // MARK: - Shared steps

    /// A recovery notice mailed before an address change: its code, and the address it went to.
    struct RecoveryNotice {
        let code: String
        let address: String
    }

    /// Mails `user`'s email, before it changes to `address`, a notice with a recovery
    /// code. Nil when there is nothing to tell — no old address, no change — or no email
    /// sender. The notice is not counted against the address's hourly limit: a change
    /// is always told.
    func mailRecoveryNotice(for user: UserEntity, changingTo address: String) async throws -> RecoveryNotice? {
        guard let old = user.email, old != address, configuration.emailSender != nil else { return nil }
        let code = try Self.longCode()
        try await deliver(
            AuthEmail(kind: .recoverEmail, address: old, code: code, change: EmailChange(from: old, to: address)), through: try requireEmailSender())
        return RecoveryNotice(code: code, address: old)
    }

    /// Inside a transaction: `emailAlreadyInUse`, with the address, if another account
    /// uses `address` or signs in with it.
    nonisolated func checkFree(_ address: String, for userID: String, in records: RecordReader) throws {
        let identities = [AuthProvider.password, .emailCode].map { AuthRecords.identityKey($0, address) }
        let taken =
            try AuthRecords.isTaken(address, byAnotherThan: userID, in: records)
            || identities.contains { try records.value(forKey: $0, in: AuthRecords.identities).map { $0 != userID } ?? false }
        if taken { throw AuthenticationError(.emailAlreadyInUse, detail: "Another account uses \(address).", email: address) }
    }

    /// Inside a transaction: changes `account`'s email to `address` — ends its codes, keeps
    /// the recovery code of `notice` when it went to the address left — and stores it.
    func changeEmail(
        of account: inout AuthRecords.Account, to address: String, verified: Bool, notice: RecoveryNotice?, in records: RecordWriter, now: Date
    ) throws {
        let before = account.user
        try Self.moveEmail(of: &account, to: address, verified: verified || (before.email == address && before.isEmailVerified), in: records)
        guard before.email != address else {
            try records.put(account, forKey: account.user.id, in: AuthRecords.accounts)
            return
        }
        let addresses = AuthRecords.addresses(of: before).union(AuthRecords.addresses(of: account.user))
        try AuthRecords.credentialChanged(&account, addresses: addresses, now: now, in: records)
        if let notice, let old = before.email, notice.address == old {
            let number = (account.emailChanges ?? 0) + 1
            account.emailChanges = number
            try storeCode(
                notice.code, .recoverEmail, address: old, userID: account.user.id, change: EmailChange(from: old, to: address), changeNumber: number,
                lifetime: configuration.policy.addressRecoveryLifetime, in: records, sentAt: now)
        }
        try AuthRecords.reindex(from: before, to: account.user, in: records)
        try records.put(account, forKey: account.user.id, in: AuthRecords.accounts)
    }

    /// Inside a transaction: moves `account`'s email, and the password and email code
    /// that follow it, to `address`. The caller reindexes and stores the account.
    /// - Throws: `emailAlreadyInUse` with the address if another account signs in with it.
    static func moveEmail(of account: inout AuthRecords.Account, to address: String, verified: Bool, in records: RecordWriter) throws {
        let userID = account.user.id
        for index in account.user.providers.indices
        where [.password, .emailCode].contains(account.user.providers[index].provider) && account.user.providers[index].subject != address {
            let provider = account.user.providers[index].provider
            let newIdentity = AuthRecords.identityKey(provider, address)
            if let owner = try records.value(forKey: newIdentity, in: AuthRecords.identities), owner != userID {
                throw AuthenticationError(.emailAlreadyInUse, detail: "Another account signs in with \(address).", email: address)
            }
            try AuthRecords.removeIdentity(AuthRecords.identityKey(provider, account.user.providers[index].subject), of: userID, in: records)
            try records.put(userID, forKey: newIdentity, in: AuthRecords.identities)
            account.user.providers[index].subject = address
            account.user.providers[index].email = address
        }
        account.user.isEmailVerified = verified
        account.user.email = address
        account.user.isPrivateEmail = false
    }
}
