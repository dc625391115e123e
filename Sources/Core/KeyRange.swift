import Foundation

/// A range of record keys, in the store's order — the UTF-8 bytes of the keys —
/// with each bound open, inclusive or exclusive.
///
/// ```swift
/// let page = try records.records(in: posts, range: KeyRange(after: cursor), limit: 20)
/// let mine = try records.records(in: posts, range: .prefix("ada/"))
/// let last = try records.lastKey(in: posts, range: .prefix("ada/"))
/// ```
///
/// A range whose lower bound is above its upper bound holds nothing.
public struct KeyRange: Sendable, Equatable, CustomStringConvertible {
    /// One end of a range.
    public enum Bound: Sendable, Equatable {
        /// No limit on this side.
        case unbounded
        /// Up to and including this key.
        case included(String)
        /// Up to but not including this key.
        case excluded(String)

        /// The key, or nil when unbounded.
        var key: String? {
            switch self {
            case .unbounded: nil
            case .included(let key), .excluded(let key): key
            }
        }

        /// Whether two bounds name the same bytes with the same inclusion (two
        /// spellings of one text are two keys, as in the store).
        public static func == (lhs: Bound, rhs: Bound) -> Bool {
            switch (lhs, rhs) {
            case (.unbounded, .unbounded): true
            case (.included(let a), .included(let b)), (.excluded(let a), .excluded(let b)): a.utf8.elementsEqual(b.utf8)
            default: false
            }
        }
    }

    /// The lower end.
    public var lower: Bound
    /// The upper end.
    public var upper: Bound

    /// Creates a range.
    /// - Parameters:
    ///   - lower: The lower end; unbounded by default.
    ///   - upper: The upper end; unbounded by default.
    public init(lower: Bound = .unbounded, upper: Bound = .unbounded) {
        self.lower = lower
        self.upper = upper
    }

    /// Every key.
    public static let all = KeyRange()

    /// The keys after `key`, not including it: where the next page starts when `key`
    /// was the last of the previous one.
    /// - Parameter key: The key to continue after.
    public init(after key: String) {
        self.init(lower: .excluded(key))
    }

    /// The keys before `key`, not including it: the next page of a reverse scan.
    /// - Parameter key: The key to continue before.
    public init(before key: String) {
        self.init(upper: .excluded(key))
    }

    /// The keys that start with `prefix`: from `prefix` itself up to the first key in
    /// byte order that does not start with it. The empty prefix is every key.
    /// - Parameter prefix: The prefix.
    /// - Returns: The range.
    public static func prefix(_ prefix: String) -> KeyRange {
        guard !prefix.isEmpty else { return .all }
        guard let successor = successor(of: prefix) else { return KeyRange(lower: .included(prefix)) }
        return KeyRange(lower: .included(prefix), upper: .excluded(successor))
    }

    /// The keys of this range after `key`: where the next page of a forward walk
    /// starts when `key` was the last one read.
    /// - Parameter key: The key to continue after.
    /// - Returns: The narrowed range; this one if it already starts after `key`.
    public func after(_ key: String) -> KeyRange {
        var narrowed = self
        if Self.isTighterLower(.excluded(key), than: lower) { narrowed.lower = .excluded(key) }
        return narrowed
    }

    /// The keys of this range before `key`: where the next page of a reverse walk
    /// starts when `key` was the last one read.
    /// - Parameter key: The key to continue before.
    /// - Returns: The narrowed range; this one if it already ends before `key`.
    public func before(_ key: String) -> KeyRange {
        var narrowed = self
        if Self.isTighterUpper(.excluded(key), than: upper) { narrowed.upper = .excluded(key) }
        return narrowed
    }

    private static func isTighterLower(_ candidate: Bound, than current: Bound) -> Bool {
        guard let new = candidate.key else { return false }
        guard let old = current.key else { return true }
        let order = compareBytes(Array(new.utf8), Array(old.utf8))
        if case .excluded = candidate, order == 0 { return true }
        return order > 0
    }

    private static func isTighterUpper(_ candidate: Bound, than current: Bound) -> Bool {
        guard let new = candidate.key else { return false }
        guard let old = current.key else { return true }
        let order = compareBytes(Array(new.utf8), Array(old.utf8))
        if case .excluded = candidate, order == 0 { return true }
        return order < 0
    }

    /// Whether `key` lies in the range.
    /// - Parameter key: A key.
    /// - Returns: True if both bounds admit it.
    public func contains(_ key: String) -> Bool {
        let bytes = Array(key.utf8)
        switch lower {
        case .unbounded: break
        case .included(let bound): if compareBytes(bytes, Array(bound.utf8)) < 0 { return false }
        case .excluded(let bound): if compareBytes(bytes, Array(bound.utf8)) <= 0 { return false }
        }
        switch upper {
        case .unbounded: return true
        case .included(let bound): return compareBytes(bytes, Array(bound.utf8)) <= 0
        case .excluded(let bound): return compareBytes(bytes, Array(bound.utf8)) < 0
        }
    }

    /// Whether no key can lie in the range: the lower bound is above the upper one,
    /// or they meet at a key that one of them excludes.
    public var isEmpty: Bool {
        ByteRange(self).isEmpty
    }

    /// The bounds, for logs.
    public var description: String {
        let low =
            switch lower {
            case .unbounded: "(…"
            case .included(let key): "[\(key.debugDescription)"
            case .excluded(let key): "(\(key.debugDescription)"
            }
        let high =
            switch upper {
            case .unbounded: "…)"
            case .included(let key): "\(key.debugDescription)]"
            case .excluded(let key): "\(key.debugDescription))"
            }
        return "\(low), \(high)"
    }

    /// The smallest string, in UTF-8 byte order, above every string that starts with
    /// `prefix`: its last character raised by one code point (skipping surrogates),
    /// dropping trailing characters that cannot be raised. Nil when none exists.
    ///
    /// Keys built with ``RecordKey`` end in an ASCII byte, which is raised in place:
    /// every prefix read of a service asks for this, and decoding the whole key into
    /// code points and building a string from them one by one was a tenth of a large
    /// account deletion (`perf record` on train-bench's in-memory deletion row).
    static func successor(of prefix: String) -> String? {
        if let last = prefix.utf8.last, last < 0x7F {
            var bytes = Array(prefix.utf8)
            bytes[bytes.count - 1] = last + 1
            return String(decoding: bytes, as: UTF8.self)
        }
        let scalars = prefix.unicodeScalars
        var end = scalars.endIndex
        while end > scalars.startIndex {
            let lastIndex = scalars.index(before: end)
            var next = scalars[lastIndex].value + 1
            if next == 0xD800 { next = 0xE000 }
            if let raised = Unicode.Scalar(next) {
                var result = String(Substring(scalars[..<lastIndex]))
                result.unicodeScalars.append(raised)
                return result
            }
            end = lastIndex
        }
        return nil
    }
}

/// Compares two byte strings: negative, zero or positive as `lhs` sorts before, with, or after `rhs`.
func compareBytes(_ lhs: [UInt8], _ rhs: [UInt8]) -> Int {
    lhs.withUnsafeBytes { a in rhs.withUnsafeBytes { b in compareBytes(a, b) } }
}

/// Compares two byte strings in memory, as SQLite's binary collation does.
func compareBytes(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Int {
    let common = min(lhs.count, rhs.count)
    if common > 0, let a = lhs.baseAddress, let b = rhs.baseAddress {
        let order = memcmp(a, b, common)
        if order != 0 { return Int(order) }
    }
    return lhs.count - rhs.count
}

/// Which way a range read walks the keys.
public enum ScanDirection: Sendable, Hashable {
    /// Ascending byte order.
    case forward
    /// Descending byte order.
    case reverse
}
