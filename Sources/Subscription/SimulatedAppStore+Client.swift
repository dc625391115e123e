import Foundation
import TrainCore

/// What the client side (``LocalSubscriptionService``) asks of the store.
extension SimulatedAppStore {
    /// An in-app purchase: fails with the chosen error, waits (Ask to Buy, interruption), or buys.
    func purchase(_ product: StoreProduct, appAccountToken: UUID, requestID: String) throws(SubscriptionError) -> StorePurchaseResult {
        try mutate { state, changes, now throws(SubscriptionError) in
            if state.settings.userCancelsPurchases { return .userCancelled }
            if let failure = state.settings.purchaseFailure {
                throw SubscriptionError(failure, detail: "The simulated App Store failed the purchase with \(failure).")
            }
            if state.settings.askToBuyEnabled || state.settings.interruptedPurchasesEnabled {
                let kind: PendingPurchase.Kind = state.settings.askToBuyEnabled ? .askToBuy : .interrupted
                // Listed under a transaction identifier of its own from now on, as StoreKit's test session does.
                let transactionID = state.nextID
                state.nextID += 1
                state.pending[requestID] = PendingPurchase(
                    id: requestID, transactionID: transactionID, productID: product.id, appAccountToken: appAccountToken,
                    requestedAt: now, kind: kind)
                changes.pending.insert(requestID)
                return .pending
            }
            return .success(buy(product, token: appAccountToken, at: now, returnedByPurchase: true, state: &state, changes: &changes, now: now))
        }
    }

    /// Every transaction of one app user, the grace end of the latest transaction of
    /// each of their subscriptions in grace, and the number of the last grace event
    /// announced (the history includes it and every earlier one).
    func history(of token: UUID) -> (transactions: [StoreVerificationResult<StoreTransaction>], grace: [UInt64: Date], sequence: UInt64) {
        state.withLock { state in
            let transactions = state.entries.keys.sorted().compactMap { state.entries[$0] }
                .filter { $0.transaction.appAccountToken == token }.map(\.result)
            var grace: [UInt64: Date] = [:]
            for subscription in state.subscriptions.values where subscription.appAccountToken == token {
                if let period = state.grace(of: subscription) { grace[period.transactionID] = period.end }
            }
            return (transactions, grace, state.sequence)
        }
    }

    /// The transactions of one app user that the app has not finished, each with its revision.
    func unfinished(of token: UUID) -> [(result: StoreVerificationResult<StoreTransaction>, revision: Int)] {
        state.withLock { state in
            state.entries.keys.sorted().compactMap { state.entries[$0] }
                .filter { !$0.finished && $0.transaction.appAccountToken == token }.map { ($0.result, $0.revision) }
        }
    }

    /// Marks a transaction finished; finishing twice does nothing.
    func finish(_ id: UInt64, appAccountToken: UUID?) throws(SubscriptionError) {
        try mutate { state, changes, _ throws(SubscriptionError) in
            guard var entry = state.entries[id] else { throw SubscriptionError(.transactionNotFound, detail: "No transaction \(id).") }
            guard entry.transaction.appAccountToken == appAccountToken else {
                throw SubscriptionError(.notYourTransaction, detail: "Transaction \(id) belongs to another app user.")
            }
            guard !entry.finished else { return }
            entry.finished = true
            state.entries[id] = entry
            changes.entries.insert(id)
        }
    }

    /// The status of each subscription of one app user.
    func statuses(of token: UUID) -> [SubscriptionStatus] {
        state.withLock { state in
            state.subscriptions.values.filter { $0.appAccountToken == token }.sorted { $0.originalID < $1.originalID }.compactMap { subscription in
                guard let entry = state.entries[subscription.latestTransactionID] else { return nil }
                let info = subscription.renewalInfo
                return SubscriptionStatus(
                    state: subscription.state, transaction: entry.result,
                    renewalInfo: entry.verified ? .verified(info) : .unverified(info, .invalidSignature))
            }
        }
    }
}
