import Foundation

/// An App Store storefront — the country or region whose store the Apple ID buys in —
/// with the currency its prices are in: StoreKit's `Storefront`.
public struct StoreStorefront: Hashable, Sendable, CustomStringConvertible {
    /// The ISO 3166-1 alpha-3 code of the country or region, such as `USA`.
    public let countryCode: String
    /// The ISO 4217 code of the currency, such as `USD`.
    public let currencyCode: String

    /// Creates a storefront.
    /// - Parameters:
    ///   - countryCode: Three uppercase letters, such as `DEU`.
    ///   - currencyCode: Three uppercase letters, such as `EUR`.
    /// - Throws: ``TrainCore/TrainErrorCode/invalidArgument`` for codes that are not three
    ///   uppercase ASCII letters.
    public init(countryCode: String, currencyCode: String) throws(SubscriptionError) {
        guard Self.isCode(countryCode), Self.isCode(currencyCode) else {
            throw SubscriptionError(
                .invalidArgument, detail: "A storefront has three-letter country and currency codes, not '\(countryCode)', '\(currencyCode)'.")
        }
        self.init(checked: countryCode, currencyCode)
    }

    private init(checked countryCode: String, _ currencyCode: String) {
        self.countryCode = countryCode
        self.currencyCode = currencyCode
    }

    /// Whether `code` is three uppercase ASCII letters.
    static func isCode(_ code: String) -> Bool {
        code.utf8.count == 3 && code.utf8.allSatisfy { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }
    }

    /// The United States, in US dollars: a new store's storefront.
    public static let unitedStates = StoreStorefront(checked: "USA", "USD")

    /// Apple's identifier of the storefront (StoreKit's `Storefront.id`, the
    /// `storefrontId` of a signed transaction), such as `143441` for the United States;
    /// nil for a country the store's table does not list.
    public var appStoreID: String? { Self.appStoreID(countryCode: countryCode) }

    /// Apple's identifier of the storefront of `countryCode`, from the store's table of
    /// the App Store's oldest storefronts.
    static func appStoreID(countryCode: String) -> String? {
        appStoreIDs[countryCode].map(String.init)
    }

    private static let appStoreIDs: [String: Int] = [
        "USA": 143441, "FRA": 143442, "DEU": 143443, "GBR": 143444, "AUT": 143445, "BEL": 143446, "FIN": 143447, "GRC": 143448,
        "IRL": 143449, "ITA": 143450, "LUX": 143451, "NLD": 143452, "PRT": 143453, "ESP": 143454, "CAN": 143455, "SWE": 143456,
        "NOR": 143457, "DNK": 143458, "CHE": 143459, "AUS": 143460, "NZL": 143461, "JPN": 143462,
    ]

    /// The country code.
    public var description: String { countryCode }
}

extension StoreStorefront: Codable {
    private enum CodingKeys: String, CodingKey {
        case countryCode, currencyCode
    }

    /// Decodes a storefront, checking its codes as ``init(countryCode:currencyCode:)`` does.
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError.dataCorrupted` for codes it refuses.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let country = try container.decode(String.self, forKey: .countryCode)
        let currency = try container.decode(String.self, forKey: .currencyCode)
        do {
            try self.init(countryCode: country, currencyCode: currency)
        } catch {
            throw DecodingError.dataCorruptedError(forKey: .countryCode, in: container, debugDescription: "\(error)")
        }
    }

    /// Encodes the codes.
    /// - Parameter encoder: The encoder.
    /// - Throws: The encoder's error.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(countryCode, forKey: .countryCode)
        try container.encode(currencyCode, forKey: .currencyCode)
    }
}

/// Why a transaction was made: StoreKit's `Transaction.Reason`.
public enum TransactionReason: String, Codable, Hashable, Sendable {
    /// Bought: a first purchase, a resubscription, an upgrade or crossgrade, a purchase outside the app.
    case purchase
    /// An auto-renewable subscription renewed.
    case renewal
}
