import Foundation
import TrainCore

/// The `appAccountToken` of an app user: the UUID StoreKit attaches to their
/// transactions, made from their user ID (a string; StoreKit needs a UUID).
///
/// The mapping is public, deterministic and the same on every device and platform: a
/// name-based UUID as in RFC 9562 (version 8 with SHA-256) — the first 16 bytes of
/// SHA-256 over ``namespace``'s 16 bytes followed by the user ID's UTF-8 bytes, with
/// the version and variant bits set. A backend can compute the same token to match
/// App Store Server Notifications to its users.
///
/// ```swift
/// let token = try AppAccountToken.forUser(user.id)   // what a service given `auth` tags purchases with
/// let subscriptions = LocalSubscriptionService(store: store, auth: auth, context: store.context)
/// ```
public enum AppAccountToken {
    /// TrainKit's namespace for app account tokens.
    public static let namespace = UUID(uuid: (0x05, 0xA7, 0x6E, 0x13, 0x6A, 0xC1, 0x4E, 0x8F, 0xAC, 0xFE, 0x7D, 0x5C, 0xD8, 0x65, 0x5C, 0x15))

    /// The token of the user with this ID.
    /// - Parameter userID: The user's ID, as the auth service gives it; every byte counts.
    /// - Returns: The token.
    /// - Throws: ``SubscriptionError`` with code `invalidArgument` for an empty ID,
    ///   `systemError` if the platform's SHA-256 fails.
    public static func forUser(_ userID: String) throws(SubscriptionError) -> UUID {
        guard !userID.isEmpty else { throw SubscriptionError(.invalidArgument, detail: "A user ID is not empty.") }
        var input = withUnsafeBytes(of: namespace.uuid) { Data($0) }
        input.append(contentsOf: userID.utf8)
        let digest: [UInt8]
        do {
            digest = try PlatformCrypto.sha256(input)
        } catch {
            throw SubscriptionError(.systemError, detail: "SHA-256 failed: \(error)")
        }
        guard digest.count >= 16 else { throw SubscriptionError(.systemError, detail: "SHA-256 returned \(digest.count) bytes.") }
        return UUID(bytes: digest, version: 8)
    }
}
