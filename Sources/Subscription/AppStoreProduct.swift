import Foundation

/// What kind of in-app purchase a product is: StoreKit's `Product.ProductType`.
public enum StoreProductType: String, Codable, Hashable, Sendable, CaseIterable {
    /// A subscription that renews at the end of each period until cancelled, one per
    /// subscription group at a time.
    case autoRenewable
    /// A subscription bought once for a fixed length of access; it does not renew. The
    /// App Store does not date its end (StoreKit leaves that to the app): TrainKit's
    /// service counts ``AppStoreProduct/period`` from the purchase.
    case nonRenewable
    /// Bought once and kept for good, such as a lifetime unlock.
    case nonConsumable
    /// Used up and bought again, such as credits; it is never an entitlement.
    case consumable
}

/// The length of a subscription period: StoreKit's `Product.SubscriptionPeriod`, a
/// count of days, weeks, months or years, written in ISO 8601 as `P1W`, `P3M`, `P1Y`.
public struct BillingPeriod: Hashable, Sendable, CustomStringConvertible {
    /// The unit of a period.
    public enum Unit: String, Codable, Hashable, Sendable, CaseIterable {
        /// Days.
        case day
        /// Weeks of seven days.
        case week
        /// Calendar months.
        case month
        /// Calendar years.
        case year

        /// The most of this unit a period may have: 366 days, 52 weeks, 24 months or 10 years.
        public var maximum: Int {
            switch self {
            case .day: 366
            case .week: 52
            case .month: 24
            case .year: 10
            }
        }

        fileprivate var component: Calendar.Component {
            switch self {
            case .day: .day
            case .week: .weekOfYear
            case .month: .month
            case .year: .year
            }
        }

        fileprivate var letter: Character {
            switch self {
            case .day: "D"
            case .week: "W"
            case .month: "M"
            case .year: "Y"
            }
        }

        /// How long the unit lasts, in months, at an accelerated rate where a month is a
        /// fixed length: a day is 1/30 of a month, a week 7/30, a year 12.
        var months: Double {
            switch self {
            case .day: 1 / 30
            case .week: 7 / 30
            case .month: 1
            case .year: 12
            }
        }
    }

    /// How many units.
    public let value: Int
    /// The unit.
    public let unit: Unit

    /// Creates a period.
    /// - Parameters:
    ///   - value: How many units: 1 up to the unit's ``Unit/maximum``.
    ///   - unit: The unit.
    /// - Throws: ``TrainCore/TrainErrorCode/invalidArgument`` for a value out of range.
    public init(value: Int, unit: Unit) throws(SubscriptionError) {
        guard (1...unit.maximum).contains(value) else {
            throw SubscriptionError(.invalidArgument, detail: "A period has 1 to \(unit.maximum) \(unit.rawValue)s, not \(value).")
        }
        self.init(checked: value, unit)
    }

    private init(checked value: Int, _ unit: Unit) {
        self.value = value
        self.unit = unit
    }

    /// Reads an ISO 8601 period of one unit, as StoreKit configuration files write them: `P3D`, `P1W`, `P6M`, `P1Y`.
    /// - Parameter iso8601: The period.
    /// - Throws: ``TrainCore/TrainErrorCode/invalidArgument`` for anything else.
    public init(iso8601: String) throws(SubscriptionError) {
        let characters = Array(iso8601)
        guard characters.count >= 3, characters.first == "P", let last = characters.last,
            let unit = Unit.allCases.first(where: { $0.letter == last }),
            characters.dropFirst().dropLast().allSatisfy({ $0.isASCII && $0.isNumber }),
            let value = Int(String(characters.dropFirst().dropLast()))
        else {
            throw SubscriptionError(.invalidArgument, detail: "'\(iso8601)' is not a period such as P1W, P1M or P1Y.")
        }
        try self.init(value: value, unit: unit)
    }

    /// The period in ISO 8601, such as `P1M`.
    public var iso8601: String { "P\(value)\(unit.letter)" }

    /// The period in ISO 8601.
    public var description: String { iso8601 }

    /// One day.
    public static let day = BillingPeriod(checked: 1, .day)
    /// One week.
    public static let week = BillingPeriod(checked: 1, .week)
    /// One month.
    public static let month = BillingPeriod(checked: 1, .month)
    /// Two months.
    public static let twoMonths = BillingPeriod(checked: 2, .month)
    /// Three months.
    public static let threeMonths = BillingPeriod(checked: 3, .month)
    /// Six months.
    public static let sixMonths = BillingPeriod(checked: 6, .month)
    /// One year.
    public static let year = BillingPeriod(checked: 1, .year)

    /// The end of `count` periods from `start` in real time: calendar days, weeks,
    /// months or years in UTC (a month from 31 January ends on the last day of February).
    /// - Parameters:
    ///   - start: When the first period starts.
    ///   - count: How many periods.
    /// - Returns: When the last one ends.
    public func end(after start: Date, count: Int = 1) -> Date {
        let (units, overflow) = value.multipliedReportingOverflow(by: count)
        guard !overflow, let end = Self.utc.date(byAdding: unit.component, value: units, to: start) else { return .distantFuture }
        return end
    }

    /// How many whole periods fit between `start` and `end` in real time.
    func count(from start: Date, to end: Date) -> Int? {
        Self.utc.dateComponents([unit.component], from: start, to: end).value(for: unit.component).map { $0 / value }
    }

    /// The Gregorian calendar in UTC, which real-time periods are counted on.
    private static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        return calendar
    }()

    /// The period in months at an accelerated rate where a month is a fixed length.
    var months: Double { Double(value) * unit.months }
}

extension BillingPeriod: Codable {
    /// Decodes a period from its ISO 8601 form, or from `"month"` or `"year"` as earlier versions wrote it.
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError.dataCorrupted` for anything else.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        switch text {
        case "month": self = .month
        case "year": self = .year
        default:
            do {
                try self.init(iso8601: text)
            } catch {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(error)")
            }
        }
    }

    /// Encodes the period in ISO 8601.
    /// - Parameter encoder: The encoder.
    /// - Throws: The encoder's error.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(iso8601)
    }
}

/// A product on sale: an auto-renewable subscription, a non-renewing subscription, a
/// non-consumable or a consumable, and the tier it grants.
public struct AppStoreProduct: Codable, Hashable, Sendable, Identifiable {
    /// The product identifier, such as `com.train.pro.monthly`.
    public var id: String
    /// The name shown to users.
    public var displayName: String
    /// What kind of purchase it is.
    public var type: StoreProductType
    /// The tier it grants while it is an entitlement; a consumable grants none.
    public var tier: SubscriptionTier
    /// The renewal period of an auto-renewable subscription, or the length of access of
    /// a non-renewing one; nil for other products.
    public var period: BillingPeriod?
    /// The price, in the storefront's currency.
    public var price: Decimal
    /// The subscription group of an auto-renewable subscription, whose products replace
    /// one another; nil for other products.
    public var subscriptionGroupID: String?
    /// The introductory offer of an auto-renewable subscription (a free trial, or a
    /// discount), which applies by itself to an Apple ID new to the group.
    public var introductoryOffer: SubscriptionOffer?
    /// The promotional, offer-code and win-back offers of an auto-renewable subscription.
    public var offers: [SubscriptionOffer] = []
    /// Its price in each storefront it is sold in, by country code. Empty, the product is
    /// sold in every storefront at ``price``; otherwise only in these, at these prices.
    /// Offers cost the same in every storefront.
    public var prices: [String: Decimal] = [:]
    /// The name in other languages, by locale identifier such as `de_DE`; a locale not
    /// listed reads ``displayName``.
    public var localizedNames: [String: String] = [:]
    /// Whether a purchase of it is shared with the buyer's family group (Family
    /// Sharing): only an auto-renewable subscription or a non-consumable can be.
    public var isFamilyShareable = false

    /// Creates an auto-renewable subscription.
    /// - Parameters:
    ///   - id: The product identifier.
    ///   - displayName: The name shown to users.
    ///   - tier: The tier granted.
    ///   - period: The renewal period.
    ///   - price: The price.
    ///   - subscriptionGroupID: The subscription group.
    public init(
        id: String, displayName: String, tier: SubscriptionTier, period: BillingPeriod, price: Decimal,
        subscriptionGroupID: String = "train.subscriptions"
    ) {
        self.init(id: id, displayName: displayName, type: .autoRenewable, tier: tier, period: period, price: price, group: subscriptionGroupID)
    }

    private init(
        id: String, displayName: String, type: StoreProductType, tier: SubscriptionTier, period: BillingPeriod?, price: Decimal,
        group: String?
    ) {
        self.id = id
        self.displayName = displayName
        self.type = type
        self.tier = tier
        self.period = period
        self.price = price
        self.subscriptionGroupID = group
    }

    /// A non-renewing subscription: `duration` of access from each purchase.
    /// - Parameters:
    ///   - id: The product identifier.
    ///   - displayName: The name shown to users.
    ///   - tier: The tier granted.
    ///   - duration: How long each purchase grants it.
    ///   - price: The price.
    /// - Returns: The product.
    public static func nonRenewing(id: String, displayName: String, tier: SubscriptionTier, duration: BillingPeriod, price: Decimal)
        -> AppStoreProduct
    {
        AppStoreProduct(id: id, displayName: displayName, type: .nonRenewable, tier: tier, period: duration, price: price, group: nil)
    }

    /// A non-consumable: bought once, granting `tier` for good (a lifetime unlock).
    /// - Parameters:
    ///   - id: The product identifier.
    ///   - displayName: The name shown to users.
    ///   - tier: The tier granted.
    ///   - price: The price.
    /// - Returns: The product.
    public static func nonConsumable(id: String, displayName: String, tier: SubscriptionTier, price: Decimal) -> AppStoreProduct {
        AppStoreProduct(id: id, displayName: displayName, type: .nonConsumable, tier: tier, period: nil, price: price, group: nil)
    }

    /// A consumable: bought as often as wanted, granting no tier.
    /// - Parameters:
    ///   - id: The product identifier.
    ///   - displayName: The name shown to users.
    ///   - price: The price.
    /// - Returns: The product.
    public static func consumable(id: String, displayName: String, price: Decimal) -> AppStoreProduct {
        AppStoreProduct(id: id, displayName: displayName, type: .consumable, tier: .free, period: nil, price: price, group: nil)
    }

    private enum CodingKeys: String, CodingKey {
        case id, displayName, type, tier, period, price, subscriptionGroupID, introductoryOffer, offers, prices, localizedNames
        case isFamilyShareable
    }

    /// Decodes a product; one written before products had a type is an auto-renewable subscription.
    /// - Parameter decoder: The decoder.
    /// - Throws: The decoder's error.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        displayName = try container.decode(String.self, forKey: .displayName)
        type = try container.decodeIfPresent(StoreProductType.self, forKey: .type) ?? .autoRenewable
        tier = try container.decode(SubscriptionTier.self, forKey: .tier)
        period = try container.decodeIfPresent(BillingPeriod.self, forKey: .period)
        price = try container.decode(Decimal.self, forKey: .price)
        subscriptionGroupID = try container.decodeIfPresent(String.self, forKey: .subscriptionGroupID)
        introductoryOffer = try container.decodeIfPresent(SubscriptionOffer.self, forKey: .introductoryOffer)
        offers = try container.decodeIfPresent([SubscriptionOffer].self, forKey: .offers) ?? []
        prices = try container.decodeIfPresent([String: Decimal].self, forKey: .prices) ?? [:]
        localizedNames = try container.decodeIfPresent([String: String].self, forKey: .localizedNames) ?? [:]
        isFamilyShareable = try container.decodeIfPresent(Bool.self, forKey: .isFamilyShareable) ?? false
    }

    /// The name a user of `locale` reads: the one for its identifier, else one for its
    /// language in the same script (`zh_TW` reads `zh_Hant`, not `zh_Hans`), else one
    /// for its language, else ``displayName``.
    /// - Parameter locale: The locale.
    /// - Returns: The name.
    public func displayName(for locale: Locale) -> String {
        if let name = localizedNames[locale.identifier] { return name }
        let wanted = locale.language
        let keys = localizedNames.keys.sorted()
        let sameScript = keys.first {
            let language = Locale.Language(identifier: $0)
            return language.languageCode == wanted.languageCode && language.script == wanted.script
        }
        let sameLanguage = keys.first { Locale.Language(identifier: $0).languageCode == wanted.languageCode }
        return (sameScript ?? sameLanguage).flatMap { localizedNames[$0] } ?? displayName
    }

    /// Its price in `storefront`, or nil where it is not sold.
    /// - Parameter storefront: The storefront.
    /// - Returns: The price, in the storefront's currency.
    public func price(in storefront: StoreStorefront) -> Decimal? {
        prices.isEmpty ? price : prices[storefront.countryCode]
    }

    /// Its price in `storefront` as a user reads it, such as `4,99 €` for `de_DE`, or nil
    /// where it is not sold: StoreKit's `displayPrice`.
    /// - Parameters:
    ///   - storefront: The storefront, whose currency the price is in.
    ///   - locale: The locale to write it in.
    /// - Returns: The price, written out.
    public func displayPrice(in storefront: StoreStorefront, locale: Locale) -> String? {
        price(in: storefront).map { $0.formatted(.currency(code: storefront.currencyCode).locale(locale)) }
    }

    /// The offer of this product with this kind and identifier.
    /// - Parameters:
    ///   - type: The kind.
    ///   - id: The identifier; nil for the introductory offer.
    /// - Returns: The offer, or nil.
    public func offer(_ type: SubscriptionOffer.OfferType, id: String?) -> SubscriptionOffer? {
        type == .introductory ? introductoryOffer : offers.first { $0.type == type && $0.id == id }
    }

    /// Checks that the product is whole: an identifier and name of 1 to 200 bytes without
    /// control characters; a price of zero or more; a period and a group for an
    /// auto-renewable subscription, a period and no group for a non-renewing one, and
    /// neither for a non-consumable or a consumable; no tier for a consumable; prices by
    /// three-letter storefront country codes, zero or more; offers
    /// only on an auto-renewable subscription, each whole (``SubscriptionOffer/validate()``),
    /// the introductory one introductory and the others not, no two of a kind with one
    /// identifier, a pay-as-you-go offer's periods as long as the subscription's, and
    /// Family Sharing only for an auto-renewable subscription or a non-consumable.
    /// - Throws: ``TrainCore/TrainErrorCode/invalidArgument`` naming what is wrong.
    public func validate() throws(SubscriptionError) {
        func fail(_ why: String) -> SubscriptionError {
            SubscriptionError(.invalidArgument, detail: "Product '\(id)': \(why)")
        }
        for (name, text) in [("identifier", id), ("display name", displayName)] + localizedNames.map({ ("name for \($0.key)", $0.value) }) {
            guard (1...200).contains(text.utf8.count), !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else { throw fail("the \(name) has 1 to 200 bytes and no control characters.") }
        }
        guard price >= 0, !price.isNaN else { throw fail("the price is zero or more.") }
        for (country, price) in prices {
            guard StoreStorefront.isCode(country), price >= 0, !price.isNaN else {
                throw fail("a storefront's price is keyed by a three-letter country code and zero or more.")
            }
        }
        switch type {
        case .autoRenewable:
            guard period != nil, let group = subscriptionGroupID, !group.isEmpty else { throw fail("a subscription has a period and a group.") }
        case .nonRenewable:
            guard period != nil, subscriptionGroupID == nil else { throw fail("a non-renewing subscription has a duration and no group.") }
        case .nonConsumable, .consumable:
            guard period == nil, subscriptionGroupID == nil else { throw fail("only subscriptions have a period or a group.") }
            guard type == .nonConsumable || tier == .free else { throw fail("a consumable grants no tier.") }
        }
        guard type == .autoRenewable || (introductoryOffer == nil && offers.isEmpty) else {
            throw fail("only an auto-renewable subscription has offers.")
        }
        guard !isFamilyShareable || type == .autoRenewable || type == .nonConsumable else {
            throw fail("only an auto-renewable subscription or a non-consumable is shared with a family.")
        }
        if let introductoryOffer {
            guard introductoryOffer.type == .introductory else { throw fail("the introductory offer is introductory.") }
            try introductoryOffer.validate()
        }
        for offer in [introductoryOffer].compactMap({ $0 }) + offers where offer.paymentMode == .payAsYouGo {
            guard offer.period == period else { throw fail("a pay-as-you-go offer's periods are the subscription's.") }
        }
        var seen: Set<String> = []
        for offer in offers {
            try offer.validate()
            guard offer.type != .introductory, seen.insert("\(offer.type.rawValue) \(offer.id ?? "")").inserted else {
                throw fail("offer '\(offer.id ?? "")' is introductory or listed twice.")
            }
        }
    }

    /// The four standard products — Pro and Premium, monthly and yearly — in one
    /// subscription group; Pro monthly starts with a one-week free trial for an Apple ID
    /// that never subscribed in the group.
    public static let standard: [AppStoreProduct] = [
        {
            var monthly = AppStoreProduct(
                id: "com.train.pro.monthly", displayName: "Train Pro (monthly)", tier: .pro, period: .month, price: cents(499))
            monthly.introductoryOffer = .freeTrial(.week)
            return monthly
        }(),
        AppStoreProduct(id: "com.train.pro.yearly", displayName: "Train Pro (yearly)", tier: .pro, period: .year, price: cents(4_999)),
        AppStoreProduct(
            id: "com.train.premium.monthly", displayName: "Train Premium (monthly)", tier: .premium, period: .month, price: cents(999)),
        AppStoreProduct(
            id: "com.train.premium.yearly", displayName: "Train Premium (yearly)", tier: .premium, period: .year, price: cents(9_999)),
    ]

    /// An exact price in cents: a `Decimal` written as `4.99` goes through a `Double` and
    /// becomes 4.990000000000001024.
    private static func cents(_ cents: Int) -> Decimal {
        Decimal(cents) / 100
    }
}
