import Foundation
import TrainCore

/// The stored form of TrainAuth's data: one `RecordStore` schema, the same for the
/// in-memory and the file-backed service.
enum AuthRecords {
    static let schema = StoreSchema(
        name: "auth",
        migrations: [
            .createCollections(version: 1, ["accounts", "identities", "passwords", "session", "usedCredentials", "settings"]),
            StoreMigration(version: 2, summary: "Index accounts by normalized email") { migration in
                try migration.createCollection("emails")
                try indexEmails(in: migration.records)
            },
            .createCollections(version: 3, ["revocations"]),
            .createCollections(version: 4, ["scheduledDeletions"]),
            .createCollections(version: 5, ["emailCodes", "emailCodeLinks", "emailSends", "tokenKeys", "guests"]),
            .createCollections(version: 6, ["spentCodes"]),
        ])

    /// An account: the user, whether it is disabled, and its session generation.
    struct Account: Codable, Hashable, Sendable {
        var user: UserEntity
        var isDisabled = false
        /// Raised by a password change or reset: a service signed in at an earlier
        /// generation is signed out at its next call. Nil is generation 0.
        var sessionGeneration: Int?
        /// How many times its password or address changed: a code mailed at a lower count
        /// is refused. A count, not a date, so a clock set forward or back cannot move it.
        var credentialChanges: Int?
        /// How many times its address changed with a recovery notice to the old one.
        var emailChanges: Int?

        var generation: Int { sessionGeneration ?? 0 }
    }

    /// Who is signed in on this device (as a keychain item would remember it), and the
    /// session's ID, which its ID tokens carry: a token is honoured while its session
    /// lasts. Nil in a session stored before tokens; one is given when a token is asked.
    struct Session: Codable, Hashable, Sendable {
        var userID: String
        var id: String?
        /// Why the session was ended from elsewhere — the account deleted on another
        /// device, say — for the device to tell its user at its next read or launch;
        /// nil while the session lasts.
        var endReason: SessionEnd.Reason?
        var endedAt: Date?
        /// How the user signed in to this session: an ``AuthProvider`` raw value, or
        /// `anonymous`; nil in a session stored before it was kept.
        var signInProvider: String?

        /// A new session of `userID`, with a new random ID, begun by `signInProvider`.
        init(userID: String, id: String? = UUID().uuidString, signInProvider: String? = nil) {
            self.userID = userID
            self.id = id
            self.signInProvider = signInProvider
        }

        /// The end this record tells of, if it was ended.
        var end: SessionEnd? {
            guard let endReason else { return nil }
            return SessionEnd(userID: userID, reason: endReason, date: endedAt ?? .distantPast)
        }
    }

    /// Marks every session of `userID` as ended for `reason`: each device learns why at
    /// its next read, or at its next launch.
    static func endSessions(of userID: String, because reason: SessionEnd.Reason, at date: Date, in records: RecordWriter) throws {
        for entry in try records.entries(in: session) where entry.value.userID == userID && entry.value.endReason == nil {
            var ended = entry.value
            ended.endReason = reason
            ended.endedAt = date
            try records.put(ended, forKey: entry.key, in: session)
        }
    }

    /// A code mailed to an address and not used yet: one per flow and address, the
    /// latest replacing the earlier. Only the code's SHA-256 is kept.
    struct EmailCode: Codable, Hashable, Sendable {
        var kind: String
        var address: String
        /// The account it acts on; nil for a sign-in code.
        var userID: String?
        var codeHash: String
        var expiresAt: Date
        var wrongAttempts = 0
        /// When it was mailed; nil in a code an earlier version stored.
        var sentAt: Date?
        /// For an address change's codes: the address changed from (nil if the account
        /// had none) and to. A recovery notice goes to the first, a verify-before-change
        /// code to the second.
        var changeFrom: String?
        var changeTo: String?
        /// For a recovery notice: which of the account's address changes it undoes
        /// (``Account/emailChanges`` after the change).
        var changeNumber: Int?
        /// The ``Account/credentialChanges`` of the account it acts on (a sign-in code's:
        /// the address's account) when it was mailed; nil counts as 0.
        var credentialEpoch: Int?
        /// For a recovery notice: the account's sign-in methods at the change — `provider|subject`
        /// for Apple, Google and a phone, the provider alone for a password and an email
        /// code, which follow the address. A recovery removes any added since.
        var methodsAtChange: [String]?

        /// Whether it may be used at `now`: before its expiry, and not dated after now —
        /// a code mailed before the clock was set back would otherwise outlive its lifetime.
        /// A recovery notice is the owner's way back: only its expiry ends it.
        func isLive(at now: Date) -> Bool {
            now < expiresAt && (kind == AuthEmail.Kind.recoverEmail.rawValue || (sentAt.map { $0 <= now } ?? true))
        }
    }

    /// Per-user settings kept with the user's data.
    struct Settings: Codable, Hashable, Sendable {
        var biometricLockEnabled = false
    }

    /// The outcome of revoking a user's Apple token ahead of deleting the account, kept
    /// so the deletion, resumed after a failure or a relaunch, does not ask Apple again.
    /// An Apple authorization given since removes it.
    struct Revocation: Codable, Hashable, Sendable {
        /// The failure's code name, detail and the code's sentences; nil when the token was revoked.
        var failureCode: String?
        var failureDetail: String?
        var failureMessage: String?
        var failureSuggestion: String?

        init(_ outcome: AccountDeletionReceipt.TokenRevocation) {
            if case .failed(let error) = outcome {
                failureCode = error.code.name
                failureDetail = error.detail
                failureMessage = error.code.message
                failureSuggestion = error.code.recoverySuggestion
            }
        }

        var outcome: AccountDeletionReceipt.TokenRevocation {
            guard let failureCode else { return .revoked }
            let code = AuthenticationError.Code(
                failureCode, message: failureMessage ?? failureDetail ?? failureCode, recoverySuggestion: failureSuggestion)
            return .failed(AuthenticationError(code, detail: failureDetail))
        }
    }

    static let accounts = RecordCollection<Account>("accounts")
    /// `provider|subject` → account ID.
    static let identities = RecordCollection<String>("identities")
    /// Normalized email address → the ID of the one account that uses it.
    static let emails = RecordCollection<String>("emails")
    static let passwords = RecordCollection<PasswordHash>("passwords")
    static let session = RecordCollection<Session>("session")
    /// SHA-256 of a used token or nonce → the token's expiry, after which it can be forgotten.
    static let usedCredentials = RecordCollection<Date>("usedCredentials")
    static let settings = RecordCollection<Settings>("settings")
    static let revocations = RecordCollection<Revocation>("revocations")
    /// Account ID → the date its scheduled deletion purges it from.
    static let scheduledDeletions = RecordCollection<Date>("scheduledDeletions")

    /// `kind|address` → the pending code of that flow for that address.
    static let emailCodes = RecordCollection<EmailCode>("emailCodes")
    /// `kind|SHA-256 of a long code` → its address, so a code alone finds its entry.
    static let emailCodeLinks = RecordCollection<String>("emailCodeLinks")
    /// Address → when codes were mailed to it in the last hour (whether or not it has an account).
    static let emailSends = RecordCollection<[Date]>("emailSends")
    /// How long a send counts against its address's limit.
    static let emailSendWindow: TimeInterval = 3_600
    /// `signing` → the ID token key made for these accounts when none is configured.
    static let tokenKeys = RecordCollection<Data>("tokenKeys")
    /// Guest account ID → the date it is purged from unless used before: its last use plus
    /// the policy's idle lifetime.
    static let guests = RecordCollection<Date>("guests")

    static let sessionKey = "current"

    static func identityKey(_ provider: AuthProvider, _ subject: String) -> String {
        "\(provider.rawValue)|\(subject)"
    }

    // MARK: - One email, one account

    /// The addresses an account answers to: its email, and the addresses it signs in
    /// with by password or email code. No two accounts share one.
    static func addresses(of user: UserEntity?) -> Set<String> {
        guard let user else { return [] }
        var addresses = Set(user.providers.filter { $0.provider == .password || $0.provider == .emailCode }.map(\.subject))
        if let email = user.email { addresses.insert(email) }
        return addresses
    }

    /// Moves the email index from what `old` answered to to what `new` does, inside the
    /// caller's transaction: claims each new address and frees each one no longer used.
    /// Pass nil as `old` for a new account, and as `new` for a deleted one.
    /// - Throws: `conflict` (``TrainCore/TrainErrorCode/emailAlreadyInUse`` by default) if another
    ///   account holds one of the new addresses.
    static func reindex(
        from old: UserEntity?, to new: UserEntity?, in records: RecordWriter, conflict: AuthenticationError.Code = .emailAlreadyInUse
    ) throws {
        guard let userID = new?.id ?? old?.id else { return }
        let before = addresses(of: old)
        let after = addresses(of: new)
        for email in after.subtracting(before).sorted() {
            if let owner = try records.value(forKey: email, in: emails), owner != userID { throw AuthenticationError(conflict) }
            try records.put(userID, forKey: email, in: emails)
        }
        for email in before.subtracting(after).sorted() where try records.value(forKey: email, in: emails) == userID {
            try records.removeValue(forKey: email, in: emails)
        }
    }

    /// Removes an account and everything kept for it — identities, email addresses,
    /// password, settings and kept revocation — ends every code mailed for it or for a
    /// sign-in to one of its addresses, and marks every session of theirs, on
    /// each device that shares the store, as ended by the deletion: a device removes the
    /// mark when it reads it.
    /// - Returns: The account removed; nil if there was none.
    static func removeAccount(_ userID: String, at date: Date, in records: RecordWriter) throws -> Account? {
        guard let account = try records.value(forKey: userID, in: accounts) else { return nil }
        try endSessions(of: userID, because: .accountDeleted, at: date, in: records)
        for linked in account.user.providers {
            try removeIdentity(identityKey(linked.provider, linked.subject), of: userID, in: records)
        }
        try reindex(from: account.user, to: nil, in: records)
        try retireCodes(of: userID, addresses: addresses(of: account.user), now: date, in: records)
        try records.removeValue(forKey: userID, in: passwords)
        try records.removeValue(forKey: userID, in: settings)
        try records.removeValue(forKey: userID, in: revocations)
        try records.removeValue(forKey: userID, in: scheduledDeletions)
        try records.removeValue(forKey: userID, in: guests)
        try records.removeValue(forKey: userID, in: accounts)
        return account
    }

    /// Moves codes past their expiry to the spent ones, which are forgotten a retention
    /// later, and forgets sends more than an hour old: neither counts any more, and each
    /// holds an address.
    static func forgetExpiredEmailRecords(in records: RecordWriter, now: Date) throws {
        for entry in try records.entries(in: emailCodes) where now >= entry.value.expiresAt {
            try retire(entry.value, at: entry.key, as: .expired, now: now, in: records)
        }
        try forgetSpentCodes(in: records, now: now)
        for entry in try records.entries(in: emailSends) where !entry.value.contains(where: { now.timeIntervalSince($0) < emailSendWindow }) {
            try records.removeValue(forKey: entry.key, in: emailSends)
        }
    }

    /// The key under which a long code's SHA-256 finds its address, in ``emailCodeLinks``.
    static func emailCodeLinkKey(_ kind: String, _ hash: String) -> String { "\(kind)|\(hash)" }

    /// Throws unless `account` may sign in: `userDisabled` for a disabled account or
    /// one past its scheduled deletion's date (it waits for the purge).
    static func checkCanSignIn(_ account: Account, in records: RecordReader, now: Date) throws {
        guard !account.isDisabled else { throw AuthenticationError(.userDisabled) }
        guard try !isDeletionDue(account.user.id, in: records, now: now) else {
            throw AuthenticationError(.userDisabled, detail: "The account's scheduled deletion is due; it is being deleted.", message: deletedMessage)
        }
    }

    /// Whether `userID`'s scheduled deletion has reached its date, or the account is a
    /// guest idle past its date.
    static func isDeletionDue(_ userID: String, in records: RecordReader, now: Date) throws -> Bool {
        try dueDate(of: userID, in: records, now: now) != nil
    }

    /// The date `userID` is purged from if that date has come: its scheduled deletion's,
    /// or an idle guest's.
    static func dueDate(of userID: String, in records: RecordReader, now: Date) throws -> Date? {
        if let date = try records.value(forKey: userID, in: scheduledDeletions), now >= date { return date }
        if let date = try records.value(forKey: userID, in: guests), now >= date { return date }
        return nil
    }

    /// What a user is told who signs in to an account past its scheduled deletion.
    static let deletedMessage = "This account has been deleted. Create a new account to use the app again."

    /// Whether another account than `userID` uses `email`.
    static func isTaken(_ email: String, byAnotherThan userID: String?, in records: RecordReader) throws -> Bool {
        guard let owner = try records.value(forKey: email, in: emails) else { return false }
        return owner != userID
    }

    /// Removes an identity if it still names `userID` (another account may have taken it since).
    static func removeIdentity(_ key: String, of userID: String, in records: RecordWriter) throws {
        guard try records.value(forKey: key, in: identities) == userID else { return }
        try records.removeValue(forKey: key, in: identities)
    }

    /// Builds the email index of a store written before it existed: password sign-ins
    /// move to the normalized address where it is free, then each account's addresses
    /// are indexed, the oldest account keeping an address that several share.
    private static func indexEmails(in records: RecordWriter) throws {
        for stored in try records.records(in: identities) where stored.key.hasPrefix(AuthProvider.password.rawValue + "|") {
            let subject = String(stored.key.dropFirst(AuthProvider.password.rawValue.count + 1))
            guard let normalized = try? Credentials.normalizedEmail(subject), normalized != subject,
                let owner = try records.value(forKey: stored.key, in: identities)
            else { continue }
            let key = identityKey(.password, normalized)
            guard try records.value(forKey: key, in: identities) == nil else { continue }
            try records.removeValue(forKey: stored.key, in: identities)
            try records.put(owner, forKey: key, in: identities)
            if var account = try records.value(forKey: owner, in: accounts),
                let index = account.user.providers.firstIndex(where: { $0.provider == .password && $0.subject == subject })
            {
                account.user.providers[index].subject = normalized
                try records.put(account, forKey: owner, in: accounts)
            }
        }
        let all = try records.values(in: accounts).sorted { ($0.user.createdAt, $0.user.id) < ($1.user.createdAt, $1.user.id) }
        for account in all {
            let normalized = addresses(of: account.user).compactMap { try? Credentials.normalizedEmail($0) }
            for email in Set(normalized).sorted() where try records.value(forKey: email, in: emails) == nil {
                try records.put(account.user.id, forKey: email, in: emails)
            }
        }
    }
}
