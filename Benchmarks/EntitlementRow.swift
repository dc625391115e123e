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
        try compareHistories(id: "PERF-7", workload: "one renewal seen through the service, 10k- vs 10-transaction history", unit: "µs/renewal") {
            try $0.renew(times: $1)
        }
    }

    /// PERF-7 before the store records the renewal: the tier read while a renewal is
    /// due and the store's timer has not run, so the service answers from a preview.
    func dueRead() throws -> BenchRow {
        try compareHistories(id: "PERF-7-DUE", workload: "tier read while a renewal is due, not yet recorded, 10k vs 10 history", unit: "µs/read") {
            try $0.readWhileDue(times: $1)
        }
    }

    /// `measure` on a subscriber with a 10,000-transaction history against one with 10,
    /// in alternating rounds. Each round starts from subscribers made anew, untimed, so
    /// the histories are what the row says: 10,000 to 12,000 and 10 to 2,010
    /// transactions while the renewals of a round are timed.
    private func compareHistories(id: String, workload: String, unit: String, _ measure: (Subscriber, Int) throws -> Double) throws -> BenchRow {
        let times = quick ? 200 : 2_000
        let (ours, baseline) = try interleaved(
            rounds: quick ? 3 : 7, ours: { try measure(Subscriber(history: 10_000), times) },
            baseline: { try measure(Subscriber(history: 10), times) })
        return BenchRow(id: id, workload: workload, ours: ours * 1e6, baseline: baseline * 1e6, unit: unit, target: "ratio <= 1.5, ours <= 10 µs")
    }

    /// A clock jump of a day at one month per second, settled at once: the time per
    /// renewal recorded for 16 subscribers against the same for one.
    func jump() throws -> BenchRow {
        func perRenewal(subscribers: Int) throws -> Double {
            let clock = ManualClock()
            let store = SimulatedAppStore(
                context: TrainContext(clock: clock), configuration: AppStoreConfiguration(products: AppStoreProduct.standardWithoutTrial))
            try store.setTimeRate(.monthlyRenewal(every: .seconds(1)))
            // Each subscriber on an Apple ID of their own: purchases belong to the Apple ID,
            // which holds one subscription a group.
            for index in 0..<subscribers {
                try store.switchAppleID(to: try AppleID("subscriber\(index)@simulator.trainkit"))
                let token = UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", index)) ?? UUID()
                try store.buyOutsideApp(productID: "com.train.pro.monthly", appAccountToken: token)
            }
            let before = store.allTransactions.count
            clock.setDate(clock.now.addingTimeInterval(86_400))
            let elapsed = seconds { store.settle() }
            let recorded = store.allTransactions.count - before
            guard recorded >= subscribers * SimulatedAppStore.maximumRenewalsPerSettle else {
                throw BenchError("the jump recorded \(recorded) renewals")
            }
            return elapsed / Double(recorded)
        }
        let (ours, baseline) = try interleaved(
            rounds: quick ? 1 : 9, ours: { try perRenewal(subscribers: 16) }, baseline: { try perRenewal(subscribers: 1) })
        return BenchRow(
            id: "SUB-JUMP", workload: "a one-day clock jump at a month per second, 16 subscribers vs 1",
            ours: ours * 1e6, baseline: baseline * 1e6, unit: "µs/renewal", target: "ratio <= 2 (linear)")
    }

    /// An app user with a subscription that renews every simulated second, and a
    /// history of the given length.
    struct Subscriber {
        let clock = ManualClock()
        let store: SimulatedAppStore
        let service: LocalSubscriptionService
        static let user = UUID(uuidString: "00000000-0000-0000-0000-00000000ada1") ?? UUID()

        /// The family member of a subscriber made with `sharedWithFamily`.
        static let member = (try? AppleID("member@simulator.trainkit")) ?? .standard

        /// A subscriber of Pro monthly with `history` transactions. With `sharedWithFamily`,
        /// Pro is family-shareable and bought by the device's first Apple ID for a family
        /// with one member, and the service is the member's, whose history, of
        /// transactions shared with it, has the same length.
        init(history: Int, sharedWithFamily: Bool = false) throws {
            let products = AppStoreProduct.standardWithoutTrial.map { product in
                var product = product
                product.isFamilyShareable = sharedWithFamily && product.id == "com.train.pro.monthly"
                return product
            }
            store = SimulatedAppStore(context: TrainContext(clock: clock), configuration: AppStoreConfiguration(products: products))
            try store.setTimeRate(.monthlyRenewal(every: .seconds(1)))
            service = LocalSubscriptionService(
                store: store, context: store.context, configuration: SubscriptionConfiguration(appAccountToken: sharedWithFamily ? nil : Self.user))
            if sharedWithFamily {
                try store.createFamily(organizer: .standard)
                try store.addToFamily(Self.member, organizer: .standard)
            }
            let backdated = min(history - 1, SimulatedAppStore.maximumBackdatedPeriods)
            try store.buyOutsideApp(
                productID: "com.train.pro.monthly", appAccountToken: Self.user,
                purchaseDate: clock.now.addingTimeInterval(-Double(backdated)))
            let copies = sharedWithFamily ? 2 : 1 // the buyer's and the member's
            var recorded = store.allTransactions.count / copies
            while recorded < history {
                let step = min(history - recorded, 1_000)
                clock.setDate(clock.now.addingTimeInterval(Double(step)))
                store.settle()
                recorded += step
            }
            guard store.allTransactions.count == history * copies else {
                throw BenchError("the history has \(store.allTransactions.count) transactions")
            }
            if sharedWithFamily { try store.switchAppleID(to: Self.member) }
        }

        /// Seconds per renewal recorded, over `times` steps of the clock. The first step
        /// may end exactly at the period's end, which is not past it yet: every later
        /// step records one renewal.
        func renew(times: Int) throws -> Double {
            var checksum = 0
            let before = store.allTransactions.count
            let elapsed = seconds {
                for _ in 0..<times where renewOnce() { checksum += 1 }
            }
            let recorded = store.allTransactions.count - before
            guard checksum == times else { throw BenchError("the tier was not Pro after every renewal") }
            guard recorded >= times - 1 else { throw BenchError("\(times) steps recorded \(recorded) renewals") }
            return elapsed / Double(recorded)
        }

        /// Seconds per tier read with a renewal due and not recorded, over `times` reads.
        func readWhileDue(times: Int) throws -> Double {
            try movePastPeriodEnd() // a renewal is due, whichever second of the period the history ends in
            var checksum = 0
            let elapsed = seconds {
                for _ in 0..<times where service.currentTier == .pro { checksum += 1 }
            }
            store.settle()
            guard checksum == times else { throw BenchError("the tier was not Pro on every read") }
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

extension AppStoreProduct {
    /// The standard products without Pro monthly's free trial: a first period of a month.
    static let standardWithoutTrial = AppStoreProduct.standard.map { product in
        var product = product
        product.introductoryOffer = nil
        return product
    }
}
