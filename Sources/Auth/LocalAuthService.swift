import Foundation
import TrainCore

/// TrainKit's ``AuthService``: the whole sign-in logic running on this device, on a
/// `RecordStore` — in memory for previews and tests, or in a file so the session
/// survives a relaunch. Both variants run this same code.
///
/// ```swift
/// let clock = SystemClock()
/// let apple = SimulatedIdentityProvider(provider: .apple, audience: "com.example.train", clock: clock)
/// apple.signIn(as: .init(subject: "001.ada", email: "ada@example.com", fullName: FullName(givenName: "Ada")))
/// let auth = try LocalAuthService(
///     storage: .file(directory.appendingPathComponent("auth.sqlite")),
///     context: TrainContext(clock: clock),
///     configuration: AuthConfiguration(apple: .init(authorizer: apple, audience: "com.example.train")))
/// let user = try await auth.signInWithApple()
/// ```
///
/// Identity tokens are checked for issuer, audience, expiry and nonce; their
/// signatures are the backend's business (Firebase checks them with Apple's keys)
/// and are not verified here.
///
/// Two services on one file — an app and its extension — never overwrite each
/// other: every check that guards a write (one account per email and per identity,
/// a free account ID) runs inside the write's transaction, and each service signs out
/// only the session it signed in. A session that another service ended — the account
/// deleted or disabled, the password changed — is signed out here at this service's
/// next read of ``currentUser``, and ``lastSessionEnd`` says why; each session's end
/// is kept with it, for the next launch to tell, until a sign-in replaces it.
public actor LocalAuthService: AuthService {
    private let store: RecordStore
    /// Where this service's session is kept among the sessions of a shared store.
    let sessionKey: String
    /// The clock and IDs every rule reads.
    let context: TrainContext
    let configuration: AuthConfiguration
    nonisolated let users: Broadcast<UserEntity?>
    /// Every value of the signed-in user, a refresh of the same user included.
    nonisolated let userValues: Broadcast<UserEntity?>
    /// Each new ID token of this session, and nil when the session ends.
    nonisolated let tokens = Broadcast<String?>(initial: nil)
    /// The latest ID token, while it is fresh.
    var keptToken: KeptToken?
    /// The task that renews the kept token five minutes before it expires.
    var renewal: Task<Void, Never>?
    /// The account's session generation when this service signed it in.
    var sessionGeneration = 0
    var phoneVerifications = PhoneVerifications()
    /// The latest Apple authorization code of each user this session and when it was
    /// issued, for token revocation at deletion. Memory only, as the code is a secret.
    var authorizationCodes: [String: (code: String, issuedAt: Date)] = [:]
    private let revocationListener = Locked<Task<Void, Never>?>(nil)
    /// How the last session ended, on this device.
    nonisolated let sessionEnds: Broadcast<SessionEnd?>
    /// The store's commit count when the signed-in session was last found standing:
    /// until it moves, ``currentUser`` reads nothing.
    private nonisolated let checkedAt = Locked<SessionCheck?>(nil)
    /// Checks the session after each commit to the accounts, so a session ended on
    /// another device ends here without a call.
    private let sessionWatch = Locked<Task<Void, Never>?>(nil)
    /// Told each value of the signed-in user as it is shown.
    private nonisolated let accountFollowers = Locked<[@Sendable (UserEntity) -> Void]>([])

    /// Creates a service whose accounts live in memory. It cannot fail, so a SwiftUI
    /// preview or a test can make one without `try`.
    /// - Parameters:
    ///   - context: The clock and IDs; the live ones by default.
    ///   - configuration: Providers, senders and policy.
    public init(context: TrainContext = .live, configuration: AuthConfiguration = AuthConfiguration()) {
        self.init(
            store: .inMemoryOrFailing(AuthRecords.schema), sessionKey: AuthRecords.sessionKey, context: context, configuration: configuration,
            restored: (nil, nil))
    }

    /// Creates a service in memory with `user`'s account signed in, for SwiftUI previews
    /// and prototypes that start inside the app. It cannot fail: a user the store
    /// refuses (an empty ID) leaves the service signed out.
    /// - Parameters:
    ///   - user: The account to add and sign in.
    ///   - context: The clock and IDs; the live ones by default.
    ///   - configuration: Providers, senders and policy.
    public init(signedIn user: UserEntity, context: TrainContext = .live, configuration: AuthConfiguration = AuthConfiguration()) {
        let store = RecordStore.inMemoryOrFailing(AuthRecords.schema)
        let restored = try? store.write { records -> AuthRecords.Account in
            try Self.insert(user, in: records)
            try records.put(
                AuthRecords.Session(userID: user.id, signInProvider: user.signInProvider), forKey: AuthRecords.sessionKey, in: AuthRecords.session)
            return AuthRecords.Account(user: user)
        }
        self.init(
            store: store, sessionKey: AuthRecords.sessionKey, context: context, configuration: configuration,
            restored: restored.map { ($0, nil) } ?? (nil, nil))
    }

    /// Creates a service whose accounts and session live in `storage`. From a file it
    /// restores the signed-in session; an account deleted or disabled meanwhile is
    /// signed out.
    /// - Parameters:
    ///   - storage: In memory, or a file (other services may share it) with its options.
    ///   - context: The clock and IDs; the live ones by default.
    ///   - configuration: Providers, senders and policy.
    /// - Throws: `CoreError` naming the file if it cannot be opened.
    public init(storage: StorageLocation, context: TrainContext = .live, configuration: AuthConfiguration = AuthConfiguration()) throws {
        let store = try RecordStore(storage, schema: AuthRecords.schema)
        try self.init(store: store, sessionKey: AuthRecords.sessionKey, signingIn: nil, context: context, configuration: configuration)
    }

    /// Creates a service on accounts other services share — the devices of one
    /// simulated world — with a session of its own under `sessionKey`: restored, or
    /// made for `userID` when one is given, with `appleAuthorizationCode` as the code of
    /// that user's latest Apple sign-in.
    /// - Throws: `CoreError` if the store cannot be read; ``AuthenticationError`` `userNotFound`
    ///   or `userDisabled` if `userID` has no account that may sign in.
    package init(
        store: RecordStore, sessionKey: String, signingIn userID: String?, appleAuthorizationCode: String? = nil,
        context: TrainContext, configuration: AuthConfiguration
    ) throws {
        let context = configuration.legacy.applied(to: context)
        let now = context.clock.now
        let restored = try store.write { records -> (AuthRecords.Account?, SessionEnd?) in
            if let userID {
                // An ID no key can be — empty, or longer than a key may be — has no account.
                guard (1...16_384).contains(userID.utf8.count), let account = try records.value(forKey: userID, in: AuthRecords.accounts) else {
                    throw AuthenticationError(.userNotFound, detail: "No account has the ID '\(userID)'.")
                }
                try AuthRecords.checkCanSignIn(account, in: records, now: now)
                try records.put(
                    AuthRecords.Session(userID: userID, signInProvider: account.user.signInProvider), forKey: sessionKey, in: AuthRecords.session)
            }
            return try Self.restoreSession(
                sessionKey, in: records, now: now, guestIdleLifetime: configuration.policy.guestIdleLifetime?.timeInterval)
        }
        let code = appleAuthorizationCode.flatMap { code in restored.0.map { (userID: $0.user.id, code: code, issuedAt: now) } }
        self.init(
            store: store, sessionKey: sessionKey, context: context, configuration: configuration, restored: restored,
            appleAuthorizationCode: code)
    }

    /// The schema of the accounts, for a store other services share.
    package static var recordSchema: StoreSchema { AuthRecords.schema }

    /// Adds `user`'s account as given — its sign-in methods and dates — unless an account
    /// has its ID: the signed-in user of a preview, in a store devices share.
    /// - Throws: `CoreError`, or ``AuthenticationError`` if an email or identity of the user is taken.
    package static func insert(_ user: UserEntity, into store: RecordStore) throws {
        try store.write { records in
            if try records.data(forKey: user.id, in: AuthRecords.accounts) == nil { try insert(user, in: records) }
        }
    }

    /// The one spelling of an email address the accounts store, or nil for text that is
    /// not an address: a world's snapshot being checked.
    package static func normalizedEmail(_ text: String) -> String? {
        try? Credentials.normalizedEmail(text)
    }

    static func insert(_ user: UserEntity, in records: RecordWriter) throws {
        try AuthRecords.reindex(from: nil, to: user, in: records)
        for linked in user.providers {
            try records.put(user.id, forKey: AuthRecords.identityKey(linked.provider, linked.subject), in: AuthRecords.identities)
        }
        try records.put(AuthRecords.Account(user: user), forKey: user.id, in: AuthRecords.accounts)
    }

    /// Forgets used tokens past their expiry, and returns the user of the session under
    /// `key` unless the session was ended elsewhere, or the account was deleted, disabled
    /// or is past its scheduled deletion's date: then the session is removed, and how it
    /// ended returned instead.
    private static func restoreSession(_ key: String, in records: RecordWriter, now: Date, guestIdleLifetime: TimeInterval?) throws -> (
        AuthRecords.Account?, SessionEnd?
    ) {
        // Used tokens past their expiry would be refused as expired anyway: forget them.
        for stored in try records.records(in: AuthRecords.usedCredentials) {
            if let expiry = try records.value(forKey: stored.key, in: AuthRecords.usedCredentials), expiry < now {
                try records.removeValue(forKey: stored.key, in: AuthRecords.usedCredentials)
            }
        }
        try AuthRecords.forgetExpiredEmailRecords(in: records, now: now)
        guard let session = try records.value(forKey: key, in: AuthRecords.session) else { return (nil, nil) }
        if let reason = try endReason(of: session, in: records, now: now) {
            // The mark stays, so every launch — and an extension sharing the session —
            // tells why, until a sign-in here replaces it.
            try records.put(Self.ended(session, because: reason, at: now), forKey: key, in: AuthRecords.session)
            return (nil, SessionEnd(userID: session.userID, reason: reason, date: session.endedAt ?? now))
        }
        guard let account = try records.value(forKey: session.userID, in: AuthRecords.accounts) else { return (nil, nil) }
        // A guest opening the app is a guest in use: its idle time starts again.
        if account.user.isAnonymous, try records.value(forKey: session.userID, in: AuthRecords.guests) != nil {
            try touchGuest(session.userID, until: guestIdleLifetime.map { now.addingTimeInterval($0) }, in: records)
        }
        return (account, nil)
    }

    /// `session` marked as ended for `reason`, unless it was marked already.
    static func ended(_ session: AuthRecords.Session, because reason: SessionEnd.Reason, at date: Date) -> AuthRecords.Session {
        guard session.endReason == nil else { return session }
        var ended = session
        ended.endReason = reason
        ended.endedAt = date
        return ended
    }

    /// Why `session` no longer stands, or nil while it does: ended from elsewhere, or its
    /// account deleted, due for deletion or disabled.
    static func endReason(of session: AuthRecords.Session, in records: RecordReader, now: Date) throws -> SessionEnd.Reason? {
        if let reason = session.endReason { return reason }
        // An ID no key can be — empty, or longer than a key may be — has no account.
        guard (1...16_384).contains(session.userID.utf8.count), let account = try records.value(forKey: session.userID, in: AuthRecords.accounts)
        else { return .accountDeleted }
        if try AuthRecords.isDeletionDue(session.userID, in: records, now: now) { return .accountDeleted }
        return account.isDisabled ? .accountDisabled : nil
    }

    private init(
        store: RecordStore, sessionKey: String, context: TrainContext, configuration: AuthConfiguration,
        restored: (account: AuthRecords.Account?, end: SessionEnd?), appleAuthorizationCode: (userID: String, code: String, issuedAt: Date)? = nil
    ) {
        if let appleAuthorizationCode {
            authorizationCodes[appleAuthorizationCode.userID] = (appleAuthorizationCode.code, appleAuthorizationCode.issuedAt)
        }
        self.store = store
        self.sessionKey = sessionKey
        self.context = configuration.legacy.applied(to: context)
        self.configuration = configuration
        users = Broadcast(initial: restored.account?.user)
        userValues = Broadcast(initial: restored.account?.user)
        sessionEnds = Broadcast(initial: restored.end)
        sessionGeneration = restored.account?.generation ?? 0
        let commits = store.commits.subscribe(replayingCurrent: false)
        let watch = Task { [weak self] in
            for await _ in commits {
                // Reading the user checks the session against what was committed.
                _ = self?.currentUser
            }
        }
        sessionWatch.withLock { $0 = watch }
        if let apple = configuration.apple {
            let events = apple.authorizer.revocations()
            let task = Task { [weak self] in
                for await userID in events {
                    await self?.handleRevocation(ofAppleUser: userID)
                }
            }
            revocationListener.withLock { $0 = task }
        }
    }

    deinit {
        revocationListener.withLock { $0?.cancel() }
        sessionWatch.withLock { $0?.cancel() }
        sessionEnds.finish()
        renewal?.cancel()
        users.finish()
        userValues.finish()
        tokens.finish()
    }

    // MARK: - State

    /// The signed-in user, checked against the stored accounts whenever they changed
    /// since the last look: a session ended elsewhere — the account deleted or disabled
    /// on another device, the password changed there — ends here at this read, and
    /// ``lastSessionEnd`` says why.
    public nonisolated var currentUser: UserEntity? {
        guard let user = users.value else { return nil }
        // Commits through this store, and those another store on the file made — an
        // extension's, another process's — as far as this store has seen them.
        let check = SessionCheck(commits: store.commits.value, externalChanges: store.recentExternalChangeCount(), userID: user.id)
        guard checkedAt.withLock({ $0 }) != check else { return user }
        let now = context.clock.now
        let end: SessionEnd?
        do {
            end = try read { records -> SessionEnd? in
                guard let session = try records.value(forKey: self.sessionKey, in: AuthRecords.session) else {
                    // Removed by another service sharing this session: signed out there.
                    return SessionEnd(userID: user.id, reason: .signedOut, date: now)
                }
                // Another user's session: a sign-in on its way here, or by another service
                // sharing this session, which shows that user at its own next call.
                guard session.userID.utf8.elementsEqual(user.id.utf8) else { return nil }
                return try Self.endReason(of: session, in: records, now: now).map {
                    SessionEnd(userID: user.id, reason: $0, date: session.endedAt ?? now)
                }
            }
        } catch {
            // Unreadable now (a read inside this store's own transaction, say): the next read checks.
            return user
        }
        guard let end else {
            checkedAt.withLock { $0 = check }
            return user
        }
        endedElsewhere(user, by: end)
        return users.value
    }

    /// What a check of the session found it standing at: the store's commits and the
    /// other stores' commits seen then, and the user checked.
    private struct SessionCheck: Equatable {
        var commits: UInt64
        var externalChanges: UInt64
        var userID: String
    }

    public nonisolated var lastSessionEnd: SessionEnd? { sessionEnds.value }

    /// Ends `user`'s session here after a read found it ended elsewhere — unless this
    /// service moved on to another user meanwhile — and drops what it kept of it. The
    /// stored session keeps its mark, for the next launch to tell why too.
    private nonisolated func endedElsewhere(_ user: UserEntity, by end: SessionEnd) {
        // Told before the state changes, so whoever follows the state finds why.
        guard users.value?.id == user.id else { return }
        sessionEnds.send(end)
        guard users.send(nil, if: { $0?.id == user.id }) else { return }
        userValues.send(nil, if: { $0?.id == user.id })
        Task { await self.forgetEndedSession(of: user.id, because: end.reason) }
    }

    /// Drops the token and the Apple code of `userID`'s session that ended elsewhere,
    /// and marks the stored session ended, if nobody signed in since.
    private func forgetEndedSession(of userID: String, because reason: SessionEnd.Reason) {
        authorizationCodes[userID] = nil
        guard users.value == nil else { return }
        dropKeptToken()
        let now = context.clock.now
        try? write { records in
            if let session = try records.value(forKey: self.sessionKey, in: AuthRecords.session), session.userID == userID {
                try records.put(Self.ended(session, because: reason, at: now), forKey: self.sessionKey, in: AuthRecords.session)
            }
        }
    }

    public nonisolated func accountExists(_ userID: String) throws -> Bool {
        guard (1...16_384).contains(userID.utf8.count) else { return false }
        return try read { records in try records.data(forKey: userID, in: AuthRecords.accounts) != nil }
    }

    public nonisolated func authStateChanges() -> AsyncStream<UserEntity?> {
        users.subscribe()
    }

    public nonisolated func userChanges() -> AsyncStream<UserEntity?> {
        userValues.subscribe()
    }

    // MARK: - Sign-in

    public func signInWithApple() async throws -> UserEntity {
        try await signIn(with: requestCredential(from: .apple))
    }

    public func signInWithGoogle() async throws -> UserEntity {
        try await signIn(with: requestCredential(from: .google))
    }

    public func requestCredential(from provider: AuthProvider) async throws -> SignInCredential {
        guard let configured = configuration.provider(provider) else {
            throw AuthenticationError(.operationNotAllowed, detail: "\(provider.rawValue) is not configured for this service.")
        }
        let rawNonce = try Nonce.random()
        let request = AuthorizationRequest(hashedNonce: try Credentials.sha256Hex(rawNonce))
        do {
            return .identity(try await configured.authorizer.authorize(request), rawNonce: rawNonce)
        } catch let error as AuthenticationError {
            throw error
        } catch is CancellationError {
            throw AuthenticationError(.cancelled)
        } catch {
            throw AuthenticationError(.networkError, detail: "The \(provider.rawValue) sign-in failed: \(type(of: error)).")
        }
    }

    public func signIn(with credential: SignInCredential) async throws -> UserEntity {
        let verified = try verify(credential)
        let now = context.clock.now
        // A password is checked before the transaction (hashing takes a while), and the
        // transaction makes sure the account still has the hash that was checked. When it
        // has another — a sign-in on another device on the file rehashed it meanwhile — the
        // password is checked once more against that one.
        var generation = 0
        var signedIn: UserEntity?
        for attempt in 0..<2 where signedIn == nil {
            let storedHash = try read { records -> PasswordHash? in
                guard let existing = try self.account(for: verified, in: records) else {
                    // Without the protection an unknown address is told at once; with it, the
                    // password is hashed all the same and the answer is the wrong password's.
                    if verified.password != nil, !self.configuration.policy.protectsAgainstEnumeration {
                        throw AuthenticationError(.userNotFound, detail: "No account uses this email address.")
                    }
                    return nil
                }
                // A disabled account is told only to someone who knows its password: the
                // password is checked first, so the answer and its time say nothing before.
                if verified.password == nil { try AuthRecords.checkCanSignIn(existing, in: records, now: now) }
                return try self.storedHash(for: verified, userID: existing.user.id, in: records)
            }
            let checkedHash = try checkPassword(of: verified, against: storedHash)
            let rehashed = try rehash(verified, checked: checkedHash)
            signedIn = try write { records -> UserEntity? in
                var account: AuthRecords.Account
                if verified.provider == .emailCode { try AuthRecords.dropUnprovenClaim(on: verified.subject, in: records, now: now) }
                if let existing = try self.account(for: verified, in: records) {
                    if verified.password != nil {
                        guard let checkedHash, try records.value(forKey: existing.user.id, in: AuthRecords.passwords) == checkedHash else {
                            if attempt == 0, checkedHash != nil { return nil }
                            throw self.passwordRefusal(.wrongPassword)
                        }
                        if let rehashed { try records.put(rehashed, forKey: existing.user.id, in: AuthRecords.passwords) }
                    }
                    try AuthRecords.checkCanSignIn(existing, in: records, now: now)
                    account = existing
                    // Used before the update, which ends the account's other codes if it takes the address over.
                    try self.consume(verified, for: account.user.id, in: records)
                    try self.update(&account, signingInWith: verified, in: records, now: now)
                } else {
                    guard verified.provider != .password else { throw self.passwordRefusal(.userNotFound) }
                    account = AuthRecords.Account(user: self.newUser(from: verified, id: try self.newAccountID(in: records), now: now))
                    try AuthRecords.reindex(from: nil, to: account.user, in: records, conflict: .accountExistsWithDifferentCredential)
                    try records.put(account.user.id, forKey: verified.identityKey, in: AuthRecords.identities)
                    try self.consume(verified, for: account.user.id, in: records)
                }
                account.user.lastSignInAt = now
                try records.put(account, forKey: account.user.id, in: AuthRecords.accounts)
                try records.put(
                    AuthRecords.Session(userID: account.user.id, signInProvider: verified.provider.rawValue), forKey: self.sessionKey,
                    in: AuthRecords.session)
                generation = account.generation
                return account.user
            }
        }
        guard let user = signedIn else { throw passwordRefusal(.wrongPassword) }
        finish(verified, for: user)
        beginSession(user, generation: generation)
        return user
    }

    /// What a later sign-in adds to an existing account. What it does not carry never
    /// erases what the first one did. An email code proves the address: it links the
    /// email code provider and verifies the email — and if the address was not verified
    /// before, whoever typed it in is shut out: their password is removed and the
    /// account's other sessions end. A guest it signs in to is a guest no more.
    private func update(_ account: inout AuthRecords.Account, signingInWith verified: VerifiedCredential, in records: RecordWriter, now: Date) throws
    {
        let before = account.user
        account.user.displayName = account.user.displayName ?? verified.fullName?.formatted
        if account.user.email == nil, let email = verified.email, try !AuthRecords.isTaken(email, byAnotherThan: account.user.id, in: records) {
            account.user.email = email
            account.user.isPrivateEmail = verified.isPrivateEmail
            account.user.isEmailVerified = verified.provider != .password
        }
        guard verified.provider == .emailCode else {
            try AuthRecords.reindex(from: before, to: account.user, in: records)
            return
        }
        if !AuthRecords.hasProven(verified.subject, account.user) {
            if let password = account.user.providers.first(where: { $0.provider == .password }) {
                account.user.providers.removeAll { $0.provider == .password }
                try records.removeValue(forKey: account.user.id, in: AuthRecords.passwords)
                try AuthRecords.removeIdentity(AuthRecords.identityKey(.password, password.subject), of: account.user.id, in: records)
            }
            try endSessions(of: &account, in: records)
            try AuthRecords.credentialChanged(&account, addresses: AuthRecords.addresses(of: before), now: now, in: records)
        }
        if (account.user.email ?? verified.subject) == verified.subject {
            account.user.email = verified.subject
            account.user.isPrivateEmail = false
            account.user.isEmailVerified = true
        }
        try Self.upgradeGuest(&account, in: records)
        if !account.user.isLinked(.emailCode) {
            account.user.providers.append(LinkedProvider(provider: .emailCode, subject: verified.subject, email: verified.subject, linkedAt: now))
            try records.put(account.user.id, forKey: verified.identityKey, in: AuthRecords.identities)
        }
        try AuthRecords.reindex(from: before, to: account.user, in: records)
    }

    /// A refused password sign-in: `invalidCredential` for both an unknown address and
    /// a wrong password while the policy protects against enumeration, else `code`.
    nonisolated func passwordRefusal(_ code: AuthenticationError.Code) -> AuthenticationError {
        guard configuration.policy.protectsAgainstEnumeration else { return AuthenticationError(code) }
        return AuthenticationError(.invalidCredential, detail: "The email address or the password is wrong.")
    }

    public func createUser(email: String, password: String) async throws -> UserEntity {
        let address = try Credentials.normalizedEmail(email)
        try Credentials.checkStrength(password, minimumLength: configuration.policy.minimumPasswordLength)
        let identity = AuthRecords.identityKey(.password, address)
        guard
            try read({
                try $0.value(forKey: identity, in: AuthRecords.identities) == nil && !AuthRecords.isTaken(address, byAnotherThan: nil, in: $0)
            })
        else {
            throw AuthenticationError(.emailAlreadyInUse)
        }
        let hash = try PasswordHash(password: password, iterations: configuration.policy.passwordIterations)
        let now = context.clock.now
        let user = try write { records in
            // Checked again here: another service on the file may have taken the address meanwhile.
            guard try records.value(forKey: identity, in: AuthRecords.identities) == nil else { throw AuthenticationError(.emailAlreadyInUse) }
            let user = UserEntity(
                id: try self.newAccountID(in: records), email: address,
                providers: [LinkedProvider(provider: .password, subject: address, email: address, linkedAt: now)],
                createdAt: now, lastSignInAt: now)
            try AuthRecords.reindex(from: nil, to: user, in: records)
            try records.put(AuthRecords.Account(user: user), forKey: user.id, in: AuthRecords.accounts)
            try records.put(user.id, forKey: identity, in: AuthRecords.identities)
            try records.put(hash, forKey: user.id, in: AuthRecords.passwords)
            try records.put(
                AuthRecords.Session(userID: user.id, signInProvider: AuthProvider.password.rawValue), forKey: self.sessionKey, in: AuthRecords.session
            )
            return user
        }
        beginSession(user, generation: 0)
        return user
    }

    /// Sends a 6-digit code; a test number gets its fixed code and no SMS. A new code
    /// replaces the number's earlier ones.
    public func sendVerificationCode(to phoneNumber: String) async throws -> String {
        let number = try PhoneNumber.normalize(phoneNumber)
        let policy = configuration.policy
        let fixed = policy.testPhoneNumbers[number]
        guard fixed != nil || configuration.codeSender != nil else {
            throw AuthenticationError(.invalidPhoneNumber, detail: "The number is not a test number and no code sender is configured.")
        }
        let code = fixed ?? String(format: "%06d", Int.random(in: 0...999_999))
        let id = context.ids.makeID()
        let now = context.clock.now
        // The verification (and with it the resend cooldown) is taken before the SMS is
        // awaited, so two calls at once cannot both send. A test number is never
        // throttled, as in Firebase: UI tests and App Review sign in with it again and again.
        if fixed == nil { try phoneVerifications.checkCanSend(to: number, now: now, limits: phoneLimits) }
        let replaced = phoneVerifications.start(id: id, phoneNumber: number, code: code, now: now, lifetime: policy.codeLifetime.timeInterval)
        if fixed == nil, let sender = configuration.codeSender {
            do {
                try await sender.send(code: code, to: number)
            } catch {
                phoneVerifications.cancel(id, for: number, restoring: replaced)
                if let error = error as? AuthenticationError { throw error }
                throw AuthenticationError(.networkError, detail: "The code could not be sent: \(type(of: error)).")
            }
        }
        return id
    }

    // MARK: - Session

    @discardableResult
    public func reauthenticate(with credential: SignInCredential) async throws -> UserEntity {
        let current = try requireSession()
        let verified = try verify(credential)
        let storedHash = try read { records -> PasswordHash? in
            guard let owner = try self.account(for: verified, in: records), owner.user.id == current.user.id else {
                throw AuthenticationError(.userMismatch, detail: "The credential belongs to another account than the signed-in one.")
            }
            return try self.storedHash(for: verified, userID: owner.user.id, in: records)
        }
        let checkedHash = try checkPassword(of: verified, against: storedHash)
        let now = context.clock.now
        let user = try write { records in
            guard try self.account(for: verified, in: records)?.user.id == current.user.id,
                var account = try records.value(forKey: current.user.id, in: AuthRecords.accounts), !account.isDisabled
            else {
                throw AuthenticationError(.userMismatch, detail: "The credential no longer belongs to the signed-in account.")
            }
            if verified.password != nil, try records.value(forKey: account.user.id, in: AuthRecords.passwords) != checkedHash {
                throw self.passwordRefusal(.wrongPassword)
            }
            account.user.lastSignInAt = now
            try records.put(account, forKey: account.user.id, in: AuthRecords.accounts)
            try self.consume(verified, for: account.user.id, in: records)
            return account.user
        }
        finish(verified, for: user)
        publish(user)
        return user
    }

    /// Signs out: the session is cleared in memory first, then in storage — where it is
    /// removed only if it is still the one this service signed in.
    public func signOut() async throws {
        try endSession(because: .signedOut)
    }

    public func checkCredentialState() async throws -> CredentialState {
        let current = try requireSession()
        guard let apple = configuration.apple else {
            throw AuthenticationError(.operationNotAllowed, detail: "Sign in with Apple is not configured.")
        }
        guard let subject = current.user.providers.first(where: { $0.provider == .apple })?.subject else {
            throw AuthenticationError(.noSuchProvider, detail: "The account has no Apple ID linked.")
        }
        let state: CredentialState
        do {
            state = try await apple.authorizer.credentialState(forUserID: subject)
        } catch let error as AuthenticationError {
            throw error
        } catch {
            throw AuthenticationError(.networkError, detail: "The credential state could not be read: \(type(of: error)).")
        }
        if state == .revoked || state == .notFound, currentUser?.id == current.user.id {
            try endSession(because: .credentialRevoked)
        }
        return state
    }

    private func handleRevocation(ofAppleUser subject: String) {
        guard let user = currentUser, user.providers.contains(where: { $0.provider == .apple && $0.subject == subject }) else { return }
        try? endSession(because: .credentialRevoked)
    }

    /// Disables or re-enables an account, as an administrator would in a console;
    /// disabling the signed-in account signs it out.
    /// - Parameters:
    ///   - disabled: Whether the account is disabled.
    ///   - userID: The account.
    /// - Throws: ``TrainCore/TrainErrorCode/userNotFound`` for an unknown account.
    public func setAccountDisabled(_ disabled: Bool, userID: String) throws {
        try write { records in
            guard var account = try records.value(forKey: userID, in: AuthRecords.accounts) else { throw AuthenticationError(.userNotFound) }
            account.isDisabled = disabled
            try records.put(account, forKey: userID, in: AuthRecords.accounts)
        }
        if disabled, currentUser?.id == userID { try endSession(because: .accountDisabled) }
    }

    // MARK: - Shared steps

    /// The signed-in account as stored; a deleted or disabled one, or one past its
    /// scheduled deletion's date, is signed out here.
    func requireSession() throws(AuthenticationError) -> AuthRecords.Account {
        guard let userID = users.value?.id else { throw AuthenticationError(.notSignedIn) }
        let now = context.clock.now
        let generation = sessionGeneration
        do {
            let account = try read { records in
                // An ID no key can be — empty, or longer than a key may be — has no account.
                guard (1...16_384).contains(userID.utf8.count), let account = try records.value(forKey: userID, in: AuthRecords.accounts) else {
                    throw AuthenticationError(.userNotFound)
                }
                try AuthRecords.checkCanSignIn(account, in: records, now: now)
                // A password change or reset on another device ends this session; one on
                // this device (an app and its extension share the session) renewed it.
                let session = try records.value(forKey: self.sessionKey, in: AuthRecords.session)
                if session?.userID == userID, session?.endReason != nil {
                    throw AuthenticationError(.notSignedIn, detail: "This device's session was ended on another device.")
                }
                if account.generation != generation, session?.userID != userID {
                    throw AuthenticationError(.notSignedIn, detail: "The account's password changed on another device since this one signed in.")
                }
                return account
            }
            if account.generation != generation {
                sessionGeneration = account.generation
                dropKeptToken()
            }
            return account
        } catch {
            if [.userNotFound, .userDisabled, .notSignedIn].contains(error.code) {
                // The mark another device left says why; else the error does.
                let marked = try? read { records in
                    try records.value(forKey: self.sessionKey, in: AuthRecords.session).flatMap { $0.userID == userID ? $0.endReason : nil }
                }
                let reason: SessionEnd.Reason =
                    switch error.code {
                    case _ where marked != nil: marked ?? .signedOut
                    case .userNotFound: .accountDeleted
                    case .notSignedIn: .sessionRevoked
                    default: error.message == AuthRecords.deletedMessage ? .accountDeleted : .accountDisabled
                    }
                try? endSession(because: reason)
            }
            throw error
        }
    }

    /// After an `await`: throws unless `userID` is still the user signed in to this service.
    func requireStillSignedIn(_ userID: String, during action: String) throws(AuthenticationError) {
        guard let current = currentUser else {
            throw AuthenticationError(.notSignedIn, detail: "The user signed out while \(action).")
        }
        guard current.id == userID else {
            throw AuthenticationError(.userMismatch, detail: "Another user signed in while \(action); nothing was changed.")
        }
    }

    /// Throws `requiresRecentLogin` unless the account is a guest or the last sign-in is between 0 and the window
    /// old: exactly the window is fresh, and a sign-in dated in the future (the clock was
    /// ahead, then set back) is not.
    /// - Parameter action: What the user is doing, for the user-facing sentence.
    func requireRecentLogin(_ account: AuthRecords.Account, before action: String) throws(AuthenticationError) {
        // A guest has no credential to prove itself again with: holding its session is all there is.
        guard !account.user.isAnonymous else { return }
        let age = context.clock.now.timeIntervalSince(account.user.lastSignInAt)
        guard age >= 0, age <= configuration.policy.recentLoginWindow.timeInterval else {
            // A stored date can be anything a file holds: the seconds are shown clamped, never converted unchecked.
            let seconds = age.isFinite ? Int(min(abs(age), 1e12)) : 0
            throw AuthenticationError(
                .requiresRecentLogin,
                detail: age < 0 ? "The last sign-in is dated \(seconds) seconds in the future." : "The last sign-in was \(seconds) seconds ago.",
                message: AuthenticationError.recentLoginMessage(before: action))
        }
    }

    /// An account ID that no stored account has: a generator shared by several services
    /// on one file (or restarted) may hand out one that is taken.
    func newAccountID(in records: RecordReader) throws -> String {
        for _ in 0..<1_000 {
            let id = context.ids.makeID()
            if try records.data(forKey: id, in: AuthRecords.accounts) == nil { return id }
        }
        throw AuthenticationError(.storage, detail: "The ID generator gave 1,000 IDs in a row that existing accounts already have.")
    }

    /// Clears the session in memory first, then in storage if it is still this service's.
    /// - Parameter reason: Why it ends, for ``lastSessionEnd``.
    func endSession(because reason: SessionEnd.Reason) throws(AuthenticationError) {
        guard let user = users.value else { return }
        authorizationCodes[user.id] = nil
        dropKeptToken()
        let now = context.clock.now
        sessionEnds.send(SessionEnd(userID: user.id, reason: reason, date: now))
        show(nil)
        // The session is kept marked as ended, so the next launch tells why it ended; a
        // sign-in here replaces it.
        try write { records in
            if let session = try records.value(forKey: self.sessionKey, in: AuthRecords.session), session.userID == user.id {
                try records.put(Self.ended(session, because: reason, at: now), forKey: self.sessionKey, in: AuthRecords.session)
            }
        }
    }

    /// Shows `user` in a session begun or renewed just now, at the account's session
    /// `generation`; the kept ID token, of the session before, goes.
    func beginSession(_ user: UserEntity, generation: Int) {
        dropKeptToken()
        sessionGeneration = generation
        publish(user)
    }

    /// Makes `user` current: a new user is announced, the same user only refreshed, and
    /// a kept ID token whose claims changed with it is renewed.
    func publish(_ user: UserEntity) {
        let before = users.value
        if before?.id != user.id { dropKeptToken() }
        show(user)
        renewKeptToken(after: before, user)
    }

    /// Shows `user` on both streams: ``authStateChanges()`` tells a change of user,
    /// ``userChanges()`` every change.
    private func show(_ user: UserEntity?) {
        if let user, users.value?.id == user.id { users.replace(user) } else { users.send(user) }
        userValues.send(user)
        guard let user else { return }
        for follower in accountFollowers.withLock({ $0 }) { follower(user) }
    }

    /// Calls `body` with each value of the signed-in user as it is shown — a sign-in, a
    /// new name, a linked method — before the call that changed it returns: how a stack
    /// keeps the user's social profile in step with their account.
    /// - Parameter body: What to call; it must not call back into this service's actor.
    package nonisolated func followAccount(_ body: @escaping @Sendable (UserEntity) -> Void) {
        accountFollowers.withLock { $0.append(body) }
    }

    /// Forgets a deleted account's session and Apple code here.
    func forget(userID: String) {
        authorizationCodes[userID] = nil
        if users.value?.id == userID {
            dropKeptToken()
            sessionEnds.send(SessionEnd(userID: userID, reason: .accountDeleted, date: context.clock.now))
            show(nil)
        }
    }

    var phoneLimits: PhoneVerifications.Limits {
        let policy = configuration.policy
        return PhoneVerifications.Limits(
            cooldown: policy.codeResendCooldown.timeInterval, maxWrongCodes: policy.maxCodeAttempts,
            lockout: policy.phoneNumberLockout.timeInterval)
    }

    /// Checks a phone code; a test number's wrong codes are not counted against it.
    func checkPhoneCode(verificationID: String, code: String) throws(AuthenticationError) -> String {
        var limits = phoneLimits
        if phoneVerifications.phoneNumber(of: verificationID).map({ configuration.policy.testPhoneNumbers[$0] != nil }) == true {
            limits.maxWrongCodes = .max
        }
        return try phoneVerifications.check(id: verificationID, code: code, now: context.clock.now, limits: limits)
    }

    nonisolated func read<Result>(_ body: (RecordReader) throws -> Result) throws(AuthenticationError) -> Result {
        do {
            return try store.read(body)
        } catch {
            throw Self.authError(error)
        }
    }

    nonisolated func write<Result>(_ body: (RecordWriter) throws -> Result) throws(AuthenticationError) -> Result {
        do {
            return try store.write(body)
        } catch {
            throw Self.authError(error)
        }
    }

    private static func authError(_ error: any Error) -> AuthenticationError {
        if let error = error as? AuthenticationError { return error }
        if let error = error as? CoreError { return AuthenticationError(.storage, detail: error.description) }
        return AuthenticationError(.storage, detail: "\(type(of: error))")
    }
}
