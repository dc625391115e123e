import Foundation
import TrainCore

extension LocalAuthService {
    /// Sets a new password; an account without one gets the password provider for its
    /// email address. The account's sessions on other devices end, every ID token
    /// issued before is revoked, and every reset, verification and sign-in code mailed
    /// for the account ends; this device stays signed in with a new session.
    public func updatePassword(to newPassword: String) async throws {
        let current = try requireSession()
        try requireRecentLogin(current, before: "changing your password")
        try Credentials.checkStrength(newPassword, minimumLength: configuration.policy.minimumPasswordLength)
        guard current.user.isLinked(.password) || current.user.email != nil else {
            throw AuthenticationError(.invalidEmail, detail: "The account has no email address to sign in with by password.")
        }
        let hash = try PasswordHash(password: newPassword, iterations: configuration.policy.passwordIterations)
        try requireStillSignedIn(current.user.id, during: "the password was hashed")
        let now = context.clock.now
        let user = try write { records -> AuthRecords.Account in
            guard var account = try records.value(forKey: current.user.id, in: AuthRecords.accounts) else { throw AuthenticationError(.userNotFound) }
            let before = account.user
            if !account.user.isLinked(.password), let address = account.user.email {
                let identity = AuthRecords.identityKey(.password, address)
                guard try records.value(forKey: identity, in: AuthRecords.identities) == nil else { throw AuthenticationError(.emailAlreadyInUse) }
                account.user.providers.append(LinkedProvider(provider: .password, subject: address, email: address, linkedAt: now))
                try records.put(account.user.id, forKey: identity, in: AuthRecords.identities)
            }
            try Self.upgradeGuest(&account, in: records)
            try records.put(hash, forKey: account.user.id, in: AuthRecords.passwords)
            try self.endSessions(of: &account, in: records)
            try AuthRecords.credentialChanged(&account, addresses: AuthRecords.addresses(of: account.user), now: now, in: records)
            try AuthRecords.reindex(from: before, to: account.user, in: records)
            try records.put(account, forKey: account.user.id, in: AuthRecords.accounts)
            return account
        }
        beginSession(user.user, generation: user.generation)
    }

    /// Sets the display name and photo as given: nil removes one. The name is cleaned
    /// as names shown to others are — trimmed, on one line, without control or
    /// invisible characters, at most 100 characters.
    public func updateProfile(of userID: String, displayName: String?, photoURL: URL?) async throws -> UserEntity {
        let name: String?
        if let displayName {
            let trimmed = displayName.trimmingCharacters(in: .whitespacesAndNewlines)
            name = DisplayText.name(trimmed)
            guard trimmed.isEmpty || name != nil else {
                throw AuthenticationError(.invalidProfile, detail: "The name holds a control or invisible character, or nothing visible.")
            }
        } else {
            name = nil
        }
        if let photoURL, !DisplayText.isValidMediaURL(photoURL) {
            throw AuthenticationError(.invalidProfile, detail: "A photo is an https URL with a host, or a file URL.")
        }
        let current = try requireSession()
        guard current.user.id == userID else {
            throw AuthenticationError(.userMismatch, detail: "The profile change is for another user than the signed-in one; nothing was changed.")
        }
        let user = try write { records -> UserEntity in
            guard var account = try records.value(forKey: current.user.id, in: AuthRecords.accounts) else { throw AuthenticationError(.userNotFound) }
            account.user.displayName = name
            account.user.photoURL = photoURL
            try records.put(account, forKey: account.user.id, in: AuthRecords.accounts)
            return account.user
        }
        publish(user)
        return user
    }

    // MARK: - Guests

    /// Signs in as a guest: the signed-in guest if there is one (its idle time starts
    /// again), else a new guest account with no way to sign in, replacing any other
    /// user's session here.
    public func signInAnonymously() async throws -> UserEntity {
        let now = context.clock.now
        let purgeAt = configuration.policy.guestIdleLifetime.map { now.addingTimeInterval($0.timeInterval) }
        // A guest idle past its date is signed out by the check, and a new one begins.
        if currentUser?.isAnonymous == true, let guest = try? requireSession(), guest.user.isAnonymous {
            // Read again in the write: another service on the file may have upgraded the guest meanwhile.
            let stillGuest = try write { records -> Bool in
                guard try records.value(forKey: guest.user.id, in: AuthRecords.accounts)?.user.isAnonymous == true else { return false }
                try Self.touchGuest(guest.user.id, until: purgeAt, in: records)
                return true
            }
            if stillGuest { return guest.user }
        }
        let user = try write { records -> UserEntity in
            let user = UserEntity(id: try self.newAccountID(in: records), createdAt: now, lastSignInAt: now, isAnonymous: true)
            try records.put(AuthRecords.Account(user: user), forKey: user.id, in: AuthRecords.accounts)
            try records.put(AuthRecords.Session(userID: user.id, signInProvider: "anonymous"), forKey: self.sessionKey, in: AuthRecords.session)
            try Self.touchGuest(user.id, until: purgeAt, in: records)
            return user
        }
        beginSession(user, generation: 0)
        return user
    }

    /// Inside a transaction: a guest that gained a way to sign in is an account for
    /// good — no longer anonymous, never purged for idling. The caller stores the account.
    static func upgradeGuest(_ account: inout AuthRecords.Account, in records: RecordWriter) throws {
        account.user.isAnonymous = false
        try records.removeValue(forKey: account.user.id, in: AuthRecords.guests)
    }

    /// Keeps a guest from its idle purge until `date`; nil keeps it for good.
    static func touchGuest(_ userID: String, until date: Date?, in records: RecordWriter) throws {
        if let date {
            try records.put(date, forKey: userID, in: AuthRecords.guests)
        } else {
            try records.removeValue(forKey: userID, in: AuthRecords.guests)
        }
    }
}
