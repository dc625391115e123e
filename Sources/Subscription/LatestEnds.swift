import Foundation

/// The transactions of one tier that grant it, each with the date it grants until,
/// and the latest of those dates: a four-ary max-heap that knows where each
/// transaction sits, so a transaction's date can change, or the transaction leave, in
/// O(log n). Four children a node keep it shallow — a renewal, whose date is the
/// latest, climbs seven levels at ten thousand transactions — and each step moves one
/// transaction into the hole above or below it instead of swapping two.
struct LatestEnds: Sendable {
    private var heap: [(id: UInt64, end: Date)] = []
    private var positions: [UInt64: Int] = [:]
    /// How many heap slots the operations so far compared: what they cost.
    private(set) var steps = 0

    /// The latest date any transaction grants until, or nil when none does.
    var latest: Date? { heap.first?.end }

    /// How many transactions it holds.
    var count: Int { heap.count }

    /// Records that transaction `id` grants until `end`, in place of what it said before.
    mutating func set(_ id: UInt64, to end: Date) {
        guard let index = positions[id] else {
            heap.append((id, end))
            siftUp((id, end), from: heap.count - 1)
            return
        }
        let old = heap[index].end
        guard old != end else { return }
        if end > old { siftUp((id, end), from: index) } else { siftDown((id, end), from: index) }
    }

    /// Forgets transaction `id`, if it is held.
    mutating func remove(_ id: UInt64) {
        guard let index = positions.removeValue(forKey: id) else { return }
        let last = heap.removeLast()
        guard index < heap.count else { return }
        // The last transaction fills the hole: up if it is later than the hole's parent, else down.
        if index > 0, last.end > heap[(index - 1) / 4].end {
            siftUp(last, from: index)
        } else {
            siftDown(last, from: index)
        }
    }

    /// Places `item` at the hole `start` or above it, moving later-ending parents down.
    private mutating func siftUp(_ item: (id: UInt64, end: Date), from start: Int) {
        var index = start
        while index > 0 {
            steps += 1
            let parent = (index - 1) / 4
            guard item.end > heap[parent].end else { break }
            heap[index] = heap[parent]
            positions[heap[index].id] = index
            index = parent
        }
        heap[index] = item
        positions[item.id] = index
    }

    /// Places `item` at the hole `start` or below it, moving the latest-ending child up.
    private mutating func siftDown(_ item: (id: UInt64, end: Date), from start: Int) {
        var index = start
        while true {
            steps += 1
            let first = 4 * index + 1
            guard first < heap.count else { break }
            var latest = first
            for child in (first + 1)..<min(first + 4, heap.count) where heap[child].end > heap[latest].end { latest = child }
            guard heap[latest].end > item.end else { break }
            heap[index] = heap[latest]
            positions[heap[index].id] = index
            index = latest
        }
        heap[index] = item
        positions[item.id] = index
    }
}
