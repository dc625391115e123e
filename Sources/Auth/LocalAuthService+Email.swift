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
        let key = try pendingKey(ofLongCode: code, .passwordReset)
        let hash = try PasswordHash(password: newPassword, iterations: configuration.policy.passwordIterations)
        let now = configuration.clock.now
        let user = try write { records -> AuthRecords.Account in
            let (pending, account) = try self.redeem(code, at: key, .passwordReset, in: records, now: now)
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
        let key = try pendingKey(ofLongCode: code, .emailVerification)
        let now = configuration.clock.now
        let user = try write { records -> UserEntity in
            var (pending, account) = try self.redeem(code, at: key, .emailVerification, in: records, now: now)
            // A code for an address the account no longer has verifies nothing.
            guard account.user.email == pending.address else {
                throw AuthenticationError(.invalidActionCode, detail: "The account's email address changed since the code was sent.")
            }
            account.user.isEmailVerified = true
            try records.put(account, forKey: account.user.id, in: AuthRecords.accounts)
            return account.user
        }
        if currentUser?.id == user.id { publish(user) }
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
        guard code.utf8.count == 6, code.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw AuthenticationError(.invalidVerificationCode, detail: "A sign-in code is six digits.")
        }
        let key = Self.codeKey(.signInCode, address)
        let now = configuration.clock.now
        let hash = try Credentials.sha256Hex(code)
        let maxAttempts = configuration.policy.maxCodeAttempts
        let check = { (records: RecordReader) throws -> AuthRecords.EmailCode in
            guard let pending = try records.value(forKey: key, in: AuthRecords.emailCodes) else {
                throw AuthenticationError(.invalidActionCode, detail: "No sign-in code is pending for this address.")
            }
            guard pending.isLive(at: now) else { throw AuthenticationError(.expiredActionCode) }
            guard pending.wrongAttempts < maxAttempts else {
                throw AuthenticationError(.tooManyRequests, detail: "\(maxAttempts) wrong codes were typed; ask for a new code.")
            }
            return pending
        }
        // The right code only reads; a wrong one is counted in a write that checks again.
        if try read(check).codeHash != hash {
            try write { records in
                var pending = try check(records)
                guard pending.codeHash != hash else { return }
                pending.wrongAttempts += 1
                try records.put(pending, forKey: key, in: AuthRecords.emailCodes)
            }
            throw AuthenticationError(.invalidVerificationCode, detail: "The code does not match.")
        }
        return VerifiedCredential(
            provider: .emailCode, subject: address, email: address, emailCode: (key: key, hash: hash))
    }

    // MARK: - Shared steps

    /// Whom a mailed code acts on.
    private enum Recipient: Equatable {
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
    private func mail(
        _ kind: AuthEmail.Kind, code: String, to address: String, countingFailures: Bool = false,
        recipient: (RecordWriter, Date) throws -> Recipient
    ) async throws {
        let sender = try requireEmailSender()
        let now = configuration.clock.now
        let addressee = try write { records -> Recipient in
            try self.countEmail(to: address, in: records, now: now)
            return try recipient(records, now)
        }
        guard addressee != .nobody else { return }
        do {
            try await deliver(AuthEmail(kind: kind, address: address, code: code), through: sender)
        } catch {
            if !countingFailures { try? write { records in try self.uncountEmail(to: address, sentAt: now, in: records) } }
            throw error
        }
        try write { records in
            guard try recipient(records, now) == addressee else { return }
            let userID: String? = if case .account(let id) = addressee { id } else { nil }
            try self.storeCode(code, kind, address: address, userID: userID, in: records, sentAt: now)
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

    private func requireEmailSender() throws(AuthenticationError) -> any EmailSender {
        guard let sender = configuration.emailSender else {
            throw AuthenticationError(.operationNotAllowed, detail: "No email sender is configured, so the email flows are off.")
        }
        return sender
    }

    private func deliver(_ email: AuthEmail, through sender: any EmailSender) async throws(AuthenticationError) {
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
    /// `address`, replacing an earlier one and keeping its wrong tries while it had not
    /// expired — unless a code sent later is pending already (two sends crossed).
    private func storeCode(
        _ code: String, _ kind: AuthEmail.Kind, address: String, userID: String?, in records: RecordWriter, sentAt now: Date
    ) throws {
        let key = Self.codeKey(kind, address)
        let earlier = try records.value(forKey: key, in: AuthRecords.emailCodes)
        if let later = earlier?.sentAt, later > now { return }
        if let earlier {
            try records.removeValue(forKey: AuthRecords.emailCodeLinkKey(kind.rawValue, earlier.codeHash), in: AuthRecords.emailCodeLinks)
        }
        let hash = try Credentials.sha256Hex(code)
        var pending = AuthRecords.EmailCode(
            kind: kind.rawValue, address: address, userID: userID, codeHash: hash,
            expiresAt: now.addingTimeInterval(configuration.policy.emailCodeLifetime.timeInterval), sentAt: now)
        // Wrong tries count for the address while the earlier code lived: a new code
        // every few minutes gives no fresh guesses.
        if let earlier, now < earlier.expiresAt { pending.wrongAttempts = earlier.wrongAttempts }
        try records.put(pending, forKey: key, in: AuthRecords.emailCodes)
        if kind != .signInCode { try records.put(address, forKey: AuthRecords.emailCodeLinkKey(kind.rawValue, hash), in: AuthRecords.emailCodeLinks) }
    }

    /// The key of the pending code a long code names, or `invalidActionCode`.
    private func pendingKey(ofLongCode code: String, _ kind: AuthEmail.Kind) throws(AuthenticationError) -> String {
        guard (1...256).contains(code.utf8.count) else { throw AuthenticationError(.invalidActionCode) }
        let hash = try Credentials.sha256Hex(code)
        guard let address = try read({ try $0.value(forKey: AuthRecords.emailCodeLinkKey(kind.rawValue, hash), in: AuthRecords.emailCodeLinks) })
        else {
            throw AuthenticationError(.invalidActionCode, detail: "The code is unknown, used, replaced, or of another flow.")
        }
        return Self.codeKey(kind, address)
    }

    /// Inside a transaction: uses up the long `code` pending at `key`, and returns it with
    /// the account it acts on — `invalidActionCode` if it was replaced or used meanwhile,
    /// or its account is gone or no longer has the address; `expiredActionCode` past its expiry.
    private func redeem(
        _ code: String, at key: String, _ kind: AuthEmail.Kind, in records: RecordWriter, now: Date
    ) throws -> (AuthRecords.EmailCode, AuthRecords.Account) {
        let hash = try Credentials.sha256Hex(code)
        guard let pending = try records.value(forKey: key, in: AuthRecords.emailCodes), pending.codeHash == hash else {
            throw AuthenticationError(.invalidActionCode, detail: "The code was replaced by a newer one or already used.")
        }
        guard pending.isLive(at: now) else { throw AuthenticationError(.expiredActionCode) }
        guard let userID = pending.userID, let account = try records.value(forKey: userID, in: AuthRecords.accounts),
            try records.value(forKey: pending.address, in: AuthRecords.emails) == userID
        else {
            throw AuthenticationError(.invalidActionCode, detail: "The code's account is gone or no longer uses the address.")
        }
        try AuthRecords.checkCanSignIn(account, in: records, now: now)
        try records.removeValue(forKey: key, in: AuthRecords.emailCodes)
        try records.removeValue(forKey: AuthRecords.emailCodeLinkKey(kind.rawValue, hash), in: AuthRecords.emailCodeLinks)
        return (pending, account)
    }

    static func codeKey(_ kind: AuthEmail.Kind, _ address: String) -> String { "\(kind.rawValue)|\(address)" }

    /// 43 URL-safe random characters (258 bits): what a reset or verification link carries.
    private static func longCode() throws(AuthenticationError) -> String {
        do {
            return try Nonce.random(length: 43)
        } catch {
            throw AuthenticationError(.storage, detail: "No code could be made: \(error.detail)")
        }
    }
}
