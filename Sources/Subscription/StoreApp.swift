import Foundation

/// The app a simulated App Store sells for, as App Store Connect knows it: its bundle
/// ID and its App Apple ID. Every server notification names the bundle ID, and in
/// production the App Apple ID, as Apple's do, and an app's server checks them (Apple's
/// `SignedDataVerifier` refuses a production notification without the App Apple ID it
/// was made for).
///
/// ```swift
/// let app = try StoreApp(bundleID: "com.acme.run", appAppleID: 1_234_567_890)
/// let store = SimulatedAppStore(context: context, configuration: AppStoreConfiguration(app: app))
/// ```
public struct StoreApp: Hashable, Sendable {
    /// The bundle ID, such as `com.acme.run`.
    public let bundleID: String
    /// The App Apple ID App Store Connect gave the app; nil until it has one, as an app
    /// tested only in the sandbox or locally may not. A production app has one.
    public let appAppleID: Int64?

    /// The most characters a bundle ID has: 155, App Store Connect's limit.
    public static let maximumBundleIDLength = 155

    /// Creates an app.
    /// - Parameters:
    ///   - bundleID: The bundle ID: 1 to ``maximumBundleIDLength`` ASCII letters, digits,
    ///     hyphens and periods, in components of at least one character that periods
    ///     separate.
    ///   - appAppleID: The App Apple ID, a positive number; nil for none yet.
    /// - Throws: ``TrainCore/TrainErrorCode/invalidArgument`` for a bundle ID or App Apple
    ///   ID that is not one.
    public init(bundleID: String, appAppleID: Int64? = nil) throws(SubscriptionError) {
        try Self.check(bundleID: bundleID)
        if let appAppleID, appAppleID <= 0 {
            throw SubscriptionError(.invalidArgument, detail: "An App Apple ID is a positive number, not \(appAppleID).")
        }
        self.init(checked: bundleID, appAppleID)
    }

    private init(checked bundleID: String, _ appAppleID: Int64?) {
        self.bundleID = bundleID
        self.appAppleID = appAppleID
    }

    /// TrainKit's example app, `com.example.train`, with no App Apple ID: what a store
    /// sells for unless its configuration names another.
    public static let example = StoreApp(checked: "com.example.train", nil)

    /// Throws unless `bundleID` is a bundle ID as ``init(bundleID:appAppleID:)`` documents.
    static func check(bundleID: String) throws(SubscriptionError) {
        let allowed = bundleID.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
        }
        let components = bundleID.split(separator: ".", omittingEmptySubsequences: false)
        guard allowed, (1...maximumBundleIDLength).contains(bundleID.utf8.count), components.allSatisfy({ !$0.isEmpty }) else {
            throw SubscriptionError(
                .invalidArgument,
                detail:
                    "A bundle ID is 1 to \(maximumBundleIDLength) ASCII letters, digits, hyphens and periods between non-empty parts, not \(bundleID.debugDescription)."
            )
        }
    }
}
