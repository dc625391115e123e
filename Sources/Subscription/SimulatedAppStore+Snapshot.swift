import Foundation
import TrainCore

/// A purchase as a world's snapshot holds it: who bought what, when, and for which app
/// user. Its renewals, and what happened to it since, are not part of it.
package struct StorePurchase: Hashable, Sendable {
    package var appleID: AppleID
    package var productID: String
    package var purchaseDate: Date
    package var appAccountToken: UUID?

    package init(appleID: AppleID, productID: String, purchaseDate: Date, appAccountToken: UUID?) {
        self.appleID = appleID
        self.productID = productID
        self.purchaseDate = purchaseDate
        self.appAccountToken = appAccountToken
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
                return StorePurchase(
                    appleID: entry.owner, productID: entry.transaction.productID, purchaseDate: entry.transaction.purchaseDate,
                    appAccountToken: entry.transaction.appAccountToken)
            }
        }
    }

    /// Makes `purchase` as a purchase outside the app of its Apple ID, at its date: a
    /// world's import replays each, and the store renews them up to now.
    /// - Throws: The errors of ``buyOutsideApp(productID:appAccountToken:purchaseDate:)``.
    package func replay(_ purchase: StorePurchase) throws(SubscriptionError) {
        try device(signedInTo: purchase.appleID).buyOutsideApp(
            productID: purchase.productID, appAccountToken: purchase.appAccountToken, purchaseDate: purchase.purchaseDate)
    }
}
