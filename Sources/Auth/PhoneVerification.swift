import Foundation
import Synchronization

/// Delivers SMS verification codes. An app implements it with its SMS gateway (or
/// leaves the phone flow to Firebase); TrainKit ships ``SimulatedSMSInbox``.
public protocol VerificationCodeSender: Sendable {
    /// Sends `code` to `phoneNumber`.
    /// - Parameters:
    ///   - code: The 6-digit code.
    ///   - phoneNumber: The number in E.164 form.
    /// - Throws: ``AuthError/Code/networkError`` or ``AuthError/Code/invalidPhoneNumber``.
    func send(code: String, to phoneNumber: String) async throws
}

/// A pretend phone that receives every code, for prototypes and tests.
///
/// ```swift
/// let inbox = SimulatedSMSInbox()
/// let verificationID = try await auth.sendVerificationCode(to: "+44 20 7946 0000")
/// let code = inbox.lastCode(for: "+442079460000")
/// ```
public final class SimulatedSMSInbox: VerificationCodeSender {
    /// One received message.
    public struct Message: Hashable, Sendable {
        /// The number it was sent to, in E.164 form.
        public let phoneNumber: String
        /// The code.
        public let code: String

        /// Creates a message.
        /// - Parameters:
        ///   - phoneNumber: The number in E.164 form.
        ///   - code: The code.
        public init(phoneNumber: String, code: String) {
            self.phoneNumber = phoneNumber
            self.code = code
        }
    }

    private let received = Mutex<[Message]>([])

    /// Creates an empty inbox.
    public init() {}

    /// Every message received, oldest first.
    public var messages: [Message] { received.withLock { $0 } }

    /// The latest code sent to `phoneNumber`.
    /// - Parameter phoneNumber: The number in E.164 form.
    /// - Returns: The code, or nil if none was sent.
    public func lastCode(for phoneNumber: String) -> String? {
        received.withLock { $0.last { $0.phoneNumber == phoneNumber }?.code }
    }

    /// Records the message.
    /// - Parameters:
    ///   - code: The code.
    ///   - phoneNumber: The number.
    public func send(code: String, to phoneNumber: String) async throws {
        received.withLock { $0.append(Message(phoneNumber: phoneNumber, code: code)) }
    }
}

/// Phone numbers in E.164 form.
public enum PhoneNumber {
    /// Normalizes a number typed with spaces, dashes, dots or parentheses to E.164.
    /// - Parameter text: The number as typed, starting with `+` and the country code.
    /// - Returns: `+` followed by 8 to 15 digits.
    /// - Throws: ``AuthError/Code/invalidPhoneNumber`` for anything else.
    public static func normalize(_ text: String) throws(AuthError) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix("+") else {
            throw AuthError(.invalidPhoneNumber, detail: "A phone number must start with + and its country code.")
        }
        var digits = ""
        for character in trimmed.dropFirst() {
            if character.isASCII && character.isNumber {
                digits.append(character)
            } else if !" -.()".contains(character) {
                throw AuthError(.invalidPhoneNumber, detail: "A phone number may hold only digits, spaces, dashes, dots and parentheses.")
            }
        }
        guard (8...15).contains(digits.count), digits.first != "0" else {
            throw AuthError(.invalidPhoneNumber, detail: "A phone number has 8 to 15 digits after +, not starting with 0.")
        }
        return "+" + digits
    }
}

/// The pending phone verifications of one service: codes, resend cooldown, attempt
/// limit and expiry (AUTH-3). Kept in memory only: a code never reaches storage.
struct PhoneVerifications {
    struct Pending {
        let phoneNumber: String
        let code: String
        let expiresAt: Date
        var wrongAttempts = 0
    }

    private var pending: [String: Pending] = [:]
    private var lastSent: [String: Date] = [:]

    /// Throws `tooManyRequests` if a code went to `phoneNumber` less than `cooldown` ago.
    func checkCooldown(for phoneNumber: String, now: Date, cooldown: TimeInterval) throws(AuthError) {
        if let last = lastSent[phoneNumber], now.timeIntervalSince(last) < cooldown {
            throw AuthError(.tooManyRequests, detail: "A code was sent to this number less than \(Int(cooldown)) seconds ago.")
        }
    }

    /// Starts a verification and returns when a code last went to the number before it.
    @discardableResult
    mutating func start(id: String, phoneNumber: String, code: String, now: Date, lifetime: TimeInterval) -> Date? {
        pending[id] = Pending(phoneNumber: phoneNumber, code: code, expiresAt: now.addingTimeInterval(lifetime))
        defer { lastSent[phoneNumber] = now }
        return lastSent[phoneNumber]
    }

    /// Undoes ``start(id:phoneNumber:code:now:lifetime:)`` when the code could not be sent.
    mutating func cancel(_ id: String, restoringLastSent previous: Date?, for phoneNumber: String) {
        pending[id] = nil
        lastSent[phoneNumber] = previous
    }

    /// Checks `code` for verification `id` and returns its phone number; consumes the
    /// verification only through ``consume(_:)``, once the caller's work succeeded.
    mutating func check(id: String, code: String, now: Date, maxAttempts: Int) throws(AuthError) -> String {
        guard code.count == 6, code.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw AuthError(.invalidVerificationCode, detail: "A verification code is six digits.")
        }
        guard var entry = pending[id] else {
            throw AuthError(.invalidVerificationID, detail: "The verification ID is unknown or was already used.")
        }
        guard now <= entry.expiresAt else {
            pending[id] = nil
            throw AuthError(.sessionExpired, detail: "The verification code expired.")
        }
        guard entry.wrongAttempts < maxAttempts else {
            throw AuthError(.tooManyRequests, detail: "\(maxAttempts) wrong codes were entered for this verification.")
        }
        guard entry.code == code else {
            entry.wrongAttempts += 1
            pending[id] = entry
            throw AuthError(.invalidVerificationCode, detail: "The code does not match (attempt \(entry.wrongAttempts) of \(maxAttempts)).")
        }
        return entry.phoneNumber
    }

    mutating func consume(_ id: String) {
        pending[id] = nil
    }
}
