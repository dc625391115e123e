import Foundation
import Observation
import TrainKit

/// The app's root: which screen shows, read from the session manager, which follows
/// the sign-in, the tier, the feed and sync by itself.
@MainActor
@Observable
public final class AppModel {
    /// The screens the root chooses between.
    public enum Screen: Equatable, Sendable {
        /// The session is being read.
        case launching
        /// Nobody is signed in.
        case signIn
        /// The signed-in user's home: feed, plans, settings.
        case home
        /// The user signed in during their deletion's grace period: offer the restore.
        case restore(purgeAt: Date)
    }

    /// The session every screen reads.
    public let session: UserSessionManager
    /// The last action's failure, for an alert.
    public private(set) var errorMessage: String?

    /// Creates the root over a session manager.
    /// - Parameter session: From `TrainServices.makeSessionManager()`, or over fakes in a test.
    public init(session: UserSessionManager) {
        self.session = session
    }

    /// The screen to show now.
    public var screen: Screen {
        switch session.authState {
        case .unknown: .launching
        case .unauthenticated, .error: .signIn
        case .authenticated: session.scheduledDeletion.map { .restore(purgeAt: $0.purgeAt) } ?? .home
        }
    }

    /// Starts following the session; call it once, when the app launches.
    public func launch() async {
        await session.start()
    }

    /// The Sign in with Apple button.
    public func signInTapped() async {
        errorMessage = await attempt { _ = try await self.session.signInWithApple() }
    }

    /// The sign-out button.
    public func signOutTapped() async {
        errorMessage = await attempt { try await self.session.signOut() }
    }

    /// The restore button of the restore screen.
    public func restoreTapped() async {
        errorMessage = await attempt { try await self.session.restoreAccount() }
    }
}
