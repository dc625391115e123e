import Foundation
import TrainCore
import TrainTesting

@testable import TrainSubscription

enum StoreVariant: String, CaseIterable, CustomStringConvertible {
    case inMemory, file
    var description: String { rawValue }
}

/// A simulated App Store and a service on a manual clock, with two app users.
final class SubscriptionHarness {
    static let ada = UUID(uuidString: "00000000-0000-0000-0000-00000000ada1") ?? UUID()
    static let grace = UUID(uuidString: "00000000-0000-0000-0000-0000000067ac") ?? UUID()
    static let proMonthly = "com.train.pro.monthly"
    static let proYearly = "com.train.pro.yearly"
    static let premiumMonthly = "com.train.premium.monthly"

    let variant: StoreVariant
    let policy: SubscriptionAccessPolicy
    let clock = ManualClock()
    let directory: TemporaryDirectory
    private(set) var store: SimulatedAppStore
    private(set) var service: LocalSubscriptionService

    init(_ variant: StoreVariant = .inMemory, user: UUID? = SubscriptionHarness.ada, policy: SubscriptionAccessPolicy = .appleID) throws {
        self.variant = variant
        self.policy = policy
        directory = try TemporaryDirectory()
        store = try SimulatedAppStore(
            storage: .inMemory, context: TrainContext(clock: clock),
            configuration: AppStoreConfiguration(products: AppStoreProduct.standardWithoutTrial))
        service = LocalSubscriptionService(store: store, context: store.context)
        store = try makeStore()
        service = LocalSubscriptionService(
            store: store, context: store.context, configuration: SubscriptionConfiguration(appAccountToken: user, accessPolicy: policy))
    }

    var file: URL { directory.file("appstore.sqlite") }

    func makeStore() throws -> SimulatedAppStore {
        switch variant {
        case .inMemory:
            try SimulatedAppStore(
                storage: .inMemory, context: TrainContext(clock: clock),
                configuration: AppStoreConfiguration(products: AppStoreProduct.standardWithoutTrial))
        case .file:
            try SimulatedAppStore(
                storage: .file(file), context: TrainContext(clock: clock),
                configuration: AppStoreConfiguration(products: AppStoreProduct.standardWithoutTrial))
        }
    }

    /// A new store and service on the same file, as after a relaunch.
    func relaunch(user: UUID? = SubscriptionHarness.ada) throws {
        store = try makeStore()
        service = LocalSubscriptionService(
            store: store, context: store.context, configuration: SubscriptionConfiguration(appAccountToken: user, accessPolicy: policy))
    }

    /// Buys in the app and returns the verified transaction.
    @discardableResult
    func buy(_ productID: String = SubscriptionHarness.proMonthly) async throws -> AppStoreTransaction {
        guard case .success(let result) = try await service.purchase(productID) else {
            throw SubscriptionError(.systemError, detail: "expected a successful purchase")
        }
        return result.unsafePayloadValue
    }

    /// Sets the clock a minute past `transaction`'s expiration without waking the
    /// store's timer: its renewal is due and not yet recorded.
    func makeRenewalDue(_ transaction: AppStoreTransaction) throws {
        guard let expiration = transaction.expirationDate else { throw SubscriptionError(.systemError, detail: "no expiration") }
        clock.setDate(expiration.addingTimeInterval(60))
    }

    /// Rewrites the stored records `ids` of `collections` in `file` in an earlier binary
    /// layout. That layout's fields are the first ones of today's, in the same order: the
    /// record is relabeled and cut where a reader of that layout stops, so it reads as
    /// one that layout wrote.
    static func relabel(_ ids: [UInt64], in collections: [String] = ["transactions"], asLayout layout: UInt8, file: URL) throws {
        let raw = try RecordStore(.file(file), schema: StoreLedger.schema)
        try raw.write { records in
            for collection in collections {
                for id in ids {
                    guard var bytes = try records.data(forKey: StoreLedger.key(id), in: collection).map(Array.init) else {
                        throw SubscriptionError(.transactionNotFound, detail: "no record \(id) in \(collection)")
                    }
                    bytes[0] = layout
                    // The fields of the earlier layout, without those it did not have.
                    let left = try BinaryReader.reading(Data(bytes), formats: [layout]) { reader throws(CoreError) in
                        if collection == "transactions" {
                            _ = try StoreLedger.Entry(from: &reader)
                        } else {
                            _ = try StoreLedger.Subscription(from: &reader)
                        }
                        return reader.bytesLeft
                    }
                    try records.setData(Data(bytes.dropLast(left)), forKey: StoreLedger.key(id), in: collection)
                }
            }
        }
        raw.close()
    }

    /// The date `months` calendar months after the clock's start.
    func months(_ months: Int) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        return calendar.date(byAdding: .month, value: months, to: ManualClock.defaultStart) ?? .distantFuture
    }
}

extension AppStoreProduct {
    /// The standard products without Pro monthly's free trial: what these tests were
    /// written against, a first period of a month.
    static let standardWithoutTrial = AppStoreProduct.standard.map { product in
        var product = product
        product.introductoryOffer = nil
        return product
    }
}

extension StorePurchaseResult {
    /// The transaction of a successful purchase.
    var transaction: AppStoreTransaction? {
        if case .success(let result) = self { result.unsafePayloadValue } else { nil }
    }
}
