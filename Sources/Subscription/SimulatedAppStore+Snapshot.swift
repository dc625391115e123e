import Foundation
import TrainCore

/// A purchase as a world's snapshot holds it: who bought what, when, for which app
/// user, and for a subscription whose auto-renew is off, the end of its last period.
/// Its renewals follow from these; other changes since are not part of it.
package struct StorePurchase: Hashable, Sendable {
    package var appleID: AppleID
    package var productID: String
    package var purchaseDate: Date
    package var appAccountToken: UUID?
    /// The end of the last period of a subscription that does not renew after it.
    package var expiresAt: Date?
    /// When the purchase — for a subscription, its period then — was refunded, and why.
    package var refund: Refund?

    /// A refund: when, and why.
    package struct Refund: Hashable, Sendable {
        package var date: Date
        package var reason: TransactionRevocationReason

        package init(date: Date, reason: TransactionRevocationReason) {
            self.date = date
            self.reason = reason
        }
    }

    package init(
        appleID: AppleID, productID: String, purchaseDate: Date, appAccountToken: UUID?, expiresAt: Date? = nil, refund: Refund? = nil
    ) {
        self.appleID = appleID
        self.productID = productID
        self.purchaseDate = purchaseDate
        self.appAccountToken = appAccountToken
        self.expiresAt = expiresAt
        self.refund = refund
    }
}

extension SimulatedAppStore {
    /// Every purchase made in the store, renewals and family members' shares left out,
    /// by purchase date then transaction: a world's export reads it.
    /// - Throws: ``TrainCore/TrainErrorCode/ledgerUnreadable`` for a ledger that cannot be read.
    package func purchases() throws(SubscriptionError) -> [StorePurchase] {
        try mutate { state, _, _ in
            state.entries.keys.sorted().compactMap { id -> StorePurchase? in
                guard let entry = state.entries[id], entry.transaction.ownershipType == .purchased, entry.transaction.reason == .purchase,
                    entry.transaction.id == entry.transaction.originalID || entry.transaction.productType != .autoRenewable
                else { return nil }
                let subscription = state.subscriptions[entry.transaction.originalID]
                // A subscription's refund is of the period it ended in; a purchase's, of itself.
                let refunded = subscription.map { state.entries[$0.latestTransactionID]?.transaction } ?? entry.transaction
                return StorePurchase(
                    appleID: entry.owner, productID: entry.transaction.productID, purchaseDate: entry.transaction.purchaseDate,
                    appAccountToken: entry.transaction.appAccountToken,
                    expiresAt: subscription.flatMap { $0.willAutoRenew || $0.state == .revoked ? nil : $0.periodEnd },
                    refund: refunded.flatMap { transaction in
                        transaction.revocationDate.map { StorePurchase.Refund(date: $0, reason: transaction.revocationReason ?? .other) }
                    })
            }
        }
    }

    /// Makes `purchase` as a purchase outside the app of its Apple ID, at its date: a
    /// world's import replays each, and the store renews them up to now — or, for one
    /// with `expiresAt`, up to then, and turns its auto-renew off, so that it ends with
    /// the period that holds that date; or, for a refunded one, up to the refund, which
    /// revokes its period then, without the server notification a refund sends.
    /// - Throws: The errors of ``buyOutsideApp(productID:appAccountToken:purchaseDate:)``;
    ///   `invalidArgument` for `expiresAt` on a product that does not renew, or not after
    ///   the purchase, and for a refund before the purchase or with `expiresAt`.
    package func replay(_ purchase: StorePurchase) throws(SubscriptionError) {
        let device = device(signedInTo: purchase.appleID)
        guard let product = product(purchase.productID) else {
            throw SubscriptionError(.productNotFound, detail: "No product '\(purchase.productID)'.")
        }
        if let expiresAt = purchase.expiresAt {
            guard product.type == .autoRenewable, expiresAt > purchase.purchaseDate else {
                throw SubscriptionError(.invalidArgument, detail: "Only a subscription stops renewing, after it was bought.")
            }
        }
        if let refund = purchase.refund {
            guard refund.date >= purchase.purchaseDate, purchase.expiresAt == nil else {
                throw SubscriptionError(.invalidArgument, detail: "A purchase is refunded after it was made; a refunded subscription ends then.")
            }
        }
        try device.mutate { state, changes, now throws(SubscriptionError) in
            // Renewed up to the end given or the refund, whichever came first.
            let until = min(purchase.expiresAt ?? now, purchase.refund?.date ?? now, now)
            let bought = try device.buyBackdated(
                product, token: purchase.appAccountToken, purchaseDate: purchase.purchaseDate, state: &state, changes: &changes, now: until)
            device.settle(&state, &changes, now: until)
            let owner = device.deviceAppleID(state)
            if let refund = purchase.refund {
                let latest = product.type == .autoRenewable ? device.subscription(inGroupOf: product, of: owner, in: state)?.latestTransactionID : nil
                try device.revoke(
                    latest ?? bought.unsafePayloadValue.id, reason: refund.reason, notifying: false, state: &state, changes: &changes, now: until)
            } else if purchase.expiresAt != nil, var subscription = device.subscription(inGroupOf: product, of: owner, in: state) {
                subscription.willAutoRenew = false
                state.subscriptions[subscription.originalID] = subscription
                changes.subscriptions.insert(subscription.originalID)
            }
        }
    }

}
