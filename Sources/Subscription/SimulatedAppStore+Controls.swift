import Foundation
import TrainCore

/// The test controls, named after `SKTestSession`'s where it has one.
extension SimulatedAppStore {
    private func setting<Value: Sendable>(_ keyPath: WritableKeyPath<Settings, Value> & Sendable) -> Value {
        state.withLock { $0.settings[keyPath: keyPath] }
    }

    /// Changes a setting from now on: what was due before the change (a renewal whose
    /// date has passed) is settled first, under the settings it was due under.
    private func set<Value: Sendable>(_ keyPath: WritableKeyPath<Settings, Value> & Sendable, _ value: Value) {
        settle()
        state.withLock { $0.settings[keyPath: keyPath] = value }
    }

    /// Whether purchases wait for a parent's approval (`SKTestSession.askToBuyEnabled`).
    public var askToBuyEnabled: Bool {
        get { setting(\.askToBuyEnabled) }
        set { set(\.askToBuyEnabled, newValue) }
    }

    /// Whether purchases are interrupted until resolved (`interruptedPurchasesEnabled`).
    public var interruptedPurchasesEnabled: Bool {
        get { setting(\.interruptedPurchasesEnabled) }
        set { set(\.interruptedPurchasesEnabled, newValue) }
    }

    /// Whether renewals fail to bill and enter billing retry (or grace, if enabled).
    public var shouldEnterBillingRetryOnRenewal: Bool {
        get { setting(\.shouldEnterBillingRetryOnRenewal) }
        set { set(\.shouldEnterBillingRetryOnRenewal, newValue) }
    }

    /// Whether a failed renewal first enters the billing grace period (`billingGracePeriodIsEnabled`).
    public var billingGracePeriodIsEnabled: Bool {
        get { setting(\.billingGracePeriodIsEnabled) }
        set { set(\.billingGracePeriodIsEnabled, newValue) }
    }

    /// Whether new transactions fail verification (they never grant access).
    public var producesUnverifiedTransactions: Bool {
        get { setting(\.producesUnverifiedTransactions) }
        set { set(\.producesUnverifiedTransactions, newValue) }
    }

    /// The error every purchase fails with, or nil (`failTransactionsEnabled` with
    /// `failureError`): ``simulatedError(for:)`` of ``StoreAPI/purchase``.
    public var purchaseFailure: SubscriptionError.Code? {
        get { simulatedError(for: .purchase) }
        set { setSimulatedError(newValue, for: .purchase) }
    }

    /// Makes every call of `api` fail with `code`, or succeed again with nil, as
    /// `SKTestSession.setSimulatedError(_:forAPI:)` does: StoreKit's error kinds are the
    /// codes of ``SubscriptionError``, such as ``TrainCore/TrainErrorCode/networkError``,
    /// ``TrainCore/TrainErrorCode/systemError``, ``TrainCore/TrainErrorCode/paymentNotAllowed``
    /// or ``TrainCore/TrainErrorCode/productUnavailable``.
    /// - Parameters:
    ///   - code: The error, or nil.
    ///   - api: The store call.
    public func setSimulatedError(_ code: SubscriptionError.Code?, for api: StoreAPI) {
        settle()
        state.withLock { $0.settings.failures[api] = code }
    }

    /// The error `api` fails with, if a test chose one.
    /// - Parameter api: The store call.
    /// - Returns: The error's code, or nil.
    public func simulatedError(for api: StoreAPI) -> SubscriptionError.Code? {
        state.withLock { $0.settings.failures[api] }
    }

    /// Whether the user dismisses the purchase sheet: purchases return `.userCancelled`.
    public var userCancelsPurchases: Bool {
        get { setting(\.userCancelsPurchases) }
        set { set(\.userCancelsPurchases, newValue) }
    }

    /// How long the user looks at the purchase sheet, on the store's clock; during it
    /// the purchase is in progress.
    public var purchaseSheetDelay: Duration {
        get { setting(\.purchaseSheetDelay) }
        set { set(\.purchaseSheetDelay, max(.zero, newValue)) }
    }

    /// The storefront the device's Apple ID buys in (`SKTestSession.storefront`): the
    /// products sold there, at its prices and in its currency. The United States until a
    /// test changes it; it lasts for the instance, as test settings do.
    public var storefront: StoreStorefront {
        get { setting(\.storefront) }
        set { set(\.storefront, newValue) }
    }

    /// The locale the store writes product names in (`SKTestSession.locale`): `en_US`
    /// until a test changes it; it lasts for the instance, as test settings do.
    public var locale: Locale {
        get { setting(\.locale) }
        set { set(\.locale, newValue) }
    }

    /// The products sold in the storefront, each at its price there and with its name in
    /// the store's locale.
    public var productsInStorefront: [AppStoreProduct] {
        let (storefront, locale) = state.withLock { ($0.settings.storefront, $0.settings.locale) }
        return products.compactMap { product in
            guard let price = product.price(in: storefront) else { return nil }
            var local = product
            local.price = price
            local.displayName = product.displayName(for: locale)
            return local
        }
    }

    /// How fast subscription time runs for periods that start from now on.
    public var timeRate: TimeRate { setting(\.timeRate) }

    /// Changes the time rate (`SKTestSession.timeRate`).
    /// - Parameter rate: The rate.
    /// - Throws: ``TrainCore/TrainErrorCode/invalidTimeRate`` unless a month, or a
    ///   renewal, lasts from one second to a century.
    public func setTimeRate(_ rate: TimeRate) throws(SubscriptionError) {
        switch rate {
        case .monthlyRenewal(let every) where every < .seconds(1) || every > Self.longestRenewal,
            .oneRenewal(let every) where every < .seconds(1) || every > Self.longestRenewal:
            throw SubscriptionError(
                .invalidTimeRate, detail: "A simulated month or renewal must last from one second to a century, not \(every).")
        default:
            break
        }
        set(\.timeRate, rate)
    }

    /// The Apple ID signed in to the device: in-app purchases and the controls act on its
    /// subscriptions. ``AppleID/standard`` until a test switches it; a file-backed store
    /// keeps it across launches, as a device stays signed in. Each device of
    /// ``device(signedInTo:)`` has its own.
    public var appleID: AppleID {
        settle()
        return state.withLock { deviceAppleID($0) }
    }

    /// Signs the device in to another Apple ID, as Settings does. What the previous one
    /// bought stays with it, and comes back when it signs in again; services on this
    /// store recompute their entitlements. On a device of ``device(signedInTo:)`` only
    /// that device changes.
    /// - Parameter appleID: The Apple ID.
    /// - Throws: ``TrainCore/TrainErrorCode/ledgerUnreadable`` if the change cannot be written.
    public func switchAppleID(to appleID: AppleID) throws(SubscriptionError) {
        try mutate { state, changes, _ throws(SubscriptionError) in
            guard deviceAppleID(state) != appleID else { return }
            if let device { device.withLock { $0 = appleID } } else { state.appleID = appleID }
            changes.device = device == nil
            changes.events.append(.reloaded)
        }
    }

    /// Purchases waiting for approval or resolution.
    public var pendingPurchases: [PendingPurchase] {
        settle()
        return state.withLock { $0.pending.values.sorted { ($0.requestedAt, $0.id) < ($1.requestedAt, $1.id) } }
    }

    /// Every transaction in the ledger, by identifier: the order they were made, but
    /// for a purchase approved or resolved after a wait, which keeps the identifier it
    /// was listed under while it waited.
    public var allTransactions: [StoreVerificationResult<AppStoreTransaction>] {
        settle()
        return state.withLock { state in state.entries.keys.sorted().compactMap { state.entries[$0]?.result } }
    }

    /// The store's transaction list as `SKTestSession.allTransactions()` returns it: every
    /// transaction, and every purchase waiting for Ask to Buy or an interruption under
    /// the identifier it will be bought with, by identifier.
    public var testTransactions: [StoreTestTransaction] {
        settle()
        return state.withLock { state in
            (state.entries.values.map { StoreTestTransaction($0.result) } + state.pending.values.map(StoreTestTransaction.init))
                .sorted { $0.id < $1.id }
        }
    }

    /// Buys a product for the device's Apple ID outside the app (on another device, or
    /// from an offer code); the transaction reaches the app on its updates stream. A
    /// `purchaseDate` in the past backdates it, with its server notification, and a
    /// subscription renews up to now.
    /// - Parameters:
    ///   - productID: The product.
    ///   - appAccountToken: The app user it is tagged for; none by default, as a purchase
    ///     made outside the app usually has.
    ///   - purchaseDate: When it was bought; now by default.
    /// - Returns: The transaction of the first period.
    /// - Throws: ``TrainCore/TrainErrorCode/productNotFound``; ``TrainCore/TrainErrorCode/invalidArgument``
    ///   for an incomplete product (see ``AppStoreProduct/validate()``), a purchase date that
    ///   is not a real date or is more than a century ago, or a subscription backdated by
    ///   more than ``maximumBackdatedPeriods`` periods.
    @discardableResult
    public func buyOutsideApp(productID: String, appAccountToken: UUID? = nil, purchaseDate: Date? = nil) throws(SubscriptionError)
        -> StoreVerificationResult<AppStoreTransaction>
    {
        guard let product = product(productID) else { throw SubscriptionError(.productNotFound, detail: "No product '\(productID)'.") }
        return try mutate { state, changes, now throws(SubscriptionError) in
            try buyBackdated(product, token: appAccountToken, purchaseDate: purchaseDate, state: &state, changes: &changes, now: now)
        }
    }

    /// A purchase of `product` outside the app by this device's Apple ID at
    /// `purchaseDate` (now if nil or later), with `offer` if given, renewed up to `now`; with `heldAsOfPurchase`,
    /// what the Apple ID holds is taken as it stood at the purchase, whose caller has
    /// settled the store up to then — an upgrade then is one, whatever lapsed since.
    func buyBackdated(
        _ product: AppStoreProduct, token: UUID?, purchaseDate: Date?, offer: (type: SubscriptionOffer.OfferType, id: String)? = nil,
        state: inout State, changes: inout Changes, now: Date, heldAsOfPurchase: Bool = false
    ) throws(SubscriptionError) -> StoreVerificationResult<AppStoreTransaction> {
        let date = min(purchaseDate ?? now, now)
        guard date.timeIntervalSinceReferenceDate.isFinite, now.timeIntervalSince(date) <= Self.maximumBackdating else {
            throw SubscriptionError(.invalidArgument, detail: "A purchase date is a real date at most a century ago.")
        }
        let periodLength = periodEnd(of: product, from: date, rate: state.settings.timeRate).timeIntervalSince(date)
        guard product.type != .autoRenewable || periodLength > 0,
            product.type != .autoRenewable || now.timeIntervalSince(date) / periodLength <= Double(Self.maximumBackdatedPeriods)
        else {
            throw SubscriptionError(
                .invalidArgument, detail: "A purchase may be backdated by at most \(Self.maximumBackdatedPeriods) renewal periods.")
        }
        return try buy(
            product, owner: deviceAppleID(state), token: token, at: date, returnedByPurchase: false, offer: offer, state: &state,
            changes: &changes, now: heldAsOfPurchase ? date : now)
    }

    /// Makes `codes` redeemable, once each, for the offer-code offer `offerID` of
    /// `productID`, as the codes an app's team hands out. Codes are letters and digits,
    /// 1 to 64 of them, and compare without regard to case; they last for the instance,
    /// as test settings do.
    /// - Parameters:
    ///   - codes: The codes.
    ///   - productID: An auto-renewable subscription.
    ///   - offerID: Its offer of type ``SubscriptionOffer/OfferType/code``.
    /// - Throws: ``TrainCore/TrainErrorCode/productNotFound``; ``TrainCore/TrainErrorCode/invalidOfferIdentifier``
    ///   if the product has no such offer; ``TrainCore/TrainErrorCode/invalidArgument`` for
    ///   an incomplete product or a code that is not 1 to 64 letters and digits. Nothing
    ///   is added then.
    public func addOfferCodes(_ codes: [String], productID: String, offerID: String) throws(SubscriptionError) {
        guard let product = product(productID) else { throw SubscriptionError(.productNotFound, detail: "No product '\(productID)'.") }
        try product.validate()
        guard product.offer(.code, id: offerID) != nil else {
            throw SubscriptionError(.invalidOfferIdentifier, detail: "'\(productID)' has no offer-code offer '\(offerID)'.")
        }
        var normalized: [String] = []
        for code in codes {
            guard let valid = Self.offerCode(code) else {
                throw SubscriptionError(.invalidArgument, detail: "An offer code is 1 to 64 letters and digits, not '\(code)'.")
            }
            normalized.append(valid)
        }
        settle()
        state.withLock { state in
            for code in normalized { state.settings.offerCodes[code] = OfferCode(productID: productID, offerID: offerID) }
        }
    }

    /// Redeems an offer code for the device's Apple ID, as the App Store's redemption
    /// sheet does: a subscription starts at the code's offer and reaches the app on its
    /// updates stream, or — for a subscriber of the group, where the code's product does
    /// not start a period now (the current product, a downgrade) — the offer applies from
    /// the next renewal, with `OFFER_REDEEMED`. The code is used up.
    /// - Parameters:
    ///   - code: The code, in any case.
    ///   - appAccountToken: The app user it is tagged for; none by default.
    /// - Returns: The transaction of the first period.
    /// - Throws: ``TrainCore/TrainErrorCode/invalidOfferCode`` for a code that is unknown
    ///   or used up; ``TrainCore/TrainErrorCode/ineligibleForOffer`` when its offer is
    ///   redeemed for the next renewal already (the code is kept).
    @discardableResult
    public func redeemOfferCode(_ code: String, appAccountToken: UUID? = nil) throws(SubscriptionError)
        -> StoreVerificationResult<AppStoreTransaction>
    {
        try mutate { state, changes, now throws(SubscriptionError) in
            guard let key = Self.offerCode(code), let target = state.settings.offerCodes[key], let product = product(target.productID) else {
                throw SubscriptionError(.invalidOfferCode, detail: "No unused offer code '\(code)'.")
            }
            let result = try buy(
                product, owner: deviceAppleID(state), token: appAccountToken, at: now, returnedByPurchase: false,
                offer: (.code, target.offerID), state: &state, changes: &changes, now: now)
            state.settings.offerCodes[key] = nil
            return result
        }
    }

    /// `code` uppercase, if it is 1 to 64 ASCII letters and digits.
    private static func offerCode(_ code: String) -> String? {
        guard (1...64).contains(code.utf8.count),
            code.utf8.allSatisfy({ $0 < 0x80 && (Character(Unicode.Scalar($0)).isLetter || Character(Unicode.Scalar($0)).isNumber) })
        else { return nil }
        return code.uppercased()
    }

    /// How many renewal periods a purchase may be backdated by: 1,200 (a century of months).
    public static let maximumBackdatedPeriods = 1_200

    /// How far back a purchase of any kind may be dated: a century (36,525 days).
    static let maximumBackdating: TimeInterval = 36_525 * 86_400

    /// Ends the device's Apple ID's subscription in the group now: its latest transaction
    /// expires a millisecond ago (`expireSubscription`). Earlier transactions keep their dates.
    /// - Parameter productID: A product of the subscription's group.
    /// - Throws: ``TrainCore/TrainErrorCode/productNotFound``, ``TrainCore/TrainErrorCode/notSubscribed``.
    public func expireSubscription(productID: String) throws(SubscriptionError) {
        try mutate { state, changes, now throws(SubscriptionError) in
            let id = try subscriptionID(for: productID, in: state)
            guard var subscription = state.subscriptions[id] else { return }
            let end = now.addingTimeInterval(-0.001)
            update(subscription.latestTransactionID, &state, &changes) { $0.expirationDate = min($0.expirationDate ?? end, end) }
            mirrorChange(of: id, state: &state, changes: &changes) { $0.expirationDate = min($0.expirationDate ?? end, end) }
            subscription.periodEnd = min(subscription.periodEnd, end)
            subscription.state = .expired
            subscription.expirationReason = .unknown
            subscription.graceEnd = nil
            state.subscriptions[id] = subscription
            changes.subscriptions.insert(id)
            notify(.expired, about: subscription, state: state, changes: &changes, now: now)
        }
    }

    /// Ends the current period of the device's Apple ID's subscription in the group now
    /// and starts the next one (`forceRenewalOfSubscription`): the current period's
    /// transaction ends a millisecond before the renewal starts, so the two never
    /// overlap; earlier transactions keep their dates.
    /// - Parameter productID: A product of the subscription's group.
    /// - Throws: ``TrainCore/TrainErrorCode/productNotFound``, ``TrainCore/TrainErrorCode/notSubscribed``.
    public func forceRenewal(productID: String) throws(SubscriptionError) {
        try mutate { state, changes, now throws(SubscriptionError) in
            let id = try subscriptionID(for: productID, in: state)
            guard var subscription = state.subscriptions[id] else { return }
            // The old period ends a millisecond before the new one starts, so the two never overlap.
            let end = now.addingTimeInterval(-0.001)
            update(subscription.latestTransactionID, &state, &changes) { $0.expirationDate = min($0.expirationDate ?? end, end) }
            mirrorChange(of: id, state: &state, changes: &changes) { $0.expirationDate = min($0.expirationDate ?? end, end) }
            renew(&subscription, &state, &changes, at: now)
            state.subscriptions[id] = subscription
            changes.subscriptions.insert(id)
        }
    }

    /// Turns auto-renew of the device's Apple ID's subscription in the group off (access
    /// continues to the period's end) or back on.
    /// - Parameters:
    ///   - enabled: Whether it renews.
    ///   - productID: A product of the subscription's group.
    /// - Throws: ``TrainCore/TrainErrorCode/productNotFound``, ``TrainCore/TrainErrorCode/notSubscribed``.
    public func setAutoRenew(_ enabled: Bool, productID: String) throws(SubscriptionError) {
        try changeSubscription(productID: productID) { subscription in
            guard subscription.willAutoRenew != enabled else { return nil }
            subscription.willAutoRenew = enabled
            return (.didChangeRenewalStatus, enabled ? .autoRenewEnabled : .autoRenewDisabled)
        }
    }

    /// Refunds or revokes a transaction: access ends at once (`refundTransaction`).
    /// - Parameters:
    ///   - transactionID: The transaction.
    ///   - reason: Why.
    /// - Throws: ``TrainCore/TrainErrorCode/transactionNotFound``.
    public func refund(transactionID: UInt64, reason: TransactionRevocationReason = .other) throws(SubscriptionError) {
        try mutate { state, changes, now throws(SubscriptionError) in
            try revoke(transactionID, reason: reason, notifying: true, state: &state, changes: &changes, now: now)
        }
    }

    /// Revokes a transaction at `now`, with what the family shared of it, telling the
    /// server when `notifying`; one revoked already stays as it is.
    func revoke(
        _ transactionID: UInt64, reason: TransactionRevocationReason, notifying: Bool, state: inout State, changes: inout Changes, now: Date
    ) throws(SubscriptionError) {
        guard let entry = state.entries[transactionID] else {
            throw SubscriptionError(.transactionNotFound, detail: "No transaction \(transactionID).")
        }
        guard entry.transaction.revocationDate == nil else { return }
        update(transactionID, &state, &changes) {
            $0.revocationDate = now
            $0.revocationReason = reason
        }
        if state.refundRequests.contains(transactionID) { changes.refundRequests[transactionID] = .some(nil) }
        var subscription = state.subscriptions[entry.transaction.originalID]
        if var revoked = subscription, revoked.latestTransactionID == transactionID {
            revoked.state = .revoked
            revoked.graceEnd = nil
            state.subscriptions[revoked.originalID] = revoked
            changes.subscriptions.insert(revoked.originalID)
            subscription = revoked
        }
        if notifying {
            notify(
                .refund, transactionID: transactionID, subscription: subscription?.latestTransactionID == transactionID ? subscription : nil,
                state: state, changes: &changes, now: now)
        }
        // What the family shared of it goes with it.
        let purchase = subscription?.latestTransactionID == transactionID ? entry.transaction.originalID : transactionID
        revokeShares(of: purchase, reason: reason, state: &state, changes: &changes, now: now)
    }

    /// The app's own transaction, as `AppTransaction.shared` reads it: the bundle ID of
    /// the configuration's app, version 1.0 bought on the day the store was made, until a
    /// test sets another. It lasts for the instance, as test settings do, and is
    /// unverified while ``producesUnverifiedTransactions`` is on.
    public var appTransaction: StoreVerificationResult<AppTransactionInfo> {
        let info = app.withLock { $0 }
        return producesUnverifiedTransactions ? .unverified(info, .invalidSignature) : .verified(info)
    }

    /// Sets the app's own transaction: for example a first download in version 1.0 a
    /// year ago, to test what early buyers of an app that went free keep. Its environment
    /// is where the transactions made from now on are made, and what every server
    /// notification about them says.
    /// - Parameter info: The app transaction.
    /// - Throws: ``TrainCore/TrainErrorCode/invalidArgument`` for a bundle ID that is not
    ///   one (see ``StoreApp/init(bundleID:appAppleID:)``), an empty version, a date that
    ///   is not a real date, or production for an app without an App Apple ID
    ///   (``StoreApp/appAppleID``). Nothing changes then.
    public func setAppTransaction(_ info: AppTransactionInfo) throws(SubscriptionError) {
        try StoreApp.check(bundleID: info.bundleID)
        guard !info.appVersion.isEmpty, !info.originalAppVersion.isEmpty, info.originalPurchaseDate.timeIntervalSinceReferenceDate.isFinite
        else {
            throw SubscriptionError(.invalidArgument, detail: "An app transaction has versions and a real date.")
        }
        guard info.environment != .production || storeApp.appAppleID != nil else {
            throw SubscriptionError(
                .invalidArgument, detail: "An app in production has an App Apple ID: give the store's configuration a StoreApp with one.")
        }
        app.withLock { $0 = info }
    }

    /// Removes a transaction from the ledger (`deleteTransaction(identifier:)`). When it
    /// was its subscription's latest, the subscription goes back to the one before: still
    /// current if its period runs (an upgrade deleted leaves the upgraded-from period
    /// current again), lapsed and renewing no more if it has ended; when it was the only
    /// one, the subscription is gone. Services on the store recompute their entitlements.
    /// A purchase still waiting for Ask to Buy or an interruption is not a transaction
    /// yet: decline or resolve it instead.
    /// - Parameter transactionID: The transaction.
    /// - Throws: ``TrainCore/TrainErrorCode/transactionNotFound``.
    public func deleteTransaction(_ transactionID: UInt64) throws(SubscriptionError) {
        try mutate { state, changes, now throws(SubscriptionError) in
            guard let entry = state.entries.removeValue(forKey: transactionID) else {
                throw SubscriptionError(.transactionNotFound, detail: "No transaction \(transactionID).")
            }
            changes.entries.insert(transactionID)
            changes.events.append(.reloaded)
            state.groupsJoined = Self.groupsJoined(by: state.entries.values)
            state.nonConsumables = Self.nonConsumables(in: state.entries.values)
            let originalID = entry.transaction.originalID
            guard var subscription = state.subscriptions[originalID], subscription.latestTransactionID == transactionID else { return }
            changes.subscriptions.insert(originalID)
            let previous = state.entries.values.filter { $0.transaction.originalID == originalID }.max { $0.transaction.id < $1.transaction.id }
            guard let previous else {
                state.subscriptions[originalID] = nil
                state.announcedGrace[originalID] = nil
                return
            }
            if previous.transaction.isUpgraded { update(previous.transaction.id, &state, &changes) { $0.isUpgraded = false } }
            subscription.begin(state.entries[previous.transaction.id]?.transaction ?? previous.transaction)
            if subscription.periodEnd < now {
                subscription.state = .expired
                subscription.expirationReason = .unknown
                subscription.willAutoRenew = false
            }
            state.subscriptions[originalID] = subscription
        }
    }

    /// A parent approves an Ask to Buy request (`approveAskToBuyTransaction(identifier:)`):
    /// the purchase goes through as one made in the app would — a new subscription, an
    /// upgrade or a same-period crossgrade is a transaction under the request's
    /// identifier on the app's updates stream; a downgrade or a crossgrade to another
    /// period changes what renews (see ``PendingPurchase/transactionID``).
    /// - Parameter transactionID: The request's identifier in ``testTransactions``.
    /// - Throws: ``TrainCore/TrainErrorCode/requestNotFound`` (also after it lapsed);
    ///   ``TrainCore/TrainErrorCode/subscribedWithAnotherAccount`` for a request made with
    ///   access per app user while the Apple ID's subscription in the group has become
    ///   another app user's (the request keeps waiting).
    public func approveAskToBuy(transactionID: UInt64) throws(SubscriptionError) {
        try completePending(transactionID, kind: .askToBuy, approve: true)
    }

    /// A parent declines an Ask to Buy request (`declineAskToBuyTransaction(identifier:)`): nothing is bought.
    /// - Parameter transactionID: The request's identifier in ``testTransactions``.
    /// - Throws: ``TrainCore/TrainErrorCode/requestNotFound``.
    public func declineAskToBuy(transactionID: UInt64) throws(SubscriptionError) {
        try completePending(transactionID, kind: .askToBuy, approve: false)
    }

    /// Resolves an interrupted purchase (`resolveIssueForTransaction(identifier:)`): it goes
    /// through under its identifier and reaches the updates stream.
    /// - Parameter transactionID: The purchase's identifier in ``testTransactions``.
    /// - Throws: ``TrainCore/TrainErrorCode/requestNotFound``.
    public func resolveInterruptedPurchase(transactionID: UInt64) throws(SubscriptionError) {
        try completePending(transactionID, kind: .interrupted, approve: true)
    }

    private func completePending(_ transactionID: UInt64, kind: PendingPurchase.Kind, approve: Bool) throws(SubscriptionError) {
        try mutate { state, changes, now throws(SubscriptionError) in
            guard let pending = state.pending.values.first(where: { $0.transactionID == transactionID && $0.kind == kind }) else {
                throw SubscriptionError(.requestNotFound, detail: "No pending \(kind.rawValue) purchase \(transactionID).")
            }
            if approve, pending.exclusive, let product = product(pending.productID) {
                // Access per app user: another app user's subscription, bought while the request waited, stays theirs.
                try refuseAnotherAccountsPurchase(product, owner: pending.appleID, token: pending.appAccountToken, in: state, now: now)
            }
            state.pending[pending.id] = nil
            changes.pending.insert(pending.id)
            if approve, let product = product(pending.productID) {
                _ = try buy(
                    product, owner: pending.appleID, token: pending.appAccountToken, at: now, returnedByPurchase: false,
                    offer: pending.offer?.request, transactionID: pending.transactionID,
                    state: &state, changes: &changes, now: now)
            }
        }
    }

    /// Announces a price increase of the device's Apple ID's subscription in the group
    /// that needs the subscriber's consent; without it,
    /// the subscription lapses at the next renewal.
    /// - Parameter productID: A product of the subscription's group.
    /// - Throws: ``TrainCore/TrainErrorCode/productNotFound``, ``TrainCore/TrainErrorCode/notSubscribed``.
    public func requestPriceIncreaseConsent(productID: String) throws(SubscriptionError) {
        try changeSubscription(productID: productID) { subscription in
            guard subscription.priceIncrease != .pending else { return nil }
            subscription.priceIncrease = .pending
            return (.priceIncrease, .pending)
        }
    }

    /// The device's Apple ID answers a pending price increase of its subscription in the group.
    /// - Parameters:
    ///   - agreed: Whether they agree.
    ///   - productID: A product of the subscription's group.
    /// - Throws: ``TrainCore/TrainErrorCode/productNotFound``, ``TrainCore/TrainErrorCode/notSubscribed``.
    public func respondToPriceIncrease(agreed: Bool, productID: String) throws(SubscriptionError) {
        try changeSubscription(productID: productID) { subscription in
            guard subscription.priceIncrease == .pending else { return nil }
            if agreed {
                subscription.priceIncrease = .agreed
                return (.priceIncrease, .accepted)
            }
            guard subscription.willAutoRenew else { return nil }
            subscription.willAutoRenew = false
            return (.didChangeRenewalStatus, .autoRenewDisabled)
        }
    }

    /// Fixes the payment method of the device's Apple ID's subscription in the group, in
    /// grace or billing retry: it renews
    /// (from its missed renewal date while in grace, from now after).
    /// - Parameter productID: A product of the subscription's group.
    /// - Throws: ``TrainCore/TrainErrorCode/notSubscribed`` if it is not in grace or billing retry.
    public func resolveBillingIssue(productID: String) throws(SubscriptionError) {
        try mutate { state, changes, now throws(SubscriptionError) in
            let id = try subscriptionID(for: productID, in: state)
            guard var subscription = state.subscriptions[id],
                subscription.state == .inGracePeriod || subscription.state == .inBillingRetryPeriod
            else {
                throw SubscriptionError(.notSubscribed, detail: "The subscription has no billing issue to resolve.")
            }
            renew(&subscription, &state, &changes, at: subscription.state == .inGracePeriod ? subscription.periodEnd : now, subtype: .billingRecovery)
            state.subscriptions[id] = subscription
            changes.subscriptions.insert(id)
        }
    }

    /// Removes every transaction, subscription and pending purchase (`clearTransactions`).
    public func clearTransactions() {
        _ = try? mutate { state, changes, _ throws(SubscriptionError) in
            changes.entries = Touched(state.entries.keys)
            changes.subscriptions = Touched(state.subscriptions.keys)
            changes.pending = Touched(state.pending.keys)
            state.entries.removeAll()
            state.subscriptions.removeAll()
            state.pending.removeAll()
            state.groupsJoined.removeAll()
            state.nonConsumables.removeAll()
            changes.shares = Touched(state.shares.keys)
            state.shares.removeAll()
            state.sharesByPurchase.removeAll()
            state.announcedGrace.removeAll()
            changes.events.append(.reloaded)
        }
    }

    /// Puts every test setting back to its default (`resetToDefaultState`), the app
    /// transaction included; the ledger stays. What was due before is settled first,
    /// under the settings it was due under.
    public func resetToDefaultState() {
        settle()
        state.withLock { $0.settings = Settings() }
        app.withLock { $0 = defaultAppTransaction }
    }

    /// The longest simulated month or renewal: a century.
    static let longestRenewal = Duration.seconds(36_525 * 86_400)

    /// Changes the device's Apple ID's subscription in `productID`'s group with `body`,
    /// which returns the server notification the change sends, or nil when it changed nothing.
    private func changeSubscription(
        productID: String,
        _ body: @escaping (inout StoreLedger.Subscription) -> (StoreNotificationType, StoreNotificationSubtype?)?
    ) throws(SubscriptionError) {
        try mutate { state, changes, now throws(SubscriptionError) in
            let id = try subscriptionID(for: productID, in: state)
            guard var subscription = state.subscriptions[id], let (type, subtype) = body(&subscription) else { return }
            state.subscriptions[id] = subscription
            changes.subscriptions.insert(id)
            notify(type, subtype, about: subscription, state: state, changes: &changes, now: now)
        }
    }
}
