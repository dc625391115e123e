import Foundation

/// The transactions of one tier that grant it, each with the date it grants until,
/// and the latest of those dates: a binary max-heap that knows where each transaction
/// sits, so a transaction's date can change, or the transaction leave, in O(log n).
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
            positions[id] = heap.count - 1
            siftUp(heap.count - 1)
            return
        }
        let old = heap[index].end
        guard old != end else { return }
        heap[index].end = end
        if end > old { siftUp(index) } else { siftDown(index) }
    }

    /// Forgets transaction `id`, if it is held.
    mutating func remove(_ id: UInt64) {
        guard let index = positions.removeValue(forKey: id) else { return }
        let last = heap.removeLast()
        guard index < heap.count else { return }
        heap[index] = last
        positions[last.id] = index
        siftUp(index)
        siftDown(positions[last.id] ?? index)
    }

    private mutating func siftUp(_ start: Int) {
        var index = start
        while index > 0 {
            steps += 1
            let parent = (index - 1) / 2
            guard heap[index].end > heap[parent].end else { return }
            swapAt(index, parent)
            index = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var index = start
        while true {
            steps += 1
            var largest = index
            let left = 2 * index + 1
            if left < heap.count, heap[left].end > heap[largest].end { largest = left }
            if left + 1 < heap.count, heap[left + 1].end > heap[largest].end { largest = left + 1 }
            guard largest != index else { return }
            swapAt(index, largest)
            index = largest
        }
    }

    private mutating func swapAt(_ first: Int, _ second: Int) {
        heap.swapAt(first, second)
        positions[heap[first].id] = first
        positions[heap[second].id] = second
    }
}
