import Foundation
import TrainCore

extension LocalAuthService {
    public func link(_ credential: SignInCredential) async throws -> UserEntity {
        let current = try requireSession()
        let verified = try verify(credential)
        if let password = verified.password {
            try Credentials.checkStrength(password, minimumLength: configuration.policy.minimumPasswordLength)
        }
        guard !current.user.isLinked(verified.provider) else {
            throw AuthenticationError(.providerAlreadyLinked, detail: "\(verified.provider.rawValue) is already linked to this account.")
        }
        let hash = try verified.password.map { password throws(AuthenticationError) in
            try PasswordHash(password: password, iterations: configuration.policy.passwordIterations)
        }
        // An email code for another address than the account's proves it: it becomes the
        // account's email, and the address it leaves hears of it first.
        var notice: RecoveryNotice?
        if verified.provider == .emailCode {
            if let email = current.user.email, email != verified.subject {
                try requireRecentLogin(current, before: "changing your email address")
            }
            try read { records in
                if let owner = try self.account(for: verified, in: records)?.user.id, owner != current.user.id {
                    throw Self.addressTaken(verified, credential)
                }
            }
            notice = try await mailRecoveryNotice(for: current.user, changingTo: verified.subject)
        }
        let now = context.clock.now
        let user = try write { records in
            guard var account = try records.value(forKey: current.user.id, in: AuthRecords.accounts), !account.isDisabled else {
                throw AuthenticationError(.userNotFound)
            }
            let before = account.user
            guard !account.user.isLinked(verified.provider) else {
                throw AuthenticationError(.providerAlreadyLinked, detail: "\(verified.provider.rawValue) is already linked to this account.")
            }
            // An email code proves its address: another account's unproven claim gives way.
            if verified.provider == .emailCode, try AuthRecords.isTaken(verified.subject, byAnotherThan: account.user.id, in: records) {
                try AuthRecords.dropUnprovenClaim(on: verified.subject, in: records, now: now)
            }
            if let owner = try self.account(for: verified, in: records)?.user.id {
                guard owner != account.user.id else { throw AuthenticationError(.providerAlreadyLinked) }
                // Still unused: the app can offer to switch to the account it belongs to.
                guard [.password, .emailCode].contains(verified.provider) else {
                    throw AuthenticationError(
                        .credentialAlreadyInUse, detail: "The credential belongs to another account.", updatedCredential: credential)
                }
                throw Self.addressTaken(verified, credential)
            }
            account.user.providers.append(
                LinkedProvider(
                    provider: verified.provider, subject: verified.subject,
                    email: verified.email, linkedAt: now))
            if account.user.email == nil, let email = verified.email {
                account.user.email = email
                account.user.isPrivateEmail = verified.isPrivateEmail
                account.user.isEmailVerified = verified.provider != .password
            }
            if verified.provider == .emailCode, account.user.email == verified.subject { account.user.isEmailVerified = true }
            if verified.provider == .phone { account.user.phoneNumber = verified.subject }
            account.user.isAnonymous = false
            account.user.displayName = account.user.displayName ?? verified.fullName?.formatted
            // A linked password's address becomes this account's too: no other account may use it.
            do {
                try AuthRecords.reindex(from: before, to: account.user, in: records)
            } catch AuthenticationError.emailAlreadyInUse {
                // Another account has the address: the app can offer to sign in there and link the credential.
                throw Self.addressTaken(verified, credential)
            }
            try records.put(account, forKey: account.user.id, in: AuthRecords.accounts)
            try records.put(account.user.id, forKey: verified.identityKey, in: AuthRecords.identities)
            if let hash { try records.put(hash, forKey: account.user.id, in: AuthRecords.passwords) }
            // A guest that links a provider is an account for good: no idle purge.
            try records.removeValue(forKey: account.user.id, in: AuthRecords.guests)
            try self.consume(verified, for: account.user.id, in: records)
            if verified.provider == .emailCode, let email = account.user.email, email != verified.subject {
                try self.changeEmail(of: &account, to: verified.subject, verified: true, notice: notice, in: records, now: now)
            }
            return account.user
        }
        finish(verified, for: user)
        publish(user)
        return user
    }

    /// What linking an email credential whose address another account holds answers
    /// (Firebase's `EMAIL_EXISTS`): `emailAlreadyInUse` with the address, and for an
    /// email code the credential, still unused, to sign in to that account with.
    private static func addressTaken(_ verified: VerifiedCredential, _ credential: SignInCredential) -> AuthenticationError {
        AuthenticationError(
            .emailAlreadyInUse, detail: "Another account uses the credential's email address.",
            updatedCredential: verified.provider == .password ? nil : credential, email: verified.email ?? verified.subject)
    }

    public func unlink(_ provider: AuthProvider) async throws -> UserEntity {
        let current = try requireSession()
        try requireRecentLogin(current, before: "removing a sign-in method")
        let user = try write { records in
            guard var account = try records.value(forKey: current.user.id, in: AuthRecords.accounts) else { throw AuthenticationError(.userNotFound) }
            guard let linked = account.user.providers.first(where: { $0.provider == provider }) else {
                throw AuthenticationError(.noSuchProvider, detail: "\(provider.rawValue) is not linked to this account.")
            }
            guard account.user.providers.count > 1 else {
                throw AuthenticationError(.lastProvider, detail: "\(provider.rawValue) is the account's only sign-in method.")
            }
            let before = account.user
            account.user.providers.removeAll { $0.provider == provider }
            if provider == .phone { account.user.phoneNumber = nil }
            if provider == .password { try records.removeValue(forKey: account.user.id, in: AuthRecords.passwords) }
            try AuthRecords.removeIdentity(AuthRecords.identityKey(provider, linked.subject), of: account.user.id, in: records)
            try AuthRecords.reindex(from: before, to: account.user, in: records)
            try records.put(account, forKey: account.user.id, in: AuthRecords.accounts)
            return account.user
        }
        publish(user)
        return user
    }

    /// Deletes the signed-in account and everything TrainAuth keeps for it. An Apple
    /// account's tokens are revoked first, with the authorization code of this
    /// service's Apple sign-in or re-authentication in the last five minutes; without
    /// one, the deletion throws ``TrainCore/TrainErrorCode/requiresAppleReauthentication`` and
    /// changes nothing. A revocation that fails at Apple's end is reported in the
    /// receipt, and the account is deleted all the same.
    @discardableResult
    public func deleteAccount() async throws -> AccountDeletionReceipt {
        let current = try requireSession()
        try requireRecentLogin(current, before: "deleting your account")
        let userID = current.user.id
        let revocation = try await revocation(for: current)
        // Read again inside: the account may have changed, or gone, while Apple was awaited.
        let now = context.clock.now
        let deleted = try write { records in
            let providers = try AuthRecords.removeAccount(userID, at: now, in: records)?.user.providers.map(\.provider) ?? []
            // This device asked: its own session needs no mark telling it why.
            if try records.value(forKey: self.sessionKey, in: AuthRecords.session)?.userID == userID {
                try records.removeValue(forKey: self.sessionKey, in: AuthRecords.session)
            }
            return providers
        }
        forget(userID: userID)
        return AccountDeletionReceipt(userID: userID, providers: deleted, tokenRevocation: revocation)
    }

    public func revokeAppleToken() async throws -> AccountDeletionReceipt.TokenRevocation {
        let current = try requireSession()
        try requireRecentLogin(current, before: "deleting your account")
        return try await revocation(for: current)
    }

    /// Revokes the Apple token of `account` unless it was revoked since its last Apple
    /// authorization, and keeps the outcome.
    func revocation(for account: AuthRecords.Account) async throws(AuthenticationError) -> AccountDeletionReceipt.TokenRevocation {
        guard account.user.isLinked(.apple) else { return .notApplicable }
        let userID = account.user.id
        // An Apple authorization since the kept revocation removed it (in its own transaction).
        if let stored = try read({ try $0.value(forKey: userID, in: AuthRecords.revocations) }) {
            return stored.outcome
        }
        let outcome = await revokeAppleToken(using: try usableAppleCode(for: userID))
        try requireStillSignedIn(userID, during: "the Apple token was being revoked")
        try write { records in
            guard try records.value(forKey: userID, in: AuthRecords.accounts) != nil else { return }
            try records.put(AuthRecords.Revocation(outcome), forKey: userID, in: AuthRecords.revocations)
        }
        return outcome
    }

    /// The Apple authorization code to revoke with, or nil when Sign in with Apple is not
    /// configured here (revocation is then reported as failed).
    /// - Throws: ``TrainCore/TrainErrorCode/requiresAppleReauthentication`` when this service has no
    ///   code for the user younger than Apple's lifetime.
    private func usableAppleCode(for userID: String) throws(AuthenticationError) -> String? {
        guard configuration.apple != nil else { return nil }
        let lifetime = configuration.policy.appleAuthorizationCodeLifetime.timeInterval
        guard let issued = authorizationCodes[userID], context.clock.now.timeIntervalSince(issued.issuedAt) <= lifetime else {
            throw AuthenticationError(
                .requiresAppleReauthentication,
                detail: "No Apple authorization code younger than \(Int(lifetime)) seconds; re-authenticate with Apple, then delete.")
        }
        return issued.code
    }

    private func revokeAppleToken(using code: String?) async -> AccountDeletionReceipt.TokenRevocation {
        guard let authorizer = configuration.apple?.authorizer, let code else {
            return .failed(
                AuthenticationError(.operationNotAllowed, detail: "Sign in with Apple is not configured, so its token could not be revoked."))
        }
        do {
            try await authorizer.revokeToken(authorizationCode: code)
            return .revoked
        } catch let error as AuthenticationError {
            return .failed(error)
        } catch {
            return .failed(AuthenticationError(.networkError, detail: "Token revocation failed: \(type(of: error))."))
        }
    }

    // MARK: - Biometric lock

    /// Whether the signed-in user turned the lock on. Only hardware that is absent
    /// turns a stored lock off; a lockout or a face no longer enrolled keeps it on, and
    /// the app falls back to the device passcode.
    public func isBiometricLockEnabled() async throws -> Bool {
        let userID = try requireSession().user.id
        guard try read({ try $0.value(forKey: userID, in: AuthRecords.settings) })?.biometricLockEnabled == true else { return false }
        guard await configuration.biometrics.availability().type == .none else { return true }
        try requireStillSignedIn(userID, during: "biometrics were checked")
        try storeBiometricLock(false, for: userID)
        return false
    }

    public func setBiometricLock(enabled: Bool, reason: String) async throws {
        let userID = try requireSession().user.id
        if enabled {
            let availability = await configuration.biometrics.availability()
            if let unavailable = availability.unavailableReason { throw AuthenticationError(unavailable) }
            do {
                try await configuration.biometrics.evaluate(reason: reason)
            } catch let error as AuthenticationError {
                throw error
            } catch is CancellationError {
                throw AuthenticationError(.cancelled)
            } catch {
                throw AuthenticationError(.biometryFailed, detail: "The biometric evaluation failed: \(type(of: error)).")
            }
            try requireStillSignedIn(userID, during: "the biometric prompt was up")
        }
        try storeBiometricLock(enabled, for: userID)
    }

    private func storeBiometricLock(_ enabled: Bool, for userID: String) throws(AuthenticationError) {
        try write { records in
            guard try records.value(forKey: userID, in: AuthRecords.accounts) != nil else { throw AuthenticationError(.userNotFound) }
            try records.put(AuthRecords.Settings(biometricLockEnabled: enabled), forKey: userID, in: AuthRecords.settings)
        }
    }
}
