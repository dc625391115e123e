internal import CPrefetch
import Foundation

/// One version of a record: its value, or nil where the record was removed, and the
/// version of the commit that wrote it.
struct RecordVersion {
    var value: Data?
    var version: UInt64
}

/// What the tree keeps for one key: the newest version, and the one before it while a
/// read that began before the newest one may still ask for it.
struct RecordSlot {
    var current: RecordVersion
    var previous: RecordVersion?
}

/// The records of one in-memory collection: a B+ tree from keys (UTF-8 bytes, in byte
/// order) to ``RecordSlot``s, changed in place.
///
/// A lookup, an insertion or a removal costs O(log n); a range walk costs O(log n) to
/// seek and O(1) a step; counting a range costs O(log n) from the entry counts kept in
/// the branches. A node keeps its keys' bytes in one buffer, so a search compares
/// memory without reference counting. A node holds at most its capacity
/// (``leafCapacity`` or ``branchCapacity``); a node left with fewer than a quarter of
/// it is merged with, or refilled from, a neighbour. The tree is not thread-safe: ``MemoryDatabase`` guards it.
final class MemoryTree {
    /// The most entries in a leaf, and children in a branch. Wide branches keep the
    /// levels above the leaves few and small enough to stay in the processor's cache, so
    /// a seek in a million records misses the cache mostly in its one leaf.
    static let leafCapacity = 64
    static let branchCapacity = 256

    /// A leaf holds slots; a branch holds children and, for each, its last key and its
    /// number of entries.
    ///
    /// The stored properties of the nodes and the tree are `@exclusivity(unchecked)`:
    /// the runtime check of overlapping access cost a fifth of a single-record write.
    /// A tree is used by one thread at a time, under its database's lock, and no method
    /// reaches a property while changing it.
    final class Node {
        let isLeaf: Bool
        /// The keys' bytes one after another: a leaf's keys, or each child's last key.
        @exclusivity(unchecked) private(set) var keyBytes: [UInt8] = []
        /// Where each key ends in `keyBytes`; key `i` starts where key `i - 1` ends. 32
        /// bits hold any node (at most 256 keys of 16 KiB) in half the cache lines.
        @exclusivity(unchecked) private(set) var keyEnds: [UInt32] = []
        /// A leaf's slots, one per key.
        @exclusivity(unchecked) var slots: [RecordSlot] = []
        /// A branch's children, one per key.
        @exclusivity(unchecked) var children: [Node] = []
        /// The number of entries under each child.
        @exclusivity(unchecked) var counts: [Int] = []
        /// The number of entries under this node.
        @exclusivity(unchecked) var total = 0

        init(isLeaf: Bool) {
            self.isLeaf = isLeaf
        }

        var keyCount: Int { keyEnds.count }

        /// The most keys this node holds before it splits.
        var capacity: Int { isLeaf ? MemoryTree.leafCapacity : MemoryTree.branchCapacity }

        /// Below this many keys, this node is merged with or refilled from a neighbour.
        var minimumCount: Int { capacity / 4 }

        private func start(_ index: Int) -> Int { index == 0 ? 0 : Int(keyEnds[index - 1]) }

        private func end(_ index: Int) -> Int { Int(keyEnds[index]) }

        /// Calls `body` with the bytes of key `index`.
        func withKey<Result>(_ index: Int, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
            let range = start(index)..<end(index)
            return keyBytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[range])) }
        }

        /// Key `index` as an array.
        func key(_ index: Int) -> [UInt8] {
            Array(keyBytes[start(index)..<end(index)])
        }

        /// The first index whose key is at or above `probe` (strictly above, `after` it).
        func search(_ probe: UnsafeRawBufferPointer, after: Bool = false) -> Int {
            prefetchKeys()
            return keyBytes.withUnsafeBytes { bytes in
                keyEnds.withUnsafeBufferPointer { ends in
                    var low = 0
                    var high = ends.count
                    while low < high {
                        let middle = (low + high) / 2
                        let begin = middle == 0 ? 0 : Int(ends[middle - 1])
                        let order = compareBytes(UnsafeRawBufferPointer(rebasing: bytes[begin..<Int(ends[middle])]), probe)
                        if order < 0 || (after && order == 0) { low = middle + 1 } else { high = middle }
                    }
                    return low
                }
            }
        }

        /// Whether key `index` is `probe`.
        func keyEquals(_ index: Int, _ probe: UnsafeRawBufferPointer) -> Bool {
            withKey(index) { compareBytes($0, probe) == 0 }
        }

        func insertKey(_ key: UnsafeRawBufferPointer, at index: Int) {
            if index == keyEnds.count { // after the last key, as ascending keys are written
                keyBytes.append(contentsOf: key)
                keyEnds.append(UInt32(keyBytes.count))
                return
            }
            let begin = start(index)
            keyBytes.insert(contentsOf: key, at: begin)
            keyEnds.insert(UInt32(begin), at: index)
            for later in index..<keyEnds.count { keyEnds[later] += UInt32(key.count) }
        }

        func removeKey(at index: Int) {
            let range = start(index)..<end(index)
            keyBytes.removeSubrange(range)
            keyEnds.remove(at: index)
            for later in index..<keyEnds.count { keyEnds[later] -= UInt32(range.count) }
        }

        func replaceKey(at index: Int, with key: UnsafeRawBufferPointer) {
            let range = start(index)..<end(index)
            if key.count == range.count { // keys of one width, as the stores' numbered keys are
                keyBytes.withUnsafeMutableBytes { bytes in
                    UnsafeMutableRawBufferPointer(rebasing: bytes[range]).copyMemory(from: key)
                }
                return
            }
            keyBytes.replaceSubrange(range, with: key)
            for later in index..<keyEnds.count { keyEnds[later] = UInt32(Int(keyEnds[later]) + key.count - range.count) }
        }

        /// Makes branch key `index` the last key of child `index` again.
        func refreshKey(_ index: Int) {
            let child = children[index]
            child.withKey(child.keyCount - 1) { replaceKey(at: index, with: $0) }
        }

        /// Inserts `child` at `index` with its last key and count.
        func insertChild(_ child: Node, at index: Int) {
            child.withKey(child.keyCount - 1) { insertKey($0, at: index) }
            children.insert(child, at: index)
            counts.insert(child.total, at: index)
        }

        func removeChild(at index: Int) {
            removeKey(at: index)
            children.remove(at: index)
            counts.remove(at: index)
        }

        /// Moves the keys from `index` on into a new node after this one.
        func split(at index: Int) -> Node {
            let sibling = Node(isLeaf: isLeaf)
            let offset = start(index)
            sibling.keyBytes = Array(keyBytes[offset...])
            sibling.keyEnds = keyEnds[index...].map { $0 - UInt32(offset) }
            keyBytes.removeSubrange(offset...)
            keyEnds.removeSubrange(index...)
            if isLeaf {
                sibling.slots = Array(slots[index...])
                slots.removeSubrange(index...)
                sibling.total = sibling.slots.count
                total = slots.count
            } else {
                sibling.children = Array(children[index...])
                sibling.counts = Array(counts[index...])
                children.removeSubrange(index...)
                counts.removeSubrange(index...)
                sibling.total = sibling.counts.reduce(0, +)
                total = counts.reduce(0, +)
            }
            return sibling
        }

        /// Appends every key of `next`, the node after this one.
        func absorb(_ next: Node) {
            let offset = keyBytes.count
            keyBytes += next.keyBytes
            keyEnds += next.keyEnds.map { $0 + UInt32(offset) }
            slots += next.slots
            children += next.children
            counts += next.counts
            total += next.total
        }

        /// Starts loading the lines a search reads into the processor's cache, all at
        /// once: a branch's key ends (up to 16 lines), a leaf's key ends (up to 4) and
        /// key bytes (about 30 for the bench's keys). A binary search reads them one
        /// probe after another, and at a million records each probe of a leaf missed the
        /// cache in turn. Measured with `train-bench`, interleaved with the build before: a page
        /// of 20 at a million records went from 5.5–6.2 to 4.5–5.1 µs (ENGINE-SEEK-MEM
        /// 1.57–1.67 to 1.37–1.43) and a point read from 2.3–2.4 to 1.9 µs. A branch's
        /// key bytes, up to 7 KiB, are left to the search.
        private func prefetchKeys() {
            keyEnds.withUnsafeBytes { trainkit_prefetch($0.baseAddress, $0.count) }
            if isLeaf { keyBytes.withUnsafeBytes { trainkit_prefetch($0.baseAddress, $0.count) } }
        }

        /// Calls `body` with each entry of `range` under this node, walking in
        /// `direction`, until it returns false.
        func visit(_ range: ByteRange, _ direction: ScanDirection, _ body: (UnsafeRawBufferPointer, RecordSlot) -> Bool) -> Bool {
            let span = span(range)
            var index = direction == .forward ? span.lowerBound : span.upperBound - 1
            let step = direction == .forward ? 1 : -1
            while span.contains(index) {
                if isLeaf {
                    guard withKey(index, { body($0, slots[index]) }) else { return false }
                } else {
                    guard children[index].visit(range, direction, body) else { return false }
                }
                index += step
            }
            return true
        }

        /// The number of entries of `range` under this node.
        func count(in range: ByteRange) -> Int {
            let span = span(range)
            guard !span.isEmpty else { return 0 }
            if isLeaf { return span.count }
            if span.count == 1 { return children[span.lowerBound].count(in: range) }
            var sum = children[span.lowerBound].count(in: range) + children[span.upperBound - 1].count(in: range)
            for index in (span.lowerBound + 1)..<(span.upperBound - 1) { sum += counts[index] }
            return sum
        }

        /// The indices of the entries (in a leaf) or of the children (in a branch)
        /// that can hold keys of `range`: exact in a leaf; in a branch, the first and
        /// last may hold keys outside it, those between hold only keys inside it.
        private func span(_ range: ByteRange) -> Range<Int> {
            let start: Int
            switch range.lower {
            case .unbounded: start = 0
            case .included(let key): start = key.withUnsafeBytes { search($0) }
            case .excluded(let key): start = key.withUnsafeBytes { search($0, after: true) }
            }
            var end: Int
            switch range.upper {
            case .unbounded: end = keyCount
            case .included(let key): end = key.withUnsafeBytes { isLeaf ? search($0, after: true) : search($0) + 1 }
            case .excluded(let key): end = key.withUnsafeBytes { isLeaf ? search($0) : search($0) + 1 }
            }
            end = min(end, keyCount)
            return start < end ? start..<end : start..<start
        }
    }

    @exclusivity(unchecked) private(set) var root = Node(isLeaf: true)
    /// The branches an ``update(_:_:)`` went through and the child it took in each,
    /// kept between updates so that an update allocates nothing.
    @exclusivity(unchecked) private var path: [(branch: Node, index: Int)] = []

    /// The number of entries.
    var count: Int { root.total }

    // MARK: - Reading

    /// The slot of `key`, if the tree holds it.
    func slot(forKey key: UnsafeRawBufferPointer) -> RecordSlot? {
        var node = root
        while !node.isLeaf {
            let index = node.search(key)
            guard index < node.children.count else { return nil }
            node = node.children[index]
        }
        let index = node.search(key)
        return index < node.keyCount && node.keyEquals(index, key) ? node.slots[index] : nil
    }

    /// Calls `body` with each entry of `range`, walking in `direction`, until it returns false.
    func forEach(in range: ByteRange, direction: ScanDirection, _ body: (UnsafeRawBufferPointer, RecordSlot) -> Bool) {
        guard !range.isEmpty else { return }
        _ = root.visit(range, direction, body)
    }

    /// The number of entries in `range`.
    func count(in range: ByteRange) -> Int {
        guard !range.isEmpty else { return 0 }
        if case .unbounded = range.lower, case .unbounded = range.upper { return root.total }
        return root.count(in: range)
    }

    // MARK: - Changing

    /// Finds `key`'s slot and lets `body` change it: nil in, the key is absent; nil out,
    /// the key goes. One descent, whatever happens.
    func update(_ key: UnsafeRawBufferPointer, _ body: (inout RecordSlot?) -> Void) {
        path.removeAll(keepingCapacity: true)
        defer { path.removeAll(keepingCapacity: true) }
        var node = root
        while !node.isLeaf {
            let index = min(node.search(key), node.children.count - 1)
            path.append((node, index))
            node = node.children[index]
        }
        let leaf = node
        let index = leaf.search(key)
        let found = index < leaf.keyCount && leaf.keyEquals(index, key)
        var slot = found ? leaf.slots[index] : nil
        body(&slot)
        let delta: Int
        let lastKeyChanged: Bool
        switch (found, slot) {
        case (true, let slot?):
            leaf.slots[index] = slot
            return
        case (false, nil):
            return
        case (false, let slot?):
            leaf.insertKey(key, at: index)
            leaf.slots.insert(slot, at: index)
            leaf.total += 1
            delta = 1
            lastKeyChanged = index == leaf.keyCount - 1
        case (true, nil):
            leaf.removeKey(at: index)
            leaf.slots.remove(at: index)
            leaf.total -= 1
            delta = -1
            lastKeyChanged = index == leaf.keyCount && index > 0
        }
        fixUp(delta: delta, lastKeyChanged: lastKeyChanged)
    }

    /// Removes every entry.
    func removeAll() {
        root = Node(isLeaf: true)
    }

    /// Brings the branches on `path` back in line after the node below the last one
    /// gained or lost an entry: counts, last keys, splits, merges; then the root.
    private func fixUp(delta: Int, lastKeyChanged: Bool) {
        var lastKeyChanged = lastKeyChanged
        for (parent, index) in path.reversed() {
            let child = parent.children[index]
            parent.counts[index] = child.total
            parent.total += delta
            if child.keyCount == 0 {
                parent.removeChild(at: index)
                lastKeyChanged = index == parent.keyCount && index > 0
                continue
            }
            if lastKeyChanged { parent.refreshKey(index) }
            lastKeyChanged = lastKeyChanged && index == parent.keyCount - 1
            if child.keyCount > child.capacity {
                let sibling = child.split(at: child.keyCount / 2)
                parent.counts[index] = child.total
                parent.refreshKey(index)
                parent.insertChild(sibling, at: index + 1)
            } else if child.keyCount < child.minimumCount, parent.children.count > 1 {
                Self.rebalance(parent, index)
            }
        }
        if root.keyCount > root.capacity {
            let left = root
            let right = left.split(at: left.keyCount / 2)
            let newRoot = Node(isLeaf: false)
            newRoot.insertChild(left, at: 0)
            newRoot.insertChild(right, at: 1)
            newRoot.total = left.total + right.total
            root = newRoot
        }
        while !root.isLeaf, root.children.count <= 1 {
            root = root.children.first ?? Node(isLeaf: true)
        }
    }

    /// Merges the underfull child at `index` with a neighbour, or shares their keys
    /// evenly when together they would overflow a node.
    private static func rebalance(_ parent: Node, _ index: Int) {
        let left = index + 1 < parent.children.count ? index : index - 1
        let first = parent.children[left]
        let second = parent.children[left + 1]
        first.absorb(second)
        parent.removeChild(at: left + 1)
        if first.keyCount > first.capacity {
            let sibling = first.split(at: first.keyCount / 2)
            parent.insertChild(sibling, at: left + 1)
        }
        parent.counts[left] = first.total
        parent.refreshKey(left)
    }
}

/// A ``KeyRange`` as UTF-8 bytes, for comparing with stored keys.
struct ByteRange {
    enum Bound {
        case unbounded
        case included([UInt8])
        case excluded([UInt8])

        init(_ bound: KeyRange.Bound) {
            switch bound {
            case .unbounded: self = .unbounded
            case .included(let key): self = .included(Array(key.utf8))
            case .excluded(let key): self = .excluded(Array(key.utf8))
            }
        }

        /// The key and whether it is included, or nil when unbounded.
        var key: (bytes: [UInt8], included: Bool)? {
            switch self {
            case .unbounded: nil
            case .included(let key): (key, true)
            case .excluded(let key): (key, false)
            }
        }
    }

    var lower: Bound
    var upper: Bound

    init(_ range: KeyRange) {
        lower = Bound(range.lower)
        upper = Bound(range.upper)
    }

    /// Whether no key can lie in the range.
    var isEmpty: Bool {
        guard let low = lower.key, let high = upper.key else { return false }
        let order = compareBytes(low.bytes, high.bytes)
        return order > 0 || (order == 0 && !(low.included && high.included))
    }
}
