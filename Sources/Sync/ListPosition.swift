/// Where an element of a list field stands: a fractional index. Positions are
/// strings of base-62 digits (`0-9A-Za-z`, compared as bytes, which is their numeric
/// order as fractions) that never end in `0`, so there is always room between two. A
/// list is its live elements sorted by position, then by ID for two devices that
/// inserted at the same place at once. An element keeps its position while others are
/// inserted, edited, moved or removed around it; a move gives it a new one between its
/// new neighbours; a removed element keeps its position in its tombstone, so one a
/// policy restores returns to its place.
enum ListPosition {
    /// The digits, in order.
    static let digits = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
    /// The longest position a document may hold.
    static let maximumLength = 64

    /// Whether `position` is one this version writes: 1 to 64 digits, not ending in `0`.
    static func isValid(_ position: String) -> Bool {
        let bytes = Array(position.utf8)
        return !bytes.isEmpty && bytes.count <= maximumLength && bytes.last != digits[0] && bytes.allSatisfy { value(of: $0) != nil }
    }

    /// `count` positions in order strictly between `lower` and `upper` (nil: the start
    /// or the end of the list), as short as the gap allows.
    static func between(_ lower: String?, _ upper: String?, count: Int) -> [String] {
        guard count > 0 else { return [] }
        let middle = midpoint(lower.map(digitValues) ?? [], upper.map(digitValues))
        let key = String(decoding: middle.map { digits[$0] }, as: UTF8.self)
        let before = (count - 1) / 2
        return between(lower, key, count: before) + [key] + between(key, upper, count: count - 1 - before)
    }

    /// Evenly spread positions for `count` elements with none yet, such as a list
    /// stored before positions: the same list gives the same positions on every device.
    static func spread(_ count: Int) -> [String] {
        between(nil, nil, count: count)
    }

    /// A fraction strictly between `lower` and `upper` (nil: 1), as digit values.
    private static func midpoint(_ lower: [Int], _ upper: [Int]?) -> [Int] {
        if let upper {
            // Past their common digits, the first that differ.
            var shared = 0
            while shared < upper.count, (shared < lower.count ? lower[shared] : 0) == upper[shared] { shared += 1 }
            if shared > 0 { return Array(upper[..<shared]) + midpoint(Array(lower.dropFirst(shared)), Array(upper.dropFirst(shared))) }
        }
        let low = lower.first ?? 0
        let high = upper?.first ?? digits.count
        if high - low > 1 { return [(low + high) / 2] }
        // Adjacent first digits: the upper one alone, if the upper position goes on past it;
        // else the lower digit, then a fraction above the rest of the lower position.
        if let upper, upper.count > 1 { return [upper[0]] }
        return [low] + midpoint(Array(lower.dropFirst()), nil)
    }

    private static func digitValues(_ position: String) -> [Int] {
        position.utf8.compactMap(value(of:))
    }

    private static func value(of digit: UInt8) -> Int? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(digit - UInt8(ascii: "0"))
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): Int(digit - UInt8(ascii: "A")) + 10
        case UInt8(ascii: "a")...UInt8(ascii: "z"): Int(digit - UInt8(ascii: "a")) + 36
        default: nil
        }
    }

    /// The position of each element of a list as a device now holds it, in `order`,
    /// given where its elements stood before: the longest run of elements still in
    /// the order of their positions keeps them, and each other element — added, or
    /// moved — gets a new one between its neighbours, placed at `stamp`.
    static func place(_ order: [String], before: [String: (position: String, placed: HybridTimestamp)], at stamp: HybridTimestamp) -> [(
        position: String, placed: HybridTimestamp
    )] {
        var kept = Set<String>()
        var last: String?
        for index in longestOrderedRun(order.map { id in before[id].map { ($0.position, id) } }) {
            // Two elements two devices inserted at one place at once share a position:
            // the second is placed again, so there is room between them.
            guard let position = before[order[index]]?.position, position != last else { continue }
            kept.insert(order[index])
            last = position
        }
        var placed: [(position: String, placed: HybridTimestamp)?] = order.map { id in kept.contains(id) ? before[id] : nil }
        var index = 0
        while index < order.count {
            guard placed[index] == nil else {
                index += 1
                continue
            }
            var end = index
            while end < order.count, placed[end] == nil { end += 1 }
            let lower = index > 0 ? placed[index - 1]?.position : nil
            let upper = end < order.count ? placed[end]?.position : nil
            let fresh = between(lower, upper, count: end - index)
            for (offset, position) in fresh.enumerated() {
                // Each below the next new one, so the suffix keeps them in their order.
                let next = offset + 1 < fresh.count ? fresh[offset + 1] : upper
                placed[index + offset] = (distinct(position, below: next, replica: stamp.replicaID), stamp)
            }
            index = end
        }
        // Positions that grew past the longest a document holds — thousands of inserts at
        // one place — are spread anew over the whole list, placed at this edit.
        guard placed.allSatisfy({ ($0?.position.utf8.count ?? 0) <= maximumLength }) else {
            return spread(order.count).map { ($0, stamp) }
        }
        return placed.compactMap { $0 }
    }

    /// `position` with two digits of `replica` after it, when that stays below `upper`:
    /// two devices that insert at one place at once then rarely share a position.
    private static func distinct(_ position: String, below upper: String?, replica: String) -> String {
        var hash: UInt32 = 2_166_136_261
        for byte in replica.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        let suffix = [digits[Int(hash % 62)], digits[1 + Int((hash / 62) % 61)]]
        let candidate = position + String(decoding: suffix, as: UTF8.self)
        guard candidate.utf8.count <= maximumLength, upper.map({ candidate < $0 }) ?? true else { return position }
        return candidate
    }

    /// The indices of a longest run of `keys` in increasing order, nil keys left out.
    private static func longestOrderedRun(_ keys: [(String, String)?]) -> [Int] {
        // Patience sorting: the smallest tail of a run of each length, and each index's predecessor.
        var tails: [Int] = []
        var previous = [Int?](repeating: nil, count: keys.count)
        for (index, key) in keys.enumerated() {
            guard let key else { continue }
            var low = 0
            var high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if let tail = keys[tails[middle]], tail < key { low = middle + 1 } else { high = middle }
            }
            previous[index] = low > 0 ? tails[low - 1] : nil
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var run: [Int] = []
        var next = tails.last
        while let index = next {
            run.append(index)
            next = previous[index]
        }
        return run.reversed()
    }
}
