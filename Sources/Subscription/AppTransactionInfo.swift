import Foundation

/// The App Store's record of the app itself on this Apple ID — when it was first bought
/// or downloaded, and in which version: StoreKit's `AppTransaction`. An app that moves
/// from paid to free grants what early buyers paid for by ``originalAppVersion``.
public struct AppTransactionInfo: Codable, Hashable, Sendable {
    /// The app's bundle identifier.
    public var bundleID: String
    /// The version installed now.
    public var appVersion: String
    /// The version first bought or downloaded.
    public var originalAppVersion: String
    /// When the app was first bought or downloaded.
    public var originalPurchaseDate: Date
    /// Where it was bought.
    public var environment: StoreEnvironment

    /// Creates an app transaction.
    /// - Parameters:
    ///   - bundleID: The bundle identifier.
    ///   - appVersion: The version installed now.
    ///   - originalAppVersion: The version first bought or downloaded.
    ///   - originalPurchaseDate: When.
    ///   - environment: Where.
    public init(
        bundleID: String, appVersion: String, originalAppVersion: String, originalPurchaseDate: Date, environment: StoreEnvironment = .simulated
    ) {
        self.bundleID = bundleID
        self.appVersion = appVersion
        self.originalAppVersion = originalAppVersion
        self.originalPurchaseDate = originalPurchaseDate
        self.environment = environment
    }
}
