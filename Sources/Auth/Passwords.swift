import Foundation
import TrainCore

/// A password stored as a salted, iterated hash (PBKDF2-HMAC-SHA256); the password
/// itself is never stored.
package struct PasswordHash: Codable, Hashable, Sendable {
    package var algorithm = "pbkdf2-sha256"
    package var iterations: Int
    package var salt: Data
    package var hash: Data

    /// A hash as stored elsewhere: a world's snapshot with its secrets.
    package init(algorithm: String, iterations: Int, salt: Data, hash: Data) {
        self.algorithm = algorithm
        self.iterations = iterations
        self.salt = salt
        self.hash = hash
    }

    package init(password: String, iterations: Int) throws(AuthenticationError) {
        do {
            let salt = try PlatformCrypto.randomBytes(count: 16)
            self.iterations = iterations
            self.salt = Data(salt)
            self.hash = Data(try PlatformCrypto.pbkdf2SHA256(password: Data(password.utf8), salt: salt, iterations: iterations))
        } catch {
            throw AuthenticationError(.storage, detail: "The password could not be hashed: \(error.detail)")
        }
    }

    /// A hash no password matches, with `iterations`: checking a password against it
    /// takes as long as against an account's, so a sign-in with an unknown address
    /// costs what one with a wrong password does.
    init(placeholderWithIterations iterations: Int) {
        self.iterations = iterations
        salt = Data(count: 16)
        hash = Data(count: 32)
    }

    /// Whether `password` matches, compared in constant time.
    /// - Throws: ``TrainCore/TrainErrorCode/storage`` if the stored hash cannot be recomputed
    ///   (its parameters are out of range, or the platform's library failed).
    func matches(_ password: String) throws(AuthenticationError) -> Bool {
        guard algorithm == "pbkdf2-sha256" else { return false }
        let candidate: [UInt8]
        do {
            candidate = try PlatformCrypto.pbkdf2SHA256(
                password: Data(password.utf8), salt: salt, iterations: iterations,
                length: hash.count)
        } catch {
            throw AuthenticationError(.storage, detail: "The stored password hash could not be checked: \(error.detail)")
        }
        return candidate.count == hash.count && zip(candidate, hash).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// Email addresses, password strength and nonce hashing.
enum Credentials {
    /// The SHA-256 of a raw nonce (or of any text), in lowercase hex, as Apple and Google expect it.
    static func sha256Hex(_ text: String) throws(AuthenticationError) -> String {
        do {
            return PlatformCrypto.hex(try PlatformCrypto.sha256(Data(text.utf8)))
        } catch {
            throw AuthenticationError(.storage, detail: "A nonce could not be hashed: \(error.detail)")
        }
    }

    /// The one spelling of an email address: trimmed of surrounding white space,
    /// in Unicode NFC, lowercased. Two spellings of one address (precomposed or
    /// decomposed accents, any case) give the same result.
    /// - Throws: `invalidEmail` for an address with a control, format or other invisible
    ///   character, white space inside, a shape other than `local@domain.tld`, more than
    ///   254 bytes of UTF-8, or a local part over 64 bytes.
    static func normalizedEmail(_ text: String) throws(AuthenticationError) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.unicodeScalars.allSatisfy(isVisible) else {
            throw AuthenticationError(.invalidEmail, detail: "The email address contains a control or invisible character.")
        }
        let email = trimmed.precomposedStringWithCanonicalMapping.lowercased().precomposedStringWithCanonicalMapping
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard email.utf8.count <= 254, parts.count == 2, !parts[0].isEmpty, parts[0].utf8.count <= 64,
            parts[1].contains("."), !parts[1].hasPrefix("."), !parts[1].hasSuffix("."), !parts[1].contains("..")
        else {
            throw AuthenticationError(.invalidEmail, detail: "The email address is not of the form name@domain.tld, or is too long.")
        }
        return email
    }

    /// Whether a character may appear in an email address: not white space, and not a
    /// control, format (zero-width, bidirectional), separator, private-use or unassigned code point.
    private static func isVisible(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .spaceSeparator, .privateUse, .surrogate, .unassigned:
            false
        default:
            !scalar.properties.isWhitespace
        }
    }

    /// The longest password, in UTF-8 bytes.
    static let maximumPasswordBytes = 1024

    /// Throws `weakPassword` unless the password is long enough (in characters), at most
    /// ``maximumPasswordBytes`` bytes, and mixes letters with other characters.
    static func checkStrength(_ password: String, minimumLength: Int) throws(AuthenticationError) {
        guard password.count >= minimumLength, password.utf8.count <= maximumPasswordBytes,
            password.contains(where: \.isLetter), password.contains(where: { !$0.isLetter })
        else {
            throw AuthenticationError(
                .weakPassword, detail: "A password needs at least \(minimumLength) characters, with letters and at least one digit or symbol.")
        }
    }
}
