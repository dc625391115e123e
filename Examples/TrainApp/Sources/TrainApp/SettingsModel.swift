import Foundation
import Observation
import TrainKit

/// Settings: the Face ID lock, a copy of the user's data, and account deletion with
/// its progress.
@MainActor
@Observable
public final class SettingsModel {
    /// Whether the Face ID lock is on.
    public private(set) var isBiometricLockOn = false
    /// The last copy of the user's data, as JSON.
    public private(set) var exported: Data?
    /// What the last action came to, for the user.
    public private(set) var message: String?
    /// Whether deleting needs the user to sign in again first.
    public private(set) var needsSignIn = false
    private let session: UserSessionManager

    /// Creates the settings over the session.
    /// - Parameter session: The session manager.
    public init(session: UserSessionManager) {
        self.session = session
    }

    /// The running deletion's progress, for a progress bar.
    public var deletionProgress: AccountDeletionProgress? { session.deletionProgress }

    /// Reads the lock's setting.
    public func load() async {
        isBiometricLockOn = (try? await session.auth.isBiometricLockEnabled()) ?? false
    }

    /// The Face ID toggle.
    /// - Parameter on: Its new position.
    public func setBiometricLock(_ on: Bool) async {
        do {
            try await session.auth.setBiometricLock(enabled: on, reason: "Unlock Train with Face ID")
            message = nil
        } catch {
            message = error.localizedDescription
        }
        await load()
    }

    /// The "download my data" button.
    public func exportTapped() async {
        guard let user = session.currentUser else { return }
        do {
            exported = try await session.account.exportData(of: user.id).jsonData()
            message = nil
        } catch {
            message = error.localizedDescription
        }
    }

    /// The "delete my account" button.
    public func deleteTapped() async {
        do {
            _ = try await session.deleteAccount()
            needsSignIn = false
            message = "Your account is deleted."
        } catch let error as AccountError where error.code == .requiresRecentLogin || error.code == .requiresAppleReauthentication {
            needsSignIn = true
            message = error.localizedDescription
        } catch {
            message = error.localizedDescription
        }
    }
}
