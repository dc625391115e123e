import Foundation
import TrainSubscription

/// PERF-7: the tier after one new transaction, with a 10,000-transaction history:
/// the incremental engine against recomputing the rule over the whole history.
struct EntitlementRow {
    let quick: Bool

    func run() -> BenchRow {
        let products = StoreProduct.standard
        let start = Date(timeIntervalSince1970: 1_767_225_600)
        func transaction(_ index: Int) -> StoreVerificationResult<StoreTransaction> {
            var transaction = StoreTransaction(id: UInt64(index), originalID: UInt64(index % 64 + 1), productID: products[index % products.count].id,
                                          purchaseDate: start.addingTimeInterval(Double(index) * 600),
                                          expirationDate: start.addingTimeInterval(Double(index) * 600 + 30 * 86_400))
            if index % 97 == 0 { transaction.revocationDate = transaction.purchaseDate }
            if index % 89 == 0 { transaction.isUpgraded = true }
            return index % 101 == 0 ? .unverified(transaction, .invalidSignature) : .verified(transaction)
        }
        var history = (1...10_000).map(transaction)
        var engine = EntitlementEngine(products: products)
        history.forEach { engine.apply($0) }
        var next = history.count + 1
        var checksum = 0
        let updatesPerRound = quick ? 500 : 5_000
        let recomputesPerRound = quick ? 20 : 100

        let (ours, baseline) = interleaved(rounds: quick ? 3 : 7, ours: {
            seconds {
                for _ in 0..<updatesPerRound {
                    let new = transaction(next)
                    next += 1
                    engine.apply(new)
                    checksum &+= engine.tier(at: new.unsafePayloadValue.purchaseDate) == .premium ? 1 : 0
                }
            } / Double(updatesPerRound)
        }, baseline: {
            seconds {
                for _ in 0..<recomputesPerRound {
                    let new = transaction(next)
                    next += 1
                    history.append(new)
                    let tier = EntitlementEngine.referenceTier(of: history, gracePeriods: [:], products: products,
                                                               at: new.unsafePayloadValue.purchaseDate)
                    checksum &+= tier == .premium ? 1 : 0
                }
            } / Double(recomputesPerRound)
        })
        if checksum == -1 { print("") }   // keeps the work observable to the optimizer
        return BenchRow(id: "PERF-7", workload: "tier after one new transaction, 10k-transaction history",
                        ours: ours * 1e6, baseline: baseline * 1e6, unit: "µs/update", target: "ours <= 10 µs/update")
    }
}
