import Testing
import TrainAccount
import TrainAuth
import TrainCore
import TrainSocial
import TrainSubscription
import TrainTesting

// The code of TrainTesting.docc/TestingAViewModel.md, kept compiling and passing here.
// When you change one, change the other.

@MainActor
final class SettingsModel {
    enum State: Equatable {
        case idle, deleting
        case needsReauthentication(String)
        case deleted
        case failed(String)
    }

    private(set) var state = State.idle
    let auth: any AuthService

    init(auth: any AuthService) {
        self.auth = auth
    }

    func deleteAccountTapped() async {
        state = .deleting
        do {
            try await auth.deleteAccount()
            state = .deleted
        } catch let error as AuthenticationError where error.code == .requiresRecentLogin || error.code == .requiresAppleReauthentication {
            state = .needsReauthentication(error.localizedDescription)
        } catch {
            state = .failed(error.localizedDescription)
        }
    }

    func confirmWithAppleTapped() async {
        do {
            try await auth.reauthenticate(with: try await auth.requestCredential(from: .apple))
            await deleteAccountTapped()
        } catch {
            state = .failed(error.localizedDescription)
        }
    }
}

@MainActor
@Test func deletionAsksForAppleThenRetries() async throws {
    let auth = FakeAuthService(currentUser: FakeAuthService.sampleUser)
    let receipt = AccountDeletionReceipt(userID: FakeAuthService.sampleUser.id, providers: [.apple], tokenRevocation: .revoked)
    auth.script(.deleteAccount, .sequence([.failure(AuthenticationError(.requiresRecentLogin)), .success(receipt)]))
    auth.script(.requestCredential, .returning(.emailPassword(email: "ada@example.com", password: "unused")))
    auth.script(.reauthenticate, .returning(FakeAuthService.sampleUser))
    let model = SettingsModel(auth: auth)

    await model.deleteAccountTapped()
    #expect(model.state == .needsReauthentication(AuthenticationError(.requiresRecentLogin).localizedDescription))

    auth.controls.holdCalls()
    let confirming = Task { await model.confirmWithAppleTapped() }
    await auth.controls.waitForHeldCalls(1)
    #expect(model.state == .needsReauthentication(AuthenticationError(.requiresRecentLogin).localizedDescription))
    auth.controls.releaseHeldCalls()
    await confirming.value

    #expect(model.state == .deleted)
    #expect(auth.calls == [.deleteAccount(), .requestCredential(.apple), .reauthenticate(.password), .deleteAccount()])
    auth.finish()
}

@MainActor
final class PaywallModel {
    enum Status: Equatable {
        case browsing, purchasing, waitingForApproval
        case subscribed(SubscriptionTier)
        case failed(String)
    }

    private(set) var status = Status.browsing
    let subscriptions: any SubscriptionService

    init(subscriptions: any SubscriptionService) {
        self.subscriptions = subscriptions
    }

    func buy(_ productID: String) async {
        status = .purchasing
        do {
            switch try await subscriptions.purchase(productID) {
            case .success(let verification):
                try await subscriptions.finish(try verification.payloadValue.id)
                status = .subscribed(subscriptions.currentTier)
            case .pending:
                status = .waitingForApproval
            case .userCancelled:
                status = .browsing
            }
        } catch {
            status = .failed(error.localizedDescription)
        }
    }

    /// After `.pending`: waits for the parent's approval on the updates stream.
    func waitForApproval() async {
        for await update in subscriptions.transactionUpdates() {
            guard let transaction = try? update.payloadValue else { continue }
            try? await subscriptions.finish(transaction.id)
            status = .subscribed(subscriptions.currentTier)
            return
        }
    }
}

@MainActor
@Test func askToBuyWaitsForTheParent() async throws {
    let subscriptions = FakeSubscriptionService()
    subscriptions.script(.purchase, .returning(.pending))
    subscriptions.script(.finish, .succeeding)
    let model = PaywallModel(subscriptions: subscriptions)

    await model.buy("com.train.pro.monthly")
    #expect(model.status == .waitingForApproval)

    let approval = Task { await model.waitForApproval() }
    await subscriptions.waitForTransactionListeners()
    subscriptions.setTier(.pro)
    let approved = AppStoreTransaction(id: 1, productID: "com.train.pro.monthly", purchaseDate: ManualClock.defaultStart, expirationDate: nil)
    subscriptions.sendTransactionUpdate(.verified(approved))
    await approval.value

    #expect(model.status == .subscribed(.pro))
    #expect(subscriptions.calls == [.purchase("com.train.pro.monthly"), .transactionUpdates(), .finish(1)])
    subscriptions.finish()
}

@MainActor
@Test func feedOpensAfterAWorkout() async throws {
    let fakes = FakeServices()
    let session = fakes.makeSessionManager()
    await session.start()
    #expect(!session.isFeedUnlocked)

    _ = try await fakes.social.unlockFeed(workoutType: .run)
    #expect(await waitUntil { session.isFeedUnlocked })

    fakes.social.script(.friendsFeed, .once(.failure(SocialError(.storage))))
    await #expect(throws: SocialError(.storage)) { try await fakes.social.friendsFeed(limit: 20) }
    #expect(try await fakes.social.friendsFeed(limit: 20).isEmpty, "the next call is the service's")
    session.stop()
    fakes.finish()
}
