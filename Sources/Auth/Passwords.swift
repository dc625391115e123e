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
            let salt = try PBKDF2.randomSalt()
            self.iterations = iterations
            self.salt = Data(salt)
            self.hash = Data(try PBKDF2.deriveKey(password: password, salt: salt, iterations: iterations))
        } catch {
            throw AuthError(.storage, detail: "The password could not be hashed: \(error.detail)")
        }
    }

    /// Whether `password` matches, compared in constant time.
    func matches(_ password: String) -> Bool {
        guard algorithm == "pbkdf2-sha256",
              let candidate = try? PBKDF2.deriveKey(password: password, salt: Array(salt), iterations: iterations, length: hash.count),
              candidate.count == hash.count else { return false }
        return zip(candidate, hash).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// Email addresses and password strength (AUTH-3).
enum Credentials {
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
