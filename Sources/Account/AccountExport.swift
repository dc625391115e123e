import Foundation
import TrainAuth
import TrainSocial
import TrainSubscription
import TrainSync

/// A copy of all of a user's data across the services, as one JSON document the user
/// can take elsewhere.
///
/// The document's fields are this type's properties, spelled the same, with dates in
/// ISO 8601 and keys sorted. ``formatVersion`` is raised whenever a field changes
/// meaning or goes away; new fields can appear within a version.
public struct AccountExport: Codable, Hashable, Sendable {
    /// The version of this document's layout.
    public static let currentFormatVersion = 1

    /// A subscription as the App Store reports it for the user.
    public struct Subscription: Codable, Hashable, Sendable {
        /// The product.
        public var productID: String
        /// Its state.
        public var state: RenewalState
        /// Whether it renews at the end of the period.
        public var willAutoRenew: Bool
        /// When the current period ends.
        public var expirationDate: Date?

        /// Creates a subscription entry.
        /// - Parameters:
        ///   - productID: The product.
        ///   - state: Its state.
        ///   - willAutoRenew: Whether it renews.
        ///   - expirationDate: When the period ends.
        public init(productID: String, state: RenewalState, willAutoRenew: Bool, expirationDate: Date?) {
            self.productID = productID
            self.state = state
            self.willAutoRenew = willAutoRenew
            self.expirationDate = expirationDate
        }
    }

    /// The layout's version: ``currentFormatVersion`` when made by this library.
    public var formatVersion: Int
    /// When the copy was made.
    public var exportedAt: Date
    /// The account: identifiers, email, name, sign-in methods and dates.
    public var user: UserEntity
    /// Posts, comments, likes, follows, blocks and the feed unlock.
    public var social: SocialExport
    /// Training plans.
    public var plans: [TrainingPlan]
    /// The account token purchases are tagged with at the App Store.
    public var appAccountToken: UUID
    /// The transactions that give access now.
    public var entitlements: [AppStoreTransaction]
    /// The subscriptions' states.
    public var subscriptions: [Subscription]
    /// Every acceptance and withdrawal of the privacy policy and the terms, oldest first.
    public var consents: [ConsentRecord]

    /// Creates an export.
    /// - Parameters:
    ///   - exportedAt: When it was made.
    ///   - user: The account.
    ///   - social: The social data.
    ///   - plans: The plans.
    ///   - appAccountToken: The App Store account token.
    ///   - entitlements: The transactions that give access.
    ///   - subscriptions: The subscriptions' states.
    ///   - consents: The consent history.
    public init(
        exportedAt: Date, user: UserEntity, social: SocialExport, plans: [TrainingPlan], appAccountToken: UUID,
        entitlements: [AppStoreTransaction], subscriptions: [Subscription], consents: [ConsentRecord]
    ) {
        formatVersion = Self.currentFormatVersion
        self.exportedAt = exportedAt
        self.user = user
        self.social = social
        self.plans = plans
        self.appAccountToken = appAccountToken
        self.entitlements = entitlements
        self.subscriptions = subscriptions
        self.consents = consents
    }

    /// The JSON document: keys sorted, dates in ISO 8601, indented.
    /// - Returns: UTF-8 JSON.
    /// - Throws: `EncodingError` only if a value cannot be encoded (a non-finite number).
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(self)
    }

    /// Reads a document made by ``jsonData()``.
    /// - Parameter data: UTF-8 JSON.
    /// - Returns: The export.
    /// - Throws: `DecodingError` when the data is not such a document.
    public static func decode(_ data: Data) throws -> AccountExport {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(AccountExport.self, from: data)
    }
}
