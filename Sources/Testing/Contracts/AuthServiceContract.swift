import Foundation
import TrainAuth
import TrainCore

/// What the ``AuthServiceContract`` needs from the conformance under test.
///
/// The checks sign in with email and password only, so any conformance that offers
/// them can run the contract — TrainKit's own, or an app's Firebase-backed one.
public protocol AuthContractEnvironment: Sendable {
    /// Makes a service with no accounts and nobody signed in.
    /// - Returns: The service under test.
    func makeService() async throws -> any AuthService

    /// Moves the time the services see forward (for the recent-login checks).
    /// - Parameter duration: How far.
    func advanceClock(by duration: Duration) async

    /// The recent-login window the service enforces (300 seconds unless configured).
    var recentLoginWindow: Duration { get }

    /// The limits the service enforces: how long an emailed code lasts, how many emails
    /// an address gets an hour, how many wrong tries a code allows, how long a guest may
    /// idle. TrainKit's defaults unless the environment says otherwise; an environment
    /// over Firebase gives Firebase's.
    var authPolicy: AuthPolicy { get }

    /// Makes a service, as ``makeService()`` does, that enforces `policy` — for the
    /// checks of a policy's choices, such as a verified email for posting.
    /// - Parameter policy: The policy.
    /// - Returns: The service under test.
    func makeService(policy: AuthPolicy) async throws -> any AuthService

    /// The code of the latest email of `kind` the service sent to `address` — what a
    /// test reads from Firebase's emulator, or a `SimulatedMailbox`.
    /// - Parameters:
    ///   - address: The address.
    ///   - kind: The flow.
    /// - Returns: The code, or nil if none was sent.
    func lastEmailCode(to address: String, _ kind: AuthEmail.Kind) async throws -> String?

    /// Verifies an ID token of the service as its backend would, revocation included.
    /// - Parameter token: The token.
    /// - Returns: Its claims.
    /// - Throws: `AuthenticationError` for a bad, expired or revoked token.
    func verifyIDToken(_ token: String) async throws -> IDTokenClaims
}

extension AuthContractEnvironment {
    /// TrainKit's default policy.
    public var authPolicy: AuthPolicy { AuthPolicy() }

    /// Fails the check that asks for it: an environment that cannot choose the service's
    /// policy does not pass the policy checks unchecked.
    /// - Parameter policy: The policy.
    /// - Returns: Never.
    /// - Throws: ``ContractViolation``.
    public func makeService(policy: AuthPolicy) async throws -> any AuthService {
        throw ContractViolation(
            check: "makeService(policy:)", message: "this environment cannot set the service's policy; implement makeService(policy:)")
    }

    /// Fails the check that asks for it: an environment that cannot read the emails
    /// does not pass the email checks unchecked.
    /// - Parameters:
    ///   - address: The address.
    ///   - kind: The flow.
    /// - Returns: Never.
    /// - Throws: ``ContractViolation``.
    public func lastEmailCode(to address: String, _ kind: AuthEmail.Kind) async throws -> String? {
        throw ContractViolation(
            check: "lastEmailCode(to:_:)", message: "this environment cannot read the emails the service sends; implement lastEmailCode(to:_:)")
    }

    /// Fails the check that asks for it: an environment without a verifier does not
    /// pass the token checks unchecked.
    /// - Parameter token: The token.
    /// - Returns: Never.
    /// - Throws: ``ContractViolation``.
    public func verifyIDToken(_ token: String) async throws -> IDTokenClaims {
        throw ContractViolation(check: "verifyIDToken(_:)", message: "this environment cannot verify ID tokens; implement verifyIDToken(_:)")
    }
}

/// A check of the ``AuthServiceContract``.
public typealias AuthContractCheck = ContractCheck<any AuthContractEnvironment>

/// The public behavioural contract of `AuthService`: checks any
/// conformance must pass. TrainKit runs them against its in-memory and file-backed
/// services; an app runs them against its own:
///
/// ```swift
/// struct FirebaseAuthEnvironment: AuthContractEnvironment {
///     func makeService() async throws -> any AuthService { try await FirebaseAuthService.emulator(reset: true) }
///     func advanceClock(by duration: Duration) async { /* the emulator's clock */ }
///     var recentLoginWindow: Duration { .seconds(300) }
/// }
///
/// @Test(arguments: AuthServiceContract.checks)
/// func authContract(_ check: AuthContractCheck) async throws {
///     try await check.run(in: FirebaseAuthEnvironment())
/// }
/// ```
public enum AuthServiceContract {
    static let ada = (email: "ada@example.com", password: "correct horse 1")
    static let grace = (email: "grace@example.com", password: "battery staple 2")

    /// Every check of the contract.
    public static let checks: [AuthContractCheck] =
        [
            AuthContractCheck("a new account is signed in, and the state stream starts with it", covers: AuthSession.self, AuthSignIn.self) {
                environment, check in
                let auth = try await environment.makeService()
                try check.expect(auth.currentUser == nil, "a new service has nobody signed in")
                let user = try await auth.createUser(email: ada.email, password: ada.password)
                try check.expect(auth.currentUser?.id == user.id, "currentUser is the new account")
                try check.expect(user.email == ada.email, "the account keeps its email")
                let states = await auth.authStateChanges().collect(1, within: Expectations.streamWait)
                try check.expect(states.first??.id == user.id, "the stream's first value is the current user")
            },
            AuthContractCheck("sign-out clears the user and emits nil exactly once", covers: AuthSession.self) { environment, check in
                let auth = try await environment.makeService()
                let ada = try await auth.createUser(email: ada.email, password: ada.password)
                let stream = auth.authStateChanges()
                let watched = Task { await stream.collect(3, within: Expectations.streamWait) }
                try await auth.signOut()
                try await auth.signOut()
                let grace = try await auth.createUser(email: grace.email, password: grace.password)
                let states = await watched.value
                try check.expect(states.count == 3, "three values: the user, nil, the next user (got \(states.count))")
                try check.expect(states.first??.id == ada.id, "first value: the current user")
                try check.expect(states.dropFirst().first.map { $0 == nil } == true, "sign-out emits nil")
                try check.expect(states.last??.id == grace.id, "the second sign-out emits nothing; the next value is the next user")
                try check.expect(auth.currentUser?.id == grace.id, "currentUser follows")
            },
            AuthContractCheck("the right password signs in; a wrong one is invalidCredential and signs nobody in", covers: AuthSignIn.self) {
                environment, check in
                let auth = try await environment.makeService()
                let user = try await auth.createUser(email: ada.email, password: ada.password)
                try await auth.signOut()
                try await check.expectError(.invalidCredential, "a wrong password") {
                    _ = try await auth.signIn(with: .emailPassword(email: ada.email, password: "wrong horse 9"))
                }
                try check.expect(auth.currentUser == nil, "nobody is signed in after a wrong password")
                let again = try await auth.signIn(with: .emailPassword(email: ada.email, password: ada.password))
                try check.expect(again.id == user.id, "the right password signs in to the same account")
            },
            AuthContractCheck("bad input is a typed error and creates nothing", covers: AuthSignIn.self) { environment, check in
                let auth = try await environment.makeService()
                try await check.expectError(.invalidEmail, "a malformed email") {
                    _ = try await auth.createUser(email: "ada", password: ada.password)
                }
                try await check.expectError(.weakPassword, "a weak password") { _ = try await auth.createUser(email: ada.email, password: "123") }
                try check.expect(auth.currentUser == nil, "nobody is signed in")
                try await check.expectError(.invalidCredential, "the refused account does not exist") {
                    _ = try await auth.signIn(with: .emailPassword(email: ada.email, password: ada.password))
                }
            },
            AuthContractCheck("an email can belong to one account only", covers: AuthSignIn.self) { environment, check in
                let auth = try await environment.makeService()
                _ = try await auth.createUser(email: ada.email, password: ada.password)
                try await auth.signOut()
                try await check.expectError(.emailAlreadyInUse, "a second account with the same email") {
                    _ = try await auth.createUser(email: ada.email, password: grace.password)
                }
            },
            AuthContractCheck("deletion is fresh at the recent-login window and requiresRecentLogin past it", covers: AuthAccountManagement.self) {
                environment, check in
                let auth = try await environment.makeService()
                _ = try await auth.createUser(email: ada.email, password: ada.password)
                await environment.advanceClock(by: environment.recentLoginWindow)
                _ = try await auth.deleteAccount()
                _ = try await auth.createUser(email: grace.email, password: grace.password)
                await environment.advanceClock(by: environment.recentLoginWindow + .seconds(1))
                try await check.expectError(.requiresRecentLogin, "deleting one second past the window") { _ = try await auth.deleteAccount() }
                try check.expect(auth.currentUser != nil, "the refused deletion leaves the user signed in")
                _ = try await auth.reauthenticate(with: .emailPassword(email: grace.email, password: grace.password))
                _ = try await auth.deleteAccount()
                try check.expect(auth.currentUser == nil, "the deletion after re-authentication signs out")
            },
            AuthContractCheck("re-authenticating as another user is userMismatch and keeps the current user", covers: AuthSignIn.self) {
                environment, check in
                let auth = try await environment.makeService()
                _ = try await auth.createUser(email: grace.email, password: grace.password)
                try await auth.signOut()
                let ada = try await auth.createUser(email: ada.email, password: ada.password)
                try await check.expectError(.userMismatch, "another user's credential") {
                    _ = try await auth.reauthenticate(with: .emailPassword(email: grace.email, password: grace.password))
                }
                try check.expect(auth.currentUser?.id == ada.id, "the current user stays signed in")
            },
            AuthContractCheck(
                "a deleted account is gone: nil is emitted once and it cannot sign in", covers: AuthAccountManagement.self, AuthSession.self
            ) { environment, check in
                let auth = try await environment.makeService()
                let user = try await auth.createUser(email: ada.email, password: ada.password)
                let stream = auth.authStateChanges()
                let watched = Task { await stream.collect(3, within: Expectations.streamWait) }
                let receipt = try await auth.deleteAccount()
                try check.expect(receipt.userID == user.id, "the receipt names the deleted account")
                let next = try await auth.createUser(email: grace.email, password: grace.password)
                let states = await watched.value
                try check.expect(states.count == 3 && states[1] == nil, "deletion emits nil")
                try check.expect(states.last??.id == next.id, "deletion emits nil once; the next value is the next user")
                try await check.expectError(.invalidCredential, "signing in to the deleted account") {
                    _ = try await auth.signIn(with: .emailPassword(email: ada.email, password: ada.password))
                }
            },
            AuthContractCheck("without a signed-in user, account operations are notSignedIn", covers: AuthAccountManagement.self) {
                environment, check in
                let auth = try await environment.makeService()
                try await check.expectError(.notSignedIn, "deleteAccount") { _ = try await auth.deleteAccount() }
                try await check.expectError(.notSignedIn, "unlink") { _ = try await auth.unlink(.password) }
                try await check.expectError(.notSignedIn, "updateEmail") { _ = try await auth.updateEmail(to: grace.email) }
                try await check.expectError(.notSignedIn, "reauthenticate") {
                    _ = try await auth.reauthenticate(with: .emailPassword(email: ada.email, password: ada.password))
                }
            },
            AuthContractCheck("the only sign-in method cannot be unlinked", covers: AuthAccountManagement.self) { environment, check in
                let auth = try await environment.makeService()
                _ = try await auth.createUser(email: ada.email, password: ada.password)
                try await check.expectError(.lastProvider, "unlinking the only provider") { _ = try await auth.unlink(.password) }
                try await check.expectError(.noSuchProvider, "unlinking a provider that is not linked") { _ = try await auth.unlink(.google) }
                try check.expect(auth.currentUser?.isLinked(.password) == true, "the provider is still linked")
            },
        ] + emailChecks + accountChecks + limitChecks + tokenChecks + codeChecks

    static let emailChecks: [AuthContractCheck] = [
        AuthContractCheck("a password reset sets the new password, ends the old one, and its code works once", covers: AuthEmailFlows.self) {
            environment, check in
            let auth = try await environment.makeService()
            _ = try await auth.createUser(email: ada.email, password: ada.password)
            try await auth.signOut()
            try await auth.sendPasswordReset(email: ada.email)
            let code = try await environment.lastEmailCode(to: ada.email, .passwordReset)
            try check.expect(code != nil, "a reset email was sent")
            try await auth.confirmPasswordReset(code: code ?? "", newPassword: "new horse 3")
            try await check.expectError(.invalidActionCode, "the same code again") {
                try await auth.confirmPasswordReset(code: code ?? "", newPassword: "newer horse 4")
            }
            try await check.expectError(.invalidCredential, "the old password") {
                _ = try await auth.signIn(with: .emailPassword(email: ada.email, password: ada.password))
            }
            let user = try await auth.signIn(with: .emailPassword(email: ada.email, password: "new horse 3"))
            try check.expect(user.isEmailVerified, "a reset proves the address")
        },
        AuthContractCheck("a reset of an unknown address answers as a known one's and sends nothing", covers: AuthEmailFlows.self) {
            environment, check in
            let auth = try await environment.makeService()
            try await auth.sendPasswordReset(email: grace.email)
            try check.expect(try await environment.lastEmailCode(to: grace.email, .passwordReset) == nil, "no email to an address without an account")
            try await check.expectError(.invalidActionCode, "a made-up code") {
                try await auth.confirmPasswordReset(code: "made-up-code", newPassword: "new horse 3")
            }
        },
        AuthContractCheck("an email code signs in, creating the account with a verified address; the code works once", covers: AuthEmailFlows.self) {
            environment, check in
            let auth = try await environment.makeService()
            try await auth.sendSignInCode(to: grace.email)
            let code = try await environment.lastEmailCode(to: grace.email, .signInCode) ?? ""
            let user = try await auth.signIn(with: .emailCode(email: grace.email, code: code))
            try check.expect(user.email == grace.email && user.isEmailVerified, "the new account has the verified address")
            try await auth.signOut()
            try await check.expectError(.invalidActionCode, "the same code again") {
                _ = try await auth.signIn(with: .emailCode(email: grace.email, code: code))
            }
        },
        AuthContractCheck("email verification marks the address verified; a code of another flow does not", covers: AuthEmailFlows.self) {
            environment, check in
            let auth = try await environment.makeService()
            let user = try await auth.createUser(email: ada.email, password: ada.password)
            try check.expect(!user.isEmailVerified, "a new password account is not verified")
            try await auth.sendEmailVerification()
            let code = try await environment.lastEmailCode(to: ada.email, .emailVerification) ?? ""
            try await check.expectError(.invalidActionCode, "a verification code used for a reset") {
                try await auth.confirmPasswordReset(code: code, newPassword: "new horse 3")
            }
            try await auth.verifyEmail(code: code)
            try check.expect(auth.currentUser?.isEmailVerified == true, "the signed-in user is verified")
        },
    ]

    static let accountChecks: [AuthContractCheck] = [
        AuthContractCheck(
            "a session ends saying why; a purge begins only once a deletion is due, and the account exists until the purge", covers: AuthSession.self,
            AuthAdministration.self
        ) { environment, check in
            let auth = try await environment.makeService()
            let user = try await auth.createUser(email: ada.email, password: ada.password)
            try await auth.signOut()
            try check.expect(auth.lastSessionEnd?.userID == user.id && auth.lastSessionEnd?.reason == .signedOut, "a sign-out says signedOut")
            let signedIn = try await auth.signIn(with: .emailPassword(email: ada.email, password: ada.password))
            // The sign-in's date is the service's clock now.
            try await auth.scheduleAccountDeletion(of: user.id, at: signedIn.lastSignInAt.addingTimeInterval(3_600))
            try check.expect(auth.lastSessionEnd?.reason == .accountDeleted, "a scheduled deletion says accountDeleted")
            try await check.expectError(.operationNotAllowed, "beginning the purge before the date") { try await auth.beginAccountPurge(of: user.id) }
            await environment.advanceClock(by: .seconds(3_600))
            try await auth.beginAccountPurge(of: user.id)
            try check.expect(try auth.accountExists(user.id), "the account exists until the purge")
            _ = try await auth.purgeScheduledAccount(user.id)
            try check.expect(try !auth.accountExists(user.id), "the purged account is gone")
        },
        AuthContractCheck(
            "a guest linking a password keeps its ID; another account's address is emailAlreadyInUse with the address",
            covers: AuthAccountManagement.self
        ) {
            environment, check in
            let auth = try await environment.makeService()
            _ = try await auth.createUser(email: grace.email, password: grace.password)
            let guest = try await auth.signInAnonymously()
            try check.expect(guest.isAnonymous && guest.providers.isEmpty, "a guest has no providers")
            try check.expect(try await auth.signInAnonymously().id == guest.id, "signing in as a guest again gives the same guest")
            do {
                _ = try await auth.link(.emailPassword(email: grace.email, password: grace.password))
                try check.expect(false, "linking another account's email and password succeeded")
            } catch let error as AuthenticationError {
                try check.expect(error.code == .emailAlreadyInUse && error.email == grace.email, "linking another account's address: \(error.code)")
            }
            let linked = try await auth.link(.emailPassword(email: ada.email, password: ada.password))
            try check.expect(linked.id == guest.id && !linked.isAnonymous, "the guest became a full account with the same ID")
        },
        AuthContractCheck("an ID token names its user; sign-out revokes it", covers: AuthTokens.self) { environment, check in
            let auth = try await environment.makeService()
            let user = try await auth.createUser(email: ada.email, password: ada.password)
            let token = try await auth.idToken(forceRefresh: false)
            let claims = try await environment.verifyIDToken(token)
            try check.expect(claims.userID == user.id && claims.providers == ["password"], "the token names the user and providers")
            try await auth.signOut()
            try await check.expectError(.userTokenRevoked, "a token of a signed-out session") { _ = try await environment.verifyIDToken(token) }
        },
        AuthContractCheck("updatePassword needs a recent login, and the old password stops working", covers: AuthAccountManagement.self) {
            environment, check in
            let auth = try await environment.makeService()
            _ = try await auth.createUser(email: ada.email, password: ada.password)
            try await auth.updatePassword(to: "new horse 3")
            await environment.advanceClock(by: environment.recentLoginWindow + .seconds(1))
            try await check.expectError(.requiresRecentLogin, "a change past the window") { try await auth.updatePassword(to: "newer horse 4") }
            try await auth.signOut()
            try await check.expectError(.invalidCredential, "the old password") {
                _ = try await auth.signIn(with: .emailPassword(email: ada.email, password: ada.password))
            }
            _ = try await auth.signIn(with: .emailPassword(email: ada.email, password: "new horse 3"))
        },
        AuthContractCheck(
            "a profile update sets the name and photo, and userChanges tells it; an invisible name is invalidProfile",
            covers: AuthAccountManagement.self, AuthSession.self
        ) {
            environment, check in
            let auth = try await environment.makeService()
            _ = try await auth.createUser(email: ada.email, password: ada.password)
            let changes = auth.userChanges()
            let watched = Task { await changes.collect(2, within: Expectations.streamWait) }
            let photo = URL(string: "https://media.example.com/ada.jpg")
            let user = try await auth.updateProfile(displayName: "  Ada Lovelace ", photoURL: photo)
            try check.expect(user.displayName == "Ada Lovelace" && user.photoURL == photo, "the name is trimmed and the photo kept")
            let told = await watched.value
            try check.expect(told.last??.displayName == "Ada Lovelace", "userChanges gives the current user, then the updated one")
            try await check.expectError(.invalidProfile, "a name with a right-to-left override") {
                _ = try await auth.updateProfile(displayName: "Ada\u{202E}", photoURL: nil)
            }
            try check.expect(auth.currentUser?.displayName == "Ada Lovelace", "the refused update changed nothing")
        },
    ]

    /// The limits of emailed codes and guests, read from the environment's policy.
    static let limitChecks: [AuthContractCheck] = [
        AuthContractCheck(
            "a reset and a sign-in code expire after the policy's lifetime: expiredActionCode, nothing changed", covers: AuthEmailFlows.self
        ) {
            environment, check in
            let auth = try await environment.makeService()
            _ = try await auth.createUser(email: ada.email, password: ada.password)
            try await auth.signOut()
            try await auth.sendPasswordReset(email: ada.email)
            try await auth.sendSignInCode(to: grace.email)
            let reset = try await environment.lastEmailCode(to: ada.email, .passwordReset) ?? ""
            let signIn = try await environment.lastEmailCode(to: grace.email, .signInCode) ?? ""
            await environment.advanceClock(by: environment.authPolicy.emailCodeLifetime)
            try await check.expectError(.expiredActionCode, "a reset code at the end of its lifetime") {
                try await auth.confirmPasswordReset(code: reset, newPassword: "new horse 3")
            }
            try await check.expectError(.expiredActionCode, "a sign-in code at the end of its lifetime") {
                _ = try await auth.signIn(with: .emailCode(email: grace.email, code: signIn))
            }
            try check.expect(auth.currentUser == nil, "nobody is signed in")
            _ = try await auth.signIn(with: .emailPassword(email: ada.email, password: ada.password))
        },
        AuthContractCheck(
            "an address gets the policy's emails an hour, with an account or without; then tooManyRequests", covers: AuthEmailFlows.self
        ) { environment, check in
            let auth = try await environment.makeService()
            _ = try await auth.createUser(email: ada.email, password: ada.password)
            try await auth.signOut()
            for _ in 0..<environment.authPolicy.emailsPerAddressPerHour {
                try await auth.sendPasswordReset(email: ada.email)
                try await auth.sendPasswordReset(email: grace.email)
            }
            try await check.expectError(.tooManyRequests, "one more email to an address with an account") {
                try await auth.sendSignInCode(to: ada.email)
            }
            try await check.expectError(.tooManyRequests, "one more email to an address without one") {
                try await auth.sendPasswordReset(email: grace.email)
            }
            await environment.advanceClock(by: .seconds(3_600))
            try await auth.sendSignInCode(to: ada.email)
        },
        AuthContractCheck(
            "a sign-in code allows the policy's wrong tries, then even the right code is tooManyRequests; it is of its address only",
            covers: AuthEmailFlows.self
        ) {
            environment, check in
            let auth = try await environment.makeService()
            try await auth.sendSignInCode(to: ada.email)
            try await auth.sendSignInCode(to: grace.email)
            let code = try await environment.lastEmailCode(to: ada.email, .signInCode) ?? ""
            let gracesCode = try await environment.lastEmailCode(to: grace.email, .signInCode) ?? ""
            if code != gracesCode {
                try await check.expectError(.invalidVerificationCode, "another address's code") {
                    _ = try await auth.signIn(with: .emailCode(email: ada.email, code: gracesCode))
                }
            }
            let wrong = code == "000000" ? "111111" : "000000"
            for _ in 0..<(environment.authPolicy.maxCodeAttempts - (code != gracesCode ? 1 : 0)) {
                try await check.expectError(.invalidVerificationCode, "a wrong code") {
                    _ = try await auth.signIn(with: .emailCode(email: ada.email, code: wrong))
                }
            }
            try await check.expectError(.tooManyRequests, "the right code after the wrong tries") {
                _ = try await auth.signIn(with: .emailCode(email: ada.email, code: code))
            }
            try check.expect(auth.currentUser == nil, "nobody is signed in")
        },
        AuthContractCheck("a sign-in code is sent alike to an address with an account and one without", covers: AuthEmailFlows.self) {
            environment, check in
            let auth = try await environment.makeService()
            _ = try await auth.createUser(email: ada.email, password: ada.password)
            try await auth.signOut()
            try await auth.sendSignInCode(to: ada.email)
            try await auth.sendSignInCode(to: grace.email)
            let known = try await environment.lastEmailCode(to: ada.email, .signInCode)
            let unknown = try await environment.lastEmailCode(to: grace.email, .signInCode)
            try check.expect(known != nil && unknown != nil, "both addresses got a code")
            let user = try await auth.signIn(with: .emailCode(email: ada.email, code: known ?? ""))
            try check.expect(user.email == ada.email && user.isEmailVerified, "the code signs in to the account of its address")
        },
        AuthContractCheck(
            "a guest that links an email code keeps its ID; a guest idle past the policy's lifetime is due for deletion",
            covers: AuthAccountManagement.self, AuthAdministration.self
        ) {
            environment, check in
            let auth = try await environment.makeService()
            let kept = try await auth.signInAnonymously()
            try await auth.sendSignInCode(to: ada.email)
            let linked = try await auth.link(
                .emailCode(email: ada.email, code: try await environment.lastEmailCode(to: ada.email, .signInCode) ?? ""))
            try check.expect(linked.id == kept.id && !linked.isAnonymous && linked.isEmailVerified, "the guest became the address's account")
            try await auth.signOut()
            let idle = try await auth.signInAnonymously()
            try await auth.signOut()
            // Without an idle lifetime no guest is ever due; a year stands for forever.
            await environment.advanceClock(by: (environment.authPolicy.guestIdleLifetime ?? .seconds(365 * 86_400)) + .seconds(1))
            let due = try auth.scheduledDeletions().map(\.userID)
            let expected = environment.authPolicy.guestIdleLifetime == nil ? [] : [idle.id]
            try check.expect(due == expected, "only an idle guest is due, and only with an idle lifetime (got \(due))")
        },
        AuthContractCheck(
            "a policy that needs a verified email refuses the action with unverifiedEmail until the address is verified", covers: AuthEmailFlows.self
        ) {
            environment, check in
            var policy = environment.authPolicy
            policy.verifiedEmailRequired = [.posting]
            let auth = try await environment.makeService(policy: policy)
            _ = try await auth.createUser(email: ada.email, password: ada.password)
            try await check.expectError(.unverifiedEmail, "posting with an unverified address") { try auth.requireVerifiedEmail(for: .posting) }
            try auth.requireVerifiedEmail(for: .purchasing)
            try await auth.sendEmailVerification()
            try await auth.verifyEmail(code: try await environment.lastEmailCode(to: ada.email, .emailVerification) ?? "")
            try auth.requireVerifiedEmail(for: .posting)
        },
    ]

    /// ID tokens: refreshed, streamed, refused when tampered with, expired or revoked.
    static let tokenChecks: [AuthContractCheck] = [
        AuthContractCheck(
            "a token is kept until five minutes before its expiry, then replaced; a forced refresh gives a new one, which the stream tells",
            covers: AuthTokens.self
        ) {
            environment, check in
            let auth = try await environment.makeService()
            _ = try await auth.createUser(email: ada.email, password: ada.password)
            let first = try await auth.idToken(forceRefresh: false)
            try check.expect(try await auth.idToken(forceRefresh: false) == first, "the kept token is given again")
            let stream = auth.idTokenChanges()
            let told = Task { await stream.firstValue { $0 != nil && $0 != first } }
            let forced = try await auth.idToken(forceRefresh: true)
            try check.expect(forced != first, "a forced refresh gives a new token")
            try check.expect(await told.value == forced, "the stream tells the new token")
            _ = try await environment.verifyIDToken(forced)
            await environment.advanceClock(by: .seconds(3_301))
            let renewed = try await auth.idToken(forceRefresh: false)
            try check.expect(renewed != forced, "a token with less than five minutes left is replaced")
            _ = try await environment.verifyIDToken(renewed)
        },
        AuthContractCheck("a tampered token is invalidUserToken and an expired one userTokenExpired", covers: AuthTokens.self) { environment, check in
            let auth = try await environment.makeService()
            _ = try await auth.createUser(email: ada.email, password: ada.password)
            let token = try await auth.idToken(forceRefresh: false)
            let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            try check.expect(parts.count == 3, "a token is a compact JWT")
            let unsigned = Base64URL.encode(Data(#"{"alg":"none","typ":"JWT"}"#.utf8))
            for bad in [parts[0] + "." + parts[1] + ".", unsigned + "." + parts[1] + "." + parts[2], parts[0] + "." + parts[1] + "." + parts[1]] {
                try await check.expectError(.invalidUserToken, "an altered token") { _ = try await environment.verifyIDToken(bad) }
            }
            await environment.advanceClock(by: .seconds(3_600))
            try await check.expectError(.userTokenExpired, "a token an hour old") { _ = try await environment.verifyIDToken(token) }
        },
        AuthContractCheck("a password change, a reset and a deletion revoke the tokens issued before", covers: AuthTokens.self) {
            environment, check in
            let auth = try await environment.makeService()
            _ = try await auth.createUser(email: ada.email, password: ada.password)
            let beforeChange = try await auth.idToken(forceRefresh: false)
            try await auth.updatePassword(to: "new horse 3")
            try await check.expectError(.userTokenRevoked, "a token from before the password change") {
                _ = try await environment.verifyIDToken(beforeChange)
            }
            let beforeReset = try await auth.idToken(forceRefresh: false)
            try await auth.sendPasswordReset(email: ada.email)
            try await auth.confirmPasswordReset(
                code: try await environment.lastEmailCode(to: ada.email, .passwordReset) ?? "", newPassword: "newer horse 4")
            try await check.expectError(.userTokenRevoked, "a token from before the reset") { _ = try await environment.verifyIDToken(beforeReset) }
            _ = try await auth.reauthenticate(with: .emailPassword(email: ada.email, password: "newer horse 4"))
            let beforeDeletion = try await auth.idToken(forceRefresh: false)
            _ = try await environment.verifyIDToken(beforeDeletion)
            _ = try await auth.deleteAccount()
            try await check.expectError(.userTokenRevoked, "a token of a deleted account") { _ = try await environment.verifyIDToken(beforeDeletion) }
        },
    ]
}

extension Expectations {
    /// Runs `body` and requires it to throw an ``AuthenticationError`` with `code`.
    func expectError(_ code: AuthenticationError.Code, _ what: String, _ body: () async throws -> Void) async throws {
        try await expectError(code, what, codeOf: { (error: AuthenticationError) in error.code }, body)
    }
}
