import Foundation

/// The entitlement rule, kept up to date one transaction at a time.
///
/// The tier is the highest tier among transactions that are verified, not revoked,
/// not upgraded, and active — `now <= expirationDate`, or within their
/// subscription's `gracePeriodExpirationDate` — whatever the order they arrived in.
/// A non-consumable is active for good; a non-renewing subscription for its product's
/// period from its purchase date (StoreKit leaves that end to the app); a consumable
/// never grants a tier.
/// Revocation and upgrade are permanent once seen; a transaction's expiration can
/// only move earlier (expire now, force renewal).
///
/// Every change costs O(log n) in the length of the history, and so does a query:
/// each tier keeps its granting transactions ordered by the date they grant until, so
/// a revocation, an upgrade, a shortened expiration or a grace period that ends moves
/// one transaction instead of recounting the tier. ``referenceTier(of:gracePeriods:products:at:)``
/// is the same rule computed from scratch.
public struct EntitlementEngine: Sendable {
    private struct Entry: Sendable, Equatable {
        var tier: SubscriptionTier
        var expiration: Date?
        var verified: Bool
        var revoked: Bool
        var upgraded: Bool

        var isEligible: Bool { verified && !revoked && !upgraded }
    }

    /// What each product grants: its tier, and for a non-renewing subscription how long.
    private struct Grant: Sendable {
        var tier: SubscriptionTier
        var nonRenewingPeriod: BillingPeriod?

        /// When a transaction of the product stops granting, if it does.
        func expiration(of transaction: AppStoreTransaction) -> Date? {
            nonRenewingPeriod.map { $0.end(after: transaction.purchaseDate) } ?? transaction.expirationDate
        }
    }

    private let grants: [String: Grant]
    private var entries: [UInt64: Entry] = [:]
    /// Grace ends by transaction: grace belongs to the latest transaction of a subscription.
    private var graceEnds: [UInt64: Date] = [:]
    /// The eligible transactions of each tier, by the date each grants until.
    /// Highest tier first: an app has a few tiers, found by walking the list, which
    /// costs less than hashing a tier's name on every change.
    private var granting: [(tier: SubscriptionTier, ends: LatestEnds)] = []

    /// Creates an engine for a product catalog.
    /// - Parameter products: The products; a transaction of an unknown product grants nothing.
    public init(products: [AppStoreProduct]) {
        grants = Self.grants(of: products)
    }

    /// What each product grants: a consumable nothing.
    private static func grants(of products: [AppStoreProduct]) -> [String: Grant] {
        let granting = products.filter { $0.type != .consumable }.map { product in
            (product.id, Grant(tier: product.tier, nonRenewingPeriod: product.type == .nonRenewable ? product.period : nil))
        }
        return Dictionary(granting, uniquingKeysWith: { first, _ in first })
    }

    /// Until when `transaction` is an entitlement, leaving grace aside: its expiration, the
    /// end of a non-renewing subscription's period, or `distantFuture` for a
    /// non-consumable; nil for a consumable or a product the catalog does not have.
    func entitlementEnd(of transaction: AppStoreTransaction) -> Date? {
        grants[transaction.productID].map { $0.expiration(of: transaction) ?? .distantFuture }
    }

    /// The number of transactions seen.
    public var transactionCount: Int { entries.count }

    /// How many places in the tiers' orderings the changes and queries so far compared:
    /// the engine's work, which grows with the logarithm of the history, not its length.
    var steps: Int { granting.reduce(0) { $0 + $1.ends.steps } }

    /// Takes in a transaction, new or a later state of one already seen.
    /// - Parameter result: The transaction and whether it verified.
    public mutating func apply(_ result: StoreVerificationResult<AppStoreTransaction>) {
        let transaction = result.unsafePayloadValue
        guard let grant = grants[transaction.productID], grant.tier != .free else { return }
        var entry = Entry(
            tier: grant.tier, expiration: grant.expiration(of: transaction),
            verified: result.isVerified, revoked: transaction.revocationDate != nil, upgraded: transaction.isUpgraded)
        let old = entries[transaction.id]
        if let old {
            entry.verified = old.verified && entry.verified
            entry.revoked = old.revoked || entry.revoked
            entry.upgraded = old.upgraded || entry.upgraded
            entry.expiration = Self.earlier(old.expiration, entry.expiration)
            guard entry != old else { return } // the same state again: nothing to do
        }
        replace(transaction.id, old, with: entry)
    }

    /// Sets or clears the billing grace period of a subscription, which extends the
    /// access of its latest transaction.
    /// - Parameters:
    ///   - date: When grace ends, or nil when the subscription is not in grace.
    ///   - transactionID: The subscription's latest transaction.
    public mutating func setGracePeriodEnd(_ date: Date?, forTransaction transactionID: UInt64) {
        guard graceEnds[transactionID] != date else { return }
        graceEnds[transactionID] = date
        let entry = entries[transactionID]
        replace(transactionID, entry, with: entry)
    }

    /// Makes `new` the state of transaction `id` in place of `old`, and moves it in its
    /// tier's ordering: in at the date it grants until, or out.
    private mutating func replace(_ id: UInt64, _ old: Entry?, with new: Entry?) {
        entries[id] = new
        if let old, old.tier != new?.tier, let slot = slot(of: old.tier) { granting[slot].ends.remove(id) }
        guard let new else { return }
        if new.isEligible {
            let until = activeUntil(new, id: id)
            let slot = slot(of: new.tier) ?? addSlot(for: new.tier)
            granting[slot].ends.set(id, to: until)
        } else if let slot = slot(of: new.tier) {
            granting[slot].ends.remove(id)
        }
    }

    /// Where `tier` is in ``granting``, if it has had a granting transaction.
    private func slot(of tier: SubscriptionTier) -> Int? {
        var index = 0
        while index < granting.count, granting[index].tier != tier { index += 1 }
        return index < granting.count ? index : nil
    }

    /// Adds `tier` to ``granting`` in its place, and returns where.
    private mutating func addSlot(for tier: SubscriptionTier) -> Int {
        var index = 0
        while index < granting.count, granting[index].tier > tier { index += 1 }
        granting.insert((tier, LatestEnds()), at: index)
        return index
    }

    /// The earlier of two dates, or the one there is.
    private static func earlier(_ first: Date?, _ second: Date?) -> Date? {
        guard let first, let second else { return first ?? second }
        return min(first, second)
    }

    /// The tier at `now` as if `transactions` and `graceEnds` had been applied, leaving
    /// the engine as it was: costs what they change, not the length of the history.
    /// - Parameters:
    ///   - now: The date to evaluate at.
    ///   - transactions: Transactions to take in for this answer only.
    ///   - graceEnds: Grace periods to set or clear for this answer only.
    /// - Returns: The tier.
    mutating func tier(
        at now: Date, previewing transactions: [StoreVerificationResult<AppStoreTransaction>], graceEnds: [(transactionID: UInt64, end: Date?)]
    ) -> SubscriptionTier {
        var savedEntries: [UInt64: Entry?] = [:]
        var savedGrace: [UInt64: Date?] = [:]
        for result in transactions {
            let id = result.unsafePayloadValue.id
            if savedEntries.index(forKey: id) == nil { savedEntries[id] = .some(entries[id]) }
            apply(result)
        }
        for (id, end) in graceEnds {
            if savedGrace.index(forKey: id) == nil { savedGrace[id] = .some(self.graceEnds[id]) }
            setGracePeriodEnd(end, forTransaction: id)
        }
        let answer = tier(at: now)
        for (id, end) in savedGrace { self.graceEnds[id] = end }
        for (id, entry) in savedEntries { replace(id, entries[id], with: entry) }
        for id in savedGrace.keys where savedEntries.index(forKey: id) == nil {
            let entry = entries[id]
            replace(id, entry, with: entry)
        }
        return answer
    }

    /// The tier the rule gives at `now`.
    /// - Parameter now: The date to evaluate at.
    /// - Returns: The highest active tier, or `.free`.
    public func tier(at now: Date) -> SubscriptionTier {
        for index in granting.indices where granting[index].tier > .free {
            if let until = granting[index].ends.latest, now <= until { return granting[index].tier }
        }
        return .free
    }

    private func activeUntil(_ entry: Entry, id: UInt64) -> Date {
        let grace = graceEnds[id]
        switch (entry.expiration, grace) {
        case (nil, _): return .distantFuture
        case (let expiration?, nil): return expiration
        case (let expiration?, let grace?): return max(expiration, grace)
        }
    }

    /// The rule computed from scratch over a whole history, for checking the engine.
    /// - Parameters:
    ///   - transactions: Every transaction, in any order, each in its latest state.
    ///   - gracePeriods: The grace end of each subscription in grace, by its latest transaction's ID.
    ///   - products: The product catalog.
    ///   - now: The date to evaluate at.
    /// - Returns: The tier.
    public static func referenceTier(
        of transactions: [StoreVerificationResult<AppStoreTransaction>], gracePeriods: [UInt64: Date],
        products: [AppStoreProduct], at now: Date
    ) -> SubscriptionTier {
        let grants = grants(of: products)
        var best = SubscriptionTier.free
        for result in transactions {
            guard case .verified(let transaction) = result, transaction.revocationDate == nil, !transaction.isUpgraded,
                let grant = grants[transaction.productID]
            else { continue }
            let tier = grant.tier
            let expiration = grant.expiration(of: transaction) ?? .distantFuture
            let grace = gracePeriods[transaction.id] ?? .distantPast
            if now <= expiration || now <= grace { best = max(best, tier) }
        }
        return best
    }
}
