import Foundation
import TrainCore

/// Address changes the old address can undo: every change mails the address it leaves
/// a notice whose code changes it back, and a verify-before-change flow moves the
/// address only once the new one proves itself.
///
/// The notices of one account are numbered by change. Applying one undoes its change
/// and every change after it, whose notices end; notices of earlier changes stay. So
/// the notice of the first change away from the owner's address — which no later
/// change, password change or recovery by whoever made them can end — always takes the
/// account back.
extension LocalAuthService {
    /// Changes the account's email at once, unverified; the password and the email code
    /// follow the address. The old address is mailed a ``AuthEmail/Kind/recoverEmail``
    /// notice first, whose code undoes the change; without an email sender no notice
    /// can go, and the change is made all the same. Every code mailed for the account
    /// but the notices of address changes ends.
    public func updateEmail(to email: String) async throws -> UserEntity {
        let address = try Credentials.normalizedEmail(email)
        let current = try requireSession()
        try requireRecentLogin(current, before: "changing your email address")
        try read { records in try self.checkFree(address, for: current.user.id, in: records) }
        // Twice at most: a change made elsewhere between the notice and the write means
        // the notice went to an address the account no longer had.
        for _ in 0..<2 {
            let before = try read { records in try records.value(forKey: current.user.id, in: AuthRecords.accounts) }
            guard let before else { throw AuthenticationError(.userNotFound) }
            let notice = try await mailRecoveryNotice(for: before.user, changingTo: address)
            try requireStillSignedIn(current.user.id, during: "the notice of the change was mailed")
            let now = context.clock.now
            let user = try write { records -> UserEntity? in
                guard var account = try records.value(forKey: current.user.id, in: AuthRecords.accounts) else {
                    throw AuthenticationError(.userNotFound)
                }
                guard notice == nil || account.user.email == before.user.email else { return nil }
                try self.changeEmail(of: &account, to: address, verified: false, notice: notice, in: records, now: now)
                return account.user
            }
            if let user {
                publish(user)
                return user
            }
        }
        throw AuthenticationError(.networkError, detail: "The address changed on another device meanwhile; try again.")
    }

    /// Mails `email` a code that makes it the account's email once applied with
    /// ``applyActionCode(_:)``; until then nothing changes. While the policy protects
    /// against enumeration, an address another account uses is answered as any other
    /// and sent nothing, and a send the sender fails is answered as one sent, as
    /// ``sendPasswordReset(email:)`` answers.
    public func verifyBeforeUpdateEmail(to email: String) async throws {
        let address = try Credentials.normalizedEmail(email)
        let current = try requireSession()
        try requireRecentLogin(current, before: "changing your email address")
        guard current.user.email != address else { return }
        let protects = configuration.policy.protectsAgainstEnumeration
        if !protects { try read { records in try self.checkClaimable(address, for: current.user.id, in: records) } }
        let from = current.user.email
        let change = EmailChange(from: from, to: address)
        do {
            try await mail(.verifyAndChangeEmail, code: try Self.longCode(), to: address, change: change, countingFailures: protects) { records, _ in
                // Kept only while the account still has the address the change is from, and
                // the address is free.
                guard let account = try records.value(forKey: current.user.id, in: AuthRecords.accounts), account.user.email == from,
                    (try? self.checkClaimable(address, for: current.user.id, in: records)) != nil
                else { return .nobody }
                return .account(current.user.id)
            }
        } catch let error as AuthenticationError where error.code == .networkError && protects {}
    }

    /// Applies a verify-before-change code: the old address is mailed its notice, then
    /// the address the code went to becomes the account's email, verified; an account
    /// that holds it without having proved it gives it up.
    func changeToVerifiedEmail(_ code: String) async throws -> EmailCodeInspection {
        let now = context.clock.now
        // Everything the write checks is checked before the notice goes.
        let (pending, user) = try read { records -> (AuthRecords.EmailCode, UserEntity) in
            guard let found = try self.findLongCode(code, [.verifyAndChangeEmail], in: records) else { throw AuthenticationError(.invalidActionCode) }
            try Self.requireValid(try self.state(of: found, in: records, now: now))
            guard let userID = found.code.userID, let account = try records.value(forKey: userID, in: AuthRecords.accounts) else {
                throw AuthenticationError(.invalidActionCode)
            }
            try AuthRecords.checkCanSignIn(account, in: records, now: now)
            try self.checkClaimable(found.code.address, for: userID, in: records)
            return (found.code, account.user)
        }
        let notice = try await mailRecoveryNotice(for: user, changingTo: pending.address)
        let changedAt = context.clock.now
        let changed = try write { records -> UserEntity in
            let (pending, redeemed) = try self.redeem(code, [.verifyAndChangeEmail], in: records, now: changedAt)
            var account = redeemed
            try AuthRecords.dropUnprovenClaim(on: pending.address, for: account.user.id, in: records, now: changedAt)
            try self.checkFree(pending.address, for: account.user.id, in: records)
            try self.changeEmail(of: &account, to: pending.address, verified: true, notice: notice, in: records, now: changedAt)
            return account.user
        }
        if currentUser?.id == changed.id { publish(changed) }
        return pending.info(.used)
    }

    /// Applies a recovery code: the account gets back the address the change left,
    /// verified, with the password and email code on it — an account that holds it
    /// without having proved it gives it up — and loses the sign-in methods added since;
    /// every session of the account ends and every ID token is revoked (this device, if
    /// it is signed in to the account, stays with a new session); every other code ends
    /// but the notices of earlier changes, and the notices of later changes with them.
    func recoverEmail(_ code: String, now: Date) throws -> EmailCodeInspection {
        let (info, account) = try write { records -> (EmailCodeInspection, AuthRecords.Account) in
            let (pending, before) = try self.redeem(code, [.recoverEmail], in: records, now: now)
            var account = before
            try AuthRecords.dropUnprovenClaim(on: pending.address, for: account.user.id, in: records, now: now)
            try self.checkFree(pending.address, for: account.user.id, in: records)
            let number = pending.changeNumber ?? 0
            try AuthRecords.retireCodes(of: account.user.id, addresses: [], now: now, in: records) {
                $0.kind == AuthEmail.Kind.recoverEmail.rawValue && ($0.changeNumber ?? 0) > number
            }
            if let methods = pending.methodsAtChange { try AuthRecords.removeMethods(of: &account, addedSince: methods, in: records) }
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
    /// is always told. Mailed before the change is written: should the change then fail,
    /// the notice's code is unknown and nothing changed.
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

    /// Inside a transaction: `emailAlreadyInUse`, with the address, unless `address`
    /// would be `userID`'s once proven: free, or held by an account that never proved it,
    /// which gives it up.
    nonisolated func checkClaimable(_ address: String, for userID: String, in records: RecordReader) throws {
        let holders = try ([address] + [AuthProvider.password, .emailCode].map { AuthRecords.identityKey($0, address) }).enumerated().compactMap {
            try records.value(forKey: $1, in: $0 == 0 ? AuthRecords.emails : AuthRecords.identities)
        }
        for holder in Set(holders) where holder != userID {
            guard let account = try records.value(forKey: holder, in: AuthRecords.accounts), !AuthRecords.hasProven(address, account.user) else {
                throw AuthenticationError(.emailAlreadyInUse, detail: "Another account uses \(address).", email: address)
            }
        }
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
            var pending = AuthRecords.EmailCode(
                kind: AuthEmail.Kind.recoverEmail.rawValue, address: old, userID: account.user.id, codeHash: try Credentials.sha256Hex(notice.code),
                expiresAt: now.addingTimeInterval(configuration.policy.addressRecoveryLifetime.timeInterval), sentAt: now)
            pending.changeFrom = old
            pending.changeTo = address
            pending.changeNumber = number
            pending.methodsAtChange = AuthRecords.methods(of: before)
            // Each change's notice is kept on its own: a later one to the same address replaces none.
            try store(pending, slot: "\(old)#\(number)", in: records, now: now)
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

extension AuthRecords {
    /// `user`'s sign-in methods as a recovery notice keeps them: `provider|subject` for
    /// Apple, Google and a phone; the provider alone for a password and an email code,
    /// which follow the address.
    static func methods(of user: UserEntity) -> [String] {
        user.providers.map(methodKey)
    }

    private static func methodKey(_ linked: LinkedProvider) -> String {
        [.password, .emailCode].contains(linked.provider) ? linked.provider.rawValue : identityKey(linked.provider, linked.subject)
    }

    /// Inside a transaction: removes from `account` every sign-in method not in
    /// `methods`, with its identity (and the password's hash, a phone's number). The
    /// caller reindexes and stores the account.
    static func removeMethods(of account: inout Account, addedSince methods: [String], in records: RecordWriter) throws {
        let kept = Set(methods)
        for linked in account.user.providers where !kept.contains(methodKey(linked)) {
            try removeIdentity(identityKey(linked.provider, linked.subject), of: account.user.id, in: records)
            if linked.provider == .password { try records.removeValue(forKey: account.user.id, in: passwords) }
            if linked.provider == .phone { account.user.phoneNumber = nil }
        }
        account.user.providers.removeAll { !kept.contains(methodKey($0)) }
    }
}
