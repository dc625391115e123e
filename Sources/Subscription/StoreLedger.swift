import Foundation
import TrainCore

/// The simulated App Store's records: what it persists in its `RecordStore`.
enum StoreLedger {
    static let schema = StoreSchema(
        name: "appstore",
        migrations: [
            .createCollections(version: 1, ["transactions", "subscriptions", "pending", "meta"]),
            .createCollections(version: 2, ["device"]),
            .createCollections(version: 3, ["notifications", "refundRequests", "keys"]),
            .createCollections(version: 4, ["families", "shares"]),
        ])

    /// A transaction as the store keeps it: the Apple ID that owns it, whether it
    /// verifies, and whether the app finished it.
    struct Entry: Codable, Hashable, Sendable {
        var transaction: AppStoreTransaction
        var owner = AppleID.standard
        var verified: Bool
        var finished = false
        /// Counts the changes to the transaction, so its states can be told apart in order.
        var revision = 0
        /// Whether it was read from a layout before 5, whose reason and original purchase
        /// date the store derives when it loads the ledger; never stored.
        var hasDerivedFields = false

        private enum CodingKeys: String, CodingKey {
            case transaction, owner, verified, finished, revision
        }

        var result: StoreVerificationResult<AppStoreTransaction> {
            verified ? .verified(transaction) : .unverified(transaction, .invalidSignature)
        }
    }

    /// One subscription (a chain of transactions sharing an original ID): the one of its
    /// group that its Apple ID has.
    struct Subscription: Codable, Hashable, Sendable {
        var originalID: UInt64
        var groupID: String
        var owner = AppleID.standard
        /// The tag of its latest transaction, which renewals carry.
        var appAccountToken: UUID?
        var productID: String
        var latestTransactionID: UInt64
        var periodEnd: Date
        var state: RenewalState = .subscribed
        var willAutoRenew = true
        var autoRenewPreference: String
        var graceEnd: Date?
        var retryEnd: Date?
        var expirationReason: ExpirationReason?
        var priceIncrease: PriceIncreaseStatus = .noIncreasePending
        /// The offer the next renewals are at, and how many of them: the rest of a
        /// pay-as-you-go offer.
        var offer: TransactionOffer?
        var offerPeriodsLeft = 0
        /// A promotional offer or offer code redeemed for the next renewal, into
        /// ``autoRenewPreference``: it applies then.
        var pendingOffer: TransactionOffer?
        /// When the current run of paid service began, lapses shorter than 60 days
        /// ignored; nil in a record written before it was kept.
        var recentStart: Date?

        /// Makes `transaction` the current period, bought with `offer`: subscribed, in its
        /// product, with no billing issue or lapse pending, and the renewals a
        /// pay-as-you-go offer has left.
        mutating func begin(_ transaction: AppStoreTransaction, offer: SubscriptionOffer?) {
            begin(transaction)
            self.offer = offer.map(TransactionOffer.init)
            // Checked offers have 1 to 12 periods; a count below 1 leaves none, without overflow.
            offerPeriodsLeft = offer.map { $0.paymentMode == .payAsYouGo && $0.periodCount > 1 ? min($0.periodCount, 12) - 1 : 0 } ?? 0
        }

        /// Makes `transaction` the current period: subscribed, in its product and under its
        /// tag, with no billing issue or lapse pending.
        mutating func begin(_ transaction: AppStoreTransaction) {
            productID = transaction.productID
            appAccountToken = transaction.appAccountToken
            autoRenewPreference = transaction.productID
            latestTransactionID = transaction.id
            periodEnd = transaction.expirationDate ?? transaction.purchaseDate
            state = .subscribed
            graceEnd = nil
            retryEnd = nil
            expirationReason = nil
            pendingOffer = nil
        }

        /// Whether the end of its period, grace or billing retry has passed at `now`,
        /// so that settling changes it.
        func hasPassedBoundary(at now: Date) -> Bool {
            switch state {
            case .subscribed: periodEnd < now
            case .inGracePeriod: (graceEnd ?? .distantPast) < now
            case .inBillingRetryPeriod: (retryEnd ?? .distantPast) < now
            case .expired, .revoked: false
            }
        }

        /// Whether the user has access through it at `now`.
        func grantsAccess(at now: Date) -> Bool {
            switch state {
            case .subscribed: now <= periodEnd
            case .inGracePeriod: now <= (graceEnd ?? periodEnd)
            case .expired, .inBillingRetryPeriod, .revoked: false
            }
        }

        /// What happens at the next renewal; `winBackOfferIDs` are the group's win-back
        /// offers, listed once the subscription has lapsed.
        func renewalInfo(winBackOfferIDs: [String]) -> RenewalInfo {
            RenewalInfo(
                originalTransactionID: originalID, currentProductID: productID, willAutoRenew: willAutoRenew,
                autoRenewPreference: autoRenewPreference, expirationReason: expirationReason,
                gracePeriodExpirationDate: state == .inGracePeriod ? graceEnd : nil,
                isInBillingRetry: state == .inGracePeriod || state == .inBillingRetryPeriod,
                priceIncreaseStatus: priceIncrease, offer: nextOffer,
                eligibleWinBackOfferIDs: state == .expired ? winBackOfferIDs : [], recentSubscriptionStartDate: recentStart)
        }

        /// The offer the next renewal is at: one redeemed for it, or the rest of a
        /// pay-as-you-go offer; none once the subscription has lapsed.
        var nextOffer: TransactionOffer? {
            guard state != .expired, state != .revoked else { return nil }
            return pendingOffer ?? (offerPeriodsLeft > 0 && autoRenewPreference == productID ? offer : nil)
        }
    }

    /// A purchase shared with one family member: the member's own chain of transactions
    /// that mirrors the purchaser's subscription (or non-consumable) `purchase`.
    struct Share: Codable, Hashable, Sendable {
        /// The purchaser's subscription (its original ID), or the non-consumable's transaction.
        var purchase: UInt64
        /// The family member it is shared with.
        var member: AppleID
        /// The member's first shared transaction of it.
        var originalID: UInt64
        /// The member's latest shared transaction of it.
        var latestTransactionID: UInt64

        /// The key of the share of `purchase` with `member`.
        static func key(_ purchase: UInt64, _ member: AppleID) -> String { "\(StoreLedger.key(purchase))|\(member.email)" }
        var key: String { Self.key(purchase, member) }
    }

    /// A server notification as the store keeps it, unsigned: what happened, when, and
    /// the transaction and subscription as they were then. It is signed when read.
    struct Notice: Hashable, Sendable {
        var id: UUID
        var type: StoreNotificationType
        var subtype: StoreNotificationSubtype?
        var date: Date
        var entry: Entry?
        var subscription: Subscription?
        var refundReason: RefundRequestReason?

        /// The identifier of a notice not written yet.
        static let unnumbered = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    }

    // The ledger is written on every renewal, so its records use a compact binary
    // layout; records that an earlier version wrote as JSON are still read.
    static let transactions = binary("transactions", encode: Entry.write, decode: { reader throws(CoreError) in try Entry(from: &reader) })
    static let subscriptions = binary(
        "subscriptions", encode: Subscription.write, decode: { reader throws(CoreError) in try Subscription(from: &reader) })
    static let pending = RecordCollection<PendingPurchase>("pending")
    /// Server notifications by their number (``key(_:)``), oldest first.
    static let notifications = RecordCollection<Notice>(
        "notifications",
        encode: { notice in
            var writer = BinaryWriter(format: format)
            Notice.write(notice, to: &writer)
            return writer.data
        },
        decode: { data in
            // Notifications came with layout 5; its records are read as the later ones.
            try BinaryReader.reading(data, formats: [5, format]) { reader throws(CoreError) in
                let notice = try Notice(from: &reader)
                try reader.finish()
                return notice
            }
        })
    /// Refunds customers asked for and the App Store has not decided, by transaction (``key(_:)``), with their reason.
    static let refundRequests = RecordCollection<RefundRequestReason>("refundRequests")
    /// Family groups by their organizer's Apple ID.
    static let families = RecordCollection<FamilyGroup>("families")
    /// Purchases shared with family members, by ``Share/key``.
    static let shares = RecordCollection<Share>("shares")
    /// ``notificationKeyName`` → the key the store signs its server notifications with.
    static let keys = RecordCollection<Data>("keys")
    static let notificationKeyName = "notifications"
    /// The device's Apple ID, under ``deviceKey``.
    static let device = RecordCollection<AppleID>("device")
    static let deviceKey = "appleID"
    static let meta = binary(
        "meta", encode: { value, writer in writer.write(value) },
        decode: { reader throws(CoreError) in try reader.read() as UInt64 })

    /// The binary layout of every ledger record: 2 adds the owning Apple ID to
    /// transactions and subscriptions (a record of layout 1 belongs to
    /// ``AppleID/standard``); 3 adds a transaction's product type and quantity (before,
    /// every transaction was one auto-renewable subscription period); 4 adds the offer
    /// and price of a transaction and the offer periods a subscription has left; 5 a
    /// transaction's reason, original purchase date and storefront (before, the reason
    /// is read from whether it continues an earlier transaction, and the original
    /// purchase date from that transaction); 6 a subscription's offer redeemed for its
    /// next renewal and the start of its current run of paid service.
    static let format: UInt8 = 6

    /// A collection of ledger records in the binary layout.
    private static func binary<Value: Codable & Sendable>(
        _ name: String, encode: @escaping @Sendable (Value, inout BinaryWriter) -> Void,
        decode: @escaping @Sendable (inout BinaryReader) throws(CoreError) -> Value
    ) -> RecordCollection<Value> {
        .binary(name, format: format, earlierFormats: [1, 2, 3, 4, 5], encode: encode, decode: decode)
    }

    /// The key of a transaction or subscription: its ID in 20 zero-padded digits, so
    /// keys sort as the IDs do.
    static func key(_ id: UInt64) -> String {
        String(unsafeUninitializedCapacity: 20) { digits in
            var rest = id
            for index in stride(from: 19, through: 0, by: -1) {
                digits[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            }
            return 20
        }
    }
}

/// A purchase waiting for a parent's approval (Ask to Buy) or for an interruption to be resolved.
public struct PendingPurchase: Codable, Hashable, Sendable, Identifiable {
    /// Why it waits.
    public enum Kind: String, Codable, Hashable, Sendable {
        /// Ask to Buy: a parent approves or declines; it lapses after 24 hours.
        case askToBuy
        /// An interrupted purchase (terms to accept, a payment method to fix).
        case interrupted
    }

    /// The request's identifier.
    public var id: String
    /// The identifier the store lists it under in ``SimulatedAppStore/testTransactions``,
    /// as `SKTestSession.allTransactions()` lists a deferred purchase: the controls
    /// approve, decline or resolve it by this identifier. When it goes through as a new
    /// transaction (a new subscription, an upgrade or a same-period crossgrade), that
    /// transaction carries it; a downgrade or a crossgrade to another period only
    /// changes what renews, as a purchase in the app does, and the identifier is not used.
    public var transactionID: UInt64
    /// The product asked for.
    public var productID: String
    /// The Apple ID that asked, which owns the purchase once it goes through.
    public var appleID: AppleID
    /// The app user who asked, if one was signed in.
    public var appAccountToken: UUID?
    /// When it was asked.
    public var requestedAt: Date
    /// Why it waits.
    public var kind: Kind
    /// Whether it was asked with access per app user: then approving it is refused while
    /// the Apple ID's subscription in the group is another app user's.
    var exclusive = false
    /// The offer it asks for, beside an introductory one.
    var offer: PurchaseOffer?

    /// Creates a pending purchase.
    /// - Parameters:
    ///   - id: The request's identifier.
    ///   - transactionID: The identifier the store lists it under.
    ///   - productID: The product.
    ///   - appleID: The Apple ID that asked.
    ///   - appAccountToken: The app user.
    ///   - requestedAt: When.
    ///   - kind: Why it waits.
    public init(
        id: String, transactionID: UInt64, productID: String, appleID: AppleID = .standard, appAccountToken: UUID?, requestedAt: Date,
        kind: Kind
    ) {
        self.id = id
        self.transactionID = transactionID
        self.productID = productID
        self.appleID = appleID
        self.appAccountToken = appAccountToken
        self.requestedAt = requestedAt
        self.kind = kind
    }

    private enum CodingKeys: String, CodingKey {
        case id, transactionID, productID, appleID, appAccountToken, requestedAt, kind, exclusive, offer
    }

    /// Decodes a pending purchase; one saved before requests had a transaction
    /// identifier decodes with 0, and a file-backed store gives it one, and writes it,
    /// when it opens. One saved before requests had an Apple ID is of ``AppleID/standard``.
    /// - Parameter decoder: The decoder.
    /// - Throws: The decoder's error.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        transactionID = try container.decodeIfPresent(UInt64.self, forKey: .transactionID) ?? 0
        productID = try container.decode(String.self, forKey: .productID)
        appleID = try container.decodeIfPresent(AppleID.self, forKey: .appleID) ?? .standard
        appAccountToken = try container.decodeIfPresent(UUID.self, forKey: .appAccountToken)
        requestedAt = try container.decode(Date.self, forKey: .requestedAt)
        kind = try container.decode(Kind.self, forKey: .kind)
        exclusive = try container.decodeIfPresent(Bool.self, forKey: .exclusive) ?? false
        offer = try container.decodeIfPresent(PurchaseOffer.self, forKey: .offer)
    }
}

/// An entry of the simulated store's transaction list as `SKTestSession.allTransactions()`
/// shows it: a transaction that was bought, or a purchase still waiting for a parent's
/// Ask to Buy approval or for an interruption to be resolved.
public struct StoreTestTransaction: Hashable, Sendable, Identifiable {
    /// The identifier: the transaction's, or the one a waiting purchase will be bought under.
    public var id: UInt64
    /// The product.
    public var productID: String
    /// The app user it is for.
    public var appAccountToken: UUID?
    /// The transaction once bought; nil while the purchase waits.
    public var transaction: StoreVerificationResult<AppStoreTransaction>?
    /// Whether it waits for a parent's Ask to Buy approval (`pendingAskToBuyConfirmation`).
    public var pendingAskToBuyConfirmation: Bool
    /// Whether it waits for an interruption to be resolved (`hasPurchaseIssue`).
    public var hasPurchaseIssue: Bool

    /// A transaction that was bought.
    /// - Parameter transaction: The transaction.
    public init(_ transaction: StoreVerificationResult<AppStoreTransaction>) {
        let payload = transaction.unsafePayloadValue
        id = payload.id
        productID = payload.productID
        appAccountToken = payload.appAccountToken
        self.transaction = transaction
        pendingAskToBuyConfirmation = false
        hasPurchaseIssue = false
    }

    /// A purchase that waits.
    /// - Parameter pending: The waiting purchase.
    public init(_ pending: PendingPurchase) {
        id = pending.transactionID
        productID = pending.productID
        appAccountToken = pending.appAccountToken
        transaction = nil
        pendingAskToBuyConfirmation = pending.kind == .askToBuy
        hasPurchaseIssue = pending.kind == .interrupted
    }
}

// MARK: - Binary layouts

extension StoreLedger.Entry {
    static func write(_ entry: Self, to writer: inout BinaryWriter) {
        let transaction = entry.transaction
        writer.write(transaction.id)
        writer.write(transaction.originalID)
        writer.write(transaction.productID)
        writer.write(transaction.subscriptionGroupID ?? "")
        writer.write(transaction.purchaseDate)
        writer.write(transaction.expirationDate)
        writer.write(transaction.revocationDate)
        writer.write(transaction.revocationReason?.rawValue)
        writer.write(transaction.isUpgraded)
        writer.write(transaction.ownershipType.rawValue)
        writer.write(transaction.appAccountToken)
        writer.write(transaction.environment.rawValue)
        writer.write(entry.verified)
        writer.write(entry.finished)
        writer.write(entry.revision)
        writer.write(entry.owner.email)
        writer.write(transaction.productType.rawValue)
        writer.write(transaction.purchasedQuantity)
        writer.write(transaction.offer)
        writer.write(price: transaction.price)
        writer.write(transaction.currency)
        writer.write(transaction.reason.rawValue)
        writer.write(transaction.originalPurchaseDate)
        writer.write(transaction.storefrontCountryCode)
    }

    init(from reader: inout BinaryReader) throws(CoreError) {
        var transaction = AppStoreTransaction(
            id: try reader.read(), originalID: try reader.read(), productID: try reader.read(),
            subscriptionGroupID: (try reader.read() as String).nonEmpty,
            purchaseDate: try reader.read(), expirationDate: try reader.read(), revocationDate: try reader.read(),
            revocationReason: try reader.read(TransactionRevocationReason?.self),
            isUpgraded: try reader.read(), ownershipType: try reader.read(OwnershipType.self), appAccountToken: try reader.read(),
            environment: try reader.read(StoreEnvironment.self))
        let (verified, finished, revision): (Bool, Bool, Int) = (try reader.read(), try reader.read(), try reader.read())
        let owner = reader.format >= 2 ? try AppleID(stored: try reader.read()) : .standard
        if reader.format >= 3 {
            transaction.productType = try reader.read(StoreProductType.self)
            transaction.purchasedQuantity = try reader.read()
            guard transaction.purchasedQuantity >= 1 else {
                throw CoreError(.undecodable, detail: "A quantity of \(transaction.purchasedQuantity) was bought.")
            }
        }
        if reader.format >= 4 {
            transaction.offer = try reader.read(TransactionOffer?.self)
            transaction.price = try reader.readPrice()
            transaction.currency = try reader.read()
        }
        if reader.format >= 5 {
            transaction.reason = try reader.read(TransactionReason.self)
            transaction.originalPurchaseDate = try reader.read()
            transaction.storefrontCountryCode = try reader.read()
        }
        self.init(
            transaction: transaction, owner: owner, verified: verified, finished: finished, revision: revision,
            hasDerivedFields: reader.format < 5)
    }
}

extension StoreLedger.Subscription {
    static func write(_ subscription: Self, to writer: inout BinaryWriter) {
        writer.write(subscription.originalID)
        writer.write(subscription.groupID)
        writer.write(subscription.appAccountToken)
        writer.write(subscription.productID)
        writer.write(subscription.latestTransactionID)
        writer.write(subscription.periodEnd)
        writer.write(subscription.state.rawValue)
        writer.write(subscription.willAutoRenew)
        writer.write(subscription.autoRenewPreference)
        writer.write(subscription.graceEnd)
        writer.write(subscription.retryEnd)
        writer.write(subscription.expirationReason?.rawValue)
        writer.write(subscription.priceIncrease.rawValue)
        writer.write(subscription.owner.email)
        writer.write(subscription.offer)
        writer.write(subscription.offerPeriodsLeft)
        // What layout 6 added; a record written in an earlier layout, as a test writes one, lacks it.
        guard writer.format >= 6 else { return }
        writer.write(subscription.pendingOffer)
        writer.write(subscription.recentStart)
    }

    init(from reader: inout BinaryReader) throws(CoreError) {
        self.init(
            originalID: try reader.read(), groupID: try reader.read(), appAccountToken: try reader.read(),
            productID: try reader.read(), latestTransactionID: try reader.read(), periodEnd: try reader.read(),
            state: try reader.read(RenewalState.self), willAutoRenew: try reader.read(), autoRenewPreference: try reader.read(),
            graceEnd: try reader.read(), retryEnd: try reader.read(), expirationReason: try reader.read(ExpirationReason?.self),
            priceIncrease: try reader.read(PriceIncreaseStatus.self))
        if reader.format >= 2 { owner = try AppleID(stored: try reader.read()) }
        if reader.format >= 4 {
            offer = try reader.read(TransactionOffer?.self)
            offerPeriodsLeft = try reader.read()
            guard (0...11).contains(offerPeriodsLeft) else {
                throw CoreError(.undecodable, detail: "A subscription has \(offerPeriodsLeft) offer periods left.")
            }
        }
        if reader.format >= 6 {
            pendingOffer = try reader.read(TransactionOffer?.self)
            recentStart = try reader.read()
        }
    }
}

extension StoreLedger {
    /// The records one change writes, each encoded once: a notice takes the bytes of the
    /// transaction and subscription it names when they are the ones written beside it.
    struct Encoded {
        private var entries = Written()
        private var subscriptions = Written()

        /// A transaction's record.
        mutating func entry(_ entry: Entry) -> Data {
            var writer = BinaryWriter(format: format)
            Entry.write(entry, to: &writer)
            let data = writer.data
            entries.add(data, id: entry.transaction.id)
            return data
        }

        /// A subscription's record.
        mutating func subscription(_ subscription: Subscription) -> Data {
            var writer = BinaryWriter(format: format)
            Subscription.write(subscription, to: &writer)
            let data = writer.data
            subscriptions.add(data, id: subscription.originalID)
            return data
        }

        /// A notice's record, with the fields of its transaction and subscription copied
        /// from their records where this change wrote those and they hold the same
        /// values. `entries` and `subscriptions` are the ledger's state the change's
        /// records were encoded from.
        func notice(_ notice: Notice, entries stateEntries: [UInt64: Entry], subscriptions stateSubscriptions: [UInt64: Subscription]) -> Data {
            var writer = BinaryWriter(format: format)
            notice.writeHeader(to: &writer)
            writer.write(notice.entry != nil)
            if let entry = notice.entry {
                let id = entry.transaction.id
                if let data = entries.data(of: id), stateEntries.holds(entry, forKey: id) {
                    writer.writeFields(of: data)
                } else {
                    Entry.write(entry, to: &writer)
                }
            }
            writer.write(notice.subscription != nil)
            if let subscription = notice.subscription {
                let id = subscription.originalID
                if let data = subscriptions.data(of: id), stateSubscriptions.holds(subscription, forKey: id) {
                    writer.writeFields(of: data)
                } else {
                    Subscription.write(subscription, to: &writer)
                }
            }
            return writer.data
        }

        /// The records of one kind written so far, by ID. A change usually writes a
        /// few: they are searched from the newest, and indexed by a dictionary only once
        /// there are more than eight.
        private struct Written {
            private var list: [(id: UInt64, data: Data)] = []
            private var index: [UInt64: Int] = [:]

            mutating func add(_ data: Data, id: UInt64) {
                list.append((id, data))
                guard list.count > 8 else { return }
                if index.isEmpty {
                    for position in list.indices { index[list[position].id] = position }
                } else {
                    index[id] = list.count - 1
                }
            }

            /// The bytes last written for `id`.
            func data(of id: UInt64) -> Data? {
                if !index.isEmpty { return index[id].map { list[$0].data } }
                var position = list.count - 1
                while position >= 0, list[position].id != id { position -= 1 }
                return position >= 0 ? list[position].data : nil
            }
        }
    }
}

extension StoreLedger.Notice {
    static func write(_ notice: Self, to writer: inout BinaryWriter) {
        notice.writeHeader(to: &writer)
        writer.write(notice.entry != nil)
        if let entry = notice.entry { StoreLedger.Entry.write(entry, to: &writer) }
        writer.write(notice.subscription != nil)
        if let subscription = notice.subscription { StoreLedger.Subscription.write(subscription, to: &writer) }
    }

    /// The fields before the transaction and subscription.
    func writeHeader(to writer: inout BinaryWriter) {
        writer.write(id)
        writer.write(type.rawValue)
        writer.write(subtype?.rawValue)
        writer.write(date)
        writer.write(refundReason?.rawValue)
    }

    init(from reader: inout BinaryReader) throws(CoreError) {
        id = try reader.read()
        type = StoreNotificationType(rawValue: try reader.read())
        subtype = (try reader.read() as String?).map(StoreNotificationSubtype.init(rawValue:))
        date = try reader.read()
        refundReason = (try reader.read() as String?).map(RefundRequestReason.init(rawValue:))
        entry = try reader.read() ? try StoreLedger.Entry(from: &reader) : nil
        subscription = try reader.read() ? try StoreLedger.Subscription(from: &reader) : nil
    }
}

extension BinaryWriter {
    /// Writes a price, or its absence: 0 for none; 1, the exponent and the significand
    /// (signed) when it fits in 64 bits, as every price does; else 2 and its text.
    /// Formatting a `Decimal` as text costs more than the rest of a renewal's record.
    mutating func write(price: Decimal?) {
        guard let price else { return write(0) }
        let magnitude = NSDecimalNumber(decimal: price.significand).int64Value
        guard Decimal(magnitude) == price.significand else {
            write(2)
            return write("\(price)")
        }
        write(1)
        write(price.exponent)
        write(Int(price.sign == .minus ? -magnitude : magnitude))
    }

    /// Writes an offer, or its absence.
    mutating func write(_ offer: TransactionOffer?) {
        write(offer?.type.rawValue)
        write(offer?.id)
        write(offer?.paymentMode.rawValue)
    }
}

extension BinaryReader {
    /// Reads what ``BinaryWriter/write(price:)`` wrote.
    mutating func readPrice() throws(CoreError) -> Decimal? {
        switch try read() as Int {
        case 0: return nil
        case 1:
            let exponent: Int = try read()
            let significand: Int = try read()
            guard (-128...127).contains(exponent) else { throw CoreError(.undecodable, detail: "A price's exponent is \(exponent).") }
            return Decimal(
                sign: significand < 0 ? .minus : .plus, exponent: exponent, significand: Decimal(significand.magnitude))
        case 2:
            let text: String = try read()
            guard let price = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                throw CoreError(.undecodable, detail: "'\(text)' is not a price.")
            }
            return price
        case let tag:
            throw CoreError(.undecodable, detail: "A price is tagged \(tag).")
        }
    }

    /// Reads an offer, or its absence.
    mutating func read(_ type: TransactionOffer?.Type) throws(CoreError) -> TransactionOffer? {
        let kind = try read(SubscriptionOffer.OfferType?.self)
        let id: String? = try read()
        let mode = try read(SubscriptionOffer.PaymentMode?.self)
        guard let kind, let mode else { return nil }
        return TransactionOffer(type: kind, id: id, paymentMode: mode)
    }
}

extension String {
    /// The string, or nil if it is empty.
    fileprivate var nonEmpty: String? { isEmpty ? nil : self }
}

extension AppleID {
    /// An Apple ID read from the ledger: checked as a new one is.
    init(stored email: String) throws(CoreError) {
        do { try self.init(email) } catch { throw CoreError(.undecodable, detail: "'\(email)' is not an Apple ID.") }
    }
}

// MARK: - JSON an earlier version wrote

extension StoreLedger.Entry {
    /// Decodes an entry; one written before transactions had an owner belongs to ``AppleID/standard``.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        transaction = try container.decode(AppStoreTransaction.self, forKey: .transaction)
        owner = try container.decodeIfPresent(AppleID.self, forKey: .owner) ?? .standard
        verified = try container.decode(Bool.self, forKey: .verified)
        finished = try container.decodeIfPresent(Bool.self, forKey: .finished) ?? false
        revision = try container.decodeIfPresent(Int.self, forKey: .revision) ?? 0
        hasDerivedFields = true
    }
}

extension StoreLedger.Subscription {
    /// Decodes a subscription; one written before subscriptions had an owner belongs to ``AppleID/standard``.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        originalID = try container.decode(UInt64.self, forKey: .originalID)
        groupID = try container.decode(String.self, forKey: .groupID)
        owner = try container.decodeIfPresent(AppleID.self, forKey: .owner) ?? .standard
        appAccountToken = try container.decodeIfPresent(UUID.self, forKey: .appAccountToken)
        productID = try container.decode(String.self, forKey: .productID)
        latestTransactionID = try container.decode(UInt64.self, forKey: .latestTransactionID)
        periodEnd = try container.decode(Date.self, forKey: .periodEnd)
        state = try container.decode(RenewalState.self, forKey: .state)
        willAutoRenew = try container.decode(Bool.self, forKey: .willAutoRenew)
        autoRenewPreference = try container.decode(String.self, forKey: .autoRenewPreference)
        graceEnd = try container.decodeIfPresent(Date.self, forKey: .graceEnd)
        retryEnd = try container.decodeIfPresent(Date.self, forKey: .retryEnd)
        expirationReason = try container.decodeIfPresent(ExpirationReason.self, forKey: .expirationReason)
        priceIncrease = try container.decode(PriceIncreaseStatus.self, forKey: .priceIncrease)
        offer = try container.decodeIfPresent(TransactionOffer.self, forKey: .offer)
        offerPeriodsLeft = try container.decodeIfPresent(Int.self, forKey: .offerPeriodsLeft) ?? 0
        pendingOffer = try container.decodeIfPresent(TransactionOffer.self, forKey: .pendingOffer)
        recentStart = try container.decodeIfPresent(Date.self, forKey: .recentStart)
    }
}

extension Dictionary where Value: Equatable {
    /// Whether the value under `key` is `value`, compared where the dictionary keeps it
    /// rather than on a copy.
    fileprivate func holds(_ value: Value, forKey key: Key) -> Bool {
        guard let index = index(forKey: key) else { return false }
        return values[index] == value
    }
}
