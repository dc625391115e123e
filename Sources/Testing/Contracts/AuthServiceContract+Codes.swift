import Foundation
import TrainAuth

extension AuthServiceContract {
    /// Codes die with the credential, address changes the old address
    /// can undo, codes inspected without being used, and tokens that say how.
    static let codeChecks: [AuthContractCheck] = [
        AuthContractCheck("a reset code mailed before a password change is expiredActionCode, and inspecting it says so", covers: AuthEmailFlows.self)
        { environment, check in
            let auth = try await environment.makeService()
            _ = try await auth.createUser(email: ada.email, password: ada.password)
            try await auth.sendPasswordReset(email: ada.email)
            let code = try await environment.lastEmailCode(to: ada.email, .passwordReset) ?? ""
            let info = try await auth.checkActionCode(code)
            try check.expect(info.operation == .passwordReset && info.email == ada.email && info.state == .valid, "a fresh reset code is valid")
            try check.expect(try await auth.checkActionCode(code).state == .valid, "inspecting does not use the code")
            await environment.advanceClock(by: .seconds(1))
            try await auth.updatePassword(to: "new horse 3")
            try check.expect(try await auth.checkActionCode(code).state == .expired, "the password change ended the code")
            try await check.expectError(.expiredActionCode, "the reset code after the password change") {
                try await auth.confirmPasswordReset(code: code, newPassword: "newer horse 4")
            }
        },
        AuthContractCheck("a used code inspects as used and is invalidActionCode", covers: AuthEmailFlows.self) { environment, check in
            let auth = try await environment.makeService()
            _ = try await auth.createUser(email: ada.email, password: ada.password)
            try await auth.sendEmailVerification()
            let code = try await environment.lastEmailCode(to: ada.email, .emailVerification) ?? ""
            let applied = try await auth.applyActionCode(code)
            try check.expect(applied.operation == .emailVerification && auth.currentUser?.isEmailVerified == true, "applying verifies the address")
            try check.expect(try await auth.checkActionCode(code).state == .used, "the applied code inspects as used")
            try await check.expectError(.invalidActionCode, "the used code again") { _ = try await auth.applyActionCode(code) }
        },
        AuthContractCheck(
            "updateEmail mails the old address a code that changes it back, verified, and ends the sessions", covers: AuthEmailFlows.self,
            AuthAccountManagement.self
        ) { environment, check in
            let auth = try await environment.makeService()
            let user = try await auth.createUser(email: ada.email, password: ada.password)
            let token = try await auth.idToken(forceRefresh: false)
            _ = try await auth.updateEmail(to: grace.email)
            let code = try await environment.lastEmailCode(to: ada.email, .recoverEmail) ?? ""
            let info = try await auth.checkActionCode(code)
            try check.expect(info.change == EmailChange(from: ada.email, to: grace.email) && info.state == .valid, "the notice tells the change")
            let applied = try await auth.applyActionCode(code)
            try check.expect(applied.suggestsPasswordReset, "a recovery suggests a password reset")
            try await check.expectError(.userTokenRevoked, "a token from before the recovery") { _ = try await environment.verifyIDToken(token) }
            try await auth.signOut()
            let back = try await auth.signIn(with: .emailPassword(email: ada.email, password: ada.password))
            try check.expect(back.id == user.id && back.email == ada.email && back.isEmailVerified, "the old address is back, verified")
        },
        AuthContractCheck("verifyBeforeUpdateEmail changes the address only when the new address applies its code", covers: AuthEmailFlows.self) {
            environment, check in
            let auth = try await environment.makeService()
            _ = try await auth.createUser(email: ada.email, password: ada.password)
            try await auth.verifyBeforeUpdateEmail(to: grace.email)
            try check.expect(auth.currentUser?.email == ada.email, "nothing changes before the code is applied")
            let code = try await environment.lastEmailCode(to: grace.email, .verifyAndChangeEmail) ?? ""
            _ = try await auth.applyActionCode(code)
            try check.expect(auth.currentUser?.email == grace.email && auth.currentUser?.isEmailVerified == true, "the new address, verified")
            try check.expect(try await environment.lastEmailCode(to: ada.email, .recoverEmail) != nil, "the old address hears of the change")
        },
        AuthContractCheck(
            "an email code linked for a new address makes it the account's email, and the password signs in with it",
            covers: AuthAccountManagement.self
        ) {
            environment, check in
            let auth = try await environment.makeService()
            let user = try await auth.createUser(email: ada.email, password: ada.password)
            try await auth.sendSignInCode(to: grace.email)
            let linked = try await auth.link(
                .emailCode(email: grace.email, code: try await environment.lastEmailCode(to: grace.email, .signInCode) ?? ""))
            try check.expect(linked.email == grace.email && linked.isEmailVerified, "the proven address is the account's email")
            try await auth.signOut()
            let back = try await auth.signIn(with: .emailPassword(email: grace.email, password: ada.password))
            try check.expect(back.id == user.id, "the password signs in with the new address")
        },
        AuthContractCheck("an ID token says how the session signed in and lists the linked identities", covers: AuthTokens.self) {
            environment, check in
            let auth = try await environment.makeService()
            _ = try await auth.createUser(email: ada.email, password: ada.password)
            let claims = try await environment.verifyIDToken(try await auth.idToken(forceRefresh: true))
            try check.expect(claims.signInProvider == "password", "sign_in_provider is password, not \(claims.signInProvider ?? "nil")")
            try check.expect(claims.identities == ["email": [ada.email]], "identities list the address")
            try await auth.signOut()
            _ = try await auth.signInAnonymously()
            let guest = try await environment.verifyIDToken(try await auth.idToken(forceRefresh: true))
            try check.expect(guest.signInProvider == "anonymous" && guest.identities.isEmpty, "a guest's token says anonymous")
        },
    ]
}
