import Testing
import TrainAccount
import TrainAuth
import TrainSocial
import TrainSubscription
import TrainSync
import TrainTesting

/// Each capability of a service has checks of its own, so an app's conformance is
/// tested piece by piece as it is written.
@Suite struct ContractCapabilityTests {
    /// Every check's capabilities, and those the contract must cover.
    private static func coverage<Environment>(
        _ checks: [ContractCheck<Environment>], _ capabilities: [Any.Type]
    ) -> (unnamed: [String], uncovered: [String], outside: [String]) {
        let expected = Set(capabilities.map(ContractCapability.init))
        let unnamed = checks.filter(\.capabilities.isEmpty).map(\.name)
        let uncovered = capabilities.filter { checks.covering($0).isEmpty }.map { ContractCapability($0).name }
        let outside = checks.flatMap(\.capabilities).filter { !expected.contains($0) }.map(\.name)
        return (unnamed, uncovered, outside)
    }

    @Test("every check of the social contract names its capabilities, and each capability of the feed has checks")
    func social() {
        let found = Self.coverage(
            SocialFeedServiceContract.checks,
            [
                SocialFeed.self, SocialPosting.self, SocialRelations.self, SocialProfiles.self, SocialNotifications.self,
                SocialModeration.self, SocialAccountData.self, SocialAdministration.self,
            ])
        #expect(found.unnamed.isEmpty && found.uncovered.isEmpty && found.outside.isEmpty, "\(found)")
    }

    @Test("every check of the auth contract names its capabilities, and each capability of auth has checks")
    func auth() {
        let found = Self.coverage(
            AuthServiceContract.checks,
            [AuthSession.self, AuthSignIn.self, AuthEmailFlows.self, AuthTokens.self, AuthAccountManagement.self, AuthAdministration.self])
        #expect(found.unnamed.isEmpty && found.uncovered.isEmpty && found.outside.isEmpty, "\(found)")
    }

    @Test("every check of the subscription, sync and account contracts names its capabilities, and each capability has checks")
    func others() {
        let subscription = Self.coverage(
            SubscriptionServiceContract.checks, [SubscriptionAccess.self, SubscriptionPurchasing.self, SubscriptionTransactions.self])
        let sync = Self.coverage(
            PlanSyncServiceContract.checks, [PlanEditing.self, PlanSyncing.self, PlanSyncAccountData.self, PlanSyncAdministration.self])
        let account = Self.coverage(AccountServiceContract.checks, [AccountDeletion.self, AccountPrivacy.self, AccountAdministration.self])
        for found in [subscription, sync, account] {
            #expect(found.unnamed.isEmpty && found.uncovered.isEmpty && found.outside.isEmpty, "\(found)")
        }
    }

    @Test("covering picks the checks of one capability, in the contract's order, and a check of your own names its capabilities")
    func covering() {
        let notifications = SocialFeedServiceContract.checks.covering(SocialNotifications.self)
        #expect(!notifications.isEmpty && notifications.allSatisfy { $0.covers(SocialNotifications.self) })
        #expect(notifications.map(\.name) == SocialFeedServiceContract.checks.filter { $0.covers(SocialNotifications.self) }.map(\.name))
        let own = SocialContractCheck("my backend's rule", covering: [SocialFeed.self]) { _ in }
        #expect(own.covers(SocialFeed.self) && !own.covers(SocialPosting.self))
        #expect(ContractCapability(SocialFeed.self).name == "SocialFeed")
    }
}
