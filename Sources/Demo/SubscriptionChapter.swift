import Foundation
import TrainAccount
import TrainCore
import TrainSubscription

/// The free tier gates analytics; Ada buys Pro through the session manager and the
/// simulated App Store; a simulated month renews it; a refund revokes it.
@MainActor
struct SubscriptionChapter {
    let services: TrainServices
    let session: UserSessionManager
    let clock: DemoClock
    let narrator: Narrator

    func run() async {
        let subscriptions = services.subscriptions
        await narrator.step("On the free tier, analytics are gated behind Pro") {
            let tier = try await subscriptions.restorePurchases()
            let access = FeatureAccess(tier: tier)
            narrator.say(
                "Tier: \(tier). Analytics: \(access.canAccess(.analytics) ? "open" : "locked, unlocked by \(access.minimumTier(for: .analytics)?.rawValue ?? "?")")."
            )
            return tier == .free && access.minimumTier(for: .analytics) == .pro ? nil : "expected the free tier with analytics behind Pro"
        }

        var bought: StoreTransaction?
        await narrator.step("Buy Pro monthly through the session (a verified transaction for Ada's token, then finished)") {
            guard case .success(let result) = try await session.purchase("com.train.pro.monthly") else { return "the purchase did not succeed" }
            let transaction = try result.payloadValue
            try await subscriptions.finish(transaction.id)
            bought = transaction
            narrator.say(
                "Transaction \(transaction.id), expires \(transaction.expirationDate?.formatted(date: .abbreviated, time: .omitted) ?? "?"); "
                    + "the session shows \(session.tier).")
            guard let user = session.currentUser, transaction.appAccountToken == (try AppAccountToken.forUser(user.id)) else {
                return "the purchase does not carry Ada's token"
            }
            return session.tier == .pro && subscriptions.featureAccess().canAccess(.analytics) ? nil : "analytics stayed locked after buying Pro"
        }
        guard let bought else { return }

        var renewal: StoreTransaction?
        await narrator.step("A simulated month passes: the subscription renews itself") {
            try clock.advance(by: .seconds(32 * 86_400))
            let tier = try await subscriptions.restorePurchases()
            let latest = try await subscriptions.subscriptionStatuses().first?.transaction.unsafePayloadValue
            renewal = latest
            narrator.say(
                "Renewed as transaction \(latest?.id ?? 0), from \(latest?.purchaseDate.formatted(date: .abbreviated, time: .omitted) ?? "?").")
            return tier == .pro && latest?.originalID == bought.originalID && latest?.id != bought.id ? nil : "no renewal happened"
        }
        guard let renewal else { return }

        await narrator.step("A refund revokes it at once: analytics are locked again") {
            try services.appStore.refund(transactionID: renewal.id, reason: .other)
            let tier = try await subscriptions.restorePurchases()
            session.refresh()
            narrator.say("Tier after the refund: \(tier); the session shows \(session.tier).")
            return tier == .free && session.tier == .free && !subscriptions.featureAccess().canAccess(.analytics)
                ? nil : "the refund did not revoke access"
        }
    }
}
