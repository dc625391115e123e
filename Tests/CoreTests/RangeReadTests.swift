import Foundation
import Testing
import TrainCore
import TrainTesting

/// CORE-8: ordered range reads, the same in memory and on disk.
@Suite(.timeLimit(.minutes(1))) struct RangeReadTests {
    /// A store holding counters under the keys "a" to "j", each worth its position.
    static func lettered(_ variant: StoreVariant, in directory: TemporaryDirectory) throws -> RecordStore {
        let store = try variant.open(in: directory)
        try store.write { records in
            for (index, key) in Self.letters.enumerated() { try records.put(index, forKey: key, in: counters) }
        }
        return store
    }

    static let letters = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]

    @Test("each bound can be inclusive, exclusive or open", arguments: StoreVariant.allCases)
    func bounds(variant: StoreVariant) throws {
        let directory = try TemporaryDirectory()
        let store = try Self.lettered(variant, in: directory)
        func keys(_ range: KeyRange) throws -> [String] { try store.read { try $0.keys(in: counters, range: range) } }
        #expect(try keys(KeyRange(lower: .included("c"), upper: .included("f"))) == ["c", "d", "e", "f"])
        #expect(try keys(KeyRange(lower: .excluded("c"), upper: .excluded("f"))) == ["d", "e"])
        #expect(try keys(KeyRange(lower: .included("h"))) == ["h", "i", "j"])
        #expect(try keys(KeyRange(upper: .excluded("c"))) == ["a", "b"])
        #expect(try keys(KeyRange(lower: .included("cc"), upper: .included("e0"))) == ["d", "e"], "bounds need not be keys")
        #expect(try keys(.all) == Self.letters)
    }

    @Test("removing a range deletes exactly its keys, across batches, and counts them; a rollback keeps them", arguments: StoreVariant.allCases)
    func removeRange(variant: StoreVariant) throws {
        let directory = try TemporaryDirectory()
        let store = try variant.open(in: directory)
        let keys = (0..<1_300).map { String(format: "u%05d", $0) }
        try store.write { records in
            for (index, key) in keys.enumerated() { try records.put(index, forKey: key, in: counters) }
            try records.put(-1, forKey: "t", in: counters)
            try records.put(-2, forKey: "v", in: counters)
        }
        struct Rollback: Error {}
        #expect(throws: Rollback.self) {
            try store.write { records in
                try records.removeAll(in: counters, range: .prefix("u"))
                throw Rollback()
            }
        }
        #expect(try store.read { try $0.count(in: counters) } == 1_302)
        let removed = try store.write { try $0.removeAll(in: counters, range: .prefix("u")) }
        #expect(removed == 1_300)
        #expect(try store.read { try $0.keys(in: counters) } == ["t", "v"])
        #expect(try store.write { try $0.removeAll(in: counters, range: .prefix("u")) } == 0, "again, nothing is left to remove")
    }

    @Test("a reverse read walks from the upper bound down, and a limit stops it", arguments: StoreVariant.allCases)
    func reverseAndLimit(variant: StoreVariant) throws {
        let directory = try TemporaryDirectory()
        let store = try Self.lettered(variant, in: directory)
        let values = try store.read { records in
            try records.values(in: counters, range: KeyRange(upper: .included("g")), direction: .reverse, limit: 3)
        }
        #expect(values == [6, 5, 4])
        let forward = try store.read { try $0.records(in: counters, range: KeyRange(after: "g"), limit: 2) }
        #expect(forward.map(\.key) == ["h", "i"])
    }

    @Test("pages continued after the last key of each read add up to the whole range, both ways", arguments: StoreVariant.allCases)
    func paging(variant: StoreVariant) throws {
        let directory = try TemporaryDirectory()
        let store = try Self.lettered(variant, in: directory)
        for direction in [ScanDirection.forward, .reverse] {
            var pages: [[String]] = []
            var range = KeyRange(lower: .included("b"), upper: .excluded("j"))
            while true {
                let page = try store.read { try $0.entries(in: counters, range: range, direction: direction, limit: 3) }
                guard let last = page.last else { break }
                pages.append(page.map(\.key))
                range = direction == .forward ? range.after(last.key) : range.before(last.key)
            }
            let expected = Array(Self.letters[1..<9])
            #expect(pages.flatMap { $0 } == (direction == .forward ? expected : expected.reversed()))
            #expect(pages.map(\.count) == [3, 3, 2])
        }
    }

    @Test("first and last key and the count of a range", arguments: StoreVariant.allCases)
    func firstLastCount(variant: StoreVariant) throws {
        let directory = try TemporaryDirectory()
        let store = try Self.lettered(variant, in: directory)
        let range = KeyRange(lower: .excluded("b"), upper: .included("g"))
        let (first, last, count, total) = try store.read { records in
            (
                try records.firstKey(in: counters, range: range), try records.lastKey(in: counters, range: range),
                try records.count(in: counters, range: range), try records.count(in: counters)
            )
        }
        #expect(first == "c")
        #expect(last == "g")
        #expect(count == 5)
        #expect(total == 10)
        let nothing = KeyRange(lower: .excluded("c"), upper: .excluded("d"))
        #expect(try store.read { try $0.firstKey(in: counters, range: nothing) } == nil)
        #expect(try store.read { try $0.lastKey(in: counters, range: nothing) } == nil)
        #expect(try store.read { try $0.count(in: counters, range: nothing) } == 0)
    }

    @Test("an inverted range and limit 0 read nothing; a negative limit is invalidArgument", arguments: StoreVariant.allCases)
    func badRanges(variant: StoreVariant) throws {
        let directory = try TemporaryDirectory()
        let store = try Self.lettered(variant, in: directory)
        let inverted = KeyRange(lower: .included("f"), upper: .included("c"))
        #expect(inverted.isEmpty)
        #expect(try store.read { try $0.records(in: counters, range: inverted) }.isEmpty)
        #expect(try store.read { try $0.records(in: counters, range: inverted, direction: .reverse) }.isEmpty)
        #expect(try store.read { try $0.count(in: counters, range: inverted) } == 0)
        #expect(try store.read { try $0.records(in: counters, limit: 0) }.isEmpty)
        #expect(throws: CoreError(.invalidArgument)) { try store.read { try $0.records(in: counters, limit: -1) } }
        #expect(throws: CoreError(.invalidArgument)) { try store.read { try $0.keys(in: counters, limit: -5) } }
        #expect(try store.read { try $0.count(in: counters) } == 10, "nothing changed")
    }

    @Test("a prefix read is the range from the prefix to its successor", arguments: StoreVariant.allCases)
    func prefixes(variant: StoreVariant) throws {
        let directory = try TemporaryDirectory()
        let store = try variant.open(in: directory)
        let keys = ["ad", "ad/1", "ad/\u{10FFFF}", "ad0", "ada", "ae", "a\u{10FFFF}", "a\u{10FFFF}x", "b"]
        try store.write { records in
            for key in keys { try records.put(1, forKey: key, in: counters) }
        }
        func prefixed(_ prefix: String) throws -> [String] { try store.read { try $0.keys(in: counters, range: .prefix(prefix)) } }
        #expect(try prefixed("ad/") == ["ad/1", "ad/\u{10FFFF}"])
        #expect(try prefixed("ad") == ["ad", "ad/1", "ad/\u{10FFFF}", "ad0", "ada"])
        #expect(try prefixed("a\u{10FFFF}") == ["a\u{10FFFF}", "a\u{10FFFF}x"], "a last character that cannot be raised")
        #expect(try prefixed("") == keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        #expect(KeyRange.prefix("\u{10FFFF}") == KeyRange(lower: .included("\u{10FFFF}")))
    }

    @Test("a prefix's range ends at its last code point raised by one, whatever that code point")
    func prefixEnds() {
        let ends: [(prefix: String, end: String?)] = [
            ("ad", "ae"), ("a\0", "a\u{1}"), ("a~", "a\u{7F}"), ("a\u{7F}", "a\u{80}"), ("e\u{301}", "e\u{302}"),
            ("\u{E9}\u{FF}", "\u{E9}\u{100}"), ("a\u{D7FF}", "a\u{E000}"), ("a\u{FFFF}", "a\u{10000}"),
            ("ab\u{10FFFF}", "ac"), ("a\u{10FFFF}\u{10FFFF}", "b"), ("\u{10FFFF}", nil),
        ]
        for (prefix, end) in ends {
            let expected = end.map { KeyRange(lower: .included(prefix), upper: .excluded($0)) } ?? KeyRange(lower: .included(prefix))
            #expect(KeyRange.prefix(prefix) == expected, "\(prefix.unicodeScalars.map(\.value))")
        }
    }

    @Test("keys with NUL, combining marks, 10 KB or the highest code point order by their bytes", arguments: StoreVariant.allCases)
    func unusualKeys(variant: StoreVariant) throws {
        let directory = try TemporaryDirectory()
        let store = try variant.open(in: directory)
        let long = String(repeating: "z", count: 10_000)
        let keys = ["a", "a\0", "a\0b", "e\u{301}", "\u{E9}", "\u{FFFF}", "\u{10FFFF}", long, long + "\0"]
        try store.write { records in
            for (index, key) in keys.enumerated() { try records.put(index, forKey: key, in: counters) }
        }
        let expected = keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        #expect(try store.read { try $0.keys(in: counters) } == expected)
        #expect(try store.read { try $0.keys(in: counters, direction: .reverse) } == expected.reversed())
        #expect(try store.read { try $0.keys(in: counters, range: .prefix("a\0")) } == ["a\0", "a\0b"])
        #expect(try store.read { try $0.keys(in: counters, range: KeyRange(after: "a")) }.first == "a\0")
        #expect(try store.read { try $0.keys(in: counters, range: .prefix("e")) } == ["e\u{301}"], "é precomposed is another key")
        #expect(try store.read { try $0.count(in: counters, range: .prefix(long)) } == 2)
    }

    @Test("a read inside a write sees the write's own changes in order", arguments: StoreVariant.allCases)
    func readOwnWrites(variant: StoreVariant) throws {
        let directory = try TemporaryDirectory()
        let store = try Self.lettered(variant, in: directory)
        let seen = try store.write { records in
            try records.removeValue(forKey: "c", in: counters)
            try records.put(99, forKey: "cc", in: counters)
            return try records.keys(in: counters, range: KeyRange(lower: .included("b"), upper: .included("d")))
        }
        #expect(seen == ["b", "cc", "d"])
    }

    @Test("narrowing a range keeps the tighter bound")
    func narrowing() {
        let range = KeyRange(lower: .included("c"), upper: .excluded("m"))
        #expect(range.after("e") == KeyRange(lower: .excluded("e"), upper: .excluded("m")))
        #expect(range.after("a") == range, "a key below the range does not widen it")
        #expect(range.after("c") == KeyRange(lower: .excluded("c"), upper: .excluded("m")))
        #expect(range.before("k") == KeyRange(lower: .included("c"), upper: .excluded("k")))
        #expect(range.before("z") == range)
        #expect(KeyRange.all.after("x").contains("y"))
        #expect(!KeyRange.all.after("x").contains("x"))
        #expect(KeyRange(lower: .included("b"), upper: .included("b")).contains("b"))
        #expect(!KeyRange(lower: .included("b"), upper: .excluded("b")).contains("b"))
        #expect(KeyRange(lower: .included("b"), upper: .excluded("b")).isEmpty)
    }
}
