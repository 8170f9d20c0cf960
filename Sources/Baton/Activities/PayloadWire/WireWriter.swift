import Foundation

/// Writes GVariant's serialised normal form, little-endian, straight into bytes (GVariant
/// specification, "Serialisation"; GLib's gvariant-serialiser.c): values aligned to their type,
/// zero padding, and after each container of variable-size items the framing offsets of their
/// ends, each as wide as the container's total size needs (1, 2, 4 or 8 bytes).
///
/// Containers are written front to back: a container's framing offsets follow its items, so
/// nothing is moved once written. Their ends wait on a stack until the container is finished.
struct WireWriter {
    private(set) var bytes: [UInt8] = []
    /// Item ends (relative to their container) of the containers being written, innermost last.
    private var ends: [Int] = []

    init(capacity: Int = 1024) {
        bytes.reserveCapacity(capacity)
        ends.reserveCapacity(64)
    }

    /// A container begun and not yet finished.
    struct Frame {
        fileprivate let start: Int
        fileprivate let firstEnd: Int
    }

    var count: Int { bytes.count }

    /// Zero bytes up to the next multiple of `mask + 1`.
    mutating func align(_ mask: Int) {
        while bytes.count & mask != 0 { bytes.append(0) }
    }

    mutating func appendByte(_ value: UInt8) { bytes.append(value) }

    mutating func append(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func append(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func append(_ value: Int64) { append(UInt64(bitPattern: value)) }

    mutating func append(_ value: Double) { append(value.bitPattern) }

    mutating func append(_ raw: UnsafeRawBufferPointer) { bytes.append(contentsOf: raw) }

    mutating func append(_ data: Data) { data.withUnsafeBytes { bytes.append(contentsOf: $0) } }

    /// A type string or other ASCII the caller knows is NUL-free.
    mutating func append(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// A GVariant string: its UTF-8 and a NUL. False, with nothing written, when the string
    /// holds a NUL character (which a GVariant string cannot).
    mutating func appendString(_ text: String) -> Bool {
        var text = text
        let written = text.withUTF8 { utf8 in
            guard !utf8.isEmpty else { return true }
            guard memchr(utf8.baseAddress!, 0, utf8.count) == nil else { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        guard written else { return false }
        bytes.append(0)
        return true
    }

    /// Begins a container whose first item is written next (already aligned by the caller).
    func begin() -> Frame { Frame(start: bytes.count, firstEnd: ends.count) }

    /// Records the end of an item that needs a framing offset: each item of an array of
    /// variable-size items, each variable-size tuple member but the last.
    mutating func markEnd(of frame: Frame) { ends.append(bytes.count - frame.start) }

    /// Ends an array: its framing offsets in item order.
    mutating func finishArray(_ frame: Frame) { finish(frame, reversed: false) }

    /// Ends a tuple or dictionary entry: its framing offsets in reverse member order.
    mutating func finishTuple(_ frame: Frame) { finish(frame, reversed: true) }

    private mutating func finish(_ frame: Frame, reversed: Bool) {
        let count = ends.count - frame.firstEnd
        guard count > 0 else { return }
        let body = bytes.count - frame.start
        let width = WireWriter.offsetSize(forTotal: WireWriter.totalSize(body: body, offsets: count))
        if reversed {
            for index in stride(from: ends.count - 1, through: frame.firstEnd, by: -1) { appendOffset(ends[index], width) }
        } else {
            for index in frame.firstEnd..<ends.count { appendOffset(ends[index], width) }
        }
        ends.removeLast(count)
    }

    private mutating func appendOffset(_ value: Int, _ width: Int) {
        var remaining = UInt64(value)
        for _ in 0..<width {
            bytes.append(UInt8(truncatingIfNeeded: remaining))
            remaining >>= 8
        }
    }

    /// GLib's `gvs_calculate_total_size`: the smallest offset width whose offsets, with the
    /// body, fit in the range that width can address.
    static func totalSize(body: Int, offsets: Int) -> Int {
        if body + offsets <= Int(UInt8.max) { return body + offsets }
        if body + 2 * offsets <= Int(UInt16.max) { return body + 2 * offsets }
        if body + 4 * offsets <= Int(UInt32.max) { return body + 4 * offsets }
        return body + 8 * offsets
    }

    /// GLib's `gvs_get_offset_size`: the offset width for a container of `total` bytes.
    static func offsetSize(forTotal total: Int) -> Int {
        if total > Int(UInt32.max) { return 8 }
        if total > Int(UInt16.max) { return 4 }
        if total > Int(UInt8.max) { return 2 }
        return total > 0 ? 1 : 0
    }

    /// The order dictionary keys (and the strings of an `as`) are written in: their UTF-8 bytes,
    /// as `strcmp` orders them. A total order, so equal dictionaries give equal bytes; Swift's
    /// `<` is not one for strings that differ in Unicode normalisation (on this toolchain
    /// "ae\u{301}" < "ae\u{301}a" < "a\u{e9}b" yet not "ae\u{301}" < "a\u{e9}b"). For ASCII
    /// keys it is the order `Variant.dictionary` writes.
    static func precedes(_ a: String, _ b: String) -> Bool {
        var a = a, b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                let shared = min(x.count, y.count)
                let order = shared == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, shared)
                return order != 0 ? order < 0 : x.count < y.count
            }
        }
    }

    /// The first eight UTF-8 bytes of `key` as a big-endian number, zeros after a shorter key:
    /// ordered as `precedes` orders keys without NUL (the only keys written) whenever two
    /// prefixes differ.
    static func orderPrefix(_ key: String) -> UInt64 {
        var key = key
        return key.withUTF8 { bytes in
            var prefix: UInt64 = 0
            for index in 0..<8 { prefix = prefix << 8 | UInt64(index < bytes.count ? bytes[index] : 0) }
            return prefix
        }
    }
}
