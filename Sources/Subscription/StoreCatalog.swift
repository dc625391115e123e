import Foundation

/// The products an app sells, checked: each product whole (``AppStoreProduct/validate()``),
/// identifiers unique, and a subscription group holding only auto-renewable
/// subscriptions. Load one from TrainKit's JSON or from the StoreKit configuration file
/// (`.storekit`) an Xcode project already has, and hand its products to the
/// ``SimulatedAppStore``.
///
/// ```swift
/// let catalog = try StoreCatalog(
///     storeKitConfiguration: try Data(contentsOf: url),
///     tiers: ["com.train.pro.weekly": .pro, "com.train.lifetime": .premium],
///     nonRenewingDurations: ["com.train.summer.pass": .threeMonths])
/// let store = SimulatedAppStore(configuration: AppStoreConfiguration(products: catalog.products))
/// ```
public struct StoreCatalog: Hashable, Sendable {
    /// The products, in the order given.
    public let products: [AppStoreProduct]

    /// Checks and keeps `products`.
    /// - Parameter products: The products.
    /// - Throws: ``TrainCore/TrainErrorCode/invalidArgument`` naming the first product
    ///   that is incomplete, repeats an identifier, or shares a group without being an
    ///   auto-renewable subscription.
    public init(products: [AppStoreProduct]) throws(SubscriptionError) {
        var seen: Set<String> = []
        for product in products {
            try product.validate()
            guard seen.insert(product.id).inserted else {
                throw SubscriptionError(.invalidArgument, detail: "Product '\(product.id)' is listed twice.")
            }
        }
        self.products = products
    }

    /// The standard products: Pro and Premium, monthly and yearly, in one group.
    public static let standard = StoreCatalog(checked: AppStoreProduct.standard)

    private init(checked products: [AppStoreProduct]) {
        self.products = products
    }

    /// Reads a catalog in TrainKit's JSON: `{"products": [...]}`, each product as
    /// ``AppStoreProduct`` encodes it (periods in ISO 8601, such as `"P1W"`).
    /// - Parameter json: The document.
    /// - Throws: ``TrainCore/TrainErrorCode/invalidArgument`` for a document that does not
    ///   decode or a catalog ``init(products:)`` refuses.
    public init(json: Data) throws(SubscriptionError) {
        let decoded: [AppStoreProduct]
        do {
            decoded = try JSONDecoder().decode(Document.self, from: json).products
        } catch {
            throw SubscriptionError(.invalidArgument, detail: "The catalog does not decode: \(error)")
        }
        try self.init(products: decoded)
    }

    /// The catalog in TrainKit's JSON, with sorted keys.
    /// - Returns: The document.
    /// - Throws: ``TrainCore/TrainErrorCode/systemError`` if encoding fails.
    public func jsonData() throws(SubscriptionError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        do {
            return try encoder.encode(Document(products: products))
        } catch {
            throw SubscriptionError(.systemError, detail: "The catalog could not be encoded: \(error)")
        }
    }

    private struct Document: Codable {
        var products: [AppStoreProduct]
    }

    /// Reads the products of an Xcode StoreKit configuration file (`.storekit`):
    /// consumables and non-consumables, non-renewing subscriptions, and each subscription
    /// group's auto-renewable subscriptions with their periods, introductory offers,
    /// promotional offers (`adHocOffers`) and offer-code offers (`codeOffers`); win-back
    /// offers are not read. The file says nothing of
    /// tiers, and nothing of how long a non-renewing subscription lasts, so the app says.
    /// Names are the `en_US` localization's, else the first one's, else the reference
    /// name; every localization's name is kept in ``AppStoreProduct/localizedNames``.
    /// - Parameters:
    ///   - storeKitConfiguration: The file's contents.
    ///   - tiers: The tier each product grants; a product not listed grants none.
    ///   - nonRenewingDurations: How long each non-renewing subscription grants its tier.
    /// - Throws: ``TrainCore/TrainErrorCode/invalidArgument`` for a file that is not a
    ///   StoreKit configuration, a product of an unknown type, an unreadable price or
    ///   period, a non-renewing subscription without a duration, or a catalog
    ///   ``init(products:)`` refuses.
    public init(
        storeKitConfiguration: Data, tiers: [String: SubscriptionTier], nonRenewingDurations: [String: BillingPeriod] = [:]
    ) throws(SubscriptionError) {
        let file: StoreKitConfiguration
        do {
            file = try JSONDecoder().decode(StoreKitConfiguration.self, from: storeKitConfiguration)
        } catch {
            throw SubscriptionError(.invalidArgument, detail: "Not a StoreKit configuration file: \(error)")
        }
        var products: [AppStoreProduct] = []
        let items =
            (file.products ?? []) + (file.nonRenewingSubscriptions ?? [])
            + (file.subscriptionGroups ?? []).flatMap { group in group.subscriptions.map { $0.inGroup(group.id) } }
        for item in items {
            products.append(try item.product(tier: tiers[item.productID] ?? .free, duration: nonRenewingDurations[item.productID]))
        }
        try self.init(products: products)
    }
}

/// The parts of Xcode's StoreKit configuration file that describe products.
private struct StoreKitConfiguration: Decodable {
    struct Offer: Decodable {
        var offerID: String?
        var paymentMode: String
        var subscriptionPeriod: String
        var numberOfPeriods: Int?
        var displayPrice: String?

        func offer(_ type: SubscriptionOffer.OfferType, of productID: String) throws(SubscriptionError) -> SubscriptionOffer {
            let mode: SubscriptionOffer.PaymentMode
            switch paymentMode {
            case "free": mode = .freeTrial
            case "payAsYouGo": mode = .payAsYouGo
            case "payUpFront": mode = .payUpFront
            default: throw SubscriptionError(.invalidArgument, detail: "Product '\(productID)': unknown payment mode '\(paymentMode)'.")
            }
            let price = mode == .freeTrial ? 0 : try StoreKitConfiguration.price(displayPrice ?? "", of: productID)
            return SubscriptionOffer(
                id: type == .introductory ? nil : offerID, type: type, paymentMode: mode,
                period: try BillingPeriod(iso8601: subscriptionPeriod), periodCount: mode == .payAsYouGo ? numberOfPeriods ?? 1 : 1,
                price: price)
        }

    }

    /// A display price: digits with at most one decimal point. `Decimal(string:)` alone
    /// would read "9,99 €" as 9.
    static func price(_ text: String, of productID: String) throws(SubscriptionError) -> Decimal {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            let price = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")), !price.isNaN
        else {
            throw SubscriptionError(.invalidArgument, detail: "Product '\(productID)': the price '\(text)' is not a number.")
        }
        return price
    }

    var products: [Item]?
    var nonRenewingSubscriptions: [Item]?
    var subscriptionGroups: [Group]?

    struct Group: Decodable {
        var id: String
        var subscriptions: [Item]
    }

    struct Localization: Decodable {
        var displayName: String?
        var locale: String?
    }

    struct Item: Decodable {
        var productID: String
        var type: String
        var displayPrice: String
        var referenceName: String?
        var localizations: [Localization]?
        var recurringSubscriptionPeriod: String?
        var subscriptionGroupID: String?
        var introductoryOffer: Offer?
        var adHocOffers: [Offer]?
        var codeOffers: [Offer]?
        var familyShareable: Bool?

        func inGroup(_ group: String) -> Item {
            var item = self
            item.subscriptionGroupID = item.subscriptionGroupID ?? group
            return item
        }

        func product(tier: SubscriptionTier, duration: BillingPeriod?) throws(SubscriptionError) -> AppStoreProduct {
            let price = try StoreKitConfiguration.price(displayPrice, of: productID)
            // Xcode leaves a new localization's name empty: an empty name is no name.
            let names = (localizations ?? []).filter { !($0.displayName ?? "").isEmpty }
            let reference = referenceName.flatMap { $0.isEmpty ? nil : $0 }
            let name = names.first(where: { $0.locale == "en_US" })?.displayName ?? names.first?.displayName ?? reference ?? productID
            var localized: [String: String] = [:]
            for entry in names {
                if let locale = entry.locale, let displayName = entry.displayName { localized[locale] = localized[locale] ?? displayName }
            }
            var product = try product(named: name, tier: tier, duration: duration, price: price)
            product.localizedNames = localized
            product.isFamilyShareable = familyShareable ?? false
            return product
        }

        private func product(named name: String, tier: SubscriptionTier, duration: BillingPeriod?, price: Decimal)
            throws(SubscriptionError) -> AppStoreProduct
        {
            switch type {
            case "Consumable":
                return .consumable(id: productID, displayName: name, price: price)
            case "NonConsumable":
                return .nonConsumable(id: productID, displayName: name, tier: tier, price: price)
            case "NonRenewingSubscription":
                guard let duration else {
                    throw SubscriptionError(.invalidArgument, detail: "Non-renewing subscription '\(productID)' has no duration.")
                }
                return .nonRenewing(id: productID, displayName: name, tier: tier, duration: duration, price: price)
            case "RecurringSubscription":
                let period: BillingPeriod
                do {
                    period = try BillingPeriod(iso8601: recurringSubscriptionPeriod ?? "")
                } catch {
                    throw SubscriptionError(.invalidArgument, detail: "Subscription '\(productID)': \(error.detail)")
                }
                var product = AppStoreProduct(
                    id: productID, displayName: name, tier: tier, period: period, price: price, subscriptionGroupID: subscriptionGroupID ?? "")
                product.introductoryOffer = try introductoryOffer?.offer(.introductory, of: productID)
                product.offers =
                    try (adHocOffers ?? []).map { offer throws(SubscriptionError) in try offer.offer(.promotional, of: productID) }
                    + (codeOffers ?? []).map { offer throws(SubscriptionError) in try offer.offer(.code, of: productID) }
                return product
            default:
                throw SubscriptionError(.invalidArgument, detail: "Product '\(productID)' has an unknown type '\(type)'.")
            }
        }
    }
}
