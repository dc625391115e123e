import Foundation
import TrainCore

extension LocalAuthService {
    /// Mails a password reset code when `email` belongs to an account, and answers the
    /// same either way: an unknown address is counted against its hourly limit but
    /// sent nothing. While the policy protects against enumeration, an email the sender
    /// fails is answered as one sent too: otherwise only an address with an account
    /// could ever hear `networkError`.
    public func sendPasswordReset(email: String) async throws {
        let address = try Credentials.normalizedEmail(email)
        let protects = configuration.policy.protectsAgainstEnumeration
        do {
            try await mail(.passwordReset, code: try Self.longCode(), to: address, countingFailures: protects, recipient: resetRecipient(of: address))
        } catch let error as AuthenticationError where error.code == .networkError && protects {}
    }

    /// Who a reset mailed to `address` acts on.
    private nonisolated func resetRecipient(of address: String) -> (RecordWriter, Date) throws -> Recipient {
        { records, now in
            // An account that never proved the address and has another way in is not sent
            // its reset: the code would be for whoever typed the address in.
            guard let owner = try records.value(forKey: address, in: AuthRecords.emails),
                let account = try records.value(forKey: owner, in: AuthRecords.accounts), !account.isDisabled,
                try AuthRecords.yields(address, to: account, in: records, now: now)
            else { return .nobody }
            return .account(owner)
        }
    }

    public func confirmPasswordReset(code: String, newPassword: String) async throws {
        try Credentials.checkStrength(newPassword, minimumLength: configuration.policy.minimumPasswordLength)
        try checkLongCode(code)
        let hash = try PasswordHash(password: newPassword, iterations: configuration.policy.passwordIterations)
        let now = context.clock.now
        let user = try write { records -> AuthRecords.Account in
            let (pending, account) = try self.redeem(code, [.passwordReset], in: records, now: now)
            guard try AuthRecords.yields(pending.address, to: account, in: records, now: now) else {
                throw AuthenticationError(.invalidActionCode, detail: "The account gained another sign-in method without proving the address.")
            }
            var changed = account
            if !changed.user.isLinked(.password) {
                let identity = AuthRecords.identityKey(.password, pending.address)
                guard try records.value(forKey: identity, in: AuthRecords.identities) == nil else { throw AuthenticationError(.invalidActionCode) }
                changed.user.providers.append(LinkedProvider(provider: .password, subject: pending.address, email: pending.address, linkedAt: now))
                try Self.upgradeGuest(&changed, in: records)
                try records.put(changed.user.id, forKey: identity, in: AuthRecords.identities)
            }
            // Receiving the code proves the address is the user's.
            if changed.user.email == pending.address { changed.user.isEmailVerified = true }
            try records.put(hash, forKey: changed.user.id, in: AuthRecords.passwords)
            try self.endSessions(of: &changed, in: records)
            try AuthRecords.credentialChanged(&changed, addresses: AuthRecords.addresses(of: changed.user), now: now, in: records)
            try AuthRecords.reindex(from: account.user, to: changed.user, in: records)
            try records.put(changed, forKey: changed.user.id, in: AuthRecords.accounts)
            return changed
        }
        if currentUser?.id == user.user.id { beginSession(user.user, generation: user.generation) }
    }

    public func sendEmailVerification() async throws {
        let current = try requireSession()
        guard let address = current.user.email else {
            throw AuthenticationError(.invalidEmail, detail: "The account has no email address to verify.")
        }
        try await mail(.emailVerification, code: try Self.longCode(), to: address) { _, _ in .account(current.user.id) }
    }

    public func verifyEmail(code: String) async throws {
        try checkLongCode(code)
        let now = context.clock.now
        let user = try write { records in try self.applyVerification(code, in: records, now: now).1 }
        if currentUser?.id == user.id { publish(user) }
    }

    /// Inside a transaction: uses up the verification `code` and marks its address verified.
    /// - Returns: The code, and the user.
    func applyVerification(_ code: String, in records: RecordWriter, now: Date) throws -> (AuthRecords.EmailCode, UserEntity) {
        var (pending, account) = try redeem(code, [.emailVerification], in: records, now: now)
        // A code for an address the account no longer has verifies nothing.
        guard account.user.email == pending.address else {
            throw AuthenticationError(.invalidActionCode, detail: "The account's email address changed since the code was sent.")
        }
        account.user.isEmailVerified = true
        try records.put(account, forKey: account.user.id, in: AuthRecords.accounts)
        return (pending, account.user)
    }

    /// Mails a 6-digit sign-in code to any well-formed address: signing in with it
    /// creates the account if the address has none, so the answer tells nothing.
    public func sendSignInCode(to email: String) async throws {
        let address = try Credentials.normalizedEmail(email)
        // Six digits from the system's secure generator, as a phone code's.
        try await mail(.signInCode, code: String(format: "%06d", Int.random(in: 0...999_999)), to: address) { _, _ in .address }
    }

    public nonisolated func requireVerifiedEmail(for action: VerifiedEmailAction) throws {
        guard configuration.policy.verifiedEmailRequired.contains(action) else { return }
        guard let user = currentUser else { throw AuthenticationError(.notSignedIn) }
        let stored = try read { records in try records.value(forKey: user.id, in: AuthRecords.accounts) }
        guard stored?.user.isEmailVerified == true else {
            throw AuthenticationError(.unverifiedEmail, detail: "The policy needs a verified email address for \(action.rawValue).")
        }
    }

    // MARK: - Sign-in codes

    /// Checks an email sign-in code. A wrong code counts against the code, which is
    /// refused with `tooManyRequests` after the policy's attempts; the code is used up
    /// only by the operation's transaction (``consume(_:for:in:)``).
    func verifyEmailCode(email: String, code: String) throws(AuthenticationError) -> VerifiedCredential {
        let address = try Credentials.normalizedEmail(email)
        let info = try inspectSignInCode(code, address: address)
        try Self.requireValid(info.state)
        return VerifiedCredential(
            provider: .emailCode, subject: address, email: address,
            emailCode: (key: Self.codeKey(.signInCode, address), hash: try Credentials.sha256Hex(code)))
    }

    /// What the sign-in `code` for `address` is. A code that is neither the pending one
    /// nor a spent one is a wrong try at the pending one, counted in a write that checks
    /// again: inspecting is no free guess.
    /// - Throws: `invalidVerificationCode` for a wrong code, `tooManyRequests` once the
    ///   pending code took the policy's wrong tries, `invalidActionCode` when none is pending.
    private func inspectSignInCode(_ code: String, address: String) throws(AuthenticationError) -> EmailCodeInspection {
        guard code.utf8.count == 6, code.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw AuthenticationError(.invalidVerificationCode, detail: "A sign-in code is six digits.")
        }
        let key = Self.codeKey(.signInCode, address)
        let now = context.clock.now
        let hash = try Credentials.sha256Hex(code)
        let maxAttempts = configuration.policy.maxCodeAttempts
        // The inspection, or nil for a wrong code at a live pending one.
        let check = { (records: RecordReader) throws -> EmailCodeInspection? in
            let owner = try records.value(forKey: address, in: AuthRecords.emails).flatMap { try records.value(forKey: $0, in: AuthRecords.accounts) }
            let pending = try records.value(forKey: key, in: AuthRecords.emailCodes)
            if let pending, pending.isLive(at: now), pending.wrongAttempts >= maxAttempts {
                throw AuthenticationError(.tooManyRequests, detail: "\(maxAttempts) wrong codes were typed; ask for a new code.")
            }
            if let pending, pending.codeHash == hash {
                return pending.info(AuthRecords.state(of: pending, outcome: nil, account: owner, now: now))
            }
            let spent = AuthRecords.spentKey(AuthEmail.Kind.signInCode.rawValue, address: address, hash: hash)
            if let record = try records.value(forKey: spent, in: AuthRecords.spentCodes) {
                return record.code.info(AuthRecords.state(of: record.code, outcome: record.outcome, account: owner, now: now))
            }
            guard let pending else { throw AuthenticationError(.invalidActionCode, detail: "No sign-in code is pending for this address.") }
            guard pending.isLive(at: now) else { throw AuthenticationError(.expiredActionCode) }
            return nil
        }
        if let info = try read(check) { return info }
        try write { records in
            guard try check(records) == nil, var pending = try records.value(forKey: key, in: AuthRecords.emailCodes) else { return }
            pending.wrongAttempts += 1
            try records.put(pending, forKey: key, in: AuthRecords.emailCodes)
        }
        throw AuthenticationError(.invalidVerificationCode, detail: "The code does not match.")
    }

    // MARK: - Inspecting and applying codes

    /// Tells what a code is, without using it; a wrong six-digit code counts as a wrong try.
    public func checkActionCode(_ code: String, email: String?) async throws -> EmailCodeInspection {
        if let email, code.utf8.count == 6 {
            return try inspectSignInCode(code, address: try Credentials.normalizedEmail(email))
        }
        try checkLongCode(code)
        let now = context.clock.now
        return try read { records in
            guard let found = try self.findLongCode(code, Self.longCodeKinds, in: records) else {
                throw AuthenticationError(.invalidActionCode, detail: "The code is unknown, or its record is past its retention.")
            }
            return found.code.info(try self.state(of: found, in: records, now: now))
        }
    }

    /// Applies a verification, a recovery notice's or a verify-before-change code.
    public func applyActionCode(_ code: String) async throws -> EmailCodeInspection {
        try checkLongCode(code)
        let kind = try read { records in try self.findLongCode(code, Self.longCodeKinds, in: records)?.code.kind }
        let now = context.clock.now
        switch kind.flatMap(AuthEmail.Kind.init(rawValue:)) {
        case .emailVerification:
            let (pending, user) = try write { records in try self.applyVerification(code, in: records, now: now) }
            if currentUser?.id == user.id { publish(user) }
            return pending.info(.used)
        case .recoverEmail:
            return try recoverEmail(code, now: now)
        case .verifyAndChangeEmail:
            return try await changeToVerifiedEmail(code)
        case .passwordReset:
            throw AuthenticationError(.invalidActionCode, detail: "A password reset code goes to confirmPasswordReset(code:newPassword:).")
        case .signInCode, nil:
            throw AuthenticationError(.invalidActionCode, detail: "The code is unknown, used, replaced, or of another flow.")
        }
    }

    // MARK: - Shared steps

    /// Whom a mailed code acts on.
    enum Recipient: Equatable {
        /// Nobody: the email is counted, and not sent.
        case nobody
        /// The account with this ID.
        case account(String)
        /// Whoever holds the address: a sign-in code.
        case address
    }

    /// Counts an email to `address` against its hourly limit and, unless `recipient` says
    /// nobody, mails `code` and then keeps it as the pending code of `kind` — so a send the
    /// sender fails replaces no code: the one the user holds still works. A failed send
    /// does not count, unless `countingFailures`. The recipient is read again once the
    /// email went out, and a code whose account changed meanwhile is not kept.
    func mail(
        _ kind: AuthEmail.Kind, code: String, to address: String, change: EmailChange? = nil, countingFailures: Bool = false,
        recipient: (RecordWriter, Date) throws -> Recipient
    ) async throws {
        let sender = try requireEmailSender()
        let now = context.clock.now
        let addressee = try write { records -> Recipient in
            try self.countEmail(to: address, in: records, now: now)
            return try recipient(records, now)
        }
        guard addressee != .nobody else { return }
        do {
            try await deliver(AuthEmail(kind: kind, address: address, code: code, change: change), through: sender)
        } catch {
            if !countingFailures { try? write { records in try self.uncountEmail(to: address, sentAt: now, in: records) } }
            throw error
        }
        try write { records in
            guard try recipient(records, now) == addressee else { return }
            let userID: String? = if case .account(let id) = addressee { id } else { nil }
            try self.storeCode(code, kind, address: address, userID: userID, change: change, in: records, sentAt: now)
        }
    }

    /// Takes the send at `sentAt` out of the address's count: it failed.
    private func uncountEmail(to address: String, sentAt: Date, in records: RecordWriter) throws {
        guard var sends = try records.value(forKey: address, in: AuthRecords.emailSends), let index = sends.lastIndex(of: sentAt) else { return }
        sends.remove(at: index)
        if sends.isEmpty {
            try records.removeValue(forKey: address, in: AuthRecords.emailSends)
        } else {
            try records.put(sends, forKey: address, in: AuthRecords.emailSends)
        }
    }

    func requireEmailSender() throws(AuthenticationError) -> any EmailSender {
        guard let sender = configuration.emailSender else {
            throw AuthenticationError(.operationNotAllowed, detail: "No email sender is configured, so the email flows are off.")
        }
        return sender
    }

    func deliver(_ email: AuthEmail, through sender: any EmailSender) async throws(AuthenticationError) {
        do {
            try await sender.send(email)
        } catch let error as AuthenticationError {
            throw error
        } catch {
            throw AuthenticationError(.networkError, detail: "The email could not be sent: \(type(of: error)).")
        }
    }

    /// Counts an email to `address` against its hourly limit, whether or not one is
    /// sent; `tooManyRequests` at the limit. Sends dated after now (a clock set back)
    /// still count until an hour after their date.
    private func countEmail(to address: String, in records: RecordWriter, now: Date) throws {
        let recent = try (records.value(forKey: address, in: AuthRecords.emailSends) ?? []).filter {
            now.timeIntervalSince($0) < AuthRecords.emailSendWindow
        }
        guard recent.count < configuration.policy.emailsPerAddressPerHour else {
            throw AuthenticationError(.tooManyRequests, detail: "This address was sent \(recent.count) emails in the last hour.")
        }
        try records.put(recent + [now], forKey: address, in: AuthRecords.emailSends)
    }

    /// Keeps `code` (its hash), sent at `now`, as the pending code of `kind` for
    /// `address`, valid for the policy's email code lifetime, with the count of its
    /// account's credential changes. The earlier one ends, and its wrong tries with it: a
    /// new code starts afresh — unless a code sent later is pending already (two sends
    /// crossed).
    func storeCode(
        _ code: String, _ kind: AuthEmail.Kind, address: String, userID: String?, change: EmailChange? = nil, in records: RecordWriter,
        sentAt now: Date
    )
        throws
    {
        var pending = AuthRecords.EmailCode(
            kind: kind.rawValue, address: address, userID: userID, codeHash: try Credentials.sha256Hex(code),
            expiresAt: now.addingTimeInterval(configuration.policy.emailCodeLifetime.timeInterval), sentAt: now)
        pending.changeFrom = change?.from
        pending.changeTo = change?.to
        let owner = try userID ?? records.value(forKey: address, in: AuthRecords.emails)
        pending.credentialEpoch = try owner.flatMap { try records.value(forKey: $0, in: AuthRecords.accounts) }?.credentialChanges
        try store(pending, slot: address, in: records, now: now)
    }

    /// Keeps `pending` under `slot` of its flow, ending the code kept there before unless
    /// that one was sent later; a long code is linked from its hash.
    func store(_ pending: AuthRecords.EmailCode, slot: String, in records: RecordWriter, now: Date) throws {
        let key = Self.codeKey(pending.kind, slot)
        let earlier = try records.value(forKey: key, in: AuthRecords.emailCodes)
        if let later = earlier?.sentAt, let sent = pending.sentAt, later > sent { return }
        if let earlier { try AuthRecords.retire(earlier, at: key, as: .revoked, now: now, in: records) }
        try records.put(pending, forKey: key, in: AuthRecords.emailCodes)
        if pending.kind != AuthEmail.Kind.signInCode.rawValue {
            try records.put(slot, forKey: AuthRecords.emailCodeLinkKey(pending.kind, pending.codeHash), in: AuthRecords.emailCodeLinks)
        }
    }

    /// The flows whose codes are long: all but the sign-in code.
    static let longCodeKinds: [AuthEmail.Kind] = AuthEmail.Kind.allCases.filter { $0 != .signInCode }

    /// A long code is 1 to 256 bytes; any other is `invalidActionCode`.
    nonisolated func checkLongCode(_ code: String) throws(AuthenticationError) {
        guard (1...256).contains(code.utf8.count) else { throw AuthenticationError(.invalidActionCode) }
    }

    /// A long code found pending or spent: the code, its key while pending, and why it was spent.
    struct FoundCode {
        var code: AuthRecords.EmailCode
        var pendingKey: String?
        var outcome: AuthRecords.SpentCode.Outcome?
    }

    /// The pending or spent code of one of `kinds` that the long `code` is, if any.
    nonisolated func findLongCode(_ code: String, _ kinds: [AuthEmail.Kind], in records: RecordReader) throws -> FoundCode? {
        let hash = try Credentials.sha256Hex(code)
        for kind in kinds {
            if let address = try records.value(forKey: AuthRecords.emailCodeLinkKey(kind.rawValue, hash), in: AuthRecords.emailCodeLinks) {
                let key = Self.codeKey(kind, address)
                if let pending = try records.value(forKey: key, in: AuthRecords.emailCodes), pending.codeHash == hash {
                    return FoundCode(code: pending, pendingKey: key)
                }
            }
            if let spent = try records.value(forKey: AuthRecords.spentKey(kind.rawValue, address: "", hash: hash), in: AuthRecords.spentCodes) {
                return FoundCode(code: spent.code, outcome: spent.outcome)
            }
        }
        return nil
    }

    /// What `found` is now: its state as a code, and revoked while pending if its account
    /// is gone, disabled, or no longer has what the code acts on.
    nonisolated func state(of found: FoundCode, in records: RecordReader, now: Date) throws -> EmailCodeInspection.State {
        let code = found.code
        let account = try code.userID.flatMap { try records.value(forKey: $0, in: AuthRecords.accounts) }
        let state = AuthRecords.state(of: code, outcome: found.outcome, account: account, now: now)
        guard state == .valid else { return state }
        guard let account, !account.isDisabled else { return .revoked }
        switch AuthEmail.Kind(rawValue: code.kind) {
        case .recoverEmail:
            // The account changed away from the address: it gets it back.
            return .valid
        case .verifyAndChangeEmail:
            return account.user.email == code.changeFrom ? .valid : .revoked
        default:
            return try records.value(forKey: code.address, in: AuthRecords.emails) == account.user.id ? .valid : .revoked
        }
    }

    /// Throws the error a code in `state` is refused with; nothing for a valid one.
    static func requireValid(_ state: EmailCodeInspection.State) throws(AuthenticationError) {
        switch state {
        case .valid: return
        case .expired: throw AuthenticationError(.expiredActionCode)
        case .used: throw AuthenticationError(.invalidActionCode, detail: "The code was used already.")
        case .revoked:
            throw AuthenticationError(
                .invalidActionCode, detail: "A newer code replaced it, the account's password or address changed, or the account is gone.")
        }
    }

    /// Inside a transaction: uses up the long `code` of one of `kinds`, and returns it
    /// with the account it acts on — `invalidActionCode` if it is unknown, used, replaced
    /// or revoked, or its account is gone or no longer has what it acts on;
    /// `expiredActionCode` past its expiry or from before the account's last password or
    /// address change; `userDisabled` for an account that may not sign in.
    func redeem(_ code: String, _ kinds: [AuthEmail.Kind], in records: RecordWriter, now: Date) throws -> (AuthRecords.EmailCode, AuthRecords.Account)
    {
        guard let found = try findLongCode(code, kinds, in: records) else {
            throw AuthenticationError(.invalidActionCode, detail: "The code is unknown, used, replaced, or of another flow.")
        }
        try Self.requireValid(try state(of: found, in: records, now: now))
        guard let key = found.pendingKey, let userID = found.code.userID, let account = try records.value(forKey: userID, in: AuthRecords.accounts)
        else { throw AuthenticationError(.invalidActionCode) }
        try AuthRecords.checkCanSignIn(account, in: records, now: now)
        try AuthRecords.retire(found.code, at: key, as: .used, now: now, in: records)
        return (found.code, account)
    }

    static func codeKey(_ kind: AuthEmail.Kind, _ address: String) -> String { codeKey(kind.rawValue, address) }

    /// The key in ``AuthRecords/emailCodes`` of the pending code of flow `kind` kept under `slot`: its address, or a recovery notice's address and change number.
    static func codeKey(_ kind: String, _ slot: String) -> String { "\(kind)|\(slot)" }

    /// 43 URL-safe random characters (258 bits): what a reset or verification link carries.
    static func longCode() throws(AuthenticationError) -> String {
        do {
            return try Nonce.random(length: 43)
        } catch {
            throw AuthenticationError(.storage, detail: "No code could be made: \(error.detail)")
        }
    }
}
