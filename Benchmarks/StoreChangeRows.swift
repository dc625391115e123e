import Foundation
import TrainCore
import TrainSubscription
import TrainTesting

/// One row per store change: the control seen through `LocalSubscriptionService` in
/// memory — the store applies it, the app reads `currentTier` — with a
/// 10,000-transaction history, against the same with a 10-transaction history.
///
/// Each change is timed on its own; what sets the next one up (a resubscription after
/// an expiry, a billing issue to resolve) is not timed. The short history is made anew
/// every few changes, so it stays short.
struct StoreChangeRows {
    let quick: Bool

    /// A store change: what sets it up, untimed, and the change with the tier read after it, timed.
    struct Control: Sendable {
        let id: String
        let workload: String
        /// Whether the subscriber is a family member the purchase is shared with.
        var sharedWithFamily = false
        /// Puts the subscriber where the change applies.
        let prepare: @Sendable (EntitlementRow.Subscriber) throws -> Void
        /// The change; returns whether the tier read after it is the one expected.
        let change: @Sendable (EntitlementRow.Subscriber) throws -> Bool
    }

    static let pro = "com.train.pro.monthly"
    static let premium = "com.train.premium.monthly"

    /// Every control but the clock's own renewal, which PERF-7 measures.
    static let controls: [Control] = [
        Control(
            id: "SUB-FORCE-RENEW", workload: "force renewal",
            prepare: { _ in },
            change: { subscriber in
                try subscriber.store.forceRenewal(productID: pro)
                return subscriber.service.currentTier == .pro
            }),
        Control(
            id: "SUB-EXPIRE", workload: "expire now",
            prepare: { try $0.subscribe(to: pro) },
            change: { subscriber in
                try subscriber.store.expireSubscription(productID: pro)
                return subscriber.service.currentTier == .free
            }),
        Control(
            id: "SUB-REFUND", workload: "refund the current period",
            prepare: { try $0.subscribe(to: pro) },
            change: { subscriber in
                try subscriber.store.refund(transactionID: try subscriber.latestTransactionID(), reason: .other)
                return subscriber.service.currentTier == .free
            }),
        Control(
            id: "SUB-REVOKE", workload: "a family member leaves: what was shared with it revoked (REVOKE)", sharedWithFamily: true,
            prepare: { subscriber in
                if subscriber.store.family(of: EntitlementRow.Subscriber.member) == nil {
                    try subscriber.store.addToFamily(EntitlementRow.Subscriber.member, organizer: .standard)
                }
            },
            change: { subscriber in
                try subscriber.store.removeFromFamily(EntitlementRow.Subscriber.member)
                return subscriber.service.currentTier == .free
            }),
        failedRenewal(id: "SUB-BILLING-RETRY", workload: "a renewal that fails to bill: billing retry, no access", grace: false),
        failedRenewal(id: "SUB-GRACE", workload: "a renewal that fails to bill: grace period, access kept", grace: true),
        Control(
            id: "SUB-RESOLVE", workload: "resolve a billing issue in billing retry: renewed",
            prepare: { subscriber in
                try subscriber.subscribe(to: pro)
                subscriber.store.billingGracePeriodIsEnabled = false
                subscriber.store.shouldEnterBillingRetryOnRenewal = true
                try subscriber.passPeriodEnd()
                subscriber.store.shouldEnterBillingRetryOnRenewal = false
            },
            change: { subscriber in
                try subscriber.store.resolveBillingIssue(productID: pro)
                return subscriber.service.currentTier == .pro
            }),
        Control(
            id: "SUB-AUTO-RENEW", workload: "auto-renew off, then on again, the tier read after each",
            prepare: { try $0.subscribe(to: pro) },
            change: { subscriber in
                try subscriber.store.setAutoRenew(false, productID: pro)
                let off = subscriber.service.currentTier == .pro
                try subscriber.store.setAutoRenew(true, productID: pro)
                return off && subscriber.service.currentTier == .pro
            }),
        Control(
            id: "SUB-UPGRADE", workload: "upgrade Pro to Premium: immediate, the Pro period marked upgraded",
            prepare: { try $0.subscribe(to: pro) },
            change: { subscriber in
                try subscriber.store.buyOutsideApp(productID: premium, appAccountToken: EntitlementRow.Subscriber.user)
                return subscriber.service.currentTier == .premium
            }),
        Control(
            id: "SUB-DOWNGRADE", workload: "downgrade Premium to Pro: at the next renewal",
            prepare: { try $0.subscribe(to: premium) },
            change: { subscriber in
                try subscriber.store.buyOutsideApp(productID: pro, appAccountToken: EntitlementRow.Subscriber.user)
                return subscriber.service.currentTier == .premium
            }),
    ]

    /// A renewal that fails to bill, into the grace period (access kept) or billing retry (none).
    static func failedRenewal(id: String, workload: String, grace: Bool) -> Control {
        Control(
            id: id, workload: workload,
            prepare: { subscriber in
                try subscriber.subscribe(to: pro)
                subscriber.store.billingGracePeriodIsEnabled = grace
                subscriber.store.shouldEnterBillingRetryOnRenewal = true
            },
            change: { subscriber in
                try subscriber.passPeriodEnd()
                return subscriber.service.currentTier == (grace ? .pro : .free)
            })
    }

    /// The row of `control`.
    func run(_ control: Control) throws -> BenchRow {
        let long = try EntitlementRow.Subscriber(history: 10_000, sharedWithFamily: control.sharedWithFamily)
        var short = try EntitlementRow.Subscriber(history: 10, sharedWithFamily: control.sharedWithFamily)
        let times = quick ? 100 : 1_000
        /// Seconds per change, over `times` changes on `subscriber`; a short history is made anew every 8.
        func measure(_ subscriber: inout EntitlementRow.Subscriber, renewEvery: Int?) throws -> Double {
            var elapsed = 0.0
            for index in 0..<times {
                if let renewEvery, index > 0, index.isMultiple(of: renewEvery) {
                    subscriber = try EntitlementRow.Subscriber(history: 10, sharedWithFamily: control.sharedWithFamily)
                }
                try control.prepare(subscriber)
                let start = ContinuousClock.now
                let expected = try control.change(subscriber)
                let duration = ContinuousClock.now - start
                elapsed += Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
                guard expected else { throw BenchError("\(control.id): the tier after the change was not the one expected") }
            }
            return elapsed / Double(times)
        }
        var longSubscriber = long
        let (ours, baseline) = try interleaved(
            rounds: quick ? 3 : 7, ours: { try measure(&longSubscriber, renewEvery: nil) }, baseline: { try measure(&short, renewEvery: 8) })
        return BenchRow(
            id: control.id, workload: "\(control.workload), seen through the service, 10k- vs 10-transaction history",
            ours: ours * 1e6, baseline: baseline * 1e6, unit: "µs/change", target: "ratio <= 1.5")
    }
}

extension EntitlementRow.Subscriber {
    /// Makes the subscription current in `productID` with auto-renew on and no billing
    /// issue: renewed if it is already, bought again otherwise; renewals bill.
    func subscribe(to productID: String) throws {
        store.shouldEnterBillingRetryOnRenewal = false
        let status = try status()
        if status?.state == .subscribed, status?.renewalInfo.unsafePayloadValue.currentProductID == productID {
            if status?.renewalInfo.unsafePayloadValue.autoRenewPreference != productID
                || status?.renewalInfo.unsafePayloadValue.willAutoRenew != true
            {
                try store.buyOutsideApp(productID: productID, appAccountToken: Self.user) // back to renewing this product
            }
            return
        }
        if status?.state == .subscribed || status?.state == .inGracePeriod {
            try store.expireSubscription(productID: productID)
        }
        try store.buyOutsideApp(productID: productID, appAccountToken: Self.user)
    }

    /// The status of the subscriber's subscription, if they have one.
    func status() throws -> RenewalStatus? {
        let service = service
        return try blocking { try await service.subscriptionStatuses().first }
    }

    /// The subscription's latest transaction.
    func latestTransactionID() throws -> UInt64 {
        guard let id = try status()?.transaction.unsafePayloadValue.id else { throw BenchError("no subscription") }
        return id
    }

    /// Moves the clock just past the current period's end and settles the store.
    func passPeriodEnd() throws {
        try movePastPeriodEnd()
        store.settle()
    }

    /// Moves the clock just past the current period's end: a renewal is due, and no
    /// timer wakes to record it.
    func movePastPeriodEnd() throws {
        if let end = try status()?.transaction.unsafePayloadValue.expirationDate {
            clock.setDate(max(clock.now, end).addingTimeInterval(0.01))
        }
    }
}
