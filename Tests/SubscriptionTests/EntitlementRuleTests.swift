import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainSubscription

/// A random subscription history: purchases, renewals, upgrades, downgrades, refunds,
/// grace, billing retry, unverified transactions and auto-renew turned off, and
/// non-renewing passes, lifetime unlocks and consumables bought on the side.
struct RandomHistory {
    /// Every state each transaction went through, in history order.
    var snapshots: [[StoreVerificationResult<AppStoreTransaction>]] = []
    /// The grace end of each subscription still in grace at the end, by its latest transaction.
    var grace: [UInt64: Date] = [:]

    static let start = ManualClock.defaultStart
    static let day: TimeInterval = 86_400
    /// Products that do not renew.
    static let oneOffs: [AppStoreProduct] = [
        .nonRenewing(id: "com.train.pro.pass", displayName: "Pro for 3 months", tier: .pro, duration: .threeMonths, price: 12.99),
        .nonConsumable(id: "com.train.premium.lifetime", displayName: "Premium for life", tier: .premium, price: 199),
        .consumable(id: "com.train.coaching", displayName: "A coaching session", price: 9.99),
    ]
    static let products = AppStoreProduct.standardWithoutTrial + oneOffs

    init(seed: UInt64) {
        var random = SeededRandomNumberGenerator(seed: seed)
        var nextID: UInt64 = 1
        let chains = Int.random(in: 1...3, using: &random)
        for _ in 0..<chains {
            var product = AppStoreProduct.standardWithoutTrial.randomElement(using: &random) ?? AppStoreProduct.standardWithoutTrial[0]
            var date = Self.start.addingTimeInterval(Double(Int.random(in: 0...90, using: &random)) * Self.day)
            let originalID = nextID
            var previous: Int?
            periods: for _ in 0..<Int.random(in: 1...6, using: &random) {
                let length = Double(product.period?.value ?? 1) * (product.period?.unit == .year ? 360 : 30) * Self.day
                var transaction = AppStoreTransaction(
                    id: nextID, originalID: originalID, productID: product.id, purchaseDate: date,
                    expirationDate: date.addingTimeInterval(length))
                nextID += 1
                let verified = Int.random(in: 0..<10, using: &random) != 0
                var states: [StoreVerificationResult<AppStoreTransaction>] = [
                    verified ? .verified(transaction) : .unverified(transaction, .invalidSignature)
                ]
                func record(_ change: (inout AppStoreTransaction) -> Void) {
                    change(&transaction)
                    states.append(verified ? .verified(transaction) : .unverified(transaction, .invalidSignature))
                }
                if Int.random(in: 0..<8, using: &random) == 0 { // refund or revoke
                    record { $0.revocationDate = date.addingTimeInterval(Self.day) }
                }
                if Int.random(in: 0..<8, using: &random) == 0 { // expire early / forced renewal
                    record { $0.expirationDate = date.addingTimeInterval(Double(Int.random(in: 1...20, using: &random)) * Self.day) }
                }
                snapshots.append(states)
                let index = snapshots.count - 1
                switch Int.random(in: 0..<10, using: &random) {
                case 0: // upgrade: the previous period is marked upgraded
                    if let higher = AppStoreProduct.standardWithoutTrial.first(where: { $0.tier > product.tier }) {
                        snapshots[index].append(
                            .verified(
                                {
                                    var t = transaction
                                    t.isUpgraded = true
                                    return t
                                }()))
                        product = higher
                        date = date.addingTimeInterval(Double(Int.random(in: 1...10, using: &random)) * Self.day)
                        previous = index
                        continue periods
                    }
                case 1: // downgrade at renewal
                    product = AppStoreProduct.standardWithoutTrial.first { $0.tier < product.tier } ?? product
                case 2: // auto-renew off: the chain ends
                    break periods
                case 3: // billing retry: ends, or grace then ends
                    if Bool.random(using: &random) {
                        // Grace extends the subscription's latest transaction: this one.
                        grace[transaction.id] = (transaction.expirationDate ?? date).addingTimeInterval(16 * Self.day)
                    }
                    break periods
                default:
                    break
                }
                previous = index
                date = transaction.expirationDate ?? date
            }
            _ = previous
        }
        for _ in 0..<Int.random(in: 0...2, using: &random) {
            let product = Self.oneOffs.randomElement(using: &random) ?? Self.oneOffs[0]
            let date = Self.start.addingTimeInterval(Double(Int.random(in: 0...200, using: &random)) * Self.day)
            var transaction = AppStoreTransaction(
                id: nextID, productID: product.id, productType: product.type, subscriptionGroupID: nil, purchaseDate: date, expirationDate: nil)
            nextID += 1
            var states: [StoreVerificationResult<AppStoreTransaction>] = [.verified(transaction)]
            if Int.random(in: 0..<4, using: &random) == 0 {
                transaction.revocationDate = date.addingTimeInterval(Double(Int.random(in: 1...30, using: &random)) * Self.day)
                states.append(.verified(transaction))
            }
            snapshots.append(states)
        }
    }

    /// Each transaction in its final state.
    var finalStates: [StoreVerificationResult<AppStoreTransaction>] {
        snapshots.compactMap { states in
            guard let last = states.last else { return nil }
            // Verification taints: a transaction that ever failed it stays unverified.
            if states.contains(where: { !$0.isVerified }) { return .unverified(last.unsafePayloadValue, .invalidSignature) }
            var merged = last.unsafePayloadValue
            merged.isUpgraded = states.contains { $0.unsafePayloadValue.isUpgraded }
            merged.revocationDate = states.compactMap(\.unsafePayloadValue.revocationDate).first
            merged.expirationDate = states.compactMap(\.unsafePayloadValue.expirationDate).min()
            return .verified(merged)
        }
    }
}

/// SUB-3: the entitlement rule.
@Suite(.timeLimit(.minutes(1))) struct EntitlementRuleTests {
    @Test("random histories applied in random order give the reference tier at every date", arguments: 0..<300)
    func property(seed: UInt64) {
        let history = RandomHistory(seed: seed)
        var random = SeededRandomNumberGenerator(seed: seed ^ 0xDEAD_BEEF)
        var engine = EntitlementEngine(products: RandomHistory.products)
        var events = history.snapshots.flatMap { $0 }.map { Optional($0) }
        events += Array(repeating: nil, count: history.grace.count) // nil: apply the grace periods here
        events.shuffle(using: &random)
        var graceApplied = false
        for event in events {
            if let event {
                engine.apply(event)
            } else if !graceApplied {
                for (id, end) in history.grace { engine.setGracePeriodEnd(end, forTransaction: id) }
                graceApplied = true
            }
        }
        for (id, end) in history.grace where !graceApplied { engine.setGracePeriodEnd(end, forTransaction: id) }
        let finals = history.finalStates
        for dayOffset in stride(from: 0, through: 600, by: 7) {
            let now = RandomHistory.start.addingTimeInterval(Double(dayOffset) * RandomHistory.day + 3600)
            let expected = EntitlementEngine.referenceTier(of: finals, gracePeriods: history.grace, products: RandomHistory.products, at: now)
            #expect(engine.tier(at: now) == expected, "seed \(seed), day \(dayOffset): replay with RandomHistory(seed: \(seed))")
        }
    }

    @Test("a transaction is active while now <= expirationDate, and not a moment after")
    func expirationBoundary() {
        var engine = EntitlementEngine(products: RandomHistory.products)
        let expiry = RandomHistory.start.addingTimeInterval(1000)
        engine.apply(
            .verified(AppStoreTransaction(id: 1, productID: "com.train.pro.monthly", purchaseDate: RandomHistory.start, expirationDate: expiry)))
        #expect(engine.tier(at: expiry) == .pro)
        #expect(engine.tier(at: expiry.addingTimeInterval(0.001)) == .free)
    }

    @Test("grace extends access to gracePeriodExpirationDate inclusive, and clearing it ends access")
    func graceBoundary() {
        var engine = EntitlementEngine(products: RandomHistory.products)
        let expiry = RandomHistory.start.addingTimeInterval(1000)
        let graceEnd = expiry.addingTimeInterval(500)
        engine.apply(
            .verified(AppStoreTransaction(id: 7, productID: "com.train.premium.monthly", purchaseDate: RandomHistory.start, expirationDate: expiry)))
        engine.setGracePeriodEnd(graceEnd, forTransaction: 7)
        #expect(engine.tier(at: graceEnd) == .premium)
        #expect(engine.tier(at: graceEnd.addingTimeInterval(0.001)) == .free)
        engine.setGracePeriodEnd(nil, forTransaction: 7)
        #expect(engine.tier(at: expiry.addingTimeInterval(1)) == .free)
    }

    @Test("revoked, upgraded and unverified transactions never grant, in whatever order their states arrive")
    func neverGrant() {
        let base = AppStoreTransaction(
            id: 3, productID: "com.train.premium.yearly", purchaseDate: RandomHistory.start,
            expirationDate: RandomHistory.start.addingTimeInterval(10_000))
        var revoked = base
        revoked.revocationDate = RandomHistory.start
        var upgraded = base
        upgraded.isUpgraded = true
        for later in [StoreVerificationResult.verified(revoked), .verified(upgraded), .unverified(base, .invalidSignature)] {
            for order in [[StoreVerificationResult.verified(base), later], [later, .verified(base)]] {
                var engine = EntitlementEngine(products: RandomHistory.products)
                for result in order { engine.apply(result) }
                #expect(engine.tier(at: RandomHistory.start) == .free)
            }
        }
    }

    @Test("the highest active tier wins, and a lower one takes over when it ends")
    func highestWins() {
        var engine = EntitlementEngine(products: RandomHistory.products)
        engine.apply(
            .verified(
                AppStoreTransaction(
                    id: 1, productID: "com.train.pro.yearly", purchaseDate: RandomHistory.start,
                    expirationDate: RandomHistory.start.addingTimeInterval(5000))))
        engine.apply(
            .verified(
                AppStoreTransaction(
                    id: 2, productID: "com.train.premium.monthly", purchaseDate: RandomHistory.start,
                    expirationDate: RandomHistory.start.addingTimeInterval(1000))))
        #expect(engine.tier(at: RandomHistory.start) == .premium)
        #expect(engine.tier(at: RandomHistory.start.addingTimeInterval(2000)) == .pro)
        #expect(engine.tier(at: RandomHistory.start.addingTimeInterval(6000)) == .free)
    }
}
