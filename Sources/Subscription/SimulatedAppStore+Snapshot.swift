import Foundation
import TrainCore

/// A purchase as a world's snapshot holds it: who bought what, when, for which app
/// user, and for a subscription whose auto-renew is off, the end of its last period,
/// or whose renewal failed to bill, that renewal's date. Its renewals follow from
/// these, up to a later purchase in its group by the same Apple ID — a new
/// subscription after a lapse, an upgrade or a crossgrade — which is a purchase of
/// its own; other changes since are not part of it.
package struct StorePurchase: Hashable, Sendable {
    package var appleID: AppleID
    package var productID: String
    package var purchaseDate: Date
    package var appAccountToken: UUID?
    /// The end of the last period of a subscription that does not renew after it.
    package var expiresAt: Date?
    /// When such a subscription's auto-renew was turned off, if the store told it.
    package var autoRenewOffAt: Date?
    /// Another product of the group a subscription renews as from its renewals after
    /// `renewsAsSince` — a downgrade or a crossgrade asked for then — if it does.
    package var renewsAs: String?
    package var renewsAsSince: Date?
    /// When the purchase — for a subscription, its period then — was refunded, and why.
    package var refund: Refund?
    /// For a subscription whose renewal failed to bill and was not resolved since, the
    /// end of the period that renewal was due at — the end of the period that holds
    /// this date — and whether it went into its billing grace period, keeping access,
    /// before billing retry.
    package var billingFailedAt: Date?
    package var billingGracePeriod = false
    /// The offer it was bought with other than an introductory one, which the store
    /// gives by itself to those eligible: a promotional, win-back or offer-code offer of
    /// the product.
    package var offer: Offer?

    /// An offer of a product: its kind and identifier.
    package struct Offer: Hashable, Sendable {
        package var type: SubscriptionOffer.OfferType
        package var id: String

        package init(type: SubscriptionOffer.OfferType, id: String) {
            self.type = type
            self.id = id
        }
    }

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
    /// stack's access per app user, which an approval checks then.
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
            // What the Apple ID holds now is checked when the request is approved, as for one made in the app.
            _ = try checkPurchasable(product, offer: nil, owner: pending.appleID, in: state, now: now)
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
    /// by date, then Apple ID, then product: a world's export reads it, in an order a
    /// replay keeps. A subscription's purchase renews up
    /// to the next purchase in its group by the same Apple ID; when its last period
    /// ended before then (a lapse, auto-renew off) or ends later with auto-renew off,
    /// that period's end is its `expiresAt`; when the renewal after it failed to bill
    /// and none resolved it, that renewal's date is its `billingFailedAt`; its last
    /// period's refund is its refund.
    /// - Throws: ``TrainCore/TrainErrorCode/ledgerUnreadable`` for a ledger that cannot be read.
    package func purchases() throws(SubscriptionError) -> [StorePurchase] {
        // When each subscription's auto-renew was last turned off, from the notifications sent.
        settle()
        let notices = state.withLock { _ in Result { try ledger.read { try $0.values(in: StoreLedger.notifications) } } }
        guard case .success(let sent) = notices else {
            throw SubscriptionError(.ledgerUnreadable, detail: "The store's server notifications cannot be read.")
        }
        // The notifications of each subscription's changes of auto-renew and of what it
        // renews as, of its renewals that failed to bill and of those that resolved billing
        // issues, oldest first.
        var told: [UInt64: [StoreLedger.Notice]] = [:]
        for notice in sent
        where [.didChangeRenewalStatus, .didChangeRenewalPref, .didFailToRenew].contains(notice.type)
            || (notice.type == .didRenew && notice.subtype == .billingRecovery)
        {
            if let subscription = notice.subscription { told[subscription.originalID, default: []].append(notice) }
        }
        return try mutate { state, _, _ in
            // Each subscription's transactions in order: its purchases, each followed by its renewals.
            var chains: [UInt64: [AppStoreTransaction]] = [:]
            for id in state.entries.keys.sorted() {
                guard let transaction = state.entries[id]?.transaction, transaction.ownershipType == .purchased,
                    transaction.productType == .autoRenewable
                else { continue }
                chains[transaction.originalID, default: []].append(transaction)
            }
            let purchases = state.entries.keys.sorted().compactMap { id -> StorePurchase? in
                guard let entry = state.entries[id], entry.transaction.ownershipType == .purchased, entry.transaction.reason == .purchase else {
                    return nil
                }
                var purchase = StorePurchase(
                    appleID: entry.owner, productID: entry.transaction.productID, purchaseDate: entry.transaction.purchaseDate,
                    appAccountToken: entry.transaction.appAccountToken)
                if let offer = entry.transaction.offer, offer.type != .introductory, let id = offer.id {
                    purchase.offer = StorePurchase.Offer(type: offer.type, id: id)
                }
                guard entry.transaction.productType == .autoRenewable else {
                    purchase.refund = Self.refund(of: entry.transaction)
                    return purchase
                }
                // The periods this purchase started, up to the next purchase of the subscription.
                let chain = chains[entry.transaction.originalID] ?? []
                let run = chain.drop { $0.id != id }.prefix { $0.id == id || $0.reason != .purchase }
                guard let last = run.last else { return purchase }
                let next = chain.drop { $0.id != last.id }.dropFirst().first
                // What this purchase's run told, from its purchase to the next.
                let window = (told[entry.transaction.originalID] ?? []).filter {
                    $0.date >= entry.transaction.purchaseDate && $0.date < (next?.purchaseDate ?? .distantFuture)
                }
                let current = next == nil ? state.subscriptions[entry.transaction.originalID] : nil
                // A replay renews from the purchase: periods that started anew are ended as
                // the period of its schedule that their last one began in.
                let regular = followOneAnother(run, told: window, rate: state.settings.timeRate)
                let failure = regular ? Self.billingFailure(after: last, told: window, current: current) : nil
                purchase.billingFailedAt = failure?.date
                purchase.billingGracePeriod = failure?.grace ?? false
                purchase.refund = Self.refund(of: last)
                guard purchase.refund == nil else { return purchase }
                // What it renews as, when it is another product — a downgrade or crossgrade that
                // took effect at a renewal, or one still to — and since when, from the last
                // change told; without one, what its periods show.
                if let change = window.last(where: { $0.type == .didChangeRenewalPref }) {
                    if let preference = change.subscription?.autoRenewPreference, preference != entry.transaction.productID {
                        purchase.renewsAs = preference
                        purchase.renewsAsSince = change.date
                    }
                } else {
                    let preference = current?.autoRenewPreference
                    purchase.renewsAs = [last.productID, preference].compactMap { $0 }.last { $0 != entry.transaction.productID }
                }
                if let failedAt = purchase.billingFailedAt {
                    // Auto-renew turned off since, and not on again.
                    let change = window.last { $0.type == .didChangeRenewalStatus && $0.date >= failedAt }
                    purchase.autoRenewOffAt = change?.subtype == .autoRenewDisabled ? change?.date : nil
                } else if let next {
                    // Ended before the next purchase: it lapsed; an upgrade took over from a period that ran.
                    if !last.isUpgraded, let end = last.expirationDate, end <= next.purchaseDate {
                        purchase.expiresAt = regular ? end : last.purchaseDate
                    }
                } else if let current, current.state != .revoked,
                    !current.willAutoRenew || current.state == .expired || current.state == .inBillingRetryPeriod
                {
                    // Auto-renew off, or a failed renewal the replay cannot place: it ends with its last period.
                    purchase.expiresAt = regular ? current.periodEnd : last.purchaseDate
                }
                // When auto-renew was turned off, told within its last period.
                if let end = purchase.expiresAt {
                    purchase.autoRenewOffAt =
                        window.last {
                            $0.type == .didChangeRenewalStatus && $0.subtype == .autoRenewDisabled && $0.date >= last.purchaseDate
                                && $0.date <= end
                        }?.date
                }
                return purchase
            }
            return purchases.sorted { ($0.purchaseDate, $0.appleID.email, $0.productID) < ($1.purchaseDate, $1.appleID.email, $1.productID) }
        }
    }

    /// Renews `owner`'s subscription in the group of `product` up to `date`, then fails to
    /// bill the renewal at the end of the period that holds it — into the billing grace
    /// period with `grace`, into billing retry without — as the store's settings for it
    /// would have, without changing them.
    /// - Returns: The date of the renewal that failed.
    /// - Throws: `invalidArgument` when that period ends after `until`, or the
    ///   subscription has no renewal due then.
    private func failBilling(
        of product: AppStoreProduct, owner: AppleID, at date: Date, until: Date, grace: Bool, _ state: inout State, _ changes: inout Changes
    ) throws(SubscriptionError) -> Date {
        settle(&state, &changes, now: min(date, until))
        guard let subscription = subscription(inGroupOf: product, of: owner, in: state), subscription.state == .subscribed,
            subscription.willAutoRenew, subscription.periodEnd < until
        else {
            throw SubscriptionError(
                .invalidArgument,
                detail: "Its billingFailedAt falls in a period that renews after now, after its refund or after the next purchase of its group.")
        }
        let settings = state.settings
        defer { state.settings = settings }
        state.settings.shouldEnterBillingRetryOnRenewal = true
        state.settings.billingGracePeriodIsEnabled = grace
        settle(&state, &changes, now: min(subscription.periodEnd.addingTimeInterval(0.001), until))
        return subscription.periodEnd
    }

    /// Turns `subscription`'s auto-renew off, telling the server at `date` if given.
    private func turnAutoRenewOff(_ subscription: StoreLedger.Subscription, toldAt date: Date?, _ state: inout State, _ changes: inout Changes) {
        var subscription = subscription
        subscription.willAutoRenew = false
        state.subscriptions[subscription.originalID] = subscription
        changes.subscriptions.insert(subscription.originalID)
        if let date { notify(.didChangeRenewalStatus, .autoRenewDisabled, about: subscription, state: state, changes: &changes, now: date) }
    }

    /// The renewal after `last`, a purchase's last period, that failed to bill, if no
    /// renewal resolved it: its date and whether it went into the grace period, from the
    /// notification `told` of it — or, in a ledger older than the notifications, from the
    /// state of `current`, the subscription `last` is the last period of.
    private static func billingFailure(after last: AppStoreTransaction, told: [StoreLedger.Notice], current: StoreLedger.Subscription?)
        -> (date: Date, grace: Bool)?
    {
        if let notice = told.last(where: { $0.type == .didFailToRenew }) {
            return notice.date > last.purchaseDate ? (notice.date, notice.subtype == .gracePeriod) : nil
        }
        guard let current,
            current.state == .inGracePeriod || current.state == .inBillingRetryPeriod
                || (current.state == .expired && current.expirationReason == .billingError)
        else { return nil }
        return (current.periodEnd, current.state == .inGracePeriod)
    }

    /// Whether the periods of `run`, a purchase and its renewals, follow one another
    /// from the purchase as a replay makes them: each starting as the one before ends,
    /// or a whole number of periods later, where the store skipped periods at `rate`. A
    /// renewal forced early, or one that resolved billing retry, starts them anew.
    private func followOneAnother(_ run: some Collection<AppStoreTransaction>, told: [StoreLedger.Notice], rate: TimeRate) -> Bool {
        let recoveries = Set(told.filter { $0.type == .didRenew }.map(\.date))
        return zip(run, run.dropFirst()).allSatisfy { before, renewal in
            guard let end = before.expirationDate else { return false }
            if renewal.purchaseDate == end { return true }
            guard renewal.purchaseDate > end, !recoveries.contains(renewal.purchaseDate),
                let index = productIndex(before.productID), let period = products[index].period
            else { return false }
            // Skipped periods, counted as the store counts them when it skips — one more where
            // a fixed length falls a fraction short.
            guard let count = periodsPassed(period, from: end, to: renewal.purchaseDate, rate: rate) else { return false }
            return [count, count + 1].contains { $0 > 0 && periodEnd(of: period, from: end, rate: rate, periods: $0) == renewal.purchaseDate }
        }
    }

    /// A transaction's refund, if it was refunded.
    private static func refund(of transaction: AppStoreTransaction) -> StorePurchase.Refund? {
        transaction.revocationDate.map { StorePurchase.Refund(date: $0, reason: transaction.revocationReason ?? .other) }
    }

    /// Makes each purchase of `chain` — one purchase, or the purchases of one Apple ID
    /// in one subscription group, by date — as a purchase outside the app of its Apple
    /// ID, at its date, in one write: a world's import replays each chain. The store
    /// renews a subscription up to the next purchase of the chain, which takes over as a
    /// purchase in the app would (a new subscription after a lapse, an upgrade, a
    /// crossgrade), and the last up to now — or, for one with `expiresAt`, up to then,
    /// and turns its auto-renew off, so that it ends with the period that holds that
    /// date, telling the server at `autoRenewOffAt` if given; or, for a refunded one,
    /// up to the refund, which revokes its period then and sends its server notification.
    /// One with `billingFailedAt` renews up to the period that holds it, and that renewal
    /// fails to bill, into grace with `billingGracePeriod`; its auto-renew goes off at an
    /// `autoRenewOffAt` after. One bought with an `offer` is bought with it.
    /// - Parameters:
    ///   - chain: The purchases.
    ///   - failed: Set to the index in `chain` of the purchase refused, when one is.
    /// - Throws: The errors of ``buyOutsideApp(productID:appAccountToken:purchaseDate:)``
    ///   and, for an offer the Apple ID was not eligible for then, of a purchase with it;
    ///   `invalidArgument` for `expiresAt` on a product that does not renew, or not after
    ///   the purchase, for a refund before the purchase or with `expiresAt`, for
    ///   `billingFailedAt` on a product that does not renew, with `expiresAt`, after a
    ///   refund or in a period that ends after now or the next purchase, for a date after
    ///   the next purchase, and for a purchase of what the Apple ID holds then, which the
    ///   store would not sell again.
    package func replay(_ chain: [StorePurchase], failed: inout Int) throws(SubscriptionError) {
        guard let first = chain.first else { return }
        var products: [AppStoreProduct] = []
        for (index, purchase) in chain.enumerated() {
            failed = index
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
            if let failedAt = purchase.billingFailedAt {
                guard product.type == .autoRenewable, failedAt > purchase.purchaseDate, purchase.expiresAt == nil,
                    (purchase.refund?.date ?? .distantFuture) >= failedAt
                else {
                    throw SubscriptionError(
                        .invalidArgument,
                        detail: "Only a subscription that renews fails to bill, after it was bought and before a refund, not ending.")
                }
            }
            products.append(product)
        }
        let device = device(signedInTo: first.appleID)
        var current = 0
        defer { failed = current }
        try device.mutate { state, changes, now throws(SubscriptionError) in
            for (index, (purchase, product)) in zip(chain, products).enumerated() {
                current = index
                // Renewed up to the end given, the refund or the next purchase, whichever comes first.
                let next = index + 1 < chain.count ? chain[index + 1].purchaseDate : now
                let until = min(purchase.expiresAt ?? now, purchase.refund?.date ?? now, next, now)
                for (field, date) in [
                    ("renewsAsSince", purchase.renewsAsSince), ("autoRenewOffAt", purchase.autoRenewOffAt), ("refund", purchase.refund?.date),
                    ("billingFailedAt", purchase.billingFailedAt),
                ] {
                    guard let date, date > next else { continue }
                    throw SubscriptionError(
                        .invalidArgument, detail: "Its \(field) comes after the next purchase of its group, which takes over then.")
                }
                // A change of what it renews as is made at its date, and renews from then on.
                let changed = purchase.renewsAs.map { _ in min(purchase.renewsAsSince ?? purchase.purchaseDate, until) }
                // The store as at its date: an earlier purchase that lapsed before it has expired, and told so.
                device.settle(&state, &changes, now: purchase.purchaseDate)
                let made = state.nextID
                // Bought as at its date: what the Apple ID held then decides an upgrade from a new subscription.
                let bought = try device.buyBackdated(
                    product, token: purchase.appAccountToken, purchaseDate: purchase.purchaseDate, offer: purchase.offer.map { ($0.type, $0.id) },
                    state: &state,
                    changes: &changes, now: until, heldAsOfPurchase: true)
                // The store gives back what the Apple ID holds rather than buy it again.
                guard bought.unsafePayloadValue.id >= made else {
                    throw SubscriptionError(
                        .invalidArgument, detail: "The Apple ID holds '\(product.id)' already then: the App Store would not sell it again.")
                }
                let owner = device.deviceAppleID(state)
                // The renewal that failed to bill, before a change of what it renews as asked
                // for later, after one asked for before.
                var failedRenewal: Date?
                func failRenewal(_ state: inout State, _ changes: inout Changes) throws(SubscriptionError) {
                    guard failedRenewal == nil, let failedAt = purchase.billingFailedAt else { return }
                    failedRenewal = try device.failBilling(
                        of: product, owner: owner, at: failedAt, until: until, grace: purchase.billingGracePeriod, &state, &changes)
                }
                if let failedAt = purchase.billingFailedAt, failedAt <= changed ?? .distantFuture { try failRenewal(&state, &changes) }
                if let changed, let renewsAs = purchase.renewsAs {
                    device.settle(&state, &changes, now: changed)
                    if var subscription = device.subscription(inGroupOf: product, of: owner, in: state) {
                        subscription.autoRenewPreference = renewsAs
                        subscription.pendingOffer = nil
                        state.subscriptions[subscription.originalID] = subscription
                        changes.subscriptions.insert(subscription.originalID)
                        if purchase.renewsAsSince != nil {
                            device.notify(.didChangeRenewalPref, .downgrade, about: subscription, state: state, changes: &changes, now: changed)
                        }
                    }
                }
                try failRenewal(&state, &changes)
                if let failedRenewal, let offAt = purchase.autoRenewOffAt {
                    // Auto-renew turned off after the renewal failed, in billing retry or grace.
                    guard offAt >= failedRenewal else {
                        throw SubscriptionError(.invalidArgument, detail: "Auto-renew is turned off after the renewal that failed to bill.")
                    }
                    device.settle(&state, &changes, now: min(offAt, until))
                    if let subscription = device.subscription(inGroupOf: product, of: owner, in: state) {
                        device.turnAutoRenewOff(subscription, toldAt: offAt, &state, &changes)
                    }
                }
                device.settle(&state, &changes, now: until)
                if let refund = purchase.refund {
                    let latest =
                        product.type == .autoRenewable ? device.subscription(inGroupOf: product, of: owner, in: state)?.latestTransactionID : nil
                    try device.revoke(
                        latest ?? bought.unsafePayloadValue.id, reason: refund.reason, notifying: true, state: &state, changes: &changes, now: until)
                } else if purchase.expiresAt != nil, let subscription = device.subscription(inGroupOf: product, of: owner, in: state) {
                    // Turned off after it last renewed: before, it would not have renewed then.
                    if let offAt = purchase.autoRenewOffAt, let renewed = state.entries[subscription.latestTransactionID]?.transaction.purchaseDate,
                        offAt < renewed
                    {
                        throw SubscriptionError(.invalidArgument, detail: "Auto-renew is turned off within the last period, after its last renewal.")
                    }
                    device.turnAutoRenewOff(subscription, toldAt: purchase.autoRenewOffAt, &state, &changes)
                }
            }
        }
    }
}
