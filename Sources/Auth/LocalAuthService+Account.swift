import Foundation
import TrainCore

extension LocalAuthService {
    /// Links another provider to the signed-in account (AUTH-3).
    /// - Parameter credential: The new provider's credential.
    /// - Returns: The updated user.
    /// - Throws: ``AuthError`` — `notSignedIn`, `providerAlreadyLinked`,
    ///   `credentialAlreadyInUse`, `weakPassword`, and the credential's own errors.
    public func link(_ credential: AuthCredential) async throws -> UserEntity {
        let current = try requireSession()
        let verified = try verify(credential)
        if let password = verified.password {
            try Credentials.checkStrength(password, minimumLength: configuration.policy.minimumPasswordLength)
        }
        guard !current.user.isLinked(verified.provider) else {
            throw AuthError(.providerAlreadyLinked, detail: "\(verified.provider.rawValue) is already linked to this account.")
        }
        if let owner = try read({ try $0.value(forKey: verified.identityKey, in: AuthRecords.identities) }) {
            throw AuthError(owner == current.user.id ? .providerAlreadyLinked : .credentialAlreadyInUse)
        }
        let hash = try verified.password.map { password throws(AuthError) in
            try PasswordHash(password: password, iterations: configuration.policy.passwordIterations)
        }
        let now = configuration.clock.now
        let user = try write { records in
            var account = current
            account.user.providers.append(LinkedProvider(provider: verified.provider, subject: verified.subject,
                                                         email: verified.email, linkedAt: now))
            if account.user.email == nil, let email = verified.email {
                account.user.email = email
                account.user.isPrivateEmail = verified.isPrivateEmail
            }
            if verified.provider == .phone { account.user.phoneNumber = verified.subject }
            account.user.displayName = account.user.displayName ?? verified.fullName?.formatted
            try records.put(account, forKey: account.user.id, in: AuthRecords.accounts)
            try records.put(account.user.id, forKey: verified.identityKey, in: AuthRecords.identities)
            if let hash { try records.put(hash, forKey: account.user.id, in: AuthRecords.passwords) }
            try self.consume(verified, in: records)
            return account.user
        }
        finish(verified, for: user)
        publish(user)
        return user
    }

    /// Unlinks a provider; needs a recent login and never removes the last one.
    /// - Parameter provider: The provider.
    /// - Returns: The updated user.
    /// - Throws: ``AuthError`` — `notSignedIn`, `requiresRecentLogin`, `noSuchProvider`, `lastProvider`.
    public func unlink(_ provider: AuthProvider) async throws -> UserEntity {
        let current = try requireSession()
        try requireRecentLogin(current, before: "removing a sign-in method")
        guard let linked = current.user.providers.first(where: { $0.provider == provider }) else {
            throw AuthError(.noSuchProvider, detail: "\(provider.rawValue) is not linked to this account.")
        }
        guard current.user.providers.count > 1 else {
            throw AuthError(.lastProvider, detail: "\(provider.rawValue) is the account's only sign-in method.")
        }
        let user = try write { records in
            var account = current
            account.user.providers.removeAll { $0.provider == provider }
            if provider == .phone { account.user.phoneNumber = nil }
            if provider == .password { try records.removeValue(forKey: account.user.id, in: AuthRecords.passwords) }
            try records.removeValue(forKey: AuthRecords.identityKey(provider, linked.subject), in: AuthRecords.identities)
            try records.put(account, forKey: account.user.id, in: AuthRecords.accounts)
            return account.user
        }
        publish(user)
        return user
    }

    /// Changes the account's email address; needs a recent login (AUTH-4).
    /// - Parameter email: The new address.
    /// - Returns: The updated user.
    /// - Throws: ``AuthError`` — `invalidEmail`, `notSignedIn`, `requiresRecentLogin`, `emailAlreadyInUse`.
    public func updateEmail(to email: String) async throws -> UserEntity {
        let address = try Credentials.normalizedEmail(email)
        let current = try requireSession()
        try requireRecentLogin(current, before: "changing your email address")
        let passwordLink = current.user.providers.first { $0.provider == .password }
        if passwordLink != nil, let owner = try read({
            try $0.value(forKey: AuthRecords.identityKey(.password, address), in: AuthRecords.identities)
        }), owner != current.user.id {
            throw AuthError(.emailAlreadyInUse)
        }
        let user = try write { records in
            var account = current
            account.user.email = address
            account.user.isPrivateEmail = false
            if let old = passwordLink, old.subject != address {
                try records.removeValue(forKey: AuthRecords.identityKey(.password, old.subject), in: AuthRecords.identities)
                try records.put(account.user.id, forKey: AuthRecords.identityKey(.password, address), in: AuthRecords.identities)
                if let index = account.user.providers.firstIndex(where: { $0.provider == .password }) {
                    account.user.providers[index].subject = address
                    account.user.providers[index].email = address
                }
            }
            try records.put(account, forKey: account.user.id, in: AuthRecords.accounts)
            return account.user
        }
        publish(user)
        return user
    }

    /// Deletes the signed-in account and everything TrainAuth keeps for it; needs a
    /// recent login. Apple tokens are revoked first with the authorization code of
    /// this session's last Apple sign-in; a failure there is reported in the receipt.
    /// - Returns: What was done.
    /// - Throws: ``AuthError`` — `notSignedIn`, `requiresRecentLogin`, `storage`.
    public func deleteAccount() async throws -> AccountDeletionReceipt {
        let current = try requireSession()
        try requireRecentLogin(current, before: "deleting your account")
        let userID = current.user.id
        var revocation = AccountDeletionReceipt.TokenRevocation.notApplicable
        if current.user.isLinked(.apple) {
            revocation = await revokeAppleToken(for: userID)
        }
        let deleted = try write { records -> [AuthProvider] in
            // Read again: the account may have changed (a provider linked) while the revocation was awaited.
            let account = try records.value(forKey: userID, in: AuthRecords.accounts) ?? current
            for linked in account.user.providers {
                try records.removeValue(forKey: AuthRecords.identityKey(linked.provider, linked.subject), in: AuthRecords.identities)
            }
            try records.removeValue(forKey: userID, in: AuthRecords.passwords)
            try records.removeValue(forKey: userID, in: AuthRecords.settings)
            try records.removeValue(forKey: userID, in: AuthRecords.accounts)
            if try records.value(forKey: AuthRecords.sessionKey, in: AuthRecords.session)?.userID == userID {
                try records.removeValue(forKey: AuthRecords.sessionKey, in: AuthRecords.session)
            }
            return account.user.providers.map(\.provider)
        }
        forget(userID: userID)
        return AccountDeletionReceipt(userID: userID, providers: deleted, tokenRevocation: revocation)
    }

    private func revokeAppleToken(for userID: String) async -> AccountDeletionReceipt.TokenRevocation {
        guard let authorizer = configuration.apple?.authorizer else {
            return .failed(AuthError(.operationNotAllowed, detail: "Sign in with Apple is not configured, so its token could not be revoked."))
        }
        guard let code = authorizationCodes[userID] else {
            return .failed(AuthError(.invalidCredential,
                                     detail: "No Apple authorization code from this session; re-authenticate with Apple before deleting to revoke the token."))
        }
        do {
            try await authorizer.revokeToken(authorizationCode: code)
            return .revoked
        } catch let error as AuthError {
            return .failed(error)
        } catch {
            return .failed(AuthError(.networkError, detail: "Token revocation failed: \(type(of: error))."))
        }
    }

    // MARK: - Biometric lock (AUTH-10)

    /// Whether the signed-in user turned on the biometric app lock; unavailable
    /// hardware turns the stored setting off.
    /// - Returns: The setting.
    /// - Throws: ``AuthError/Code/notSignedIn``.
    public func isBiometricLockEnabled() async throws -> Bool {
        let userID = try requireSession().user.id
        guard try read({ try $0.value(forKey: userID, in: AuthRecords.settings) })?.biometricLockEnabled == true else { return false }
        guard await configuration.biometrics.availability().isAvailable else {
            try storeBiometricLock(false, for: userID)
            return false
        }
        return true
    }

    /// Turns the biometric app lock on, after a successful evaluation, or off.
    /// - Parameters:
    ///   - enabled: The new setting.
    ///   - reason: Shown in the biometric prompt when enabling.
    /// - Throws: ``AuthError`` — `notSignedIn`, and when enabling, the reason biometrics
    ///   are unavailable or the evaluation's error; the setting is then unchanged.
    public func setBiometricLock(enabled: Bool, reason: String) async throws {
        let userID = try requireSession().user.id
        if enabled {
            let availability = await configuration.biometrics.availability()
            if let unavailable = availability.unavailableReason { throw AuthError(unavailable) }
            do {
                try await configuration.biometrics.evaluate(reason: reason)
            } catch let error as AuthError {
                throw error
            } catch {
                throw AuthError(.biometryFailed, detail: "The biometric evaluation failed: \(type(of: error)).")
            }
        }
        try storeBiometricLock(enabled, for: userID)
    }

    private func storeBiometricLock(_ enabled: Bool, for userID: String) throws(AuthError) {
        try write { records in
            guard try records.value(forKey: userID, in: AuthRecords.accounts) != nil else { throw AuthError(.userNotFound) }
            try records.put(AuthRecords.Settings(biometricLockEnabled: enabled), forKey: userID, in: AuthRecords.settings)
        }
    }
}
