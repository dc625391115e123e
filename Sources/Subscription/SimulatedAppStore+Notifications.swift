import Foundation
import TrainCore

/// App Store Server Notifications V2: what the store sends an app's server for every
/// change it makes, kept as a log and told on a stream.
extension SimulatedAppStore {
    /// Every server notification the store has sent, in the order sent, each signed as the
    /// App Store posts it: Apple's notification history. A file-backed store keeps them
    /// across launches, and stores on one file share them.
    public var serverNotifications: [StoreServerNotification] {
        settle()
        let (notices, key) = state.withLock { state in
            ((try? ledger.read { try $0.values(in: StoreLedger.notifications) }) ?? [], state.notificationKey)
        }
        return notices.compactMap { signed($0, key: key) }
    }

    /// The server notifications sent from now on, as the app's server receives them: of
    /// this store's changes as they happen, and of another store's on the file once this
    /// one reads the ledger again.
    /// - Returns: A stream; cancelling its consumer ends it.
    public func serverNotificationUpdates() -> AsyncStream<StoreServerNotification> {
        let (stream, continuation) = AsyncStream<StoreServerNotification>.makeStream()
        let id = notificationListeners.withLock { listeners in
            defer { listeners.next += 1 }
            listeners.continuations[listeners.next] = continuation
            return listeners.next
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.notificationListeners.withLock { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// A verifier of this store's notifications, as the app's server holds it: the
    /// store's key, the app's bundle ID and App Apple ID, and — given — the one
    /// environment to accept.
    /// - Parameter environment: The environment to accept; nil for any.
    /// - Returns: The verifier.
    public func notificationVerifier(environment: StoreEnvironment? = nil) -> StoreNotificationVerifier {
        StoreNotificationVerifier(
            key: state.withLock { $0.notificationKey }, bundleID: app.withLock { $0.bundleID }, appAppleID: storeApp.appAppleID,
            environment: environment)
    }

    /// Sends a `TEST` notification, as the App Store Server API's "Request a Test
    /// Notification" does.
    /// - Throws: ``TrainCore/TrainErrorCode/ledgerUnreadable`` if it cannot be recorded.
    public func requestTestNotification() throws(SubscriptionError) {
        try mutate { state, changes, now throws(SubscriptionError) in
            notify(.test, transactionID: nil, subscription: nil, state: state, changes: &changes, now: now)
        }
    }

    /// A customer asks for a refund of a transaction of the device's Apple ID, as Apple's
    /// refund request sheet sends it: the app's server is asked for consumption
    /// information with `CONSUMPTION_REQUEST` (for a consumable or an auto-renewable
    /// subscription), and a subscription's auto-renew is turned off. The App Store then
    /// grants it (``refund(transactionID:reason:)``) or declines it (``declineRefund(transactionID:)``).
    /// - Parameters:
    ///   - transactionID: The transaction.
    ///   - reason: Why the customer asks.
    /// - Throws: ``TrainCore/TrainErrorCode/transactionNotFound`` for a transaction the
    ///   device's Apple ID does not have; ``TrainCore/TrainErrorCode/invalidArgument`` for one
    ///   refunded already. Nothing changes then.
    public func requestRefund(transactionID: UInt64, reason: RefundRequestReason = .other) throws(SubscriptionError) {
        try mutate { state, changes, now throws(SubscriptionError) in
            guard let entry = state.entries[transactionID], entry.owner == deviceAppleID(state) else {
                throw SubscriptionError(.transactionNotFound, detail: "The Apple ID \(deviceAppleID(state)) has no transaction \(transactionID).")
            }
            guard entry.transaction.revocationDate == nil else {
                throw SubscriptionError(.invalidArgument, detail: "Transaction \(transactionID) was refunded already.")
            }
            changes.refundRequests[transactionID] = reason
            let type = entry.transaction.productType
            let subscription = state.subscriptions[entry.transaction.originalID].flatMap { $0.latestTransactionID == transactionID ? $0 : nil }
            if type == .consumable || type == .autoRenewable {
                notify(
                    .consumptionRequest, transactionID: transactionID, subscription: subscription, refundReason: reason, state: state,
                    changes: &changes, now: now)
            }
            if var subscription, subscription.willAutoRenew {
                subscription.willAutoRenew = false
                state.subscriptions[subscription.originalID] = subscription
                changes.subscriptions.insert(subscription.originalID)
                notify(
                    .didChangeRenewalStatus, .autoRenewDisabled, transactionID: transactionID, subscription: subscription, state: state,
                    changes: &changes, now: now)
            }
        }
    }

    /// The App Store declines a refund a customer asked for: `REFUND_DECLINED`, and the
    /// transaction stays as it was.
    /// - Parameter transactionID: The transaction.
    /// - Throws: ``TrainCore/TrainErrorCode/requestNotFound`` if no refund of it was asked for.
    public func declineRefund(transactionID: UInt64) throws(SubscriptionError) {
        try mutate { state, changes, now throws(SubscriptionError) in
            guard state.refundRequests.contains(transactionID), let entry = state.entries[transactionID] else {
                throw SubscriptionError(.requestNotFound, detail: "No refund of transaction \(transactionID) was asked for.")
            }
            changes.refundRequests[transactionID] = .some(nil)
            let subscription = state.subscriptions[entry.transaction.originalID].flatMap { $0.latestTransactionID == transactionID ? $0 : nil }
            notify(.refundDeclined, transactionID: transactionID, subscription: subscription, state: state, changes: &changes, now: now)
        }
    }

    /// Records a server notification about transaction `transactionID` as it is now, with
    /// `subscription` as it is after the change: the notification the change sends.
    func notify(
        _ type: StoreNotificationType, _ subtype: StoreNotificationSubtype? = nil, transactionID: UInt64?,
        subscription: StoreLedger.Subscription?, refundReason: RefundRequestReason? = nil, state: State, changes: inout Changes, now: Date
    ) {
        // Its identifier is given when it is written and numbered: a preview writes nothing.
        changes.notices.append(
            StoreLedger.Notice(
                id: StoreLedger.Notice.unnumbered, type: type, subtype: subtype, date: now, entry: transactionID.flatMap { state.entries[$0] },
                subscription: subscription, refundReason: refundReason))
    }

    /// Records a server notification about `subscription`'s latest transaction, with the
    /// subscription as it is after the change.
    func notify(
        _ type: StoreNotificationType, _ subtype: StoreNotificationSubtype? = nil, about subscription: StoreLedger.Subscription, state: State,
        changes: inout Changes, now: Date
    ) {
        notify(type, subtype, transactionID: subscription.latestTransactionID, subscription: subscription, state: state, changes: &changes, now: now)
        // Family members hear of its renewals, billing and lapse, each of its own transaction.
        guard Self.toldToFamily.contains(type) else { return }
        for share in state.shares(of: subscription.originalID) {
            let view = memberView(of: subscription, for: share)
            notify(type, subtype, transactionID: view.latestTransactionID, subscription: view, state: state, changes: &changes, now: now)
        }
    }

    /// The notifications of a shared subscription its family members are sent too.
    static let toldToFamily: Set<StoreNotificationType> = [.didRenew, .didFailToRenew, .gracePeriodExpired, .expired]

    /// Hands the notifications among `events` to the stream's listeners, signed.
    func deliverNotifications(in events: [Event]) {
        let listeners = notificationListeners.withLock { $0.continuations }
        guard !listeners.isEmpty else { return }
        let key = state.withLock { $0.notificationKey }
        for event in events {
            guard case .notification(let notice) = event, let notification = signed(notice, key: key) else { continue }
            for continuation in listeners.values { continuation.yield(notification) }
        }
    }

    /// `notice` signed with `key` as the App Store posts it, and read as its server would.
    /// One environment runs through it: its transaction's, or the app's for a notification
    /// about none.
    func signed(_ notice: StoreLedger.Notice, key: Data) -> StoreServerNotification? {
        let app = app.withLock { $0 }
        let signedDate = notice.date
        let environment = notice.entry?.transaction.environment ?? app.environment
        var transactionJSON: NotificationJSON.Transaction?
        var renewalJSON: NotificationJSON.Renewal?
        // Apple names the App Apple ID of an app downloaded from the App Store: not in the sandbox.
        var body = NotificationJSON.Body(
            appAppleId: environment == .production ? storeApp.appAppleID : nil, bundleId: app.bundleID, bundleVersion: app.appVersion,
            environment: NotificationJSON.environments[environment] ?? "LocalTesting")
        if let entry = notice.entry {
            let offer = entry.transaction.offer.flatMap { product(entry.transaction.productID)?.offer($0.type, id: $0.id) }
            let transaction = NotificationJSON.Transaction(
                entry.transaction, owner: entry.owner, offerPeriod: offer?.period, bundleID: app.bundleID, signedDate: signedDate)
            transactionJSON = transaction
            body.signedTransactionInfo = try? CompactJWS.sign(transaction, key: key)
        }
        if let subscription = notice.subscription {
            // Priced where its transaction was made: the log keeps what was sent then.
            let latest = notice.entry?.transaction
            let info = renewalInfo(of: subscription, in: latest?.storefrontCountryCode, latest?.currency)
            let renewing = product(subscription.autoRenewPreference) ?? product(subscription.productID)
            let renewalDate = subscription.state == .subscribed && subscription.willAutoRenew ? subscription.periodEnd : nil
            let renewal = NotificationJSON.Renewal(
                info, owner: subscription.owner, appAccountToken: subscription.appAccountToken,
                offerPeriod: info.offer.flatMap { renewing?.offer($0.type, id: $0.id)?.period }, bundleID: app.bundleID,
                renewalDate: renewalDate, environment: environment, signedDate: signedDate)
            renewalJSON = renewal
            body.signedRenewalInfo = try? CompactJWS.sign(renewal, key: key)
            body.status = NotificationJSON.status(subscription.state)
        }
        body.consumptionRequestReason = notice.refundReason?.rawValue
        let payload = NotificationJSON.Payload(
            notificationType: notice.type.rawValue, subtype: notice.subtype?.rawValue, notificationUUID: notice.id.uuidString, data: body,
            signedDate: NotificationJSON.milliseconds(signedDate))
        guard let signedPayload = try? CompactJWS.sign(payload, key: key), var notification = try? payload.notification(signedPayload: signedPayload)
        else { return nil }
        notification.transaction = try? transactionJSON?.transaction()
        notification.renewalInfo = try? renewalJSON?.renewalInfo()
        return notification
    }

    /// The identifier of the `number`-th notification of the ledger, from a store whose
    /// identifiers start with `prefix`: a UUID of version 8 (RFC 9562's custom layout) —
    /// the store's random prefix, then the number — so no two notifications share one
    /// and making one costs no call into the system's random generator.
    static func notificationID(prefix: UInt64, number: UInt64) -> UUID {
        var uuid = StoreLedger.Notice.unnumbered.uuid
        withUnsafeMutableBytes(of: &uuid) { bytes in
            bytes.storeBytes(of: prefix.bigEndian, toByteOffset: 0, as: UInt64.self)
            bytes.storeBytes(of: number.bigEndian, toByteOffset: 8, as: UInt64.self)
            bytes[6] = 0x80 | (bytes[6] & 0x0F)
            bytes[8] = 0x80 | (bytes[8] & 0x3F)
        }
        return UUID(uuid: uuid)
    }

    /// Makes the ledger's notification key if it has none, and returns the one it keeps.
    static func notificationKey(in records: RecordWriter) throws -> Data {
        if let key = try records.value(forKey: StoreLedger.notificationKeyName, in: StoreLedger.keys), key.count >= 32 { return key }
        let key = Data(try PlatformCrypto.randomBytes(count: 32))
        try records.put(key, forKey: StoreLedger.notificationKeyName, in: StoreLedger.keys)
        return key
    }
}
