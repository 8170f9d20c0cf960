/// A heap buffer that grows to the largest read asked of it and is kept for the next one.
struct ReadBuffer: ~Copyable {
    private var pointer: UnsafeMutableRawPointer?
    private var capacity = 0

    /// At least `count` writable bytes (the contents are not kept when it grows).
    mutating func reserve(_ count: Int) -> UnsafeMutableRawPointer {
        if let pointer, capacity >= count { return pointer }
        pointer?.deallocate()
        let fresh = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 16)
        (pointer, capacity) = (fresh, count)
        return fresh
    }

    deinit { pointer?.deallocate() }
}
