import Foundation
import TrainCore

/// Subscription time and the state machine: renewals, lapses, grace and billing
/// retry, purchases in a group.
extension SimulatedAppStore {
    func product(_ id: String) -> AppStoreProduct? {
        productIndex(id).map { products[$0] }
    }

    /// Where product `id` is in ``products``: the renewal path reads a product's fields
    /// in place there, as copying it retains each of its strings.
    func productIndex(_ id: String) -> Int? {
        products.firstIndex { $0.id == id }
    }

    /// The end of `periods` periods of `product` from `start`: calendar units in UTC
    /// in real time, fixed lengths at an accelerated rate. A product without a period
    /// (not a subscription) ends where it starts.
    func periodEnd(of product: AppStoreProduct, from start: Date, rate: TimeRate, periods: Int = 1) -> Date {
        guard let period = product.period else { return start }
        return periodEnd(of: period, from: start, rate: rate, periods: periods)
    }

    /// The end of `periods` of `period` from `start`, as ``periodEnd(of:from:rate:periods:)-(AppStoreProduct,_,_,_)``.
    func periodEnd(of period: BillingPeriod, from start: Date, rate: TimeRate, periods: Int = 1) -> Date {
        switch rate {
        case .realTime:
            return period.end(after: start, count: periods)
        case .monthlyRenewal(let every):
            return start.addingTimeInterval(every.timeInterval * period.months * Double(periods))
        case .oneRenewal(let every):
            return start.addingTimeInterval(every.timeInterval * Double(periods))
        case .oneSecondIsOneDay:
            let days: Double =
                switch period.unit {
                case .day: 1
                case .week: 7
                case .month: 30
                case .year: 365
                }
            return start.addingTimeInterval(days * Double(period.value) * Double(periods))
        }
    }

    /// Apple's grace period in real time: 6 days for a weekly subscription, 16 for longer periods.
    func gracePeriod(of product: AppStoreProduct?, _ rate: TimeRate) -> TimeInterval {
        let days: Double = product?.period.map { $0.months < 1 } == true ? 6 : 16
        return scaled(days * 86_400, rate)
    }

    /// 60 days in real time, as Apple's billing retry.
    func billingRetryPeriod(_ rate: TimeRate) -> TimeInterval {
        scaled(60 * 86_400, rate)
    }

    private func scaled(_ interval: TimeInterval, _ rate: TimeRate) -> TimeInterval {
        switch rate {
        case .realTime: interval
        case .monthlyRenewal(let every): interval * every.timeInterval / (30 * 86_400)
        case .oneRenewal(let every): every.timeInterval
        case .oneSecondIsOneDay: interval / 86_400
        }
    }

    // MARK: - The state machine

    /// Brings every subscription and pending purchase up to `now`.
    func settle(_ state: inout State, _ changes: inout Changes, now: Date) {
        // A non-renewing subscription's end writes nothing, but observers publish the tier.
        let passed = state.passEnds.prefix { $0 < now }.count
        if passed > 0 {
            state.passEnds.removeFirst(passed)
            changes.events.append(.status)
        }
        // Read in place: a subscription is copied only when it has something to do.
        var due: [UInt64] = []
        for index in state.subscriptions.indices where state.subscriptions.values[index].hasPassedBoundary(at: now) {
            due.append(state.subscriptions.keys[index])
        }
        due.sort()
        for id in due {
            guard var subscription = state.subscriptions[id] else { continue }
            if advance(&subscription, &state, &changes, now: now) {
                state.subscriptions[id] = subscription
                changes.subscriptions.insert(id)
            }
        }
        for (id, pending) in state.pending
        where pending.kind == .askToBuy
            && pending.requestedAt.addingTimeInterval(Self.askToBuyLifetime) < now
        {
            state.pending[id] = nil
            changes.pending.insert(id)
        }
    }

    /// Moves `subscription` through every boundary it has passed by `now`; returns
    /// whether it passed any.
    private func advance(_ subscription: inout StoreLedger.Subscription, _ state: inout State, _ changes: inout Changes, now: Date) -> Bool {
        // Older periods are skipped once the subscription renews into the product it
        // keeps: at the first renewal, or at the second when the first applies a pending
        // downgrade or crossgrade.
        var checkedSkip = false
        var advanced = false
        while true {
            switch subscription.state {
            case .subscribed where subscription.periodEnd < now:
                let at = subscription.periodEnd
                if !subscription.willAutoRenew {
                    subscription.state = .expired
                    subscription.expirationReason = .autoRenewDisabled
                    notify(.expired, .voluntary, about: subscription, state: state, changes: &changes, now: at)
                } else if subscription.priceIncrease == .pending {
                    subscription.state = .expired
                    subscription.expirationReason = .didNotConsentToPriceIncrease
                    notify(.expired, .priceIncrease, about: subscription, state: state, changes: &changes, now: at)
                } else if state.settings.shouldEnterBillingRetryOnRenewal {
                    subscription.retryEnd = subscription.periodEnd.addingTimeInterval(billingRetryPeriod(state.settings.timeRate))
                    // Apple's renewal info tells a billing issue by its intent while it lasts.
                    subscription.expirationReason = .billingError
                    if state.settings.billingGracePeriodIsEnabled {
                        subscription.state = .inGracePeriod
                        subscription.graceEnd = subscription.periodEnd.addingTimeInterval(
                            gracePeriod(of: product(subscription.productID), state.settings.timeRate))
                        notify(.didFailToRenew, .gracePeriod, about: subscription, state: state, changes: &changes, now: at)
                    } else {
                        subscription.state = .inBillingRetryPeriod
                        notify(.didFailToRenew, about: subscription, state: state, changes: &changes, now: at)
                    }
                } else {
                    // A renewal at an offer redeemed for it is recorded, never skipped.
                    if !checkedSkip, subscription.autoRenewPreference == subscription.productID, subscription.pendingOffer == nil {
                        skipOlderPeriods(&subscription, rate: state.settings.timeRate, now: now)
                        checkedSkip = true
                    }
                    renew(&subscription, &state, &changes, at: subscription.periodEnd)
                }
            case .inGracePeriod where (subscription.graceEnd ?? .distantPast) < now:
                let at = subscription.graceEnd ?? now
                subscription.state = .inBillingRetryPeriod
                subscription.graceEnd = nil
                notify(.gracePeriodExpired, about: subscription, state: state, changes: &changes, now: at)
            case .inBillingRetryPeriod where (subscription.retryEnd ?? .distantPast) < now:
                let at = subscription.retryEnd ?? now
                subscription.state = .expired
                subscription.expirationReason = .billingError
                subscription.retryEnd = nil
                notify(.expired, .billingRetry, about: subscription, state: state, changes: &changes, now: at)
            default:
                return advanced
            }
            advanced = true
        }
    }

    /// How many whole periods of `period` pass from `start` to `end` at `rate`: calendar
    /// units in real time, a fixed length at an accelerated rate; nil when they cannot
    /// be counted.
    func periodsPassed(_ period: BillingPeriod, from start: Date, to end: Date, rate: TimeRate) -> Int? {
        switch rate {
        case .realTime:
            return period.count(from: start, to: end)
        case .monthlyRenewal, .oneRenewal, .oneSecondIsOneDay:
            let length = periodEnd(of: period, from: start, rate: rate).timeIntervalSince(start)
            let periods = end.timeIntervalSince(start) / length
            guard length > 0, periods.isFinite else { return nil }
            return Int(min(max(periods, 0), 1e12))
        }
    }

    /// When more than ``maximumRenewalsPerSettle`` periods have passed, moves the
    /// subscription past the older ones without recording them, so that the latest
    /// renewals — what an app can see — are recorded in bounded time. The periods are
    /// counted exactly (calendar months in real time), so the skip never passes `now`.
    private func skipOlderPeriods(_ subscription: inout StoreLedger.Subscription, rate: TimeRate, now: Date) {
        guard let index = productIndex(subscription.productID), let period = products[index].period else { return }
        let start = subscription.periodEnd
        guard let due = periodsPassed(period, from: start, to: now, rate: rate) else { return }
        let skipped = due - Self.maximumRenewalsPerSettle
        guard skipped > 0 else { return }
        let end = periodEnd(of: period, from: start, rate: rate, periods: skipped)
        guard end < now else { return }
        subscription.periodEnd = end
        // The skipped periods use up as many of a pay-as-you-go offer's.
        subscription.offerPeriodsLeft = max(0, subscription.offerPeriodsLeft - skipped)
    }

    /// Starts the next period at `start`, in the product the subscription renews into,
    /// and sends `DID_RENEW` with `subtype` — or lapses, with `EXPIRED`, when that product
    /// is no longer for sale.
    func renew(
        _ subscription: inout StoreLedger.Subscription, _ state: inout State, _ changes: inout Changes, at start: Date,
        subtype: StoreNotificationSubtype? = nil
    ) {
        // A product gone from the catalog, or no longer an auto-renewable subscription with
        // a period (whose next period would end where it starts), is not renewed into.
        func renewable(_ id: String) -> Int? {
            productIndex(id).flatMap { products[$0].type == .autoRenewable && products[$0].period != nil ? $0 : nil }
        }
        let index = renewable(subscription.autoRenewPreference) ?? renewable(subscription.productID)
        guard let index, products[index].price(in: state.settings.storefront) != nil else {
            subscription.state = .expired
            subscription.expirationReason = .productUnavailable
            notify(.expired, .productNotForSale, about: subscription, state: state, changes: &changes, now: start)
            return
        }
        // An offer redeemed for this renewal; else the rest of a pay-as-you-go offer, while
        // it renews into the same product.
        // Only into the product it was redeemed for: a product gone from the catalog is not renewed into, nor its offer.
        let redeemed =
            products[index].id == subscription.autoRenewPreference
            ? subscription.pendingOffer.flatMap { products[index].offer($0.type, id: $0.id) } : nil
        let offer =
            redeemed
            ?? (subscription.offerPeriodsLeft > 0 && products[index].id == subscription.productID
                ? subscription.offer.flatMap { products[index].offer($0.type, id: $0.id) } : nil)
        let periodsLeft = offer == nil ? 0 : subscription.offerPeriodsLeft - 1
        let transaction = newTransaction(
            products[index], owner: subscription.owner, token: subscription.appAccountToken, originalID: subscription.originalID,
            purchaseDate: start, offer: offer, reason: .renewal, state: &state, changes: &changes, returnedByPurchase: false)
        if let redeemed {
            subscription.begin(transaction, offer: redeemed)
        } else {
            subscription.begin(transaction)
            subscription.offerPeriodsLeft = periodsLeft
        }
        if subscription.priceIncrease == .agreed { subscription.priceIncrease = .noIncreasePending }
        mirrorNewPeriod(of: subscription, state: &state, changes: &changes)
        notify(.didRenew, subtype, about: subscription, state: state, changes: &changes, now: start)
    }

    /// Records a new transaction of `owner`, tagged `token`, in the storefront, at
    /// `offer`'s price and for its period if there is one, and queues its announcement.
    @discardableResult
    func newTransaction(
        _ product: AppStoreProduct, owner: AppleID, token: UUID?, originalID: UInt64?, purchaseDate: Date, reservedID: UInt64? = nil,
        offer: SubscriptionOffer? = nil, reason: TransactionReason = .purchase, state: inout State, changes: inout Changes,
        returnedByPurchase: Bool
    ) -> AppStoreTransaction {
        let id = reservedID ?? state.nextID
        if reservedID == nil { state.nextID += 1 }
        let renews = product.type == .autoRenewable
        let end =
            offer.map { periodEnd(of: $0.period, from: purchaseDate, rate: state.settings.timeRate) }
            ?? periodEnd(of: product, from: purchaseDate, rate: state.settings.timeRate)
        let transaction = AppStoreTransaction(
            id: id, originalID: originalID ?? id, productID: product.id, productType: product.type,
            subscriptionGroupID: renews ? product.subscriptionGroupID : nil, purchaseDate: purchaseDate,
            expirationDate: renews ? end : nil, appAccountToken: token, environment: app.withLock { $0.environment },
            offer: offer.map(TransactionOffer.init),
            price: offer?.price ?? product.price(in: state.settings.storefront) ?? product.price,
            currency: state.settings.storefront.currencyCode, reason: reason,
            originalPurchaseDate: originalID.flatMap { originalPurchaseDate(of: $0, in: state) } ?? purchaseDate,
            storefrontCountryCode: state.settings.storefront.countryCode)
        if product.type == .nonRenewable, let period = product.period {
            let end = period.end(after: purchaseDate)
            state.passEnds.insert(end, at: state.passEnds.firstIndex { $0 > end } ?? state.passEnds.endIndex)
        }
        let entry = StoreLedger.Entry(transaction: transaction, owner: owner, verified: !state.settings.producesUnverifiedTransactions)
        changes.events.append(.transaction(entry.result, owner: owner, revision: entry.revision, returnedByPurchase: returnedByPurchase))
        state.entries[id] = entry // its last use: moved into the ledger, not copied
        // A renewal or upgrade continues a subscription whose owner joined its group already.
        if originalID == nil, let group = transaction.subscriptionGroupID {
            state.groupsJoined.insert(GroupMember(group: group, owner: owner))
        }
        if product.type == .nonConsumable { state.nonConsumables[owner, default: []].append(id) }
        changes.entries.insert(id)
        return transaction
    }

    /// When the subscription `originalID` was first bought: as its latest transaction
    /// says, so that it holds after its first transaction is deleted.
    private func originalPurchaseDate(of originalID: UInt64, in state: State) -> Date? {
        let latest = state.subscriptions[originalID].flatMap { state.entries[$0.latestTransactionID] }
        return latest?.transaction.originalPurchaseDate ?? state.entries[originalID]?.transaction.purchaseDate
    }

    /// Changes a stored transaction and queues its announcement.
    func update(_ id: UInt64, _ state: inout State, _ changes: inout Changes, _ body: (inout AppStoreTransaction) -> Void) {
        guard var entry = state.entries[id] else { return }
        body(&entry.transaction)
        entry.revision += 1
        state.entries[id] = entry
        changes.entries.insert(id)
        changes.events.append(.transaction(entry.result, owner: entry.owner, revision: entry.revision, returnedByPurchase: false))
    }

    /// Buys `product` for `owner`, tagged `token`, at `date`: a new subscription, a
    /// resubscription, an immediate upgrade or crossgrade to a product of the same
    /// period, or a downgrade or crossgrade to another period that waits for the next
    /// renewal — Apple's rules, for the one subscription the Apple ID has in the group.
    /// Renewals carry the tag of the subscription's latest purchase that made a
    /// transaction (a downgrade makes none until the renewal).
    ///
    /// An Apple ID new to the group gets the product's introductory offer by itself;
    /// `offer` asks for a promotional, offer-code or win-back offer, checked against what
    /// the Apple ID has had in the group.
    /// - Parameters:
    ///   - offer: The kind and identifier of the offer asked for, if any.
    ///   - transactionID: The identifier a waiting purchase was listed under, for the
    ///     transaction it makes; a new one otherwise.
    /// - Throws: ``TrainCore/TrainErrorCode/invalidOfferIdentifier`` for an offer the
    ///   product does not have; ``TrainCore/TrainErrorCode/ineligibleForOffer`` for one the
    ///   Apple ID may not have, or asked for with a purchase that does not start a period now.
    func buy(
        _ product: AppStoreProduct, owner: AppleID, token: UUID?, at date: Date, returnedByPurchase: Bool,
        offer request: (type: SubscriptionOffer.OfferType, id: String)? = nil, transactionID: UInt64? = nil,
        state: inout State, changes: inout Changes, now: Date
    ) throws(SubscriptionError) -> StoreVerificationResult<AppStoreTransaction> {
        let requested = try checkPurchasable(product, offer: request, owner: owner, in: state, now: now)
        guard product.type == .autoRenewable else {
            return buyOnce(
                product, owner: owner, token: token, at: date, returnedByPurchase: returnedByPurchase, transactionID: transactionID,
                state: &state, changes: &changes, now: now)
        }
        let existing = subscription(inGroupOf: product, of: owner, in: state)
        if var subscription = existing, subscription.grantsAccess(at: now), let current = self.product(subscription.productID) {
            let latest = subscription.latestTransactionID
            if !Self.startsNow(product, after: current), let requested {
                // An offer on the current product, or with a downgrade or a crossgrade to
                // another period, applies from the next renewal, as Apple applies it.
                try redeemForNextRenewal(requested, of: product, current: current, in: &subscription, state: &state, changes: &changes, now: now)
                return state.entries[latest]?.result
                    ?? .verified(AppStoreTransaction(id: latest, productID: current.id, purchaseDate: date, expirationDate: nil))
            }
            if !Self.startsNow(product, after: current) {
                // Downgrade, or crossgrade to another period: it takes effect at the next
                // renewal. The same product: nothing to buy, but a pending downgrade is
                // cancelled and auto-renew is on again, as StoreKit does.
                if subscription.autoRenewPreference != product.id || !subscription.willAutoRenew {
                    let before = subscription
                    if subscription.autoRenewPreference != product.id { subscription.pendingOffer = nil }
                    subscription.autoRenewPreference = product.id
                    subscription.willAutoRenew = true
                    state.subscriptions[subscription.originalID] = subscription
                    changes.subscriptions.insert(subscription.originalID)
                    if before.autoRenewPreference != product.id {
                        notify(
                            .didChangeRenewalPref, product.id == current.id ? nil : .downgrade, about: subscription, state: state,
                            changes: &changes, now: now)
                    }
                    if !before.willAutoRenew {
                        notify(.didChangeRenewalStatus, .autoRenewEnabled, about: subscription, state: state, changes: &changes, now: now)
                    }
                }
                return state.entries[latest]?.result
                    ?? .verified(AppStoreTransaction(id: latest, productID: current.id, purchaseDate: date, expirationDate: nil))
            }
            // Upgrade, or crossgrade to the same period: immediate; the old transaction is marked upgraded.
            update(latest, &state, &changes) { $0.isUpgraded = true }
            mirrorChange(of: subscription.originalID, state: &state, changes: &changes) { $0.isUpgraded = true }
            let transaction = newTransaction(
                product, owner: owner, token: token, originalID: subscription.originalID, purchaseDate: date, reservedID: transactionID,
                offer: requested, state: &state, changes: &changes, returnedByPurchase: returnedByPurchase)
            subscription.begin(transaction, offer: requested)
            state.subscriptions[subscription.originalID] = subscription
            changes.subscriptions.insert(subscription.originalID)
            mirrorNewPeriod(of: subscription, state: &state, changes: &changes)
            notify(
                requested == nil ? .didChangeRenewalPref : .offerRedeemed, .upgrade, about: subscription, state: state, changes: &changes, now: date)
            return state.entries[transaction.id]?.result ?? .verified(transaction)
        }
        let firstInGroup = isEligibleForIntroOffer(product.subscriptionGroupID, owner: owner, in: state)
        let offer = requested ?? (firstInGroup ? product.introductoryOffer : nil)
        let transaction = newTransaction(
            product, owner: owner, token: token, originalID: existing?.originalID, purchaseDate: date, reservedID: transactionID,
            offer: offer, state: &state, changes: &changes, returnedByPurchase: returnedByPurchase)
        var subscription = StoreLedger.Subscription(
            originalID: transaction.originalID, groupID: product.subscriptionGroupID ?? "", owner: owner, appAccountToken: token,
            productID: product.id, latestTransactionID: transaction.id, periodEnd: transaction.expirationDate ?? date,
            autoRenewPreference: product.id)
        subscription.begin(transaction, offer: offer)
        // Tenure goes on over a lapse shorter than 60 days.
        let lapse = existing.map { date.timeIntervalSince($0.periodEnd) } ?? .infinity
        subscription.recentStart = lapse < billingRetryPeriod(state.settings.timeRate) ? existing?.recentStart ?? date : date
        state.subscriptions[subscription.originalID] = subscription
        changes.subscriptions.insert(subscription.originalID)
        // Dated when it was bought: a purchase made earlier (a world's replay, a backdated one) is told at its date.
        notify(.subscribed, firstInGroup ? .initialBuy : .resubscribe, about: subscription, state: state, changes: &changes, now: date)
        shareWithFamily(subscription, state: &state, changes: &changes, now: date)
        return state.entries[transaction.id]?.result ?? .verified(transaction)
    }

    /// Redeems `offer` of `product` for `subscription`'s next renewal, while it is in
    /// `current`: what renews becomes `product`, at the offer, with auto-renew on;
    /// `OFFER_REDEEMED` is sent, with `DOWNGRADE` for another product.
    /// - Throws: ``TrainCore/TrainErrorCode/ineligibleForOffer`` when that offer is
    ///   redeemed for the next renewal already; nothing changes then.
    private func redeemForNextRenewal(
        _ offer: SubscriptionOffer, of product: AppStoreProduct, current: AppStoreProduct, in subscription: inout StoreLedger.Subscription,
        state: inout State, changes: inout Changes, now: Date
    ) throws(SubscriptionError) {
        let pending = TransactionOffer(offer)
        guard subscription.pendingOffer != pending || subscription.autoRenewPreference != product.id else {
            throw SubscriptionError(
                .ineligibleForOffer, detail: "The offer '\(offer.id ?? offer.type.rawValue)' is redeemed for the next renewal already.")
        }
        let wasRenewing = subscription.willAutoRenew
        subscription.autoRenewPreference = product.id
        subscription.willAutoRenew = true
        subscription.pendingOffer = pending
        state.subscriptions[subscription.originalID] = subscription
        changes.subscriptions.insert(subscription.originalID)
        notify(.offerRedeemed, product.id == current.id ? nil : .downgrade, about: subscription, state: state, changes: &changes, now: now)
        if !wasRenewing {
            notify(.didChangeRenewalStatus, .autoRenewEnabled, about: subscription, state: state, changes: &changes, now: now)
        }
    }

    /// Checks that `product` can be bought now: whole, sold in the storefront, and with
    /// the offer asked for, which it returns.
    func checkPurchasable(
        _ product: AppStoreProduct, offer request: (type: SubscriptionOffer.OfferType, id: String)?, owner: AppleID, in state: State, now: Date
    ) throws(SubscriptionError) -> SubscriptionOffer? {
        try product.validate()
        guard product.price(in: state.settings.storefront) != nil else {
            throw SubscriptionError(.productUnavailable, detail: "'\(product.id)' is not sold in the \(state.settings.storefront) storefront.")
        }
        return try requestedOffer(request, of: product, owner: owner, in: state, now: now)
    }

    /// Whether `owner` has never had a transaction in `group`, so its first purchase
    /// there gets the introductory offer — a trial counts, a refunded one too.
    func isEligibleForIntroOffer(_ group: String?, owner: AppleID, in state: State) -> Bool {
        guard let group else { return false }
        return !state.groupsJoined.contains(GroupMember(group: group, owner: owner))
    }

    /// Whether buying `product` while subscribed to `current` starts a period now (an
    /// upgrade, or a crossgrade to the same period) rather than changing what renews (the
    /// same product, a downgrade, or a crossgrade to another period).
    package static func startsNow(_ product: AppStoreProduct, after current: AppStoreProduct) -> Bool {
        product.id != current.id && (product.tier > current.tier || (product.tier == current.tier && product.period == current.period))
    }

    /// The offer `request` asks for, checked as Apple documents eligibility: a
    /// promotional offer for a current or past subscriber of the group, a win-back offer
    /// for a past one whose subscription has lapsed, an offer code for anyone. On a
    /// purchase that starts no period now — the current product, a downgrade — it
    /// applies from the next renewal.
    private func requestedOffer(
        _ request: (type: SubscriptionOffer.OfferType, id: String)?, of product: AppStoreProduct, owner: AppleID, in state: State, now: Date
    ) throws(SubscriptionError) -> SubscriptionOffer? {
        guard let request else { return nil }
        guard product.type == .autoRenewable, request.type != .introductory, let offer = product.offer(request.type, id: request.id) else {
            throw SubscriptionError(.invalidOfferIdentifier, detail: "'\(product.id)' has no \(request.type.rawValue) offer '\(request.id)'.")
        }
        let subscription = subscription(inGroupOf: product, of: owner, in: state)
        let eligible: Bool
        switch request.type {
        case .promotional: eligible = !isEligibleForIntroOffer(product.subscriptionGroupID, owner: owner, in: state)
        case .winBack: eligible = subscription?.state == .expired
        case .code: eligible = true
        case .introductory: eligible = false
        }
        guard eligible else {
            throw SubscriptionError(
                .ineligibleForOffer,
                detail: "The Apple ID \(owner) may not buy '\(product.id)' with the \(request.type.rawValue) offer '\(request.id)'.")
        }
        return offer
    }

    /// Buys a product that does not renew. A non-consumable the Apple ID owns (bought and
    /// not refunded) is not bought again: its transaction comes back, as StoreKit 2's
    /// `purchase()` returns it. A non-renewing subscription or a consumable is a new
    /// transaction each time, also while an earlier one is unfinished.
    private func buyOnce(
        _ product: AppStoreProduct, owner: AppleID, token: UUID?, at date: Date, returnedByPurchase: Bool, transactionID: UInt64?,
        state: inout State, changes: inout Changes, now: Date
    ) -> StoreVerificationResult<AppStoreTransaction> {
        if product.type == .nonConsumable, let owned = ownedNonConsumable(product, of: owner, in: state) {
            return owned.result
        }
        let transaction = newTransaction(
            product, owner: owner, token: token, originalID: nil, purchaseDate: date, reservedID: transactionID, state: &state,
            changes: &changes, returnedByPurchase: returnedByPurchase)
        notify(.oneTimeCharge, transactionID: transaction.id, subscription: nil, state: state, changes: &changes, now: date)
        if product.type == .nonConsumable { shareWithFamily(nonConsumable: transaction, of: owner, state: &state, changes: &changes, now: now) }
        return state.entries[transaction.id]?.result ?? .verified(transaction)
    }

    /// The transaction by which `owner` owns the non-consumable `product`: its first one
    /// not refunded.
    func ownedNonConsumable(_ product: AppStoreProduct, of owner: AppleID, in state: State) -> StoreLedger.Entry? {
        state.entries.values.filter { $0.owner == owner && $0.transaction.productID == product.id && $0.transaction.revocationDate == nil }
            .min { $0.transaction.id < $1.transaction.id }
    }

    /// The subscription `owner` has in `product`'s group. There is one at most, but in a
    /// ledger written before purchases had an Apple ID, where each app user had their
    /// own: then the one that is active (subscribed or in grace) with the latest
    /// transaction, so every call picks the same one.
    func subscription(inGroupOf product: AppStoreProduct, of owner: AppleID, in state: State) -> StoreLedger.Subscription? {
        state.subscriptions.values.filter { $0.groupID == product.subscriptionGroupID && $0.owner == owner }.max { lhs, rhs in
            func rank(_ subscription: StoreLedger.Subscription) -> (Int, UInt64) {
                (subscription.state == .subscribed || subscription.state == .inGracePeriod ? 1 : 0, subscription.latestTransactionID)
            }
            return rank(lhs) < rank(rhs)
        }
    }

    /// With access per app user, the Apple ID's subscription in `product`'s group that
    /// grants access and is not `token`'s — another app user's, or untagged (bought
    /// outside the app) — which a purchase tagged `token` must not change.
    func subscriptionOfAnotherAccount(
        inGroupOf product: AppStoreProduct, of owner: AppleID, token: UUID?, in state: State, now: Date
    ) -> StoreLedger.Subscription? {
        guard let current = subscription(inGroupOf: product, of: owner, in: state), current.grantsAccess(at: now),
            current.appAccountToken != token
        else { return nil }
        return current
    }

    /// The subscription the device's Apple ID has in `productID`'s group.
    func subscriptionID(for productID: String, in state: State) throws(SubscriptionError) -> UInt64 {
        guard let product = product(productID) else { throw SubscriptionError(.productNotFound, detail: "No product '\(productID)'.") }
        guard product.type == .autoRenewable, let subscription = subscription(inGroupOf: product, of: deviceAppleID(state), in: state) else {
            throw SubscriptionError(
                .notSubscribed, detail: "The Apple ID \(deviceAppleID(state)) has no subscription in the group of '\(productID)'.")
        }
        return subscription.originalID
    }
}
