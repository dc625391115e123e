import Foundation
import TrainCore

/// A password stored as a salted, iterated hash (PBKDF2-HMAC-SHA256); the password
/// itself is never stored.
struct PasswordHash: Codable, Hashable, Sendable {
    var algorithm = "pbkdf2-sha256"
    var iterations: Int
    var salt: Data
    var hash: Data

    init(password: String, iterations: Int) throws(AuthError) {
        do {
            let salt = try PlatformCrypto.randomBytes(count: 16)
            self.iterations = iterations
            self.salt = Data(salt)
            self.hash = Data(try PlatformCrypto.pbkdf2SHA256(password: Data(password.utf8), salt: salt, iterations: iterations))
        } catch {
            throw AuthError(.storage, detail: "The password could not be hashed: \(error.detail)")
        }
    }

    /// Whether `password` matches, compared in constant time.
    /// - Throws: ``AuthError/Code/storage`` if the stored hash cannot be recomputed
    ///   (its parameters are out of range, or the platform's library failed).
    func matches(_ password: String) throws(AuthError) -> Bool {
        guard algorithm == "pbkdf2-sha256" else { return false }
        let candidate: [UInt8]
        do {
            candidate = try PlatformCrypto.pbkdf2SHA256(password: Data(password.utf8), salt: salt, iterations: iterations,
                                                        length: hash.count)
        } catch {
            throw AuthError(.storage, detail: "The stored password hash could not be checked: \(error.detail)")
        }
        return candidate.count == hash.count && zip(candidate, hash).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// Email addresses, password strength and nonce hashing (AUTH-1, AUTH-3).
enum Credentials {
    /// The SHA-256 of a raw nonce (or of any text), in lowercase hex, as Apple and Google expect it.
    static func sha256Hex(_ text: String) throws(AuthError) -> String {
        do {
            return PlatformCrypto.hex(try PlatformCrypto.sha256(Data(text.utf8)))
        } catch {
            throw AuthError(.storage, detail: "A nonce could not be hashed: \(error.detail)")
        }
    }

    /// Trims and lowercases an email address after checking its shape.
    static func normalizedEmail(_ text: String) throws(AuthError) -> String {
        let email = text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard email.count <= 254, parts.count == 2, !parts[0].isEmpty, parts[0].count <= 64,
              parts[1].contains("."), !parts[1].hasPrefix("."), !parts[1].hasSuffix("."), !parts[1].contains(".."),
              !email.contains(where: { $0.isWhitespace || $0.isNewline }) else {
            throw AuthError(.invalidEmail, detail: "The email address is not of the form name@domain.tld.")
        }
        return email
    }

    /// Throws `weakPassword` unless the password is long enough and mixes letters with other characters.
    static func checkStrength(_ password: String, minimumLength: Int) throws(AuthError) {
        guard password.count >= minimumLength, password.count <= 1024,
              password.contains(where: \.isLetter), password.contains(where: { !$0.isLetter }) else {
            throw AuthError(.weakPassword, detail: "A password needs at least \(minimumLength) characters, with letters and at least one digit or symbol.")
        }
    }
}
