import Foundation
import TrainCore

/// Delivers SMS verification codes. An app implements it with its SMS gateway (or
/// leaves the phone flow to Firebase); TrainKit ships ``SimulatedSMSInbox``.
public protocol VerificationCodeSender: Sendable {
    /// Sends `code` to `phoneNumber`.
    /// - Parameters:
    ///   - code: The 6-digit code.
    ///   - phoneNumber: The number in E.164 form.
    /// - Throws: ``TrainCore/TrainErrorCode/networkError`` or ``TrainCore/TrainErrorCode/invalidPhoneNumber``.
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

    private let received = Locked<[Message]>([])

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
    /// - Throws: ``TrainCore/TrainErrorCode/invalidPhoneNumber`` for anything else.
    public static func normalize(_ text: String) throws(AuthenticationError) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix("+") else {
            throw AuthenticationError(.invalidPhoneNumber, detail: "A phone number must start with + and its country code.")
        }
        var digits = ""
        for character in trimmed.dropFirst() {
            if character.isASCII && character.isNumber {
                digits.append(character)
            } else if !" -.()".contains(character) {
                throw AuthenticationError(.invalidPhoneNumber, detail: "A phone number may hold only digits, spaces, dashes, dots and parentheses.")
            }
        }
        guard (8...15).contains(digits.count), digits.first != "0" else {
            throw AuthenticationError(.invalidPhoneNumber, detail: "A phone number has 8 to 15 digits after +, not starting with 0.")
        }
        return "+" + digits
    }
}

/// The pending phone verifications of one service: codes, resend cooldown, expiry,
/// and wrong codes counted per phone number. Kept in memory only: a code
/// never reaches storage.
///
/// A new code for a number replaces its earlier ones, and wrong codes count for the
/// number across all its verifications, so asking for a new code every minute gives
/// no fresh guesses.
struct PhoneVerifications {
    struct Pending {
        let phoneNumber: String
        let code: String
        let sentAt: Date
        let expiresAt: Date
    }

    /// What ``start(id:phoneNumber:code:now:lifetime:)`` replaced, to put back if the code cannot be sent.
    struct Replaced {
        let lastSent: Date?
        let pending: [String: Pending]
    }

    /// The rules, from the service's policy.
    struct Limits {
        var cooldown: TimeInterval
        var maxWrongCodes: Int
        var lockout: TimeInterval
    }

    private var pending: [String: Pending] = [:]
    private var lastSent: [String: Date] = [:]
    /// Wrong codes per number, and when the last one was typed.
    private var wrongCodes: [String: (count: Int, last: Date)] = [:]

    /// Throws `tooManyRequests` while the number is blocked for wrong codes, or if a
    /// code went to it less than the cooldown ago.
    mutating func checkCanSend(to phoneNumber: String, now: Date, limits: Limits) throws(AuthenticationError) {
        try checkNotBlocked(phoneNumber, now: now, limits: limits)
        // A send dated after now (the clock was set back) does not hold the number: its code is expired.
        if let last = lastSent[phoneNumber], last <= now, now.timeIntervalSince(last) < limits.cooldown {
            throw AuthenticationError(.tooManyRequests, detail: "A code was sent to this number less than \(Int(limits.cooldown)) seconds ago.")
        }
    }

    /// Starts a verification; the number's earlier verifications end here.
    mutating func start(id: String, phoneNumber: String, code: String, now: Date, lifetime: TimeInterval) -> Replaced {
        let earlier = pending.filter { $0.value.phoneNumber == phoneNumber }
        for key in earlier.keys { pending[key] = nil }
        pending[id] = Pending(phoneNumber: phoneNumber, code: code, sentAt: now, expiresAt: now.addingTimeInterval(lifetime))
        defer { lastSent[phoneNumber] = now }
        return Replaced(lastSent: lastSent[phoneNumber], pending: earlier)
    }

    /// Undoes ``start(id:phoneNumber:code:now:lifetime:)`` when the code could not be sent.
    mutating func cancel(_ id: String, for phoneNumber: String, restoring replaced: Replaced) {
        pending[id] = nil
        lastSent[phoneNumber] = replaced.lastSent
        pending.merge(replaced.pending) { current, _ in current }
    }

    /// Checks `code` for verification `id` and returns its phone number; consumes the
    /// verification only through ``consume(_:)``, once the caller's work succeeded.
    mutating func check(id: String, code: String, now: Date, limits: Limits) throws(AuthenticationError) -> String {
        guard code.count == 6, code.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw AuthenticationError(.invalidVerificationCode, detail: "A verification code is six digits.")
        }
        guard let entry = pending[id] else {
            throw AuthenticationError(
                .invalidVerificationID, detail: "The verification ID is unknown, was replaced by a newer code, or was already used.")
        }
        // A code sent after now (the clock was set back since) would otherwise last longer than its lifetime.
        guard entry.sentAt <= now, now <= entry.expiresAt else {
            pending[id] = nil
            throw AuthenticationError(.sessionExpired, detail: "The verification code expired, or is dated after now.")
        }
        try checkNotBlocked(entry.phoneNumber, now: now, limits: limits)
        guard entry.code == code else {
            let count = (wrongCodes[entry.phoneNumber]?.count ?? 0) + 1
            wrongCodes[entry.phoneNumber] = (count, now)
            throw AuthenticationError(
                .invalidVerificationCode, detail: "The code does not match (wrong code \(count) of \(limits.maxWrongCodes) for this number).")
        }
        return entry.phoneNumber
    }

    /// The number a pending verification is for.
    func phoneNumber(of id: String) -> String? { pending[id]?.phoneNumber }

    /// Ends a verification whose code was right, and clears its number's wrong codes.
    mutating func consume(_ id: String) {
        guard let entry = pending.removeValue(forKey: id) else { return }
        wrongCodes[entry.phoneNumber] = nil
    }

    /// Throws `tooManyRequests` while the number has used up its wrong codes; a count
    /// whose last wrong code is older than the lockout is forgotten.
    private mutating func checkNotBlocked(_ phoneNumber: String, now: Date, limits: Limits) throws(AuthenticationError) {
        guard let wrong = wrongCodes[phoneNumber] else { return }
        guard now.timeIntervalSince(wrong.last) < limits.lockout else {
            wrongCodes[phoneNumber] = nil
            return
        }
        if wrong.count >= limits.maxWrongCodes {
            throw AuthenticationError(.tooManyRequests, detail: "\(limits.maxWrongCodes) wrong codes were entered for this number; try again later.")
        }
    }
}
