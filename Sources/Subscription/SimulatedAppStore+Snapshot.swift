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

    package init(appleID: AppleID, productID: String, purchaseDate: Date, appAccountToken: UUID?, expiresAt: Date? = nil) {
        self.appleID = appleID
        self.productID = productID
        self.purchaseDate = purchaseDate
        self.appAccountToken = appAccountToken
        self.expiresAt = expiresAt
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
                return StorePurchase(
                    appleID: entry.owner, productID: entry.transaction.productID, purchaseDate: entry.transaction.purchaseDate,
                    appAccountToken: entry.transaction.appAccountToken,
                    expiresAt: subscription.flatMap { $0.willAutoRenew ? nil : $0.periodEnd })
            }
        }
    }

    /// Makes `purchase` as a purchase outside the app of its Apple ID, at its date: a
    /// world's import replays each, and the store renews them up to now — or, for one
    /// with `expiresAt`, up to then, and turns its auto-renew off, so that it ends with
    /// the period that holds that date.
    /// - Throws: The errors of ``buyOutsideApp(productID:appAccountToken:purchaseDate:)``;
    ///   `invalidArgument` for `expiresAt` on a product that does not renew, or not after
    ///   the purchase.
    package func replay(_ purchase: StorePurchase) throws(SubscriptionError) {
        let device = device(signedInTo: purchase.appleID)
        guard let expiresAt = purchase.expiresAt else {
            try device.buyOutsideApp(productID: purchase.productID, appAccountToken: purchase.appAccountToken, purchaseDate: purchase.purchaseDate)
            return
        }
        guard let product = product(purchase.productID) else {
            throw SubscriptionError(.productNotFound, detail: "No product '\(purchase.productID)'.")
        }
        guard product.type == .autoRenewable, expiresAt > purchase.purchaseDate else {
            throw SubscriptionError(.invalidArgument, detail: "Only a subscription stops renewing, after it was bought.")
        }
        try device.mutate { state, changes, now throws(SubscriptionError) in
            let until = min(expiresAt, now)
            _ = try device.buyBackdated(
                product, token: purchase.appAccountToken, purchaseDate: purchase.purchaseDate, state: &state, changes: &changes, now: until)
            device.settle(&state, &changes, now: until)
            guard var subscription = device.subscription(inGroupOf: product, of: device.deviceAppleID(state), in: state) else { return }
            subscription.willAutoRenew = false
            state.subscriptions[subscription.originalID] = subscription
            changes.subscriptions.insert(subscription.originalID)
        }
    }
}
