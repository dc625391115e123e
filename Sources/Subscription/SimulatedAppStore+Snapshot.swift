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

/// A purchase waiting for a parent's Ask to Buy approval or for an interruption to be
/// resolved, as a world's snapshot holds it; the offer it asked for is not part of it.
package struct StorePendingPurchase: Hashable, Sendable {
    package var appleID: AppleID
    package var productID: String
    package var appAccountToken: UUID?
    package var requestedAt: Date
    package var kind: PendingPurchase.Kind

    package init(appleID: AppleID, productID: String, appAccountToken: UUID?, requestedAt: Date, kind: PendingPurchase.Kind) {
        self.appleID = appleID
        self.productID = productID
        self.appAccountToken = appAccountToken
        self.requestedAt = requestedAt
        self.kind = kind
    }
}

extension SimulatedAppStore {
    /// Lists `pending` as a purchase its Apple ID asked for at its date and that still
    /// waits, under the request identifier `world-import-` and `number`, so requests of
    /// one date keep their order in ``pendingPurchases``. `exclusive` is the importing
    /// stack's access per app user.
    /// - Throws: `productNotFound`; `invalidArgument` for a request after now or an Ask
    ///   to Buy request that lapsed; the errors a purchase of the product would meet now.
    package func replay(_ pending: StorePendingPurchase, number: Int, exclusive: Bool) throws(SubscriptionError) {
        guard let product = product(pending.productID) else {
            throw SubscriptionError(.productNotFound, detail: "No product '\(pending.productID)'.")
        }
        try mutate { state, changes, now throws(SubscriptionError) in
            guard pending.requestedAt <= now else {
                throw SubscriptionError(.invalidArgument, detail: "A purchase is asked for no later than now.")
            }
            if pending.kind == .askToBuy, pending.requestedAt.addingTimeInterval(Self.askToBuyLifetime) < now {
                throw SubscriptionError(.invalidArgument, detail: "An Ask to Buy request lapses 24 hours after it was asked.")
            }
            _ = try checkPurchasable(product, offer: nil, owner: pending.appleID, in: state, now: now)
            if exclusive {
                try refuseAnotherAccountsPurchase(product, owner: pending.appleID, token: pending.appAccountToken, in: state, now: now)
            }
            let digits = String(number)
            var request = PendingPurchase(
                id: "world-import-" + String(repeating: "0", count: max(0, 10 - digits.count)) + digits, transactionID: 0,
                productID: product.id, appleID: pending.appleID, appAccountToken: pending.appAccountToken, requestedAt: pending.requestedAt,
                kind: pending.kind)
            request.exclusive = exclusive
            Self.wait(request, state: &state, changes: &changes)
        }
    }

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
