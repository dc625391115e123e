import Foundation
import TrainAccount
import TrainCore
import TrainSubscription

/// The free tier gates analytics; the paywall offers a free week to an Apple ID new to
/// the subscriptions and not to one that has had it; Ada buys Pro through the session
/// manager and the simulated App Store; a simulated month renews it; a refund revokes it.
@MainActor
struct SubscriptionChapter {
    /// What the paywall shows for Pro monthly: the free trial while the Apple ID may have it.
    static func paywall(eligibleForTrial: Bool) -> String {
        eligibleForTrial ? "Try Pro free for 1 week, then $4.99 a month" : "Pro: $4.99 a month"
    }

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
                "Tier: \(tier). Analytics: \(access.canAccess(.analytics) ? "open" : "locked, unlocked by \(access.minimumTier(for: .analytics)?.name ?? "?")")."
            )
            return tier == .free && access.minimumTier(for: .analytics) == .pro ? nil : "expected the free tier with analytics behind Pro"
        }

        var eligible = false
        await narrator.step("The paywall offers the free week only to an Apple ID that has never subscribed") {
            eligible = try await subscriptions.isEligibleForIntroOffer(groupID: "train.subscriptions")
            narrator.say(
                "The device's Apple ID \(services.appStore.appleID) \(eligible ? "is new to Train's subscriptions" : "has subscribed before"): "
                    + "\"\(Self.paywall(eligibleForTrial: eligible))\".")
            return nil
        }

        var bought: AppStoreTransaction?
        await narrator.step("Buy Pro monthly through the session (a verified transaction for Ada's token, then finished)") {
            guard case .success(let result) = try await session.purchase("com.train.pro.monthly") else { return "the purchase did not succeed" }
            let transaction = try result.payloadValue
            try await subscriptions.finish(transaction.id)
            bought = transaction
            narrator.say(
                "Transaction \(transaction.id), a \(transaction.periodType) period at "
                    + "\((transaction.price ?? 0).formatted(.currency(code: transaction.currency ?? "USD"))), expires "
                    + "\(transaction.expirationDate?.formatted(date: .abbreviated, time: .omitted) ?? "?"); the session shows \(session.tier).")
            guard transaction.periodType == (eligible ? .trial : .normal) else { return "the trial was \(eligible ? "not given" : "given again")" }
            guard let user = session.currentUser, transaction.appAccountToken == (try AppAccountToken.forUser(user.id)) else {
                return "the purchase does not carry Ada's token"
            }
            return session.tier == .pro && subscriptions.featureAccess().canAccess(.analytics) ? nil : "analytics stayed locked after buying Pro"
        }
        guard let bought else { return }

        var renewal: AppStoreTransaction?
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

        await narrator.step("The paywall now offers no free week: this Apple ID has had its introductory offer") {
            let eligible = try await subscriptions.isEligibleForIntroOffer(groupID: "train.subscriptions")
            narrator.say("\"\(Self.paywall(eligibleForTrial: eligible))\".")
            return eligible ? "the Apple ID was offered a second trial" : nil
        }

        await PaywallAndFamilyScenes(services: services, session: session, clock: clock, narrator: narrator).run()
    }
}
