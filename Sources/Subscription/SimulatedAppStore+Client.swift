import Foundation
import TrainCore

/// What the client side (``LocalSubscriptionService``) asks of the store.
extension SimulatedAppStore {
    /// Whose transactions a service sees: those the device's Apple ID owns — all of them,
    /// or only those tagged with the signed-in app user's token.
    struct Audience: Hashable, Sendable {
        var policy: SubscriptionAccessPolicy
        var token: UUID?

        /// Whether a transaction or subscription of `owner`, tagged `token`, is seen while
        /// `appleID` is signed in to the device.
        func sees(owner: AppleID, token: UUID?, on appleID: AppleID) -> Bool {
            guard owner == appleID else { return false }
            switch policy {
            case .appleID: return true
            case .appAccountToken: return self.token != nil && token == self.token
            }
        }

        func sees(_ entry: StoreLedger.Entry, on appleID: AppleID) -> Bool {
            sees(owner: entry.owner, token: entry.transaction.appAccountToken, on: appleID)
        }
    }

    /// An in-app purchase for `appleID`, the device's Apple ID when the purchase sheet
    /// came up, tagged `appAccountToken`: fails with the chosen error, waits (Ask to Buy,
    /// interruption), or buys. The change's events come back with the result, for the
    /// observer `caller` to apply: it is not called back during the purchase. With `exclusive`, a subscription of the group that grants
    /// access and is not this app user's is ``TrainCore/TrainErrorCode/subscribedWithAnotherAccount``,
    /// now and when a waiting request is approved.
    func purchase(
        _ product: AppStoreProduct, offer: PurchaseOffer?, appleID: AppleID, appAccountToken: UUID?, exclusive: Bool, requestID: String,
        caller: Int?
    ) throws(SubscriptionError) -> (result: StorePurchaseResult, events: [Event]) {
        try mutate(returningEventsTo: caller) { state, changes, now throws(SubscriptionError) in
            guard deviceAppleID(state) == appleID else {
                throw SubscriptionError(
                    .notYourTransaction, detail: "The device signed in to another Apple ID while the purchase sheet was up; nothing was bought.")
            }
            if state.settings.userCancelsPurchases { return .userCancelled }
            if let failure = state.settings.failures[.purchase] {
                throw SubscriptionError(failure, detail: "The simulated App Store failed the purchase with \(failure).")
            }
            if exclusive {
                try refuseAnotherAccountsPurchase(product, owner: appleID, token: appAccountToken, in: state, now: now)
            }
            if state.settings.askToBuyEnabled || state.settings.interruptedPurchasesEnabled {
                // Checked before the request waits: a parent must not approve what cannot be bought.
                _ = try checkPurchasable(product, offer: offer?.request, owner: appleID, in: state, now: now)
                var request = PendingPurchase(
                    id: requestID, transactionID: 0, productID: product.id, appleID: appleID, appAccountToken: appAccountToken, requestedAt: now,
                    kind: state.settings.askToBuyEnabled ? .askToBuy : .interrupted)
                request.exclusive = exclusive
                request.offer = offer
                Self.wait(request, state: &state, changes: &changes)
                return .pending
            }
            return .success(
                try buy(
                    product, owner: appleID, token: appAccountToken, at: now, returnedByPurchase: true, offer: offer?.request,
                    state: &state, changes: &changes, now: now))
        }
    }

    /// Lists `request` as waiting, under the next transaction identifier, as StoreKit's
    /// test session lists a deferred purchase.
    static func wait(_ request: PendingPurchase, state: inout State, changes: inout Changes) {
        var request = request
        request.transactionID = state.nextID
        state.nextID += 1
        state.pending[request.id] = request
        changes.pending.insert(request.id)
    }

    /// `entries` by purchase date, then identifier.
    static func oldestFirst(_ entries: some Sequence<StoreLedger.Entry>) -> [StoreLedger.Entry] {
        entries.sorted { ($0.transaction.purchaseDate, $0.transaction.id) < ($1.transaction.purchaseDate, $1.transaction.id) }
    }

    /// Throws the error a test chose for `api`, if it chose one.
    func failIfSimulated(_ api: StoreAPI) throws(SubscriptionError) {
        guard let failure = state.withLock({ $0.settings.failures[api] }) else { return }
        throw SubscriptionError(failure, detail: "The simulated App Store failed \(api.rawValue) with \(failure).")
    }

    /// Whether the device's Apple ID has never had a transaction in the group.
    func isEligibleForIntroOffer(groupID: String) -> Bool {
        settle()
        return state.withLock { isEligibleForIntroOffer(groupID, owner: deviceAppleID($0), in: $0) }
    }

    /// Throws ``TrainCore/TrainErrorCode/subscribedWithAnotherAccount`` if what `owner`
    /// already has of `product` is not `token`'s: its subscription in the group, while it
    /// grants access, or the non-consumable itself.
    func refuseAnotherAccountsPurchase(_ product: AppStoreProduct, owner: AppleID, token: UUID?, in state: State, now: Date)
        throws(SubscriptionError)
    {
        if let current = subscriptionOfAnotherAccount(inGroupOf: product, of: owner, token: token, in: state, now: now) {
            throw SubscriptionError(
                .subscribedWithAnotherAccount,
                detail: "The Apple ID \(owner) subscribes to '\(current.productID)' for another app account, or outside the app.")
        }
        if product.type == .nonConsumable, let owned = ownedNonConsumable(product, of: owner, in: state),
            owned.transaction.appAccountToken != token
        {
            throw SubscriptionError(
                .subscribedWithAnotherAccount,
                detail: "The Apple ID \(owner) owns '\(product.id)' for another app account, or bought it outside the app.")
        }
    }

    /// The device's Apple ID; every transaction `audience` sees; the grace end of the
    /// latest transaction of each of those subscriptions in grace; and the number of the
    /// last grace event announced (the history includes it and every earlier one).
    func history(for audience: Audience) -> (
        appleID: AppleID, transactions: [StoreVerificationResult<AppStoreTransaction>], grace: [UInt64: Date], sequence: UInt64
    ) {
        state.withLock { state in
            let transactions = state.entries.keys.sorted().compactMap { state.entries[$0] }
                .filter { audience.sees($0, on: deviceAppleID(state)) }.map(\.result)
            var grace: [UInt64: Date] = [:]
            for subscription in state.subscriptions.values {
                guard let period = state.grace(of: subscription) else { continue }
                if audience.sees(owner: subscription.owner, token: subscription.appAccountToken, on: deviceAppleID(state)) {
                    grace[period.transactionID] = period.end
                }
                for share in state.shares(of: subscription.originalID) where audience.sees(owner: share.member, token: nil, on: deviceAppleID(state))
                {
                    grace[share.latestTransactionID] = period.end
                }
            }
            return (deviceAppleID(state), transactions, grace, state.sequence)
        }
    }

    /// The transactions `audience` sees, oldest first (by purchase date, then identifier:
    /// an approved Ask to Buy request keeps its earlier identifier); consumables the app
    /// finished only if asked for.
    func transactions(for audience: Audience, includingFinishedConsumables: Bool) -> [StoreVerificationResult<AppStoreTransaction>] {
        state.withLock { state in
            Self.oldestFirst(state.entries.values)
                .filter { entry in
                    audience.sees(entry, on: deviceAppleID(state))
                        && (includingFinishedConsumables || !entry.finished || entry.transaction.productType != .consumable)
                }
                .map(\.result)
        }
    }

    /// The transactions `audience` sees that the app has not finished, oldest first, each with its revision.
    func unfinished(for audience: Audience) -> [(result: StoreVerificationResult<AppStoreTransaction>, revision: Int)] {
        state.withLock { state in
            Self.oldestFirst(state.entries.values)
                .filter { !$0.finished && audience.sees($0, on: deviceAppleID(state)) }.map { ($0.result, $0.revision) }
        }
    }

    /// Marks a transaction `audience` sees finished; finishing twice does nothing.
    func finish(_ id: UInt64, for audience: Audience) throws(SubscriptionError) {
        try mutate { state, changes, _ throws(SubscriptionError) in
            guard var entry = state.entries[id] else { throw SubscriptionError(.transactionNotFound, detail: "No transaction \(id).") }
            guard audience.sees(entry, on: deviceAppleID(state)) else {
                throw SubscriptionError(.notYourTransaction, detail: "Transaction \(id) belongs to another account.")
            }
            guard !entry.finished else { return }
            entry.finished = true
            state.entries[id] = entry
            changes.entries.insert(id)
        }
    }

    /// The status of each subscription `audience` sees: its own, and each shared with it
    /// by its family group (as StoreKit lists both).
    func statuses(for audience: Audience) -> [RenewalStatus] {
        state.withLock { state in
            let shared = state.shares.values.filter { audience.sees(owner: $0.member, token: nil, on: deviceAppleID(state)) }.compactMap { share in
                state.subscriptions[share.purchase].map {
                    memberView(of: $0, for: share, revoked: state.entries[share.latestTransactionID]?.transaction.revocationDate != nil)
                }
            }
            return
                (state.subscriptions.values.filter { audience.sees(owner: $0.owner, token: $0.appAccountToken, on: deviceAppleID(state)) } + shared)
                .sorted { $0.originalID < $1.originalID }
                .compactMap { subscription in
                    guard let entry = state.entries[subscription.latestTransactionID] else { return nil }
                    let info = renewalInfo(of: subscription, in: state.settings.storefront.countryCode, state.settings.storefront.currencyCode)
                    return RenewalStatus(
                        state: subscription.state, transaction: entry.result,
                        renewalInfo: entry.verified ? .verified(info) : .unverified(info, .invalidSignature))
                }
        }
    }

    /// What `subscription`'s renewal info says: the group's win-back offers once it has
    /// lapsed, and the price of its next renewal in the storefront of `country`, in
    /// `currency` — the regular price of the product it renews into, or the price of the
    /// offer it renews at; none where that product is not sold.
    func renewalInfo(of subscription: StoreLedger.Subscription, in country: String?, _ currency: String?) -> RenewalInfo {
        let group = products.filter { $0.subscriptionGroupID == subscription.groupID }
        var info = subscription.renewalInfo(winBackOfferIDs: group.flatMap { $0.offers.filter { $0.type == .winBack }.compactMap(\.id) })
        guard let product = product(subscription.autoRenewPreference) else { return info }
        let regular = product.prices.isEmpty ? product.price : country.flatMap { product.prices[$0] }
        let offer = info.offer.flatMap { product.offer($0.type, id: $0.id) }
        info.renewalPrice = regular.map { offer?.price ?? $0 }
        info.currency = info.renewalPrice == nil ? nil : currency
        return info
    }
}
