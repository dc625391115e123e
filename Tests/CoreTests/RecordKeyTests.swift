import Foundation
import Testing
import TrainCore
import TrainTesting

/// CORE-9: composite keys whose byte order is the order of their components.
@Suite(.timeLimit(.minutes(1))) struct RecordKeyTests {
    typealias Component = RecordKey.Component

    /// The order of two components of the same kind, as the values compare: negative,
    /// zero or positive. Nil for components of different kinds.
    static func order(_ lhs: Component, _ rhs: Component) -> Int? {
        func sign<T: Comparable>(_ a: T, _ b: T) -> Int { a < b ? -1 : (a == b ? 0 : 1) }
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)):
            return Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8)) ? -1 : (Array(a.utf8) == Array(b.utf8) ? 0 : 1)
        case (.int(let a), .int(let b)): return sign(a, b)
        case (.uint(let a), .uint(let b)): return sign(a, b)
        case (.date(let a), .date(let b)): return sign((a.timeIntervalSince1970 * 1000).rounded(), (b.timeIntervalSince1970 * 1000).rounded())
        case (.uuid(let a), .uuid(let b)):
            let (x, y) = (withUnsafeBytes(of: a.uuid) { Array($0) }, withUnsafeBytes(of: b.uuid) { Array($0) })
            return x.lexicographicallyPrecedes(y) ? -1 : (x == y ? 0 : 1)
        case (.descending(let a), .descending(let b)): return order(a, b).map { -$0 }
        default: return nil
        }
    }

    /// The order of two tuples of the same shape: component by component, a tuple that
    /// is a prefix of the other first.
    static func order(_ lhs: [Component], _ rhs: [Component]) -> Int {
        for (a, b) in zip(lhs, rhs) {
            if let order = order(a, b), order != 0 { return order }
        }
        return lhs.count < rhs.count ? -1 : (lhs.count == rhs.count ? 0 : 1)
    }

    static func byteOrder(_ lhs: RecordKey, _ rhs: RecordKey) -> Int {
        let (a, b) = (Array(lhs.encoded.utf8), Array(rhs.encoded.utf8))
        return a.lexicographicallyPrecedes(b) ? -1 : (a == b ? 0 : 1)
    }

    /// The kinds a random tuple's components take, in order.
    enum Kind: CaseIterable {
        case string, int, uint, date, uuid
    }

    static let pieces = ["", "a", "b", "\0", "\0\0", "\u{1}", "~", "s", "0", "\u{E9}", "e\u{301}", "\u{10FFFF}", "\u{7F}", "/"]

    static func component(_ kind: Kind, descending: Bool, _ random: inout SeededRandomNumberGenerator) -> Component {
        let value: Component
        switch kind {
        case .string:
            value = .string((0..<Int.random(in: 0...3, using: &random)).map { _ in pieces.randomElement(using: &random) ?? "" }.joined())
        case .int:
            let edges: [Int64] = [.min, .min + 1, -1, 0, 1, .max - 1, .max]
            value = .int(Bool.random(using: &random) ? edges.randomElement(using: &random) ?? 0 : Int64.random(in: -1_000...1_000, using: &random))
        case .uint:
            let edges: [UInt64] = [0, 1, .max - 1, .max, 1 << 63]
            value = .uint(Bool.random(using: &random) ? edges.randomElement(using: &random) ?? 0 : UInt64.random(in: 0...2_000, using: &random))
        case .date:
            // Whole milliseconds from the year 1 to 9999, and near 1970 on both sides.
            let milliseconds =
                Bool.random(using: &random)
                ? Int64.random(in: -62_135_596_800_000...253_402_300_799_999, using: &random)
                : Int64.random(in: -5_000...5_000, using: &random)
            value = .date(Date(timeIntervalSince1970: Double(milliseconds) / 1000))
        case .uuid:
            var bytes = (0..<16).map { _ in UInt8.random(in: 0...3, using: &random) * 85 }
            bytes[0] = UInt8.random(in: 0...255, using: &random)
            value = .uuid(
                UUID(
                    uuid: (
                        bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9], bytes[10], bytes[11],
                        bytes[12], bytes[13], bytes[14], bytes[15]
                    )))
        }
        return descending ? .descending(value) : value
    }

    @Test("random tuples: encoded keys order as the tuples do, and decode back to them")
    func property() throws {
        for seed in SeededRandomNumberGenerator.seeds(default: 40) {
            var random = SeededRandomNumberGenerator(seed: seed)
            let shape = (0..<Int.random(in: 1...4, using: &random)).map { _ in
                (Kind.allCases.randomElement(using: &random) ?? .string, Bool.random(using: &random))
            }
            var keys: [RecordKey] = []
            for _ in 0..<60 {
                // Some tuples stop early: a key that is a prefix of another.
                let length = Int.random(in: 1...shape.count, using: &random)
                keys.append(try RecordKey(shape.prefix(length).map { Self.component($0.0, descending: $0.1, &random) }))
            }
            for key in keys {
                let decoded = try RecordKey(encoded: key.encoded)
                guard decoded.components == key.components, decoded == key else {
                    Issue.record("seed \(seed): \(key) decoded as \(decoded); replay with TRAINKIT_SEED=\(seed)")
                    return
                }
            }
            for a in keys {
                for b in keys where Self.byteOrder(a, b) != Self.order(a.components, b.components) {
                    Issue.record("seed \(seed): \(a) vs \(b) orders \(Self.byteOrder(a, b)) by bytes; replay with TRAINKIT_SEED=\(seed)")
                    return
                }
                for b in keys {
                    let startsWithA = b.components.count >= a.components.count && Array(b.components.prefix(a.components.count)) == a.components
                    guard a.range.contains(b.encoded) == startsWithA else {
                        Issue.record("seed \(seed): \(a).range and \(b) disagree; replay with TRAINKIT_SEED=\(seed)")
                        return
                    }
                }
            }
        }
    }

    @Test("a string holding the encoding's own bytes never collides with, or sorts into, another tuple")
    func separatorsInsideStrings() throws {
        let single = try RecordKey(.string("a\0\0s"))
        let pair = try RecordKey(.string("a"), .string(""))
        #expect(single != pair)
        #expect(pair < single, "\"a\" sorts before \"a\\0\\0s\"")
        let shorter = try RecordKey(.string("a"), .int(5))
        let longer = try RecordKey(.string("a\0"), .int(-5))
        #expect(shorter < longer)
        #expect(try RecordKey(encoded: longer.encoded).components == [.string("a\0"), .int(-5)])
        #expect(RecordKey.Component.string("\u{E9}") != .string("e\u{301}"), "components compare by bytes, as keys do")
        let down = try RecordKey(.descending(.string("a")), .string("~"))
        let downLonger = try RecordKey(.descending(.string("a~")), .string(""))
        #expect(downLonger < down, "descending: the longer string first")
    }

    @Test("newest first: a descending date makes the latest post the first key of a forward scan")
    func newestFirst() throws {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let keys = try (0..<5).map { try RecordKey(.string("ada"), .descending(.date(start.addingTimeInterval(Double($0) * 60)))) }
        #expect(keys.sorted() == keys.reversed())
        let ada = try RecordKey(.string("ada")).range
        #expect(keys.allSatisfy { ada.contains($0.encoded) })
        #expect(!(try RecordKey(.string("ad")).range.contains(keys[0].encoded)), "a shorter user ID is another user")
    }

    @Test("dates keep the millisecond before and after 1970; before distantPast, after 9999 or not finite is invalidArgument")
    func dates() throws {
        let before = Date(timeIntervalSince1970: -0.0015)
        let key = try RecordKey(.date(before))
        #expect(key.components == [.date(Date(timeIntervalSince1970: -0.002))], "rounded to the nearest millisecond")
        #expect(try RecordKey(.date(Date(timeIntervalSince1970: -0.001))) < RecordKey(.date(Date(timeIntervalSince1970: 0))))
        #expect(try RecordKey(.date(.distantPast)) < RecordKey(.date(.distantFuture)))
        for bad in [
            Date(timeIntervalSince1970: .infinity), Date(timeIntervalSince1970: .nan), Date(timeIntervalSince1970: 1e15),
            Date.distantPast.addingTimeInterval(-1),
        ] {
            #expect(throws: CoreError(.invalidArgument)) { try RecordKey(.date(bad)) }
        }
    }

    @Test("a key not made by RecordKey, or a component descending twice, is invalidArgument")
    func badInput() {
        for encoded in ["hello", "s", "sabc", "sabc\0", "sab\0\u{2}", "i123", "i0123456789abcdeg", "S3f~", "S0", "Sgg~", "g00", "\u{E9}"] {
            #expect(throws: CoreError(.invalidArgument), "\(encoded.debugDescription)") { try RecordKey(encoded: encoded) }
        }
        #expect(throws: CoreError(.invalidArgument)) { try RecordKey(.descending(.descending(.int(1)))) }
    }
}
