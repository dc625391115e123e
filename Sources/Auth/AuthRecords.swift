import Foundation
import TrainCore

/// The stored form of TrainAuth's data: one ``RecordStore`` schema, the same for the
/// in-memory and the file-backed service.
enum AuthRecords {
    static let schema = StoreSchema(name: "auth", migrations: [
        .createCollections(version: 1, ["accounts", "identities", "passwords", "session", "usedCredentials", "settings"]),
    ])

    /// An account: the user and whether it is disabled.
    struct Account: Codable, Hashable, Sendable {
        var user: UserEntity
        var isDisabled = false
    }

    /// Who is signed in on this device (as a keychain item would remember it).
    struct Session: Codable, Hashable, Sendable {
        var userID: String
    }

    /// Per-user settings kept with the user's data.
    struct Settings: Codable, Hashable, Sendable {
        var biometricLockEnabled = false
    }

    static let accounts = RecordCollection<Account>("accounts")
    /// `provider|subject` → account ID.
    static let identities = RecordCollection<String>("identities")
    static let passwords = RecordCollection<PasswordHash>("passwords")
    static let session = RecordCollection<Session>("session")
    /// SHA-256 of a used token or nonce → the token's expiry, after which it can be forgotten.
    static let usedCredentials = RecordCollection<Date>("usedCredentials")
    static let settings = RecordCollection<Settings>("settings")

    static let sessionKey = "current"

    static func identityKey(_ provider: AuthProvider, _ subject: String) -> String {
        "\(provider.rawValue)|\(subject)"
    }
}
