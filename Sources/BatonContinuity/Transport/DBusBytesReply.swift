/// A bytes reply — a D-Bus method return whose body is `(ay)`, as `FetchPayload`'s payload,
/// `GetRevocations`' list and `GetDiscoveryKey`'s key are — written and read without GLib
/// (D-Bus specification, "Message Format"): the bytes go from the answer into the message and
/// from the message read to the waiting call, with no `GDBusMessage` and no `GVariant` tree
/// between (issue 26: the warm continuation's reply).
///
/// Written byte for byte as GLib writes that reply (`g_dbus_message_to_blob`): little-endian,
/// flagged "no reply expected", with two header fields, the signature `ay` and the reply serial.
///
/// Reading is a narrow recogniser, not a second decoder, as `DBusDataSignal`'s is: `layout(of:)`
/// takes only a message it can vouch for whole — a method return, D-Bus version 1, known flags,
/// a serial, exactly the reply-serial and signature fields (a `sender` or `destination` field,
/// which a bus would add, or any other makes it not one), each once and of its type, zero
/// padding, and a body of exactly one `ay` whose length is the rest of the body. Anything else
/// goes to GLib's full decoding, which refuses what is malformed as before. The size check
/// (`DBusFraming`) has run before any of it was read.
package enum DBusBytesReply {
    /// The D-Bus type code of a method return, and the header field codes used here.
    static let methodReturnType: UInt8 = 2
    static let replySerialField: UInt8 = 5, signatureField: UInt8 = 8
    /// The flags a message may carry: no reply expected, no auto start, interactive authorization.
    static let knownFlags: UInt8 = 0x7
    /// Where the body starts: the fixed header, the signature (code, `g`, length, `ay`, NUL:
    /// 8 bytes), the reply serial (code, `u`, value: 8 bytes).
    static let bodyStart = 32

    /// Where a bytes reply's parts are in its message (offsets from the message's start).
    package struct Layout: Equatable {
        package let serial: UInt32
        package let replySerial: UInt32
        /// The body's `ay`.
        package let bytes: Range<Int>
    }

    /// The size of the reply `write(into:...)` writes for `count` bytes.
    package static func size(bytes count: Int) -> Int { bodyStart + 4 + count }

    /// Writes the reply to call `replySerial`, with serial `serial` and body `(bytes)`, into
    /// `buffer` (exactly `size(bytes:)` bytes), little-endian.
    package static func write(into buffer: UnsafeMutableRawBufferPointer, serial: UInt32, replySerial: UInt32,
                              bytes: UnsafeRawBufferPointer) {
        precondition(buffer.count == size(bytes: bytes.count))
        let b = buffer.baseAddress!
        func u32(_ value: UInt32, at offset: Int) { b.storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt32.self) }
        func u8(_ value: UInt8, at offset: Int) { b.storeBytes(of: value, toByteOffset: offset, as: UInt8.self) }
        b.initializeMemory(as: UInt8.self, repeating: 0, count: bodyStart)
        u8(UInt8(ascii: "l"), at: 0)
        u8(methodReturnType, at: 1)
        u8(1, at: 2)  // no reply expected, as GLib marks a reply
        u8(1, at: 3)
        u32(UInt32(4 + bytes.count), at: 4)
        u32(serial, at: 8)
        u32(UInt32(bodyStart - DBusFraming.fixedHeaderSize), at: 12)  // two fields of 8 bytes each
        // The signature: code, signature "g", then the length, "ay" and its NUL.
        u8(signatureField, at: 16)
        u8(1, at: 17)
        u8(UInt8(ascii: "g"), at: 18)
        u8(2, at: 20)
        u8(UInt8(ascii: "a"), at: 21)
        u8(UInt8(ascii: "y"), at: 22)
        // The reply serial: code, signature "u", then the value at offset 28.
        u8(replySerialField, at: 24)
        u8(1, at: 25)
        u8(UInt8(ascii: "u"), at: 26)
        u32(replySerial, at: 28)
        u32(UInt32(bytes.count), at: bodyStart)
        if !bytes.isEmpty { (b + bodyStart + 4).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count) }
    }

    /// The parts of `message` (one whole message, as `DBusFraming` measured it) if it is a bytes
    /// reply as this type reads one; nil for any other message, well formed or not.
    package static func layout(of message: UnsafeRawBufferPointer) -> Layout? {
        let m = message
        guard m.count >= bodyStart + 4 else { return nil }
        let little: Bool
        switch m[0] {
        case UInt8(ascii: "l"): little = true
        case UInt8(ascii: "B"): little = false
        default: return nil
        }
        guard m[1] == methodReturnType, m[2] & ~knownFlags == 0, m[3] == 1 else { return nil }
        func u32(_ offset: Int) -> UInt32 {
            let raw = m.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
            return little ? UInt32(littleEndian: raw) : UInt32(bigEndian: raw)
        }
        let bodyLength = Int(u32(4)), serial = u32(8), fieldsLength = Int(u32(12))
        guard serial != 0, fieldsLength == bodyStart - DBusFraming.fixedHeaderSize, m.count - bodyStart == bodyLength else { return nil }
        // The two fields, each 8 bytes, in either order (GLib writes the signature first), and nothing else.
        let replySerialAt: Int, signatureAt: Int
        switch (m[16], m[24]) {
        case (replySerialField, signatureField): (replySerialAt, signatureAt) = (16, 24)
        case (signatureField, replySerialField): (replySerialAt, signatureAt) = (24, 16)
        default: return nil
        }
        guard m[replySerialAt + 1] == 1, m[replySerialAt + 2] == UInt8(ascii: "u"), m[replySerialAt + 3] == 0 else { return nil }
        guard m[signatureAt + 1] == 1, m[signatureAt + 2] == UInt8(ascii: "g"), m[signatureAt + 3] == 0,
              m[signatureAt + 4] == 2, m[signatureAt + 5] == UInt8(ascii: "a"), m[signatureAt + 6] == UInt8(ascii: "y"),
              m[signatureAt + 7] == 0 else { return nil }
        let replySerialValue = replySerialAt + 4
        let replySerial = u32(replySerialValue)
        guard replySerial != 0 else { return nil }
        let count = Int(u32(bodyStart))
        guard count == bodyLength - 4 else { return nil }
        return Layout(serial: serial, replySerial: replySerial, bytes: bodyStart + 4..<m.count)
    }
}
