import Foundation

/// The Apple ID signed in to the App Store on the (simulated) device. Purchases belong
/// to it, as in StoreKit: one subscription per subscription group at a time, whichever
/// app user bought it.
///
/// Apple IDs are email addresses. The address is kept lowercase (Unicode's lowercase
/// mapping, not full case folding: `ß` stays `ß`), so `Ada@Example.com` and
/// `ada@example.com` are one account; two spellings of one text in Unicode (`é` as one
/// character or as `e` and a combining accent) compare equal, as Swift strings do.
///
/// ```swift
/// let store = SimulatedAppStore(context: TrainContext(clock: clock))   // signed in as AppleID.standard
/// try store.switchAppleID(to: AppleID("child@example.com"))
/// ```
public struct AppleID: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The address, lowercase.
    public let email: String

    /// The most UTF-8 bytes an address may have: 254, the longest email address.
    public static let maximumLength = 254

    /// Creates an Apple ID from its email address.
    /// - Parameter email: The address; case does not matter.
    /// - Throws: ``TrainCore/TrainErrorCode/invalidArgument`` for an empty address, one
    ///   longer than ``maximumLength`` bytes, or one with a control or invisible
    ///   formatting character, a space, or no `@`.
    public init(_ email: String) throws(SubscriptionError) {
        let normalized = email.lowercased()
        guard !normalized.isEmpty, normalized.utf8.count <= Self.maximumLength else {
            throw SubscriptionError(.invalidArgument, detail: "An Apple ID has 1 to \(Self.maximumLength) bytes.")
        }
        guard normalized.contains("@"),
            !normalized.unicodeScalars.contains(where: {
                [.control, .format].contains($0.properties.generalCategory) || $0.properties.isWhitespace
            })
        else {
            throw SubscriptionError(
                .invalidArgument, detail: "An Apple ID is an email address without spaces, control or invisible formatting characters.")
        }
        self.email = normalized
    }

    /// The Apple ID a new simulated device is signed in with.
    public static let standard = AppleID(checked: "appleid@simulator.trainkit")

    /// The Apple ID a user of a `TrainServices` world has by default on the devices made
    /// for them: their own, `<user ID>@appleid.trainkit` (in lowercase), or, for a user
    /// ID no email address can hold, one named by a hash of it.
    /// - Parameter userID: The app user's ID.
    /// - Returns: Their Apple ID.
    public static func standard(forUser userID: String) -> AppleID {
        if let named = try? AppleID("\(userID)@appleid.trainkit") { return named }
        return AppleID(checked: "user-\(String(stableHash(userID), radix: 16))@appleid.trainkit")
    }

    private init(checked email: String) {
        self.email = email
    }

    /// The address.
    public var description: String { email }

    /// Decodes an Apple ID, checking the address as ``init(_:)`` does.
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError.dataCorrupted` for an address ``init(_:)`` refuses.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let email = try container.decode(String.self)
        do {
            try self.init(email)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(error)")
        }
    }

    /// Encodes the address as a single string.
    /// - Parameter encoder: The encoder.
    /// - Throws: The encoder's error.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(email)
    }
}

/// Which app user a ``LocalSubscriptionService`` gives access to what the device's Apple
/// ID owns.
public enum SubscriptionAccessPolicy: String, Codable, Hashable, Sendable {
    /// StoreKit's behaviour: every app user on the device has what the Apple ID owns,
    /// whoever bought it, and a purchase needs no signed-in app user.
    case appleID
    /// Only what the signed-in app user bought (tagged with their `appAccountToken`)
    /// counts; a purchase needs a signed-in app user, and a second app user on an Apple
    /// ID whose subscription in the group another one uses is told so
    /// (``TrainCore/TrainErrorCode/subscribedWithAnotherAccount``) instead of buying twice.
    case appAccountToken
}

/// The 64-bit FNV-1a hash of `text`'s UTF-8: the same on every platform and launch, for
/// identifiers the simulated store derives.
func stableHash(_ text: String) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    return hash
}
