import Foundation
import TrainCore
import TrainSubscription
import TrainTesting

/// PERF-7: one renewal seen through `LocalSubscriptionService` in memory — the clock
/// passes the period's end, the store records the renewal, the app reads the tier —
/// with a 10,000-transaction history, against the same with a 10-transaction history.
struct EntitlementRow {
    let quick: Bool

    func run() throws -> BenchRow {
        let long = try Subscriber(history: 10_000)
        let short = try Subscriber(history: 10)
        let renewalsPerRound = quick ? 200 : 2_000
        let (ours, baseline) = try interleaved(
            rounds: quick ? 3 : 7,
            ours: {
                try long.renew(times: renewalsPerRound)
            },
            baseline: {
                try short.renew(times: renewalsPerRound)
            })
        return BenchRow(
            id: "PERF-7", workload: "one renewal seen through the service, 10k- vs 10-transaction history",
            ours: ours * 1e6, baseline: baseline * 1e6, unit: "µs/renewal", target: "ratio <= 1.5, ours <= 10 µs")
    }

    /// An app user with a subscription that renews every simulated second, and a
    /// history of the given length.
    struct Subscriber {
        let clock = ManualClock()
        let store: SimulatedAppStore
        let service: LocalSubscriptionService
        static let user = UUID(uuidString: "00000000-0000-0000-0000-00000000ada1") ?? UUID()

        init(history: Int) throws {
            store = SimulatedAppStore(products: StoreProduct.standard, clock: clock)
            try store.setTimeRate(.monthlyRenewal(every: .seconds(1)))
            service = LocalSubscriptionService(store: store, appAccountToken: Self.user)
            let backdated = min(history - 1, SimulatedAppStore.maximumBackdatedPeriods)
            try store.buyOutsideApp(
                productID: "com.train.pro.monthly", appAccountToken: Self.user,
                purchaseDate: clock.now.addingTimeInterval(-Double(backdated)))
            var recorded = store.allTransactions.count
            while recorded < history {
                let step = min(history - recorded, 1_000)
                clock.setDate(clock.now.addingTimeInterval(Double(step)))
                store.settle()
                recorded += step
            }
            guard store.allTransactions.count == history else { throw BenchError("the history has \(store.allTransactions.count) transactions") }
        }

        /// Seconds per renewal, over `times` renewals.
        func renew(times: Int) throws -> Double {
            var checksum = 0
            let elapsed = seconds {
                for _ in 0..<times where renewOnce() { checksum += 1 }
            }
            guard checksum == times else { throw BenchError("the tier was not Pro after every renewal") }
            return elapsed / Double(times)
        }

        /// The clock passes the period's end, the store records the renewal, the app
        /// reads the tier. Not inlined, so a profiler can attribute it.
        @inline(never)
        func renewOnce() -> Bool {
            clock.setDate(clock.now.addingTimeInterval(1)) // no timer wakes: the renewal is the store's work only
            store.settle()
            return service.currentTier == .pro
        }
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
