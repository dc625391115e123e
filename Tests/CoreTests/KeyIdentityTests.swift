import Foundation
import Testing
import TrainCore
import TrainTesting

/// Key identity is the key's UTF-8 bytes, the same in memory and on disk: a key is
/// stored faithfully or refused with a typed error.
@Suite struct KeyIdentityTests {
    @Test(
        "a key with a NUL inside is its own key: \"k\\0x\" is not \"k\", and \"\\0abc\" is not \"abc\"",
        arguments: StoreVariant.allCases)
    func nulBytes(variant: StoreVariant) throws {
        let directory = try TemporaryDirectory()
        let store = try variant.open(in: directory)
        let keys = ["k", "k\0x", "\0abc", "abc", "\0"]
        try store.write { records in
            for (index, key) in keys.enumerated() { try records.put(index, forKey: key, in: counters) }
        }
        for (index, key) in keys.enumerated() {
            #expect(try store.read { try $0.value(forKey: key, in: counters) } == index, "\(key.debugDescription)")
        }
        let listed = try store.read { try $0.records(in: counters) }.map(\.key)
        #expect(listed == ["\0", "\0abc", "abc", "k", "k\0x"], "every key comes back byte for byte, in byte order")
        #expect(try store.read { try $0.records(in: counters, range: .prefix("k\0")) }.map(\.key) == ["k\0x"])
    }

    @Test("precomposed and decomposed spellings of one word are two keys in both variants", arguments: StoreVariant.allCases)
    func unicodeSpellings(variant: StoreVariant) throws {
        let directory = try TemporaryDirectory()
        let store = try variant.open(in: directory)
        let composed = "jos\u{E9}"
        let decomposed = "jose\u{301}"
        #expect(composed == decomposed, "Swift calls them equal")
        try store.write { records in
            try records.put(1, forKey: composed, in: counters)
            try records.put(2, forKey: decomposed, in: counters)
        }
        #expect(try store.read { try $0.count(in: counters) } == 2)
        #expect(try store.read { try $0.value(forKey: composed, in: counters) } == 1)
        #expect(try store.read { try $0.value(forKey: decomposed, in: counters) } == 2)
        try store.write { try $0.removeValue(forKey: decomposed, in: counters) }
        #expect(try store.read { try $0.records(in: counters) }.map { Array($0.key.utf8) } == [Array(composed.utf8)])
    }

    @Test("an empty key or one over the limit is invalidArgument and writes nothing", arguments: StoreVariant.allCases)
    func keyLength(variant: StoreVariant) throws {
        let directory = try TemporaryDirectory()
        let store = try variant.open(in: directory)
        let longest = String(repeating: "é", count: RecordStore.maximumKeyLength / 2)
        try store.write { try $0.put(1, forKey: longest, in: counters) }
        #expect(try store.read { try $0.value(forKey: longest, in: counters) } == 1)
        for key in ["", longest + "x"] {
            #expect(throws: CoreError(.invalidArgument)) { try store.write { try $0.put(2, forKey: key, in: counters) } }
            #expect(throws: CoreError(.invalidArgument)) { try store.read { try $0.value(forKey: key, in: counters) } }
        }
        #expect(try store.read { try $0.count(in: counters) } == 1)
    }

    @Test("a collection name outside ASCII letters, digits, '-', '_' and '.' is refused", arguments: ["a\0b", "caf\u{E9}", "a/b", ""])
    func collectionNames(name: String) {
        let schema = StoreSchema(name: "names", migrations: [.createCollections(version: 1, [name])])
        #expect(throws: CoreError(.invalidArgument)) { try RecordStore(.inMemory, schema: schema) }
    }
}
