/// The bytes a `DBusConnection` has read and not yet taken, in one heap buffer the stream is
/// read straight into (`freeSpace(atLeast:)`, then `didFill(_:)`): no scratch buffer and no
/// copy out of it. Indices are from the start of the buffer (the connection keeps where its
/// untaken part begins, `inputStart`); `removeFirst(_:)` moves the rest down.
///
/// Used on the loop thread only, by the connection that owns it.
final class ReadBuffer {
    private var storage: UnsafeMutableRawPointer?
    /// How many bytes the buffer holds room for.
    private(set) var capacity = 0
    /// How many bytes are filled, from the start.
    private(set) var count = 0

    init() {}

    deinit { storage?.deallocate() }

    /// The byte at `index` (below `count`).
    subscript(index: Int) -> UInt8 {
        precondition(index >= 0 && index < count)
        return storage!.load(fromByteOffset: index, as: UInt8.self)
    }

    /// A copy of the bytes in `range` (within `count`).
    subscript(range: Range<Int>) -> [UInt8] {
        precondition(range.lowerBound >= 0 && range.upperBound <= count)
        return withUnsafeBytes { Array($0[range]) }
    }

    /// Calls `body` with the filled bytes (valid only during the call).
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: storage, count: count))
    }

    /// Room after the filled bytes for at least `minimum` more, grown (doubling) when there is
    /// not: read into it, then call `didFill(_:)` with how much was read.
    func freeSpace(atLeast minimum: Int) -> UnsafeMutableRawBufferPointer {
        if capacity - count < minimum {
            let grown = max(count + minimum, 2 * capacity)
            let fresh = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 16)
            if let storage {
                fresh.copyMemory(from: storage, byteCount: count)
                storage.deallocate()
            }
            (storage, capacity) = (fresh, grown)
        }
        return UnsafeMutableRawBufferPointer(start: storage! + count, count: capacity - count)
    }

    /// `count` more bytes were written into `freeSpace(atLeast:)`.
    func didFill(_ count: Int) {
        precondition(count >= 0 && self.count + count <= capacity)
        self.count += count
    }

    /// Drops the first `n` filled bytes, moving the rest to the start.
    func removeFirst(_ n: Int) {
        precondition(n >= 0 && n <= count)
        if n < count, let storage { storage.copyMemory(from: storage + n, byteCount: count - n) }
        count -= n
    }

    /// Moves the bytes from `start` on into new memory of exactly `capacity` bytes (at least
    /// their count), giving the old back: for a large message read straight into a buffer of
    /// its own size.
    func restart(from start: Int, capacity: Int) {
        precondition(start >= 0 && start <= count && capacity >= count - start)
        let fresh = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        if let storage {
            fresh.copyMemory(from: storage + start, byteCount: count - start)
            storage.deallocate()
        }
        (storage, self.capacity, count) = (fresh, capacity, count - start)
    }

    /// Hands the memory (and what it holds) to the caller, who must deallocate it; the buffer
    /// is left empty, with none.
    func detach() -> UnsafeMutableRawPointer? {
        defer { (storage, capacity, count) = (nil, 0, 0) }
        return storage
    }

    /// Empties the buffer and keeps its memory for the next reads.
    func removeAll() { count = 0 }

    /// Empties the buffer and gives its memory back (an idle connection holds none).
    func release() {
        storage?.deallocate()
        (storage, capacity, count) = (nil, 0, 0)
    }
}
