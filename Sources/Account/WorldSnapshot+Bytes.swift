import Foundation

/// The bytes of a document being written: a buffer written in place and grown by
/// `realloc`, handed to `Data` without a copy. A world of 100k posts is 32 MB: an
/// array's checks on each byte appended, and a copy at the end, cost as much as the
/// writing.
final class DocumentBytes {
    private var base: UnsafeMutablePointer<UInt8>?
    private(set) var count = 0
    private var capacity = 0
    /// Whether memory for the bytes could not be had: what was written since is lost.
    private(set) var isIncomplete = false

    init(capacity: Int) { reserve(max(capacity, 64)) }

    deinit { free(base) }

    func append(_ byte: UInt8) {
        if count == capacity { reserve(capacity * 2) }
        guard count < capacity, let base else { return }
        base[count] = byte
        count += 1
    }

    func append(contentsOf bytes: UnsafeBufferPointer<UInt8>) {
        append(contentsOf: UnsafeRawBufferPointer(bytes))
    }

    func append(contentsOf bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        if count + bytes.count > capacity { reserve(max(capacity * 2, count + bytes.count)) }
        guard count + bytes.count <= capacity, let base else { return }
        (base + count).update(from: source.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        count += bytes.count
    }

    /// Appends the bytes `other` holds; what `other` could not hold is lost here too.
    func append(contentsOf other: DocumentBytes) {
        if other.isIncomplete { isIncomplete = true }
        guard let source = other.base else { return }
        append(contentsOf: UnsafeRawBufferPointer(start: source, count: other.count))
    }

    /// The last byte, or nil when there is none.
    var last: UInt8? { count > 0 ? base?[count - 1] : nil }

    func removeLast() { count = max(0, count - 1) }

    /// The bytes written, as `Data` that owns them; the buffer is empty after.
    func data() -> Data {
        guard let base, count > 0 else { return Data() }
        self.base = nil
        defer {
            count = 0
            capacity = 0
        }
        return Data(bytesNoCopy: base, count: count, deallocator: .free)
    }

    /// Room for `capacity` bytes, unless memory cannot be had.
    private func reserve(_ capacity: Int) {
        guard let grown = realloc(base, capacity)?.assumingMemoryBound(to: UInt8.self) else {
            isIncomplete = true
            return
        }
        base = grown
        self.capacity = capacity
    }
}
