import Foundation

/// A discounted or free stretch of an auto-renewable subscription: StoreKit's
/// `Product.SubscriptionOffer`.
///
/// An introductory offer applies by itself to an Apple ID that has never had a
/// subscription in the group (``SubscriptionPurchasing/isEligibleForIntroOffer(groupID:)``);
/// a promotional or win-back offer is asked for with the purchase
/// (``SubscriptionPurchasing/purchase(_:offer:)``); an offer code is redeemed outside the
/// app (``SimulatedAppStore/redeemOfferCode(_:appAccountToken:)``).
public struct SubscriptionOffer: Codable, Hashable, Sendable {
    /// Which kind of offer: StoreKit's `Transaction.OfferType`.
    public enum OfferType: String, Codable, Hashable, Sendable, CaseIterable {
        /// For an Apple ID that has never subscribed in the group; applied by itself.
        case introductory
        /// For a current or past subscriber of the group, asked for by the app.
        case promotional
        /// Redeemed with an offer code.
        case code
        /// For a past subscriber whose subscription in the group has lapsed.
        case winBack
    }

    /// How the offer is paid: StoreKit's `PaymentMode`.
    public enum PaymentMode: String, Codable, Hashable, Sendable, CaseIterable {
        /// Nothing for ``SubscriptionOffer/period``.
        case freeTrial
        /// ``SubscriptionOffer/price`` for each of ``SubscriptionOffer/periodCount`` periods.
        case payAsYouGo
        /// ``SubscriptionOffer/price`` once, for ``SubscriptionOffer/period``.
        case payUpFront
    }

    /// The offer's identifier; nil for an introductory offer, which a product has one of.
    public var id: String?
    /// The kind of offer.
    public var type: OfferType
    /// How it is paid.
    public var paymentMode: PaymentMode
    /// The length of one offer period.
    public var period: BillingPeriod
    /// How many offer periods: more than one only when paying as you go.
    public var periodCount: Int
    /// What each offer period costs: 0 for a free trial.
    public var price: Decimal

    /// Creates an offer.
    /// - Parameters:
    ///   - id: The identifier; nil for an introductory offer.
    ///   - type: The kind.
    ///   - paymentMode: How it is paid.
    ///   - period: One offer period.
    ///   - periodCount: How many periods; 1 unless paying as you go.
    ///   - price: Each period's price; 0 for a free trial.
    public init(
        id: String? = nil, type: OfferType, paymentMode: PaymentMode, period: BillingPeriod, periodCount: Int = 1, price: Decimal = 0
    ) {
        self.id = id
        self.type = type
        self.paymentMode = paymentMode
        self.period = period
        self.periodCount = periodCount
        self.price = price
    }

    /// A free trial for new subscribers, such as a week.
    /// - Parameter period: How long it lasts.
    /// - Returns: The introductory offer.
    public static func freeTrial(_ period: BillingPeriod) -> SubscriptionOffer {
        SubscriptionOffer(type: .introductory, paymentMode: .freeTrial, period: period)
    }

    /// Checks the offer: a free trial costs nothing and the others something; an
    /// introductory offer has no identifier and the others one of 1 to 200 bytes without
    /// control characters; 1 to 12 periods when paying as you go, else one.
    /// - Throws: ``TrainCore/TrainErrorCode/invalidArgument`` naming what is wrong.
    public func validate() throws(SubscriptionError) {
        func fail(_ why: String) -> SubscriptionError {
            SubscriptionError(.invalidArgument, detail: "Offer '\(id ?? type.rawValue)': \(why)")
        }
        switch (type, id) {
        case (.introductory, nil): break
        case (.introductory, _?): throw fail("an introductory offer has no identifier.")
        case (_, nil): throw fail("a \(type.rawValue) offer has an identifier.")
        case (_, let id?):
            guard (1...200).contains(id.utf8.count), !id.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw fail("the identifier has 1 to 200 bytes and no control characters.")
            }
        }
        guard !price.isNaN, paymentMode == .freeTrial ? price == 0 : price >= 0 else {
            throw fail("a free trial costs nothing, and a price is zero or more.")
        }
        guard paymentMode == .payAsYouGo ? (1...12).contains(periodCount) : periodCount == 1 else {
            throw fail("paying as you go takes 1 to 12 periods, the other modes one.")
        }
    }
}

/// The offer a purchase asks for, beside an introductory offer, which applies by itself.
public enum PurchaseOffer: Hashable, Sendable {
    /// A promotional offer of the product, for a current or past subscriber of its group.
    case promotional(id: String)
    /// A win-back offer of the product, for a past subscriber whose subscription has lapsed.
    case winBack(id: String)

    /// The kind of offer asked for.
    public var type: SubscriptionOffer.OfferType {
        switch self {
        case .promotional: .promotional
        case .winBack: .winBack
        }
    }

    /// The identifier of the offer asked for.
    public var id: String {
        switch self {
        case .promotional(let id), .winBack(let id): id
        }
    }

    /// The kind and identifier asked for.
    var request: (type: SubscriptionOffer.OfferType, id: String) { (type, id) }
}

extension PurchaseOffer: Codable {
    private enum CodingKeys: String, CodingKey {
        case type, id
    }

    /// Decodes the offer asked for.
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError` for a kind other than promotional or win-back.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let id = try container.decode(String.self, forKey: .id)
        switch try container.decode(SubscriptionOffer.OfferType.self, forKey: .type) {
        case .promotional: self = .promotional(id: id)
        case .winBack: self = .winBack(id: id)
        case .introductory, .code:
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: container, debugDescription: "A purchase asks for a promotional or win-back offer.")
        }
    }

    /// Encodes the kind and identifier.
    /// - Parameter encoder: The encoder.
    /// - Throws: The encoder's error.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(request.type, forKey: .type)
        try container.encode(request.id, forKey: .id)
    }
}

/// The offer a transaction was bought with: StoreKit's `Transaction.Offer`.
public struct TransactionOffer: Codable, Hashable, Sendable {
    /// The kind of offer.
    public var type: SubscriptionOffer.OfferType
    /// Its identifier; nil for an introductory offer.
    public var id: String?
    /// How it was paid.
    public var paymentMode: SubscriptionOffer.PaymentMode

    /// Creates the record of an offer.
    /// - Parameters:
    ///   - type: The kind.
    ///   - id: The identifier.
    ///   - paymentMode: How it was paid.
    public init(type: SubscriptionOffer.OfferType, id: String?, paymentMode: SubscriptionOffer.PaymentMode) {
        self.type = type
        self.id = id
        self.paymentMode = paymentMode
    }

    init(_ offer: SubscriptionOffer) {
        self.init(type: offer.type, id: offer.id, paymentMode: offer.paymentMode)
    }
}

/// What kind of period a transaction pays for, as the App Store's receipts tell them apart.
public enum SubscriptionPeriodType: String, Codable, Hashable, Sendable {
    /// A period at the regular price, or bought with a promotional, win-back or code offer.
    case normal
    /// A free trial of an introductory offer.
    case trial
    /// A discounted period of an introductory offer (pay as you go, or pay up front).
    case intro
}
