/// The D-Bus message framing: how long the message that starts in a buffer is, read from its
/// 16-byte fixed header alone, and whether it is within the caps — so a message past them is
/// refused before the rest of it is read (D-Bus specification, "Message Format"). Every D-Bus
/// connection Baton makes (`DBusConnection`: device links and the agent's socket) reads
/// through this one check.
package struct DBusFraming: Sendable {
    /// The fixed header: byte order, type, flags, version, body length, serial, and the length
    /// of the header-fields array.
    package static let fixedHeaderSize = 16

    package let maximumBody: Int
    package let maximumHeaderFields: Int

    package init(maximumBody: Int, maximumHeaderFields: Int) {
        self.maximumBody = maximumBody
        self.maximumHeaderFields = maximumHeaderFields
    }

    /// What the fixed header at the start of `bytes` announces.
    package enum Frame: Equatable, Sendable {
        /// Fewer than 16 bytes so far.
        case needMore
        /// A whole message is `size` bytes long (fixed header, fields padded to 8, body).
        case message(size: Int)
        /// Not a message this side takes; the reason, in words (short: no peer bytes beyond the
        /// first, and the numbers announced), and whether it was for its size.
        case refused(String, oversized: Bool)
    }

    /// Reads the fixed header at the start of `bytes`.
    package func frame(_ bytes: UnsafeRawBufferPointer) -> Frame {
        guard bytes.count >= Self.fixedHeaderSize else { return .needMore }
        let order = bytes[0]
        guard order == UInt8(ascii: "l") || order == UInt8(ascii: "B") else {
            return .refused("a D-Bus message began with byte 0x\(String(order, radix: 16)), not a byte order", oversized: false)
        }
        func u32(_ offset: Int) -> Int {
            let raw = bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
            return Int(order == UInt8(ascii: "l") ? UInt32(littleEndian: raw) : UInt32(bigEndian: raw))
        }
        let body = u32(4), fields = u32(12)
        // Worded only for a refusal: this runs for every message, and a string costs more than the check.
        var announced: String { "a D-Bus message announced a body of \(body) bytes and header fields of \(fields) bytes" }
        guard body <= maximumBody else { return .refused(announced + " (limit \(maximumBody))", oversized: true) }
        guard fields <= maximumHeaderFields else {
            return .refused(announced + " (limit \(maximumHeaderFields) for header fields)", oversized: true)
        }
        return .message(size: Self.fixedHeaderSize + ((fields + 7) & ~7) + body)
    }
}
