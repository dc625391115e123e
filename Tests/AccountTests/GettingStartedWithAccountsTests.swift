import Foundation
import Observation
import Testing
import TrainAccount
import TrainAuth
import TrainCore
import TrainSocial
import TrainSubscription
import TrainTesting

// The code of TrainAccount.docc/GettingStartedWithAccounts.md, kept compiling and correct here.
// When you change one, change the other.

@MainActor
private func launch(directory: URL) async throws -> (TrainServices, UserSessionManager) {
    let services = try TrainServices.files(in: directory)
    let session = services.makeSessionManager()
    await session.start()
    return (services, session)
}

@MainActor
@Observable
private final class SettingsModel {
    let session: UserSessionManager
    let account: any AccountService
    var message: String?
    var needsSignIn = false
    var exported: Data?

    init(session: UserSessionManager, account: any AccountService) {
        self.session = session
        self.account = account
    }

    var title: String {
        switch session.authState {
        case .authenticated: "Signed in as \(session.currentUser?.displayName ?? "you") — \(session.tier.name)"
        case .unauthenticated: "Not signed in"
        case .unknown: "…"
        case .error(let text): text
        }
    }

    func exportTapped() async {
        guard let user = session.currentUser else { return }
        do {
            exported = try await account.exportData(of: user.id).jsonData()
        } catch {
            message = error.localizedDescription
        }
    }

    func deleteTapped() async {
        do {
            let deletion = try await session.deleteAccount()
            message = (["Your account is deleted. Its data is being erased."] + deletion.warnings).joined(separator: " ")
        } catch let error as AccountError where error.code == .requiresRecentLogin || error.code == .requiresAppleReauthentication {
            needsSignIn = true
            message = error.localizedDescription
        } catch {
            message = error.localizedDescription
        }
    }
}

@MainActor
@Suite(.timeLimit(.minutes(1))) struct GettingStartedWithAccountsTests {
    @Test("the article's launch opens the stack in a directory and its model exports and deletes the account")
    func launchExportAndDelete() async throws {
        let directory = try TemporaryDirectory()
        let (services, session) = try await launch(directory: directory.file("Train"))
        #expect(session.authState == .unauthenticated)
        services.appleID.signIn(
            as: SimulatedIdentityProvider.Account(subject: "001.ada", email: "ada@example.com", fullName: FullName(givenName: "Ada")))
        try await session.signInWithApple()
        let model = SettingsModel(session: session, account: services.account)
        #expect(model.title == "Signed in as Ada — free")
        await model.exportTapped()
        #expect(try AccountExport.decode(try #require(model.exported)).user.email == "ada@example.com")
        await model.deleteTapped()
        #expect(model.message == "Your account is deleted. Its data is being erased.")
        #expect(model.title == "Not signed in")
        session.stop()
    }

    @Test("the article's model, on the fakes, asks for a fresh sign-in when the deletion needs one")
    func needsSignInOnFakes() async throws {
        let fakes = FakeServices()
        fakes.account.script(.deleteAccount, .throwing(AccountError(.requiresRecentLogin)))
        let session = fakes.makeSessionManager()
        await session.start()
        let model = SettingsModel(session: session, account: fakes.account)
        await model.deleteTapped()
        #expect(model.needsSignIn)
        #expect(model.message?.contains("verify your identity") == true)
        #expect(fakes.auth.currentUser != nil, "nothing was deleted")
        session.stop()
        fakes.finish()
    }
}
